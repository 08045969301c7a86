"""Relapses of an online run (a bundle with an interaction log): which corrections a later
model version forgot (llgui.core.across_time.relapse defines relapsed and kept).

A bundle is processed document by document; the system's first hypothesis h_0 of document d
is the output of the model version that has learned from every document before d. So a
correction made in document d is re-tested by every later document that meets its unit:

- diarization `name` steps that change the label at t (a name the hypothesis the expert saw,
  h_{n-1}, already gave fixes no error and is left out): the unit is the reference speaker
  speaking at the step's time t
  (the longest reference turn holding t; a name given in silence has no unit), the taught
  label the step's answer; a later document re-tests it when its reference has that speaker,
  and its output is the label h_0 gives most of that speaker's reference speech (seconds of
  overlap; None when h_0 covers none of it). The correction is relapsed when that label is
  not the taught one: the system no longer calls the recurring speaker what it was told. (This
  is speaker identity across documents: DER, which maps labels anew in every document,
  cannot see it.)
- MT `reference` and `post_edit` steps that change the segment (graded): the unit is the
  corrected segment's source sentence (its first reference when the bundle has no source),
  the correction's `before` the sentence chrF of h_{n-1}'s segment, the hypothesis the expert
  corrected (h_0 with the adapted lines of the document's earlier steps); a later document re-tests it on
  every segment with the same source, its output the sentence chrF of that segment of h_0
  against its own first reference; relapsed when at or below `before` (sacrebleu's
  `sentence_chrf`, from llgui's chrF statistics);
- classification / detection `label` steps: the unit is each labelled item that h_{n-1}
  decided otherwise (classification), the taught label its answer; a later document re-tests
  it when it holds the same item id, with h_0's decision (classification) as output.

The cost of a correction is the step's logged cost, else the cost model's (`cost_of`), shared
equally by the items of a multi-item `label` step.
"""
from __future__ import annotations

from typing import Callable

from llgui.core.across_time.relapse import Correction, Relapses, Retest, relapses


def speaker_label(reference, hypothesis, speaker: str):
    """The hypothesis label covering most of `speaker`'s reference speech, or None."""
    cover: dict[str, float] = {}
    for r in reference:
        if r.speaker != speaker:
            continue
        for h in hypothesis:
            overlap = min(r.end, h.end) - max(r.start, h.start)
            if overlap > 0:
                cover[h.speaker] = cover.get(h.speaker, 0.0) + overlap
    return max(sorted(cover), key=cover.get) if cover else None


def _label_at(turns, t: float):
    best = None
    for turn in turns:
        if turn.start <= t < turn.end and (best is None or turn.end - turn.start
                                           > best.end - best.start):
            best = turn
    return best.speaker if best is not None else None


def bundle_relapses(bundle, cost_of: Callable | None = None) -> Relapses:
    """The relapses of `bundle`'s log (module docstring)."""
    order = {d.id: k for k, d in enumerate(bundle.documents)}
    corrections, retests = [], []

    def cost(step) -> float:
        if step.cost is not None:
            return float(step.cost)
        return float(cost_of(step)) if cost_of is not None else 1.0

    if bundle.task == "diarization":
        docs = {d.id: d for d in bundle.documents}
        current: dict[str, tuple] = {}   # each document's hypothesis as the steps adapt it
        for step in bundle.steps:
            doc = docs[step.doc]
            seen = current.setdefault(step.doc, doc.hypothesis)   # h_{n-1}
            if step.adapted is not None and step.adapted.turns is not None:
                current[step.doc] = step.adapted.turns
            if step.kind != "name" or not isinstance(step.answer, str):
                continue
            speaker = _label_at(doc.reference, step.target.t)
            before = _label_at(seen, step.target.t)
            if speaker is None or before == step.answer:
                continue   # a name given in silence, or one the hypothesis had: no error fixed
            corrections.append(Correction(
                f"{step.doc}#{step.step}", speaker, order[step.doc], cost(step),
                taught=step.answer, before=before))
        for speaker in {c.unit for c in corrections}:
            for d in bundle.documents:
                if any(t.speaker == speaker for t in d.reference):
                    retests.append(Retest(speaker, order[d.id], d.id,
                                          speaker_label(d.reference, d.hypothesis, speaker)))
        return relapses(corrections, retests, mode="label")
    if bundle.task == "mt":
        return _mt_relapses(bundle, order, cost)
    if bundle.task in ("classification", "detection"):
        docs = {d.id: d for d in bundle.documents}
        labels: dict[str, dict] = {}     # each document's decisions as the steps adapt them
        for step in bundle.steps:
            doc = docs[step.doc]
            decisions = getattr(doc, "decisions", None)
            seen = labels.setdefault(step.doc, dict(zip(doc.items, decisions))
                                     if decisions is not None else {})
            if step.kind != "label":
                continue
            items = step.target.items
            share = cost(step) / max(1, len(items))
            before_step = dict(seen)     # h_{n-1}'s decisions
            if step.adapted is not None and step.adapted.labels:
                seen.update(step.adapted.labels)
            for item, label in zip(items, step.answer):
                before = before_step.get(item)
                if before is not None and before == label:
                    continue   # decided right already: no error fixed
                corrections.append(Correction(f"{step.doc}#{step.step}:{item}", item,
                                              order[step.doc], share, taught=label,
                                              before=before))
        wanted = {c.unit for c in corrections}
        for d in bundle.documents:
            decisions = getattr(d, "decisions", None)
            if decisions is None:
                continue
            for item in wanted & set(d.index):
                retests.append(Retest(item, order[d.id], d.id, decisions[d.index[item]]))
        return relapses(corrections, retests, mode="label")
    return relapses([], [], mode="label")


def _mt_relapses(bundle, order, cost) -> Relapses:
    from llgui.core.metrics import make_metric

    chrf = make_metric("mt", "chrf", bundle.settings)

    def sentence(hyp: str, ref: str) -> float:
        return float(chrf.score(chrf.segment_stats(hyp, chrf.reference_info([ref]))))

    def key(doc, i: int) -> str:
        return (doc.source[i] if doc.source is not None else doc.references[0][i]).strip()

    corrections = []
    current: dict[str, list[str]] = {}
    for step in bundle.steps:
        if step.kind not in ("reference", "post_edit"):
            continue
        doc = bundle.document(step.doc)
        hyp = current.setdefault(step.doc, list(doc.hypothesis))
        i = step.target.sentence - 1
        taught = None
        if 0 <= i < len(hyp):
            taught = doc.references[0][i] if step.kind == "reference" else step.answer
        if taught is not None and hyp[i] != taught:   # a line already as told fixes nothing
            corrections.append(Correction(f"{step.doc}#{step.step}", key(doc, i),
                                          order[step.doc], cost(step), taught=taught,
                                          before=sentence(hyp[i], doc.references[0][i])))
        if step.adapted is not None and step.adapted.lines:
            for number, text in step.adapted.lines.items():
                if 1 <= number <= len(hyp):
                    hyp[number - 1] = text
    wanted = {c.unit for c in corrections}
    retests = []
    for doc in bundle.documents:
        for i in range(len(doc.hypothesis)):
            unit = key(doc, i)
            if unit in wanted:
                retests.append(Retest(unit, order[doc.id], doc.id,
                                      sentence(doc.hypothesis[i], doc.references[0][i])))
    return relapses(corrections, retests, mode="graded")
