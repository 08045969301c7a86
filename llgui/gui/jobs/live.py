"""The live session's worker jobs (no Qt): each runs one call of `LiveSession` and returns a
`Snapshot`, all the window needs to show, built on the worker so the window never reads the
session while a job uses it. Every function has the job signature
`fn(..., progress=None, should_stop=None)`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from llgui.core.types import MTDocument
from llgui.sim import live as L


@dataclass(frozen=True)
class Snapshot:
    """The session as the window shows it after a job."""

    task: str
    mode: str
    doc: str | None
    index: int
    n_docs: int
    metric: str
    hypothesis: tuple = ()
    source: tuple | None = None
    question: L.Question | None = None
    steps: int = 0
    spent: float = 0.0
    budget: float = 0.0
    s_base: float | None = None
    s_adapt: float | None = None
    s_pen: float | None = None
    record: object = None            # the StepRecord of the step just made, if any
    refused: bool = False            # the answer did not fit the budget
    labels: tuple[str, ...] = ()     # diarization: the hypothesis' speaker labels
    extent: tuple[float, float] = (0.0, 0.0)
    window: float = 3.0
    finished: bool = False
    out: Path | None = None
    loaded: object = None            # the finished run's Bundle, loaded on the worker
    note: str = ""
    audio: object = None             # diarization: the document's recording (core Audio)
    prefix_ok: bool = False          # MT: the system takes the prefix interaction (1.2)
    ipmt: dict | None = None         # MT: WSR, KSR, MAR, KSMR of the accepted sentences
    accepted: frozenset = frozenset()  # MT: sentences (1-based) the expert accepted (prefix)
    tokenizer: str = ""              # MT BLEU: sacrebleu's tokenizer ("tok:ja-mecab-0.996-IPA")


def snapshot(live: L.LiveSession, question=None, record=None, refused=False, note="",
             finished=False, loaded=None) -> Snapshot:
    bundle = live.bundle
    metric = live.metrics[0]
    state = live._doc_state
    if state is None or finished:
        return Snapshot(bundle.task, live.mode, None, live.index, len(bundle.documents), metric,
                        finished=finished, out=live.out, loaded=loaded, note=note,
                        record=record, refused=refused)
    document = state.document
    s_adapt, s_pen = live.scores(metric)
    labels, extent, audio = (), (0.0, 0.0), None
    if not isinstance(document, MTDocument):
        labels = tuple(sorted({t.speaker for t in state.view.track.hypothesis}))
        extent = document.extent
        audio = getattr(bundle.document(document.id), "audio", None)
    return Snapshot(
        bundle.task, state.mode, document.id, live.index, len(bundle.documents), metric,
        hypothesis=live.hypothesis,
        source=document.source if isinstance(document, MTDocument) else None,
        question=question, steps=state.steps, spent=state.cost, budget=state.budget,
        s_base=state.scores.base[metric].score, s_adapt=s_adapt, s_pen=s_pen, record=record,
        refused=refused, labels=labels, extent=extent, window=bundle.cost.window,
        out=live.out, note=note, audio=audio, prefix_ok=live.speaks_prefix,
        ipmt=_effort(live),
        accepted=frozenset(s.target.sentence for s in live.prefix_steps
                           if s.doc == document.id and s.answer.accept),
        tokenizer=_tokenizer(bundle, metric))


def _effort(live: L.LiveSession) -> dict | None:
    """The session's interactive-predictive MT effort so far (`llgui.core.mt.ipmt`)."""
    if not live.prefix_steps:
        return None
    from llgui.core.mt.ipmt import ipmt_effort

    effort = ipmt_effort(live.prefix_steps, {d.id: d.references[0]
                                             for d in live.bundle.documents})
    return effort.to_json() if effort is not None else None


def _tokenizer(bundle, metric: str) -> str:
    """The `tok:` field of an MT metric's sacrebleu signature ("" for others): every picture
    of the session says which tokenizer its BLEU uses (issue 35)."""
    if bundle.task != "mt":
        return ""
    from llgui.core.mt.stats import make_metric

    try:
        signature = make_metric(metric, bundle.settings).signature
    except (ValueError, RuntimeError):
        return ""
    return next((part for part in signature.split("|") if part.startswith("tok:")), "")


def _next(live: L.LiveSession, record=None, refused=False, note="") -> Snapshot:
    """After a step: the next question (active), moving on through documents whose system has
    nothing more to ask; the run finished and loaded when none are left."""
    while True:
        if live.mode != "active":
            return snapshot(live, record=record, refused=refused, note=note)
        question = live.question()
        if question is not None:
            return snapshot(live, question, record, refused, note)
        if not live.next_document():
            return _finish(live, record, note)
        note = note or "the system had nothing more to ask: next document"


def _finish(live: L.LiveSession, record=None, note="") -> Snapshot:
    from llgui.io.bundle import load_bundle

    live.finish()
    loaded = load_bundle(live.out / "bundle.toml")
    return snapshot(live, record=record, note=note, finished=True, loaded=loaded)


def _use(live, should_stop):
    live.should_stop = should_stop


def start(bundle_path, command, out, mode, budget, system_name=None, progress=None,
          should_stop=None):
    from llgui.io.bundle import load_bundle

    bundle = load_bundle(bundle_path)
    live = L.LiveSession(bundle, command, out, mode=mode, budget=budget,
                         system_name=system_name, should_stop=should_stop)
    try:
        live.start()
    except BaseException:
        live.close()
        raise
    # what the load warned about (an audio file that cannot be played...) is said once
    warnings = [str(w) for w in bundle.warnings]
    note = "; ".join(warnings[:3]) + (f" (and {len(warnings) - 3} more)"
                                      if len(warnings) > 3 else "")
    return live, _next(live, note=note)


def resume(folder, progress=None, should_stop=None):
    live = L.resume(folder, progress=progress, should_stop=should_stop)
    return live, _next(live, note="resumed: the recorded answers were replayed")


def answer(live, value, effort, progress=None, should_stop=None):
    _use(live, should_stop)
    record = live.answer(value, effort)
    return _next(live, record, refused=record is None,
                 note="over the budget: the system was refused" if record is None else "")


def correct(live, kind, target, value, effort, progress=None, should_stop=None):
    _use(live, should_stop)
    record = live.correct(kind, target, value, effort)
    return snapshot(live, record=record, refused=record is None,
                    note="over the budget left: not sent" if record is None else "")


def prefix(live, sentence, prefix_text, typed, unit, effort, progress=None, should_stop=None):
    """Interactive-predictive MT: the expert's validated prefix and typed text."""
    _use(live, should_stop)
    record = live.prefix(sentence, prefix_text, typed, effort, unit)
    return snapshot(live, record=record, refused=record is None,
                    note="over the budget left: not sent" if record is None else "")


def next_document(live, progress=None, should_stop=None):
    _use(live, should_stop)
    if not live.next_document():
        return _finish(live)
    return _next(live)


def finish(live, progress=None, should_stop=None):
    _use(live, should_stop)
    return _finish(live)


def pause(live, submission=None, progress=None, should_stop=None):
    """Pause and save; `submission` (kind, target, value, effort) is the expert's answer of an
    exchange cancelled before the session took it: kept as unsent, so nothing typed is lost."""
    if submission is not None and live.unsent is None:
        live.keep_unsent(*submission)
    live.pause()
    return live.out


def switch(live, command, name, progress=None, should_stop=None):
    _use(live, should_stop)
    live.switch_system(command, name)
    return _next(live, note=f"continuing with {name}")


def stop(live, error_text, progress=None, should_stop=None):
    """After a failure, end the session: run.json with exit 3; the run loaded."""
    from llgui.io.bundle import load_bundle
    from llgui.sim.protocol import ProtocolFault

    live.fail(ProtocolFault(error_text))
    live.close()
    return snapshot(live, finished=True, loaded=load_bundle(live.out / "bundle.toml"),
                    note="stopped after the system failed")
