"""DET confidence bands and EER / minDCF intervals for the Detection tab (DESIGN 1.7).

`DetBands` owns a "DET bands" check box; when it is on, every system's band (pointwise 95 %
bootstrap band of P_miss at fixed P_fa, unit trial) and the intervals of its EER and minDCF
are computed by `llgui.core.significance.detection.det_bands` on a worker (JobRunner key "det:bands";
the newest request wins). The tab draws its curves at once; the bands, and two table columns
"EER 95% CI" and "minDCF 95% CI" ([low, high]: BCa intervals of 1,000 stratified resamples,
the window's only EER interval, issue 27), appear when the job is done. Workers never touch widgets: the
result arrives through the runner's signal.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QTableWidgetItem

from llgui.core.display.palette import DET_CURVE_COLOURS

BANDS_KEY = "det:bands"
SAMPLES = 1000
SEED = 12345
EXTRA_COLUMNS = ("EER 95% CI", "minDCF 95% CI")


class DetBands(QObject):
    """The band toggle of a `DetectionTab`; `results` holds the DetIntervals on screen."""

    def __init__(self, tab) -> None:
        super().__init__(tab)
        self.tab = tab
        self.results: dict[str, object] = {}   # system name -> DetIntervals
        self.requests = 0                      # jobs submitted (tests)
        self.samples = SAMPLES                 # bootstrap resamples per system
        self._key: tuple = ()
        self._items: list = []                 # the band items on the plot
        self.box = QCheckBox("DET bands")
        self.box.setToolTip(f"pointwise 95 % percentile bootstrap bands of the DET curves, and "
                            f"{self.description}: {self.signature}")
        self.box.toggled.connect(self._on_box_toggled)
        tab.jobs.result_ready.connect(self._on_jobs_result_ready)
        tab.jobs.failed.connect(self._on_jobs_failed)

    @property
    def signature(self) -> str:
        from llgui.core.significance.resample import Plan

        return (Plan("bs", getattr(self, "samples", SAMPLES), SEED, "trial").signature
                + "|strata:class|ci:bca95")

    @property
    def description(self) -> str:
        return (f"95 % BCa intervals of EER and minDCF from {self.samples:,} bootstrap "
                f"resamples, targets and non-targets resampled separately")

    # -- requests ---------------------------------------------------------------------------

    def request(self) -> int | None:
        """Compute the bands of the tab's systems on a worker (replacing a running job)."""
        from llgui.core.significance.detection import det_bands
        from llgui.core.significance.resample import Plan

        systems = self.tab.systems()
        if not systems or not self.box.isChecked():
            self.tab.jobs.cancel(BANDS_KEY)
            return None
        key = (tuple(id(t) for t in systems), self.tab.dcf(), self.tab.eer_method())
        if key != self._key:
            self._key = key
            self.results = {}
        self.requests += 1
        return self.tab.jobs.submit(BANDS_KEY, det_bands, systems,
                                    Plan("bs", self.samples, SEED, "trial"), self.tab.dcf(),
                                    self.tab.eer_method())

    @Slot(bool)
    def _on_box_toggled(self, on: bool) -> None:
        if on:
            self.request()
        else:
            self.tab.jobs.cancel(BANDS_KEY)
        self._redraw()

    def _redraw(self) -> None:
        """Replace only the band items and the two columns: the curves, the threshold views
        and the rest of the table stay (a full redraw of the tab takes ~0.15 s)."""
        item = self.tab.plot.getPlotItem()
        for old in self._items:
            item.removeItem(old)
        self._items = []
        self.draw(item, self.tab.results, DET_CURVE_COLOURS)
        self.fill_table(self.tab.table, self.tab.results)

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result) -> None:
        if key != BANDS_KEY:
            return
        self.results = {r.band.name: r for r in result}
        self._redraw()

    @Slot(str, str)
    def _on_jobs_failed(self, key: str, message: str) -> None:
        if key == BANDS_KEY:
            self.tab.status.setText(f"could not compute the DET bands: {message}")

    # -- drawing (called by the tab after it drew its curves) --------------------------------

    def draw(self, item, results, palette) -> None:
        """Add the bands of the systems on screen to the plot item `item` (which the tab has
        just cleared, or `_redraw` has rid of the old bands), beneath the curves."""
        self._items = []
        if not self.box.isChecked():
            return
        from llgui.core.detection.det import probit

        for k, r in enumerate(results):
            found = self.results.get(r.name)
            if found is None:
                continue
            band = found.band
            colour = QColor(palette[k % len(palette)])
            fill = QColor(colour)
            fill.setAlpha(50)
            x = probit(band.p_fa)
            low = pg.PlotDataItem(x, probit(band.low), pen=pg.mkPen(colour, width=1,
                                                                    style=Qt.PenStyle.DotLine))
            high = pg.PlotDataItem(x, probit(band.high), pen=pg.mkPen(colour, width=1,
                                                                      style=Qt.PenStyle.DotLine))
            fill_item = pg.FillBetweenItem(low, high, brush=pg.mkBrush(fill))
            for part in (low, high, fill_item):
                part.setZValue(-1)
                item.addItem(part)
                self._items.append(part)

    def fill_table(self, table, results) -> None:
        """Two extra columns with the EER and minDCF intervals [low, high] (BCa)."""
        base = table.columnCount() - (len(EXTRA_COLUMNS) if self._has_columns(table) else 0)
        if not self.box.isChecked():
            table.setColumnCount(base)
            return
        table.setColumnCount(base + len(EXTRA_COLUMNS))
        for j, title in enumerate(EXTRA_COLUMNS):
            table.setHorizontalHeaderItem(base + j, QTableWidgetItem(title))
        for row, r in enumerate(results):
            found = self.results.get(r.name)
            for j, attr in enumerate(("eer", "min_dcf")):
                e = getattr(found, attr) if found is not None else None
                withheld = attr == "min_dcf" and found is not None and not found.min_dcf_trusted
                if withheld:
                    cell = QTableWidgetItem(f"too few errors ({found.min_dcf_errors})")
                    cell.setForeground(QColor("#8a8a8a"))
                    cell.setToolTip(
                        f"minDCF: {found.min_dcf_errors} false alarms or misses at its operating "
                        f"point, fewer than {found.min_errors} (Doddington's rule of 30): its "
                        f"bootstrap interval would not hold its level, so none is shown")
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                    table.setItem(row, base + j, cell)
                    continue
                if e is None or e.low is None:
                    text, value = "…", None
                else:
                    digits = 2 if attr == "eer" else 4
                    text, value = f"[{e.low:.{digits}f}, {e.high:.{digits}f}]", (e.low, e.high)
                cell = QTableWidgetItem(text)
                cell.setData(Qt.ItemDataRole.UserRole, value)
                cell.setToolTip(f"{'EER %' if attr == 'eer' else 'minDCF'}: "
                                f"{self.description}, around the point value "
                                f"({self.signature})")
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(row, base + j, cell)

    def _has_columns(self, table) -> bool:
        n = table.columnCount()
        if n < len(EXTRA_COLUMNS):
            return False
        header = table.horizontalHeaderItem(n - 1)
        return header is not None and header.text() == EXTRA_COLUMNS[-1]
