"""Gate 12: significance at scale, every pair of systems (DESIGN.md section 5, issue 32).

Every pair of the 13 WMT23 de-en systems (78 pairs), paired approximate randomisation with
10,000 trials, BLEU and chrF, segment unit: `llgui compare CAMPAIGN --all-pairs --test ar
--samples 10000` on an output-only campaign of the 13 system outputs, in a fresh process with
an empty cell cache (the statistics scored as part of it: the cold figure), then again with the
cache warm. sacrebleu's `PairedTest` runs in the same gate on a sample of pairs (one pair a
test, as an organiser scripting it would), its time per pair extrapolated to the 78 pairs:
the ratio. Every sampled pair's p-values must equal sacrebleu's and its differences agree to
1e-4.

PASS iff the cold run takes <= 15 s (half the 30 s limit) and the sampled pairs are equal;
on a busy machine (load above the cores) the cold run's CPU time is judged instead, and the
gate says so (the wall time is printed either way).
Skipped (FAIL, saying why) where the reference data is absent.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

from benchmarks.common import GateResult

NAME = "all-pairs"
LIMIT_S = 30.0
TRIALS = 10_000
SAMPLED = (("GTCOM_Peter", "ONLINE-M"), ("GPT4-5shot", "ONLINE-B"))  # p from 0.003 to 0.65
REPO = Path(__file__).resolve().parent.parent


def _root() -> Path:
    configured = os.environ.get("LLGUI_REFERENCE_DATA")
    return Path(configured) if configured else REPO.parent / "shared" / "reference-data"


def _campaign(folder: Path) -> tuple[Path, Path, dict[str, Path]]:
    txt = _root() / "wmt23-general" / "txt"
    ref = txt / "references" / "generaltest2023.de-en.ref.refA.en"
    outputs = {p.name.split(".")[3]: p
               for p in sorted((txt / "system-outputs").glob("generaltest2023.de-en.hyp.*"))}
    lines = ["[campaign]", 'name = "WMT23 de-en, 13 systems"', 'task = "mt"',
             'metrics = ["bleu", "chrf"]', "", "[[batches]]", 'id = "test"', "time = 1",
             f'references = ["{ref}"]', ""]
    for name, path in outputs.items():
        (folder / name / "final").mkdir(parents=True)
        (folder / name / "final" / "test.en").write_bytes(path.read_bytes())
        lines += ["[[systems]]", f'name = "{name}"', 'models = [{id = "final", time = 1}]',
                  f'hypotheses = "{name}/{{model}}/{{batch}}.en"', ""]
    campaign = folder / "campaign.toml"
    campaign.write_text("\n".join(lines), encoding="utf-8")
    return campaign, ref, outputs


def _children_cpu() -> float:
    try:
        import resource
    except ImportError:  # Windows
        return float("nan")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _busy() -> bool:
    """More runnable work than cores (the 1-minute load average): wall time then measures
    the machine, not llgui (gate 9's test)."""
    try:
        return os.getloadavg()[0] > (os.cpu_count() or 1) - 0.5
    except (OSError, AttributeError):
        return False


def _ours(campaign: Path, cache: Path) -> tuple[float, float, dict]:
    env = dict(os.environ, LLGUI_CACHE_DIR=str(cache))
    began, used = time.perf_counter(), _children_cpu()
    done = subprocess.run([sys.executable, "-m", "llgui", "compare", str(campaign),
                           "--all-pairs", "--test", "ar", "--samples", str(TRIALS),
                           "--format", "json"], capture_output=True, text=True, env=env,
                          cwd=REPO)
    seconds, cpu = time.perf_counter() - began, _children_cpu() - used
    if done.returncode != 0:
        raise RuntimeError(f"llgui compare failed: {done.stderr[-2000:]}")
    return seconds, cpu, json.loads(done.stdout)


def _sacrebleu(a: str, b: str, refs: list[str], outputs: dict[str, Path]):
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.significance import PairedTest

    hyps = {n: outputs[n].read_text(encoding="utf-8").splitlines() for n in (a, b)}
    os.environ["SACREBLEU_SEED"] = "12345"
    began = time.perf_counter()
    _sigs, scores = PairedTest([(a, hyps[a]), (b, hyps[b])], {"bleu": BLEU(), "chrf": CHRF()},
                               references=[refs], test_type="ar", n_samples=TRIALS,
                               n_ar_confidence=-1)()
    seconds = time.perf_counter() - began
    keys = [k for k in scores if k != "System"]
    return seconds, dict(zip(("bleu", "chrf"), (scores[k] for k in keys)))


def run() -> GateResult:
    import sacrebleu

    library = f"sacrebleu {sacrebleu.__version__} PairedTest per pair"
    if not (_root() / "wmt23-general").is_dir():
        return GateResult("skipped: no WMT23 reference data", 0.0, library, False,
                          [f"set LLGUI_REFERENCE_DATA (looked in {_root()})"])
    with tempfile.TemporaryDirectory(prefix="llgui-gate12-") as tmp:
        folder = Path(tmp)
        campaign, ref, outputs = _campaign(folder / "campaign")
        busy = _busy()
        cold, cold_cpu, report = _ours(campaign, folder / "cache")
        warm, warm_cpu, again = _ours(campaign, folder / "cache")
        busy |= _busy()
    n_pairs = len(list(combinations(outputs, 2)))
    refs = ref.read_text(encoding="utf-8").splitlines()
    by_pair = {(p["a"], p["b"]): p for p in report["pairs"]}
    equal, details, spent = True, [], 0.0
    for a, b in SAMPLED:
        key = (a, b) if (a, b) in by_pair else (b, a)
        seconds, expected = _sacrebleu(key[0], key[1], refs, outputs)
        spent += seconds
        for metric in ("bleu", "chrf"):
            base, other = expected[metric]
            ours = by_pair[key]["metrics"][metric]
            same = (ours["p_value"] == other.p_value
                    and abs(ours["delta"] - (other.score - base.score)) <= 1e-4)
            equal &= same
            details.append(f"{key[0]} vs {key[1]} {metric}: p {ours['p_value']:.4f} "
                           f"(sacrebleu {other.p_value:.4f}), delta {ours['delta']:.4f} "
                           f"(sacrebleu {other.score - base.score:.4f}) "
                           f"{'equal' if same else 'DIFFERENT'}")
    equal &= report["pairs"] == again["pairs"] and len(report["pairs"]) == n_pairs
    per_pair = spent / len(SAMPLED)
    library_s = per_pair * n_pairs
    details.insert(0, f"{len(outputs)} systems, {n_pairs} pairs, {TRIALS} AR trials, BLEU + "
                      f"chrF, {report['source']['n_units']} segments: cold (statistics "
                      f"scored) {cold:.1f} s, warm (cell cache) {warm:.1f} s; CPU {cold_cpu:.1f} "
                      f"s cold, {warm_cpu:.1f} s warm; limit {LIMIT_S:g} s, PASS at <= "
                      f"{LIMIT_S / 2:g} s")
    details.insert(1, f"sacrebleu: {per_pair:.1f} s a pair measured on {len(SAMPLED)} pairs, "
                      f"about {library_s:.0f} s for the {n_pairs} pairs (extrapolated)")
    judged = cold
    if busy:   # the load, not llgui, sets the wall time: judged on the process's own work
        judged = cold_cpu
        details.insert(2, f"busy machine (load {os.getloadavg()[0]:.1f} on {os.cpu_count()} "
                          f"cores): judged on the cold run's CPU time, {cold_cpu:.1f} s")
    passed = equal and judged <= LIMIT_S / 2
    return GateResult(f"{cold:.1f} s cold, {warm:.1f} s warm for {n_pairs} pairs",
                      library_s / cold if cold else 0.0, library, passed, details)
