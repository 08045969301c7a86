"""Opening bundles as one long job: for the window's worker (progress, Cancel) and the CLI.

`open_bundles(paths, progress=None, should_stop=None)` loads each bundle in turn, collects the
problems of those that fail (`FILE:LINE: reason` strings) instead of stopping at the first,
and builds, while still on the worker, the indexes the window asks for at once (a document by
id, a document's steps, its position) and finds each bundle's non-ASCII characters (for the
window's font check), so a bundle of 10^5 documents reaches the main thread ready to show.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from llgui.core.errors import LoadError
from llgui.core.jobs import check
from llgui.core.types import Bundle


@dataclass(frozen=True)
class Opened:
    """What a load gave: the bundles that loaded, in order, and every problem as a line."""

    paths: tuple[str, ...]
    bundles: tuple[Bundle, ...]
    problems: tuple[str, ...]
    # each bundle's visible non-ASCII characters (llgui.core.mt.script.bundle_characters),
    # for the window's font check: 1,000 documents' texts scanned here, not on its event loop
    characters: tuple[frozenset[str], ...] = ()


def open_bundles(paths: Sequence[str | Path],
                 progress: Callable[[float], None] | None = None,
                 should_stop: Callable[[], bool] | None = None) -> Opened:
    from llgui.core.mt.script import bundle_characters
    from llgui.io.bundle import load_bundle

    paths = tuple(str(p) for p in paths)
    loaded: list[Bundle] = []
    characters: list[frozenset[str]] = []
    problems: list[str] = []
    n = max(len(paths), 1)
    for i, path in enumerate(paths):
        check(should_stop)

        def part(fraction: float, i=i) -> None:
            if progress is not None:
                progress((i + fraction) / n)

        try:
            bundle = load_bundle(Path(path), part, should_stop)
        except LoadError as error:
            problems.extend(str(p) for p in error.problems)
            continue
        except OSError as error:
            problems.append(f"{path}: {error.strerror or error}")
            continue
        prepare(bundle)
        loaded.append(bundle)
        characters.append(bundle_characters(bundle))
    return Opened(paths, tuple(loaded), tuple(problems), tuple(characters))


def prepare(bundle: Bundle) -> Bundle:
    """Build a bundle's lookup indexes now (on the calling thread) rather than on first use."""
    bundle.steps_of("")
    bundle.position("")
    return bundle
