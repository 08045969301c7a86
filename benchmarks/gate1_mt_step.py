"""Gate 1: one MT correction step on a 3,000-sentence corpus, BLEU + chrF + TER together.

A step is what the penalty engine asks of `MTTrack` for each metric: S_cor (`corrected`),
S_imp (`impaired`), S_adapt (`advance`, the adapted hypothesis changing a few segments: the
corrected one, which the system now translates as the reference, and two others retranslated)
and S_pen = S_adapt + sum(S_imp - S_cor). The statistics of the changed segments are computed
inside the timed step (nothing is prepared ahead); the figure is the median over 50 steps.
For comparison, 50 more steps are timed after `MTTrack.prefetch` computed their statistics
ahead (as a replay worker can once the log is loaded); that figure is a detail, not the gate.

The library baseline is sacrebleu's `corpus_score` for the three metrics on the whole corpus
(its segment statistics, then their score), timed in the same run on the corrected corpus of
the first step. The equality check also needs the impaired corpus and the adapted hypothesis
of the first step, and the final hypothesis after the 100th step (no drift over many swaps):
sacrebleu scores them from the corrected corpus's statistics with the differing segments'
statistics extracted by sacrebleu (`python -m benchmarks --full` rescores each whole, about
30 s more, each pass then a timing sample). Impaired corpora are real sentences made of tokens
absent from the segment's reference. PASS iff median step <= 5 ms, ratio >= 500 and every
checked score (S_cor, S_imp, S_adapt, S_pen) equals sacrebleu to 1e-9.

Corpus: WMT17 newstest2017 en-de (3004 segments, uedin-nmt as the system, online-B lines as
retranslations) from $LLGUI_REFERENCE_DATA or ../shared/reference-data; a generated corpus of
3000 sentences where that is absent.
"""
from __future__ import annotations

import os
import statistics
import string
import time
from pathlib import Path

import numpy as np

from benchmarks.common import GateResult, full

NAME = "mt-step"
METRICS = ("bleu", "chrf", "ter")
N_STEPS = 50
N_OTHER = 2  # segments retranslated by each step besides the corrected one
LIMIT_MS = 5.0
MIN_RATIO = 500.0
TOLERANCE = 1e-9

_WMT17 = Path("sacrebleu-wmt17") / "derived_txt"
_NOVEL_WORDS = ("ж", "щ", "ў")
_NOVEL_PUNCT = ("~", "^", "|")


def _read(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def _corpus() -> tuple[list[str], list[str], list[str], str]:
    """(hypothesis, reference, alternative translations, description)."""
    configured = os.environ.get("LLGUI_REFERENCE_DATA")
    root = Path(configured) if configured else \
        Path(__file__).resolve().parent.parent.parent / "shared" / "reference-data"
    folder = root / _WMT17
    if (folder / "newstest2017-ende-ref.de").is_file():
        ref = _read(folder / "newstest2017-ende-ref.de")
        hyp = _read(folder / "newstest2017.uedin-nmt.4722.en-de")
        other = _read(folder / "newstest2017.online-B.0.en-de")
        return hyp, ref, other, f"WMT17 en-de, {len(ref)} segments (uedin-nmt)"
    rng = np.random.default_rng(1)
    vocab = [f"w{k}" for k in range(400)] + [",", ".", "the", "a", "of", "and"]

    def sentence(base=None):
        if base is None:
            return " ".join(rng.choice(vocab, size=int(rng.integers(5, 40))))
        words = base.split()
        for _ in range(max(1, len(words) // 4)):
            words[int(rng.integers(len(words)))] = str(rng.choice(vocab))
        return " ".join(words)

    ref = [sentence() for _ in range(3000)]
    return ([sentence(r) for r in ref], ref, [sentence(r) for r in ref],
            "generated, 3000 segments (reference data absent)")


def _novel(candidates: tuple[str, ...], reference: str) -> str:
    return next(c for c in candidates if c not in reference)


def _real_impaired(name: str, track, index: int) -> str:
    """A real, strictly wrong sentence with the impaired statistics of segment `index`
    (one reference): tokens or characters absent from the segment's reference."""
    reference = track.doc.references[0][index]
    word = _novel(_NOVEL_WORDS, reference)
    row = track.stats[index]
    if name == "bleu":
        return " ".join([word] * int(row[0]))  # same token count, nothing matches
    if name == "ter":
        return " ".join([word] * int(row[1]))  # as many words as the reference: all edits
    punct = _novel(_NOVEL_PUNCT, reference)  # chrF: same characters and word layout
    return "".join(c if c.isspace() else punct if c in string.punctuation else word
                   for c in track.hypothesis[index])


def run() -> GateResult:
    import sacrebleu

    from llgui.core.mt.stats import make_metric
    from llgui.core.mt.track import MTTrack
    from llgui.core.types import Adapted, MTDocument, SentenceTarget, Stamp, Step

    hyp, ref, other, described = _corpus()
    doc = MTDocument(id="gate1", time=Stamp.parse(0), hypothesis=tuple(hyp),
                     references=(tuple(ref),))
    t0 = time.perf_counter()
    tracks = {name: MTTrack(doc, make_metric(name)) for name in METRICS}
    build_s = time.perf_counter() - t0

    rng = np.random.default_rng(7)
    corrected = rng.choice(len(hyp), size=2 * N_STEPS, replace=False)
    steps = []
    for k, i in enumerate(corrected):
        others = rng.choice(len(hyp), size=N_OTHER, replace=False)
        lines = {int(i) + 1: ref[i]}
        lines.update({int(j) + 1: other[j] for j in others if j != i})
        steps.append(Step(doc="gate1", step=k + 1, initiative="active", kind="reference",
                          target=SentenceTarget(int(i) + 1), adapted=Adapted(lines=lines)))

    # what the equality check needs of the first step, taken before it moves the tracks
    first = steps[0]
    index = first.target.sentence - 1
    corrected_corpus = list(tracks["bleu"].corrected_hypothesis(first))
    impaired_corpora = {}
    for name in METRICS:
        texts = list(tracks[name].hypothesis)
        texts[index] = _real_impaired(name, tracks[name], index)
        impaired_corpora[name] = texts

    penalty = dict.fromkeys(METRICS, 0.0)
    first_scores: dict[str, tuple[float, float, float, float]] = {}

    def replay(batch):
        nonlocal adapted_corpus
        times, per_metric = [], {name: [] for name in METRICS}
        for s in batch:
            start = time.perf_counter()
            for name in METRICS:
                began = time.perf_counter()
                track = tracks[name]
                s_cor = track.corrected(s).score
                s_imp = track.impaired(s).score
                s_adapt = track.advance(s).score
                penalty[name] += s_imp - s_cor
                s_pen = s_adapt + penalty[name]
                per_metric[name].append(time.perf_counter() - began)
                if s is first:
                    first_scores[name] = (s_cor, s_imp, s_adapt, s_pen)
            times.append(time.perf_counter() - start)
            if s is first:
                adapted_corpus = list(tracks["bleu"].hypothesis)
        return times, per_metric

    adapted_corpus: list[str] = []
    # the gate: nothing prepared, each step computes the statistics of its new text
    step_times, metric_times = replay(steps[:N_STEPS])
    # for comparison: the next 50 steps with their statistics computed ahead
    # (MTTrack.prefetch, as a replay worker can do once the log is loaded)
    began = time.perf_counter()
    for name in METRICS:
        tracks[name].prefetch(steps[N_STEPS:])
    prefetch_s = time.perf_counter() - began
    warm_times, _ = replay(steps[N_STEPS:])
    final_scores = {name: tracks[name].current().score for name in METRICS}
    final_corpus = list(tracks["bleu"].hypothesis)

    # sacrebleu on the same corpora. The first pass (the corrected corpus) is what
    # `corpus_score` does, timed: each metric's segment statistics, then their corpus score.
    # By default the other corpora, which differ from it in a few segments, are scored by
    # sacrebleu from those statistics with their differing segments' statistics extracted
    # by sacrebleu (the same sums, so the same scores); `--full` rescores each whole, and
    # each such pass is a timing sample too.
    classes = {"bleu": sacrebleu.BLEU, "chrf": sacrebleu.CHRF, "ter": sacrebleu.TER}
    library_times, library_metric_times = [], {name: [] for name in METRICS}
    library: dict[str, dict[str, float]] = {}
    passes = {
        "cor": {name: corrected_corpus for name in METRICS},
        "imp": impaired_corpora,
        "adapt": {name: adapted_corpus for name in METRICS},
        "final": {name: final_corpus for name in METRICS},
    }
    whole = full()
    base_stats: dict[str, list] = {}
    for label, corpora in passes.items():
        start = time.perf_counter()
        library[label] = {}
        for name in METRICS:
            began = time.perf_counter()
            metric = classes[name]()
            if whole or label == "cor":
                stats = metric._extract_corpus_statistics(corpora[name], [ref])
                base_stats.setdefault(name, stats)
            else:
                stats = list(base_stats[name])
                for i, (text, was) in enumerate(zip(corpora[name], corrected_corpus)):
                    if text != was:
                        stats[i] = metric._extract_corpus_statistics([text], [[ref[i]]])[0]
            library[label][name] = metric._aggregate_and_compute(stats).score
            if whole or label == "cor":
                library_metric_times[name].append(time.perf_counter() - began)
        if whole or label == "cor":
            library_times.append(time.perf_counter() - start)

    worst = 0.0
    mismatches = []
    for name in METRICS:
        s_cor, s_imp, s_adapt, s_pen = first_scores[name]
        lib = {k: library[k][name] for k in library}
        pairs = {
            "S_cor": (s_cor, lib["cor"]), "S_imp": (s_imp, lib["imp"]),
            "S_adapt": (s_adapt, lib["adapt"]),
            "S_pen": (s_pen, lib["adapt"] + lib["imp"] - lib["cor"]),
            f"S_adapt after {2 * N_STEPS}": (final_scores[name], lib["final"]),
        }
        for what, (ours, theirs) in pairs.items():
            diff = abs(ours - theirs)
            worst = max(worst, diff)
            if diff > TOLERANCE:
                mismatches.append(f"{name} {what}: {ours!r} vs sacrebleu {theirs!r}")

    median_s = statistics.median(step_times)
    library_s = statistics.median(library_times)
    ratio = library_s / median_s
    equal = not mismatches
    passed = median_s * 1e3 <= LIMIT_MS and ratio >= MIN_RATIO and equal
    details = [
        f"corpus: {described}; {N_STEPS} steps, each correcting 1 segment and adapting "
        f"{1 + N_OTHER} (statistics of new text computed inside the step)",
        f"track construction (3 metrics, full statistics once): {build_s:.2f} s",
        "per metric, median ms per step: " + ", ".join(
            f"{n} {1e3 * statistics.median(metric_times[n]):.2f}" for n in METRICS),
        f"step ms: median {1e3 * median_s:.2f}, p90 {1e3 * float(np.percentile(step_times, 90)):.2f}, "
        f"max {1e3 * max(step_times):.2f}",
        f"with statistics prefetched ({prefetch_s:.2f} s for {N_STEPS} steps, "
        f"{1e3 * prefetch_s / N_STEPS:.2f} ms each, ahead): step median "
        f"{1e3 * statistics.median(warm_times):.3f} ms, max {1e3 * max(warm_times):.3f} ms",
        f"sacrebleu rescoring, {len(library_times)} "
        f"{'passes: median' if len(library_times) > 1 else 'pass (the others from its statistics; all whole: --full):'} "
        f"{library_s:.2f} s ("
        + ", ".join(f"{n} {statistics.median(library_metric_times[n]):.2f} s" for n in METRICS)
        + ")",
        f"equality to sacrebleu: max |diff| {worst:.2e} over S_cor, S_imp, S_adapt, S_pen "
        f"(step 1) and S_adapt after step {2 * N_STEPS} (the {N_STEPS} steps timed and the "
        f"{N_STEPS} timed prefetched)" + ("" if equal else " -- MISMATCH"),
        *mismatches,
        f"limits: median step <= {LIMIT_MS:g} ms, >= {MIN_RATIO:.0f}x (one sacrebleu pass "
        f"of the three metrics over the median step), every score equal to {TOLERANCE:g}",
    ]
    return GateResult(
        figure=f"{1e3 * median_s:.2f} ms median",
        ratio=ratio,
        library=f"sacrebleu {sacrebleu.__version__}",
        passed=passed,
        details=details,
    )
