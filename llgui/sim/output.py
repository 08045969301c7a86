"""What a simulation writes into `--out DIR` (DESIGN.md section 8).

    DIR/bundle.toml        the documents (references and audio by absolute path), h0 of each
                           as the hypothesis, the log; loadable by `llgui.io.bundle.load_bundle`
    DIR/hyp/               h0 of every document (MT text, or RTTM)
    DIR/ref/, DIR/src/     an MT document cut from its files by `lines` or `docids`: its
                           references (DOC.1.txt, ...) and source (DOC.txt), cut, so the
                           run's bundle names files exactly as long as its hyp/ file
    DIR/logs/system.jsonl  schema 1, one step a line, flushed as each step completes, with
                           `elapsed_s` (the system's reply time)
    DIR/run.json           system, oracle, budget, seed, llgui version, start, end, exit,
                           per-document steps, cost and scores
    DIR/system.stderr      the system's stderr

`bundle.toml` is rewritten (atomically) whenever a document's h0 arrives, when the first
step is logged and when a document ends, so a run that fails at any moment leaves a folder
that opens. A document whose h0 arrived and whose end never came (the run stopped by a
signal or a failure) carries `partial = true`: it is cut short, and stays marked in the
bundle reopened later (run.json says the same: `"partial": true` in its entry).

`RunWriter` decides what goes where; each file is written by its format's writer in
`llgui.io`, beside the reader that loads it back: `io.text.write_segments`,
`io.rttm.write_rttm`, `io.interactions.step_line`, `io.bundle_writer.write_bundle`.
"""
from __future__ import annotations

import json
import os
import tomllib
from contextlib import contextmanager
from pathlib import Path

from llgui.core.metrics import error_metrics
from llgui.core.types import Bundle, DiarDocument, Step
from llgui.io.bundle_writer import write_bundle
from llgui.io.interactions import TurnTexts, step_line
from llgui.io.rttm import write_rttm
from llgui.io.text import write_segments
from llgui.utils.atomic import write_atomic
from llgui.utils.names import safe_name as _safe_name

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
        if "lines" in table or "docids" in table:
            entry["cut"] = True
        for key in ("references", "source", "uem", "uri", "words", "audio"):
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


def run_name(system: str | None, oracle: str | None) -> str | None:
    """The name of a run's bundle: its system and oracle, "diar_clusters (allies)", as
    `compare` tells runs apart (`llgui.io.run_names`); None without a system name."""
    system = (system or "").strip()
    if not system:
        return None
    return f"{system} ({oracle})" if oracle else system


def safe_name(doc_id: str) -> str:
    """A document id as a file name: injective and inside hyp/ (`llgui.utils.names`)."""
    return _safe_name(doc_id, "doc")


class WriteFailed(Exception):
    """A file of the run folder could not be written (a full disk, a file-size limit, ...):
    the run stops there (exit 2), its log cut back to its last whole step so the folder
    reopens, and run.json says what was done and why it stopped (issue 38.3)."""

    def __init__(self, path: Path, error: OSError):
        self.path, self.error = path, error
        super().__init__(f"cannot write {path} ({error.strerror or type(error).__name__})")


@contextmanager
def _writing(path: Path):
    try:
        yield
    except WriteFailed:
        raise
    except OSError as error:
        raise WriteFailed(path, error) from None


class RunWriter:
    """Writes one run's folder as it happens; a write that fails raises WriteFailed."""

    def __init__(self, out: str | Path, bundle: Bundle, run_name: str | None = None):
        self.out = Path(out)
        self.bundle = bundle
        self.run_name = run_name   # "SYSTEM (ORACLE)": the bundle's name (`run_name`)
        self.tables = source_tables(bundle)
        self.documents: list[tuple[str, str]] = []  # (doc id, hyp file relative to out)
        self.ended: set[str] = set()   # documents whose end_document was sent
        self.steps = 0
        self.log_path = self.out / "logs" / "system.jsonl"
        self._whole = 0   # bytes of the log that hold whole steps
        self._pending: tuple[str, str] | None = None   # h0 being written: (doc id, file)
        with _writing(self.log_path):
            (self.out / "hyp").mkdir(parents=True, exist_ok=True)
            (self.out / "logs").mkdir(parents=True, exist_ok=True)
            self._log = open(self.log_path, "w", encoding="utf-8", newline="\n")
        self._turns_text = TurnTexts()
        self.write_bundle()

    # -- h0 -------------------------------------------------------------------------------------
    def add_hypothesis(self, document, hypothesis) -> Path:
        """Write h0 of `document` (MT lines or diarization turns) into hyp/ and the bundle.
        Returns the file written (the session reads it back, so the run scores what a
        loader sees, to the last bit)."""
        name = safe_name(document.id)
        relative = f"hyp/{name}.rttm" if isinstance(document, DiarDocument) else \
            f"hyp/{name}.txt"
        self._pending = (document.id, relative)   # a stop from here on: `drop_unlisted`
        with _writing(self.out / relative):
            if isinstance(document, DiarDocument):
                write_rttm(self.out / relative, document.uri, hypothesis)
            else:
                write_segments(self.out / relative, hypothesis)
                if self.tables.get(document.id, {}).get("cut"):
                    self._write_cut(document, name)
        self.documents.append((document.id, relative))
        self.write_bundle()
        self._pending = None
        return self.out / relative

    def drop_unlisted(self, listed) -> list[str]:
        """After a stop: remove the files of every document whose h0 was being written or
        read when the run stopped and which run.json does not list (`listed`: the ids it
        lists), so the folder holds no h0 that nothing names; the bundle is rewritten
        without them. Returns the ids dropped (issue: a SIGINT inside `add_hypothesis` left
        hyp/deen-4.txt in neither run.json nor bundle.toml)."""
        listed = set(listed)
        pending = [self._pending] if self._pending is not None else []
        dropped = [(d, r) for d, r in dict.fromkeys(self.documents + pending) if d not in listed]
        if not dropped:
            return []
        for doc_id, relative in dropped:
            name = Path(relative).stem
            files = [self.out / relative, self.out / "src" / f"{name}.txt"]
            if self.tables.get(doc_id, {}).get("cut"):
                files += list((self.out / "ref").glob(f"{name}.*.txt"))
            for path in files:
                try:
                    path.unlink(missing_ok=True)
                except OSError:
                    pass
        gone = {d for d, _ in dropped}
        self.documents = [(d, r) for d, r in self.documents if d not in gone]
        self._pending = None
        try:
            self.write_bundle()
        except WriteFailed:
            pass
        return [d for d, _ in dropped]

    def _write_cut(self, document, name: str) -> None:
        """The references and source of a document cut by `lines`/`docids`, as the loader
        selected them, into ref/ and src/: the run's bundle then names them without a
        selection (its hyp/ file holds the document's lines only)."""
        table = self.tables[document.id]
        refs = []
        for k, reference in enumerate(document.references, 1):
            relative = f"ref/{name}.{k}.txt"
            (self.out / "ref").mkdir(exist_ok=True)
            write_segments(self.out / relative, reference)
            refs.append(relative)
        table["references"] = refs
        if document.source is not None:
            (self.out / "src").mkdir(exist_ok=True)
            write_segments(self.out / f"src/{name}.txt", document.source)
            table["source"] = f"src/{name}.txt"

    def end_document(self, doc_id: str) -> None:
        """The document ran to its end: the bundle stops marking it `partial`."""
        self.ended.add(doc_id)
        self.write_bundle()

    # -- the log --------------------------------------------------------------------------------
    def append_step(self, step: Step, elapsed: float, extra: dict | None = None) -> None:
        """One line of schema 1 plus `elapsed_s` (and `extra`, e.g. a live session's
        `effort`), written and flushed now."""
        rest = dict(extra or {})
        rest["elapsed_s"] = round(float(elapsed), 6)
        line = step_line(step, rest, turns_text=self._turns_text)
        try:
            self._log.write(line + "\n")
            self._log.flush()
        except OSError as error:
            self._cut_log()
            raise WriteFailed(self.log_path, error) from None
        self._whole = self._log.tell()
        self.steps += 1
        if self.steps == 1:
            self.write_bundle()

    # -- bundle.toml and run.json -----------------------------------------------------------
    def write_bundle(self) -> None:
        b = self.bundle
        by_id = {d.id: d for d in b.documents}
        documents = []
        for doc_id, relative in self.documents:
            doc = by_id[doc_id]
            table = self.tables.get(doc_id, {})
            documents.append({"id": doc_id,
                              "time": doc.time.text if doc.time.is_date else doc.time.value,
                              **{k: table[k] for k in ("uri", "references", "source", "uem",
                                                       "words", "audio")
                                 if k in table},
                              "hypothesis": relative,
                              # h0 and fewer steps than it would have had: a run stopped
                              # before its end_document (issue 32); rewritten when it ends
                              **({} if doc_id in self.ended else {"partial": True})})
        with _writing(self.out / "bundle.toml"):
            self._write_bundle(documents)

    def _write_bundle(self, documents: list[dict]) -> None:
        b = self.bundle
        write_bundle(self.out / "bundle.toml",
                     comment="Written by llgui simulate: h0 of every document as the "
                             "hypothesis, the interaction log of the run.",
                     task=b.task,
                     name=self.run_name or (b.name or "bundle") + " (simulated)",
                     metrics=b.metrics, settings=b.settings, cost=b.cost.to_dict(),
                     documents=documents, log="logs/system.jsonl" if self.steps else None)

    def write_run(self, run: dict) -> None:
        with _writing(self.out / "run.json"):
            write_atomic(self.out / "run.json", json.dumps(run, indent=2, ensure_ascii=False,
                                                           allow_nan=False) + "\n")

    def _cut_log(self) -> None:
        """After a failed write: the log closed and cut back to its last whole step (a
        partial line would make the folder unreadable: 'invalid JSON')."""
        try:
            self._log.close()
        except OSError:   # the buffered rest of the line could not be written either
            pass
        try:
            os.truncate(self.log_path, self._whole)
        except OSError:
            pass

    def close(self) -> None:
        try:
            self._log.close()
        except OSError:
            self._cut_log()


def stop_note(cut, undone, dropped=()) -> str:
    """What a stopped run left, for run.json's `error`: the documents cut short, those it
    never ran (with those whose h0 arrived as it stopped and whose file was removed), or
    that every document had ended."""
    if not cut and not undone:
        return "after every document had ended: nothing was cut short or left undone"
    parts = []
    if cut:
        parts.append(f"cut short: {', '.join(cut)}")
    if undone:
        parts.append(f"not run: {', '.join(undone)}")
    if dropped:
        parts.append(f"h0 of {', '.join(dropped)} arrived as it stopped: not kept")
    return "; ".join(parts)


def msr_metric(metrics, scored, task: str) -> dict:
    """run.json's `msr_metric`: the error metric whose counts give the MSR (the first of the
    bundle's metrics that counts errors, else the task's first, TER or DER, which the oracle
    looks through). Its scores stand in every document's entry even when the bundle's
    `metrics` does not name it."""
    errors = [e for e in error_metrics(task) if e in scored]
    if not errors:
        return {}
    return {"msr_metric": next((m for m in errors if m in metrics), errors[0])}
