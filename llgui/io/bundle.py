"""The bundle: one TOML file that names everything of an evaluation, loaded and cross-checked.

Schema: DESIGN.md section 3. Every table and key is checked; an unknown one is an error whose
message lists the known ones (keys may be added to the schema later, but a typo such as
`referenses` must not silently drop the references). Relative paths are resolved against the
bundle's folder, absolute paths are taken as they are.

Where problems are reported:

- a problem of the bundle itself at the bundle's line (`bundle.toml:12: references file
  'ref/x.de' not found`); a TOML syntax error at the line tomllib gives;
- a problem inside a file the bundle names at that file's line, under the path the bundle
  resolved (`<bundle folder>/ref/x.de:7: ...`);
- a problem of the interaction log against the documents (a sentence beyond the last segment,
  a time after the end of the recording, an unknown document) at the log's line.

All of them are collected and raised as one `LoadError`; a `Bundle` is returned only when there
is none, so a caller never holds a half-built one.

Decisions the schema leaves open:

- `[bundle] name` defaults to the bundle file's stem; `metrics` to the task's default metrics
  (`llgui.core.metrics.default_metrics`);
- `[settings]` keeps only the keys given (the libraries' defaults apply to the others); the
  names are sacrebleu's and pyannote's argument names, listed in SETTINGS;
- document `time` is required, and all documents use numbers or all use ISO dates;
- `references` may be a string or an array; MT needs at least one reference, diarization
  exactly one (RTTM or MDTM, chosen by the `.mdtm` extension);
- diarization: the document's `uri` (default: its id) must have turns in the reference file
  (no turn there is an error, since the document would score nothing), and a line in the UEM
  file when one is given; a hypothesis file without that uri gives an empty hypothesis (a
  system may find no speech in one recording), but the hypothesis file as a whole must hold
  turns (an empty output file is far more often a crashed run);
- diarization `audio` (optional, the recording; `llgui.io.audio`): a file that cannot be
  played (missing, not PCM WAV or FLAC, cut short, of another duration than the turns) is a
  warning at its line, never an error: no score depends on it, and the document opens
  without audio;
- a file named by several documents (a shared RTTM or UEM) is read once;
- detection: no `[[documents]]`; `[detection] scores` is required, system names (file stems)
  must differ; all score files are joined to the one `key` when it is given. With an
  `[interactions] log` of `label` steps, each system becomes a document named by its stem
  (`llgui.io.det_log`), and the steps are checked against its trials.

The loader is here; one `[[documents]]` table is checked in `llgui.io.bundle_document`, the
`[settings]` keys and `with_settings` are in `llgui.io.bundle_settings`, `[detection]` and
`[classification]` in `llgui.io.bundle_detection`.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Callable

from llgui.core.cost import CostModel
from llgui.core.errors import LoadError, Problem, Problems
from llgui.core.jobs import check, report
from llgui.core.metrics import WORD_METRICS, default_metrics, metrics_for
from llgui.core.types import MT_KINDS, TASKS, Bundle, DiarDocument, MTDocument
from llgui.io._read import (
    NotRegularFile, check_regular, decode_lines, read_bytes, value_error_reason,
)
from llgui.io._tomlpos import TomlPositions, locate
from llgui.io.bundle_detection import _DetectionTables
from llgui.io.bundle_document import _SHOWN_URIS, _Doc
from llgui.io.bundle_settings import (   # noqa: F401 - also re-exported (io.campaign, tests)
    SACREBLEU_TOKENIZERS, SETTINGS, _article, _check_setting, _show, missing_tokenizer_packages,
    with_settings,
)
from llgui.utils.names import unknown_key

TABLES = ("bundle", "settings", "cost", "documents", "interactions", "lifelong", "detection",
          "classification")
BUNDLE_KEYS = ("task", "name", "metrics")
INTERACTIONS_KEYS = ("log",)
LIFELONG_KEYS = ("scores",)
DETECTION_KEYS = ("scores", "key", "targets", "nontargets", "names")
CLASSIFICATION_KEYS = ("key", "decisions", "classes")


_TOML_POSITION = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)\s*$")


def load_bundle(path: str | Path, progress=None, should_stop=None) -> Bundle:
    """Load a bundle and everything it names; raises LoadError listing every problem.

    `progress(fraction)` is told how far the documents are; `should_stop()` is checked
    between documents (`llgui.core.jobs.Cancelled` is raised when it returns True)."""
    return _Loader(path, progress, should_stop).load()


def check_steps(bundle: Bundle, log_file: str) -> list[Problem]:
    """Problems of `bundle.steps` against `bundle.documents`, at the log's lines.

    Checks that each step's document (and `doc2`) exists, MT sentence numbers and adapted
    lines are within the document's segments (an adapted file has exactly as many lines),
    diarization target and answer times are not after the end of the recording (the end of
    `DiarDocument.extent`: reference, hypothesis and UEM together).
    """
    documents = {d.id: d for d in bundle.documents}
    return _check_steps(bundle.steps, documents, set(), log_file)


def _check_steps(steps, documents: dict, unchecked: set[str], log_file: str) -> list[Problem]:
    """`check_steps`; steps of the documents in `unchecked` (which failed to load) are skipped."""
    problems: list[Problem] = []

    def add(step, reason: str) -> None:
        problems.append(Problem(log_file, step.line, reason))

    known = ", ".join(list(documents)[:_SHOWN_URIS]) + (", ..." if len(documents) > _SHOWN_URIS else "")
    for step in steps:
        if step.doc in unchecked:
            continue
        doc = documents.get(step.doc)
        if doc is None:
            add(step, f"document {step.doc!r} is not in the bundle (documents: {known})")
            continue
        if step.kind in MT_KINDS:
            if not isinstance(doc, MTDocument):
                add(step, f"an MT step on document {step.doc!r}, which is not an MT document")
                continue
            n = doc.n_segments
            if step.target.sentence > n:
                add(step, f"target sentence {step.target.sentence} is beyond the last segment "
                          f"of document {step.doc!r} ({n} segments)")
            adapted = step.adapted
            if adapted is not None and adapted.lines is not None:
                if adapted.path is not None and len(adapted.lines) != n:
                    add(step, f"adapted file {adapted.path!r} has {len(adapted.lines)} lines but "
                              f"document {step.doc!r} has {n} segments")
                elif adapted.path is None:
                    beyond = sorted(k for k in adapted.lines if k > n)
                    if beyond:
                        add(step, f"adapted line {beyond[0]} is beyond the last segment of "
                                  f"document {step.doc!r} ({n} segments)")
            continue
        if not isinstance(doc, DiarDocument):
            add(step, f"a diarization step on document {step.doc!r}, which is not a "
                      f"diarization document")
            continue
        end = doc.extent[1]
        target = step.target

        def late(what: str, seconds: float, of=doc, end=end) -> None:
            if seconds > end:
                add(step, f"{what} {_seconds(seconds)} s is after the end of document "
                          f"{of.id!r} ({_seconds(end)} s)")

        if step.kind == "same":
            late("target t1", target.t1)
            other = doc
            if target.doc2 is not None:
                other = documents.get(target.doc2)
                if other is None:
                    if target.doc2 not in unchecked:
                        add(step, f"target doc2 {target.doc2!r} is not in the bundle "
                                  f"(documents: {known})")
                    continue
                if not isinstance(other, DiarDocument):
                    add(step, f"target doc2 {target.doc2!r} is not a diarization document")
                    continue
            late("target t2", target.t2, other, other.extent[1])
        elif step.kind in ("boundary", "name"):
            late("target t", target.t)
            if step.kind == "boundary":
                late("answer start", step.answer[0])
                late("answer end", step.answer[1])
        else:  # segment
            late("target start", target.start)
            late("target end", target.end)
    return problems


def _seconds(value: float) -> str:
    return f"{value:.10g}"


class _Loader(_DetectionTables):
    tables = TABLES  # the top-level tables this file kind knows (a campaign has others)

    def __init__(self, path: str | Path, progress=None, should_stop=None):
        self.progress, self.should_stop = progress, should_stop
        self.path = path
        self.file = str(path)
        self.base = Path(path).parent
        self.problems = Problems(path, limit=500)
        self.pos = TomlPositions()
        self.cache: dict[tuple, object] = {}
        self.detection_key = None   # the [detection] key: a TrialKey, None, or False (bad)
        self.warnings: list[Problem] = []
        self.collar = 0.0

    # --- reporting ---------------------------------------------------------------------
    def add(self, line: int, reason: str) -> None:
        self.problems.add(line, reason)

    def extend(self, problems) -> None:
        """Add problems of a named file, each once (a file may be read by two loaders, e.g. a
        reference RTTM that a log also names as an adapted hypothesis)."""
        seen = set(self.problems.items)
        self.problems.extend(p for p in problems if p not in seen)

    def key_line(self, table: str, key: str, index: int = 0) -> int:
        return self.pos.key_line((table,), key, index)

    # --- files -------------------------------------------------------------------------
    def resolve(self, value: object, what: str, line: int) -> str | None:
        """The resolved path of a file the bundle names, or None after a problem at `line`."""
        if not isinstance(value, str) or not value.strip():
            self.add(line, f"{what} must be a file name (a non-empty string), not {_show(value)}")
            return None
        resolved = self.base / value
        try:
            check_regular(resolved)
        except FileNotFoundError:
            self.add(line, f"{what} file {value!r} not found")
            return None
        except IsADirectoryError:
            self.add(line, f"{what} file {value!r} is not a file (a directory?)")
            return None
        except NotRegularFile as exc:
            self.add(line, f"{what} file {value!r} {exc}")
            return None
        except (OSError, ValueError):
            self.add(line, f"{what} file {value!r} is not a valid path")
            return None
        return str(resolved)

    def read(self, loader: Callable, resolved: str, *args) -> object | None:
        """`loader(resolved, *args)`, once per file; its problems are collected once."""
        key = (loader.__name__, resolved) + tuple(
            a if isinstance(a, (str, bool, type(None))) else id(a) for a in args)
        if key not in self.cache:
            try:
                self.cache[key] = loader(resolved, *args)
            except LoadError as exc:
                self.extend(exc.problems)
                self.cache[key] = None
        return self.cache[key]

    # --- the whole -----------------------------------------------------------------------
    def load(self) -> Bundle:
        data = self.parse()
        bundle_table = self.table(data, "bundle", required=True)
        task, name, metrics = self.bundle_section(bundle_table)
        settings = self.settings(self.table(data, "settings"), metrics)
        self.collar = float(settings.get("collar", 0.0))  # type: ignore[arg-type]
        cost = self.cost(self.table(data, "cost"))
        documents, unchecked = self.documents(data, task)
        if task == "mt" and "bleu" in metrics:
            self.bleu_tokenizer_note(settings, documents)
        if task == "diarization":
            self.check_word_metrics(metrics, settings, documents, bool(unchecked))
        steps, log_file = self.interactions(self.table(data, "interactions"), task, documents)
        lifelong = self.lifelong(self.table(data, "lifelong"))
        detection = self.detection(self.table(data, "detection"), task)
        if task == "classification":
            documents, steps = self.classification(self.table(data, "classification"), steps,
                                                   log_file)
        elif task == "detection" and steps and log_file is not None:
            documents, steps = self.detection_log(detection, steps, log_file)
        elif steps and log_file is not None:
            by_id = {d.id: d for d in documents}
            self.extend(_check_steps(steps, by_id, unchecked, log_file))
        self.problems.raise_if_any()
        return Bundle(
            path=self.file, task=task, name=name, metrics=metrics, settings=settings, cost=cost,
            documents=tuple(documents), steps=tuple(steps), lifelong=lifelong,
            detection=tuple(detection), warnings=tuple(self.warnings),
            partial=tuple(getattr(self, "partial", ())),
        )

    def bleu_tokenizer_note(self, settings: dict, documents) -> None:
        """Said once, at the line that decides it: BLEU not tokenized as WMT tokenizes this
        Chinese/Japanese/Korean text (`llgui.core.mt.script.bleu_tokenizer_note`)."""
        from llgui.core.mt.script import bleu_tokenizer_note, sample_texts

        note = bleu_tokenizer_note(settings, sample_texts(documents))
        if note:
            key = "tokenize" if "tokenize" in settings else "trg_lang"
            line = self.key_line("settings", key) or self.key_line("bundle", "metrics")
            self.warnings.append(Problem(self.file, line, f"warning: {note}"))

    def parse(self) -> dict:
        from llgui.io._read import MAX_BUNDLE_LINES

        data = read_bytes(self.path, self.problems, max_lines=MAX_BUNDLE_LINES,
                          split="split its documents into several bundles")
        if data is None:
            self.problems.raise_if_any()
        if not data.strip():
            self.add(0, "file is empty")
            self.problems.raise_if_any()
        lines = decode_lines(data, self.problems, strip_bom=True)
        self.problems.raise_if_any()
        # the final newline decode_lines took off is put back: tomllib's messages then name the
        # same line and column as on the file itself
        text = "\n".join(lines) + ("\n" if data.endswith(b"\n") else "")  # type: ignore
        try:
            parsed = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            message = str(exc)
            found = _TOML_POSITION.search(message)
            reason = message[: found.start()] if found else message
            reason = f"not valid TOML: {reason[:1].lower()}{reason[1:]}"
            if found and found.group(1):
                self.add(int(found.group(1)), f"{reason} (column {found.group(2)})")
            else:
                self.add(len(lines), f"{reason} (at the end of the file)")
            self.problems.raise_if_any()
        except RecursionError:
            self.add(0, "not valid TOML: values nested too deeply")
            self.problems.raise_if_any()
        except ValueError as exc:  # tomllib lets some through, e.g. a 5000-digit integer
            self.add(0, f"not valid TOML: {value_error_reason(exc)}")
            self.problems.raise_if_any()
        self.pos = locate(text)
        for key, value in parsed.items():
            if key in self.tables:
                continue
            line = self.pos.key_line((), key)
            if line == 0:
                line = self.pos.table_line((key,))
            if isinstance(value, dict):
                self.add(line, f"unknown table [{key}] (expected: "
                               f"{', '.join(f'[{t}]' for t in self.tables)})")
            else:
                self.add(line, f"key {key!r} is outside any table (keys go in one of: "
                               f"{', '.join(f'[{t}]' for t in self.tables)})")
        return parsed

    def table(self, data: dict, name: str, required: bool = False) -> dict | None:
        """The table `name` (None if absent or not a table), its unknown keys reported."""
        if name not in data:
            if required:
                self.add(0, f"missing table [{name}]")
            return None
        value = data[name]
        if name == "documents":
            return value  # checked by `documents`
        if not isinstance(value, dict):
            self.add(self.pos.key_line((), name), f"{name} must be a table [{name}], "
                                                  f"not {_show(value)}")
            return None
        known = {"bundle": BUNDLE_KEYS, "settings": tuple(SETTINGS), "cost": None,
                 "interactions": INTERACTIONS_KEYS, "lifelong": LIFELONG_KEYS,
                 "detection": DETECTION_KEYS, "classification": CLASSIFICATION_KEYS}[name]
        if known is not None:
            for key in value:
                if key not in known:
                    self.add(self.key_line(name, key),
                             unknown_key(key, f"[{name}]", known))
        return value

    # --- [bundle] --------------------------------------------------------------------------
    def bundle_section(self, table: dict | None) -> tuple[str, str, tuple[str, ...]]:
        name = Path(self.file).stem
        if table is None:
            return "", name, ()
        task = table.get("task")
        if "task" not in table:
            self.add(self.pos.table_line(("bundle",)), f"[bundle] needs task = one of: "
                                                       f"{', '.join(TASKS)}")
            task = ""
        elif task not in TASKS or not isinstance(task, str):
            self.add(self.key_line("bundle", "task"),
                     f"task must be one of: {', '.join(TASKS)}, not {_show(task)}")
            task = ""
        if "name" in table:
            if isinstance(table["name"], str):
                name = table["name"]
            else:
                self.add(self.key_line("bundle", "name"),
                         f"name must be a string, not {_show(table['name'])}")
        metrics: tuple[str, ...] = default_metrics(task)
        if "metrics" in table:
            metrics = self.metrics(table["metrics"], task)
        return task, name, metrics

    def metrics(self, value: object, task: str) -> tuple[str, ...]:
        line = self.key_line("bundle", "metrics")
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            self.add(line, f"metrics must be an array of metric names, not {_show(value)}")
            return ()
        if not value:
            self.add(line, "metrics is empty (leave it out for the default: "
                           f"{', '.join(default_metrics(task))})")
            return ()
        return tuple(self.check_metric_list(value, "bundle", task))

    def check_metric_list(self, value: list, table: str, task: str | None) -> list[str]:
        """The metric names of `table`'s `metrics` array, each checked at its own line
        (a name, known for `task`, listed once); the bundle and campaign loaders share it."""
        names: list[str] = []
        for i, metric in enumerate(value):
            where = self.pos.element_line((table,), "metrics", i)
            if not isinstance(metric, str):
                self.add(where, f"metrics[{i}] must be a metric name, not {_show(metric)}")
            elif task and metric not in metrics_for(task):
                self.add(where, f"unknown metric {metric!r} for task {task} "
                                f"(known: {', '.join(metrics_for(task))})")
            elif metric in names:
                self.add(where, f"metric {metric!r} is listed twice")
            else:
                names.append(metric)
        return names

    def check_word_metrics(self, metrics, settings, documents, some_failed: bool) -> None:
        """tcpWER needs `word_collar`; a word metric needs every document's reference words."""
        line = self.key_line("bundle", "metrics")
        if "tcpwer" in metrics and "word_collar" not in settings:
            self.add(line, "metric tcpwer needs [settings] word_collar (seconds; meeteval "
                           "requires a collar and has no default)")
        words = [m for m in metrics if m in WORD_METRICS]
        if words and not some_failed:
            lacking = [d.id for d in documents if not d.words]
            if lacking:
                self.add(line, f"metric {words[0]} needs reference words (words = \"FILE\") in "
                               f"every document; {len(lacking)} have none (first: "
                               f"{lacking[0]!r})")

    # --- [settings], [cost] ------------------------------------------------------------------
    def settings(self, table: dict | None, metrics: tuple[str, ...] = ()) -> dict[str, object]:
        settings: dict[str, object] = {}
        for key, value in (table or {}).items():
            spec = SETTINGS.get(key)
            if spec is None:
                continue  # reported by `table`
            reason = _check_setting(key, spec, value)
            if reason:
                self.add(self.key_line("settings", key), reason)
            else:
                settings[key] = float(value) if spec.kind == "number" else value
        if settings.get("char_order", 1) == 0 and settings.get("word_order", 0) == 0:
            self.add(self.key_line("settings", "char_order"),
                     "char_order = 0 needs word_order >= 1 (chrF would have no n-grams)")
        if "ter" in metrics:
            from llgui.core.mt.script import ter_script_note

            note = ter_script_note(settings)
            if note:   # sacrebleu's default is kept: said at the line, never changed
                self.warnings.append(Problem(self.file, self.key_line("settings", "trg_lang"),
                                             f"warning: {note}"))
        if "bleu" in metrics:
            missing = missing_tokenizer_packages(settings)
            if missing:
                key = "tokenize" if "tokenize" in settings else "trg_lang"
                tokenizer, packages = missing
                via = "" if key == "tokenize" else f" (sacrebleu's choice for trg_lang = " \
                                                   f"{settings['trg_lang']!r})"
                self.add(self.key_line("settings", key),
                         f"tokenizer {tokenizer!r}{via} needs the Python package(s) "
                         f"{', '.join(packages)}, which are not installed (pip install "
                         f"{' '.join(packages)}; or choose another tokenize)")
        return settings

    def cost(self, table: dict | None) -> CostModel:
        if not table:
            return CostModel()
        bad = False
        for key, value in table.items():
            try:
                CostModel.from_dict({key: value})
            except (TypeError, ValueError) as exc:
                self.add(self.key_line("cost", key), str(exc))
                bad = True
        if bad:
            return CostModel()
        try:
            return CostModel.from_dict(dict(table))
        except (TypeError, ValueError) as exc:
            self.add(self.pos.table_line(("cost",)), str(exc))
            return CostModel()

    # --- [[documents]] -------------------------------------------------------------------------
    def documents(self, data: dict, task: str) -> tuple[list, set[str]]:
        """The documents that loaded, and the ids of those that did not (their steps are not
        cross-checked, so one bad file does not bury its real problems under echoes)."""
        value = data.get("documents")
        task_line = self.key_line("bundle", "task")
        if value is None:
            if task in ("mt", "diarization"):
                self.add(task_line, f"{_article(task)} {task} bundle needs at least one "
                                    f"[[documents]] table")
            return [], set()
        if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
            self.add(self.pos.key_line((), "documents") or self.pos.table_line(("documents",)),
                     "documents must be [[documents]] tables")
            return [], set()
        if task == "classification":
            self.add(self.pos.table_line(("documents",)), "a classification bundle takes no "
                     "[[documents]] (its items are in [classification])")
            return [], set()
        if task == "detection":
            self.add(self.pos.table_line(("documents",)),
                     "a detection bundle takes no [[documents]] (its trials are in [detection])")
            return [], set()
        if task not in ("mt", "diarization"):
            return [], set()
        documents: list = []
        failed: set[str] = set()
        self.partial: list[str] = []   # documents cut short (`partial = true`, issue 32)
        first_id: dict[str, int] = {}
        first_time: tuple[bool, str, int] | None = None
        for index, table in enumerate(value):
            check(self.should_stop)
            if index % 64 == 0:
                report(self.progress, 0.9 * index / len(value))
            doc = _Doc(self, task, index, table)
            doc_id = doc.id()
            if doc_id is not None:
                line = doc.line("id")
                if doc_id in first_id:
                    self.add(line, f"duplicate document id {doc_id!r} (first at line "
                                   f"{first_id[doc_id]})")
                    doc_id = None
                else:
                    first_id[doc_id] = line
            stamp = doc.time()
            if stamp is not None:
                if first_time is None:
                    first_time = (stamp.is_date, doc_id or "?", doc.line("time"))
                elif stamp.is_date != first_time[0]:
                    this, other = (("an ISO date", "a number") if stamp.is_date
                                   else ("a number", "an ISO date"))
                    self.add(doc.line("time"), f"time {_show(table['time'])} is {this}, but "
                                               f"document {first_time[1]!r} (line "
                                               f"{first_time[2]}) has {other} (times must not "
                                               f"mix numbers and dates)")
                    stamp = None
            built = doc.build(doc_id, stamp)
            if "partial" in table:
                if not isinstance(table["partial"], bool):
                    doc.add("partial", "partial must be true or false, not "
                                       f"{_show(table['partial'])}")
                elif table["partial"] and built is not None:
                    self.partial.append(built.id)
            if built is not None:
                documents.append(built)
            elif doc_id is not None:
                failed.add(doc_id)
        return documents, failed

    # --- [interactions], [lifelong], [detection] ------------------------------------------------
    def interactions(self, table: dict | None, task: str, documents: list):
        if table is None or "log" not in table:
            if table is not None:
                self.add(self.pos.table_line(("interactions",)), "[interactions] needs log = "
                                                                 "the interaction log (JSONL)")
            return (), None
        line = self.key_line("interactions", "log")
        resolved = self.resolve(table["log"], "log", line)
        if resolved is None or task not in ("mt", "diarization", "detection", "classification"):
            return (), None
        from llgui.io.interactions import load_log

        uris = {d.id: d.uri for d in documents if isinstance(d, DiarDocument)}
        try:
            return load_log(resolved, task=task, uris=uris), resolved
        except LoadError as exc:
            self.extend(exc.problems)
            return (), None

    def lifelong(self, table: dict | None):
        if table is None:
            return None
        if "scores" not in table:
            self.add(self.pos.table_line(("lifelong",)), "[lifelong] needs scores = the score "
                                                         "table (CSV)")
            return None
        resolved = self.resolve(table["scores"], "scores", self.key_line("lifelong", "scores"))
        if resolved is None:
            return None
        from llgui.io.lifelong import load_lifelong

        return self.read(load_lifelong, resolved)


