"""What a simulation writes into `--out DIR` (DESIGN.md section 8).

    DIR/bundle.toml        the documents (references by absolute path), h0 of each as the
                           hypothesis, the log; loadable by `llgui.io.bundle.load_bundle`
    DIR/hyp/               h0 of every document (MT text, or RTTM)
    DIR/logs/system.jsonl  schema 1, one step a line, flushed as each step completes, with
                           `elapsed_s` (the system's reply time)
    DIR/run.json           system, oracle, budget, seed, llgui version, start, end, exit,
                           per-document steps, cost and scores
    DIR/system.stderr      the system's stderr

`bundle.toml` is rewritten (atomically) whenever a document's h0 arrives and when the first
step is logged, so a run that fails at any moment leaves a folder that opens.
"""
from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Sequence

from llgui.utils.atomic import write_atomic
from llgui.core.types import Bundle, DiarDocument, Step, Turn
from llgui.sim.protocol import target_to_json, turns_to_json

TIMING_FIELDS = ("elapsed_s", "started", "ended")
"""The fields that may differ between two runs with the same seed."""


def source_tables(bundle: Bundle) -> dict[str, dict]:
    """Each document's table of the input bundle file, with its paths made absolute."""
    if bundle.path is None:
        raise ValueError("the bundle has no file: simulate needs a bundle.toml")
    path = Path(bundle.path).resolve()
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    base = path.parent
    out = {}
    for table in data.get("documents", []):
        entry = {}
        for key in ("references", "source", "uem", "uri"):
            if key not in table:
                continue
            value = table[key]
            if key == "uri":
                entry[key] = value
            elif isinstance(value, list):
                entry[key] = [str((base / v).resolve()) for v in value]
            else:
                entry[key] = str((base / value).resolve())
        out[str(table.get("id"))] = entry
    return out


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} to TOML")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=True)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def safe_name(doc_id: str) -> str:
    keep = "".join(c if c.isalnum() or c in "-_." else "_" for c in doc_id).lstrip(".")
    return keep or "doc"


def write_turns_rttm(path: Path, uri: str, turns: Sequence[Turn]) -> None:
    lines = [f"SPEAKER {uri} 1 {t.start!r} {t.end - t.start!r} <NA> <NA> {t.speaker} <NA> <NA>"
             for t in turns]
    write_atomic(path, "\n".join(lines) + "\n")


class RunWriter:
    """Writes one run's folder as it happens."""

    def __init__(self, out: str | Path, bundle: Bundle):
        self.out = Path(out)
        self.bundle = bundle
        self.tables = source_tables(bundle)
        self.documents: list[tuple[str, str]] = []  # (doc id, hyp file relative to out)
        self.steps = 0
        (self.out / "hyp").mkdir(parents=True, exist_ok=True)
        (self.out / "logs").mkdir(parents=True, exist_ok=True)
        self.log_path = self.out / "logs" / "system.jsonl"
        self._log = open(self.log_path, "w", encoding="utf-8", newline="\n")
        self._turn_texts: dict[int, str] = {}     # id(turn) -> its JSON text
        self._turns_alive: list = []              # ... and the turns, so ids stay theirs
        self.write_bundle()

    # -- h0 -------------------------------------------------------------------------------------
    def add_hypothesis(self, document, hypothesis) -> Path:
        """Write h0 of `document` (MT lines or diarization turns) into hyp/ and the bundle.
        Returns the file written (the session reads it back, so the run scores what a
        loader sees, to the last bit)."""
        name = safe_name(document.id)
        if isinstance(document, DiarDocument):
            relative = f"hyp/{name}.rttm"
            write_turns_rttm(self.out / relative, document.uri, hypothesis)
        else:
            relative = f"hyp/{name}.txt"
            write_atomic(self.out / relative, "".join(line + "\n" for line in hypothesis))
        self.documents.append((document.id, relative))
        self.write_bundle()
        return self.out / relative

    # -- the log --------------------------------------------------------------------------------
    def append_step(self, step: Step, elapsed: float, extra: dict | None = None) -> None:
        """One line of schema 1 plus `elapsed_s` (and `extra`, e.g. a live session's
        `effort`), written and flushed now."""
        record: dict = {"doc": step.doc, "step": step.step, "initiative": step.initiative,
                        "kind": step.kind, "target": target_to_json(step.target)}
        answer = step.answer
        if step.kind == "boundary" and answer is not None:
            answer = [answer[0], answer[1]]
        record["answer"] = answer
        if step.cost is not None:
            record["cost"] = step.cost
        adapted = step.adapted
        turns = None
        if adapted is not None:
            if adapted.lines is not None:
                record["adapted"] = {"lines": {str(k): v for k, v in sorted(adapted.lines.items())}}
            elif adapted.turns is not None:
                turns = adapted.turns
        rest = dict(extra or {})
        rest["elapsed_s"] = round(float(elapsed), 6)
        if turns is None:
            record.update(rest)
            line = json.dumps(record, ensure_ascii=False, allow_nan=False)
        else:
            # json.dumps of the whole record, with each turn's text made once per run (a
            # show's thousands of turns are mostly the ones of the step before)
            line = (json.dumps(record, ensure_ascii=False, allow_nan=False)[:-1]
                    + ', "adapted": {"turns": [' + self._turns_json(turns)
                    + "]}, " + json.dumps(rest, ensure_ascii=False, allow_nan=False)[1:])
        self._log.write(line + "\n")
        self._log.flush()
        self.steps += 1
        if self.steps == 1:
            self.write_bundle()

    def _turns_json(self, turns) -> str:
        """The items of json.dumps(turns_to_json(turns)), each turn's text made once and kept
        by the turn's identity (the turn is kept alive with it, so an id is never reused)."""
        texts, alive = self._turn_texts, self._turns_alive
        for turn in [t for t in turns if id(t) not in texts]:
            texts[id(turn)] = json.dumps(turns_to_json((turn,))[0], ensure_ascii=False,
                                         allow_nan=False)
            alive.append(turn)
        return ", ".join([texts[i] for i in map(id, turns)])

    # -- bundle.toml and run.json -----------------------------------------------------------
    def write_bundle(self) -> None:
        b = self.bundle
        lines = ["# Written by llgui simulate: h0 of every document as the hypothesis, the "
                 "interaction log of the run.",
                 "[bundle]", f"task = {_toml_value(b.task)}",
                 f"name = {_toml_value((b.name or 'bundle') + ' (simulated)')}",
                 f"metrics = {_toml_value(list(b.metrics))}", ""]
        if b.settings:
            lines.append("[settings]")
            lines += [f"{k} = {_toml_value(v)}" for k, v in b.settings.items()]
            lines.append("")
        lines.append("[cost]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in b.cost.to_dict().items()]
        lines.append("")
        by_id = {d.id: d for d in b.documents}
        for doc_id, relative in self.documents:
            doc = by_id[doc_id]
            table = self.tables.get(doc_id, {})
            lines += ["[[documents]]", f"id = {_toml_value(doc_id)}",
                      f"time = {_toml_value(doc.time.text if doc.time.is_date else doc.time.value)}"]
            for key in ("uri", "references", "source", "uem"):
                if key in table:
                    lines.append(f"{key} = {_toml_value(table[key])}")
            lines += [f"hypothesis = {_toml_value(relative)}", ""]
        if self.steps:
            lines += ["[interactions]", 'log = "logs/system.jsonl"', ""]
        write_atomic(self.out / "bundle.toml", "\n".join(lines))

    def write_run(self, run: dict) -> None:
        write_atomic(self.out / "run.json", json.dumps(run, indent=2, ensure_ascii=False,
                                                       allow_nan=False) + "\n")

    def close(self) -> None:
        try:
            self._log.close()
        except OSError:
            pass
