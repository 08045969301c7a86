"""Gate 8: llgui's own time per simulation step, the system's time excluded.

`llgui.sim.driver.Session` times each step's own work (`StepRecord.llgui_s`): the oracle's
choice on the cached statistics, the cost, the scoring of S_cor, S_imp, S_adapt and S_pen for
every metric of the bundle, and writing the log line; the time waiting for the system is left
out. Two runs with the `worst-first` oracle:

- MT: one 3,000-sentence document (WMT17 newstest2017 en-de with uedin-nmt as h0, from the
  reference data; a generated one where it is absent), BLEU + chrF + TER, `mt_memory`;
- diarization: a 3-hour show with 3,000 turns per side (seeded, as gate 2), DER + JER,
  `diar_clusters`.

The session moves its memory onto huge pages on a thread once each document is set up
(`llgui.utils.huge_pages`), as `llgui simulate` does; `LLGUI_HUGE_PAGES=0` measures without.

PASS iff the median step is <= 5 ms (MT) and <= 10 ms (diarization). The document set-up
(the first statistics of h0) is a one-off per document and shown as a detail, as is the
longest step and its number (the first step also writes the run's bundle.toml, synced to
disk, and each turn's log text once).
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import GateResult

NAME = "simulate"
LIMITS_MS = {"mt": 5.0, "diarization": 10.0}
BUDGETS = {"mt": 1500.0, "diarization": 400.0}
FIRST = (" (the first step also writes the run's bundle.toml, synced to disk, and each turn's "
         "log text once)")


def _mt_bundle(folder: Path) -> tuple[Path, str]:
    from benchmarks.gate1_mt_step import _corpus

    hyp, ref, _, what = _corpus()
    (folder / "ref.txt").write_text("\n".join(ref) + "\n", encoding="utf-8")
    (folder / "hyp.txt").write_text("\n".join(hyp) + "\n", encoding="utf-8")
    (folder / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["bleu", "chrf", "ter"]\n\n[[documents]]\n'
        'id = "doc"\ntime = 1\nreferences = ["ref.txt"]\nhypothesis = "hyp.txt"\n',
        encoding="utf-8")
    return folder / "bundle.toml", what


def _diar_bundle(folder: Path) -> tuple[Path, str]:
    from benchmarks.gate2_der import document

    reference, hypothesis = document(n_turns=3000, duration=3 * 3600.0)

    def rttm(turns):
        return "".join(f"SPEAKER show 1 {t.start:.3f} {t.end - t.start:.3f} <NA> <NA> "
                       f"{t.speaker} <NA> <NA>\n" for t in turns)

    (folder / "ref.rttm").write_text(rttm(reference), encoding="utf-8")
    (folder / "hyp.rttm").write_text(rttm(hypothesis), encoding="utf-8")
    (folder / "bundle.toml").write_text(
        '[bundle]\ntask = "diarization"\nmetrics = ["der", "jer"]\n\n[[documents]]\n'
        'id = "show"\ntime = 1\nreferences = ["ref.rttm"]\nhypothesis = "hyp.rttm"\n',
        encoding="utf-8")
    return folder / "bundle.toml", "3 h, 3,000 turns per side (seeded)"


def _measure(bundle: Path, system: str, budget: float, out: Path):
    from llgui.io.bundle import load_bundle
    from llgui.sim.driver import Session
    from llgui.sim.oracles import make_oracle

    loaded = load_bundle(bundle)
    session = Session(loaded, [sys.executable, "-m", f"llgui.systems.{system}"],
                      make_oracle("worst-first"), out, budget=budget, timeout=120.0)
    try:
        session.start()
        t0 = time.perf_counter()
        session.begin_document(0)
        setup = time.perf_counter() - t0   # includes the system's h0 (small next to scoring)
        times = []
        while (record := session.next_step()) is not None:
            times.append(record.llgui_s)
        session.end_document()
        session.finish()
    finally:
        session.close()
    return times, setup


def run() -> GateResult:
    details, passed, worst = [], True, 0.0
    figures = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for task, make, system in (("mt", _mt_bundle, "mt_memory"),
                                   ("diarization", _diar_bundle, "diar_clusters")):
            folder = tmp / task
            folder.mkdir()
            bundle, what = make(folder)
            times, setup = _measure(bundle, system, BUDGETS[task], folder / "out")
            if not times:
                details.append(f"{task}: no step was taken")
                passed = False
                continue
            median_ms = 1000 * statistics.median(times)
            limit = LIMITS_MS[task]
            passed &= median_ms <= limit
            worst = max(worst, median_ms / limit)
            figures.append(f"{task} {median_ms:.2f} ms")
            at = max(range(len(times)), key=times.__getitem__) + 1
            details.append(f"{task}: {what}; {len(times)} steps, median {median_ms:.2f} ms "
                           f"(limit {limit:g} ms), max {1000 * max(times):.1f} ms at step {at}"
                           f"{FIRST if at == 1 else ''}; document set-up {setup:.1f} s")
    ratio = 1.0 / worst if worst > 0 else float("inf")
    return GateResult(", ".join(figures) + " median per step", ratio, "the limits (5 / 10 ms)",
                      passed, details)
