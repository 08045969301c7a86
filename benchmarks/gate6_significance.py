"""Gate 6: significance from cached statistics (DESIGN 1.7, section 5).

Part 1: a paired bootstrap (1,000 resamples) and an approximate randomisation test (10,000
trials, with 1,000 bootstrap resamples for the intervals) of 3 systems against a baseline on
WMT17 newstest2017 en-de (3,004 sentences), BLEU + chrF + TER, by `llgui.core.reports.compare`'s
engine from the per-segment statistics llgui caches; against sacrebleu's `PairedTest` on the
same input (both tests, in the same run; sacrebleu extracts its statistics inside, as it always
does). Every score, mean and interval equal to 1e-4, every p-value equal.

sacrebleu's `PairedTest` spends about 2 minutes here on the three systems (most of it in its
TER statistics). By default it is run on the baseline and the first system only, on every
third segment (1,002 of 3,004), and the ratio is taken against llgui's engine on that same
part (llgui's time for the three systems on every segment is the figure); each system's
bootstrap indices and randomisation draws come from the same seed whatever the others, so
the first system's numbers are those of a three-system run on that part, and equality is
checked on them. `python -m benchmarks --full` runs it on all three systems and every
segment.

Part 2: a document-unit bootstrap (1,000 resamples) of the pooled S_pen of BLEU, chrF and TER
over 500 documents (the same corpus cut into 500 documents, two `reference` steps each, with
adapted lines), from the replays' cached statistics.

PASS iff part 1 is >= 10x faster than sacrebleu and equal, and part 2 takes <= 1 s.
"""
from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.common import GateResult, full

NAME = "significance"
METRICS = ("bleu", "chrf", "ter")
SYSTEMS = ("newstest2017.uedin-nmt.4722.en-de", "newstest2017.online-B.0.en-de",
           "newstest2017.KIT.4950.en-de", "newstest2017.LMU-nmt-single.4893.en-de")
MIN_RATIO = 10.0
EVERY = 3   # the library's part by default: every third segment (see above)
S_PEN_LIMIT_S = 1.0
N_DOCS = 500


def _folder() -> Path:
    configured = os.environ.get("LLGUI_REFERENCE_DATA")
    root = Path(configured) if configured else \
        Path(__file__).resolve().parent.parent.parent / "shared" / "reference-data"
    return root / "sacrebleu-wmt17" / "derived_txt"


def _read(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def _sacrebleu(test: str, n: int, refs, hyps) -> dict:
    from sacrebleu.metrics import BLEU, CHRF, TER
    from sacrebleu.significance import PairedTest

    os.environ["SACREBLEU_SEED"] = "12345"
    paired = PairedTest(list(hyps.items()), {"bleu": BLEU(), "chrf": CHRF(), "ter": TER()},
                        references=[refs], test_type=test, n_samples=n,
                        n_ar_confidence=1000 if test == "ar" else -1)
    _sigs, scores = paired()
    keys = [k for k in scores if k != "System"]
    return dict(zip(METRICS, (scores[k] for k in keys)))


def _ours(stats: dict, plan) -> dict:
    from llgui.core.significance.resample import Additive, paired_test

    out = {}
    for m in METRICS:
        metric, rows = stats[m]
        from llgui.core.significance.vector_scores import vector_score

        samples = [Additive(r, vector_score(metric), np.float32) for r in rows]
        out[m] = paired_test(samples[0], samples[1:], plan)
    return out


def _equal(ours: dict, theirs: dict, systems: int) -> list[str]:
    bad = []
    for m in METRICS:
        if len(theirs[m]) != systems:
            bad.append(f"{m}: sacrebleu gave {len(theirs[m])} rows for {systems} systems")
        for k, (e, r) in enumerate(zip(ours[m], theirs[m])):
            if abs(e.score - r.score) > 1e-4 or (r.mean is not None and (
                    abs(e.mean - float(r.mean)) > 1e-4 or abs(e.ci - float(r.ci)) > 1e-4)) \
                    or e.p_value != r.p_value:
                bad.append(f"{m} system {k}: ours {e} sacrebleu {r}")
    return bad


def _s_pen_part(ref, hyp, other) -> tuple[float, str]:
    from llgui.core.mt.stats import make_metric
    from llgui.core.penalty import make_track, replay
    from llgui.core.cost import CostModel
    from llgui.core.significance.resample import Plan, paired_test
    from llgui.core.significance.penalised import Stream, StreamSample
    from llgui.core.types import Adapted, MTDocument, SentenceTarget, Stamp, Step
    from llgui.core.significance.vector_scores import vector_score

    bounds = np.linspace(0, len(ref), N_DOCS + 1).astype(int)
    docs, steps = [], {}
    for d in range(N_DOCS):
        a, b = bounds[d], bounds[d + 1]
        doc = MTDocument(id=f"d{d}", time=Stamp.parse(d), hypothesis=tuple(hyp[a:b]),
                         references=(tuple(ref[a:b]),))
        docs.append(doc)
        n = b - a
        steps[doc.id] = tuple(
            Step(doc=doc.id, step=k + 1, initiative="active", kind="reference",
                 target=SentenceTarget(s + 1), cost=None,
                 adapted=Adapted(lines={s + 1: ref[a + s], (s + 1) % n + 1: other[a + (s + 1) % n]}))
            for k, s in enumerate(range(0, min(2, n))))
    streams = {}
    for m in METRICS:
        metric = make_metric(m)
        replays = [replay(make_track(doc, m, {}, CostModel()), steps[doc.id], CostModel(),
                          doc=doc.id) for doc in docs]
        streams[m] = StreamSample(Stream.from_replays(replays, metric))
    plan = Plan("bs", 1000, 12345, "document")
    for m in METRICS:  # load the compiled kernel (numba's on-disk cache) before timing
        paired_test(streams[m], [], Plan("bs", 2, 1, "document"))
    runs, per_metric = [], {m: [] for m in METRICS}
    for _ in range(3):   # the median of three runs: the machine is shared
        total = 0.0
        for m in METRICS:
            t0 = time.perf_counter()
            paired_test(streams[m], [], plan)
            spent = time.perf_counter() - t0
            per_metric[m].append(spent)
            total += spent
        runs.append(total)
    each = ", ".join(f"{m} {statistics.median(v):.2f} s" for m, v in per_metric.items())
    return statistics.median(runs), (f"{N_DOCS} documents, "
                                     f"{sum(len(s) for s in steps.values())} steps ({each})")


def run() -> GateResult:
    import sacrebleu

    from llgui.core.mt.stats import make_metric
    from llgui.core.significance.resample import Plan

    folder = _folder()
    if not (folder / "newstest2017-ende-ref.de").is_file():
        return GateResult("reference data absent", 0.0, "sacrebleu", False,
                          [f"no WMT17 en-de under {folder}"])
    refs = _read(folder / "newstest2017-ende-ref.de")
    hyps = {name: _read(folder / name) for name in SYSTEMS}
    t0 = time.perf_counter()
    stats = {}
    for m in METRICS:
        metric = make_metric(m)
        stats[m] = (metric, [metric.corpus_stats(h, [refs]) for h in hyps.values()])
    cache_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    ours_bs = _ours(stats, Plan("bs", 1000, 12345, "segment"))
    ours_ar = _ours(stats, Plan("ar", 10000, 12345, "segment"))
    ours_s = time.perf_counter() - t0

    whole = full()
    library_hyps = hyps if whole else {name: h[::EVERY] for name, h in list(hyps.items())[:2]}
    library_refs = refs if whole else refs[::EVERY]
    ours_pair_s = ours_s
    if not whole:   # llgui on the part the library runs, for a like-for-like ratio
        pair = {m: (metric, [r[::EVERY] for r in rows[:2]])
                for m, (metric, rows) in stats.items()}
        t0 = time.perf_counter()
        ours_bs = _ours(pair, Plan("bs", 1000, 12345, "segment"))
        ours_ar = _ours(pair, Plan("ar", 10000, 12345, "segment"))
        ours_pair_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    theirs_bs = _sacrebleu("bs", 1000, library_refs, library_hyps)
    theirs_ar = _sacrebleu("ar", 10000, library_refs, library_hyps)
    theirs_s = time.perf_counter() - t0

    bad = (_equal(ours_bs, theirs_bs, len(library_hyps))
           + _equal(ours_ar, theirs_ar, len(library_hyps)))
    pen_s, pen_what = _s_pen_part(refs, hyps[SYSTEMS[0]], hyps[SYSTEMS[1]])
    ratio = theirs_s / ours_pair_s
    passed = ratio >= MIN_RATIO and not bad and pen_s <= S_PEN_LIMIT_S
    details = [
        f"{len(refs)} segments, 3 systems vs a baseline, BLEU+chrF+TER: paired bootstrap 1000 "
        f"+ AR 10000 in {ours_s:.2f} s from cached statistics"
        + (f"; sacrebleu PairedTest {theirs_s:.1f} s" if whole else
           f"; on the baseline and the first system, one segment in {EVERY} "
           f"({len(library_refs)}; all: --full), llgui {ours_pair_s:.2f} s, sacrebleu "
           f"PairedTest {theirs_s:.1f} s")
        + " (its statistics extraction included, as it always runs it)",
        f"building the cache once (llgui's per-segment statistics): {cache_s:.1f} s",
        f"equal to sacrebleu on {'the three systems' if whole else 'the first system, on that part'} "
        "(scores, means, intervals to 1e-4, p-values exactly): "
        + ("yes" if not bad else f"NO ({len(bad)} differ)"),
        *bad[:6],
        f"document-unit bootstrap 1000 of pooled S_pen, BLEU+chrF+TER together, {pen_what}: "
        f"{pen_s:.2f} s, median of 3 (limit {S_PEN_LIMIT_S:.0f} s)",
    ]
    return GateResult(f"bs+ar {ours_s:.2f} s, S_pen bootstrap {pen_s:.2f} s", ratio,
                      f"sacrebleu {sacrebleu.__version__} PairedTest", passed, details)
