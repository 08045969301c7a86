"""The "Detection" tab: DET curves on probit axes, EER, min/act DCF of every system (DESIGN 1.6).

Every detection system of the open bundles is evaluated by `llgui.core.detection.det.evaluate` on a
worker (JobRunner key "det"): the newest request wins, so changing the DCF settings or the EER
method while a job runs replaces it, and Cancel (or Esc) stops it and keeps what was shown.
The EER and minDCF intervals, and the DET bands, come from one job (`bands.DetBands`, "det:bands",
issue 27: one EER interval method in the window).

The plot follows the NIST look: x "False Alarm probability (in %)", y "Miss probability
(in %)", ticks at 0.1 0.2 0.5 1 2 5 10 20 40 (ProbitAxisItem), the EER line (the diagonal),
and on each curve the EER point (circle), the minDCF point (square) and the actDCF point
(cross). The table beside it gives the numbers, as `llgui det --format table` prints them.
"""
from __future__ import annotations

import html
import math
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel,
    QProgressBar, QPushButton, QSizePolicy, QSplitter, QTableWidget, QTableWidgetItem,
    QStackedWidget, QVBoxLayout, QWidget,
)

from llgui.core.display.palette import DET_CURVE_COLOURS
from llgui.gui.detection import hints as plot_hints
from llgui.gui.widgets.plot_export import export_widget

PALETTE = DET_CURVE_COLOURS
COLUMNS = ("system", "targets", "non-targets", "EER %", "method", "minDCF", "actDCF")
TEXT = "#222222"
JOB_KEY = "det"


def _det():
    """llgui.core.detection.det, imported on first use: it loads scipy.special (about a quarter of a
    second), which the window's start-up must not pay (benchmark gate 5)."""
    from llgui.core.detection import det

    return det


WARM_IMPORTS = ("llgui.core.detection.det", "llgui.core.significance.detection")
"""What the tab's first show imports (`_det`, the DET bands): imported on a thread while the
user reads, with detection scores open (`DetectionTab.warm_step`)."""


def _import_ahead() -> None:
    import importlib

    for name in WARM_IMPORTS:
        try:
            importlib.import_module(name)
        except Exception:   # (the show imports it again, and says what went wrong)
            return


def _separated(result) -> bool:
    """`llgui.core.display.det_plot.separated`, imported on first use (it loads det)."""
    from llgui.core.display.det_plot import separated

    return separated(result)


def _separated_note(results) -> str:
    names = [html.escape(r.name) for r in results if _separated(r)]
    if not names:
        return ""
    return (f" <b>{', '.join(names)}: perfectly separated</b> (every target scores above every "
            f"non-target): EER and minDCF are 0 and the DET curve lies on the axes, so "
            f"nothing of it can be drawn on probit axes.")


def _dcf_text(dcf) -> str:
    p, cm, cfa = dcf
    return f"P_target={p:g}, C_miss={cm:g}, C_fa={cfa:g}"


class DetectionTab(QWidget):
    """The tab builds its widgets, and evaluates, the first time it is shown (or asked
    through a public method): detection costs the window's start-up nothing."""

    def __init__(self, state, jobs, window, parent: QWidget | None = None):
        super().__init__(parent)
        self.state, self.jobs, self.window_ = state, jobs, window
        self.systems_override = None     # Trials given by set_systems (tests, scripts)
        self.results: tuple = ()         # the DetResults on screen
        self.shown_dcf = None            # the (p_target, c_miss, c_fa) they were computed with
        self.shown_count = 0             # how many job results were drawn (tests)
        self._request_timer = QTimer(self)
        self._request_timer.setSingleShot(True)
        self._request_timer.setInterval(200)   # typing 0.001 is one request, not four
        self._request_timer.timeout.connect(self.request)
        self._built = False
        self._import_thread = None       # `warm_step`'s
        self._stale = True               # the bundles changed since the last request
        QVBoxLayout(self).setContentsMargins(4, 4, 4, 4)

        state.bundles_changed.connect(self._on_state_bundles_changed)
        jobs.result_ready.connect(self._on_jobs_result_ready)
        jobs.failed.connect(self._on_jobs_failed)
        jobs.progressed.connect(self._on_jobs_progressed)
        jobs.cancelled.connect(self._on_jobs_cancelled)

    def warm_step(self) -> bool:
        """(`llgui.gui.window.warm_tabs`, while the user reads) With detection scores open
        and the tab not yet shown, import what its first show needs on a thread:
        `llgui.core.detection.det` loads scipy.special, 150 ms of the demo's 95-157-ms first
        show, in one turn of the event loop; on a thread the window's thread waits a few
        milliseconds at a time. False: nothing (more) to do."""
        import sys
        import threading

        if (self._import_thread is not None or self._built
                or all(name in sys.modules for name in WARM_IMPORTS)
                or not any(b.task == "detection" for b in self.state.bundles)):
            return False
        self._import_thread = threading.Thread(target=_import_ahead, daemon=True,
                                               name="llgui-detection-imports")
        self._import_thread.start()
        return True

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self._ensure_built()
        if self._stale and self.systems_override is None:
            self.request()

    def _ensure_built(self) -> None:
        if self._built:
            return
        self._built = True
        self._build_controls()
        self._build_plot()
        self._build_table()
        self._build_threshold_views()
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.status)
        rl.addWidget(self.table, 1)
        rl.addWidget(self.notes)
        right_split = QSplitter(Qt.Orientation.Vertical)
        right_split.addWidget(right)
        right_split.addWidget(self.threshold_panel)
        right_split.setSizes([280, 470])
        left_split = QSplitter(Qt.Orientation.Vertical)
        left_split.addWidget(self.plot)
        left_split.addWidget(self.lecture_views)
        left_split.setSizes([500, 300])
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left_split)
        split.addWidget(right_split)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([560, 600])
        content = QWidget()
        inner = QVBoxLayout(content)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addLayout(self.controls)
        inner.addWidget(split, 1)
        # no detection scores among the open bundles: words, not empty plots and tables
        # (issue 23 item 19)
        self.empty = QLabel("")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setMargin(40)
        self.pages = QStackedWidget()
        self.pages.addWidget(content)
        self.pages.addWidget(self.empty)
        self.layout().addWidget(self.pages, 1)
        self._draw()

    # -- building ---------------------------------------------------------------------------

    def _build_controls(self) -> None:
        bar = QHBoxLayout()
        det = _det()
        self.preset_box = QComboBox()
        for dcf in det.DCF_PRESETS:
            self.preset_box.addItem(", ".join(f"{v:g}" for v in dcf), dcf)
        self.preset_box.addItem("custom", None)
        self.preset_box.setToolTip("DCF operating point (P_target, C_miss, C_fa)")
        self.preset_box.activated.connect(self._on_preset_box_activated)
        self.p_target = QDoubleSpinBox()
        self.p_target.setDecimals(6)
        self.p_target.setRange(0.000001, 0.999999)
        self.p_target.setSingleStep(0.001)
        self.c_miss = QDoubleSpinBox()
        self.c_fa = QDoubleSpinBox()
        for box in (self.c_miss, self.c_fa):
            box.setDecimals(3)
            box.setRange(0.001, 1e6)
        for box in (self.p_target, self.c_miss, self.c_fa):
            box.setKeyboardTracking(False)
            box.valueChanged.connect(self._on_dcf_box_changed)
        self.method_box = QComboBox()
        for method in det.EER_METHODS:
            self.method_box.addItem(method, method)
        self.method_box.setToolTip("rocch: EER of the ROC convex hull (BOSARIS, bob.measure); "
                                   "threshold: interpolated crossing of the curve itself")
        self.method_box.activated.connect(lambda _k: self.request())
        from llgui.gui.detection.bands import DetBands   # issue 15: DET bands, EER/minDCF intervals

        self.bands = DetBands(self)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("stop the computation; what is shown stays")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.setEnabled(False)
        self.reset_button = QPushButton("Reset view")
        self.reset_button.setToolTip("back to the NIST range, 0.05 % to 50 % on both axes")
        self.reset_button.clicked.connect(self.reset_view)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(140)
        self.progress.setVisible(False)
        self.status = QLabel("")   # shown above the table
        self.status.setWordWrap(True)
        # Long status texts must not widen the window.
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # two rows, so the tab fits a 1280-pixel screen beside the documents dock
        for widget in (QLabel("DCF (P_target, C_miss, C_fa)"), self.preset_box,
                       QLabel("P_target"), self.p_target,
                       QLabel("C_miss"), self.c_miss, QLabel("C_fa"), self.c_fa):
            bar.addWidget(widget)
        bar.addStretch(1)
        second = QHBoxLayout()
        for widget in (QLabel("EER"), self.method_box, self.bands.box):
            second.addWidget(widget)
        second.addSpacing(10)
        second.addWidget(self.progress)
        second.addWidget(self.cancel_button)
        second.addStretch(1)
        second.addWidget(self.reset_button)
        rows = QVBoxLayout()
        rows.addLayout(bar)
        rows.addLayout(second)
        self.controls = rows
        self._set_dcf_boxes(self._bundles_dcf() or det.DCF_PRESETS[0])

    def _build_plot(self) -> None:
        from llgui.gui.widgets.probit_axis import ProbitAxisItem   # imports det (scipy): lazily

        self.x_axis = ProbitAxisItem("bottom")
        self.y_axis = ProbitAxisItem("left")
        self.plot = pg.PlotWidget(axisItems={"bottom": self.x_axis, "left": self.y_axis})
        self.plot.setBackground("w")
        item = self.plot.getPlotItem()
        item.setMenuEnabled(False)
        item.hideButtons()
        item.showGrid(x=True, y=True, alpha=0.25)
        # one probit unit is as long across as up: the EER diagonal at 45°, a DET curve's
        # shape as NIST draws it (the wider side shows more of the axis, never a stretch)
        item.getViewBox().setAspectLocked(True, ratio=1.0)
        for axis in (self.x_axis, self.y_axis):
            axis.setTextPen(TEXT)
        item.setLabel("bottom", "False Alarm probability (in %)")
        item.setLabel("left", "Miss probability (in %)")
        # bottom left: the corner no real DET curve reaches (top right hid the EER points)
        self.legend = item.addLegend(offset=(8, -8), labelTextSize="9pt", labelTextColor=TEXT,
                                     brush=pg.mkBrush(255, 255, 255, 215))
        self.edge_hints = plot_hints.EdgeHints(item)   # operating points outside the view
        self.reset_view()

    def _build_threshold_views(self) -> None:
        """The shared threshold (llgui.gui.detection): P/R/F panel, ROC / histograms / Q-Q,
        and the DET plot as the threshold's handle."""
        from llgui.gui.detection.link import DetThresholdLink
        from llgui.gui.detection.lecture_views import LectureViews
        from llgui.gui.detection.threshold import ThresholdPanel, ThresholdState

        self.threshold_state = ThresholdState(self)
        self.threshold_panel = ThresholdPanel(self.threshold_state)
        self.lecture_views = LectureViews(self.threshold_state, PALETTE)
        self.det_link = DetThresholdLink(
            self.plot, self.threshold_state, lambda: self.results,
            lambda name: next((PALETTE[k % len(PALETTE)] for k, r in enumerate(self.results)
                               if r.name == name), PALETTE[0]), self)

    def _sync_threshold_views(self) -> None:
        """Give the threshold views the systems on screen, their scores and trial ids."""
        from llgui.core.detection.track import make_det_metric

        trials = {t.name: t for t in self.systems()}
        ids, starts = {}, {}
        for b in self.state.bundles:
            if b.task != "detection":
                continue
            try:   # where the bundle decides (its S_base's error rate)
                decides = make_det_metric("err", b.settings).decision_threshold
            except (TypeError, ValueError):
                decides = None
            for doc in b.documents:
                if doc.id in trials and trials[doc.id] is doc.trials:
                    ids[doc.id] = doc.items
                    if decides is not None:
                        starts[doc.id] = decides
        shown = [r for r in self.results if r.name in trials]
        # the lecture views drawn once: the threshold panel's change of system or threshold
        # draws them (with the systems given first), else they are drawn here (they were drawn
        # twice, first with the last results: 30 ms of the demo's 170-ms first show)
        self.lecture_views.set_systems(shown, trials, draw=False)
        drawn = self.lecture_views.draws
        self.threshold_panel.set_systems(shown, trials, ids, starts)
        if self.lecture_views.draws == drawn:
            self.lecture_views.draw_all()
        self.det_link.redraw()

    def _build_table(self) -> None:
        table = QTableWidget(0, len(COLUMNS))
        table.setHorizontalHeaderLabels(COLUMNS)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.verticalHeader().setVisible(False)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.setAlternatingRowColors(True)
        self.table = table
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.RichText)
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop)

    # -- requests ---------------------------------------------------------------------------

    def systems(self) -> list:
        """The Trials to evaluate: set_systems's, else every system of the open bundles
        (named "<bundle> / <system>" when two bundles share a system name)."""
        if self.systems_override is not None:
            return list(self.systems_override)
        trials = [(b, t) for b in self.state.bundles if b.task == "detection"
                  for t in b.detection]
        names = [t.name for _, t in trials]
        if len(set(names)) == len(names):
            return [t for _, t in trials]
        from llgui.core.types import Trials

        return [Trials(f"{b.name or Path(b.path or '').stem} / {t.name}", t.scores,
                       t.is_target, t.path) for b, t in trials]

    def set_systems(self, systems) -> int | None:
        """Evaluate these Trials instead of the bundles' (None: back to the bundles')."""
        self._ensure_built()
        self.systems_override = None if systems is None else list(systems)
        return self.request()

    def dcf(self) -> tuple[float, float, float]:
        """The DCF settings as the controls hold them: (p_target, c_miss, c_fa)."""
        self._ensure_built()
        return (self.p_target.value(), self.c_miss.value(), self.c_fa.value())

    def eer_method(self) -> str:
        self._ensure_built()
        return self.method_box.currentData()

    def _bundles_dcf(self) -> tuple[float, float, float] | None:
        """The operating point the open detection bundles state in their `[settings]`
        (`llgui.api.bundle_dcf`: what `llgui score` and `replay` use), when they agree on one
        other than the default; None otherwise."""
        from llgui.api import DEFAULT_DCF, bundle_dcf

        points = {bundle_dcf(b) for b in self.state.bundles if b.task == "detection"}
        return points.pop() if len(points) == 1 and points != {DEFAULT_DCF} else None

    def set_dcf(self, dcf, method: str | None = None) -> int | None:
        """Set the DCF settings (and EER method) and recompute now; returns the job id."""
        self._ensure_built()
        self._dcf_chosen = True
        self._set_dcf_boxes(dcf)
        if method is not None:
            self.method_box.setCurrentIndex(self.method_box.findData(method))
        return self.request()

    def request(self) -> int | None:
        """Evaluate every system on a worker with the current settings (replacing a running
        job); returns the job id, None when there is nothing to evaluate."""
        self._ensure_built()
        self._request_timer.stop()
        self._stale = False
        systems = self.systems()
        if not systems:
            self.jobs.cancel(JOB_KEY)
            self._draw()
            return None
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.cancel_button.setEnabled(True)
        self.status.setText(f"computing {len(systems)} system{'s' if len(systems) > 1 else ''}"
                            f" ({_dcf_text(self.dcf())})…")
        job = self.jobs.submit(JOB_KEY, _det().evaluate_systems, systems, self.dcf(),
                               self.eer_method())
        self.bands.request()
        return job

    def cancel(self) -> None:
        """Stop the running jobs; the results on screen stay as they are."""
        if not self._built:
            return
        self._request_timer.stop()
        self.jobs.cancel(JOB_KEY)
        self.jobs.cancel("det:bands")

    def _set_dcf_boxes(self, dcf) -> None:
        for box, value in zip((self.p_target, self.c_miss, self.c_fa), dcf):
            box.blockSignals(True)
            box.setValue(float(value))
            box.blockSignals(False)
        self._match_preset()

    def _match_preset(self) -> None:
        dcf = self.dcf()
        presets = _det().DCF_PRESETS
        k = next((i for i, p in enumerate(presets)
                  if all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(p, dcf))),
                 len(presets))
        self.preset_box.setCurrentIndex(k)

    # -- reactions --------------------------------------------------------------------------

    @Slot()
    def _on_state_bundles_changed(self) -> None:
        if self.systems_override is not None:
            return
        if self._built and not getattr(self, "_dcf_chosen", False):
            # until the user picks one: the bundles' own operating point (a bundle with
            # p_target = 0.5 showed minDCF at 0.01, where `llgui replay` used 0.5)
            self._set_dcf_boxes(self._bundles_dcf() or _det().DCF_PRESETS[0])
        if self._built and self.isVisible():
            self.request()
        else:
            self._stale = True   # evaluated when the tab is shown

    def _on_preset_box_activated(self, k: int) -> None:
        dcf = self.preset_box.itemData(k)
        if dcf is not None:
            self.set_dcf(dcf)

    def _on_dcf_box_changed(self, _value: float) -> None:
        self._dcf_chosen = True
        self._match_preset()
        self._request_timer.start()

    def _busy(self) -> bool:
        return self.jobs.is_running(JOB_KEY)

    def _idle_controls(self) -> None:
        if not self._busy():
            self.progress.setVisible(False)
            self.cancel_button.setEnabled(False)

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result) -> None:
        if not self._built:
            return
        if key == JOB_KEY:
            self.results = tuple(result)
            self.shown_dcf = self.results[0].dcf if self.results else None
            self.shown_count += 1
            self.status.setText(self._summary_text())
            self._draw()
        else:
            return
        self._idle_controls()

    @Slot(str, str)
    def _on_jobs_failed(self, key: str, message: str) -> None:
        if self._built and key == JOB_KEY:
            self.status.setText(f"could not evaluate: {message}")
            self._idle_controls()

    @Slot(str, float)
    def _on_jobs_progressed(self, key: str, fraction: float) -> None:
        if self._built and key == JOB_KEY:
            self.progress.setValue(int(1000 * fraction))

    @Slot(str)
    def _on_jobs_cancelled(self, key: str) -> None:
        if self._built and key == JOB_KEY:
            shown = "the previous result stays" if self.results else "nothing computed"
            self.status.setText(f"cancelled — {shown}")
            self._idle_controls()

    def _summary_text(self) -> str:
        if not self.results:
            return ""
        sizes = {(r.n_target, r.n_nontarget) for r in self.results}
        if len(sizes) == 1:
            (t, n), = sizes
            trials = f"{t + n:,} trials each ({t:,} targets)"
        else:
            trials = "trial lists of different sizes"
        return f"{len(self.results)} systems, {trials}"

    # -- drawing ----------------------------------------------------------------------------

    def reset_view(self) -> None:
        from llgui.gui.widgets.probit_axis import DEFAULT_RANGE

        self._ensure_built()
        item = self.plot.getPlotItem()
        # both ranges at once: the locked aspect widens the longer side's, never cuts one
        item.getViewBox().setRange(xRange=DEFAULT_RANGE, yRange=DEFAULT_RANGE, padding=0)

    def _draw(self) -> None:
        probit = _det().probit
        item = self.plot.getPlotItem()
        item.clear()
        self.legend.clear()
        lo, hi = float(probit(1e-5)), float(probit(1 - 1e-5))
        item.plot([lo, hi], [lo, hi], pen=pg.mkPen("#999999", width=1,
                                                   style=Qt.PenStyle.DashLine))
        nothing = not self.results and not self.systems()
        if nothing:
            names = {"mt": "MT", "diarization": "diarization", "classification": "classification"}
            tasks = sorted({names.get(b.task, b.task) for b in self.state.bundles})
            self.empty.setText(
                "No detection scores open"
                + (f": the open bundles are {', '.join(tasks)}." if tasks else ".")
                + "\n\nThis tab draws DET curves, EER and DCFs of detection systems: open a "
                  "bundle with task = \"detection\" (File › Open bundle…) or target and "
                  "non-target score files (File › Open files…).")
        self.pages.setCurrentIndex(1 if nothing else 0)
        if not self.results:
            if getattr(self, "title", None) is not None:
                self.title.clear()   # not re-fitted over the text below
            item.setTitle("no detection scores open" if not self.systems()
                          else "computing…", size="9pt", color=TEXT)
            self._fill_table()
            return
        under = _drawn_under(self.results)
        eer_spots, min_spots, act_spots = [], [], []   # every system's, one item each (below)
        for k, r in enumerate(self.results):
            colour = QColor(PALETTE[k % len(PALETTE)])
            c = r.plot_curve
            # (a curve hidden under a later one's says so; its numbers are in the table)
            item.plot(probit(c.p_fa), probit(c.p_miss), pen=pg.mkPen(colour, width=2),
                      name=(f"{html.escape(r.name)} — the same curve as "
                            f"{html.escape(self.results[under[k]].name)}, under it"
                            if k in under else
                            f"{html.escape(r.name)} — perfectly separated (EER 0 %)"
                            if _separated(r) else
                            f"{html.escape(r.name)} — EER {r.eer_percent:.2f} %, "
                            f"minDCF {r.min_dcf:.4f}"))
            if r.eer_method == "rocch":
                plot_hints.draw_hull(item, r, colour, probit)   # the ROCCH EER lies on it
            e = float(probit(r.eer))
            eer_spots.append({"pos": (e, e), "pen": pg.mkPen(colour, width=2)})
            m = r.min_dcf_point
            min_spots.append({"pos": (float(probit(m.p_fa)), float(probit(m.p_miss))),
                              "brush": pg.mkBrush(colour)})
            a = r.act_dcf_point
            act_spots.append({"pos": (float(probit(a.p_fa)), float(probit(a.p_miss))),
                              "pen": pg.mkPen(colour, width=1), "brush": pg.mkBrush(colour)})
        # the points of all systems in one item per kind, over every curve: an item per
        # point cost 2-4 ms each to make and add (15 of the demo's 39 plot items)
        for spots, symbol, size, pen, brush in (
                (eer_spots, "o", 11, None, pg.mkBrush("w")),
                (min_spots, "s", 9, pg.mkPen("k", width=1), None),
                (act_spots, "x", 11, None, None)):
            points = pg.ScatterPlotItem(symbol=symbol, size=size)
            if pen is not None:
                points.setPen(pen)
            if brush is not None:
                points.setBrush(brush)
            points.addPoints(spots)
            item.addItem(points)
        self.bands.draw(item, self.results, PALETTE)
        hints = []
        for k, r in enumerate(self.results):
            colour = QColor(PALETTE[k % len(PALETTE)])
            if _separated(r):
                continue   # its points are at the corners; the legend and the notes say so
            for what, (fa, miss) in (("EER", (r.eer, r.eer)),
                                     ("minDCF", (r.min_dcf_point.p_fa, r.min_dcf_point.p_miss)),
                                     ("actDCF", (r.act_dcf_point.p_fa, r.act_dcf_point.p_miss))):
                # a rate of 0 or 1 as an infinite probit (probit() clips it to about +-8.1),
                # so that its hint says which is 0
                hints.append((_edge_probit(fa, probit), _edge_probit(miss, probit), colour,
                              f"{r.name} {what}"))
        self.edge_hints.set_points(hints)
        dcf = self.results[0].dcf
        if getattr(self, "title", None) is None:
            from llgui.gui.widgets.fit_title import FittedTitle

            # on as many lines as the plot's width needs (cut at 1366 and 1500 px)
            self.title = FittedTitle(self.plot, 9, TEXT)
        self.title.set([f"○ EER ({self.results[0].eer_method})", "■ minDCF",
                        f"✕ actDCF at {_dcf_text(dcf)}", "◆ threshold (click or drag)"])
        self._fill_table()
        self._sync_threshold_views()

    def _fill_table(self) -> None:
        table = self.table
        table.setRowCount(len(self.results))
        for row, r in enumerate(self.results):
            cells = [
                (r.name, r.name), (f"{r.n_target:,}", r.n_target),
                (f"{r.n_nontarget:,}", r.n_nontarget), (f"{r.eer_percent:.3f}", r.eer_percent),
                (r.eer_method, r.eer_method), (f"{r.min_dcf:.4f}", r.min_dcf),
                (f"{r.act_dcf:.4f}", r.act_dcf),
            ]
            if r.llr_warning:   # actDCF takes scores as LLRs; these cannot be (core.llr)
                cells[6] = (cells[6][0] + " !", cells[6][1])
            for col, (text, value) in enumerate(cells):
                cell = QTableWidgetItem(text)
                cell.setData(Qt.ItemDataRole.UserRole, value)   # the exact number
                if col == 6 and r.llr_warning:
                    cell.setToolTip("actDCF takes the scores as log-likelihood ratios, and "
                                    f"these cannot be: {r.llr_warning}")
                if col == 0:
                    cell.setForeground(QColor(PALETTE[row % len(PALETTE)]))
                elif col != 4:
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(row, col, cell)
        self.bands.fill_table(table, self.results)
        # every system's row in sight (up to 8; 3½ of 4 at 1366x768, issue 35): compact rows
        # and a table at least as tall as them
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
        rows = min(table.rowCount(), 8)
        table.setMinimumHeight(table.horizontalHeader().sizeHint().height()
                               + rows * table.verticalHeader().defaultSectionSize()
                               + 2 * table.frameWidth()
                               + table.horizontalScrollBar().sizeHint().height())
        if self.results:
            p, cm, cfa = self.results[0].dcf
            threshold = _det().bayes_threshold(p, cm, cfa)
            self.notes.setText(
                f"<small>Dashed: the EER line P<sub>miss</sub> = P<sub>fa</sub>; points "
                f"outside 0.05–50 % are off the plot (Reset view, or zoom with the wheel). "
                f"EER in percent, by the {html.escape(self.results[0].eer_method)} "
                f"method (rocch: ROC convex hull, as BOSARIS and bob.measure; threshold: "
                f"interpolated crossing of the curve). minDCF and actDCF are normalised by "
                f"min(C_miss·P_target, C_fa·(1 − P_target)) at {_dcf_text((p, cm, cfa))}; "
                f"actDCF takes the scores as natural-log likelihood ratios and accepts at "
                f"score ≥ {threshold:.3f} (the Bayes threshold). Same numbers as "
                f"<code>llgui det … --format table</code>. Dotted: each system's ROC "
                f"convex hull (on DET axes), on which the rocch EER point lies; arrows at the "
                f"edge: points outside the view; the legend can be dragged off a curve."
                f"{_separated_note(self.results)}</small>")
        else:
            self.notes.setText("")

    def table_rows(self) -> list[dict]:
        """The table's exact numbers, one dict per row (the CLI's JSON keys)."""
        self._ensure_built()
        out = []
        for row in range(self.table.rowCount()):
            values = [self.table.item(row, c).data(Qt.ItemDataRole.UserRole)
                      for c in range(len(COLUMNS))]
            out.append(dict(zip(("name", "n_target", "n_nontarget", "eer", "eer_method",
                                 "min_dcf", "act_dcf"), values)))
        return out

    # -- export -----------------------------------------------------------------------------

    def export_plot(self, path: str) -> None:
        """Write the DET plot as PNG or SVG."""
        self._ensure_built()
        export_widget(self.plot, path, "llgui: DET plot")


__all__ = ["DetectionTab"]


def _edge_probit(rate: float, probit) -> float:
    """probit(rate), with 0 and 1 at -inf and +inf (the edge hints name them)."""
    rate = float(rate)
    return -math.inf if rate <= 0.0 else math.inf if rate >= 1.0 else float(probit(rate))


def _drawn_under(results) -> dict[int, int]:
    """{k: j} for each system k whose DET curve is system j's point for point, j the last
    such system drawn after it (its curve hides k's: an adapting system that never changed
    its scores, the demo's "adaptive" under "static")."""
    import numpy as np

    under: dict[int, int] = {}
    for k, r in enumerate(results):
        for j in range(len(results) - 1, k, -1):
            a, b = r.plot_curve, results[j].plot_curve
            if (len(a.p_fa) == len(b.p_fa) and np.array_equal(a.p_fa, b.p_fa)
                    and np.array_equal(a.p_miss, b.p_miss)):
                under[k] = j
                break
    return under

