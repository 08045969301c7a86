"""Names for bundles that share their `[bundle] name`: two runs of `llgui simulate` on the
same input bundle are both "NAME (simulated)".

`distinct_names(bundles)` keeps every name that is unique; the bundles of a name shared by
several are named by the system of their run (`run.json` beside the bundle file, as
`llgui simulate --out DIR` writes it), then by system and oracle (`mine (allies)`: one system
under two oracles), and where that does not tell them apart, by the bundle file's path as
given.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Sequence

from llgui.io._read import LIBRARY_ERRORS
from llgui.utils.regular import read_regular

_RUN_LIMIT = 10_000_000


def _run(bundle_path: str | Path | None) -> dict:
    if bundle_path is None:
        return {}
    try:
        data = json.loads(read_regular(Path(bundle_path).parent / "run.json", _RUN_LIMIT))
    except LIBRARY_ERRORS:   # unreadable, damaged, nested too deep: no run
        return {}
    return data if isinstance(data, dict) else {}


def run_system(bundle_path: str | Path | None) -> str | None:
    """The system name in the run.json beside a bundle file, or None (no run, unreadable,
    damaged, no name)."""
    system = _run(bundle_path).get("system")
    name = system.get("name") if isinstance(system, dict) else None
    return name if isinstance(name, str) and name.strip() else None


def run_oracle(bundle_path: str | Path | None) -> str | None:
    """The oracle of the run beside a bundle file, or None."""
    oracle = _run(bundle_path).get("oracle")
    if isinstance(oracle, dict):
        oracle = oracle.get("name")
    return oracle if isinstance(oracle, str) and oracle.strip() else None


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
        oracle = run_oracle(bundles[i].path) if out[i] and taken[out[i]] > 1 else None
        if oracle:
            out[i] = f"{out[i]} ({oracle})"
    taken = Counter(out)
    for i in shared:
        if not out[i] or taken[out[i]] > 1:
            out[i] = str(bundles[i].path) if bundles[i].path is not None else names[i]
    if len(set(out)) != len(out):   # one bundle given twice: its name stays, and is refused
        return names
    return out
