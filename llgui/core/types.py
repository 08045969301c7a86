"""Core value types: documents, turns, interaction steps, score tables, trials, the bundle.

Everything here is a frozen dataclass of tuples (or read-only numpy arrays), so a loaded bundle
can be handed to worker threads without copies or locks, and a failed load never leaves a
half-built object behind. Units:

- diarization times (turns, UEM, step targets) are seconds from the start of the recording;
- document, model and test times are `Stamp`s: POSIX seconds (UTC) when the file gave an ISO
  date or datetime, otherwise the number as written;
- MT segments are numbered from 1, as the lines of the text files they come from.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from datetime import date, datetime, timezone
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping, Union

from llgui.core.cost import CostModel
from llgui.core.numbers import check_number, parse_number, show_value

if TYPE_CHECKING:   # numpy is imported where an array is made: a system process that only
    import numpy as np   # speaks the protocol (llgui.sim.protocol) starts without it (0.1 s)

TASKS = ("mt", "diarization", "detection", "classification")
INITIATIVES = ("active", "interactive")
MT_KINDS = ("reference", "post_edit", "prefix")
"""`prefix`: interactive-predictive MT, one validated prefix and typed word (llgui.core.mt.ipmt)."""
DIAR_KINDS = ("same", "boundary", "name", "segment")
LABEL_KINDS = ("label",)
"""Detection and classification kinds: the true label of some items (DESIGN.md 1.8)."""
STEP_KINDS = MT_KINDS + DIAR_KINDS + LABEL_KINDS


# --------------------------------------------------------------------------------------------
# Time stamps


MAX_TIME = 1e12
"""Bound on a time written as a number (POSIX seconds are about 1.8e9 today): differences of
times must stay finite in every policy and plot."""


@dataclass(frozen=True, order=True)
class Stamp:
    """A point in time as the user wrote it.

    `value` orders and measures: POSIX seconds (UTC; naive datetimes are taken as UTC) for ISO
    dates and datetimes, the number itself otherwise. `text` is kept for display and export.
    """

    value: float
    text: str = field(compare=False)
    is_date: bool = field(default=False, compare=False)

    @classmethod
    def parse(cls, raw: object) -> "Stamp":
        """Parse a number or an ISO 8601 date/datetime; raise ValueError with a reason."""
        if isinstance(raw, bool):
            raise ValueError(f"time must be a number or an ISO date, not {raw!r}")
        if isinstance(raw, (int, float)):
            value = check_number(raw, "time", minimum=-MAX_TIME, maximum=MAX_TIME)
            return cls(value, _number_text(value), False)
        if isinstance(raw, datetime):
            return cls(_posix(raw), raw.isoformat(), True)
        if isinstance(raw, date):
            return cls(_posix(datetime(raw.year, raw.month, raw.day)), raw.isoformat(), True)
        if not isinstance(raw, str):
            raise ValueError(f"time must be a number or an ISO date, not {type(raw).__name__}")
        text = raw.strip()
        if not text:
            raise ValueError("time is empty")
        try:
            number = parse_number(text)
        except ValueError as exc:
            if str(exc) != "is not a number":   # a number written wrongly, not a date
                raise ValueError(f"time {show_value(text)} {exc}") from None
        else:
            check_number(number, "time", minimum=-MAX_TIME, maximum=MAX_TIME)
            return cls(number, text, False)
        try:
            if len(text) == 10:
                d = date.fromisoformat(text)
                moment = datetime(d.year, d.month, d.day)
            else:
                moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(
                f"time {text!r} is neither a number nor an ISO date (YYYY-MM-DD[THH:MM:SS])"
            ) from None
        return cls(_posix(moment), text, True)

    def __str__(self) -> str:
        return self.text


def _posix(moment: datetime) -> float:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def _number_text(value: int | float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# --------------------------------------------------------------------------------------------
# Documents


@dataclass(frozen=True)
class MTDocument:
    """One MT document: a hypothesis and one or more references, segment-aligned.

    `references` follows sacrebleu's layout: one tuple per reference stream, each holding one
    string per segment, so `references[r][i]` is reference r of segment i (0-based here).
    """

    id: str
    time: Stamp
    hypothesis: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    source: tuple[str, ...] | None = None
    task = "mt"

    @property
    def n_segments(self) -> int:
        return len(self.hypothesis)

    def segment_references(self, index: int) -> tuple[str, ...]:
        """All references of segment `index` (0-based)."""
        return tuple(stream[index] for stream in self.references)


@dataclass(frozen=True, order=True)
class Turn:
    """A speaker turn: [start, end) in seconds, with the speaker's label."""

    start: float
    end: float
    speaker: str

    @property
    def duration(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class Audio:
    """The recording of a diarization document, as its header describes it (never the
    samples: `llgui.io.audio` reads a region when it is played). `path` is resolved;
    `sample_width` is in bytes (PCM); `frames` counts samples per channel. It is os.PathLike
    (its path)."""

    path: str
    format: str
    rate: int
    channels: int
    sample_width: int
    frames: int

    @property
    def duration(self) -> float:
        return self.frames / self.rate if self.rate > 0 else 0.0

    def __fspath__(self) -> str:
        """A path-like: `Path(document.audio)`, `open(document.audio)` (a simulated system is
        sent this path)."""
        return self.path


@dataclass(frozen=True)
class Word:
    """A word of a meeting transcript: [start, end] in seconds, its text and its speaker
    (None: a hypothesis word no speaker was given, which the hypothesis does not contain).
    `order` sorts words the way meeteval concatenates them: (segment start, segment number
    in the file, word number in the segment)."""

    start: float
    end: float
    word: str
    speaker: str | None
    order: tuple[float, int, int] | None = None
    """Default: (start, 0, 0)."""

    def __post_init__(self) -> None:
        if self.order is None:
            object.__setattr__(self, "order", (self.start, 0, 0))

    @property
    def midpoint(self) -> float:
        return 0.5 * (self.start + self.end)


@dataclass(frozen=True)
class DiarDocument:
    """One diarization document (a recording): reference and hypothesis turns, optional UEM.

    `uri` is the file field of the RTTM/UEM lines it came from. `uem` is the scored extent as
    sorted, non-overlapping (start, end) pairs in seconds, or None for "not given". `audio`
    is the recording's path, or None.
    """

    id: str
    time: Stamp
    uri: str
    reference: tuple[Turn, ...]
    hypothesis: tuple[Turn, ...]
    uem: tuple[tuple[float, float], ...] | None = None
    words: tuple[Word, ...] | None = None
    """The reference words (with speakers and times), for cpWER, tcpWER and WDER."""
    hypothesis_words: tuple[Word, ...] | None = None
    """The hypothesis words when given; else the reference words take the hypothesis'
    speaker labels (`llgui.core.diarization.words.attribute`)."""
    audio: Audio | None = None
    """The recording (`audio = "file"` in the bundle), None when not given or not usable."""
    task = "diarization"

    @cached_property
    def extent(self) -> tuple[float, float]:
        """(start, end) of everything known about the recording, in seconds (computed once:
        loaders and every step's windows ask for it)."""
        spans = [(t.start, t.end) for t in self.reference + self.hypothesis]
        if self.uem:
            spans += list(self.uem)
        if not spans:
            return (0.0, 0.0)
        return (min(s for s, _ in spans), max(e for _, e in spans))


Document = Union[MTDocument, DiarDocument, "DetDocument", "ClassDocument"]


# --------------------------------------------------------------------------------------------
# Interaction log


@dataclass(frozen=True)
class SentenceTarget:
    """MT: the segment a step corrects, numbered from 1 (its line in the text files)."""

    sentence: int


@dataclass(frozen=True)
class SameTarget:
    """Diarization `same`: are the speakers at t1 and t2 (in `doc2` when given) the same?"""

    t1: float
    t2: float
    doc2: str | None = None


@dataclass(frozen=True)
class PointTarget:
    """Diarization `boundary` and `name`: a point in time, seconds."""

    t: float


@dataclass(frozen=True)
class SpanTarget:
    """Diarization `segment`: a time span, seconds."""

    start: float
    end: float


@dataclass(frozen=True)
class ItemsTarget:
    """Detection / classification `label`: the items (trial or item ids) a step labels."""

    items: tuple[str, ...]


Target = Union[SentenceTarget, SameTarget, PointTarget, SpanTarget, ItemsTarget]


@dataclass(frozen=True)
class Adapted:
    """The system's hypothesis after a step, resolved by the loader.

    MT: `lines` maps 1-based segment numbers to their new text (only the changed ones for a
    `{"lines": ...}` delta, every segment for a `{"path": ...}` file). Diarization: `turns` is
    the complete new turn list of the document. Detection: `scores` maps item ids to their new
    scores (only the changed ones inline; every item when read from a score file `path`).
    Classification: `labels` maps item ids to the system's new decisions (class names).
    `path` names the file it came from, if any.
    """

    lines: Mapping[int, str] | None = None
    turns: tuple[Turn, ...] | None = None
    path: str | None = None
    scores: Mapping[str, float] | None = None
    labels: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        for name in ("lines", "scores", "labels"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(value)))


@dataclass(frozen=True)
class Step:
    """One interaction step of the log (schema version 1).

    `answer` is: the post-edited text (MT `post_edit`), None (MT `reference`: the reference is
    the answer), a bool (`same`), a (start, end) pair in seconds (`boundary`), a speaker label
    (`name`), None (`segment`), or one label per item (`label`: a tuple of str; detection
    labels are "target" / "nontarget"). `cost` None means the cost model decides. `adapted` None
    means the hypothesis did not change. `line` is the step's line in the log, for messages.
    """

    doc: str
    step: int
    initiative: str
    kind: str
    target: Target
    answer: object = None
    cost: float | None = None
    adapted: Adapted | None = None
    line: int = field(default=0, compare=False)


# --------------------------------------------------------------------------------------------
# Across time


@dataclass(frozen=True, eq=False)
class LifelongScores:
    """Scores s(M_i, t_j) of model versions on time-stamped tests, for one or more metrics.

    Models and tests are sorted by time. `values[metric]` is a read-only float array of shape
    (n_models, n_tests) with NaN where the table has no row; `values_pen[metric]` likewise for
    the penalised scores, or absent when the table gives none.
    """

    models: tuple[str, ...]
    model_times: tuple[Stamp, ...]
    tests: tuple[str, ...]
    test_times: tuple[Stamp, ...]
    metrics: tuple[str, ...]
    values: Mapping[str, np.ndarray]
    values_pen: Mapping[str, np.ndarray] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        import numpy as np

        for name in ("values", "values_pen"):
            table = {k: _readonly(np.asarray(v, dtype=float)) for k, v in getattr(self, name).items()}
            for metric, array in table.items():
                if array.shape != (len(self.models), len(self.tests)):
                    raise ValueError(f"{name}[{metric!r}] has shape {array.shape}")
            object.__setattr__(self, name, MappingProxyType(table))

    def model_time_values(self) -> np.ndarray:
        import numpy as np

        return np.array([s.value for s in self.model_times], dtype=float)

    def test_time_values(self) -> np.ndarray:
        import numpy as np

        return np.array([s.value for s in self.test_times], dtype=float)


# --------------------------------------------------------------------------------------------
# Detection


@dataclass(frozen=True, eq=False)
class Trials:
    """Detection trials of one system: scores (higher means "target") and their true labels."""

    name: str
    scores: np.ndarray
    is_target: np.ndarray
    path: str | None = None
    key_index: np.ndarray | None = None
    """With a trial key: each trial's position in the key (pairs systems trial by trial)."""
    groups: np.ndarray | None = None
    """With a trial key: an integer code of each trial's enrolment (the speaker unit of a
    two-layer bootstrap); equal codes, same enrolment, within one key."""

    def __post_init__(self) -> None:
        import numpy as np

        scores = _readonly(np.asarray(self.scores, dtype=np.float64))
        labels = _readonly(np.asarray(self.is_target, dtype=bool))
        if scores.shape != labels.shape or scores.ndim != 1:
            raise ValueError("scores and is_target must be 1-D arrays of the same length")
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "is_target", labels)
        for name in ("key_index", "groups"):
            value = getattr(self, name)
            if value is not None:
                value = _readonly(np.asarray(value, dtype=np.int64))
                if value.shape != scores.shape:
                    raise ValueError(f"{name} must have one entry per trial")
                object.__setattr__(self, name, value)

    @property
    def n_target(self) -> int:
        return int(self.is_target.sum())

    @property
    def n_nontarget(self) -> int:
        return int(self.is_target.size - self.is_target.sum())


@dataclass(frozen=True, eq=False)
class DetDocument:
    """One detection system's trials as a document of an interaction log (DESIGN.md 1.8).

    The log's `doc` is the system's name (its score file's stem). `items[i]` is the id of
    trial i of `trials`: "enroll test" (the two key fields, one space) with a key, the 1-based
    trial number ("1", "2", ...) of a `score label` file without one.
    """

    id: str
    time: Stamp
    trials: Trials
    items: tuple[str, ...]
    task = "detection"
    labels = ("target", "nontarget")

    def __post_init__(self) -> None:
        if len(self.items) != self.trials.scores.size:
            raise ValueError("one item id per trial")

    @property
    def index(self) -> Mapping[str, int]:
        """Item id -> position in `trials` (built on first use, then kept)."""
        found = self.__dict__.get("_index")
        if found is None:
            found = MappingProxyType({item: i for i, item in enumerate(self.items)})
            object.__setattr__(self, "_index", found)
        return found


@dataclass(frozen=True, eq=False)
class ClassDocument:
    """One classification system's decisions as a document of an interaction log.

    `items` are the item ids (the key's order), `truth` their true classes, `decisions` the
    system's first decisions h_0, `classes` the task's classes in order (N >= 2).
    """

    id: str
    time: Stamp
    items: tuple[str, ...]
    truth: tuple[str, ...]
    decisions: tuple[str, ...]
    classes: tuple[str, ...]
    task = "classification"

    def __post_init__(self) -> None:
        if not len(self.items) == len(self.truth) == len(self.decisions):
            raise ValueError("one true class and one decision per item")
        known = set(self.classes)
        if len(known) != len(self.classes) or len(known) < 2:
            raise ValueError("classes must be at least two distinct names")
        if not known.issuperset(self.truth) or not known.issuperset(self.decisions):
            raise ValueError("every true class and decision must be one of the classes")

    @property
    def index(self) -> Mapping[str, int]:
        """Item id -> position (built on first use, then kept)."""
        found = self.__dict__.get("_index")
        if found is None:
            found = MappingProxyType({item: i for i, item in enumerate(self.items)})
            object.__setattr__(self, "_index", found)
        return found

    @property
    def n_wrong(self) -> int:
        """Items whose first decision is not their true class."""
        return sum(1 for t, d in zip(self.truth, self.decisions) if t != d)


# --------------------------------------------------------------------------------------------
# The bundle


@dataclass(frozen=True, eq=False)
class Bundle:
    """Everything one bundle file names, loaded and checked.

    `settings` holds metric options under sacrebleu's and pyannote's names (collar,
    skip_overlap, tokenize, ...). `steps` is the interaction log in processing order.
    """

    path: str | None
    task: str
    name: str
    metrics: tuple[str, ...]
    settings: Mapping[str, object]
    cost: CostModel
    documents: tuple[Document, ...]
    steps: tuple[Step, ...] = ()
    lifelong: LifelongScores | None = None
    detection: tuple[Trials, ...] = ()
    warnings: tuple = ()
    """`Problem`s that do not stop the load but make a number meaningless (e.g. a document
    whose UEM misses all speech: nothing of it is scored). Shown, never silently dropped."""
    partial: tuple[str, ...] = ()
    """Ids of documents cut short: a run stopped (signal, failure) after their h0 and before
    their last step (`partial = true` in the bundle file, as `llgui simulate` writes it).
    Their scores are shown, marked; means leave them out unless asked (`core.partial`)."""

    def __post_init__(self) -> None:
        if not isinstance(self.settings, MappingProxyType):
            object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))

    def __repr__(self) -> str:
        """One line (the generated repr would print every segment and turn)."""
        parts = [f"task={self.task!r}", f"name={self.name!r}",
                 f"{len(self.documents)} documents", f"metrics={list(self.metrics)}"]
        if self.steps:
            parts.append(f"{len(self.steps)} steps")
        if self.detection:
            parts.append(f"{len(self.detection)} detection systems")
        if self.lifelong is not None:
            parts.append("a lifelong score table")
        if self.settings:
            parts.append(f"settings={dict(self.settings)}")
        return f"Bundle({', '.join(parts)})"

    def _repr_html_(self) -> str:
        """A notebook's view: the summary line and the documents, first ten."""
        from html import escape

        rows = "".join(f"<tr><td>{escape(d.id)}</td><td>{escape(d.time.text)}</td>"
                       f"<td>{len(self.steps_of(d.id))}</td></tr>"
                       for d in self.documents[:10])
        more = (f"<tr><td colspan='3'>... {len(self.documents) - 10} more</td></tr>"
                if len(self.documents) > 10 else "")
        table = (f"<table><tr><th>document</th><th>time</th><th>steps</th></tr>{rows}{more}"
                 "</table>" if self.documents else "")
        return f"<p><code>{escape(repr(self))}</code></p>{table}"

    def document(self, doc_id: str) -> Document:
        at = self._positions.get(doc_id)
        if at is None:
            raise KeyError(doc_id)
        return self.documents[at]

    def steps_of(self, doc_id: str) -> tuple[Step, ...]:
        """The steps of one document, in log order (indexed once: O(1) per call after)."""
        return self._steps_by_doc.get(doc_id, ())

    @cached_property
    def _steps_by_doc(self) -> Mapping[str, tuple[Step, ...]]:
        index: dict[str, list[Step]] = {}
        for step in self.steps:
            index.setdefault(step.doc, []).append(step)
        return {doc: tuple(steps) for doc, steps in index.items()}

    def position(self, doc_id: str) -> int:
        """0-based position of a document in processing order, -1 if absent (O(1))."""
        return self._positions.get(doc_id, -1)

    @cached_property
    def _positions(self) -> Mapping[str, int]:
        positions: dict[str, int] = {}
        for i, doc in enumerate(self.documents):
            positions.setdefault(doc.id, i)
        return positions


def _readonly(array: np.ndarray) -> np.ndarray:
    import numpy as np

    array = np.array(array, copy=True)
    array.setflags(write=False)
    return array

