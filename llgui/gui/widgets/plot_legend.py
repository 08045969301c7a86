"""A pyqtgraph legend laid out under a plot's bottom axis instead of over its curves.

`PlotItem.addLegend` anchors the legend inside the view box, where it covers the data (the
Across-time S_P legend took the upper half of its plot at 1366x768, and the y range had to
keep 45 % headroom free for it). `legend_below` puts the same `LegendItem` in the plot
item's own grid layout, in a row of its own under the bottom axis: it is still
`plot_item.legend` (addItem, removeItem, getLabel, clear work as before), the curves get the
whole view box, and the legend takes the rows its entries need."""
from __future__ import annotations

LEGEND_ROW = 4
"""The PlotItem layout's row under the bottom axis (0 title, 1 top axis, 2 view box, 3 bottom
axis)."""


def legend_below(plot_item, col_count: int = 3, **options):
    """Give `plot_item` a legend laid out under its bottom axis (a `pyqtgraph.LegendItem`,
    `options` as `addLegend` takes them, without `offset`), set as `plot_item.legend`. It
    takes up to `col_count` columns, fewer when the plot is too narrow for them: it never
    widens the plot past its widget (at 1366 px two columns did)."""
    legend = _fitting_legend()(col_count, **options)
    plot_item.layout.addItem(legend, LEGEND_ROW, 1)
    plot_item.legend = legend
    return legend


def _fitting_legend():
    import pyqtgraph as pg
    from PySide6.QtWidgets import QSizePolicy

    class FittingLegend(pg.LegendItem):
        """A legend in a layout cell whose columns fit the cell's width."""

        def __init__(self, most: int, **options):
            super().__init__(offset=None, colCount=most, **options)
            self._most = most
            self._pending: int | None = None
            # the cell's width is the plot's: the legend adapts to it, never sets it
            self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        def _entry_width(self) -> float:
            # the text's own width (a LabelItem's rectangle is as wide as its cell)
            return max((sample.boundingRect().width() + label.item.boundingRect().width() + 10
                        for sample, label in self.items), default=0.0)

        def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
            super().resizeEvent(event)
            entry = self._entry_width()
            width = event.newSize().width()
            fits = max(1, min(self._most, int(width // entry) if entry else self._most))
            if fits != self.columnCount and fits != self._pending:
                # not inside the layout's own pass (re-laying it out there crashed Qt); with
                # the legend as the call's context, so that a legend deleted meanwhile (its
                # window closed) drops it: a bare callable ran on a deleted layout
                # (RuntimeError in the event loop, a test run beside two CPU hogs)
                from PySide6.QtCore import QTimer

                self._pending = fits
                QTimer.singleShot(0, self, self._apply_columns)

        def _apply_columns(self) -> None:
            import shiboken6

            fits, self._pending = self._pending, None
            if (fits is not None and fits != self.columnCount
                    and shiboken6.isValid(self.layout)):
                self.setColumnCount(fits)

    return FittingLegend
