"""The Systems view: a campaign's leaderboard, one row per system, sortable.

The figures are the campaign report's (`llgui.core.reports.campaign.build_report`, the same object
`llgui campaign --format json` prints): S_base, S_adapt, S_pen and MSR of each system's online
run, S_P under the presets A, B and C; one more column gives S_P under the session's current
policy (`core.campaign.system_policy_score` on the system's lifelong table), updated when the
policy is edited. The model only formats; `SORT_ROLE` gives raw numbers for sorting.

Below the table, every system's S_P(M_i) under the current policy, over model time (the
Across-time tab shows one system's matrix with the others overlaid).

The columns are one list (`COLUMNS`) of (key, header, tooltip). Five of them are the paired
test against the baseline chosen in the view (`llgui compare CAMPAIGN --baseline NAME
--unit document --test bs --samples 1000 --seed 12345`, run in a child process by a worker
job, newest request wins): the 95 % percentile interval [low, high] and the p-value of
S_base (the plain metric on the first hypotheses) and of S_pen, and the probability that
humans agree with S_base's difference (BLEU, chrF: Kocmi et al. 2024). With fewer than
`MIN_UNITS` documents the intervals read "too few units" (grey) and the p-value is the exact
randomisation one, never starred below its smallest possible value; the line above the
table says why. The point estimates are the campaign report's, shown at once; those columns
read "…" until the test's report arrives. Every S_P says over how many of the system's
model versions it averages, "(2/3)", or "no window (0/3)".
"""
from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Slot
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QSplitter, QStackedWidget,
    QTableView, QVBoxLayout, QWidget,
)

from llgui.core.reports.campaign import (
    ONLINE_FIGURES, POLICY_NAMES, coverage_text, policy_coverage, system_policy_score,
)
from llgui.core.across_time.scores import policy_scores
from llgui.core.significance.resample import Plan
from llgui.core.metrics import display_name
from llgui.gui.systems.pairs_view import PairsView
from llgui.gui.table_models import SORT_ROLE
from llgui.gui.systems.persistence import PERSISTENCE_COLUMNS, persistence_cells

PLAN = Plan("bs", 1000, 12345, "document")
"""The Systems view's paired test: paired bootstrap over documents, 1000 resamples, fixed seed."""
COMPARE_KEY = "systems:compare"
PAIRS_KEY = "systems:pairs"
OUTPUTS_UNIT = {"mt": "segment", "diarization": "document"}
"""An output-only campaign's systems are compared on their last model versions' outputs
(`llgui compare CAMPAIGN --cells`), by segment (MT) or recording (issue 32): a bootstrap
against the baseline, an approximate randomisation (1000 trials) over every pair."""
TEST_TIP = ("paired bootstrap against the baseline chosen above, resampling the online run's "
            "documents; signature " + PLAN.signature)

COLUMNS: list[tuple[str, str, str]] = [
    ("system", "system", "the system's name in the campaign file"),
    ("versions", "versions", "the system's model versions Mᵢ, oldest first (their ids in the "
                             "campaign file)"),
    ("s_base", "S_base", "online run: the first hypotheses, pooled over its documents"),
    ("s_base_ci", "S_base 95%", "95% percentile interval [low, high] of S_base, documents "
                                "resampled; 'too few units' below the minimum\n" + TEST_TIP),
    ("s_base_p", "p S_base", "p-value of S_base against the baseline (* p < 0.05; 'exact': "
                             "the randomisation test enumerated on few documents)\n"
                             + TEST_TIP),
    ("s_base_agree", "humans agree", "probability that humans rank this system and the "
                                     "baseline as S_base's difference does (BLEU, chrF: "
                                     "Kocmi et al. 2024, mt-thresholds); none known for "
                                     "other metrics"),
    ("s_adapt", "S_adapt", "online run: the final hypotheses, pooled"),
    ("s_pen", "S_pen", "online run: penalised score (eq. 1 summed over steps), pooled"),
    ("s_pen_ci", "S_pen 95%", "95% percentile interval [low, high] of S_pen, documents "
                              "resampled; 'too few units' below the minimum\n" + TEST_TIP),
    ("s_pen_p", "p S_pen", "p-value of S_pen against the baseline (* p < 0.05)\n" + TEST_TIP),
    ("msr", "MSR", "online run: Minimal Supervision Rate, % (error-count metrics only)"),
] + [(f"s_p_{p}", f"S_P {p}", f"mean over model versions of S_P(M_i) under preset {p}; "
                               "(k/n): over k of the n versions, the others' windows hold "
                               "no batch") for p in POLICY_NAMES] + [
    ("s_p_current", "S_P current", "mean over model versions of S_P(M_i) under the policy "
                                   "being edited in the Across-time tab; (k/n) as above"),
]
COLUMNS[2:2] = PERSISTENCE_COLUMNS   # beside the name and versions: what persists (1.9)
ONLINE_KEYS = frozenset({"s_base", "s_base_ci", "s_base_p", "s_base_agree", "s_adapt", "s_pen",
                         "s_pen_ci", "s_pen_p", "msr"})
"""The columns of the systems' online runs (`bundle = ...` in the campaign)."""
TESTED_KEYS = frozenset({"s_base_ci", "s_base_p", "s_base_agree", "s_pen_ci", "s_pen_p"})
"""The paired test's columns: they need two systems with an online run."""


def _online_runs(model: "LeaderboardModel") -> int:
    return sum(1 for s in (model.report or {}).get("systems", ()) if s.get("online") is not None)


COLUMN_APPLIES: dict[str, object] = {
    **{key: (lambda m: _online_runs(m) > 0) for key in ONLINE_KEYS - TESTED_KEYS - {"msr"}},
    **{key: (lambda m: _online_runs(m) > 1) for key in TESTED_KEYS},
    "msr": lambda m: any(not _missing(m.value(r, "msr")) for r in range(m.rowCount())),
    # what persists: shown when some system has the figure (consecutive versions, an online
    # run re-tested, replicates)
    **{key: (lambda m, key=key: any(not _missing(m.value(r, key)) for r in range(m.rowCount())))
       for key, _, _ in PERSISTENCE_COLUMNS},
}
"""Column key -> does it apply to the open campaign (model -> bool)? A column without an entry
always applies. The view hides the others: an output-only campaign shows no empty online-run
columns (issue 35)."""
GREY = QColor("#8a8a8a")
"""Figures llgui does not trust: bootstrap intervals on too few units."""


class LeaderboardModel(QAbstractTableModel):
    """One row per system of a campaign report, for one metric."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.report: dict | None = None
        self.tables: dict[str, object] = {}
        self.metric: str | None = None
        self.policy = None
        self.comparison: dict | None = None   # `llgui compare --format json`'s report
        self.pending = False                  # a paired test is being computed
        self._rows: list[dict] = []

    def set_report(self, report: dict, tables, metric: str | None = None) -> None:
        self.beginResetModel()
        self.report = report
        self.tables = dict(tables)
        self.metric = metric or (report["metrics"][0] if report["metrics"] else None)
        self._rebuild()
        self.endResetModel()

    def set_metric(self, metric: str) -> None:
        self.beginResetModel()
        self.metric = metric
        self._rebuild()
        self.endResetModel()

    def set_comparison(self, report: dict | None, pending: bool = False) -> None:
        """The paired test's report (None: no test), or `pending` while it is computed."""
        self.beginResetModel()
        self.comparison, self.pending = report, pending
        self._rebuild()
        self.endResetModel()

    def set_policy(self, policy) -> None:
        self.policy = policy
        column = [c[0] for c in COLUMNS].index("s_p_current")
        for row in self._rows:
            row["s_p_current"] = self._current(row["system"])
            row["s_p_current_versions"] = self._current_coverage(row["system"])
        if self._rows:
            self.dataChanged.emit(self.index(0, column), self.index(len(self._rows) - 1, column))

    def _current(self, system: str) -> float:
        table = self.tables.get(system)
        if table is None or self.policy is None or self.metric not in table.metrics:
            return math.nan
        return system_policy_score(table, self.metric, self.policy)

    def _current_coverage(self, system: str) -> tuple[int, int] | None:
        table = self.tables.get(system)
        if table is None or self.policy is None or self.metric not in table.metrics:
            return None
        return policy_coverage(table, self.metric, self.policy)

    def _rebuild(self) -> None:
        self._rows = []
        if self.report is None or self.metric is None:
            return
        for system in self.report["systems"]:
            board = system["leaderboard"].get(self.metric, {})
            models = system.get("models") or ()
            ids = [m["model"] for m in models]
            row = {"system": system["name"], "partial": board.get("partial"),
                   # a year of monthly versions took the S_P columns' room: first and last
                   "versions": ", ".join(ids) if len(ids) <= 3
                   else f"{len(ids)}: {ids[0]} … {ids[-1]}",
                   "versions_tip": "\n".join(f"{m['model']}: {m['time']}" for m in models)}
            row.update({k: board.get(k) for k in ONLINE_FIGURES})
            row.update({f"s_p_{p}": (board.get("s_p") or {}).get(p) for p in POLICY_NAMES})
            for p in POLICY_NAMES:
                versions = (board.get("s_p_versions") or {}).get(p)
                of = board.get("n_versions")
                row[f"s_p_{p}_versions"] = None if versions is None or of is None \
                    else (versions, of)
            row["s_p_current"] = self._current(system["name"])
            row["s_p_current_versions"] = self._current_coverage(system["name"])
            row.update(self._tested(system["name"]))
            row.update(persistence_cells(system))   # NFR, relapse rate, replicate spread
            self._rows.append(row)

    def _tested(self, system: str) -> dict:
        """The interval and p-value cells of one system, from the paired test's report:
        S_base is the plain metric (`bleu`), S_pen its penalised measure (`bleu.s_pen`)."""
        cells = {}
        entry = None
        if self.comparison is not None:
            entry = next((s["metrics"] for s in self.comparison["systems"]
                          if s["name"] == system), None)
        for figure, key in (("s_base", self.metric), ("s_pen", f"{self.metric}.s_pen")):
            found = None if entry is None else entry.get(key)
            cells[f"{figure}_test"] = found
            cells[f"{figure}_ci"] = None if found is None else found.get("low")
            cells[f"{figure}_p"] = None if found is None else found["p_value"]
            if figure == "s_base":
                effect = None if found is None else found.get("effect")
                cells["s_base_agree"] = None if effect is None else \
                    effect.get("human_agreement", None)
                cells["s_base_agree_known"] = effect is not None and \
                    effect.get("human_agreement") is not None
                cells["s_base_agree_reading"] = None if effect is None else \
                    effect.get("reading")
        cells["baseline"] = self.comparison is not None and \
            self.comparison["baseline"] == system
        return cells

    def applies(self, key: str) -> bool:
        """Does column `key` apply to the open campaign (`COLUMN_APPLIES`)?"""
        rule = COLUMN_APPLIES.get(key)
        return rule is None or bool(rule(self))

    def value(self, row: int, key: str):
        """The raw figure of a cell (None or NaN where there is none)."""
        return self._rows[row].get(key)

    # -- Qt ---------------------------------------------------------------------------------

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt's name
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt's name
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        key = COLUMNS[index.column()][0]
        row = self._rows[index.row()]
        value = row.get(key)
        tested = key.endswith(("_ci", "_p", "_agree"))
        if role == Qt.ItemDataRole.DisplayRole:
            if key == "system":   # an online run stopped in a document (issue 32)
                return value + (" (cut short)" if row.get("partial") else "")
            if key == "versions":
                return value
            if tested:
                return self._tested_text(row, key)
            if key.startswith("s_p_"):
                return _s_p_text(value, row.get(f"{key}_versions"))
            return "–" if _missing(value) else f"{value:.2f}"
        if role == SORT_ROLE:
            if key in ("system", "versions"):
                return value
            return -math.inf if _missing(value) else float(value)
        if role == Qt.ItemDataRole.TextAlignmentRole and key not in ("system", "versions"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and key == "system" and row.get("partial"):
            return (f"{value}'s online run stopped before its end: {row['partial']} of its "
                    "S_base, S_adapt, S_pen and MSR")
        if role == Qt.ItemDataRole.ToolTipRole and key == "versions":
            return f"{COLUMNS[index.column()][2]}\n{row.get('versions_tip', '')}"
        if role == Qt.ItemDataRole.ToolTipRole and self.report is not None:
            signature = self.report.get("signatures", {}).get(self.metric, "")
            test = row.get(f"{key.rsplit('_', 1)[0]}_test") if tested else None
            if test and test.get("low") is not None:
                signature = f"{_test_tip(test)}\n{signature}"
            if key.startswith("s_p_") and row.get(f"{key}_versions") is not None:
                signature = (f"averaged over {coverage_text(*row[f'{key}_versions'])}"
                             f"\n{signature}")
            return f"{COLUMNS[index.column()][2]}\n{signature}"
        if role == Qt.ItemDataRole.FontRole and key == "system" and row.get("baseline"):
            font = QFont()
            font.setBold(True)   # the baseline of the paired test
            return font
        if role == Qt.ItemDataRole.ForegroundRole:
            test = row.get(f"{key.rsplit('_', 1)[0]}_test") if tested else None
            if key.endswith("_ci") and test is not None and test.get("too_few"):
                return QBrush(GREY)
            if key.startswith("s_p_") and (row.get(f"{key}_versions") or (1, 1))[0] == 0:
                return QBrush(GREY)
            if key.endswith("_p") and test is not None and test.get("significant"):
                return QBrush(QColor("#b00020"))
            if key.endswith("_agree") and not row.get("s_base_agree_known"):
                return QBrush(GREY)
        return None

    def _tested_text(self, row: dict, key: str) -> str:
        if self.pending:
            return "…"
        if row.get("baseline") and key.endswith(("_p", "_agree")):
            return "baseline"
        if key.endswith("_agree"):
            if self.comparison is None or row.get("s_base_test") is None:
                return "–"
            if not row.get("s_base_agree_known"):
                return row.get("s_base_agree_reading") or "none known"
            return f"{100 * row[key]:.1f}%"
        test = row.get(f"{key.rsplit('_', 1)[0]}_test")
        if test is None or _missing(row.get(key)):
            return "–"
        if key.endswith("_ci"):
            if test.get("too_few"):
                return f"too few units ({test.get('n_units')})"
            return f"[{test['low']:.2f}, {test['high']:.2f}]"
        return _p_text(test)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section][1]
            if role == Qt.ItemDataRole.ToolTipRole:
                return COLUMNS[section][2]
        return None


def _p_text(test: dict) -> str:
    """p as `llgui compare`'s table prints it: 4 decimals, `*` where the report calls it
    significant (p < 0.05 from a trusted test), "exact" for the enumerated randomisation."""
    p = test.get("p_value")
    if p is None:
        return "–"
    text = f"{p:.4f}" + ("*" if test.get("significant") else "")
    return text + (" exact" if test.get("test") == "ar-exact" else "")


def _test_tip(test: dict) -> str:
    """What a tested cell's tooltip says: the interval, the units, the test behind p."""
    n, unit = test.get("n_units"), test.get("unit", "unit")
    lines = [f"score {test['score']:.4f}, 95% percentile interval [{test['low']:.4f}, "
             f"{test['high']:.4f}] over {n} {unit}s"
             + ("" if test.get("mean") is None else f" (bootstrap mean {test['mean']:.4f})")]
    if test.get("too_few"):
        lines.append(f"too few units: {n} {unit}s, the bootstrap is not trusted below the "
                     "minimum; the p-value is the exact randomisation test")
    if test.get("p_value") is not None:
        p_min = test.get("p_min")
        lines.append(f"p {test['p_value']:.4f} from {test.get('test')}"
                     + ("" if p_min is None else f" (smallest possible p {p_min:.4f})"))
    if test.get("ties"):
        lines.append(f"{test['ties']} of {n} units tied with the baseline's")
    return "\n".join(lines)


def _s_p_text(value, coverage) -> str:
    """S_P with the versions it averages when not all: `49.81 (12/13)`; the empty window."""
    if coverage is not None and coverage[0] == 0:
        return f"no window (0/{coverage[1]})"
    text = "–" if _missing(value) else f"{value:.2f}"
    if coverage is not None and coverage[0] < coverage[1]:
        text += f" ({coverage[0]}/{coverage[1]})"
    return text


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def human_note(human: dict | None) -> str:
    """The campaign's agreement with its human scores, for the status line (issue 32)."""
    if not human:
        return ""
    if "metrics" not in human:
        return f" Human scores not used: {human.get('problem', '')}"
    parts = []
    for key, e in human["metrics"].items():
        spa = e["soft_pairwise_accuracy"]
        parts.append(f"{display_name(key)} {100 * e['pairwise_accuracy']:.1f} % of "
                     f"{e['pairs']} pairs" + ("" if spa is None else f", SPA {spa:.3f}"))
    return (" Agreement with the human scores (pairwise accuracy, Kocmi et al. 2021; soft "
            "pairwise accuracy, Thompson et al. 2024): " + "; ".join(parts) + ".")


def comparison_note(report: dict) -> str:
    """The status line's account of a paired test: which test, over how many units, and
    why nothing is starred when the units are too few."""
    entries = [e for s in report["systems"] for e in s["metrics"].values()
               if e.get("p_value") is not None]
    over = "the online runs' documents"
    if (report.get("source") or {}).get("kind") == "cells":   # no online run (issue 32)
        over = ("the systems' last model versions' outputs (no online run: the S_base "
                "interval and p columns are of those outputs)")
    text = (f"Paired test against {report['baseline']} over {over} "
            f"({report['signature']}); * p < 0.05.")
    few = [e for e in entries if e.get("too_few")]
    if few:
        n, p_min = few[0].get("n_units"), few[0].get("p_min")
        text += (f" No star: only {n} documents, fewer than {report.get('min_units')}; the "
                 "bootstrap is not trusted, the p-values are the exact randomisation test "
                 f"over all {2 ** n} swaps, whose smallest possible p is {p_min:.4f}.")
    return text


class SystemsView(QWidget):
    """The leaderboard of the open campaign, with a metric chooser and the campaign's state
    (cells, gaps, problems) in one line above it."""

    def __init__(self, state, parent: QWidget | None = None, jobs=None):
        super().__init__(parent)
        self.state = state
        self.jobs = jobs
        self.path: str | None = None    # the campaign file (the paired test reads it again)
        self.outputs_only = False       # no online run: the outputs are compared (issue 32)
        self._outputs_unit = "segment"
        self.requests = 0               # paired tests asked for (tests count them)
        self._campaign_text = ""
        self.model = LeaderboardModel(self)
        self.model.set_policy(state.policy)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.metric_box = QComboBox()
        self.metric_box.setToolTip("the metric of the leaderboard")
        self.metric_box.activated.connect(self._on_metric_box_activated)
        self.baseline_box = QComboBox()
        self.baseline_box.setToolTip("the baseline of the paired test: the systems with an "
                                     "online run (`bundle = ...`)\n" + TEST_TIP)
        self.baseline_box.setMinimumContentsLength(10)
        self.baseline_box.activated.connect(self._on_baseline_box_activated)
        self.status = QLabel("no campaign open (File › Open campaign…)")
        self.status.setWordWrap(True)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().setVisible(False)
        self.view.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.view.setAlternatingRowColors(True)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("metric"))
        bar.addWidget(self.metric_box)
        bar.addSpacing(12)
        bar.addWidget(QLabel("baseline"))
        bar.addWidget(self.baseline_box)
        bar.addSpacing(12)
        bar.addWidget(self.status, 1)
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.splitter = splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.view)
        splitter.addWidget(self._build_plot())
        self.pairs_view = PairsView()   # every pair of systems (issue 32)
        splitter.addWidget(self.pairs_view)
        splitter.setSizes([260, 420, 220])
        layout.addWidget(splitter, 1)
        # no campaign: words, not an empty table over an empty plot (issue 23 item 19)
        self.empty = QLabel(EMPTY)
        self.empty.setWordWrap(True)
        self.empty.setTextFormat(Qt.TextFormat.RichText)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setMargin(40)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.empty)
        self.pages.addWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)
        self.curves: dict[str, object] = {}   # system -> its S_P curve (tests read them)
        state.policy_changed.connect(self._on_state_policy_changed)
        if jobs is not None:
            jobs.result_ready.connect(self._on_jobs_result_ready)
            jobs.failed.connect(self._on_jobs_failed)

    def set_campaign(self, report: dict, tables, path: str | None = None) -> None:
        """Show a campaign's report; with its `path` and two systems with an online run, the
        paired test against the first of them starts at once (another baseline: the box)."""
        self.pages.setCurrentIndex(1)
        self.metric_box.clear()
        for metric in report["metrics"]:
            self.metric_box.addItem(display_name(metric), metric)
        self.path = path
        if self.jobs is not None:   # a test of the previous campaign must not land here
            self.jobs.cancel(COMPARE_KEY)
        self.model.set_comparison(None)
        self.model.set_report(report, tables)
        self._show_columns()
        self.baseline_box.clear()
        online = [s["name"] for s in report["systems"] if s.get("online") is not None]
        # no online run: the systems' scored outputs are compared (issue 32)
        self.outputs_only = not online
        self.baseline_box.addItems(online or [s["name"] for s in report["systems"]
                                              if s["cells"]])
        self.baseline_box.setEnabled(self.baseline_box.count() > 1 and path is not None)
        self._compare_all_pairs(report)
        self._show_curves()
        n_cells = sum(len(s["cells"]) for s in report["systems"])
        from llgui.io.campaign_export import counted

        parts = [f"{report['campaign']}: {counted(len(report['systems']), 'system')}, "
                 f"{counted(len(report['batches']), 'batch')}, {counted(n_cells, 'cell')} scored"]
        if report["gaps"]:
            parts.append(f"{len(report['gaps'])} missing")
        if report["partial"]:   # the first problem here, every one in the tooltip
            problems = report["problems"]
            parts.append(f"PARTIAL: {len(problems)} problem{'s' * (len(problems) != 1)}"
                         + (f", the first: {problems[0]}" if problems else ""))
        self.status.setText("; ".join(parts) + ". S_P: mean over model versions; online "
                            "figures pooled over the online run's documents."
                            + human_note(report.get("human")))
        self._campaign_text = self.status.text()
        self.status.setToolTip("\n".join(report["problems"]) if report["partial"] else "")
        owner = self.window()
        if report["partial"] and hasattr(owner, "job_failures"):   # (the main window) what
            # could not be used, as a bundle's that did not open (`--screenshot`: exit 2)
            known = getattr(owner, "open_problems", [])
            owner.open_problems = [*known, *(p for p in report["problems"] if p not in known)]
        if self.baseline_box.isEnabled():
            self.compare_against(self.baseline_box.currentText())

    def _show_columns(self) -> None:
        """Only the columns that apply to the campaign (`LeaderboardModel.applies`). A narrow
        leaderboard (no online runs: name, versions, S_P) stands beside the plot, every
        system in sight at 20-30 systems; a wide one stands above it."""
        for column, (key, _, _) in enumerate(COLUMNS):
            self.view.setColumnHidden(column, not self.model.applies(key))
        wide = any(self.model.applies(key) for key in ONLINE_KEYS)
        orientation = Qt.Orientation.Vertical if wide else Qt.Orientation.Horizontal
        if self.splitter.orientation() != orientation:
            self.splitter.setOrientation(orientation)
        # the third part is every pair of systems (PairsView): a size of 0 hid it entirely
        if wide:   # the table no taller than its rows (up to 240 px), then plot and pairs
            rows = self.model.rowCount() * max(self.view.verticalHeader().defaultSectionSize(),
                                               self.view.sizeHintForRow(0))
            table = min(240, self.view.horizontalHeader().sizeHint().height() + rows
                        + self.view.horizontalScrollBar().sizeHint().height()
                        + 2 * self.view.frameWidth() + 10)
            # setSizes scales sizes that do not add up to the height: give them in its pixels
            height = max(self.splitter.height(), 560)
            pairs = min(240, height // 3)
            self.splitter.setSizes([table, height - table - pairs, pairs])
        else:   # the table as wide as its columns, the plot and the pairs the rest
            self.view.resizeColumnsToContents()
            width = sum(self.view.columnWidth(c) for c in range(len(COLUMNS))
                        if not self.view.isColumnHidden(c)) + 4
            rest = max(700, self.splitter.width() - width)
            self.splitter.setSizes([width, rest - rest // 3, rest // 3])
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)

    def compare_against(self, baseline: str) -> None:
        """Run the paired test against `baseline` on a worker (a newer request replaces an
        older one); the interval and p-value columns read "…" until it is done."""
        if self.jobs is None or self.path is None:
            return
        from llgui.campaign.compare_child import compare_in_child

        self.requests += 1
        self.model.set_comparison(None, pending=True)
        self.status.setText(f"{self._campaign_text} Paired test against {baseline}: "
                            "computing on a worker…")
        if self.outputs_only:
            plan = Plan("bs", PLAN.samples, PLAN.seed, self._outputs_unit)
            self.jobs.submit(COMPARE_KEY, compare_in_child, self.path, baseline, plan,
                             cells=True)
        else:
            self.jobs.submit(COMPARE_KEY, compare_in_child, self.path, baseline, PLAN)

    def _compare_all_pairs(self, report: dict) -> None:
        """Every pair of the systems' last model versions, on a worker."""
        self._outputs_unit = OUTPUTS_UNIT.get(report["task"], "document")
        if self.jobs is None:
            return
        self.jobs.cancel(PAIRS_KEY)
        if self.path is None or sum(1 for s in report["systems"] if s["cells"]) < 2:
            self.pairs_view.set_pending("every pair of systems: needs two systems with "
                                        "scored outputs")
            return
        from llgui.campaign.compare_child import compare_in_child

        self.pairs_view.set_pending("every pair of systems: computing on a worker…")
        self.pairs_view.metric = self.metric_box.currentData()
        # 10,000 trials: Holm's smallest adjusted p is pairs/(trials + 1), under 0.05 up to
        # 500 pairs (32 systems)
        plan = Plan("ar", 10_000, PLAN.seed, self._outputs_unit)
        self.jobs.submit(PAIRS_KEY, compare_in_child, self.path, None, plan, cells=True)

    @Slot(int)
    def _on_baseline_box_activated(self, k: int) -> None:
        self.compare_against(self.baseline_box.itemText(k))

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result: object) -> None:
        if key == PAIRS_KEY:
            self.pairs_view.set_report(result)
        if key != COMPARE_KEY:
            return
        self.model.set_comparison(result)
        self.status.setText(f"{self._campaign_text} {comparison_note(result)}")

    @Slot(str, str)
    def _on_jobs_failed(self, key: str, message: str) -> None:
        from llgui.gui.workers import refusal

        # the campaign's own problem (an output that could not be scored) in its own words,
        # not as llgui's failure
        said = refusal(message)
        if key == PAIRS_KEY:
            self.pairs_view.set_pending("every pair of systems: not tested, " + said
                                        if said is not None
                                        else f"every pair of systems failed: {message}")
        if key == COMPARE_KEY:
            self.model.set_comparison(None)
            self.status.setText(f"{self._campaign_text} The paired test "
                                + (f"was not run: {said}" if said is not None
                                   else f"failed: {message}"))

    def _build_plot(self):
        import pyqtgraph as pg

        from llgui.gui.widgets.system_legend import LegendList

        self.plot = pg.PlotWidget()
        self.plot.setBackground("w")
        item = self.plot.getPlotItem()
        item.setMenuEnabled(False)
        item.showGrid(x=True, y=True, alpha=0.15)
        item.setAxisItems({"bottom": _calendar_axis()})
        # the legend beside the plot, never over its curves (issue 35)
        self.legend = LegendList()
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.plot, 1)
        row.addWidget(self.legend)
        return box

    def _show_curves(self) -> None:
        """S_P(M_i) of every system under the current policy (the metric chosen above)."""
        import pyqtgraph as pg

        from llgui.gui.widgets.system_legend import campaign_system_style

        item = self.plot.getPlotItem()
        item.clear()
        self.curves = {}
        entries = []
        metric = self.model.metric
        if metric is None:
            return
        for k, (name, table) in enumerate(self.model.tables.items()):
            if metric not in table.metrics:
                continue
            colour, symbol, dash = campaign_system_style(name, self.model.tables)
            entries.append((name, (colour, symbol, dash)))
            x = table.model_time_values()
            dates = bool(table.model_times and table.model_times[0].is_date)
            self.curves[name] = item.plot(
                x, policy_scores(table, metric, self.state.policy),
                pen=pg.mkPen(colour, width=2, style=dash), symbol=symbol, symbolSize=9,
                symbolBrush=colour, symbolPen=None, name=name)
            item.getAxis("bottom").setStyle(showValues=True)
            # months named once ("Jun 2023 Jul Aug"): pyqtgraph's own date axis wrote its
            # month and day levels over each other ("Ju02")
            if dates and not isinstance(item.getAxis("bottom"), pg.DateAxisItem):
                item.setAxisItems({"bottom": _calendar_axis()})
            if not dates:
                item.setAxisItems({"bottom": pg.AxisItem("bottom")})
        self.legend.set_entries(entries)
        # dark text (pyqtgraph's grey read as disabled), a label whose subscript is not cut
        for name in ("left", "bottom"):
            item.getAxis(name).setTextPen("#222222")
        item.setLabel("left", f"S_P ({display_name(metric)}, %)")
        item.setLabel("bottom", "model time (the date of each version Mᵢ)")
        item.setTitle(f"S_P(M<sub>i</sub>), policy {self.state.policy_name}",
                      size="9pt", color="#222222")
        item.setToolTip("S_P(Mᵢ) of every system under the current policy; none where a "
                        "version's window holds no test. " + self.legend.HOW)

    def set_progress_text(self, text: str) -> None:
        self.status.setText(text)
        self._campaign_text = text

    @Slot(int)
    def _on_metric_box_activated(self, k: int) -> None:
        self.model.set_metric(self.metric_box.itemData(k))
        self.pairs_view.set_metric(self.metric_box.itemData(k))
        self._show_columns()
        self._show_curves()

    @Slot()
    def _on_state_policy_changed(self) -> None:
        self.model.set_policy(self.state.policy)
        self._show_curves()


EMPTY = ("<b>No campaign open.</b><br><br>This tab compares the systems of an evaluation "
         "campaign: a leaderboard (S_base, S_adapt, S_pen, MSR and S_P of each system, with a "
         "paired test against a baseline) and every system's S_P over model time.<br><br>"
         "Open one with File › Open campaign… (Ctrl+Shift+C), or the demo's with File › Open "
         "the demo. Two bundles on the same documents are compared in the Documents panel "
         "(Δ S_pen) and the Workbench (side by side) without a campaign.")


def _calendar_axis():
    from llgui.gui.across_time.tab import CalendarAxis

    return CalendarAxis("bottom", utcOffset=0)
