"""Issue 36, gate 14: what a step repaints and how many items it touches (no timings here;
the times are `python -m benchmarks --gate 14`).

- a table that selects rows keeps its column header as it was when the selected row moves,
  and does not repaint it (Qt repainted the whole header at each selection change for the
  same picture);
- a timeline draws every lane's bars with one item and its turn labels with another,
  whatever the number of colours, and a step adds no item to its view.
"""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QImage, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QTableView
from tests.gui.workbench.conftest import event_count, shown_timeline


def _table(qtbot, quiet: bool) -> QTableView:
    from llgui.gui.widgets.quiet_header import quiet_header

    table = QTableView()
    if quiet:
        quiet_header(table)
    model = QStandardItemModel(30, 4, table)
    model.setHorizontalHeaderLabels(["step", "kind", "cost", "S_pen"])
    for r in range(30):
        for c in range(4):
            model.setItem(r, c, QStandardItem(f"{r}.{c}"))
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    qtbot.addWidget(table)
    table.resize(420, 300)
    table.show()
    qtbot.waitExposed(table)
    table.selectRow(0)
    qtbot.wait(30)
    return table


def _image(widget) -> QImage:
    return widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


@pytest.mark.parametrize("quiet", [False, True])
def test_the_header_of_a_row_table_stands_while_the_selected_row_moves(qtbot, quiet):
    table = _table(qtbot, quiet)
    header = event_count(table.horizontalHeader().viewport(), QEvent.Type.Paint)
    rows = event_count(table.viewport(), QEvent.Type.Paint)
    for row in range(1, 6):
        table.selectRow(row)
        qtbot.wait(15)
    assert rows.count >= 1   # the rows' new selection was painted
    # Qt's own header (the control) repaints at each move; the quiet one never
    assert (header.count == 0) if quiet else (header.count >= 1)
    # and it shows what Qt's header shows: every section highlighted as a row is selected
    other = _table(qtbot, not quiet)
    other.selectRow(5)
    qtbot.wait(15)
    assert _image(table.horizontalHeader()) == _image(other.horizontalHeader())


def test_a_timeline_draws_its_lanes_with_one_item_and_a_step_adds_none(qtbot, demo_walk):
    from llgui.gui.workbench.diar_paint import LaneBars, LaneLabels
    view = shown_timeline(qtbot, 1100, 500, split=False)
    box = view.plot.getPlotItem().getViewBox()
    counts, colours, labels = set(), set(), 0
    for step in range(len(demo_walk.steps) + 1):
        view.show_step(demo_walk, step, demo_walk.errors_at(step))
        qtbot.wait(5)
        # (pyqtgraph's list of the items added to the view, as Python objects: Qt's list
        # of child items does not always give back a Python subclass)
        items = list(box.addedItems)
        counts.add((len(items), len(box.childGroup.childItems())))
        assert sum(isinstance(i, LaneBars) for i in items) == 1
        assert isinstance(view.turn_labels, LaneLabels)   # (added out of the auto-range)
        assert view.turn_labels.scene() is box.scene() and view.turn_labels.isVisible()
        # no pyqtgraph bar or text item per colour or label (the collar's zones: one item)
        assert sum(isinstance(i, pg.BarGraphItem) for i in items) <= 1
        assert not any(isinstance(i, pg.TextItem) for i in items)
        # every colour of the step's lanes is painted by the one item
        assert {layer.colour for layer in view.bars.layers} == set(view._merged)
        colours |= set(view._merged)
        # and every turn label by the other
        assert [text for text, *_ in view.turn_labels.labels] == [t for _, t in view.labelled]
        labels += len(view.labelled)
    assert len(colours) >= 4   # (several speakers and error kinds: one item drew them all)
    assert labels > 0
    assert len(counts) == 1, counts   # no step added an item
