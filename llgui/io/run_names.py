"""Names for bundles that share their `[bundle] name`: two runs of `llgui simulate` on the
same input bundle are both "NAME (simulated)".

`distinct_names(bundles)` keeps every name that is unique; the bundles of a name shared by
several are named by the system of their run (`run.json` beside the bundle file, as
`llgui simulate --out DIR` writes it), and where that does not tell them apart, by the bundle
file's path as given.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Sequence

from llgui.utils.regular import read_regular

_RUN_LIMIT = 10_000_000


def run_system(bundle_path: str | Path | None) -> str | None:
    """The system name in the run.json beside a bundle file, or None (no run, unreadable,
    damaged, no name)."""
    if bundle_path is None:
        return None
    try:
        data = json.loads(read_regular(Path(bundle_path).parent / "run.json", _RUN_LIMIT))
    except (OSError, ValueError):
        return None
    system = data.get("system") if isinstance(data, dict) else None
    name = system.get("name") if isinstance(system, dict) else None
    return name if isinstance(name, str) and name.strip() else None


def distinct_names(bundles: Sequence) -> list[str]:
    """One name per bundle, distinct whenever their paths are (see the module text); the
    names as they are when even that does not tell them apart."""
    names = [b.name for b in bundles]
    counts = Counter(names)
    out = list(names)
    shared = [i for i, n in enumerate(names) if counts[n] > 1]
    if not shared:
        return out
    by_system = {i: run_system(bundles[i].path) for i in shared}
    for i in shared:
        out[i] = by_system[i] or ""
    taken = Counter(out)
    for i in shared:
        if not out[i] or taken[out[i]] > 1:
            out[i] = str(bundles[i].path) if bundles[i].path is not None else names[i]
    if len(set(out)) != len(out):   # one bundle given twice: its name stays, and is refused
        return names
    return out
