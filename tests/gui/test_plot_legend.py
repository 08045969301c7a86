"""The legend under a plot (llgui.gui.widgets.plot_legend) fits its columns on a later turn of
the event loop: a legend deleted before that turn is left alone (a bare callable ran on its
deleted layout, an exception in the event loop in a test run beside two CPU hogs)."""
from __future__ import annotations


def test_a_legend_deleted_before_its_columns_are_fitted_is_left_alone(qtbot):
    import pyqtgraph as pg
    from PySide6.QtCore import QCoreApplication, QEvent

    from llgui.gui.widgets.plot_legend import legend_below

    plot = pg.PlotWidget()
    legend = legend_below(plot.getPlotItem(), col_count=3)
    for k in range(3):
        plot.getPlotItem().plot([0, 1], [k, k + 1], name=f"a rather long curve name {k}")
    plot.resize(1200, 400)
    plot.show()
    qtbot.waitExposed(plot)
    qtbot.waitUntil(lambda: legend.columnCount == 3, timeout=5000)
    # the cell narrowed to one entry's width (as a resize of the plot's layout gives it)
    from PySide6.QtCore import QSizeF
    from PySide6.QtWidgets import QGraphicsSceneResizeEvent

    def narrowed(width: float) -> None:
        event = QGraphicsSceneResizeEvent()
        event.setOldSize(legend.geometry().size())
        event.setNewSize(QSizeF(width, legend.geometry().height()))
        legend.resizeEvent(event)

    applied = []
    fit = legend.setColumnCount
    legend.setColumnCount = lambda n: (applied.append(n), fit(n))
    narrowed(legend._entry_width() + 1)           # one column: fitted on the next turn
    assert legend._pending == 1 and applied == []
    qtbot.waitUntil(lambda: 1 in applied, timeout=5000)   # (a live legend is)
    qtbot.waitUntil(lambda: legend._pending is None, timeout=5000)
    target = 2 if legend.columnCount == 1 else 1  # another fit, and the legend deleted first
    narrowed(legend._entry_width() * target + 1)
    assert legend._pending == target
    plot.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qtbot.wait(50)   # the fitting's turn: pytest-qt fails the test on an exception in it
