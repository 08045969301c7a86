"""Pooled penalised scores under document resampling (DESIGN 1.7: the unit of S_pen).

The pooled S_pen of `llgui.core.penalty.pooled_scores` is a function of the document stream:
for a step of document d, S_cor and S_imp are corpus scores with the documents before d at
their final hypothesis and those after d at their first. A resample keeps the processing order
and repeats a document as often as it was drawn; the j-th copy of document d (j = 0..c-1) sees
the earlier copies of d at their final hypothesis and the later ones at their first:

    context(b, d, j) = sum_{e<d} c_e F_e + sum_{e>d} c_e B_e + j F_d + (c_d - 1 - j) B_d

so a resample's pooled S_pen is exactly `pooled_scores` of the replays listed in that order
(`tests/core/test_stream_resample.py` holds it equal to that loop). Everything comes from the
statistics `replay` cached (per document: base, final; per step: corrected and impaired), and
all resamples of a chunk are scored at once with the metric's vectorised score.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llgui.core.significance.vector_scores import VectorScore

MEASURES = ("s_base", "s_adapt", "s_pen")

KERNEL_FROM_STEPS = 300

_CELLS = 2_000_000
"""Statistics cells handled at once within a chunk of resamples (memory bound)."""


@dataclass(frozen=True, eq=False)
class Stream:
    """The cached statistics of one system's documents in processing order.

    `base`, `final`: (n_docs, n_stats); `step_doc`: (n_steps,) the document of each step
    (non-decreasing); `cor`, `imp`: (n_steps, n_stats) the document's statistics with the
    step's part corrected / impaired (paper mode)."""

    base: np.ndarray
    final: np.ndarray
    step_doc: np.ndarray
    cor: np.ndarray
    imp: np.ndarray
    score: VectorScore
    kernel: tuple | None = None
    """(kind, params) of the compiled penalty loop (`_penalised_kernel`), None for numpy."""
    compiled: bool | None = None
    """Use the compiled loop (True), numpy (False), or decide by size (None: compiled from
    KERNEL_FROM_STEPS steps on; below, numpy is as quick and nothing needs compiling)."""

    @classmethod
    def from_replays(cls, replays, metric) -> "Stream":
        """From `llgui.core.penalty.Replay`s (paper mode) of one system, in processing order,
        scored with `metric` (its vectorised and, when it has one, compiled formula)."""
        from llgui.core.significance.kernel_params import kernel_params
        from llgui.core.significance.vector_scores import vector_score

        base = np.array([r.stats_base for r in replays], dtype=np.float64)
        final = np.array([r.stats_final for r in replays], dtype=np.float64)
        docs, cor, imp = [], [], []
        for d, r in enumerate(replays):
            for stats in r.step_stats:
                if stats is None:
                    raise ValueError(f"document {r.doc!r}: resampling needs the paper mode's "
                                     "step statistics (not llmt)")
                docs.append(d)
                cor.append(stats[0])
                imp.append(stats[1])
        k = base.shape[1]
        return cls(base, final, np.asarray(docs, dtype=np.int64),
                   np.array(cor, dtype=np.float64).reshape(-1, k),
                   np.array(imp, dtype=np.float64).reshape(-1, k), vector_score(metric),
                   kernel_params(metric))

    @property
    def n_docs(self) -> int:
        return int(self.base.shape[0])

    def interleaved(self, other: "Stream") -> "Stream":
        """Documents 2d (this stream's d) and 2d+1 (other's d): the AR pseudo-systems pick one
        of each pair."""
        n, k = self.base.shape
        base = np.empty((2 * n, k))
        base[0::2], base[1::2] = self.base, other.base
        final = np.empty((2 * n, k))
        final[0::2], final[1::2] = self.final, other.final
        doc = np.concatenate([2 * self.step_doc, 2 * other.step_doc + 1])
        order = np.argsort(doc, kind="stable")
        return Stream(base, final, doc[order], np.concatenate([self.cor, other.cor])[order],
                      np.concatenate([self.imp, other.imp])[order], self.score, self.kernel,
                      self.compiled)

    def tied_to(self, other: "Stream") -> tuple["Stream", int]:
        """This stream with every document whose statistics (first and final hypotheses and
        every step's) tie `other`'s (`resample.TIE_TOLERANCE`) taken from `other`, and how
        many documents tied."""
        from llgui.core.significance.resample import tied

        n = self.n_docs
        if other.n_docs != n or other.base.shape[1] != self.base.shape[1]:
            return self, 0
        mine_steps = np.bincount(self.step_doc, minlength=n)
        their_steps = np.bincount(other.step_doc, minlength=n)
        close = (np.all(tied(self.base, other.base), axis=1)
                 & np.all(tied(self.final, other.final), axis=1) & (mine_steps == their_steps))
        for d in np.nonzero(close)[0]:
            mine, theirs = self.step_doc == d, other.step_doc == d
            close[d] = bool(np.all(tied(self.cor[mine], other.cor[theirs]))
                            and np.all(tied(self.imp[mine], other.imp[theirs])))
        count = int(close.sum())
        if not count:
            return self, 0
        take = close[:, None]
        cor, imp = self.cor.copy(), self.imp.copy()
        for d in np.nonzero(close)[0]:
            cor[self.step_doc == d] = other.cor[other.step_doc == d]
            imp[self.step_doc == d] = other.imp[other.step_doc == d]
        return Stream(np.where(take, other.base, self.base), np.where(take, other.final,
                                                                     self.final),
                      self.step_doc, cor, imp, self.score, self.kernel, self.compiled), count

    def pooled(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pooled (S_base, S_adapt, S_pen), each (B,), of the resamples with document
        multiplicities `counts` (B, n_docs)."""
        counts = np.asarray(counts, dtype=np.int64)
        n, k = self.base.shape
        steps_per_doc = np.bincount(self.step_doc, minlength=n)
        first_step = np.concatenate(([0], np.cumsum(steps_per_doc)[:-1]))
        # rows per chunk: bounded by the (rows, n, k) context arrays and the expanded steps
        width = max(n * k, int(steps_per_doc.sum()) * k * 2, 1)
        rows = max(1, _CELLS // width)
        out_base, out_adapt, out_pen = [], [], []
        for start in range(0, counts.shape[0], rows):
            c = counts[start:start + rows]
            cf = c.astype(np.float64)
            s_base = self.score(cf @ self.base)
            final_total = cf @ self.final
            s_adapt = self.score(final_total)
            penalty = self._penalty(c, steps_per_doc, first_step)
            out_base.append(s_base)
            out_adapt.append(s_adapt)
            out_pen.append(s_adapt + penalty)
        return (np.concatenate(out_base), np.concatenate(out_adapt), np.concatenate(out_pen))

    def _penalty(self, c: np.ndarray, steps_per_doc: np.ndarray, first_step: np.ndarray
                 ) -> np.ndarray:
        b, n = c.shape
        if self.step_doc.size == 0:
            return np.zeros(b)
        if self.kernel is not None and (self.compiled if self.compiled is not None
                                        else self.step_doc.size >= KERNEL_FROM_STEPS):
            from llgui.core.significance import _penalised_kernel

            return _penalised_kernel.run_penalties(c, self.base, self.final, first_step,
                                            steps_per_doc, self.cor, self.imp, *self.kernel)
        cf = c.astype(np.float64)[:, :, None]
        weighted_final = cf * self.final[None]            # (b, n, k)
        weighted_base = cf * self.base[None]
        # exclusive prefix of finals, exclusive suffix of bases
        before = np.cumsum(weighted_final, axis=1) - weighted_final
        after = np.cumsum(weighted_base[:, ::-1], axis=1)[:, ::-1] - weighted_base
        # only documents with steps matter
        has_steps = steps_per_doc > 0
        rb, rd = np.nonzero((c > 0) & has_steps[None, :])      # row-major: (b, d) order
        reps = c[rb, rd]
        eb = np.repeat(rb, reps)
        ed = np.repeat(rd, reps)
        ec = np.repeat(reps, reps)
        ej = np.arange(eb.size) - np.repeat(np.cumsum(reps) - reps, reps)  # copy index
        context = (before[eb, ed] + after[eb, ed] + ej[:, None] * self.final[ed]
                   + (ec - 1 - ej)[:, None] * self.base[ed])
        # each copy expands to its document's steps
        ns = steps_per_doc[ed]
        sb = np.repeat(eb, ns)
        entry = np.repeat(np.arange(eb.size), ns)
        local = np.arange(sb.size) - np.repeat(np.cumsum(ns) - ns, ns)
        step = first_step[ed][entry] + local
        ctx = context[entry]
        values = self.score(ctx + self.imp[step]) - self.score(ctx + self.cor[step])
        # bincount adds in array order: the (doc, copy, step) order of the plain loop
        return np.bincount(sb, weights=values, minlength=b)


@dataclass(frozen=True, eq=False)
class StreamSample:
    """One measure of a `Stream` as a `llgui.core.significance.resample.Sample` (unit: document)."""

    stream: Stream
    measure: str = "s_pen"

    def __post_init__(self) -> None:
        if self.measure not in MEASURES:
            raise ValueError(f"unknown measure {self.measure!r} (known: {', '.join(MEASURES)})")

    @property
    def n_units(self) -> int:
        return self.stream.n_docs

    def _pick(self, triple) -> np.ndarray:
        return triple[MEASURES.index(self.measure)]

    def point(self) -> float:
        return float(self.resampled(np.ones((1, self.n_units), dtype=np.int64))[0])

    def resampled(self, counts: np.ndarray) -> np.ndarray:
        return self._pick(self.stream.pooled(counts))

    def tied_to(self, other) -> tuple["StreamSample", int]:
        """Documents tied with `other`'s taken from it (`resample.snap_ties`)."""
        assert isinstance(other, StreamSample)
        stream, count = self.stream.tied_to(other.stream)
        return (self if stream is self.stream else StreamSample(stream, self.measure)), count

    def swapped(self, other, take: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        assert isinstance(other, StreamSample)
        both = self.stream.interleaved(other.stream)
        take = np.asarray(take, dtype=bool)
        n = self.n_units
        a = np.zeros((take.shape[0], 2 * n), dtype=np.int64)
        a[:, 0::2], a[:, 1::2] = ~take, take
        return self._pick(both.pooled(a)), self._pick(both.pooled(1 - a))


def metric_of(bundle, name: str):
    """The metric object `name` with the bundle's settings, as `penalty.make_track` builds it."""
    from llgui.core.metrics import make_metric

    return make_metric(bundle.task, name, bundle.settings, bundle.documents)


def collection_intervals(bundle, result, plan, progress=None, should_stop=None) -> dict:
    """Worker job: document-unit bootstrap estimates of the pooled S_base, S_adapt and S_pen
    of a replayed bundle (`penalty.BundleReplay`), {measure: resample.Estimate}, all three on
    the same resamples."""
    from llgui.core.significance.resample import bootstrap_scores, estimate_from

    # the documents the pooled scores are over (cut-short ones left out: `BundleReplay.counted`)
    replays = getattr(result, "counted", result.replays)
    stream = Stream.from_replays(replays, metric_of(bundle, result.metric))
    samples = [StreamSample(stream, m) for m in MEASURES]
    scores = bootstrap_scores(samples, plan, progress=progress, should_stop=should_stop)
    points = (result.pooled_base, result.pooled_adapt, result.pooled_pen)
    return {m: estimate_from(p, s, stream.n_docs) for m, p, s in zip(MEASURES, points, scores)}
