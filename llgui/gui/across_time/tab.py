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
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QStackedWidget, QTabWidget,
    QCheckBox, QComboBox, QHBoxLayout, QLabel, QPushButton, QSplitter,
    QVBoxLayout, QWidget,
)

from llgui.gui.widgets.plot_legend import legend_below
from llgui.core.display.layout import finite_extent
from llgui.core.across_time.policy import PRESET_DESCRIPTIONS, Policy, window_columns
from llgui.core.metrics import display_name, higher_is_better
from llgui.gui.widgets.plot_export import export_widget
from llgui.gui.across_time.flips_panel import FlipsPanel
from llgui.gui.across_time.heatmap import ScoreHeatmap
from llgui.gui.across_time.plots import CalendarAxis, TEXT, plot_widget, whole_axis
from llgui.gui.across_time.policy_editor import PolicyEditing
from llgui.gui.across_time.policy_item import PolicyCurveItem
from llgui.gui.across_time.series import DocumentSeriesView
from llgui.gui.across_time.sp_plot import PolicyScoresView

MODES = (("relative", "relative"), ("absolute", "absolute"))


class AcrossTimeTab(PolicyEditing, PolicyScoresView, DocumentSeriesView, QWidget):
    """The tab; its policy editor, S_P plot and per-document plots are the mixins' (modules
    policy_editor, sp_plot, series of this package)."""

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
        self._parts_built = 0     # of `_build_parts`, made so far
        self._stale = True
        self._warm_part = 0       # of `_refresh_parts`, drawn ahead while hidden
        self._part_pending = False   # a part of a campaign's drawing is due (set_campaign)
        self._bands_pending = False
        QVBoxLayout(self).setContentsMargins(4, 4, 4, 4)

        state.bundles_changed.connect(self._on_state_bundles_changed)
        state.policy_changed.connect(self._on_state_policy_changed)
        state.policy_dragging.connect(self._on_state_policy_dragging)
        jobs.result_ready.connect(self._on_jobs_result_ready)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        while self._build_next():
            pass
        if self._stale:
            self.refresh()
        elif self._bands_pending:   # drawn ahead (`warm_step`) but for the S_P band's job
            self._bands_pending = False
            self.bands.request()

    def _build_parts(self) -> tuple:
        return (self._build_controls, self._build_policy_plot, self._build_sp_plot,
                self._build_heatmap, self._build_series_plots, self._build_plot_layout,
                self._build_pages)

    def _build_next(self) -> bool:
        """Build the next part of the tab's widgets; False when all are built."""
        parts = self._build_parts()
        if self._parts_built >= len(parts):
            return False
        parts[self._parts_built]()
        self._parts_built += 1
        self._built = self._parts_built == len(parts)
        return True

    def _build_pages(self) -> None:
        self.layout().addLayout(self.controls)
        # the policy and scores, and the flips between model versions (section 1.9)
        self.pages = QTabWidget()
        self.pages.addTab(self.plots, "Policy and scores")
        self.pages.addTab(self.flips, "Flips between versions")
        self.layout().addWidget(self.pages, 1)
        self._show_flips_page()

    def warm_step(self) -> bool:
        """One small part of the tab made ahead of its first show, while the user reads
        another tab (`llgui.gui.window.warm_tabs`): its widgets a plot at a time, then what
        they show a part at a time (what `refresh` draws), the S_P band's job left for the
        show. Shown for the first time on the demo, the tab held the event loop 180-260 ms
        (its five plots built, then drawn, in one turn); made ahead, 60-70 ms. False when
        nothing is left to do."""
        if self.isVisible():
            return False
        if self._build_next():
            return True
        if not self._stale:
            return False
        parts = self._refresh_parts()
        parts[self._warm_part]()
        self._warm_part += 1
        if self._warm_part == len(parts):
            self._stale, self._warm_part, self._bands_pending = False, 0, True
        return True

    def _show_flips_page(self) -> None:
        """The flips page only with a campaign open (its model versions are what flips):
        without one it was an empty page the docs say is not there (outsider helper-40)."""
        pages = getattr(self, "pages", None)
        if pages is not None:
            pages.setTabVisible(pages.indexOf(self.flips), bool(self.campaign_tables))

    def _hidden(self) -> bool:
        """True (and remember to redraw on show) when the tab is not on screen."""
        if self._built and self.isVisible():
            return False
        self._stale = True
        self._warm_part = 0       # (what was drawn ahead is drawn again)
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

    def _build_policy_plot(self) -> None:
        self.policy_plot = plot_widget()
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

    def _build_sp_plot(self) -> None:
        # S_P against model time.
        self.sp_plot = plot_widget()
        item = self.sp_plot.getPlotItem()
        # the legend under the plot, never over its curves (as the Systems tab's)
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

    def _build_heatmap(self) -> None:
        self.heatmap = ScoreHeatmap()
        self.heatmap.model_clicked.connect(self.select_model)

    def _build_series_plots(self) -> None:
        # Time series: scores per document, the diagonal, cumulative cost below.
        self.series_plot = plot_widget()
        item = self.series_plot.getPlotItem()
        # the legend under the plot, never over its points (inside it, at 1366x768, the y
        # range needed 45 % headroom: a BLEU axis up to 150)
        legend_below(item, col_count=2, labelTextSize="8pt", labelTextColor=TEXT)
        item.getAxis("bottom").setStyle(showValues=False)   # the cost plot below has them
        self.cost_plot = plot_widget()
        self.cost_plot.getPlotItem().setXLink(item)
        self.cost_plot.setMaximumHeight(210)
        for widget in (self.series_plot, self.cost_plot):   # aligned plot areas
            widget.getPlotItem().getAxis("left").setWidth(58)

    def _build_plot_layout(self) -> None:
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

    def table_source(self) -> str:
        """Whose lifelong table the matrix, S_P and summary show: a campaign's system (the
        bundle box names the per-document plot's bundle, which may be another), or ""
        for the bundle's own."""
        if 0 <= self.system_index < len(self.campaign_tables):
            return f"{self.campaign_tables[self.system_index][0]} (campaign)"
        return ""

    def set_campaign(self, tables) -> None:
        """Show an open campaign's systems (a list of (name, LifelongScores)); the first one
        is shown first. On screen, it is drawn a part per turn of the event loop
        (`_draw_next_part`): in one turn, with every system's S_P curve made and the whole
        tab repainted, a campaign arriving on the demo held the event loop 100-190 ms."""
        self.campaign_tables = list(tables)
        index = 0 if self.campaign_tables else -1
        if not (self._built and self.isVisible()):
            self.set_system(index)
            return
        self._choose_system(index)
        self._stale, self._warm_part = True, 0
        if not self._part_pending:   # (one chain of parts at a time)
            self._part_pending = True
            QTimer.singleShot(0, self, self._draw_next_part)

    def _draw_next_part(self) -> None:
        """One part of what `refresh` draws, then the next one in the next turn; nothing when
        the tab was drawn meanwhile (`refresh`) or hidden (the warmer or the show goes on)."""
        self._part_pending = False
        if not self._stale or not self.isVisible():
            return
        parts = self._refresh_parts()
        parts[self._warm_part]()
        self._warm_part += 1
        if self._warm_part < len(parts):
            self._part_pending = True
            QTimer.singleShot(0, self, self._draw_next_part)
            return
        self._stale, self._warm_part, self._bands_pending = False, 0, False
        self.bands.request()

    def set_system(self, index: int) -> None:
        """Show system `index` of the campaign (-1: back to the bundle's own table)."""
        self._choose_system(index)
        self.refresh()

    def _choose_system(self, index: int) -> None:
        self.system_index = index
        self.selected_model = -1
        self.flips.show_system(self.campaign_tables[index][0] if index >= 0 else None)
        self._show_flips_page()
        table = self.table()
        self.table_metric = table.metrics[0] if table is not None and table.metrics else None

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
        self._stale, self._warm_part, self._bands_pending = False, 0, False
        for part in self._refresh_parts():
            part()
        self.bands.request()

    def _refresh_parts(self) -> tuple:
        return (self._show_missing_table, self._show_choices, self._show_policy_controls,
                self._show_policy, self._show_matrix, self._show_policy_scores,
                self._show_summary, self._show_series)

    def _show_missing_table(self) -> None:
        """Without a lifelong table, the policy editor and S_P have nothing to weigh: hide
        them and say what is missing and how to get it; the per-document plots stay."""
        # no bundle this tab draws (none open, or only detection bundles) and no campaign:
        # say so and where to look, in place of empty axes (outsider helper-56: a detection
        # bundle alone showed an empty bundle box, empty plots and a 0-1 colour bar)
        missing = self.table() is None
        nothing = missing and self.bundle() is None
        self.top_split.setVisible(not missing)
        self.no_table.setText(self._nothing_text() if nothing else NO_TABLE)
        self.heatmap_stack.setCurrentWidget(self.no_table if missing else self.heatmap)
        layout = "nothing" if nothing else missing
        if layout != getattr(self, "_missing_layout", None):
            # the note needs less room than the heatmap; the per-document plots take the rest
            # (none without a bundle: the note has the width)
            total = max(sum(self.bottom_split.sizes()), 900)
            left = (total if nothing else min(380, total // 3) if missing
                    else total * 5 // 12)
            self.bottom_split.setSizes([left, total - left])
            self._missing_layout = layout
        self.table_missing = missing   # tests read it

    def _nothing_text(self) -> str:
        detection = [b for b in self.state.bundles if b.task == "detection"]
        if not detection:
            return NO_BUNDLE
        names = ", ".join(html.escape(b.name or Path(b.path or "").stem) for b in detection)
        one = len(detection) == 1
        return (f"<b>{'This detection bundle' if one else 'These detection bundles'}</b> "
                f"({names}) {'is' if one else 'are'} drawn elsewhere: "
                "DET curves, EER and DCFs in the <b>Detection</b> tab, each document's "
                "S<sub>base</sub>, S<sub>adapt</sub> and S<sub>pen</sub> in the Documents "
                "panel.<br><br>" + NO_BUNDLE)

    def _set_time_axis(self, widget: pg.PlotWidget, dates: bool, label: str,
                       whole: bool = False) -> None:
        """Give `widget` a calendar (UTC) bottom axis when the times are dates; ticks on whole
        numbers only when the times are (documents at times 1, 2, 3, 4 ticked at 1.5, 2.5)."""
        if self._time_axes.get(id(widget)) != (dates, whole):
            axis = (CalendarAxis("bottom", utcOffset=0) if dates
                    else whole_axis() if whole else pg.AxisItem("bottom"))
            axis.enableAutoSIPrefix(False)
            axis.setTextPen(TEXT)
            widget.getPlotItem().setAxisItems({"bottom": axis})
            self._time_axes[id(widget)] = (dates, whole)
        if label:
            widget.getPlotItem().setLabel("bottom", label)
        else:
            widget.getPlotItem().showLabel("bottom", False)

    def _show_matrix(self) -> None:
        table = self.table()
        if table is None or self.table_metric is None:
            self.heatmap.set_matrix(None, (), (), "", None)
            return
        self.heatmap.set_matrix(table.values[self.table_metric], table.models,
                                [s.text for s in table.test_times],
                                f"{display_name(self.table_metric)} (%)",
                                higher_is_better(self.table_metric), self.table_source())
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

    # -- export -----------------------------------------------------------------------------

    def export_plot(self, path: str) -> None:
        """Write the tab's four plots as they are on screen: PNG at twice the screen
        resolution, or SVG (QtSvg renders the widgets as vectors). Nothing before the tab
        was first shown."""
        if not self._built:
            return
        export_widget(self.plots, path, "llgui: across time")


NO_BUNDLE = (
    "<b>This tab draws MT and diarization bundles over time</b>: the score matrix "
    "s(M<sub>i</sub>, t<sub>j</sub>) of a bundle's lifelong table, S<sub>P</sub> under the "
    "policy you edit (equations 2 and 3), and the documents in processing order.<br><br>"
    "Open one (File › Open bundle…), or a campaign (File › Open campaign…): each system's "
    "model versions and test batches are then its table (docs/campaigns.md says how to "
    "write one, docs/formats.md what a bundle's <tt>[lifelong]</tt> table holds).")

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
    "versions and test batches and writes such a table: docs/campaigns.md says how, and "
    "docs/formats.md (<tt>[lifelong]</tt>) what the table holds.")

__all__ = ["AcrossTimeTab", "CalendarAxis"]   # CalendarAxis: the systems tab uses it
