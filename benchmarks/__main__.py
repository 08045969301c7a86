"""Run the performance gates (docs/developing.md, "Performance gates").

    python -m benchmarks            # every gate, one line each
    python -m benchmarks --gate 2   # one gate
    python -m benchmarks --full     # the long library comparisons whole (about 20 minutes more)

Each gate prints `gate N <name>: <figure> (<ratio>x vs <library>) PASS|FAIL`, measuring the
reference library in the same run so the ratio holds on a busy machine. Exit code 1 if any
gate fails. Gates live in `benchmarks/gateN_*.py`, each with `NAME` and `run() -> GateResult`.

Each gate runs in a fresh interpreter of its own (`--here` runs the chosen gates in this one):
run in one process one after another, a gate ran beside whatever the gates before it left
running there (threads, gate 7's Dask client); gate 9 printed event-loop gaps of 144-167 ms in
such a whole run against 45 alone (its window scenarios already ran in processes of their
own; the cause was not confirmed). A gate still running after GATE_TIMEOUT_S is killed and
fails, silent or not.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import GateResult  # noqa: E402
from benchmarks.hog import Stolen  # noqa: E402

GATE_TIMEOUT_S = 1800   # a stuck gate fails; the others still run


def discover() -> dict[int, object]:
    gates = {}
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name.startswith("gate") and "_" in info.name:
            number = int(info.name[4:info.name.index("_")])
            gates[number] = info.name
    return dict(sorted(gates.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    parser.add_argument("--gate", type=int, action="append", help="run only this gate (repeatable)")
    parser.add_argument("--here", action="store_true",
                        help="run the gates in this process instead of one fresh process each")
    parser.add_argument("--full", action="store_true",
                        help="time the reference libraries on the whole input where the default "
                             "times them on a stated part (gates 1, 6, 7 and 10; gates 11-13 "
                             "always sample theirs, and say so)")
    args = parser.parse_args(argv)
    if args.full:
        from benchmarks.common import FULL_ENV

        os.environ[FULL_ENV] = "1"
    gates = discover()
    chosen = args.gate or list(gates)
    failed = False
    began = time.perf_counter()
    for number in chosen:
        if number not in gates:
            print(f"gate {number}: no such gate (have {', '.join(map(str, gates))})")
            failed = True
            continue
        if not args.here:
            failed |= not _in_child(number, args.full)
            continue
        module = importlib.import_module(f"benchmarks.{gates[number]}")
        started = time.perf_counter()
        stolen = Stolen()
        try:
            result: GateResult = module.run()
        except Exception:  # a broken gate is a failed gate, and the others still run
            traceback.print_exc()
            print(f"gate {number} {module.NAME}: ERROR FAIL", flush=True)
            failed = True
            continue
        print(result.line(number, module.NAME), flush=True)
        for detail in result.details:
            print(f"    {detail}", flush=True)
        print(f"    (gate {number} took {time.perf_counter() - started:.0f} s; {stolen.text()})",
              flush=True)
        failed |= not result.passed
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{len(chosen)} gate(s) in {time.perf_counter() - began:.0f} s (load average "
          f"{load:.1f} on {os.cpu_count()} cores at the end)", flush=True)
    return 1 if failed else 0


def _in_child(number: int, full: bool) -> bool:
    """Gate `number` in a fresh `python -m benchmarks --here --gate N`, its lines relayed as
    they come; True iff it passed."""
    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-m", "benchmarks", "--here", "--gate", str(number)]
    if full:
        command.append("--full")
    child = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, text=True, bufsize=1)
    # killed by a timer: a gate stuck without printing would hold the loop below on its read
    timer = threading.Timer(GATE_TIMEOUT_S, child.kill)
    timer.start()
    passed = None
    assert child.stdout is not None
    try:
        for line in child.stdout:
            if line.startswith("1 gate(s) in "):
                continue   # (the child's own total: the parent prints the run's)
            if line.startswith(f"gate {number} "):
                passed = line.rstrip().endswith(" PASS")
            print(line, end="", flush=True)
        child.wait()
    finally:
        stopped = not timer.is_alive()
        timer.cancel()
    if stopped:
        print(f"gate {number}: stopped after {GATE_TIMEOUT_S} s FAIL", flush=True)
        return False
    if passed is None:
        print(f"gate {number}: its process ended (exit {child.returncode}) before its line "
              f"FAIL", flush=True)
        return False
    return passed


if __name__ == "__main__":
    sys.exit(main())
