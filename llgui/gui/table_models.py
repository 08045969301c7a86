"""Qt table models: the documents of the open bundles, and the corrections of one document.

Both are read-only views of core results (`BundleReplay`, `Walkthrough`); they format numbers
and nothing more. `SORT_ROLE` gives raw values so a proxy sorts numbers as numbers.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from llgui.core.penalty import BundleReplay
from llgui.core.types import Bundle
from llgui.core.walkthrough import Walkthrough
from llgui.core.metrics import display_name

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
BETTER = QColor(0, 120, 60)
WORSE = QColor(180, 30, 30)
_CELL_ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.TextAlignmentRole,
                         Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.ToolTipRole})
"""The roles the table models have an answer for (the Documents list: SORT_ROLE too)."""
_PAINT_ROLES = {int(role): k for k, role in enumerate((
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.TextAlignmentRole,
    Qt.ItemDataRole.ForegroundRole))}
"""The roles of a cell kept between paints (`PaintedCells.data`), by position."""


def _num(value, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value:.{digits}f}"


class PaintedCells:
    """`data()` for a table model whose cells change only when the model says so: the roles
    a paint asks of every visible cell (text, alignment, colour: `_PAINT_ROLES`) are kept per
    cell until `_painted.clear()`; the others are computed by `_cell(index, role)`, as is
    every kept value the first time. A cell called from C++ per role costs the interpreter
    each time: a paint of the Documents panel asked 7 roles of ~120 cells, 20-56 ms of the
    event loop while 1,000 documents were scored (gate 9)."""

    _painted: dict
    ANSWERED: frozenset = frozenset()   # the roles `_cell` may have an answer for

    def _keep_painted(self) -> None:
        """Start the kept cells, forgotten whenever the model says anything changed (its own
        dataChanged, reset or layout change, whoever emits them): called in `__init__`, so
        these connections come before any view's."""
        self._painted = {}
        for signal in (self.dataChanged, self.modelReset, self.layoutChanged,
                       self.rowsInserted, self.rowsRemoved):
            signal.connect(self._forget_painted)

    def _forget_painted(self, *_) -> None:
        self._painted.clear()

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        at = _PAINT_ROLES.get(role)
        if at is None:   # (Qt asks 4 more roles of each cell it paints or measures)
            return self._cell(index, role) if role in self.ANSWERED else None
        key = (index.row(), index.column())
        cell = self._painted.get(key)
        if cell is None:
            cell = tuple(self._cell(index, r) for r in _PAINT_ROLES)
            if len(self._painted) > 20_000:   # a long scroll through 10^5 rows
                self._painted.clear()
            self._painted[key] = cell
        return cell[at]


class DocumentsModel(PaintedCells, QAbstractTableModel):
    """Every document of every open bundle: id, time, steps, S_base -> S_pen (when ready).

    Rows are read straight from the bundles (row -> bundle by bisection over their sizes),
    and a bundle's scores from its per-document summaries (`BundleReplay.summaries`, built
    on the worker): no cell scans the log or the replays, and opening 10^5 documents costs
    no more than opening ten."""

    # "system": which open bundle the row is of (hidden with one bundle open)
    COLUMNS = ("document", "system", "task", "time", "steps", "S_base", "S_pen", "gain")
    ANSWERED = _CELL_ROLES | {SORT_ROLE}
    TASK_LABELS = {"mt": "MT", "diarization": "diar.", "detection": "det.",
                   "classification": "class."}

    def __init__(self, parent=None):
        super().__init__(parent)
        self._bundles: list[Bundle] = []
        self._offsets: list[int] = [0]            # first row of each bundle, then the total
        self._results: dict[int, BundleReplay] = {}
        self._summaries: dict[int, dict] = {}
        self.systems: list[str] = []   # the short name of each bundle (what tells them apart)
        self._keep_painted()   # (row, column) -> the _PAINT_ROLES of a cell

    def set_bundles(self, bundles: list[Bundle]) -> None:
        self.beginResetModel()
        self._painted.clear()
        self._bundles = list(bundles)
        self._offsets = [0]
        for b in self._bundles:
            self._offsets.append(self._offsets[-1] + len(b.documents))
        from llgui.core.display.names import short_names

        self.systems = short_names([b.name or Path(b.path or "").stem or f"bundle {k + 1}"
                                    for k, b in enumerate(self._bundles)])
        self._results = {}
        self._summaries = {}
        self.endResetModel()

    def set_result(self, bundle_index: int, result: BundleReplay | None) -> None:
        """Show a bundle's replayed scores (None clears them while a new job runs)."""
        self._painted.clear()
        if result is None:
            self._results.pop(bundle_index, None)
            self._summaries.pop(bundle_index, None)
        else:
            self._results[bundle_index] = result
            self._summaries[bundle_index] = result.summaries()
        if 0 <= bundle_index < len(self._bundles):
            first, last = self._offsets[bundle_index], self._offsets[bundle_index + 1] - 1
            if last >= first:
                self.dataChanged.emit(self.index(first, self.COLUMNS.index("S_base")),
                                      self.index(last, self.COLUMNS.index("gain")))

    def _locate(self, row: int) -> tuple[int, Any]:
        b = bisect_right(self._offsets, row) - 1
        return b, self._bundles[b].documents[row - self._offsets[b]]

    def row_of(self, bundle_index: int, doc_id: str) -> int:
        if not 0 <= bundle_index < len(self._bundles):
            return -1
        at = self._bundles[bundle_index].position(doc_id)
        return -1 if at < 0 else self._offsets[bundle_index] + at

    def key(self, row: int) -> tuple[int, str]:
        b, d = self._locate(row)
        return b, d.id

    # -- Qt model interface -----------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._offsets[-1]

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return self.COLUMNS[section]
            if role == Qt.ItemDataRole.ToolTipRole:
                return {
                    "S_base": "score of the system's first hypothesis (metric of the workbench)",
                    "S_pen": "penalised score after the last step: S_adapt + Σ (S_imp − S_cor)",
                    "gain": "S_pen − S_base, signed so that positive means better than the base",
                    "steps": "interaction steps in the log",
                    "system": "the open bundle (system) the document is of; its whole name "
                              "in the cell's tooltip",
                }.get(self.COLUMNS[section])
        return None

    def _cell(self, index: QModelIndex | QPersistentModelIndex, role) -> Any:
        """A cell's value for `role` (one of `ANSWERED`), computed."""
        if not index.isValid() or not (0 <= index.row() < self._offsets[-1]):
            return None
        b, doc = self._locate(index.row())
        column = self.COLUMNS[index.column()]
        summary = self._summaries.get(b, {}).get(doc.id)
        raw: Any
        cut = doc.id in self._bundles[b].partial
        if column == "document":
            raw = doc.id
        elif column == "system":
            raw = self.systems[b] if b < len(self.systems) else ""
        elif column == "task":
            raw = self.TASK_LABELS.get(doc.task, doc.task)
        elif column == "time":
            raw = _short_time(doc.time.text)
        elif column == "steps":
            raw = len(self._bundles[b].steps_of(doc.id))
        elif summary is None:
            raw = None
        else:
            raw = getattr(summary, column.lower())
        if role == SORT_ROLE:
            if raw is None:
                return -math.inf
            return doc.time.value if column == "time" else raw
        if role == Qt.ItemDataRole.DisplayRole:
            if column == "steps" and cut:   # the run stopped in it (issue 32)
                return f"{raw} (cut short)"
            if column in ("S_base", "S_pen"):
                return _num(raw) if raw is not None else "…"
            if column == "gain":
                return gain_text(raw, len(self._bundles[b].steps_of(doc.id)))
            return str(raw)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if column in ("steps", "S_base", "S_pen", "gain"):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        if role == Qt.ItemDataRole.ForegroundRole:
            if column == "gain" and raw is not None:
                return QBrush(BETTER if raw > 0 else WORSE if raw < 0 else QColor(0, 0, 0))
            if column == "steps" and cut:
                return QBrush(WORSE)
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            bundle = self._bundles[b]
            if cut:
                return ("cut short: the run stopped in this document (a signal or a failure) "
                        "before its end, with fewer steps than it would have had; left out of "
                        "the bundle's aggregates")
            result = self._results.get(b)
            whole = f"{doc.id}\n" if column == "document" else ""   # a long id is elided
            if result is not None:
                return (f"{whole}{bundle.name or bundle.path}\n{display_name(result.metric)} — "
                        f"{result.signature}")
            return f"{whole}{bundle.name or bundle.path}"
        return None


def gain_text(gain: float | None, steps: int) -> str:
    """A document's gain as its cell shows it: "…" before the scores, "–" with no steps (no
    gain to speak of), else signed to two places, never "-0.00" (a zero gain of an
    error-rate metric is -0.0 in floating point)."""
    if gain is None:
        return "…"
    if steps == 0:
        return "–"
    text = f"{gain:+.2f}"
    return "0.00" if float(text) == 0 else text


class CorrectionsModel(PaintedCells, QAbstractTableModel):
    """The steps of one document: row 0 is the base hypothesis, row n the n-th step."""

    # the answer last: long text (a post-edit) stretches there, the scores stay in view
    COLUMNS = ("step", "initiative", "kind", "target", "cost", "S_cor", "S_imp", "S_adapt",
               "S_pen", "question", "answer")
    ANSWERED = _CELL_ROLES

    def __init__(self, parent=None):
        super().__init__(parent)
        self._walk: Walkthrough | None = None
        self._rows = 0
        self._keep_painted()   # (row, column) -> the _PAINT_ROLES of a cell

    def set_walkthrough(self, walk: Walkthrough | None) -> None:
        self.beginResetModel()
        self._painted.clear()
        self._walk = walk
        self._rows = 0 if walk is None else 1 + len(walk.steps)   # Qt asks thousands of times
        self.endResetModel()

    @property
    def walkthrough(self) -> Walkthrough | None:
        return self._walk

    def _hours(self) -> bool | None:
        """Diarization times h:mm:ss throughout a document that reaches an hour (once per
        walkthrough: Qt asks for every cell)."""
        from llgui.core.display.diar_text import long_document

        walk = self._walk
        if getattr(self, "_hours_of", (None,))[0] is not walk:
            doc = walk.document if walk is not None else None
            self._hours_of = (walk, long_document(doc.extent)
                              if getattr(doc, "task", "") == "diarization" else None)
        return self._hours_of[1]

    def _cost_unit(self) -> str:
        unit = self._walk.replay.cost_unit if self._walk is not None else ""
        return unit or "words, characters or seconds listened"

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        if parent.isValid() or self._walk is None:
            return 0
        return self._rows

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not (0 <= section < len(self.COLUMNS)):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and self.COLUMNS[section] == "answer":
            # the last column, often cut at the table's edge: its name at its start (centred,
            # it lay past the edge and the header looked blank)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return {
                "S_cor": "score of the hypothesis the human saw, with the corrected part fixed",
                "S_imp": "same, with the corrected part replaced by a strictly wrong version",
                "S_adapt": "score of the system's hypothesis after the step",
                "S_pen": "S_adapt + Σ_{k≤n} (S_imp,k − S_cor,k)",
                "cost": f"cost of the step ({self._cost_unit()}, per the cost model)",
                "question": "active steps: the errors inside what the system asked / what a "
                            "random question of the same cost holds on average / the best "
                            "question of that cost (TER edits, DER error seconds or wrong "
                            "labels; docs/metrics.md, Question value)",
                "answer": "what the human gave: the post-edit or reference (MT), the name, "
                          "same / different, the true edges of the turn (diarization), the "
                          "labels (detection); the tooltip shows it whole",
            }.get(self.COLUMNS[section])
        return None

    def _cell(self, index: QModelIndex | QPersistentModelIndex, role) -> Any:
        """A cell's value for `role` (one of `ANSWERED`), computed (a walkthrough's cells
        never change)."""
        walk = self._walk
        if walk is None or not index.isValid() or not (0 <= index.row() < self._rows):
            return None
        column = self.COLUMNS[index.column()]
        numeric = column in ("cost", "S_cor", "S_imp", "S_adapt", "S_pen")
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if numeric or column == "step":
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        if index.row() == 0:
            if role == Qt.ItemDataRole.DisplayRole:
                return {"step": "0", "initiative": "", "kind": "base", "S_adapt":
                        _num(walk.replay.s_base), "S_pen": _num(walk.replay.s_base)}.get(column, "")
            if role == Qt.ItemDataRole.ToolTipRole:
                return "the system's first hypothesis, before any correction"
            return None
        # the replay's numbers and the log's step: no step view is built for a table cell
        s = walk.replay.steps[index.row() - 1]
        step = walk.log[index.row() - 1]
        if role == Qt.ItemDataRole.DisplayRole:
            # the asked column only (Qt asks cell by cell: building every column's text for
            # each cell made the table's repaint nine times the work)
            if column == "target":
                return describe_target(step, self._hours())
            if column == "answer":
                return _one_line(describe_answer(step, walk.document))
            return {
                "step": lambda: str(s.step), "initiative": lambda: s.initiative,
                "kind": lambda: s.kind, "cost": lambda: _num(s.cost, 1),
                "S_cor": lambda: _num(s.s_cor), "S_imp": lambda: _num(s.s_imp),
                "S_adapt": lambda: _num(s.s_adapt), "S_pen": lambda: _num(s.s_pen),
                "question": lambda: _question_text(walk, s.step),
            }[column]()
        if role == Qt.ItemDataRole.ForegroundRole and column == "S_pen":
            verdict = walk.replay.versus_base(s.s_pen)
            if verdict:
                return QBrush(BETTER if verdict > 0 else WORSE)
        if role == Qt.ItemDataRole.ForegroundRole and column == "S_imp" \
                and walk.replay.impaired_better(s):
            return QBrush(WORSE)
        if column == "question" and role in (Qt.ItemDataRole.ForegroundRole,
                                             Qt.ItemDataRole.ToolTipRole):
            value = (walk.questions or {}).get(s.step)
            if value is None:
                return None
            if role == Qt.ItemDataRole.ForegroundRole:
                return QBrush(BETTER if value.gain > 0 else WORSE) if value.gain else None
            return question_tooltip(value)
        if role == Qt.ItemDataRole.ToolTipRole and column == "answer":
            return describe_answer(step, walk.document)
        if role == Qt.ItemDataRole.ToolTipRole:
            note = ("\nS_imp is better than S_cor here: the impaired construction is not a "
                    "lower bound at this step" if walk.replay.impaired_better(s) else "")
            return f"{describe_step(step, self._hours())}\n{walk.replay.signature}{note}"
        return None




def _question_text(walk: Walkthrough, step: int) -> str:
    """asked / random / best of an active step ("" for the others)."""
    value = (walk.questions or {}).get(step)
    if value is None:
        return ""
    # narrow, so the column stays in view (issue 35); the tooltip has three decimals
    return "/".join(_compact(v) for v in (value.asked, value.random, value.best))


def _compact(value: float) -> str:
    """Two significant digits, the whole integer part from 10 up: 170, 12, 6.4, 0.92, 0."""
    if value == 0:
        return "0"
    if abs(value) < 0.005:
        return "≈0"
    return f"{value:.0f}" if abs(value) >= 10 else f"{value:.2g}"


def question_tooltip(value) -> str:
    gain = "better" if value.gain > 0 else "worse" if value.gain < 0 else "no better"
    return (f"asked {value.asked:.3f} errors (cost {value.cost:.3g}); a random question of "
            f"the same cost: {value.random:.3f} on average, the best: {value.best:.3f}\n"
            f"gain over random {value.gain:+.3f} ({gain} than random selection), regret "
            f"{value.regret:.3f}" + ("" if value.touched else "\nthis question touched no error"))


def _short_time(text: str) -> str:
    """An ISO date-time as a cell shows it: `2023-01-09 08:00` for `2023-01-09T08:00:00`
    (seconds only when they are not zero); dates and numbers as they are."""
    if len(text) >= 16 and text[10:11] == "T":
        shown = text[:10] + " " + text[11:19]
        return shown[:16] if shown.endswith(":00") else shown
    return text


def describe_target(step, hours: bool | None = None) -> str:
    from llgui.core.display import diar_text

    said = diar_text.describe_target(step, hours)
    if said is not None:   # diarization: clock times, t1/t2 (one format with the timeline)
        return said
    t = step.target
    if hasattr(t, "items"):
        shown = ", ".join(t.items[:3]) + (", …" if len(t.items) > 3 else "")
        return f"{len(t.items)} trial{'s' if len(t.items) != 1 else ''} ({shown})"
    if hasattr(t, "sentence"):
        return f"sentence {t.sentence}"
    if hasattr(t, "t1"):
        where = f" ({t.doc2})" if getattr(t, "doc2", None) else ""
        return f"{t.t1:.1f} s ~ {t.t2:.1f} s{where}"
    if hasattr(t, "t"):
        return f"{t.t:.1f} s"
    return f"{t.start:.1f}–{t.end:.1f} s"


ANSWER_CHARS = 60
"""Characters of an answer shown in its cell (the tooltip and the export have it whole)."""


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ANSWER_CHARS else text[:ANSWER_CHARS - 1] + "…"


def describe_answer(step, document=None) -> str:
    """What the human gave at `step`, whole: the post-edit, the reference (MT `reference`,
    read from `document`), the name, same / different, the true edges of a turn, the labels."""
    kind, answer = step.kind, step.answer
    if kind == "post_edit":
        return str(answer)
    if kind == "reference":
        i = getattr(step.target, "sentence", 0) - 1
        refs = getattr(document, "references", None)
        if refs and 0 <= i < len(refs[0]):
            return refs[0][i]
        return "the reference"
    if kind == "same":
        return "same speaker" if answer else "different speakers"
    if kind == "boundary":   # the clock of the target column and the step's line
        if not answer:
            return "?"
        from llgui.core.display.diar_text import clock, long_document

        hours = long_document(getattr(document, "extent", None))
        return f"{clock(answer[0], hours, 2)}–{clock(answer[1], hours, 2)}"
    if kind == "name":
        return str(answer)
    if kind == "segment":
        return "the reference turns of the span"
    if kind == "prefix":   # interactive-predictive MT: the prefix kept, then what was typed
        return (f"accepted: {answer.prefix}" if answer.accept
                else f"{answer.prefix}[{answer.typed}]")
    if kind == "label":
        if not set(answer) <= {"target", "nontarget"}:
            return ", ".join(answer)
        targets = sum(1 for a in answer if a == "target")
        return f"{targets} target, {len(answer) - targets} non-target"
    return "" if answer is None else str(answer)


def _kept(answer) -> tuple[int, str]:
    """How much of the sentence a prefix step kept, in the step's unit: characters (spaces
    included) for a character step, characters (not spaces) for a word step in a script
    written without spaces, words otherwise."""
    from llgui.core.mt.script import CHARACTERS, count_units, detect_unit

    if answer.unit == "character":
        return len(answer.prefix), "character"
    if detect_unit([answer.prefix + answer.typed]) == CHARACTERS:
        return count_units(answer.prefix, CHARACTERS), "character"
    return len(answer.prefix.split()), "word"


def describe_step(step, hours: bool | None = None, mapping=None, **labels) -> str:
    """One line on what the human was asked or gave (diarization: `hours` for h:mm:ss,
    `mapping` of the hypothesis seen and `labels` (reference_labels, seen_labels) to say who
    a named label is, `diar_text.describe_step`)."""
    from llgui.core.display import diar_text

    said = diar_text.describe_step(step, hours, mapping, **labels)
    if said is not None:
        return said
    kind, answer = step.kind, step.answer
    if kind == "label":
        if not set(answer) <= {"target", "nontarget"}:   # classification: the classes
            shown = ", ".join(answer[:3]) + (", …" if len(answer) > 3 else "")
            return f"step {step.step}: the human labelled {describe_target(step)}: {shown}"
        targets = sum(1 for a in answer if a == "target")
        return (f"step {step.step}: the human labelled {describe_target(step)}: "
                f"{targets} target, {len(answer) - targets} non-target")
    if kind == "reference":
        return f"step {step.step}: the human gave the reference of {describe_target(step)}"
    if kind == "post_edit":
        return f"step {step.step}: the human post-edited {describe_target(step)}: “{answer}”"
    if kind == "same":
        return (f"step {step.step}: same speaker at {describe_target(step)}? "
                f"{'yes' if answer else 'no'}")
    if kind == "boundary":
        span = f"{answer[0]:.2f}–{answer[1]:.2f} s" if answer else "?"
        return f"step {step.step}: turn around {describe_target(step)} is {span}"
    if kind == "name":
        return f"step {step.step}: the speaker at {describe_target(step)} is {answer}"
    if kind == "prefix":
        if answer.accept:
            return f"step {step.step}: the human accepted {describe_target(step)}"
        kept, unit = _kept(answer)
        what = "character" if answer.unit == "character" else "word"
        return (f"step {step.step}: the human kept {kept} {unit}{'' if kept == 1 else 's'} of "
                f"{describe_target(step)} and typed the {what} “{answer.typed}”")
    return f"step {step.step}: segment {describe_target(step)} annotated"
