"""Cost-model editor: every constant of the cost model, each edit one undoable command.

Spin boxes emit on every arrow click or keystroke; the editor waits for a short pause before
committing, so holding an arrow key produces one command and one recompute, not fifty.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QFormLayout, QGroupBox, QVBoxLayout, QWidget

from llgui.core.cost import CostModel

FIELDS = (
    ("window", "window (s)", "width of a `same`/`name` window; margin on each side of a "
                             "`boundary` turn", 0.1, 600.0, 0.5),
    ("reference_weight", "per reference word", "cost of a word when the human gives the "
                                               "reference (MT)", 0.0, 100.0, 0.1),
    ("post_edit_weight", "per word edit", "cost of one word edit of a post-edit (MT)",
     0.0, 100.0, 0.1),
    ("listen_weight", "per second listened", "cost of one second of audio listened "
                                             "(diarization)", 0.0, 100.0, 0.1),
)


class CostModelEditor(QGroupBox):
    edited = Signal(object)   # the new CostModel, after the user paused

    COMMIT_DELAY_MS = 350

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Cost model", parent)
        self.spins: dict[str, QDoubleSpinBox] = {}
        form = QFormLayout()
        for name, label, tip, lo, hi, step in FIELDS:
            spin = QDoubleSpinBox()
            spin.setRange(lo, hi)
            spin.setSingleStep(step)
            spin.setDecimals(2)
            spin.setToolTip(tip)
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(self._on_spin_value_changed)
            form.addRow(label, spin)
            self.spins[name] = spin
        self.use_log = QCheckBox("a cost stated in the log wins")
        self.use_log.setToolTip("unchecked: the model prices every step, ignoring log costs")
        self.use_log.toggled.connect(self._on_spin_value_changed)
        form.addRow(self.use_log)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(self.COMMIT_DELAY_MS)
        self._timer.timeout.connect(self._commit)
        self._model = CostModel()
        self.shown_task: str | None = None
        self._loading = False
        self.set_model(CostModel())

    TASK_FIELDS = {"mt": ("reference_weight", "post_edit_weight"),
                   "diarization": ("window", "listen_weight")}
    """The constants that price a task's steps; detection and classification steps (labels)
    cost what their log says, so none of them is shown there."""

    def set_task(self, task: str | None) -> None:
        """Show only the rows that price `task`'s steps (all of them for None): a detection
        document showed MT's words and diarization's seconds."""
        self.shown_task = task
        form = self.layout().itemAt(0).layout()
        wanted = self.TASK_FIELDS.get(task, ()) if task is not None else tuple(self.spins)
        for name, spin in self.spins.items():
            form.setRowVisible(spin, name in wanted)
        self.setToolTip("" if wanted else "this task's steps (labels) cost what the log says")

    def shown_fields(self) -> list[str]:
        """The constants whose rows are shown (tests read it)."""
        form = self.layout().itemAt(0).layout()
        return [name for name, spin in self.spins.items() if form.isRowVisible(spin)]

    def set_unit(self, unit: str) -> None:
        """Name the MT rows in the bundle's cost unit: "words" or "characters" (scripts
        written without spaces)."""
        one = "character" if unit == "characters" else "word"
        form = self.layout().itemAt(0).layout()
        for name, text in (("reference_weight", f"per reference {one}"),
                           ("post_edit_weight", f"per {one} edit")):
            label = form.labelForField(self.spins[name])
            if label is not None and label.text() != text:
                label.setText(text)
        self.spins["reference_weight"].setToolTip(
            f"cost of a {one} when the human gives the reference (MT)")
        self.spins["post_edit_weight"].setToolTip(f"cost of one {one} edit of a post-edit (MT)")

    def set_model(self, model: CostModel) -> None:
        """Show `model` without emitting an edit."""
        self._loading = True
        try:
            self._model = model
            for name, spin in self.spins.items():
                spin.setValue(getattr(model, name))
            self.use_log.setChecked(model.use_log_cost)
        finally:
            self._loading = False
        self._timer.stop()

    def model(self) -> CostModel:
        values = {name: spin.value() for name, spin in self.spins.items()}
        return self._model.with_(use_log_cost=self.use_log.isChecked(), **values)

    def _on_spin_value_changed(self, *_):
        if not self._loading:
            self._timer.start()

    def commit_now(self) -> None:
        """Commit a pending edit at once (tests, closing)."""
        if self._timer.isActive():
            self._timer.stop()
            self._commit()

    def _commit(self) -> None:
        model = self.model()
        if model != self._model:
            self._model = model
            self.edited.emit(model)
