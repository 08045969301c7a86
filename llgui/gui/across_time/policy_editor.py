"""The policy editor of the Across-time tab: presets, mode, normalise, policy files, the
draggable curve and the stems of the tests the marked model version weighs (DESIGN.md 1.4).

Every change becomes one `state.edit_policy(...)` (undoable); while a handle is dragged the
provisional policy goes out on `state.policy_dragging`. A mixin of `AcrossTimeTab`, whose
widgets it uses.
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from llgui.core.display.names import model_label
from llgui.core.errors import LoadError
from llgui.core.display.layout import stems
from llgui.core.across_time.policy import PRESETS, Policy, window_tests
from llgui.io.policy_file import load_policy, save_policy
from llgui.gui.across_time.plots import MAX_SYMBOLS, TEXT


def _preset_name(policy: Policy, fallback: str) -> str:
    """The preset letter if `policy` is one of them, else `fallback`."""
    return next((k for k, p in PRESETS.items() if p == policy), fallback)


class PolicyEditing:
    """The tab's policy editor: user actions on the policy and its drawing."""

    def apply_preset(self, letter: str) -> None:
        """Make preset A, B or C the policy (one undoable edit)."""
        self.state.edit_policy(PRESETS[letter], letter)
        self._show_policy_controls()   # a no-op edit must still reset the button states

    def set_mode(self, mode: str) -> None:
        """Switch the policy between relative and absolute mode (one undoable edit).

        The curve keeps its shape over the whole table: relative x = 0..1 maps onto the
        calendar span [l_1, l_last] of the model times, and back.
        """
        policy = self.state.policy
        if mode == policy.mode:
            return
        table = self.table()
        if table is not None and len(table.models) > 0:
            times = table.model_time_values()
            l1, last = float(times.min()), float(times.max())
        else:
            l1, last = 0.0, 1.0
        new = policy.in_mode(mode, l1, last, dates=self._dates())
        self.state.edit_policy(new, _preset_name(new, "custom"))
        self._show_policy_controls()

    def set_normalise(self, normalise: bool) -> None:
        new = self.state.policy.with_normalise(normalise)
        self.state.edit_policy(new, _preset_name(new, "custom"))
        self._show_policy_controls()

    def load_policy_file(self, path: str | Path) -> bool:
        """Make the policy of a file the policy (one undoable edit); errors go to the window."""
        try:
            policy = load_policy(path)
        except LoadError as error:
            self.window_.show_error(f"Could not load the policy {Path(path).name}",
                                    [str(p) for p in error.problems])
            return False
        self.state.edit_policy(policy, _preset_name(policy, Path(path).stem))
        return True

    def save_policy_file(self, path: str | Path) -> None:
        """Write the current policy as a policy file (atomic)."""
        try:
            save_policy(self.state.policy, path)
        except OSError as error:
            self.window_.show_error("Could not save the policy",
                                    [f"{path}: {error.strerror or error}"])

    def _on_mode_box_activated(self, k: int) -> None:
        self.set_mode(self.mode_box.itemData(k))

    def _on_normalise_box_clicked(self, checked: bool) -> None:
        self.set_normalise(checked)

    def _on_load_button_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load policy", "",
                                              "policy files (*.json);;All files (*)")
        if path:
            self.load_policy_file(path)

    def _on_save_button_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save policy", "policy.json",
                                              "policy files (*.json)")
        if path:
            self.save_policy_file(path)

    def _on_policy_item_changing(self, policy) -> None:
        self.state.policy_dragging.emit(policy)

    def _on_policy_item_edited(self, policy) -> None:
        self.state.edit_policy(policy, _preset_name(policy, "custom"))
        # A drag back to where it started is no edit: redraw what the state holds.
        if policy == self.state.policy:
            self._show_tests(policy)
            self._show_policy_scores(policy)

    def _show_policy_controls(self) -> None:
        if not self._built:
            return
        policy, name = self.state.policy, self.state.policy_name
        for letter, button in self.preset_buttons.items():
            button.setChecked(name == letter)
        self.mode_box.setCurrentIndex(self.mode_box.findData(policy.mode))
        self.normalise_box.setChecked(policy.normalise)

    def _show_policy(self) -> None:
        policy = self.state.policy
        bounds = self._bounds(policy)
        self.policy_item.set_policy(policy, bounds)
        item = self.policy_plot.getPlotItem()
        if policy.mode == "relative":
            self._set_time_axis(self.policy_plot, False,
                                "x: place in the model's window (0 oldest test, 1 now)")
        else:
            self._set_time_axis(self.policy_plot, self._dates(),
                                "test time" + (" (UTC)" if self._dates() else ""))
        pad = 0.03 * (bounds[1] - bounds[0])
        item.setXRange(bounds[0] - pad, bounds[1] + pad, padding=0)
        top = max(1.0, float(policy.ws.max()) * 1.25)
        item.setYRange(0.0, top, padding=0)
        how = "normalised over each window" if policy.normalise else "raw weighted sum"
        item.setTitle(f"user policy <b>{html.escape(self.state.policy_name)}</b> "
                      f"({policy.mode}, {how})", size="9pt", color=TEXT)
        self._show_tests(policy)

    def _show_tests(self, policy: Policy) -> None:
        """The tests model M_i weighs under `policy`, drawn as stems of the weight each gets
        (un-normalised P(x), the curve's own scale). Runs on every drag signal."""
        table = self.table()
        i = self.model_index()
        if table is None or i < 0:
            self.stems.setData([], [])
            self.test_marks.setData([], [])
            return
        # M_i's window [l_1, l_i], as in equation 2
        xs, ws = window_tests(policy, table.model_time_values(), table.test_time_values(), i)
        self.stems.setData(*stems(xs, ws))
        # Dots on the stems' tips while they stay distinct (pyqtgraph symbols cost time).
        if xs.size <= MAX_SYMBOLS:
            self.test_marks.setData(xs, ws)
        else:
            self.test_marks.setData([], [])
        # short enough for the plot's height at 1366x768 (the model's name, which may be
        # long, is in the axis' tooltip; the title was cut: "stems: the 5 te", issue 35)
        label = f"P(x) · stems: {xs.size} tests of {html.escape(model_label(table.models[i]))}"
        if label != getattr(self, "_tests_label", None):
            axis = self.policy_plot.getPlotItem().getAxis("left")
            self.policy_plot.getPlotItem().setLabel("left", label)
            axis.setToolTip(f"weight P(x) of each test; the stems: the {xs.size} tests in the "
                            f"window of model version {table.models[i]} "
                            f"(model {i + 1} of {len(table.models)})")
            self._tests_label = label
