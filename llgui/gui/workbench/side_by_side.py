"""A second system on the workbench's document (issue 15, "side by side").

When another open bundle of the same task has the document the workbench shows, `SecondSystem`
shows both systems' numbers on it, the same replay numbers `llgui replay` prints for each
bundle (S_base, S_adapt, S_pen, steps, cost, MSR), with the difference. It reads the
collection jobs' replays (`penalty.BundleReplay`, keys "collection:<i>"); nothing is
recomputed on the main thread.
"""
from __future__ import annotations

import html

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtWidgets import QLabel

from llgui.core.display.signed import signed
from llgui.core.metrics import display_name
from llgui.core.penalty import pen_difference


class SecondSystem(QObject):
    def __init__(self, workbench) -> None:
        super().__init__(workbench)
        self.state, self.jobs = workbench.state, workbench.jobs
        self.collections: dict[int, object] = {}   # bundle index -> BundleReplay
        self.shown: dict[str, dict] = {}           # system name -> its numbers (tests)
        self.label = QLabel("")
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.jobs.result_ready.connect(self._on_jobs_result_ready)
        self.state.selection_changed.connect(self.refresh)
        self.state.bundles_changed.connect(self._on_state_bundles_changed)

    @Slot()
    def _on_state_bundles_changed(self) -> None:
        self.collections = {}
        self.refresh()

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result) -> None:
        if key.startswith("collection:"):
            self.collections[int(key.split(":", 1)[1])] = result
            self.refresh()

    def other(self) -> int | None:
        """The first other open bundle of the same task with the selected document."""
        index, doc = self.state.selection.bundle, self.state.selection.doc
        bundles = self.state.bundles
        if doc is None or index is None or index >= len(bundles):
            return None
        for k, b in enumerate(bundles):
            if k != index and b.task == bundles[index].task and \
                    any(d.id == doc for d in b.documents):
                return k
        return None

    @Slot()
    def refresh(self) -> None:
        index, doc = self.state.selection.bundle, self.state.selection.doc
        k = self.other()
        self.shown = {}
        if k is None:
            self.label.setText("")
            return
        bundles = self.state.bundles
        rows = []
        replays = {}
        for b in (index, k):
            result = self.collections.get(b)
            replay = None if result is None else next(
                (r for r in result.replays if r.doc == doc), None)
            name = bundles[b].name
            replays[b] = replay
            if replay is None:
                rows.append(f"<tr><td>{html.escape(name)}</td><td colspan='5'>…</td></tr>")
                continue
            numbers = {"s_base": replay.s_base, "s_adapt": replay.s_adapt,
                       "s_pen": replay.s_pen, "steps": len(replay.steps),
                       "cost": replay.total_cost, "metric": replay.metric}
            self.shown[name] = numbers
            rows.append(
                f"<tr><td>{html.escape(name)}</td><td align='right'>{replay.s_base:.2f}</td>"
                f"<td align='right'>{replay.s_adapt:.2f}</td><td align='right'>"
                f"<b>{replay.s_pen:.2f}</b></td><td align='right'>{len(replay.steps)}</td>"
                f"<td align='right'>{replay.total_cost:.1f}</td></tr>")
        metric = next((v["metric"] for v in self.shown.values()), "")
        unit = next((r.cost_unit for r in replays.values() if r is not None), "")
        cost_header = f"cost ({unit})" if unit else "cost"
        diff = ""
        if len(self.shown) == 2:
            delta = pen_difference(*(replays[i] for i in (index, k)))
            diff = f"<small>Δ S_pen (this − other): {signed(delta)}</small>"
        self.label.setText(
            f"<b>Side by side on {html.escape(doc or '')}</b> ({display_name(metric)})"
            "<table cellspacing='4'><tr><th></th><th>S_base</th><th>S_adapt</th><th>S_pen</th>"
            f"<th>steps</th><th>{html.escape(cost_header)}</th></tr>" + "".join(rows) + "</table>" + diff)
