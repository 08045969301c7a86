"""The "Across time" tab: the user-policy editor, S_P of every model version, the score matrix,
the continual-learning summaries, and the per-document time series (DESIGN.md 1.4, 1.5).

One bundle at a time (a combo chooses among the open MT / diarization bundles), or one system
of an open campaign (the system combo, shown once a campaign is open): its lifelong table is
the campaign's matrix, and the S_P plot overlays every other system's S_P under the current
policy (thin lines), so systems compare under the policy being edited. The tab reads
the session state and writes only through it: a released drag, a preset, a mode or normalise
change, a loaded policy file each become one `state.edit_policy(...)` (undoable); while a
handle is dragged the provisional policy goes out on `state.policy_dragging` and S_P of every
model version is recomputed on each (throttled) signal on the main thread, which the core does
in well under a millisecond for the demo and in about a millisecond for 200 x 200 (gate 4).

Numbers come from the core: `across_time.scores.policy_scores` (equations 2 and 3),
`across_time.scores.continual_summary` (ACC, BWT, FWT), `across_time.scores.diagonal`, `across_time.policy.window_weights`;
per-document S_base / S_adapt / S_pen and costs from the main window's collection jobs
(`penalty.BundleReplay`, keys "collection:<bundle index>").
"""
from __future__ import annotations

import html
import math
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, Slot
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QStackedWidget, QTabWidget,
    QCheckBox, QComboBox, QFileDialog, QHBoxLayout, QLabel, QPushButton, QSplitter,
    QVBoxLayout, QWidget,
)

from llgui.core.errors import LoadError
from llgui.core.display.layout import (
    date_labels, finite_extent, nearest_index, pad_range, stems,
)
from llgui.core.display.names import model_label
from llgui.core.display.palette import CAMPAIGN_SYSTEM_COLOURS
from llgui.gui.widgets.plot_legend import legend_below
from llgui.core.across_time.scores import continual_summary, diagonal, policy_scores
from llgui.core.across_time.policy import (
    PRESET_DESCRIPTIONS, PRESETS, Policy, window_columns, window_tests,
)
from llgui.core.metrics import display_name, higher_is_better
from llgui.io.policy_file import load_policy, save_policy
from llgui.gui.widgets.plot_export import export_widget
from llgui.gui.across_time.flips_panel import FlipsPanel
from llgui.gui.across_time.heatmap import ScoreHeatmap
from llgui.gui.across_time.policy_item import CURVE, PolicyCurveItem

PRESET_COLOURS = {"A": "#16a085", "B": "#7f8c8d", "C": "#a0522d"}
PRESET_SHORT = {"A": "contemporary", "B": "uniform", "C": "past"}   # legend; tooltips say more
PEN_COLOUR = "#8e44ad"
SERIES_COLOURS = {"s_base": "#7f8c8d", "s_adapt": "#27ae60", "s_pen": "#8e44ad"}
DIAGONAL_COLOUR = "#e67e22"
COST_COLOUR = "#34495e"
SYSTEM_COLOURS = CAMPAIGN_SYSTEM_COLOURS
"""The other systems of a campaign, overlaid on the S_P plot."""
MAX_NAMED_SYSTEMS = 4
"""Other systems of a campaign named one by one in the S_P legend; beyond, one entry."""
MAX_SYMBOLS = 60   # curves with more points are drawn without symbols (faster, and clearer)
MODES = (("relative", "relative"), ("absolute", "absolute"))
TEXT = "#222222"   # axis text and titles: darker than pyqtgraph's grey, readable at a glance


def _plot(title: str = "") -> pg.PlotWidget:
    widget = pg.PlotWidget()
    widget.setBackground("w")
    item = widget.getPlotItem()
    item.setMenuEnabled(False)
    item.showGrid(x=True, y=True, alpha=0.15)
    if title:
        item.setTitle(title, size="9pt", color=TEXT)
    for name in ("left", "bottom"):
        item.getAxis(name).enableAutoSIPrefix(False)
        item.getAxis(name).setTextPen(TEXT)
    return widget


def _preset_name(policy: Policy, fallback: str) -> str:
    """The preset letter if `policy` is one of them, else `fallback`."""
    return next((k for k, p in PRESETS.items() if p == policy), fallback)


class AcrossTimeTab(QWidget):
    def __init__(self, state, jobs, window, parent: QWidget | None = None):
        super().__init__(parent)
        self.state, self.jobs, self.window_ = state, jobs, window
        self.bundle_index = -1                 # the bundle shown (index into state.bundles)
        self.table_metric: str | None = None         # metric of its lifelong table
        self.selected_model = -1               # model version marked (-1: the last one)
        self.collections: dict[int, object] = {}   # bundle index -> BundleReplay
        # An open campaign: (system name, LifelongScores) per system; the one shown (-1: the
        # bundle's table instead).
        self.campaign_tables: list[tuple[str, object]] = []
        self.system_index = -1
        self.flips = FlipsPanel(jobs)   # its page: the units each new version got worse on
        # What the S_P plot shows (tests read it): the policy, S_P and S_P of value_pen.
        self.shown_sp: dict[str, object] = {"policy": None, "s_p": None, "s_p_pen": None}
        self.series_points: dict[str, tuple[float, float]] = {}   # doc id -> (x, S_pen)
        self._time_axes: dict[int, bool] = {}  # id(plot widget) -> has a date axis
        # Widgets are built, and drawn, when the tab is first shown: until then it costs the
        # window's start-up nothing (five plots take a good part of a second to build).
        self._built = False
        self._stale = True
        QVBoxLayout(self).setContentsMargins(4, 4, 4, 4)

        state.bundles_changed.connect(self._on_state_bundles_changed)
        state.policy_changed.connect(self._on_state_policy_changed)
        state.policy_dragging.connect(self._on_state_policy_dragging)
        jobs.result_ready.connect(self._on_jobs_result_ready)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if not self._built:
            self._built = True
            self._build_controls()
            self._build_plots()
            self.layout().addLayout(self.controls)
            # the policy and scores, and the flips between model versions (section 1.9)
            self.pages = QTabWidget()
            self.pages.addTab(self.plots, "Policy and scores")
            self.pages.addTab(self.flips, "Flips between versions")
            self.layout().addWidget(self.pages, 1)
        if self._stale:
            self.refresh()

    def _hidden(self) -> bool:
        """True (and remember to redraw on show) when the tab is not on screen."""
        if self._built and self.isVisible():
            return False
        self._stale = True
        return True

    # -- building ---------------------------------------------------------------------------

    def _build_controls(self) -> None:
        bar = QHBoxLayout()
        self.bundle_box = QComboBox()
        self.bundle_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.bundle_box.setToolTip("the bundle whose lifelong table and documents are shown")
        self.bundle_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.bundle_box.setMinimumContentsLength(14)
        self.bundle_box.activated.connect(self._on_bundle_box_activated)
        self.metric_box = QComboBox()
        self.metric_box.setToolTip("metric of the lifelong score table")
        self.metric_box.activated.connect(self._on_metric_box_activated)
        bar.addWidget(QLabel("bundle"))
        bar.addWidget(self.bundle_box)
        self.system_label = QLabel("system")
        self.system_box = QComboBox()
        self.system_box.setToolTip("a system of the open campaign: its matrix s(M_i, t_j); the "
                                   "other systems' S_P curves are overlaid")
        self.system_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.system_box.setMinimumContentsLength(9)
        self.system_box.activated.connect(self._on_system_box_activated)
        bar.addWidget(self.system_label)
        bar.addWidget(self.system_box)
        bar.addWidget(QLabel("metric"))
        bar.addWidget(self.metric_box)
        bar.addSpacing(12)
        bar.addWidget(QLabel("policy"))
        self.preset_buttons: dict[str, QPushButton] = {}
        for letter, description in PRESET_DESCRIPTIONS.items():
            button = QPushButton(letter)
            button.setCheckable(True)
            button.setFixedWidth(34)
            button.setToolTip(f"preset {letter}: {description}")
            button.clicked.connect(lambda _=False, k=letter: self.apply_preset(k))
            bar.addWidget(button)
            self.preset_buttons[letter] = button
        self.mode_box = QComboBox()
        for mode, text in MODES:
            self.mode_box.addItem(text, mode)
        self.mode_box.setToolTip("relative: the curve spans each model's window [l₁, lᵢ] scaled "
                                 "to [0, 1]; absolute: the curve is over calendar time")
        self.mode_box.activated.connect(self._on_mode_box_activated)
        bar.addWidget(self.mode_box)
        self.normalise_box = QCheckBox("normalise")
        self.normalise_box.setToolTip("weights sum to 1 over each model's window, so S_P stays "
                                      "in score units; unchecked: the raw weighted sum")
        self.normalise_box.clicked.connect(self._on_normalise_box_clicked)
        bar.addWidget(self.normalise_box)
        self.load_button = QPushButton("Load…")
        self.load_button.setToolTip("load a policy file (JSON)")
        self.load_button.clicked.connect(self._on_load_button_clicked)
        self.save_button = QPushButton("Save…")
        self.save_button.setToolTip("save the policy as a file for `llgui lifelong --policy`")
        self.save_button.clicked.connect(self._on_save_button_clicked)
        bar.addWidget(self.load_button)
        bar.addWidget(self.save_button)
        # The S_P options sit above the summary, beside the S_P plot they change (in the bar
        # they made the tab wider than a 1366-px laptop leaves it).
        self.penalised_box = QCheckBox("penalised S_P (eq. 3)")
        self.penalised_box.setToolTip("also weigh the table's value_pen column (S_pen of each "
                                      "model on each test)")
        self.penalised_box.setChecked(True)
        self.penalised_box.toggled.connect(lambda _on: self._show_policy_scores())
        from llgui.gui.across_time.bands import LifelongBands   # issue 15: S_P band, intervals

        self.bands = LifelongBands(self)
        bar.addStretch(1)
        self.controls = bar

    def _build_plots(self) -> None:
        # Policy editor.
        self.policy_plot = _plot()
        item = self.policy_plot.getPlotItem()
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        item.setLabel("left", "weight P(x)")
        self.stems = pg.PlotDataItem(pen=pg.mkPen("#95a5a6", width=1.5), connect="pairs")
        self.test_marks = pg.ScatterPlotItem(size=7, symbol="o", pen=pg.mkPen("#7f8c8d"),
                                             brush=pg.mkBrush("#bdc3c7"))
        item.addItem(self.stems)
        item.addItem(self.test_marks)
        self.policy_item = PolicyCurveItem(self.state.policy)
        item.addItem(self.policy_item)
        self.policy_item.policy_changing.connect(self._on_policy_item_changing)
        self.policy_item.policy_edited.connect(self._on_policy_item_edited)
        self.policy_plot.installEventFilter(self)   # Delete / Backspace removes a point
        self.policy_hint = QLabel("drag a point · double-click to add · right-click or Delete "
                                  "to remove · Ctrl+Z undoes")
        self.policy_hint.setStyleSheet("color: #555;")
        self.policy_hint.setWordWrap(True)   # never what keeps the policy plot wide

        # S_P against model time.
        self.sp_plot = _plot()
        item = self.sp_plot.getPlotItem()
        # the legend under the plot, never over its curves (as the Systems tab's; gui2)
        legend_below(item, col_count=2, labelTextSize="8pt", labelTextColor=TEXT)
        item.setMouseEnabled(x=True, y=False)
        self.selected_line = pg.InfiniteLine(angle=90, movable=False,
                                             pen=pg.mkPen("#e4002b", width=1,
                                                          style=Qt.PenStyle.DotLine))
        self.summary = QLabel("")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setMinimumWidth(210)
        self.summary.setMaximumWidth(260)

        # Heatmap.
        self.heatmap = ScoreHeatmap()
        self.heatmap.model_clicked.connect(self.select_model)

        # Time series: scores per document, the diagonal, cumulative cost below.
        self.series_plot = _plot()
        item = self.series_plot.getPlotItem()
        # two columns: half the rows over the data (four rows covered the last points at
        # 1366x768)
        item.addLegend(offset=(-6, 6), labelTextSize="8pt", labelTextColor=TEXT, colCount=2,
                       brush=pg.mkBrush(255, 255, 255, 215))
        item.getAxis("bottom").setStyle(showValues=False)   # the cost plot below has them
        self.cost_plot = _plot()
        self.cost_plot.getPlotItem().setXLink(item)
        self.cost_plot.setMaximumHeight(210)
        for widget in (self.series_plot, self.cost_plot):   # aligned plot areas
            widget.getPlotItem().getAxis("left").setWidth(58)

        left_top = QWidget()
        lt = QVBoxLayout(left_top)
        lt.setContentsMargins(0, 0, 0, 0)
        lt.addWidget(self.policy_plot, 1)
        lt.addWidget(self.policy_hint)
        right_top = QWidget()
        rt = QHBoxLayout(right_top)
        rt.setContentsMargins(0, 0, 0, 0)
        rt.addWidget(self.sp_plot, 1)
        summary_column = QVBoxLayout()
        summary_column.addWidget(self.penalised_box)
        summary_column.addWidget(self.bands.box)
        summary_column.addWidget(self.summary)
        summary_column.addWidget(self.bands.label)
        rt.addLayout(summary_column)
        right_bottom = QWidget()
        rb = QVBoxLayout(right_bottom)
        rb.setContentsMargins(0, 0, 0, 0)
        rb.setSpacing(0)
        rb.addWidget(self.series_plot, 3)
        rb.addWidget(self.cost_plot, 2)

        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(left_top)
        top.addWidget(right_top)
        top.setSizes([450, 750])   # the S_P plot and its summary need the width more
        self.top_split = top
        # Without a lifelong table: what is missing and how to get it, in the heatmap's place
        # (an empty heatmap with a "(x0.001)" axis and an empty S_P plot said nothing).
        self.no_table = QLabel(NO_TABLE)
        self.no_table.setTextFormat(Qt.TextFormat.RichText)
        self.no_table.setWordWrap(True)
        self.no_table.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.no_table.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.no_table.setStyleSheet("QLabel { background: #fbfbf4; border: 1px solid #ddd; "
                                    "padding: 10px; }")
        self.no_table.setMinimumWidth(240)
        self.heatmap_stack = QStackedWidget()
        self.heatmap_stack.addWidget(self.heatmap)
        self.heatmap_stack.addWidget(self.no_table)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.heatmap_stack)
        bottom.addWidget(right_bottom)
        bottom.setSizes([500, 700])
        self.bottom_split = bottom
        plots = QSplitter(Qt.Orientation.Vertical)
        plots.addWidget(top)
        plots.addWidget(bottom)
        plots.setSizes([420, 460])
        self.plots = plots

    # -- what is shown ----------------------------------------------------------------------

    def bundle(self):
        return self.state.bundle(self.bundle_index)

    def table(self):
        if 0 <= self.system_index < len(self.campaign_tables):
            return self.campaign_tables[self.system_index][1]
        bundle = self.bundle()
        return None if bundle is None else bundle.lifelong

    def set_campaign(self, tables) -> None:
        """Show an open campaign's systems (a list of (name, LifelongScores)); the first one
        is shown at once."""
        self.campaign_tables = list(tables)
        self.set_system(0 if self.campaign_tables else -1)

    def set_system(self, index: int) -> None:
        """Show system `index` of the campaign (-1: back to the bundle's own table)."""
        self.system_index = index
        self.selected_model = -1
        self.flips.show_system(self.campaign_tables[index][0] if index >= 0 else None)
        table = self.table()
        self.table_metric = table.metrics[0] if table is not None and table.metrics else None
        self.refresh()

    def model_index(self) -> int:
        """The marked model version (the last one unless the user picked another), or -1."""
        table = self.table()
        if table is None or not table.models:
            return -1
        n = len(table.models)
        return self.selected_model if 0 <= self.selected_model < n else n - 1

    def _dates(self) -> bool:
        table = self.table()
        return bool(table is not None and table.model_times and table.model_times[0].is_date)

    def _time_bounds(self) -> tuple[float, float]:
        """Calendar range of the table (models and tests), for an absolute policy."""
        table = self.table()
        if table is None or not table.models:
            return (0.0, 1.0)
        lo, hi = finite_extent((table.model_time_values(), table.test_time_values())) or (0.0, 1.0)
        return (lo, hi if hi > lo else lo + 1.0)

    def _bounds(self, policy: Policy) -> tuple[float, float]:
        """The x range the editor shows and clamps to: [0, 1] in relative mode, the table's
        calendar span in absolute mode, widened to hold every point of the policy."""
        lo, hi = (0.0, 1.0) if policy.mode == "relative" else self._time_bounds()
        # A policy made for another table may lie outside this one: keep its points editable.
        return (min(lo, float(policy.xs.min())), max(hi, float(policy.xs.max())))

    # -- state reactions --------------------------------------------------------------------

    @Slot()
    def _on_state_bundles_changed(self) -> None:
        # The window rescores every bundle's collection now: drop results that may be stale.
        self.collections.clear()
        current = self.bundle()
        candidates = [i for i, b in enumerate(self.state.bundles) if b.task != "detection"]
        choose = next((i for i in candidates if self.state.bundles[i] is current), -1)
        if choose < 0:  # first bundle with a lifelong table, else the first one
            with_table = [i for i in candidates if self.state.bundles[i].lifelong is not None]
            choose = (with_table or candidates or [-1])[0]
        self.set_bundle(choose)

    def set_bundle(self, index: int) -> None:
        """Show bundle `index` (its lifelong table, its documents)."""
        self.bundle_index = index
        self.selected_model = -1
        table = self.table()
        self.table_metric = table.metrics[0] if table is not None and table.metrics else None
        self.refresh()

    def set_metric(self, metric: str) -> None:
        table = self.table()
        if table is not None and metric in table.metrics:
            self.table_metric = metric
            self.refresh()
            return
        bundle = self.bundle()
        if table is None and bundle is not None and metric in (bundle.metrics or ()):
            # no lifelong table: the per-document plot follows the workbench's metric, so
            # choosing here chooses there (the box was greyed out, issue 35)
            self.state.set_metric(bundle.task, metric)

    def _show_choices(self) -> None:
        """The bundle and metric combos, as the tab's choices stand."""
        self.bundle_box.blockSignals(True)
        self.bundle_box.clear()
        for i, b in enumerate(self.state.bundles):
            if b.task != "detection":
                suffix = "" if b.lifelong is not None else " (no lifelong table)"
                self.bundle_box.addItem(f"{b.name or Path(b.path or '').stem}{suffix}", i)
        self.bundle_box.setCurrentIndex(self.bundle_box.findData(self.bundle_index))
        self.bundle_box.blockSignals(False)
        self.system_box.blockSignals(True)
        self.system_box.clear()
        if self.campaign_tables:
            self.system_box.addItem("– (the bundle's table)", -1)
            for k, (name, _) in enumerate(self.campaign_tables):
                self.system_box.addItem(name, k)
        self.system_box.setCurrentIndex(max(0, self.system_box.findData(self.system_index)))
        self.system_box.blockSignals(False)
        self.system_box.setVisible(bool(self.campaign_tables))
        self.system_label.setVisible(bool(self.campaign_tables))
        table = self.table()
        self.metric_box.blockSignals(True)
        self.metric_box.clear()
        bundle = self.bundle()
        # without a table the combo picks the per-document plot's metric (the bundle's)
        metrics = (table.metrics if table is not None
                   else tuple(getattr(bundle, "metrics", ()) or ()) if bundle is not None else ())
        for m in metrics:
            self.metric_box.addItem(display_name(m), m)
        if table is None:
            result = self.collections.get(self.bundle_index)
            shown = getattr(result, "metric", None)
            self.metric_box.setCurrentIndex(max(0, self.metric_box.findData(shown)))
            self.metric_box.setEnabled(self.metric_box.count() > 1)
            self.metric_box.setToolTip("metric of the per-document plot, the workbench's "
                                       "metric: choosing one here chooses it there too (no "
                                       "lifelong table in this bundle)")
            self.metric_box.blockSignals(False)
            return
        self.metric_box.setCurrentIndex(self.metric_box.findData(self.table_metric))
        self.metric_box.setEnabled(self.metric_box.count() > 1)
        self.metric_box.blockSignals(False)

    @Slot()
    def _on_state_policy_changed(self) -> None:
        if self._hidden():
            return
        self._show_policy_controls()
        self._show_policy()
        self._show_policy_scores()

    @Slot(object)
    def _on_state_policy_dragging(self, policy) -> None:
        if self._hidden():
            return
        self._show_tests(policy)
        self._show_policy_scores(policy)

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result) -> None:
        if key.startswith("collection:"):
            index = int(key.split(":", 1)[1])
            self.collections[index] = result
            # another system's scores are drawn over this one's too
            if not self._hidden() and (index == self.bundle_index or self.bundle_index
                                       in self.collections):
                self._show_series()

    # -- user actions -----------------------------------------------------------------------

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

    def select_model(self, row: int) -> None:
        """Mark model version `row`: its window on the heatmap, its tests on the policy plot."""
        self.selected_model = row
        if self._hidden():
            return
        self._show_selection()
        self._show_tests(self.policy_item.policy)

    def _on_bundle_box_activated(self, k: int) -> None:
        self.set_bundle(self.bundle_box.itemData(k))

    def _on_system_box_activated(self, k: int) -> None:
        self.set_system(self.system_box.itemData(k))

    def _on_metric_box_activated(self, k: int) -> None:
        self.set_metric(self.metric_box.itemData(k))

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

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if (watched is self.policy_plot and event.type() == QEvent.Type.KeyPress
                and event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace)):
            return self.policy_item.remove_point()
        return super().eventFilter(watched, event)

    # -- drawing ----------------------------------------------------------------------------

    def refresh(self) -> None:
        """Redraw everything for the current bundle, metric and policy (later, when the tab
        is hidden)."""
        if self._hidden():
            return
        self._stale = False
        self._show_missing_table()
        self._show_choices()
        self._show_policy_controls()
        self._show_policy()
        self._show_matrix()
        self._show_policy_scores()
        self._show_summary()
        self._show_series()
        self.bands.request()

    def _show_missing_table(self) -> None:
        """Without a lifelong table, the policy editor and S_P have nothing to weigh: hide
        them and say what is missing and how to get it; the per-document plots stay."""
        missing = self.bundle() is not None and self.table() is None
        self.top_split.setVisible(not missing)
        self.heatmap_stack.setCurrentWidget(self.no_table if missing else self.heatmap)
        if missing != getattr(self, "table_missing", None):
            # the note needs less room than the heatmap; the per-document plots take the rest
            total = max(sum(self.bottom_split.sizes()), 900)
            left = min(380, total // 3) if missing else total * 5 // 12
            self.bottom_split.setSizes([left, total - left])
        self.table_missing = missing   # tests read it

    def _show_policy_controls(self) -> None:
        if not self._built:
            return
        policy, name = self.state.policy, self.state.policy_name
        for letter, button in self.preset_buttons.items():
            button.setChecked(name == letter)
        self.mode_box.setCurrentIndex(self.mode_box.findData(policy.mode))
        self.normalise_box.setChecked(policy.normalise)

    def _set_time_axis(self, widget: pg.PlotWidget, dates: bool, label: str,
                       whole: bool = False) -> None:
        """Give `widget` a calendar (UTC) bottom axis when the times are dates; ticks on whole
        numbers only when the times are (documents at times 1, 2, 3, 4 ticked at 1.5, 2.5)."""
        if self._time_axes.get(id(widget)) != (dates, whole):
            axis = (CalendarAxis("bottom", utcOffset=0) if dates
                    else _whole_axis() if whole else pg.AxisItem("bottom"))
            axis.enableAutoSIPrefix(False)
            axis.setTextPen(TEXT)
            widget.getPlotItem().setAxisItems({"bottom": axis})
            self._time_axes[id(widget)] = (dates, whole)
        if label:
            widget.getPlotItem().setLabel("bottom", label)
        else:
            widget.getPlotItem().showLabel("bottom", False)

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

    def _show_matrix(self) -> None:
        table = self.table()
        if table is None or self.table_metric is None:
            self.heatmap.set_matrix(None, (), (), "", None)
            return
        self.heatmap.set_matrix(table.values[self.table_metric], table.models,
                                [s.text for s in table.test_times],
                                f"{display_name(self.table_metric)} (%)",
                                higher_is_better(self.table_metric))
        self._show_selection()

    def _show_selection(self) -> None:
        table = self.table()
        i = self.model_index()
        if table is None or i < 0:
            self.heatmap.set_window(-1, 0, -1)
            return
        cols = window_columns(self.state.policy.mode, table.model_time_values(),
                              table.test_time_values(), i)
        if cols is not None:
            self.heatmap.set_window(i, *cols)
        else:
            self.heatmap.set_window(-1, 0, -1)
        self.selected_line.setValue(float(table.model_time_values()[i]))

    def _show_policy_scores(self, policy: Policy | None = None) -> None:
        """S_P of every model version under `policy` (default: the state's), the presets, and
        S_P of the penalised scores; fast enough to run on every drag signal."""
        policy = self.state.policy if policy is None else policy
        item = self.sp_plot.getPlotItem()
        table = self.table()
        if table is None or self.table_metric is None:
            item.clear()
            item.setTitle("this bundle has no [lifelong] score table", size="9pt", color=TEXT)
            self.shown_sp = {"policy": None, "s_p": None, "s_p_pen": None}
            return
        x = table.model_time_values()
        s_p = policy_scores(table, self.table_metric, policy)
        has_pen = self.table_metric in table.values_pen
        s_p_pen = (policy_scores(table, self.table_metric, policy, penalised=True)
                   if has_pen and self.penalised_box.isChecked() else None)
        self.shown_sp = {"policy": policy, "s_p": s_p, "s_p_pen": s_p_pen, "systems": {}}
        curves = getattr(self, "_sp_curves", None)
        if (curves is None or curves.get("table") is not table
                or curves.get("metric") != self.table_metric
                or curves.get("campaign") is not self.campaign_tables):
            curves = self._build_sp_curves(table)
        curves["current"].setData(x, s_p)
        others = []
        for name, other, curve in curves.get("systems", ()):
            values = policy_scores(other, self.table_metric, policy)
            curve.setData(other.model_time_values(), values)
            self.shown_sp["systems"][name] = values
            others.append(values)
        if 0 <= self.system_index < len(self.campaign_tables):
            self.shown_sp["systems"][self.campaign_tables[self.system_index][0]] = s_p
        curves["others"] = others
        self._fit_sp_range(curves, s_p, s_p_pen, dragging=policy is not self.state.policy)
        name = self._current_name()
        if curves.get("name") != name:
            label = self.sp_plot.getPlotItem().legend.getLabel(curves["current"])
            if label is not None:
                label.setText(name)
            curves["name"] = name
        legend = self.sp_plot.getPlotItem().legend
        if s_p_pen is not None:
            curves["pen"].setData(x, s_p_pen)
            curves["pen"].show()
            if legend is not None and legend.getLabel(curves["pen"]) is None:
                legend.addItem(curves["pen"], "current, penalised (eq. 3)")
        else:
            curves["pen"].setData([], [])
            curves["pen"].hide()
            # no entry for a curve that is not drawn (pyqtgraph showed a hidden one as ⊘)
            if legend is not None and legend.getLabel(curves["pen"]) is not None:
                legend.removeItem(curves["pen"])
        self.penalised_box.setEnabled(has_pen)
        # greyed means off: a table without penalised scores shows the box unticked (the
        # choice made where it applies is kept for when it does)
        if not has_pen and self.penalised_box.isChecked():
            self._pen_wanted = True
            self.penalised_box.blockSignals(True)
            self.penalised_box.setChecked(False)
            self.penalised_box.blockSignals(False)
        elif has_pen and getattr(self, "_pen_wanted", False):
            self._pen_wanted = False
            self.penalised_box.blockSignals(True)
            self.penalised_box.setChecked(True)
            self.penalised_box.blockSignals(False)
        self.penalised_box.setToolTip(
            "also weigh the table's value_pen column (S_pen of each cell), equation 3" if has_pen
            else "this table has no penalised scores (value_pen): a campaign's output-only "
                 "cells have none")

    def _fit_sp_range(self, curves: dict, s_p, s_p_pen, dragging: bool) -> None:
        """Y range over every S_P curve with headroom at the top for the legend. While
        dragging it only grows (a plot that rescales under the mouse is hard to read)."""
        values = [*curves["presets"], s_p] + ([s_p_pen] if s_p_pen is not None else [])
        values += list(curves.get("others", ()))
        extent = finite_extent(values)
        if extent is None:
            return
        lo, hi = extent
        want = pad_range(lo, hi, 0.06, 0.06, least=1e-6)
        vb = self.sp_plot.getPlotItem().getViewBox()
        if dragging:
            (cur_lo, cur_hi) = vb.viewRange()[1]
            if lo >= cur_lo and hi <= cur_hi:
                return
            want = (min(want[0], cur_lo), max(want[1], cur_hi))
        vb.setYRange(*want, padding=0)

    def _build_sp_curves(self, table) -> dict:
        item = self.sp_plot.getPlotItem()
        item.clear()
        if item.legend is not None:
            item.legend.clear()
        x = table.model_time_values()
        dates = self._dates()
        self._set_time_axis(self.sp_plot, dates, "model time lᵢ" + (" (UTC)" if dates else ""))
        unit = display_name(self.table_metric)
        better = higher_is_better(self.table_metric)
        item.setLabel("left", f"S_P ({unit}, %)")
        direction = {True: "higher is better", False: "lower is better"}.get(better, "")
        item.setTitle(f"S_P(M<sub>i</sub>) = Σ<sub>t<sub>j</sub> ∈ [l<sub>1</sub>, "
                      f"l<sub>i</sub>]</sub> s(M<sub>i</sub>, t<sub>j</sub>)·P(t<sub>j</sub>)"
                      f" — {direction}", size="9pt", color=TEXT)
        preset_values = []
        few = len(x) <= MAX_SYMBOLS
        for letter, preset in PRESETS.items():
            values = policy_scores(table, self.table_metric, preset)
            preset_values.append(values)
            item.plot(x, values, pen=pg.mkPen(PRESET_COLOURS[letter], width=1.5,
                                              style=Qt.PenStyle.DashLine),
                      symbol=({"A": "t", "B": "s", "C": "d"}[letter] if few else None),
                      symbolSize=6, symbolBrush=PRESET_COLOURS[letter], symbolPen=None,
                      name=f"{letter} ({PRESET_SHORT[letter]})")
        pen_curve = item.plot([], [], pen=pg.mkPen(PEN_COLOUR, width=2.5,
                                                   style=Qt.PenStyle.DashDotLine),
                              symbol="o" if few else None, symbolSize=6,
                              symbolBrush=PEN_COLOUR, symbolPen=None,
                              name="current, penalised (eq. 3)")
        # Clicking a point of the current curve selects that model (symbols make it hittable;
        # without them the heatmap rows still select).
        current = item.plot([], [], pen=pg.mkPen(CURVE, width=3), symbol="o" if few else None,
                            symbolSize=8,
                            symbolBrush=CURVE, symbolPen=pg.mkPen("w"),
                            name=self._current_name())
        current.sigPointsClicked.connect(self._on_sp_points_clicked)
        systems = []
        if 0 <= self.system_index < len(self.campaign_tables):
            from llgui.gui.widgets.system_legend import campaign_system_style

            others = [(name, other) for k, (name, other) in enumerate(self.campaign_tables)
                      if k != self.system_index and self.table_metric in other.metrics]
            # many systems: colour + marker + line style apart, named on hover and in one
            # legend entry (21 entries covered the plot, issue 35)
            many = len(others) > MAX_NAMED_SYSTEMS
            for name, other in others:
                colour, symbol, dash = campaign_system_style(
                    name, [n for n, _ in self.campaign_tables])
                curve = item.plot([], [], pen=pg.mkPen(colour, width=2 if not many else 1.2,
                                                       style=dash),
                                  symbol=symbol if few or many else None,
                                  symbolSize=5 if not many else 7, symbolBrush=colour,
                                  symbolPen=None,
                                  name=None if many else f"{html.escape(name)} (current policy)")
                if many:
                    curve.scatter.opts.update(
                        hoverable=True, tip=lambda x, y, data, name=name: f"{name}: {y:.2f}")
                    curve.scatter.setAcceptHoverEvents(True)
                    curve.setToolTip(name)
                systems.append((name, other, curve))
            if many and item.legend is not None:
                item.legend.addItem(pg.PlotDataItem([], [], pen=pg.mkPen("#888888")),
                                    f"{len(others)} other systems: hover for names")
                item.legend.setToolTip("the other systems' S_P under the current policy, "
                                       "told apart by colour, marker and line style; hover "
                                       "a point for its system")
        item.addItem(self.selected_line)
        self._sp_curves = {"table": table, "metric": self.table_metric, "current": current,
                           "pen": pen_curve, "name": self._current_name(),
                           "presets": tuple(preset_values), "systems": systems,
                           "campaign": self.campaign_tables}
        return self._sp_curves

    def _current_name(self) -> str:
        """Legend of the current S_P curve: the policy, and the system of a campaign."""
        if 0 <= self.system_index < len(self.campaign_tables):
            name = html.escape(self.campaign_tables[self.system_index][0])
            return f"{name}: current {self.state.policy_name}"
        return f"current: {self.state.policy_name}"

    def _on_sp_points_clicked(self, _curve, points, _ev=None) -> None:
        table = self.table()
        if table is None or not len(points):
            return
        row = nearest_index(table.model_time_values(), points[0].pos().x())
        self.select_model(row)

    def _show_summary(self) -> None:
        table = self.table()
        if table is None or self.table_metric is None:
            self.summary.setText("")
            return
        better = higher_is_better(self.table_metric)
        rows = [("scores", continual_summary(table, self.table_metric, higher_is_better=better))]
        if self.table_metric in table.values_pen:
            rows.append(("penalised", continual_summary(table, self.table_metric, penalised=True,
                                                        higher_is_better=better)))

        def f(v: float) -> str:
            return "–" if v is None or math.isnan(v) else f"{v:+.2f}" if v < 0 else f"{v:.2f}"

        header = "".join(f"<th align='right'>{name}</th>" for name, _ in rows)
        body = "".join(
            f"<tr><td>{label}</td>" + "".join(f"<td align='right'>{f(getattr(s, attr))}</td>"
                                              for _, s in rows) + "</tr>"
            for label, attr in (("ACC", "acc"), ("BWT", "bwt"), ("FWT", "fwt"),
                                ("forgetting", "forgetting"),
                                ("learning acc.", "learning_accuracy")))
        s = rows[0][1]
        if s.higher_is_better is False:
            sign = ("lower is better: <b>BWT &gt; 0</b> means forgetting (the error "
                    "on old tests grew), <b>FWT &lt; 0</b> positive transfer.")
        elif s.higher_is_better:
            sign = ("higher is better: <b>BWT &lt; 0</b> means forgetting, "
                    "<b>FWT &gt; 0</b> positive transfer.")
        else:
            sign = "metric direction unknown."
        self.summary.setText(
            f"<b>Continual-learning summary</b> ({html.escape(display_name(self.table_metric))})"
            f"<table cellspacing='4'><tr><th></th>{header}</tr>{body}</table>"
            f"<small>BWT, FWT: later − earlier, in the metric's units; {sign} "
            f"<b>Forgetting &gt; 0</b>: the last model is worse than the best before it. Hover "
            f"for the definitions.</small>")
        self.summary.setToolTip(
            f"<small>Lopez-Paz &amp; Ranzato (2017), over tests: ACC = mean of s(M<sub>last"
            f"</sub>, t<sub>j</sub>); BWT = mean of s(M<sub>last</sub>, t<sub>j</sub>) − "
            f"s(M<sub>i(j)</sub>, t<sub>j</sub>) ({s.n_bwt} tests); FWT = mean of "
            f"s(M<sub>i(j)−1</sub>, t<sub>j</sub>) − s(M<sub>0</sub>, t<sub>j</sub>) "
            f"({s.n_fwt} tests; against the {html.escape(s.fwt_baseline)}, where GEM has a random "
            f"model); forgetting (Chaudhry et al. 2018) = mean shortfall of s(M<sub>last</sub>, t<sub>j</sub>)"
            f" against the best earlier s(M<sub>i</sub>, t<sub>j</sub>), i ≥ i(j), positive when "
            f"worse ({s.n_forgetting} tests);"
            f" learning acc. (Riemer et al. 2019) = mean of s(M<sub>i(j)</sub>, t<sub>j</sub>) "
            f"({s.n_learning} tests); M<sub>i(j)</sub> is the first model at or after t<sub>j</sub>. "
            f"Differences are later − earlier in the metric's units; {sign}</small>")

    def _show_series(self) -> None:
        item = self.series_plot.getPlotItem()
        cost_item = self.cost_plot.getPlotItem()
        item.clear()
        if item.legend is not None:
            item.legend.clear()
        cost_item.clear()
        self.series_points = {}
        bundle = self.bundle()
        if bundle is None:
            # say why, not an empty plot with 0-1 ticks (issue 35)
            item.setTitle("no bundle: open one to see its documents over time",
                          size="9pt", color=TEXT)
            for plot in (self.series_plot, self.cost_plot):
                for side in ("left", "bottom"):
                    plot.getPlotItem().getAxis(side).setStyle(showValues=False)
            return
        for side in ("left",):
            item.getAxis(side).setStyle(showValues=True)
            cost_item.getAxis(side).setStyle(showValues=True)
        cost_item.getAxis("bottom").setStyle(showValues=True)
        dates = bool(bundle.documents and bundle.documents[0].time.is_date) or self._dates()
        clock = dates and any("T" in d.time.text or " " in d.time.text.strip()
                              for d in bundle.documents)
        label = "time" + (" (UTC)" if clock else "")   # plain dates have no time zone
        whole = not dates and all(float(d.time.value).is_integer() for d in bundle.documents)
        self._set_time_axis(self.series_plot, dates, "", whole)
        self._set_time_axis(self.cost_plot, dates, label, whole)
        self.series_plot.getPlotItem().getAxis("bottom").setStyle(showValues=False)
        result = self.collections.get(self.bundle_index)
        table = self.table()
        names = []
        if result is not None and result.replays:
            series = result.series()
            x = series.times
            names.append(display_name(result.metric))
            for attr, label_text in (("s_base", "S_base"), ("s_adapt", "S_adapt"),
                                     ("s_pen", "S_pen")):
                y = getattr(series, attr)
                colour = SERIES_COLOURS[attr]
                line = item.plot(x, y, pen=pg.mkPen(colour, width=2 if attr == "s_pen" else 1.5),
                                 symbol="o", symbolSize=9, symbolBrush=colour,
                                 symbolPen=pg.mkPen("w"), data=list(series.docs),
                                 name=f"{label_text} per document ({display_name(result.metric)})")
                line.sigPointsClicked.connect(self._on_series_points_clicked)
                if attr == "s_pen":
                    self.series_points = {d: (float(a), float(b))
                                          for d, a, b in zip(series.docs, x, y)}
                    none = series.n_steps == 0
                    if none.any():   # S_pen = S_base there by construction: no result
                        item.plot(x[none], y[none], pen=None, symbol="o", symbolSize=15,
                                  symbolBrush=None, symbolPen=pg.mkPen(colour, width=1.5,
                                                                       style=Qt.PenStyle.DotLine),
                                  name="(no steps): no penalised result")
            self._overlay_other_systems(item, bundle, result)
            cost = series.cum_cost
            unit = result.cost_unit or ("words" if bundle.task == "mt" else "seconds listened")
            cost_line = cost_item.plot(x, cost, pen=pg.mkPen(COST_COLOUR, width=1.5),
                                       symbol="s", symbolSize=7, symbolBrush=COST_COLOUR,
                                       data=list(series.docs))
            cost_line.sigPointsClicked.connect(self._on_series_points_clicked)
            cost_item.setTitle(f"cumulative human cost ({unit})", size="8pt", color=TEXT)
        elif bundle.documents:
            item.setTitle("scoring the documents…", size="9pt", color=TEXT)
        if table is not None and self.table_metric is not None:
            values = diagonal(table, self.table_metric)
            item.plot(table.model_time_values(), values,
                      pen=pg.mkPen(DIAGONAL_COLOUR, width=1.5, style=Qt.PenStyle.DashLine),
                      symbol="t1", symbolSize=8, symbolBrush=DIAGONAL_COLOUR, symbolPen=None,
                      name=f"s(M<sub>i</sub>, l<sub>i</sub>), lifelong table "
                           f"({display_name(self.table_metric)})")
            names.append(display_name(self.table_metric))
        if result is not None and result.replays:
            # Open on the documents (the points one clicks); the diagonal may span a longer
            # period: the wheel zooms out, the plot's "A" button shows everything.
            lo, hi = float(min(result.times)), float(max(result.times))
            pad = max(0.08 * (hi - lo), 3 * 86400.0 if dates else 0.5)
            item.setXRange(lo - pad, hi + pad, padding=0)
            # headroom over the data for the legend (top right): it covered the last points
            extent = finite_extent(getattr(series, a) for a in ("s_base", "s_adapt", "s_pen"))
            self._series_extent = extent
            if extent is not None:
                self._fit_series_range()
                if not getattr(self, "_series_fit", False):
                    self._series_fit = True
                    item.getViewBox().sigResized.connect(self._fit_series_range)
        unique = sorted(set(names))
        item.setLabel("left", f"{' / '.join(unique)} (%)" if unique else "score (%)")
        if result is not None:
            if getattr(self, "series_title", None) is None:
                from llgui.gui.widgets.fit_title import FittedTitle

                # on two lines where one is cut (1366 px)
                self.series_title = FittedTitle(self.series_plot, 9, TEXT)
            self.series_title.set(["per document, in processing order",
                                   "click a point to open it in the workbench (wheel: zoom)"])

    def _overlay_other_systems(self, item, bundle, result) -> None:
        """The other open bundles of the same task (other systems on the same documents),
        their S_pen per document in the same metric, over this one's (issue 35: two systems
        were never drawn together here)."""
        from llgui.gui.widgets.system_legend import system_style

        self.series_others = {}
        drawn = 0
        for k, other in enumerate(self.state.bundles):
            theirs = self.collections.get(k)
            if (k == self.bundle_index or other.task != bundle.task or theirs is None
                    or not theirs.replays or theirs.metric != result.metric
                    or drawn >= MAX_NAMED_SYSTEMS):
                continue
            series = theirs.series()
            colour, symbol, dash = system_style(drawn, SYSTEM_COLOURS)
            name = other.name or Path(other.path or "").stem
            item.plot(series.times, series.s_pen, pen=pg.mkPen(colour, width=1.2, style=dash),
                      symbol=symbol, symbolSize=7, symbolBrush=colour, symbolPen=None,
                      name=f"{html.escape(name)}: S_pen")
            self.series_others[name] = series.s_pen
            drawn += 1

    def _fit_series_range(self, *_) -> None:
        """Room above the scores for the legend, from the legend's rows and the plot's height
        in pixels, again when the plot is resized (rows guessed at 9 % of the range each left
        it over the last points at 1366x768)."""
        extent = getattr(self, "_series_extent", None)
        item = self.series_plot.getPlotItem()
        if extent is None:
            return
        rows = -(-len(item.legend.items) // 2) if item.legend is not None else 0
        plot_px = max(item.getViewBox().height(), 1.0)
        legend_px = max(item.legend.boundingRect().height() if item.legend is not None else 0,
                        rows * QFontMetrics(self.font()).height() * 1.5)
        share = min(0.6, (legend_px + 16) / plot_px)
        item.setYRange(*pad_range(*extent, 0.05, 0.05 + share / (1 - share), least=1.0),
                       padding=0)

    def _on_series_points_clicked(self, _curve, points, _ev=None) -> None:
        if not len(points):
            return
        doc = points[0].data()
        if doc is None:
            return
        self.open_document(str(doc))

    def open_document(self, doc: str) -> None:
        """Select a document of the shown bundle and show it in the workbench."""
        self.state.select(self.bundle_index, doc)
        self.window_.show_tab("workbench")

    def document_scene_position(self, doc: str):
        """Scene position of a document's S_pen point in the time series (tests click it)."""
        x, y = self.series_points[doc]
        return self.series_plot.getPlotItem().getViewBox().mapViewToScene(pg.Point(x, y))

    # -- export -----------------------------------------------------------------------------

    def export_plot(self, path: str) -> None:
        """Write the tab's four plots as they are on screen: PNG at twice the screen
        resolution, or SVG (QtSvg renders the widgets as vectors). Nothing before the tab
        was first shown."""
        if not self._built:
            return
        export_widget(self.plots, path, "llgui: across time")


class CalendarAxis(pg.DateAxisItem):
    """A UTC date axis whose labels say the month and year (`date_labels`), not "07 12 17"."""

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        labels = date_labels([v * scale for v in values], spacing * scale)
        if 28 * 86400 <= spacing * scale < 365 * 86400:
            # month ticks: the year on the first and on January only ("Nov 2023 Dec Jan 2024"),
            # or pyqtgraph drops them all as overlapping, leaving a lone "2024"
            labels = [t if k == 0 or t.startswith("Jan") else t.split(" ")[0]
                      for k, t in enumerate(labels)]
        return labels


NO_TABLE = (
    "<b>No lifelong score table in this bundle</b>, so there is no heatmap of "
    "s(M<sub>i</sub>, t<sub>j</sub>), no S<sub>P</sub> (equations 2 and 3) and no policy to "
    "weigh them with.<br><br>"
    "The plots on the right are the documents of this run in processing order.<br><br>"
    "<b>To get the table</b>: score every model version M<sub>i</sub> on every time-stamped "
    "test t<sub>j</sub> and write one CSV row per cell:<br>"
    "<tt>model,model_time,test,<br>test_time,metric,value[,value_pen]</tt><br>"
    "then name it in the bundle:<br><tt>[lifelong]<br>scores = \"lifelong/system.csv\"</tt>"
    "<br><br>A campaign (<tt>llgui campaign CAMPAIGN.toml --out DIR</tt>) scores model "
    "versions and test batches and writes such a table; the README's \"Across time\" says "
    "more.")

__all__ = ["AcrossTimeTab"]


def _whole_axis():
    from llgui.gui.across_time.whole_axis import WholeAxis

    return WholeAxis("bottom")
