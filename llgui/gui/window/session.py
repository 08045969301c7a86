"""The main window's session: the bundles, document, step, metrics, cost models, policy and
view of the last session reopened at start, saved at close (`llgui.gui.state` reads and
writes the file). A mixin of `MainWindow`."""
from __future__ import annotations

import sys
from pathlib import Path

from llgui.gui.state import read_session


class SessionActions:
    """Restoring and saving the session of `MainWindow`."""

    def restore_session(self) -> None:
        """Reopen the bundles, document, step, cost models and policy of the last session."""
        if not self.use_session:
            return
        data, problem = read_session()
        if problem is not None:
            # said once: in the status bar, and on stderr for whoever started us from a shell
            self.statusBar().showMessage(problem, 30000)
            print(f"llgui: {problem}", file=sys.stderr)
            return
        if data is None:
            return
        paths = [p for p in data.get("bundles", []) if p and Path(p).exists()]
        if not paths:
            return
        self.apply_session(data, paths)

    def apply_session(self, data: dict, paths: list[str]) -> None:
        # the rest waits for the bundles (a big one loads on a worker)
        self.open_bundles(paths, then=lambda: self._apply_session_state(data))

    def _apply_session_state(self, data: dict) -> None:
        from llgui.core.cost import CostModel
        from llgui.core.across_time.policy import Policy

        for task, metric in (data.get("metrics") or {}).items():
            self.state.set_metric(task, metric)
        for i, b in enumerate(self.state.bundles):
            saved = (data.get("cost_models") or {}).get(b.path)
            if saved:
                try:
                    self.state.cost_models[i] = CostModel.from_dict(saved)
                except (TypeError, ValueError) as error:
                    self.statusBar().showMessage(
                        f"Session file: the saved cost model of {b.path} was not restored "
                        f"({error}); the bundle's own is used", 15000)
                self.state.cost_model_changed.emit(i)
        policy = data.get("policy")
        if isinstance(policy, dict):
            try:
                name = policy.get("name", "custom")
                self.state._apply_policy(Policy.from_dict(policy), name)
            except (TypeError, ValueError, KeyError) as error:
                self.statusBar().showMessage(f"Session file: the saved policy was not "
                                             f"restored ({error}); policy B is used", 15000)
        selection = data.get("selection") or {}
        for i, b in enumerate(self.state.bundles):
            if b.path == selection.get("bundle") and selection.get("doc"):
                try:
                    b.document(selection["doc"])
                except KeyError:
                    break
                self.state.select(i, selection["doc"], int(data.get("step") or 0))
        self.state.view.update(data.get("view") or {})

    def save_session(self) -> None:
        if self.use_session and (self.state.bundles or self.state.view.get(
                "campaign_scheduler")):
            try:
                self.state.save()
            except OSError as error:
                self.statusBar().showMessage(f"Could not save the session: {error}", 10000)
