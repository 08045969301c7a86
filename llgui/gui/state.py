"""The one place that holds the session's mutable state; views listen to its signals.

Holds the open bundles, the current document and step, the workbench metric of each task,
each bundle's cost model, the user policy and the view options. Edits a user would want to take
back (cost model, policy) go through the undo stack as commands. The state is saved
atomically to a JSON session file and restored on the next start.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QStandardPaths, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from llgui.core.cost import CostModel
from llgui.core.types import Bundle, Document
from llgui.io.session_file import SESSION_VERSION


def session_path() -> Path:
    """$LLGUI_SESSION_FILE, else session.json in the platform's per-user config folder."""
    configured = os.environ.get("LLGUI_SESSION_FILE")
    if configured:
        return Path(configured)
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
    return Path(folder or Path.home() / ".config" / "llgui") / "session.json"


@dataclass(frozen=True)
class Selection:
    bundle: int = -1
    doc: str | None = None


class SessionState(QObject):
    bundles_changed = Signal()
    selection_changed = Signal()           # another bundle or document
    step_changed = Signal(int)             # 0 = base, n = after step n
    metric_changed = Signal(str, str)      # task, metric
    cost_model_changed = Signal(int)       # bundle index
    policy_changed = Signal()              # released: the undoable edit
    policy_dragging = Signal(object)       # while dragging: the provisional Policy

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        from llgui.core.across_time.policy import PRESETS

        self.bundles: list[Bundle] = []
        self.selection = Selection()
        self.step = 0
        self.metrics: dict[str, str] = {}
        self.cost_models: list[CostModel] = []
        self.policy = PRESETS["B"]
        self.policy_name = "B"
        self.view: dict[str, Any] = {}
        self.undo_stack = QUndoStack(self)

    # -- bundles ----------------------------------------------------------------------------

    def add_bundles(self, bundles: list[Bundle]) -> None:
        """Add loaded bundles (a bundle already open from the same path is replaced)."""
        for bundle in bundles:
            existing = [i for i, b in enumerate(self.bundles)
                        if b.path is not None and b.path == bundle.path]
            if existing:
                self.bundles[existing[0]] = bundle
                self.cost_models[existing[0]] = bundle.cost
            else:
                self.bundles.append(bundle)
                self.cost_models.append(bundle.cost)
            if bundle.metrics:
                self.metrics.setdefault(bundle.task, bundle.metrics[0])
        self._name_apart()
        self.bundles_changed.emit()

    def _name_apart(self) -> None:
        """Bundles sharing a name (two runs of one input bundle) are named by their run's
        system and oracle, as `compare` names them (`llgui.io.run_names`)."""
        import dataclasses

        from llgui.io.run_names import distinct_names

        for i, name in enumerate(distinct_names(self.bundles)):
            if name != self.bundles[i].name:
                self.bundles[i] = dataclasses.replace(self.bundles[i], name=name)

    def bundle(self, index: int | None = None) -> Bundle | None:
        index = self.selection.bundle if index is None else index
        return self.bundles[index] if 0 <= index < len(self.bundles) else None

    def document(self) -> Document | None:
        bundle = self.bundle()
        if bundle is None or self.selection.doc is None:
            return None
        try:
            return bundle.document(self.selection.doc)
        except KeyError:
            return None

    def bundle_index_of_task(self, task: str) -> int:
        for i, b in enumerate(self.bundles):
            if b.task == task:
                return i
        return -1

    # -- navigation -------------------------------------------------------------------------

    def select(self, bundle: int, doc: str | None, step: int = 0) -> None:
        selection = Selection(bundle, doc)
        if selection != self.selection:
            self.selection = selection
            self.step = max(0, step)
            self.selection_changed.emit()
            self.step_changed.emit(self.step)
        else:
            self.set_step(step)

    def n_steps(self) -> int:
        bundle, doc = self.bundle(), self.selection.doc
        if bundle is None or doc is None:
            return 0
        return len(bundle.steps_of(doc))

    def set_step(self, step: int) -> None:
        step = max(0, min(step, self.n_steps()))
        if step != self.step:
            self.step = step
            self.step_changed.emit(step)

    def documents_flat(self) -> list[tuple[int, str]]:
        """(bundle index, document id) of every document, in display order."""
        return [(i, d.id) for i, b in enumerate(self.bundles) for d in b.documents]

    def move_document(self, delta: int) -> None:
        flat = self.documents_flat()
        if not flat:
            return
        here = (self.selection.bundle, self.selection.doc)
        index = flat.index(here) if here in flat else -1
        index = max(0, min(len(flat) - 1, index + delta))
        self.select(*flat[index])

    # -- metric, cost model, policy ---------------------------------------------------------

    def metric(self, task: str) -> str | None:
        return self.metrics.get(task)

    def set_metric(self, task: str, metric: str) -> None:
        if self.metrics.get(task) != metric:
            self.metrics[task] = metric
            self.metric_changed.emit(task, metric)

    def cost_model(self, index: int | None = None) -> CostModel:
        index = self.selection.bundle if index is None else index
        if 0 <= index < len(self.cost_models):
            return self.cost_models[index]
        return CostModel()

    def edit_cost_model(self, index: int, model: CostModel) -> None:
        """Change a bundle's cost model as one undoable command."""
        if 0 <= index < len(self.cost_models) and model != self.cost_models[index]:
            self.undo_stack.push(_SetCostModel(self, index, model))

    def _apply_cost_model(self, index: int, model: CostModel) -> None:
        self.cost_models[index] = model
        self.cost_model_changed.emit(index)

    def edit_policy(self, policy, name: str = "custom") -> None:
        """Replace the user policy as one undoable command (a released drag, a preset...)."""
        if policy != self.policy:
            self.undo_stack.push(_SetPolicy(self, policy, name))

    def _apply_policy(self, policy, name: str) -> None:
        self.policy, self.policy_name = policy, name
        self.policy_changed.emit()

    # -- session file -----------------------------------------------------------------------

    def to_dict(self) -> dict:
        return {
            "version": SESSION_VERSION,
            "bundles": [b.path for b in self.bundles if b.path],
            "selection": {"bundle": self.bundles[self.selection.bundle].path
                          if self.bundle() else None, "doc": self.selection.doc},
            "step": self.step,
            "metrics": dict(self.metrics),
            "cost_models": {b.path: self.cost_models[i].to_dict()
                            for i, b in enumerate(self.bundles) if b.path},
            "policy": {"name": self.policy_name, **self.policy.to_dict()},
            "view": self.view,
        }

    def save(self, path: Path | None = None) -> None:
        from llgui.utils.atomic import write_atomic

        write_atomic(path or session_path(), json.dumps(self.to_dict(), indent=2) + "\n")


def read_session(path: Path | None = None) -> tuple[dict | None, str | None]:
    """(the saved session, None), or (None, why it was set aside), or (None, None) when there
    is none. A session that fails its checks is moved to `session.json.bad` (never raises)."""
    from llgui.utils.atomic import clean_stale
    from llgui.io.session_file import read_session_file, set_aside

    path = path or session_path()
    clean_stale(path)   # temporary files of sessions whose save was killed
    try:
        data, reason = read_session_file(path)
    except Exception as exc:  # noqa: BLE001 - a start must never fail on its session
        data, reason = None, f"could not be checked ({type(exc).__name__})"
    if reason is None:
        return data, None
    bad = set_aside(path)
    where = f"set aside as {bad}" if bad is not None else "left in place"
    return None, f"The session file {path} {reason}; it was {where} and llgui started afresh"


class _SetCostModel(QUndoCommand):
    def __init__(self, state: SessionState, index: int, model: CostModel):
        super().__init__("edit cost model")
        self.state, self.index = state, index
        self.before, self.after = state.cost_models[index], model

    def redo(self) -> None:
        self.state._apply_cost_model(self.index, self.after)

    def undo(self) -> None:
        self.state._apply_cost_model(self.index, self.before)


class _SetPolicy(QUndoCommand):
    def __init__(self, state: SessionState, policy, name: str):
        super().__init__(f"policy: {name}")
        self.state = state
        self.before = (state.policy, state.policy_name)
        self.after = (policy, name)

    def redo(self) -> None:
        self.state._apply_policy(*self.after)

    def undo(self) -> None:
        self.state._apply_policy(*self.before)
