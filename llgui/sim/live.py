"""A live session: the expert at the keyboard is the oracle (DESIGN.md section 8, last paragraph).

`LiveSession` is the driver's `Session` with the human in the oracle's place. Each call runs
one exchange with the system and returns; the window calls them on a worker, one at a time:

    live = LiveSession(bundle, command, out, mode="active", budget=20)
    live.start()                              # hello; the first document and its h0
    q = live.question()                       # active: the system's next request (None: the
    rec = live.answer(q, value, effort)       #   document is over); the expert's answer
    rec = live.correct(kind, target, value, effort)   # interactive: a volunteered correction
    live.next_document()                      # end_document; the next one (False: none left)
    live.finish()                             # bye; run.json

Every step goes to `logs/system.jsonl` at once (flushed), with `effort` beside the cost
model's `cost`: `seconds` (question shown to answer sent), `keystrokes`, `word_edits` (MT:
hypothesis shown to text sent). `live.json` holds what a resume needs: the bundle, the system,
mode, budget, seed, how each finished document ended, an answer the system never received.

`pause()` ends the system and leaves the folder resumable; `resume(folder)` restarts the
system and replays the recorded answers to it, checking that it asks and adapts the same way
(`ResumeMismatch` if not). If the system fails, the fault propagates, the steps answered are
on disk, the unsent answer is in live.json, and `switch_system(command)` continues the session
with another system (e.g. `static`) from the hypothesis the expert sees.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from llgui.utils.atomic import write_atomic
from llgui.utils.regular import read_regular
from llgui.core.errors import SystemFailed
from llgui.io._read import LIBRARY_ERRORS, library_reason
from llgui.core.jobs import check
from llgui.core.mt.textdiff import word_edits
from llgui.core.types import MTDocument, SentenceTarget
from llgui.sim import protocol as P
from llgui.sim.driver import (
    STEP_LIMIT_DIAR, STEP_LIMIT_PER_SEGMENT, RunResult, Session, StepRecord, _audio_path,
)
from llgui.sim.oracles import Move, Oracle, step_for
from llgui.sim.process import SystemProcess

LIVE_FILE = "live.json"
COMPARED = ("doc", "step", "initiative", "kind", "target", "answer", "cost", "adapted")
"""The log fields a replayed step must reproduce (the effort is the expert's, copied)."""


class ResumeMismatch(SystemFailed):
    """The restarted system did not ask or adapt as it did before the pause."""


@dataclass(frozen=True)
class Question:
    """A request of the system, as the expert sees it."""

    doc: str
    step: int
    kind: str
    target: object
    shown: object          # MT: the hypothesis line the expert starts from; diar: None


@dataclass(frozen=True)
class Effort:
    """The expert's real effort on one step."""

    seconds: float
    keystrokes: int = 0

    def to_json(self, edits: int | None) -> dict:
        out = {"seconds": round(max(0.0, float(self.seconds)), 3),
               "keystrokes": int(self.keystrokes)}
        if edits is not None:
            out["word_edits"] = int(edits)
        return out


class Human(Oracle):
    """Stands in the driver's oracle slot: the answers come from `answer`/`correct` calls."""

    name = "human"
    default_mode = "active"


def human_move(kind: str, target, value, document) -> Move:
    """The move for the expert's `value`. MT: the typed text; logged as `reference` when it is
    the document's reference, else as the `post_edit` it is (so the scores use what was
    typed). Diarization: `same` bool, `boundary` [start, end], `name` label, `segment` None."""
    if isinstance(document, MTDocument):
        text = " ".join(str(value).split())
        if kind == "reference" and text == document.references[0][target.sentence - 1]:
            return Move("reference", target, text, None)
        return Move(kind, target, text, text, None if kind == "post_edit" else "post_edit")
    if kind == "same":
        return Move("same", target, bool(value), bool(value))
    if kind == "boundary":
        start, end = (float(v) for v in value)
        if not end > start:
            raise ValueError("a boundary needs end > start")
        return Move("boundary", target, [start, end], (start, end))
    if kind == "name":
        label = str(value).strip()
        if not label:
            raise ValueError("a name cannot be empty")
        return Move("name", target, label, label)
    if kind == "segment":
        return Move("segment", target, None, None)
    raise ValueError(f"no answer of kind {kind!r}")


class LiveSession(Session):
    """The driver's session, one exchange per call, with the expert's answers."""

    def __init__(self, bundle, command: str | Sequence[str], out: str | Path, *,
                 mode: str = "active", budget: float | None = None, seed: int = 0,
                 timeout: float = 30.0, system_name: str | None = None,
                 should_stop: Callable[[], bool] | None = None):
        if mode not in ("active", "interactive"):
            raise ValueError("a live session is active or interactive")
        super().__init__(bundle, command, Human(), out, system_name=system_name, mode=mode,
                         budget=budget, seed=seed, timeout=timeout, should_stop=should_stop)
        self.index = -1
        self.pending: P.Request | None = None
        self.waited = 0.0
        self.unsent: dict | None = None     # an answer the system never acknowledged
        self.endings: list[dict] = []       # how each finished document ended
        self.switches: list[dict] = []      # systems taken over after a failure
        self.records: list[StepRecord] = []
        self.finished = False

    # -- the state the window shows ------------------------------------------------------------

    @property
    def document(self):
        return None if self._doc_state is None else self._doc_state.document

    @property
    def hypothesis(self) -> tuple:
        """The hypothesis the expert sees now (MT lines, or turns)."""
        state = self._doc_state
        return () if state is None else tuple(state.view.track.hypothesis)

    @property
    def spent(self) -> tuple[float, float]:
        """(cost spent, budget) of the current document."""
        state = self._doc_state
        return (0.0, 0.0) if state is None else (state.cost, state.budget)

    def scores(self, metric: str | None = None) -> tuple[float, float]:
        """(S_adapt, S_pen) of `metric` (default: the bundle's first) in the current document."""
        metric = metric or self.metrics[0]
        s = self._doc_state.scores
        return s.last[metric].score, s.s_pen[metric]

    # -- documents -----------------------------------------------------------------------------

    def start(self) -> P.SystemHello:
        hello = super().start()
        self._save()
        self.next_document()
        return hello

    def next_document(self, how: str = "done") -> bool:
        """End the open document (refusing a pending request) and open the next; False when
        every document is done."""
        if self._doc_state is not None:
            state = self._doc_state
            if state.mode == "active" and self.pending is None and not state.done:
                self.question()     # the system has already sent its next request (or stop)
            if self.pending is None and state.done and how == "done":
                how = "stop"
            if self.pending is not None:
                self._send(P.Refused("budget"))
                self.pending = None
                how = "refused"
            self.endings.append({"doc": self.doc, "how": how})
            self.end_document()
        self.index += 1
        self._save()
        if self.index >= len(self.bundle.documents):
            return False
        self.begin_document(self.index)
        return True

    # -- steps ---------------------------------------------------------------------------------

    def _room(self) -> bool:
        state = self._doc_state
        if state is None or state.done:
            return False
        limit = (STEP_LIMIT_PER_SEGMENT * state.document.n_segments
                 if isinstance(state.document, MTDocument) else STEP_LIMIT_DIAR)
        if state.steps >= limit:
            state.done = True
        return not state.done

    def question(self) -> Question | None:
        """Active mode: wait for the system's next request; None when it stops."""
        if self.pending is not None:
            return self._question(self.pending)
        if self._doc_state is None or self._doc_state.mode != "active" or not self._room():
            return None
        check(self.should_stop)
        self.step = self._doc_state.steps + 1
        # the driver's turn: quotes answered (priced at the oracle's answer), then a request
        message, self.waited = self._request(self._doc_state)
        if message is None:
            self._doc_state.done = True
            return None
        self.pending = message
        return self._question(message)

    def _question(self, request: P.Request) -> Question:
        shown = None
        if isinstance(request.target, SentenceTarget):
            shown = self.hypothesis[request.target.sentence - 1]
        return Question(self.doc, self._doc_state.steps + 1, request.kind, request.target, shown)

    def answer(self, value, effort: Effort) -> StepRecord | None:
        """The expert's answer to the pending request; None if it does not fit the budget
        (the system is refused and the document ends)."""
        if self.pending is None:
            raise RuntimeError("no question is waiting for an answer")
        request = self.pending
        move = human_move(request.kind, request.target, value, self._doc_state.document)
        state = self._doc_state
        cost = self._cost(move, state)
        if state.cost + cost > state.budget + 1e-9:
            self._send(P.Refused("budget"))
            self.pending = None
            state.done = True
            return None
        self.unsent = {"doc": self.doc, "kind": request.kind, "target":
                       P.target_to_json(request.target), "answer": value,
                       "effort": effort.to_json(None)}
        self._save()
        self._send(P.Answer(move.kind, move.target, move.answer, cost))
        self.pending = None
        return self._complete(move, cost, "active", effort)

    def correct(self, kind: str, target, value, effort: Effort) -> StepRecord | None:
        """Interactive mode: the expert's correction; None if it does not fit the budget."""
        state = self._doc_state
        if state is None or state.mode != "interactive" or not self._room():
            raise RuntimeError("no interactive document is open")
        self.step = state.steps + 1
        self.waited = 0.0
        document = state.document
        self._check_target(document, kind, target)
        move = human_move(kind, target, value, document)
        cost = self._cost(move, state)
        if state.cost + cost > state.budget + 1e-9:
            return None
        self.unsent = {"doc": self.doc, "kind": kind, "target": P.target_to_json(target),
                       "answer": value, "effort": effort.to_json(None)}
        self._save()
        self._send(P.Correction(move.kind, move.target, move.answer, cost))
        return self._complete(move, cost, "interactive", effort)

    def keep_unsent(self, kind: str | None, target, value, effort: Effort) -> None:
        """An answer the expert gave that never reached the session (its exchange was cancelled
        before it was sent): kept in live.json as unsent, as one the system never acknowledged.
        `kind` None: the answer to the pending request."""
        if kind is None and self.pending is not None:
            kind, target = self.pending.kind, self.pending.target
        if kind is None or self.doc is None:
            return
        self.unsent = {"doc": self.doc, "kind": kind, "target": P.target_to_json(target),
                       "answer": value, "effort": effort.to_json(None)}

    def _complete(self, move: Move, cost: float, initiative: str, effort: Effort,
                  expect: dict | None = None) -> StepRecord:
        state, document = self._doc_state, self._doc_state.document
        edits = None
        if isinstance(document, MTDocument):
            edits = word_edits(state.view.track.hypothesis[move.target.sentence - 1],
                               str(move.answer))
        reply, elapsed = self._receive()
        if not isinstance(reply, P.AdaptedReply):
            raise self._fault(f"out of turn: expected adapted, got {reply.type}")
        adapted = self._adapted(document, reply)
        step = step_for(move, document.id, self.step, initiative, cost, adapted)
        extra = {"effort": effort.to_json(edits)}
        if expect is not None:
            _check_same(step, expect, self.writer)
            extra = {"effort": expect.get("effort", extra["effort"])}
        scores = state.scores.add(step, cost)
        state.steps += 1
        if isinstance(move.target, SentenceTarget):
            state.view.corrected_sentences.add(move.target.sentence - 1)
        else:
            state.view.corrected_windows.extend(state.view.track.windows(step))
        self.writer.append_step(step, self.waited + elapsed, extra)
        self.unsent = None
        record = StepRecord(step, self.waited + elapsed, 0.0, scores, state.cost, state.budget)
        self.records.append(record)
        self._save()
        return record

    # -- interactive-predictive MT (protocol 1.2) ----------------------------------------------

    @property
    def speaks_prefix(self) -> bool:
        """Does the system take the prefix interaction (its hello says minor 2 or more)?"""
        from llgui.sim.prefix import PREFIX_MINOR

        return self.hello is not None and (self.hello.minor or 0) >= PREFIX_MINOR

    def prefix(self, sentence: int, prefix: str, typed: str, effort: Effort,
               unit: str = "word") -> StepRecord | None:
        """Interactive mode, a system that `speaks_prefix`: the expert validated `prefix` of
        sentence `sentence` (1-based) and typed `typed` after it ("" accepts the sentence,
        which is then `prefix`); the system's completion makes the new sentence. None if the
        step does not fit the budget."""
        from llgui.core.mt.ipmt import PrefixAnswer
        from llgui.sim.prefix import prefix_message, step_limit

        state = self._doc_state
        if state is None or state.mode != "interactive" or state.done:
            raise RuntimeError("no interactive document is open")
        if not self.speaks_prefix:
            raise RuntimeError("the system does not take the prefix interaction (protocol 1.2)")
        document = state.document
        if state.steps >= step_limit(document, unit):
            state.done = True
            return None
        self.step = state.steps + 1
        self.waited = 0.0
        target = SentenceTarget(sentence)
        self._check_target(document, "prefix", target)
        answer = PrefixAnswer(prefix, typed, unit)
        move = Move("prefix", target, answer, answer)
        cost = self._cost(move, state)
        if state.cost + cost > state.budget + 1e-9:
            return None
        sent = prefix_message(move, cost, max(0.0, state.budget - state.cost - cost))
        self._send(sent)
        reply, elapsed = self._receive("completion (the rest of the sentence)")
        adapted = self._completed(document, sent, reply)
        step = step_for(move, document.id, self.step, "interactive", cost, adapted)
        scores = state.scores.add(step, cost)
        state.steps += 1
        self.prefix_steps.append(step)
        self.writer.append_step(step, elapsed, {"effort": effort.to_json(None)})
        record = StepRecord(step, elapsed, 0.0, scores, state.cost, state.budget)
        self.records.append(record)
        self._save()
        return record

    # -- the end, pause, failure ---------------------------------------------------------------

    def finish(self) -> RunResult:
        while self.index < len(self.bundle.documents):
            self.next_document()
        self.finished = True
        self._save()
        return super().finish()

    def pause(self) -> None:
        """End the system now; the folder (log, live.json) is what `resume` needs."""
        self._save()
        self.close()

    def switch_system(self, command: str | Sequence[str], name: str | None = None) -> None:
        """After a failure: start `command` and go on from the hypothesis the expert sees (the
        new system gets the open document and its h0 is not used; the log keeps every step)."""
        if self.process is not None:
            self.process.kill()
        self.switches.append({"doc": self.doc, "step": self.step, "command": _text(command),
                              "name": name})
        self.command, self.system_name = command, name or self.system_name
        self.pending = None
        # the failed system's stderr stays in system.stderr; each successor gets its own
        stderr = self.out / f"system.{len(self.switches)}.stderr"
        self.process = SystemProcess(command, stderr, cwd=self.cwd)
        self._send(P.Hello(self.bundle.task, self.seed))
        message, _ = self._receive()
        if not isinstance(message, P.SystemHello):
            raise self._fault(f"expected hello, got {message.type}")
        self.hello = message
        state = self._doc_state
        if state is not None:
            document = self.bundle.documents[self.index]
            is_mt = isinstance(document, MTDocument)
            self._send(P.DocumentStart(
                doc=document.id, time=document.time.text if document.time.is_date
                else document.time.value, mode=state.mode, budget=state.budget,
                source=document.source if is_mt else None,
                hypothesis=tuple(document.hypothesis) if document.hypothesis else None,
                uem=None if is_mt else document.uem, audio=_audio_path(document),
                step=state.steps))
            message, _ = self._receive()
            if not isinstance(message, P.Hypothesis):
                raise self._fault(f"expected the hypothesis of the document, got {message.type}")
        self._save()

    def _save(self) -> None:
        data = {"bundle": str(Path(self.bundle.path).resolve()), "command": _text(self.command),
                "system_name": self.system_name, "mode": self.mode, "budget": self.budget,
                "seed": self.seed, "timeout": self.timeout, "index": self.index,
                "endings": self.endings, "switches": self.switches, "unsent": self.unsent,
                "finished": self.finished}
        write_atomic(self.out / LIVE_FILE, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _text(command) -> str:
    import shlex

    return command if isinstance(command, str) else shlex.join(command)


def _record_json(step, writer) -> dict:
    """The log line `writer` would write for `step` (without timing and effort)."""
    import io

    buffer = io.StringIO()
    saved, writer._log = writer._log, buffer
    saved_steps = writer.steps
    try:
        writer.append_step(step, 0.0)
    finally:
        writer._log, writer.steps = saved, saved_steps
    return json.loads(buffer.getvalue())


def _check_same(step, expect: dict, writer) -> None:
    got = _record_json(step, writer)
    for key in COMPARED:
        if got.get(key) != expect.get(key):
            raise ResumeMismatch(f"resume: the system differs from the recorded session at "
                                 f"document {step.doc!r} step {step.step}: {key} "
                                 f"{json.dumps(got.get(key))[:80]} was "
                                 f"{json.dumps(expect.get(key))[:80]}")


MAX_STATE_BYTES = 10 << 20
"""live.json is a few hundred bytes; anything past 10 MB is not one."""


def _read_json_file(path: Path, limit: int) -> str:
    """The text of a session file: a regular file of bounded size only (a FIFO would block,
    a symlink to /dev/zero fill the memory); ValueError with the reason."""
    try:
        data = read_regular(path, limit)
    except FileNotFoundError:
        raise ValueError(f"{path}: file not found") from None
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8") from None


def read_log(folder: str | Path) -> list[dict]:
    path = Path(folder) / "logs" / "system.jsonl"
    if not os.path.lexists(path):
        return []
    records = []
    for number, line in enumerate(_read_json_file(path, 1 << 30).split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except LIBRARY_ERRORS as exc:   # RecursionError too: a line nested 10**5 deep
            raise ValueError(f"{path}:{number}: not a log line ({library_reason(exc)})"
                             ) from None
        if not isinstance(record, dict) or not isinstance(record.get("doc"), str):
            raise ValueError(f"{path}:{number}: not a log line (no document id)")
        records.append(record)
    return records


def read_state(folder: Path) -> dict:
    """live.json of a paused session, checked: ValueError naming the file and what is wrong."""
    from llgui.core.numbers import check_number

    path = folder / LIVE_FILE
    try:
        state = json.loads(_read_json_file(path, MAX_STATE_BYTES),
                           parse_constant=lambda name: float("nan"))
    except LIBRARY_ERRORS as exc:
        raise ValueError(f"{path}: not a live-session file ({library_reason(exc)})"[:300]
                         ) from None
    if not isinstance(state, dict):
        raise ValueError(f"{path}: not a live-session file (a JSON object is expected)")
    for key in ("bundle", "command", "mode", "seed", "timeout", "index"):
        if key not in state:
            raise ValueError(f"{path}: not a live-session file (no {key!r})")
    for key in ("bundle", "command"):
        if not isinstance(state[key], str) or not state[key].strip():
            raise ValueError(f"{path}: {key} must be a non-empty string")
    if state["mode"] not in ("active", "interactive"):
        raise ValueError(f"{path}: mode must be active or interactive")
    if state.get("system_name") is not None and not isinstance(state["system_name"], str):
        raise ValueError(f"{path}: system_name must be a string")
    try:
        if state.get("budget") is not None:
            state["budget"] = check_number(state["budget"], "budget", minimum=0, maximum=1e15)
        state["seed"] = check_number(state["seed"], "seed", minimum=0, maximum=2 ** 32 - 1,
                                     integer=True)
        state["timeout"] = check_number(state["timeout"], "timeout", above=0,
                                        maximum=7 * 24 * 3600.0)
        state["index"] = check_number(state["index"], "index", minimum=-1, maximum=10 ** 9,
                                      integer=True)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return state


def _snapshot(folder: Path) -> dict[Path, bytes]:
    """Every regular file of a session folder (bundle.toml, live.json, the log, stderr, hyp/)
    with its bytes, to put back if a resume fails."""
    saved = {}
    for path in folder.rglob("*"):
        try:
            if path.is_file() and not path.is_symlink():
                saved[path] = read_regular(path)
        except OSError:
            continue
    return saved


def _restore(folder: Path, saved: dict[Path, bytes]) -> None:
    """The folder as `_snapshot` saw it: files rewritten, files created since removed."""
    for path in folder.rglob("*"):
        try:
            if path not in saved and path.is_file() and not path.is_symlink():
                path.unlink()
        except OSError:
            pass
    for path, data in saved.items():
        try:
            if not path.exists() or path.read_bytes() != data:
                write_atomic(path, data)
        except OSError:
            pass


def resume(folder: str | Path, command: str | Sequence[str] | None = None,
           progress: Callable[[float], None] | None = None,
           should_stop: Callable[[], bool] | None = None) -> LiveSession:
    """Restart the system of the paused session in `folder` (or `command`) and replay the
    expert's recorded answers to it; the session stands where the expert stopped. If the
    replay fails, the folder is put back as it was (nothing the expert did is lost)."""
    from llgui.io.bundle import load_bundle

    folder = Path(folder)
    state = read_state(folder)
    if state.get("finished"):
        raise ValueError(f"{folder}: the session is finished")
    if state.get("switches"):
        raise ValueError(f"{folder}: the session went on with another system after a failure;"
                         " it cannot be replayed to one system")
    records = read_log(folder)
    bundle = load_bundle(state["bundle"])
    # everything from here may write into the folder (the run writer rewrites bundle.toml and
    # the log, the system's stderr is opened anew): a failure puts every file back
    saved = _snapshot(folder)
    live = None
    try:
        live = LiveSession(bundle, command or state["command"], folder, mode=state["mode"],
                           budget=state.get("budget"), seed=state["seed"],
                           timeout=state["timeout"], system_name=state.get("system_name"),
                           should_stop=should_stop)
        by_doc: dict[str, list[dict]] = {}
        for record in records:
            by_doc.setdefault(record["doc"], []).append(record)
        target_index = min(int(state["index"]), len(bundle.documents))
        live.start()
        done = 0
        while live.index < len(bundle.documents):
            for record in by_doc.get(live.doc, []):
                _replay_one(live, record)
                done += 1
                if progress is not None:
                    progress(done / max(1, len(records)))
            if live.index >= target_index:
                break
            live.next_document()
    except BaseException:
        if live is not None:
            live.close()
        _restore(folder, saved)
        raise
    live.unsent = state.get("unsent")
    live._save()
    return live


def _replay_one(live: LiveSession, record: dict) -> None:
    check(live.should_stop)
    effort = Effort(**{k: v for k, v in (record.get("effort") or {"seconds": 0.0}).items()
                       if k in ("seconds", "keystrokes")})
    kind = record["kind"]
    target = P.parse_target(kind, record["target"])
    value = record["answer"]
    if kind in ("reference", "post_edit") and value is None:
        value = live.document.references[0][target.sentence - 1]
    state = live._doc_state
    if kind == "prefix":   # interactive-predictive MT: the same prefix, the same completion
        answer = value if isinstance(value, dict) else {}
        made = live.prefix(target.sentence, str(answer.get("prefix", "")),
                           str(answer.get("typed", "")), effort, str(answer.get("unit", "word")))
        got = None if made is None or made.step.adapted is None else {
            str(k): v for k, v in made.step.adapted.lines.items()}
        if got != (record.get("adapted") or {}).get("lines"):
            raise ResumeMismatch(f"resume: the system differs from the recorded session at "
                                 f"document {record['doc']!r} step {record['step']}: its "
                                 "completion is not the one recorded")
        return
    if record["initiative"] == "active":
        question = live.question()
        want = "reference" if kind in ("reference", "post_edit") else kind
        if question is None or question.kind != want or question.target != target:
            asked = (f"{question.kind} {json.dumps(P.target_to_json(question.target))}"
                     if question else "nothing")
            raise ResumeMismatch(f"resume: in document {record['doc']!r} step {record['step']} "
                                 f"the system asks {asked}, not {want} "
                                 f"{json.dumps(record['target'])}")
        move = human_move(question.kind, question.target, value, state.document)
        cost = live._cost(move, state)
        live._send(P.Answer(move.kind, move.target, move.answer, cost))
        live.pending = None
        live._complete(move, cost, "active", effort, expect=record)
    else:
        live.step = state.steps + 1
        live.waited = 0.0
        move = human_move(kind, target, value, state.document)
        cost = live._cost(move, state)
        live._send(P.Correction(move.kind, move.target, move.answer, cost))
        live._complete(move, cost, "interactive", effort, expect=record)
