"""The session driver: one system, one oracle, one bundle, step by step.

`Session` is an object with methods, so a caller can drive it one step at a time (the live
session of the window) or run it to the end (`Session.run`, used by `llgui.sim.run`):

    session = Session(bundle, command, oracle, out)
    session.start()                         # the system starts; hello both ways
    for index in range(len(bundle.documents)):
        session.begin_document(index)       # document -> h0
        while session.next_step() is not None:
            ...                             # one request/answer or correction/adapted
        session.end_document()
    result = session.finish()               # bye; run.json

Every step is scored as it completes (S_cor, S_imp, S_adapt, S_pen of every metric of the
bundle, on the core's cached statistics: `llgui.core.track`), appended to the log and
flushed. A fault of the system (crash, hang past `timeout`, a message that breaks the
protocol) raises `ProtocolFault` naming message, document, step and fault; `fail()` (called
by `run`) ends the process group and writes run.json with exit 3, and everything completed
before the fault is on disk and loadable. `close()` always ends the process group.
"""
from __future__ import annotations

import gc
import math
import signal
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Sequence

from llgui._version import __version__
from llgui.core.cost import CostModel
from llgui.core.errors import UsageError
from llgui.core.jobs import Cancelled, check
from llgui.core.metrics import error_metrics
from llgui.core.mt.ipmt import WORD
from llgui.core.types import Adapted, Bundle, DiarDocument, MTDocument, SentenceTarget, Step, Turn
from llgui.io.interactions import target_to_json
from llgui.sim import protocol as P
from llgui.sim.adapted_turns import AdaptedTurns
from llgui.sim.oracles import Move, Oracle, PrefixOracle, RefIndex, View, step_for
from llgui.sim.output import RunWriter, WriteFailed, msr_metric, run_name, stop_note
from llgui.sim.prefix import (
    PREFIX_MINOR, Completion, completed_lines, prefix_message, run_effort,
    step_limit as prefix_step_limit,
)
from llgui.sim.process import SystemProcess
from llgui.sim.results import DocScores, DocumentResult, RunResult, StepRecord
from llgui.sim.turn_reuse import TurnReuse
from llgui.utils.huge_pages import collapse_in_background

DEFAULT_BUDGET_SHARE = 0.6     # MT: 60 % of the document's reference words (ALLIES plans)
DEFAULT_BUDGET_SECONDS = 60.0  # diarization: 60 s listened per document
STEP_LIMIT_PER_SEGMENT = 4     # MT: at most 4 steps per sentence, whatever the costs
STEP_LIMIT_DIAR = 10_000
VIEW_METRIC = {"mt": "ter", "diarization": "der"}
"""The track the oracle looks through (`oracles.View`): TER's per-sentence edits, DER's error
regions."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def default_budget(document, budget: float | None, cost: CostModel, settings=None,
                   documents=()) -> float:
    """MT: 60 % of the document's reference in the cost unit (words, or characters for
    scripts without spaces: `llgui.core.mt.script`); diarization: 60 s."""
    if budget is not None:
        return float(budget)
    if isinstance(document, MTDocument):
        from llgui.core.mt.script import bundle_unit, count_units

        unit = bundle_unit(settings, documents, document)
        size = sum(count_units(r, unit) for r in document.references[0])
        return DEFAULT_BUDGET_SHARE * size * cost.reference_weight
    return DEFAULT_BUDGET_SECONDS * cost.listen_weight


def _refuse_words_without_spaces(bundle: Bundle, name: str) -> None:
    """The word-level prefix oracle splits at white space: in a script written without spaces
    (trg_lang zh, ja, th, or detected) a sentence is one word, typed whole; refused."""
    from llgui.core.mt.script import CHARACTERS, bundle_unit

    if bundle_unit(bundle.settings, bundle.documents) == CHARACTERS:
        lang = (bundle.settings or {}).get("trg_lang")
        why = f"trg_lang {lang}" if lang else "its references"
        raise ValueError(f"the {name} oracle types whole words, split at white space, and this "
                         f"bundle's target ({why}) is written without spaces: each sentence would "
                         "be one word; use --oracle prefix-char (one character a step)")


class Session:
    """One system driven through a bundle by one oracle (see the module text)."""

    def __init__(self, bundle: Bundle, command: str | Sequence[str], oracle: Oracle,
                 out: str | Path, *, system_name: str | None = None, mode: str | None = None,
                 interactive_ratio: float | None = None, budget: float | None = None,
                 seed: int = 0, timeout: float = 30.0, cwd: str | Path | None = None,
                 startup_timeout: float | None = None,
                 should_stop: Callable[[], bool] | None = None,
                 on_step: Callable[[StepRecord], None] | None = None):
        if bundle.task not in ("mt", "diarization"):
            raise ValueError(f"simulate needs an MT or diarization bundle, not {bundle.task!r}")
        if mode is not None and mode not in P.MODES:
            raise ValueError(f"mode must be one of {', '.join(P.MODES)}")
        if isinstance(oracle, PrefixOracle) and (bundle.task != "mt" or mode == "active" or (
                mode is None and interactive_ratio is not None)):
            raise ValueError(f"the {oracle.name} oracle is interactive-predictive MT: it needs "
                             "an MT bundle and volunteers (not --mode active, nor "
                             "--interactive-ratio)")
        if isinstance(oracle, PrefixOracle) and oracle.unit == WORD:
            _refuse_words_without_spaces(bundle, oracle.name)
        self.bundle, self.command, self.oracle = bundle, command, oracle
        self.out = Path(out)
        self.system_name = system_name
        self.mode, self.ratio, self.budget, self.seed = mode, interactive_ratio, budget, seed
        self.timeout, self.cwd = float(timeout), cwd
        # the wait for hello (start-up: loading a model); None: `timeout`, as every reply
        self.startup_timeout = None if startup_timeout is None else float(startup_timeout)
        self.should_stop, self.on_step = should_stop, on_step
        self.metrics = list(bundle.metrics)
        view_metric = VIEW_METRIC[bundle.task]
        self._score_metrics = self.metrics + ([view_metric] if view_metric not in self.metrics
                                              else [])
        self.process: SystemProcess | None = None
        self.writer: RunWriter | None = None
        self.run_written = False
        self.hello: P.SystemHello | None = None
        self.results: list[DocumentResult] = []
        self.started = ""
        self.number = 0          # system messages received
        self.doc: str | None = None
        self.step = 0
        self._doc_state = None
        self._others: dict[str, RefIndex] = {}
        self.llgui_seconds = 0.0  # llgui's own time in steps (the system's excluded)
        self.parse_seconds = 0.0  # of which parsing the system's messages
        self.pipe_seconds = 0.0   # writing to the system's stdin (not llgui's time)
        self.prefix_steps: list[Step] = []   # interactive-predictive MT steps (effort)
        self._reuse: TurnReuse | None = None   # the document's last turn list, checked

    # -- the system -----------------------------------------------------------------------------

    def _receive(self, owed: str | None = None,
                 timeout: float | None = None) -> tuple[P.SystemMessage, float]:
        """The system's next message, parsed, and how long it took (seconds). `owed`: what
        the system owes now, named when it sends nothing in time; `timeout`: the wait
        (default `self.timeout`)."""
        t0 = time.perf_counter()
        try:
            raw = self.process.receive(self.timeout if timeout is None else timeout,
                                       self.should_stop)
        except P.ProtocolFault as fault:
            reason = fault.reason
            if owed and reason.startswith("no reply within"):
                reason = f"{reason}: llgui was waiting for your {owed}"
            raise P.ProtocolFault(reason, self.number + 1, self.doc,
                                  self._where_step()) from None
        elapsed = time.perf_counter() - t0
        self.number += 1
        message = P.parse_system(raw, self.number, self.bundle.task, self.doc,
                                 self._where_step(), self._reuse)
        self._check_echo(message)
        self.parse_seconds += time.perf_counter() - t0 - elapsed  # llgui's time, not the system's
        return message, elapsed

    def _check_echo(self, message: P.SystemMessage) -> None:
        """A message echoing `doc` or `step` (protocol 1.1) must echo the ones llgui is at: a
        reply to another step (a duplicate, skipped or late one) is a fault now, before
        anything of it is used or logged."""
        if isinstance(message, P.SystemHello):
            return
        doc, step = getattr(message, "doc", None), getattr(message, "step", None)
        expected = self.step
        if isinstance(message, P.Hypothesis):   # the document's step: the steps done in it
            expected = 0 if self._doc_state is None else self._doc_state.steps
        if doc is not None and doc != self.doc:
            raise self._fault(f"{message.type} for document {doc!r}, expected document "
                              f"{self.doc!r}")
        if step is not None and step != expected:
            raise self._fault(f"{message.type} for step {step}, expected step {expected} "
                              "(a duplicate, skipped or late reply)")

    def _send(self, message) -> None:
        if not isinstance(message, P.Hello) and self.process.pending():
            # the system owes nothing when llgui speaks: a line waiting now is a duplicate or
            # late reply (one that comes later is caught by its echo, or out of turn)
            extra, _ = self._receive()
            raise self._fault(f"{extra.type} nobody asked for, before llgui's {message.type} "
                              "(a duplicate or late reply)")
        if self.doc is not None and getattr(message, "step", 0) is None:
            message = replace(message, doc=self.doc, step=self.step)   # protocol 1.1
        line = P.encode(message)
        t0 = time.perf_counter()
        try:
            self.process.send(line)
        except P.ProtocolFault as fault:
            raise P.ProtocolFault(fault.reason, None, self.doc, self._where_step()) from None
        # the pipe write wakes the system, and on a busy machine the OS may run it before
        # returning to us: the system's time, left out of llgui's as the reply's wait is
        self.pipe_seconds += time.perf_counter() - t0

    def _where_step(self) -> int | None:
        """The step for messages: 0 while h0 is awaited, None outside documents."""
        return None if self.doc is None else self.step

    def _fault(self, reason: str) -> P.ProtocolFault:
        return P.ProtocolFault(reason, self.number, self.doc, self._where_step())

    def start(self) -> P.SystemHello:
        """Start the system and exchange hellos."""
        self.started = _now()
        self.out.mkdir(parents=True, exist_ok=True)
        self.writer = RunWriter(self.out, self.bundle,
                                run_name(self.system_name, self.oracle.name))
        self.process = SystemProcess(self.command, self.out / "system.stderr", cwd=self.cwd)
        self._send(P.Hello(self.bundle.task, self.seed))
        if self.startup_timeout is None:
            message, _ = self._receive("hello (start-up counts in --timeout)")
        else:
            message, _ = self._receive("hello (start-up counts in --startup-timeout)",
                                       self.startup_timeout)
        if not isinstance(message, P.SystemHello):
            raise self._fault(f"expected hello, got {message.type}")
        self.hello = message
        if isinstance(self.oracle, PrefixOracle) and (message.minor or 0) < PREFIX_MINOR:
            raise self._fault(f"the {self.oracle.name} oracle needs a system speaking protocol "
                              f"1.{PREFIX_MINOR} (the prefix interaction): its hello must say "
                              f'"minor": {PREFIX_MINOR}')
        if self.writer.run_name is None:   # named by its hello
            self.writer.run_name = run_name(message.name, self.oracle.name)
        return message

    # -- documents ------------------------------------------------------------------------------

    def document_mode(self, index: int) -> str:
        if self.mode is not None:
            return self.mode
        if self.ratio is not None:
            import numpy as np

            draw = np.random.default_rng([self.seed, index, 3]).random()
            return "interactive" if draw < self.ratio else "active"
        return self.oracle.default_mode

    def begin_document(self, index: int) -> tuple:
        """Send document `index`, receive and record h0; returns h0 (lines or turns)."""
        document = self.bundle.documents[index]
        self.doc, self.step = document.id, 0
        self._reuse = TurnReuse()
        mode = self.document_mode(index)
        budget = default_budget(document, self.budget, self.bundle.cost, self.bundle.settings,
                                self.bundle.documents)
        is_mt = isinstance(document, MTDocument)
        self._send(P.DocumentStart(
            doc=document.id, time=document.time.text if document.time.is_date
            else document.time.value, mode=mode, budget=budget,
            source=document.source if is_mt else None,
            hypothesis=tuple(document.hypothesis) if document.hypothesis else None,
            uem=None if is_mt else document.uem, audio=_audio_path(document)))
        message, _ = self._receive("hypothesis h0 of the document")
        if not isinstance(message, P.Hypothesis):
            raise self._fault(f"expected the hypothesis of the document, got {message.type}")
        h0 = self._check_hypothesis(document, message)
        written = self.writer.add_hypothesis(document, h0)
        if is_mt:
            document = MTDocument(document.id, document.time, tuple(h0), document.references,
                                  document.source)
        else:  # score the turns as a loader reads them back from the RTTM written
            from llgui.io.rttm import load_turns

            turns = load_turns(written).get(document.uri, ())
            # the system answers with turns: its words are the reference words with its
            # labels (speaker attribution only), as in the bundle written for the run
            document = DiarDocument(document.id, document.time, document.uri,
                                    document.reference, turns, document.uem,
                                    words=document.words)
        scores = DocScores(document, self._score_metrics, self.bundle)
        view = View(document, scores.tracks[VIEW_METRIC[self.bundle.task]], self.bundle.cost,
                    index, self.seed)
        if not is_mt:
            view.others = _LazyRefs(self.bundle)
        self._doc_state = _DocState(document, mode, budget, scores, view)
        if not is_mt:
            self._doc_state.adapted = AdaptedTurns(
                document.extent[1],
                lambda times: self._check_times(document, times, "adapted turn"),
                known=scores.tracks[VIEW_METRIC["diarization"]].hypothesis)
        # the document's statistics and tracks live until its end: out of the collector's
        # full passes, which otherwise walked them all inside a step (24 ms on a 3-hour show,
        # the 882-ms maximum of gate 8's MT run); what a step makes is still collected
        gc.freeze()
        # ... and on huge pages (a thread; `llgui.utils.huge_pages`): a step comes after the
        # system's reply, a pause in which the machine forgets the pages it touched
        collapse_in_background()
        return tuple(scores.tracks[self.metrics[0]].hypothesis)

    def _check_hypothesis(self, document, message: P.Hypothesis):
        if isinstance(document, MTDocument):
            lines = message.lines
            if len(lines) != document.n_segments:
                raise self._fault(f"hypothesis has {len(lines)} lines, document "
                                  f"{document.id!r} has {document.n_segments}")
            for i, line in enumerate(lines, 1):
                if len(line.splitlines()) > 1 or "\x00" in line:
                    raise self._fault(f"hypothesis line {i} contains a line break")
            return lines
        turns = tuple(sorted(Turn(s, e, spk) for s, e, spk in message.turns if e > s))
        self._check_times(document, [t for turn in turns for t in (turn.start, turn.end)],
                          "hypothesis turn")
        return turns

    def _check_times(self, document: DiarDocument, times, what: str) -> None:
        end = document.extent[1] + 3600.0  # a system may hypothesise past the reference
        for t in times:
            if t > end:
                raise self._fault(f"{what} at {t:g} s is outside document "
                                  f"{document.id!r} (0..{document.extent[1]:g} s)")

    # -- steps ----------------------------------------------------------------------------------

    def next_step(self) -> StepRecord | None:
        """Run one step of the current document; None when the document has no more."""
        state = self._doc_state
        if state is None or state.done:
            return None
        check(self.should_stop)
        document, view = state.document, state.view
        limit = (STEP_LIMIT_PER_SEGMENT * document.n_segments
                 if isinstance(document, MTDocument) else STEP_LIMIT_DIAR)
        if isinstance(self.oracle, PrefixOracle):   # a step per word typed, and acceptances
            limit = prefix_step_limit(document, self.oracle.unit)
        if state.mode == "none":
            state.done = True
            return None
        self.step = state.steps + 1
        if state.steps >= limit:
            if state.mode == "active":   # its next request is on its way: refuse it
                message, _ = self._request(state)
                if message is not None:
                    self._send(P.Refused("limit"))
                    state.refused = _refusal("limit", message, None, None)
            state.done = True
            return None
        waited = 0.0
        parsed_before, piped_before = self.parse_seconds, self.pipe_seconds
        if state.mode == "active":
            message, waited = self._request(state)
            if message is None:
                state.done = True
                return None
            t0 = time.perf_counter()
            move = self.oracle.answer(message.kind, message.target, view)
            cost = self._cost(move, state)
            left = state.budget - state.cost
            if cost > left + 1e-9:
                self._send(P.Refused("budget", cost=cost, left=max(0.0, left)))
                state.refused = _refusal("budget", message, cost, max(0.0, left))
                state.done = True
                self.llgui_seconds += time.perf_counter() - t0
                return None
            move = self.oracle.distort(move, view)
            self._send(P.Answer(move.kind, move.target, move.answer, cost,
                                left=max(0.0, left - cost)))
            initiative = "active"
        else:
            t0 = time.perf_counter()
            costs: dict[int, float] = {}

            def fits(candidate: Move) -> bool:
                c = self._cost(candidate, state)
                costs[id(candidate)] = c
                return state.cost + c <= state.budget + 1e-9

            move = self.oracle.volunteer(view, fits)
            if move is None:
                state.done = True
                self.llgui_seconds += time.perf_counter() - t0
                return None
            cost = costs[id(move)]
            move = self.oracle.distort(move, view)
            left = max(0.0, state.budget - state.cost - cost)
            if move.kind == "prefix":   # protocol 1.2: answered by a completion
                sent = prefix_message(move, cost, left)
                self._send(sent)
            else:
                self._send(P.Correction(move.kind, move.target, move.answer, cost, left=left))
            initiative = "interactive"
        llgui_s = time.perf_counter() - t0 - (self.pipe_seconds - piped_before)
        if move.kind == "prefix":
            reply, elapsed = self._receive("completion (the rest of the sentence)")
            t1 = time.perf_counter()
            adapted = self._completed(document, sent, reply)
        else:
            reply, elapsed = self._receive("adapted (your hypothesis after this step)")
            t1 = time.perf_counter()
            if not isinstance(reply, P.AdaptedReply):
                raise self._fault(f"out of turn: expected adapted, got {reply.type}")
            adapted = self._adapted(document, reply)
        step = step_for(move, document.id, self.step, initiative, cost, adapted)
        scores = state.scores.add(step, cost)
        state.steps += 1
        state.curve.append((state.cost, {m: v[3] for m, v in scores.items()}))
        if move.kind == "prefix":
            self.prefix_steps.append(step)
        elif isinstance(move.target, SentenceTarget):
            view.corrected_sentences.add(move.target.sentence - 1)
        else:
            view.corrected_windows.extend(view.track.windows(step))
        self.writer.append_step(step, waited + elapsed)
        llgui_s += time.perf_counter() - t1 + (self.parse_seconds - parsed_before)
        self.llgui_seconds += llgui_s
        record = StepRecord(step, waited + elapsed, llgui_s, scores, state.cost, state.budget)
        if self.on_step is not None:
            self.on_step(record)
        return record

    def _request(self, state) -> tuple[P.Request | None, float]:
        """Active mode: the system's request for this step (None when it stops), after
        answering the quotes it asks first (no step spent); and the time it took."""
        waited = 0.0
        for _ in range(P.MAX_QUOTES_PER_STEP + 1):
            message, elapsed = self._receive("request, quote or stop (active mode: you ask)")
            waited += elapsed
            if isinstance(message, P.Stop):
                return None, waited
            if not isinstance(message, (P.Request, P.QuoteRequest)):
                raise self._fault(f"out of turn: expected a request or stop, got "
                                  f"{message.type}")
            self._check_target(state.document, message.kind, message.target)
            if isinstance(message, P.Request):
                return message, waited
            t0 = time.perf_counter()
            move = self.oracle.answer(message.kind, message.target, state.view)
            cost = self._cost(move, state)
            self._send(P.Quote(message.kind, message.target, cost,
                               max(0.0, state.budget - state.cost)))
            self.llgui_seconds += time.perf_counter() - t0
        raise self._fault(f"more than {P.MAX_QUOTES_PER_STEP} quotes before one request")

    def _cost(self, move: Move, state) -> float:
        probe = step_for(move, state.document.id, self.step or 1, "active")
        return float(state.view.track.cost(probe, self.bundle.cost.with_(use_log_cost=False)))

    def _check_target(self, document, kind: str, target) -> None:
        if isinstance(document, MTDocument):
            if not 1 <= target.sentence <= document.n_segments:
                raise self._fault(f"target sentence {target.sentence} is outside 1.."
                                  f"{document.n_segments} of document {document.id!r}")
            return
        times = [getattr(target, k) for k in ("t", "t1") if hasattr(target, k)]
        self._check_times_strict(document, times)
        if kind == "same":
            doc2 = target.doc2
            other = document
            if doc2 is not None and doc2 != document.id:
                try:
                    other = self.bundle.document(doc2)
                except KeyError:
                    raise self._fault(f"target doc2 {doc2!r} is not in the bundle") from None
            self._check_times_strict(other, [target.t2])

    def _check_times_strict(self, document, times) -> None:
        end = document.extent[1]
        for t in times:
            if t > end:
                raise self._fault(f"target time {t:g} s is outside document {document.id!r} "
                                  f"(0..{end:g} s)")

    def _completed(self, document, sent, reply) -> Adapted:
        """A prefix step's sentence, prefix + typed + the system's completion, and the other
        lines its reply changes (protocol 1.2)."""
        if not isinstance(reply, Completion):
            raise self._fault(f"out of turn: expected completion, got {reply.type}")
        if sent.accept and reply.completion:
            raise self._fault("completion of an accepted sentence must be empty")
        if reply.lines and sent.target.sentence in reply.lines:
            raise self._fault(f"completion lines name sentence {sent.target.sentence}, the "
                              "prefix's own (its text is prefix + typed + completion)")
        others = self._adapted(document, P.AdaptedReply(lines=reply.lines))
        lines = dict(others.lines) if others is not None else {}
        lines.update(completed_lines(sent, reply))
        return Adapted(lines=lines)

    def _adapted(self, document, reply: P.AdaptedReply) -> Adapted | None:
        if isinstance(document, MTDocument):
            if reply.lines is None:
                return None
            for number, text in reply.lines.items():
                if not 1 <= number <= document.n_segments:
                    raise self._fault(f"adapted line {number} is outside 1.."
                                      f"{document.n_segments} of document {document.id!r}")
                if len(text.splitlines()) > 1 or "\x00" in text:
                    raise self._fault(f"adapted line {number} contains a line break")
            return Adapted(lines=dict(reply.lines)) if reply.lines else None
        if reply.turns is None:
            return None
        return Adapted(turns=self._doc_state.adapted.make(reply.turns))

    def end_document(self) -> DocumentResult:
        """Close the current document: end_document to the system, its summary."""
        state = self._doc_state
        self._send(P.EndDocument(state.document.id))
        result = self._summary(state)
        self.writer.end_document(state.document.id)
        self.results.append(result)
        self._doc_state = None
        self.doc, self.step = None, 0
        self._reuse = None
        return result

    def _summary(self, state, partial: bool = False) -> DocumentResult:
        """The document's scores as they stand: at its end, or where the run stopped."""
        scores, errors, feedback = {}, {}, {}
        for m in self.metrics + [e for e in error_metrics(self.bundle.task)
                                 if e in self._score_metrics and e not in self.metrics]:
            track = state.scores.tracks[m]
            entry = {"s_base": state.scores.base[m].score,
                     "s_adapt": state.scores.last[m].score,
                     "s_pen": state.scores.s_pen[m]}
            msr = state.scores.msr(m)
            if msr is not None:
                entry["msr"] = msr
                entry["msr_cost"] = state.scores.sums[m].msr_cost(track.metric,
                                                                  state.scores.last[m].stats)
                errors[m] = track.metric.errors(state.scores.last[m].stats)
                feedback[m] = state.scores.sums[m].feedback
            scores[m] = entry
        return DocumentResult(state.document.id, state.mode, state.budget, state.steps,
                              state.cost, scores, errors, feedback, partial,
                              tuple(state.curve), state.refused)

    # -- the end --------------------------------------------------------------------------------

    def finish(self) -> RunResult:
        """Say bye, wait for the system to exit (at most `timeout`), write run.json."""
        try:
            self._send(P.Bye())
        except P.ProtocolFault:
            pass  # it already left: the run is complete all the same
        self.process.close(self.timeout)
        return self._write_run(0, None)

    def fail(self, error: BaseException) -> tuple[RunResult, BaseException]:
        """End the process group and record the failure in run.json (exit 3 for a system
        fault, 130 when cancelled, 1 otherwise). Returns the run and the error to raise (a
        `ProtocolFault` gains the tail of the system's stderr)."""
        tail = ""
        if self.process is not None:
            self.process.kill()
            tail = self.process.stderr_tail()
        message = None
        if isinstance(error, P.ProtocolFault):
            error = error.with_stderr(tail)
            code = 3
        elif isinstance(error, Cancelled):
            code = 130
        elif isinstance(error, WriteFailed):   # a full disk, a file-size limit: exit 2
            message = f"{error}; the run stopped after {self._steps_done()} steps"
            result = self._write_run(2, message)
            kept = ("run.json, marked partial, says what was done" if self.run_written
                    else "run.json could not be written either")
            return result, UsageError(f"{message}; {self.out} holds the steps written ({kept})")
        elif isinstance(error, KeyboardInterrupt):   # a signal: 128 + its number
            signum = int(getattr(error, "signum", signal.SIGINT))
            result = self._write_run(128 + signum, f"interrupted by {signal.Signals(signum).name}")
            # what the user reads: the document cut, those not run, and where the run is (it
            # said only "interrupted by SIGINT", outsider helper-40)
            kept = (f"; {self.out} holds what was done (run.json, marked partial)"
                    if self.run_written else "")
            stop = KeyboardInterrupt(f"{result.error}{kept}")
            stop.signum = signum
            return result, stop
        else:
            code = 1
        message = message or str(error) or type(error).__name__
        return self._write_run(code, message), error

    def _steps_done(self) -> int:
        return self.writer.steps if self.writer is not None else 0

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
        if self.writer is not None:
            self.writer.close()

    def _write_run(self, code: int, error: str | None) -> RunResult:
        results = self._results_so_far()
        listed = [r.doc for r in results]
        dropped = self.writer.drop_unlisted(listed) if code and self.writer else []
        cut = [r.doc for r in results if r.partial]
        undone = [d.id for d in self.bundle.documents if d.id not in listed]
        if code:   # what the stop cut or left undone (or nothing: partial false)
            error = f"{error or 'stopped'} ({stop_note(cut, undone, dropped)})"
        run = {
            "system": {"name": self.system_name or (self.hello.name if self.hello else ""),
                       "version": self.hello.version if self.hello else "",
                       "command": self.command if isinstance(self.command, str)
                       else " ".join(self.command)},
            "oracle": self.oracle.name,
            "mode": self.mode,
            "interactive_ratio": self.ratio,
            "budget": self.budget,
            "seed": self.seed,
            "timeout": self.timeout,
            "startup_timeout": self.startup_timeout,
            "llgui": __version__,
            "started": self.started,
            "ended": _now(),
            "exit": code,
            "partial": bool(cut or undone),
            "error": error,
            "metrics": self.metrics,
            **msr_metric(self.metrics, self._score_metrics, self.bundle.task),
            "documents": [{"doc": r.doc, "mode": r.mode, "budget": r.budget, "steps": r.steps,
                           "cost": r.cost, "scores": r.scores}
                          | ({"partial": True} if r.partial else {})
                          | ({"refused": r.refused} if r.refused else {})
                          for r in results],
        }
        run["cut_short"] = cut   # documents with h0 and steps the stop cut off
        if self.prefix_steps:   # WSR, KSR, MAR, KSMR beside S_pen (llgui.core.mt.ipmt)
            run.update(run_effort(self.bundle, self.prefix_steps, run["documents"]))
        run = _finite(run)
        if self.writer is not None:
            try:
                self.writer.write_run(run)
                self.run_written = True
            except WriteFailed:
                if code == 0:
                    raise   # the run's last write: fail() records what it can
            finally:
                self.writer.close()
        return RunResult(self.out, run, tuple(results), error)

    def _results_so_far(self) -> list[DocumentResult]:
        """Every document with its h0: the ended ones, then the one the run stopped in
        (marked partial), scored as it stood."""
        results = list(self.results)
        state = self._doc_state
        if state is not None and not any(r.doc == state.document.id for r in results):
            try:
                results.append(self._summary(state, partial=True))
            except Exception:   # noqa: BLE001 - a summary must never hide the run's own error
                pass
        return results

    def run(self, progress: Callable[[float], None] | None = None) -> RunResult:
        """Run every document to the end; ProtocolFault / Cancelled propagate after the
        folder is written (exit 3 / 130 in run.json)."""
        n = len(self.bundle.documents)
        try:
            self.start()
            for index in range(n):
                self.begin_document(index)
                while True:
                    record = self.next_step()
                    if record is None:
                        break
                    if progress is not None and record.budget > 0:
                        progress((index + min(1.0, record.cum_cost / record.budget)) / n)
                self.end_document()
                if progress is not None:
                    progress((index + 1) / n)
            return self.finish()
        except BaseException as error:
            _, error = self.fail(error)
            raise error from None
        finally:
            self.close()


def _audio_path(document) -> str | None:
    """The absolute path of a diarization document's recording, when its bundle names one."""
    audio = getattr(document, "audio", None)
    return str(Path(audio).resolve()) if audio else None


class _DocState:
    def __init__(self, document, mode, budget, scores, view):
        self.document, self.mode, self.budget = document, mode, budget
        self.scores, self.view = scores, view
        self.steps, self.done = 0, False
        self.curve: list = []   # (cumulative cost, {metric: S_pen}) after each step
        self.refused: dict | None = None   # the request refused at the end (run.json)
        self.adapted: AdaptedTurns | None = None   # diarization: the adapted lists as turns

    @property
    def cost(self) -> float:
        """The budget spent: the cost of the document's steps so far."""
        return self.scores.cost


def _refusal(reason: str, request: P.Request, cost: float | None,
             left: float | None) -> dict:
    """run.json's record of the request llgui refused (the document's steps ended there)."""
    return {"reason": reason, "kind": request.kind,
            "target": target_to_json(request.target), "cost": cost, "left": left}


class _LazyRefs(dict):
    """doc id -> RefIndex of that document's reference, built on first use (cross-document
    `same` requests)."""

    def __init__(self, bundle: Bundle):
        super().__init__()
        self._docs = {d.id: d for d in bundle.documents}
        self._window = bundle.cost.window

    def get(self, key, default=None):
        if key not in self and key in self._docs:
            self[key] = RefIndex(self._docs[key].reference, self._window)
        return super().get(key, default)


def _finite(value):
    """NaN/inf -> None, so run.json stays strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
