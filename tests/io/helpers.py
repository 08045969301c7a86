"""Shared helpers for the loader tests: write a file, collect the problems a load raises."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import HealthCheck, settings

from llgui.core.errors import LoadError

# 300 examples a loader in every run, 1,000 under LLGUI_RUN_SLOW=1 (before a release): at
# 1,000 the derandomised fuzzers were about a fifth of the suite's CPU time, which kept the
# suite past five minutes on two cores
FUZZ_EXAMPLES = 1000 if os.environ.get("LLGUI_RUN_SLOW") == "1" else 300
FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
"""Fuzzing settings: 1000 examples, reproducible (derandomized, no example database)."""


def write(path: Path | str, content: str | bytes) -> Path:
    """Write `content` (text as UTF-8, bytes as they are) to `path`, making its folder.

    A file already there is removed first, so that each write makes a new file: rewriting one
    in place (truncated to nothing, then written) makes ext4 flush it when it is closed (its
    `auto_da_alloc` safeguard), about 2 ms of waiting a write against 0.04 ms for a new file;
    the fuzzers write the same path for each of their examples."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_file() and not path.is_symlink():
        path.unlink()
    if isinstance(content, str):
        path.write_bytes(content.encode("utf-8"))
    else:
        path.write_bytes(content)
    return path


def problems(load: Callable, *args, **kwargs) -> list[tuple[str, int, str]]:
    """The (file, line, reason) of every problem of the LoadError that `load` must raise."""
    with pytest.raises(LoadError) as info:
        load(*args, **kwargs)
    return [(p.file, p.line, p.reason) for p in info.value.problems]


def only_load_errors(load: Callable, path, expected_type: type, *args, **kwargs) -> None:
    """Fuzz oracle: `load` returns an `expected_type` or raises LoadError, nothing else."""
    from hypothesis import event

    try:
        result = load(path, *args, **kwargs)
    except LoadError as exc:
        event(f"{getattr(load, '__name__', 'load')}: LoadError")
        assert exc.problems
        for p in exc.problems:
            assert isinstance(p.reason, str) and p.reason
            assert isinstance(p.line, int) and p.line >= 0
        return
    event(f"{getattr(load, '__name__', 'load')}: loaded")
    assert isinstance(result, expected_type), type(result)
