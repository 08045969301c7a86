"""Gate 10: exact TER at interactive speed on real WMT data, and the statistics cache.

1. TER statistics of WMT23 generaltest2023 de-en (549 segments, some past 400 words) for three
   systems: llgui's compiled engine (`llgui.core.mt.ter_fast` through `TERMetric`) against
   sacrebleu's `TER.corpus_score` in the same run; the per-segment statistics must be equal
   and the corpus scores equal to 1e-9. PASS needs >= 50x.
2. A synthetic corpus of segments of 5 to 400 words (repeated words, block shifts,
   insertions, deletions, substitutions): time, ratio and equality, as above (a detail).
3. Gate 1 rerun on a long-segment corpus (100 synthetic segments of 5 to 400 words): one
   correction step for BLEU + chrF + TER in <= 5 ms median, equal to sacrebleu.
4. Acceptance 4 of issue 10: the whole of WMT23 de-en as one document with a 30-step log,
   `llgui score --metric bleu --metric chrf --metric ter` in a fresh process: <= 10 s with an
   empty statistics cache, <= 2 s with it warm; and the window opened at that document with
   each metric (`--screenshot`, which waits for the metric shown), cold and warm.

`LLGUI_GATE10_PARTS=1,3` runs only the parts named (default: all four).
Part 1 measures AIRC (the hardest of the three systems once measured; LLGUI_GATE10_SYSTEMS
names others). With `LLGUI_GATE10_ALL=1`, every WMT23 de-en and en-zh system is also checked against
sacrebleu's corpus_score (about 40 minutes of sacrebleu here).

sacrebleu's TER takes minutes on these segments, so by default parts 1 to 3 are timed on a
stated part of their input, both engines on the same part: part 1 on every sixth segment of
WMT23 de-en (92 of 549, long ones among them), and part 2 runs only where part 1 cannot (no
reference data; then on 30 synthetic segments); part 3's sacrebleu scores one pass whole and
the others from its statistics (see gate 1). `python -m benchmarks --full` runs the sizes
above (about 3 minutes more). Where the reference data is
absent, parts 1 and 4 are skipped, saying so, and the gate is judged on the rest.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import GateResult, full

NAME = "ter"
MIN_RATIO = 50.0
STEP_LIMIT_MS = 5.0
COLD_LIMIT_S = 10.0
WARM_LIMIT_S = 2.0
# AIRC alone by default: the system with the lowest ratio of the three measured before (69x
# against 225x and 241x), so the gate is judged on its hardest case, and sacrebleu's TER takes
# one minute instead of four (`python -m benchmarks` whole in <= 10 minutes);
# LLGUI_GATE10_SYSTEMS=ONLINE-W,NLLB_Greedy,AIRC measures the three.
SYSTEMS = tuple(n for n in os.environ.get("LLGUI_GATE10_SYSTEMS", "AIRC").split(",") if n)
REPO = Path(__file__).resolve().parent.parent
_WMT23 = Path("wmt23-general") / "txt"


def _root() -> Path:
    configured = os.environ.get("LLGUI_REFERENCE_DATA")
    return Path(configured) if configured else REPO.parent / "shared" / "reference-data"


def _read(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def _wmt23(pair: str) -> tuple[Path, dict[str, Path]] | None:
    folder = _root() / _WMT23
    target = pair.split("-")[1]
    ref = folder / "references" / f"generaltest2023.{pair}.ref.refA.{target}"
    if not ref.is_file():
        return None
    systems = {p.name.split(".")[3]: p
               for p in sorted((folder / "system-outputs").glob(f"generaltest2023.{pair}.hyp.*"))}
    return ref, systems


def synthetic(n: int, seed: int, max_words: int = 400,
              words_per_edit: int = 12) -> tuple[list[str], list[str]]:
    """(hypotheses, references): segments of 5..max_words words from a Zipf-like vocabulary,
    the hypothesis derived from the reference by about one edit in `words_per_edit` words."""
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(3000)]
    weights = [1 / (k + 1) for k in range(len(vocab))]
    refs, hyps = [], []
    for _ in range(n):
        length = rng.randint(5, max_words)
        ref = rng.choices(vocab, weights, k=length)
        hyp = list(ref)
        for _ in range(max(1, length // words_per_edit)):
            kind = rng.random()
            if kind < 0.3 and len(hyp) > 2:
                i = rng.randrange(len(hyp))
                block = hyp[i:i + rng.randint(1, 8)]
                del hyp[i:i + len(block)]
                j = rng.randrange(len(hyp) + 1)
                hyp[j:j] = block
            elif kind < 0.55:
                hyp.insert(rng.randrange(len(hyp) + 1), rng.choice(vocab[:200]))
            elif kind < 0.75 and len(hyp) > 1:
                del hyp[rng.randrange(len(hyp))]
            else:
                hyp[rng.randrange(len(hyp))] = rng.choices(vocab, weights)[0]
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return hyps, refs


def _ours_vs_library(hyps: list[str], refs: list[str]) -> tuple[float, float, bool, str]:
    """(our seconds, sacrebleu seconds, equal, note) for one system's TER statistics."""
    import sacrebleu

    from llgui.core.mt.stats import make_metric

    metric = make_metric("ter")
    began = time.perf_counter()
    ours = metric.corpus_stats(hyps, [refs])
    ours_s = time.perf_counter() - began
    library = sacrebleu.TER()
    began = time.perf_counter()
    theirs = np.array(library._extract_corpus_statistics(hyps, [refs]), dtype=float)
    score = library._compute_score_from_stats(theirs.sum(axis=0).tolist()).score
    library_s = time.perf_counter() - began
    equal = np.array_equal(ours, theirs) and abs(metric.score(ours.sum(axis=0)) - score) <= 1e-9
    bad = np.flatnonzero((ours != theirs).any(axis=1))
    note = f"TER {metric.score(ours.sum(axis=0)):.6f} vs sacrebleu {score:.6f}"
    if len(bad):
        note += f"; segments differing: {(bad + 1).tolist()[:10]}"
    return ours_s, library_s, equal, note


def _every_system() -> tuple[bool, list[str]]:
    import sacrebleu

    from llgui.core.mt.stats import make_metric

    ok, lines = True, []
    for pair in ("de-en", "en-zh"):
        found = _wmt23(pair)
        if found is None:
            return False, [f"every system: reference data absent under {_root()}"]
        ref_path, systems = found
        refs = _read(ref_path)
        metric = make_metric("ter")
        for name, path in systems.items():
            hyps = _read(path)
            ours = metric.score(metric.corpus_stats(hyps, [refs]).sum(axis=0))
            theirs = sacrebleu.TER().corpus_score(hyps, [refs]).score
            same = abs(ours - theirs) <= 1e-9
            ok &= same
            lines.append(f"every system: {pair} {name} TER {ours:.6f} vs sacrebleu "
                         f"{theirs:.6f} {'equal' if same else 'DIFFERENT'}")
    return ok, lines


def _gate1_long() -> tuple[float, bool, list[str]]:
    """Gate 1 on 100 synthetic segments of 5..400 words (step median ms, passed, details).
    Edits are sparser than in part 2 (one in 30 words) so that sacrebleu's four rescoring
    passes take minutes, not tens of minutes; the steps' cost is llgui's either way."""
    from benchmarks import gate1_mt_step as gate1

    hyps, refs = synthetic(100, seed=11, words_per_edit=30)   # (gate 1 corrects 100 of them)
    others, _ = synthetic(100, seed=12)
    rng = random.Random(13)
    other = []
    for ref, alt in zip(refs, others):
        words = ref.split()  # a retranslation of this segment: a few words changed
        for _ in range(max(1, len(words) // 20)):
            words[rng.randrange(len(words))] = alt.split()[0]
        other.append(" ".join(words))
    original = gate1._corpus
    gate1._corpus = lambda: (hyps, refs, other,
                             "synthetic, 100 segments of 5-400 words (gate 10)")
    try:
        result = gate1.run()
    finally:
        gate1._corpus = original
    median_ms = float(result.figure.split()[0])
    equal = not any("MISMATCH" in d for d in result.details)
    details = [f"gate 1 on long segments: {result.line(1, gate1.NAME)}"]
    details += [f"    {d}" for d in result.details]
    return median_ms, equal and median_ms <= STEP_LIMIT_MS, details


def write_bundle(folder: Path, hyps: list[str], refs: list[str], other: list[str],
                 steps: int = 30, seed: int = 5) -> Path:
    """A one-document MT bundle with a `steps`-step log: each step the reference of one
    segment, the system adapting it and two more (taken from `other`)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ref.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    (folder / "hyp.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    rng = random.Random(seed)
    chosen = rng.sample(range(len(hyps)), steps)
    with open(folder / "log.jsonl", "w", encoding="utf-8") as log:
        for k, i in enumerate(chosen):
            lines = {str(i + 1): refs[i]}
            for j in rng.sample(range(len(hyps)), 2):
                lines.setdefault(str(j + 1), other[j])
            log.write(json.dumps({"doc": "doc", "step": k + 1, "initiative": "active",
                                  "kind": "reference", "target": {"sentence": i + 1},
                                  "adapted": {"lines": lines}}, ensure_ascii=False) + "\n")
    bundle = folder / "bundle.toml"
    bundle.write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["bleu", "chrf", "ter"]\n\n'
        '[[documents]]\nid = "doc"\ntime = 0\nreferences = ["ref.txt"]\n'
        'hypothesis = "hyp.txt"\n\n[interactions]\nlog = "log.jsonl"\n', encoding="utf-8")
    return bundle


def _score_times(bundle: Path, cache: Path) -> tuple[float, float, str]:
    """Wall seconds of `llgui score` with an empty, then a warm cache (fresh processes)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "LLGUI_CACHE_DIR": str(cache)}
    env.pop("LLGUI_NO_CACHE", None)
    command = [sys.executable, "-m", "llgui", "score", str(bundle), "--metric", "bleu",
               "--metric", "chrf", "--metric", "ter", "--format", "json"]
    times, cpu, outputs = [], [], []
    for _ in range(2):
        began, used = time.perf_counter(), _children_cpu()
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        times.append(time.perf_counter() - began)
        cpu.append(_children_cpu() - used)
        if done.returncode != 0:
            raise RuntimeError(f"llgui score failed: {done.stderr[-2000:]}")
        outputs.append(json.loads(done.stdout))
    same = outputs[0] == outputs[1]
    ter = outputs[0]["metrics"]["ter"]["score"]
    return times[0], times[1], (f"CPU {cpu[0]:.2f} s cold, {cpu[1]:.2f} s warm (wall time "
                                f"above CPU time means a busy machine); TER {ter:.4f}, the warm "
                                f"report identical to the cold one: {same}")


def _window_times(bundle: Path, cache: Path, folder: Path) -> tuple[dict, list[str]]:
    """Seconds from the command to the written `--screenshot` of the document with each MT
    metric in the workbench (a fresh process each; the statistics cache as it stands)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "LLGUI_CACHE_DIR": str(cache),
           "QT_QPA_PLATFORM": "offscreen", "PYQTGRAPH_QT_LIB": "PySide6"}
    times, notes = {}, []
    for metric in ("bleu", "chrf", "ter"):
        png = folder / f"window-{metric}.png"
        began, used = time.perf_counter(), _children_cpu()
        done = subprocess.run([sys.executable, "-m", "llgui", str(bundle), "--doc", "doc",
                               "--metric", metric, "--screenshot", str(png)],
                              env=env, capture_output=True, text=True, timeout=900)
        times[metric] = time.perf_counter() - began
        notes.append(f"    window {metric}: {times[metric]:.1f} s wall, "
                     f"{_children_cpu() - used:.1f} s CPU")
        if done.returncode != 0 or not png.is_file():
            notes.append(f"window {metric}: failed ({done.stderr[-500:]})")
    return times, notes


def _children_cpu() -> float:
    try:
        import resource
    except ImportError:  # Windows
        return float("nan")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _synthetic_part(details: list[str], ratio: float, use_ratio: bool) -> float:
    n = 60 if full() else 30   # (60: `--full`; 30 when it stands in for part 1)
    hyps, refs = synthetic(n, seed=7)
    ours_s, library_s, equal, note = _ours_vs_library(hyps, refs)
    details.append(f"synthetic, {n} segments of 5-400 words ({sum(len(r.split()) for r in refs)} "
                   f"words): ours {ours_s:.2f} s, sacrebleu {library_s:.1f} s "
                   f"({library_s / ours_s:.0f}x); {note}; {'equal' if equal else 'MISMATCH'}")
    return library_s / ours_s if use_ratio else ratio


def run() -> GateResult:
    # the statistics cache of this run lives in a temporary folder, never the user's
    previous = os.environ.get("LLGUI_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="llgui-gate10-cache-") as tmp:
        os.environ["LLGUI_CACHE_DIR"] = tmp
        try:
            return _run()
        finally:
            from llgui.core.mt import stats_cache

            stats_cache.forget()
            if previous is None:
                os.environ.pop("LLGUI_CACHE_DIR", None)
            else:
                os.environ["LLGUI_CACHE_DIR"] = previous


def _run() -> GateResult:
    import sacrebleu

    from llgui.core.mt import ter_fast

    details: list[str] = []
    began = time.perf_counter()
    ter_fast.translation_edit_rate(["a", "b"], ["b", "a"])  # load (or compile) the engine
    details.append(f"engine: {'numba ' + ter_fast.numba.__version__ if ter_fast.available() else 'sacrebleu (numba missing)'}; "
                   f"first call (load or JIT compile) {time.perf_counter() - began:.2f} s")
    passed = True
    parts = {int(p) for p in os.environ.get("LLGUI_GATE10_PARTS", "1,2,3,4").split(",") if p}
    if parts != {1, 2, 3, 4}:
        details.append(f"parts run: {sorted(parts)} (LLGUI_GATE10_PARTS); the gate needs all four")
        passed = False

    # 1. WMT23 de-en, three systems
    found = _wmt23("de-en")
    ratio = float("nan")
    median_ms = float("nan")
    if 1 not in parts:
        pass
    elif found is None:
        details.append(f"WMT23 de-en: skipped, reference data absent under {_root()}")
    else:
        ref_path, systems = found
        refs = _read(ref_path)
        every = 1 if full() else 6   # see the docstring
        refs = refs[::every]
        if every > 1:
            details.append(f"WMT23 de-en: every sixth segment ({len(refs)} segments; all: "
                           "--full)")
        ours_total = library_total = 0.0
        for name in SYSTEMS:
            ours_s, library_s, equal, note = _ours_vs_library(_read(systems[name])[::every],
                                                              refs)
            ours_total += ours_s
            library_total += library_s
            passed &= equal
            details.append(f"WMT23 de-en {name}: ours {ours_s:.2f} s, sacrebleu {library_s:.1f} s "
                           f"({library_s / ours_s:.0f}x); {note}; "
                           f"{'equal' if equal else 'MISMATCH'}")
        ratio = library_total / ours_total
        passed &= ratio >= MIN_RATIO
        details.append(f"WMT23 de-en, {len(SYSTEMS)} systems: ours {ours_total:.2f} s, "
                       f"sacrebleu {library_total:.1f} s, {ratio:.0f}x (need >= {MIN_RATIO:.0f}x)")

    # 2. synthetic corpus, 5..400 words
    if 2 in parts and (full() or found is None or 1 not in parts):
        ratio = _synthetic_part(details, ratio, found is None or 1 not in parts)
        passed &= not any("MISMATCH" in d for d in details)
    elif 2 in parts:   # (part 1 has timed real segments: the synthetic ones are opt-in)
        details.append("synthetic segments of 5-400 words against sacrebleu: --full")

    # 3. gate 1 on long segments
    if 3 in parts:
        median_ms, ok, lines = _gate1_long()
        passed &= ok
        details += lines

    # 4. acceptance 4: llgui score on the whole of WMT23 de-en, cold and warm cache
    if 4 in parts and found is not None:
        ref_path, systems = found
        refs = _read(ref_path)
        with tempfile.TemporaryDirectory(prefix="llgui-gate10-") as tmp:
            bundle = write_bundle(Path(tmp) / "bundle", _read(systems["ONLINE-W"]), refs,
                                  _read(systems["NLLB_Greedy"]))
            cache = Path(tmp) / "cache"
            cold, warm, note = _score_times(bundle, cache)
            details.append(f"llgui score, WMT23 de-en as one document (549 segments, ONLINE-W) "
                           f"with a 30-step log, BLEU+chrF+TER: cold cache {cold:.2f} s "
                           f"(<= {COLD_LIMIT_S:.0f}), warm {warm:.2f} s (<= {WARM_LIMIT_S:.0f}); "
                           f"{note}")
            ok = cold <= COLD_LIMIT_S and warm <= WARM_LIMIT_S
            # the window at that document: cold (empty cache), then warm, per metric
            shutil.rmtree(cache, ignore_errors=True)
            window_cold, lines_cold = _window_times(bundle, cache, Path(tmp))
            window_warm, lines_warm = _window_times(bundle, cache, Path(tmp))
            details += lines_cold + lines_warm
            ok &= not any("failed" in line for line in lines_cold + lines_warm)
            details.append("window --screenshot at that document, per metric shown (start-up "
                           "included): cold " + ", ".join(f"{m} {t:.1f} s" for m, t in window_cold.items())
                           + "; warm " + ", ".join(f"{m} {t:.1f} s" for m, t in window_warm.items()))
            ok &= max(window_cold.values()) <= COLD_LIMIT_S
            ok &= max(window_warm.values()) <= WARM_LIMIT_S + 2.0
            details.append("    (the window's limits: cold <= 10 s; warm <= 2 s plus 2 s for the "
                           "start-up of Qt and the window, which gate 5 measures)")
        passed &= ok

    if os.environ.get("LLGUI_GATE10_ALL") == "1":
        ok, lines = _every_system()
        passed &= ok
        details += lines
    else:
        details.append("every WMT23 de-en and en-zh system against sacrebleu: set "
                       "LLGUI_GATE10_ALL=1 (about 40 minutes of sacrebleu)")

    return GateResult(
        figure=f"WMT23 de-en TER statistics {ratio:.0f}x faster, gate 1 long {median_ms:.2f} ms",
        ratio=ratio,
        library=f"sacrebleu {sacrebleu.__version__}",
        passed=passed,
        details=details,
    )
