"""Re-check a document's replay with the reference libraries themselves.

The engine swaps cached statistics; this job rebuilds every hypothesis of the walkthrough as
a real one and scores it with sacrebleu / jiwer (MT) or pyannote.metrics (diarization), none
of the engine's statistics used (sacrebleu computes each distinct segment of a document once
and aggregates them itself, as its corpus_score does: `MTMetric.library_scorer`): S_base,
and for every step S_cor (the corrected hypothesis), S_imp (a real impaired hypothesis where
one exists: MT tokens absent from every reference, of the length the metric's bound needs;
diarization through pyannote's own mapper with the impaired speaker left out), and S_adapt. It is the GUI's "Verify with libraries" and runs on a worker. Diarization
DER is computed by pyannote on pieces of the meeting, a piece once per distinct content
(`llgui.core.diarization.reference.PyannoteDER`): a 1.5-hour meeting's 15 steps take seconds,
not the half hour of one whole-meeting pyannote call per score (gate 11).
"""
from __future__ import annotations

import math
import string
from dataclasses import dataclass
from typing import Callable

from llgui.core.jobs import check, report
from llgui.core.walkthrough import Walkthrough

TOLERANCE = 1e-9
NOVEL = "zqxjvk"                  # a token no reference of ours contains (checked per segment)
_PUNCT = set(string.punctuation)


@dataclass(frozen=True)
class Check:
    step: int            # 0 = base
    quantity: str        # s_base | s_cor | s_imp | s_adapt
    engine: float
    library: float | None
    note: str = ""

    @property
    def difference(self) -> float | None:
        return None if self.library is None else abs(self.engine - self.library)


@dataclass(frozen=True)
class Verification:
    doc: str
    metric: str
    library: str
    checks: tuple[Check, ...]

    @property
    def compared(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.library is not None)

    @property
    def max_difference(self) -> float:
        diffs = [c.difference for c in self.compared]
        return max(diffs) if diffs else 0.0

    @property
    def ok(self) -> bool:
        return all(c.difference <= TOLERANCE * max(1.0, abs(c.library)) for c in self.compared)

    def summary(self) -> str:
        skipped = len(self.checks) - len(self.compared)
        verdict = "equal" if self.ok else "DIFFERENT"
        text = (f"{self.doc}: {len(self.compared)} scores recomputed with {self.library}: "
                f"{verdict} (largest difference {self.max_difference:.1e})")
        if skipped:
            text += f"; {skipped} impaired score(s) have no real hypothesis and are analytic"
        return text


def verify_walkthrough(walk: Walkthrough, settings,
                       progress: Callable[[float], None] | None = None,
                       should_stop: Callable[[], bool] | None = None) -> Verification:
    """Recompute every score of `walk` with the reference library (see the module text)."""
    if walk.document.task == "mt":
        scorer = _MTScorer(walk, settings)
    else:
        scorer = _DiarScorer(walk, settings, should_stop)
    checks = [Check(0, "s_base", walk.replay.s_base, scorer.score(walk.base))]
    n = len(walk.steps)
    report(progress, 1 / (n + 1))
    for i, view in enumerate(walk.steps, 1):
        check(should_stop)
        s = view.scores
        if s.s_cor is not None:
            checks.append(Check(i, "s_cor", s.s_cor, scorer.score(scorer.corrected(view))))
            imp, note = scorer.impaired(view)
            checks.append(Check(i, "s_imp", s.s_imp, imp, note))
        checks.append(Check(i, "s_adapt", s.s_adapt, scorer.score(view.adapted)))
        report(progress, (i + 1) / (n + 1))
    return Verification(walk.document.id, walk.replay.metric, scorer.library, tuple(checks))


class _MTScorer:
    def __init__(self, walk: Walkthrough, settings):
        from llgui.core.mt.stats import make_metric

        self.doc = walk.document
        self.metric = make_metric(walk.replay.metric, settings)
        self.settings = settings
        from importlib.metadata import version

        package = "jiwer" if self.metric.name == "wer" else "sacrebleu"
        self.library = f"{package} {version(package)}"
        # the document's references processed once by the library, and each distinct
        # hypothesis scored once (a step's adapted hypothesis is often another's)
        self._scorer = self.metric.library_scorer(self.doc.references)
        self._scores: dict[tuple[str, ...], float] = {}

    def score(self, hypothesis) -> float:
        key = tuple(hypothesis)
        if key not in self._scores:
            self._scores[key] = self._scorer(key)
        return self._scores[key]

    def corrected(self, view) -> tuple[str, ...]:
        """The corrected hypothesis scored: the view's, but for a prefix step the version made
        from the step and the reference (`prefix_versions`)."""
        if view.step.kind != "prefix":
            return view.corrected
        from llgui.core.mt.ipmt import prefix_versions

        index = view.corrected_segments[0]
        hypothesis = list(view.seen)
        hypothesis[index] = prefix_versions(self.doc.references[0][index], view.step.answer)[0]
        return tuple(hypothesis)

    def impaired(self, view) -> tuple[float | None, str]:
        """The library's score of a real strictly wrong version of the corrected segment."""
        index = view.corrected_segments[0]
        refs = self.doc.segment_references(index)
        if view.step.kind == "prefix":   # interactive-predictive MT: the typed text wrong
            from llgui.core.mt.ipmt import NOTHING, prefix_versions

            if any(NOTHING in r for r in refs):
                return None, "the reference contains the replacement character"
            hypothesis = list(view.seen)
            hypothesis[index] = prefix_versions(self.doc.references[0][index],
                                                view.step.answer)[1]
            return self.score(hypothesis), ""
        row = self.metric.segment_stats(view.seen[index],
                                        self.metric.reference_info(list(refs)))
        name = self.metric.name
        if any(NOVEL in r.lower() for r in refs):
            return None, "the reference contains the novel token"
        if name == "bleu":
            # same token count, no token of any reference: no n-gram matches, same totals
            text = " ".join([NOVEL] * int(row[0]))
        elif name == "chrf":
            if len(refs) > 1:
                return None, "chrF with several references: no single wrong sentence has the bound"
            seen = view.seen[index]
            if self.settings.get("lowercase"):
                seen = seen.lower()
            text = "".join(c if c.isspace() else "#" if c in _PUNCT else "\u2603" for c in seen)
            if any("\u2603" in r or "#" in r for r in refs):
                return None, "the reference contains the replacement characters"
        elif name == "ter" and len(refs) > 1:
            return None, "TER with several references uses their average length"
        else:
            # TER (one reference) and WER (first reference): all words wrong, reference length
            text = " ".join([NOVEL] * int(row[1]))
        hypothesis = list(view.seen)
        hypothesis[index] = text
        return self.score(hypothesis), ""


class _DiarScorer:
    """DER by `PyannoteDER` (pyannote.metrics on pieces of the meeting, each computed once per
    distinct content: a step costs the pieces its correction touched, gate 11); JER by
    pyannote's JaccardErrorRate on the whole meeting."""

    def __init__(self, walk: Walkthrough, settings, should_stop=None):
        from llgui.core.diarization.reference import PyannoteDER, pyannote_version
        from llgui.core.diarization.track import make_diar_metric

        self.doc = walk.document
        self.metric = make_diar_metric(walk.replay.metric, settings)
        self.library = f"pyannote.metrics {pyannote_version()}"
        self.should_stop = should_stop
        self.der = PyannoteDER(self.doc.reference, self.doc.uem, self.metric.collar,
                               self.metric.skip_overlap)

    def score(self, turns, unmappable=()) -> float:
        from llgui.core.diarization.reference import pyannote_jer_components

        if self.metric.name == "der":
            value = self.der(turns, unmappable, should_stop=self.should_stop).der
        else:
            value = pyannote_jer_components(
                self.doc.reference, turns, uem=self.doc.uem, collar=self.metric.collar,
                skip_overlap=self.metric.skip_overlap, unmappable=unmappable).jer
        return float(value) if math.isfinite(value) else math.nan

    def corrected(self, view):
        return view.corrected

    def impaired(self, view) -> tuple[float | None, str]:
        return self.score(view.impaired, (view.unmappable,)), ""
