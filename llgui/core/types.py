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

import math
from dataclasses import dataclass, field
from functools import cached_property
from datetime import date, datetime, timezone
from types import MappingProxyType
from typing import Mapping, Union

import numpy as np

from llgui.core.cost import CostModel

TASKS = ("mt", "diarization", "detection")
INITIATIVES = ("active", "interactive")
MT_KINDS = ("reference", "post_edit")
DIAR_KINDS = ("same", "boundary", "name", "segment")
STEP_KINDS = MT_KINDS + DIAR_KINDS


# --------------------------------------------------------------------------------------------
# Time stamps


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
            if not math.isfinite(raw):
                raise ValueError(f"time must be finite, not {raw!r}")
            return cls(float(raw), _number_text(raw), False)
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
            number = float(text)
        except ValueError:
            pass
        else:
            if not math.isfinite(number):
                raise ValueError(f"time must be finite, not {text!r}")
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
class DiarDocument:
    """One diarization document (a recording): reference and hypothesis turns, optional UEM.

    `uri` is the file field of the RTTM/UEM lines it came from. `uem` is the scored extent as
    sorted, non-overlapping (start, end) pairs in seconds, or None for "not given".
    """

    id: str
    time: Stamp
    uri: str
    reference: tuple[Turn, ...]
    hypothesis: tuple[Turn, ...]
    uem: tuple[tuple[float, float], ...] | None = None
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


Document = Union[MTDocument, DiarDocument]


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


Target = Union[SentenceTarget, SameTarget, PointTarget, SpanTarget]


@dataclass(frozen=True)
class Adapted:
    """The system's hypothesis after a step, resolved by the loader.

    MT: `lines` maps 1-based segment numbers to their new text (only the changed ones for a
    `{"lines": ...}` delta, every segment for a `{"path": ...}` file). Diarization: `turns` is
    the complete new turn list of the document. `path` names the file it came from, if any.
    """

    lines: Mapping[int, str] | None = None
    turns: tuple[Turn, ...] | None = None
    path: str | None = None

    def __post_init__(self) -> None:
        if self.lines is not None and not isinstance(self.lines, MappingProxyType):
            object.__setattr__(self, "lines", MappingProxyType(dict(self.lines)))


@dataclass(frozen=True)
class Step:
    """One interaction step of the log (schema version 1).

    `answer` is: the post-edited text (MT `post_edit`), None (MT `reference`: the reference is
    the answer), a bool (`same`), a (start, end) pair in seconds (`boundary`), a speaker label
    (`name`), or None (`segment`). `cost` None means the cost model decides. `adapted` None
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
        for name in ("values", "values_pen"):
            table = {k: _readonly(np.asarray(v, dtype=float)) for k, v in getattr(self, name).items()}
            for metric, array in table.items():
                if array.shape != (len(self.models), len(self.tests)):
                    raise ValueError(f"{name}[{metric!r}] has shape {array.shape}")
            object.__setattr__(self, name, MappingProxyType(table))

    def model_time_values(self) -> np.ndarray:
        return np.array([s.value for s in self.model_times], dtype=float)

    def test_time_values(self) -> np.ndarray:
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

    def __post_init__(self) -> None:
        scores = _readonly(np.asarray(self.scores, dtype=np.float64))
        labels = _readonly(np.asarray(self.is_target, dtype=bool))
        if scores.shape != labels.shape or scores.ndim != 1:
            raise ValueError("scores and is_target must be 1-D arrays of the same length")
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "is_target", labels)

    @property
    def n_target(self) -> int:
        return int(self.is_target.sum())

    @property
    def n_nontarget(self) -> int:
        return int(self.is_target.size - self.is_target.sum())


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

    def __post_init__(self) -> None:
        if not isinstance(self.settings, MappingProxyType):
            object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))

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
    array = np.array(array, copy=True)
    array.setflags(write=False)
    return array


DEFAULT_METRICS = {
    "mt": ("bleu", "chrf", "ter"),
    "diarization": ("der", "jer"),
    "detection": ("eer", "min_dcf", "act_dcf"),
}
"""Metrics scored when a bundle names none."""

KNOWN_METRICS = {
    "mt": ("bleu", "chrf", "ter", "wer"),
    "diarization": ("der", "jer"),
    "detection": ("eer", "min_dcf", "act_dcf"),
}
