"""Opening in the main window: bundles (here, or on a worker with progress and Cancel when
big), loose reference/hypothesis files, the demo, campaigns (loaded and scored on a worker, or
on a Dask cluster) and what the window does when their scores arrive. A mixin of
`MainWindow`, whose widgets and state it uses."""
from __future__ import annotations

import gc
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog

from llgui.core.errors import LoadError
from llgui.utils.regular import file_size

BACKGROUND_BYTES = 32 * 1024
"""A bundle file bigger than this (a few hundred documents) is loaded on a worker."""

OPEN_HOLD_MS = 40
"""At most this long, the jobs of newly opened bundles wait for the paint that shows them, in
a hidden window (which never paints)..."""
OPEN_HOLD_SHOWN_MS = 500
"""...and in a shown one, which paints them (its `paintEvent` releases them) unless covered or
minimised. 40 ms there as well let the jobs out before the paint of 1,000 documents (about
70 ms of filling, laying out and painting): their imports then ran beside it, 150-270 ms
of the event loop instead of 40-60 (gate 9)."""

LOAD_HUSH_MS = 80
"""How long a background load waits for the window to draw its progress bar and Cancel."""


def _font_messages(bundles, characters=()) -> list[str]:
    """Once per bundle, before anything of it is drawn: the characters no installed font
    draws, the bundled fallback font loaded for them, the fix (`llgui.gui.fonts`).
    `characters`: each bundle's, as the load found them (else found here)."""
    from llgui.gui.fonts import check_bundle

    out = []
    for k, bundle in enumerate(bundles):
        check, first = check_bundle(bundle, characters[k] if k < len(characters) else None)
        if first and check.message:
            out.append(f"{bundle.name}: {check.message.rstrip('.')}")
    return out


class Opening:
    """Opening bundles, files and campaigns in `MainWindow`."""

    def open_bundles(self, paths, select_doc: str | None = None, step: int | None = None,
                     tab: str | None = None, metric: str | None = None,
                     background: bool | None = None,
                     then: Callable[[], None] | None = None) -> bool:
        """Load bundles; on any problem show it and keep everything already loaded.

        `background`: load on a worker with progress and Cancel; the rest of the opening
        happens when it arrives, and the return value only says the load started. Otherwise
        load here and say whether every bundle loaded. None (the default) loads in the
        background when a bundle file is big (hundreds of documents or more), here when all
        are small, so the first paint already shows them. `then()` is called once the
        bundles are open (at once, or when a background load arrives)."""
        from llgui.io.open_job import open_bundles

        options = dict(select_doc=select_doc, step=step, tab=tab, metric=metric)
        if background is None:
            background = any(file_size(p) > BACKGROUND_BYTES for p in paths)
        if background:
            self._pending_open = options
            self._pending_then = then
            self.cancel_load_button.setVisible(True)
            # the load waits at its first checkpoints while the progress bar and the Cancel
            # button are drawn (its parser would halve the event loop's speed)
            self.jobs.hush(LOAD_HUSH_MS)
            self.jobs.submit("load", open_bundles, [str(p) for p in paths], urgent=True,
                             background=True)
            return True
        done = self._finish_open(open_bundles([str(p) for p in paths]), **options)
        if then is not None:
            then()
        return done

    def cancel_load(self) -> None:
        """Stop opening bundles: nothing of the cancelled load is shown."""
        self.jobs.cancel("load")
        self.cancel_load_button.setVisible(False)

    def _finish_open(self, opened, select_doc: str | None = None, step: int | None = None,
                     tab: str | None = None, metric: str | None = None) -> bool:
        paths, loaded, problems = opened.paths, list(opened.bundles), list(opened.problems)
        # The loaded bundles live as long as the window: out of the collector's way. Without
        # this, every full collection re-scans them (about 0.1 s for 1,000 documents), on
        # whichever thread allocates, the event loop's included. freeze() is O(1).
        gc.freeze()
        warnings = _font_messages(loaded, opened.characters) + [
            str(w) for b in loaded for w in b.warnings]
        if warnings:   # the load goes on; say what the numbers will not mean
            message = "; ".join(warnings[:3]) + (
                f" (and {len(warnings) - 3} more)" if len(warnings) > 3 else "")
            # once the window is shown: a message shown before hides the signature label
            # only until the window's first show() shows it again, under the message
            QTimer.singleShot(0, lambda: self.statusBar().showMessage(message, 30000))
        # what failed to open, for `--screenshot` to exit non-zero on
        self.open_problems = [str(p) for p in problems] or (
            [] if loaded or not paths else [f"{p}: nothing to open" for p in paths])
        if problems:
            # the files that did not open, not every file asked for (a good bundle opened
            # beside a broken one was named as failed too, outsider helper-52)
            opened_files = {Path(b.path).resolve() for b in loaded if b.path}
            failed = [p for p in paths if Path(p).resolve() not in opened_files] or paths
            title = "Could not open " + ", ".join(str(Path(p).name) for p in failed)
            self.show_error(title, problems)
            if not self.state.bundles and not loaded:
                # the empty workbench keeps the reason (the status message goes after 15 s)
                from llgui.gui.workbench.texts import OPEN_A_BUNDLE

                said = [str(p) for p in problems[:5]]
                more = f"\n… and {len(problems) - 5} more" if len(problems) > 5 else ""
                self.workbench.empty.setText(f"{title}:\n" + "\n".join(said) + more
                                             + "\n\n" + OPEN_A_BUNDLE)
        if not loaded:
            return False
        # the jobs the new bundles start (their scores, the first document's walkthrough)
        # wait for the paint that shows them: their imports and Python would otherwise
        # halve the speed of that paint (paintEvent releases them; a hidden window, which
        # never paints, after OPEN_HOLD_MS)
        if not self.jobs.holding:   # (at start-up the first paint of the window holds them)
            self.jobs.hold()
            QTimer.singleShot(OPEN_HOLD_SHOWN_MS if self.isVisible() else OPEN_HOLD_MS,
                              self.jobs.release)
        self.state.add_bundles(loaded)
        if metric:
            from llgui.core.metrics import metrics_for

            # as the CLI's --metric: any case ("chrF", as the metric box writes it)
            known = sorted({m for b in loaded for m in metrics_for(b.task)})
            wanted = next((m for m in known if m.lower() == metric.lower()), metric)
            tasks = {b.task for b in loaded if wanted in metrics_for(b.task)}
            if not tasks:
                import difflib

                close = difflib.get_close_matches(metric.lower(), known, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problem = (f"--metric {metric}: not a metric of the open bundles (they "
                           f"have {', '.join(known)}){hint}")
                self.show_error("Unknown metric", [problem])
                # (`--screenshot` exits 2 on it, as on `--doc` naming no document)
                self.open_problems = [*getattr(self, "open_problems", []), problem]
            for task in tasks:
                self.state.set_metric(task, wanted)
        self._select_initial(loaded, select_doc, step)
        if tab:
            self.show_tab(tab)
        return not problems

    def _select_initial(self, loaded, select_doc, step) -> None:
        # by index, never through a flat list of every document (10^5 of them)
        bundles = self.state.bundles
        target = None
        if select_doc:
            target = next(((i, select_doc) for i, b in enumerate(bundles)
                           if b.position(select_doc) >= 0), None)
            if target is None:
                problem = _no_such_document(bundles, select_doc)
                self.show_error("No such document", [problem])
                # (`--screenshot` exits 2 on it, as on a bundle that did not open)
                self.open_problems = [*getattr(self, "open_problems", []), problem]
        if target is None and self.state.document() is None:
            target = next(((i, b.documents[0].id) for i, b in enumerate(bundles)
                           if b.documents), None)
        if target is not None:
            self.state.select(*target, step=step or 0)

    def open_bundle_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open bundle", "",
                                                "llgui bundles (*.toml);;All files (*)")
        if paths:
            self.open_bundles(paths)

    def open_files_dialog(self) -> None:
        from llgui.gui.open_files import OpenFilesDialog

        dialog = OpenFilesDialog(self)
        if dialog.exec():
            self.open_loose_files(dialog.result_spec())

    def open_loose_files(self, spec: dict) -> bool:
        """Open a reference/hypothesis pair (MT text or RTTM) as a one-document bundle."""
        from llgui.io.loose import bundle_from_files

        try:
            bundle = bundle_from_files(**spec)
        except LoadError as error:
            self.show_error("Could not open the files", [str(p) for p in error.problems])
            return False
        self.state.add_bundles([bundle])
        self.state.select(self.state.bundles.index(bundle), bundle.documents[0].id)
        return True

    def open_demo(self) -> None:
        from llgui.gui.demo import demo_bundles, demo_campaign

        self.open_bundles(demo_bundles())
        if demo_campaign() is not None:
            self.open_campaign(demo_campaign(), show=False, defer=True)

    def open_campaign_dialog(self) -> None:
        """The campaign file and, optionally, a Dask scheduler's address (remembered in the
        session: `view["campaign_scheduler"]`)."""
        from llgui.gui.open_campaign import OpenCampaignDialog

        dialog = OpenCampaignDialog(self, getattr(self, "_campaign_path", None) or "",
                                    self.state.view.get("campaign_scheduler") or "")
        if dialog.exec() != OpenCampaignDialog.DialogCode.Accepted:
            return
        path, scheduler = dialog.result_spec()
        if scheduler:
            self.state.view["campaign_scheduler"] = scheduler
        else:
            self.state.view.pop("campaign_scheduler", None)
        if path:
            self.open_campaign(path, scheduler=scheduler)

    def open_campaign(self, path, show: bool = True, defer: bool = False,
                      scheduler: str | None = None) -> bool:
        """Load a campaign and score its cells on a worker (cached cells come back at once);
        problems are shown and the rest is scored, as `llgui campaign` does (on the Dask
        cluster at `scheduler` when given, else on this machine). `show` brings
        the Systems view forward when the scores arrive; `defer` waits until the Systems or
        Across-time tab is first shown (the demo: no scoring unless someone looks)."""
        if not Path(path).is_file():
            self.show_error("Could not open the campaign", [f"{path}: file not found"])
            return False
        self._campaign_show = show
        if defer and self.tabs.currentWidget() not in (self.systems_view, self.time_tab):
            self._pending_campaign = str(path)
            self.systems_view.set_progress_text(f"{Path(path).name}: scored when this tab "
                                                "or Across time is shown")
            return True
        self._pending_campaign = None
        where = f"the Dask cluster at {scheduler}" if scheduler else "a worker"
        self.systems_view.set_progress_text(f"{Path(path).name}: loading and scoring the "
                                            f"cells on {where}…")
        self._campaign_path = str(path)   # the Systems view's paired test reads it again
        from llgui.gui.jobs.campaign import campaign_job

        self.jobs.submit("campaign", campaign_job, str(path), scheduler)
        return True

    def _on_campaign_scored(self, result) -> None:
        report = result.report
        from llgui.gui.fonts import prepare, strings_of

        font_note = prepare(strings_of(report)).message   # its names, before they are drawn
        if font_note:
            self.statusBar().showMessage(f"{report.get('campaign', 'campaign')}: {font_note}",
                                         30000)
        self.systems_view.set_campaign(report, result.tables,
                                       path=getattr(self, "_campaign_path", None))
        self.time_tab.set_campaign(result.tables)
        if getattr(self, "_campaign_path", None):   # flips between versions (section 1.9)
            self.time_tab.flips.load(self._campaign_path)
        if report["problems"]:
            self.show_error(f"Problems in {report['campaign']} (the rest was scored)",
                            report["problems"])
        if getattr(self, "_campaign_show", True):
            self.show_tab("systems")


def _no_such_document(bundles, wanted: str) -> str:
    """`--doc WANTED` named no open document: said with the closest ids (over at most 10^4
    of them: a long bundle's ids are not all listed)."""
    import difflib
    from itertools import islice

    ids = list(islice((d.id for b in bundles for d in b.documents), 10000))
    close = difflib.get_close_matches(wanted, ids, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listed = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
    return (f"--doc {wanted}: no such document in the open bundles{hint} "
            f"(documents: {listed or 'none'})")
