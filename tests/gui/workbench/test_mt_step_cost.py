"""Issue 36 (MT): a step redraws only what changed, from caches that never serve a stale cell.

The view stepped through a document (formatted cells cached by content, laid-out cells cached
by the delegate, the next step's screen prepared ahead) must paint exactly what a freshly
built view of the same step paints; the reading pane's HTML is set once a step; a cell laid
out once is never laid out again while it is cached; the rows on screen are the document's
rows around the corrected segment."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from llgui.core.walkthrough import walk
from llgui.io.bundle import load_bundle
from tests.conftest import REPO

MT_BUNDLE = REPO / "resources" / "demo" / "mt" / "bundle.toml"


@pytest.fixture(scope="module")
def demo_walk():
    bundle = load_bundle(MT_BUNDLE)
    document = bundle.documents[0]
    result = walk(document, bundle.steps_of(document.id), "bleu", bundle.settings, bundle.cost)
    assert len(result.steps) >= 8
    return result


def _view(qtbot):
    from llgui.gui.workbench.mt_view import MTView

    view = MTView()
    qtbot.addWidget(view)
    view.resize(1100, 600)
    view.show()
    qtbot.waitExposed(view)
    return view


def _paint(qtbot, view):
    view.table.viewport().repaint()
    qtbot.wait(1)


def _prepared(qtbot, view) -> None:
    """Wait until the next step's screen is prepared (the user reading this step)."""
    qtbot.wait(view.AHEAD_DELAY_MS)
    qtbot.waitUntil(lambda: not view._ahead_timer.isActive() and view._ahead is None,
                    timeout=10000)


def _picture(view):
    return view.table.viewport().grab().toImage()


def _cells(view) -> dict:
    model = view.model
    return {(r, c): model.data(model.index(r, c), role)
            for r in range(model.rowCount()) for c in range(model.columnCount())
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.UserRole + 2)}


def test_a_stepped_view_paints_what_a_fresh_view_of_the_step_paints(qtbot, demo_walk):
    stepped = _view(qtbot)
    n = len(demo_walk.steps)
    for step in range(n + 1):
        stepped.show_step(demo_walk, step)
        _paint(qtbot, stepped)
        _prepared(qtbot, stepped)   # the next step prepared ahead
    for step in (n, n // 2, 1, 0):   # back again: every cell from the caches
        stepped.show_step(demo_walk, step)
        _paint(qtbot, stepped)
        fresh = _view(qtbot)
        fresh.show_step(demo_walk, step)
        fresh.table.setCurrentIndex(fresh.model.index(stepped.table.currentIndex().row(), 1))
        fresh.table.verticalScrollBar().setValue(stepped.table.verticalScrollBar().value())
        _paint(qtbot, fresh)
        assert _cells(stepped) == _cells(fresh), step
        assert _picture(stepped) == _picture(fresh), step
        assert stepped.reading.toHtml() == fresh.reading.toHtml(), step
        fresh.close()


def test_the_reading_pane_is_set_once_a_step(qtbot, demo_walk):
    view = _view(qtbot)
    view.show_step(demo_walk, 0)
    view.table.setCurrentIndex(view.model.index(0, 1))
    sets = []
    for name in ("setHtml", "setDocument"):
        original = getattr(view.reading, name)
        setattr(view.reading, name, lambda value, original=original: (
            sets.append(value), original(value)))
    for step in range(1, len(demo_walk.steps) + 1):
        before = len(sets)
        view.show_step(demo_walk, step)
        assert len(sets) - before <= 1, step
        # ... and it shows the step's corrected segment
        corrected = min(demo_walk.view(step).corrected_segments)
        assert view.reading_segment == corrected
        assert f"segment {corrected + 1}" in view.reading.toPlainText()


def test_the_next_reading_text_is_laid_out_while_the_step_is_read(qtbot, demo_walk):
    # the reading pane's next document is made ahead, at the width it is shown at, and the
    # step shows that document as it is (not the text set again)
    view = _view(qtbot)
    view.show_step(demo_walk, 1)
    _paint(qtbot, view)
    _prepared(qtbot, view)
    ahead = list(view._reading_docs.values())
    assert ahead
    view.show_step(demo_walk, 2)
    assert view.reading.document() is ahead[-1]
    corrected = min(demo_walk.view(2).corrected_segments)
    assert f"segment {corrected + 1}" in view.reading.toPlainText()
    assert view.reading.document().textWidth() == view.reading.viewport().width()


def test_the_reading_pane_shows_the_next_text_from_the_browser_that_held_it(qtbot, demo_walk):
    """The next step's document is given to the pane's second browser while the step is
    read (a browser lays a document out again when it is given one); the step shows that
    browser, which looks as the pane of a fresh view of the step; the focus goes with it."""
    view = _view(qtbot)
    for step in (1, 2, 3):
        view.show_step(demo_walk, step)
        _paint(qtbot, view)
        _prepared(qtbot, view)
    pane = view.reading_pane
    before, held = pane.swaps, pane.other
    view.reading.setFocus()
    qtbot.waitUntil(view.reading.hasFocus)
    laid_out = []
    held.document().documentLayout().update.connect(lambda *_: laid_out.append(1))
    view.show_step(demo_walk, 4)
    assert pane.swaps == before + 1 and view.reading is held and held.isVisible()
    assert held.hasFocus()
    assert not laid_out   # shown as laid out while step 3 was read
    corrected = min(demo_walk.view(4).corrected_segments)
    assert f"segment {corrected + 1}" in held.toPlainText()
    fresh = _view(qtbot)
    fresh.show_step(demo_walk, 4)
    fresh.split.setSizes(view.split.sizes())
    qtbot.waitUntil(lambda: fresh.reading.size() == view.reading.size())
    assert fresh.reading.toHtml() == view.reading.toHtml()
    view.reading.clearFocus()
    assert fresh.reading.grab().toImage() == view.reading.grab().toImage()
    view.show_step(demo_walk, 2)   # a jump: set on the browser shown, as before
    assert pane.swaps == before + 1 and view.reading is held
    assert f"segment {min(demo_walk.view(2).corrected_segments) + 1}" in held.toPlainText()


def test_a_cell_is_laid_out_once_and_the_next_step_before_it_is_shown(qtbot, demo_walk):
    view = _view(qtbot)
    view.show_step(demo_walk, 1)
    _paint(qtbot, view)
    _prepared(qtbot, view)   # step 2's screen laid out while step 1 is read
    before = view.delegate.laid_out
    view.show_step(demo_walk, 2)
    _paint(qtbot, view)
    assert view.delegate.laid_out == before   # step 2 painted from what was prepared
    # back and forth: nothing laid out again (step 1's cells are cached too)
    view.show_step(demo_walk, 1)
    _paint(qtbot, view)
    view.show_step(demo_walk, 2)
    _paint(qtbot, view)
    assert view.delegate.laid_out == before


def test_the_first_step_is_prepared_at_the_widths_its_new_column_gives(qtbot, demo_walk):
    """Step 0 has no "after the step" column; step 1 shows it, and the text columns share
    their width three ways. The first step drew every cell on screen anew (30-40 ms on a
    long document): its cells are now prepared at the widths the header will give them."""
    view = _view(qtbot)
    view.show_step(demo_walk, 0)
    _paint(qtbot, view)
    assert view.table.isColumnHidden(3)
    _prepared(qtbot, view)   # step 1's screen laid out while step 0 is read
    before = view.delegate.laid_out
    view.show_step(demo_walk, 1)
    _paint(qtbot, view)
    assert not view.table.isColumnHidden(3)
    assert view.delegate.laid_out == before, "step 1 laid cells out at its own paint"
    header = view.table.horizontalHeader()
    assert {view.delegate.sizes[c][0] for c in (1, 2, 3)} <= {
        header.sectionSize(c) - (header.sectionSize(1) - view.delegate.sizes[1][0])
        for c in (1, 2, 3)}


def test_the_rows_on_screen_are_the_documents_rows_around_the_corrected_segment(
        qtbot, demo_walk):
    view = _view(qtbot)
    document = demo_walk.document
    for step in range(1, len(demo_walk.steps) + 1):
        view.show_step(demo_walk, step)
        _paint(qtbot, view)
        corrected = min(demo_walk.view(step).corrected_segments)
        table, model = view.table, view.model
        rect = table.visualRect(model.index(corrected, 1))
        assert table.viewport().rect().intersects(rect), step
        top = table.rowAt(0)
        bottom = table.rowAt(table.viewport().height() - 1)
        bottom = model.rowCount() - 1 if bottom < 0 else bottom
        for row in range(top, bottom + 1):
            assert model.index(row, 1).data() == document.references[0][row]
            assert model.index(row, 2).data() == demo_walk.view(step).seen[row]


def test_cells_copied_from_their_pictures_look_as_drawn_in_place(qtbot, demo_walk):
    # a cell is drawn once into a pixmap and copied at each paint: the table must look as it
    # does with every cell drawn in place on the table (the fill of its background, its
    # laid-out text, "…" where cut), the way cells were painted before the pixmaps
    from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

    view = _view(qtbot)
    view.resize(700, 500)   # narrow: cut cells, with their "…"
    step = len(demo_walk.steps) // 2
    view.show_step(demo_walk, step)
    _paint(qtbot, view)
    _prepared(qtbot, view)
    view.show_step(demo_walk, step + 1)   # its cells drawn ahead, now copied
    _paint(qtbot, view)
    copied = _picture(view)
    delegate = view.delegate
    assert delegate._pictures and delegate.cut   # pictures used, some cells cut

    def in_place(painter, option, index):
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if option.state & QStyle.StateFlag.State_HasFocus:
            return type(delegate).paint(delegate, painter, option, index)
        if index.column() < 1:   # the number: the style's own painting, unselected, framed
            plain = QStyleOptionViewItem(option)
            plain.state &= ~QStyle.StateFlag.State_Selected
            QStyledItemDelegate.paint(delegate, painter, plain, index)
            from llgui.gui.workbench.mt_cells import _frame

            _frame(painter, option, selected)
            return None
        background = index.data(Qt.ItemDataRole.BackgroundRole)
        if background is not None:
            painter.fillRect(option.rect, background)
        rect = option.rect
        delegate._draw(painter, rect.topLeft(), index.data(Qt.ItemDataRole.UserRole + 2),
                       rect.width(), rect.height(), background)
        from llgui.gui.workbench.mt_cells import _frame

        _frame(painter, option, selected)

    delegate.paint = in_place
    _paint(qtbot, view)
    assert _picture(view) == copied


def test_the_fast_path_reads_what_qt_reads_and_copies_every_cell_of_a_repaint(qtbot, demo_walk):
    """The delegate's fast path reads a cell from the model directly (`paint_cell`): at every
    step, with and without the filter to the corrected and changed rows, it gives each cell
    the number text or rich text and the background Qt's `data` gives; a repaint of a
    painted screen copies every cell from its picture (the focus cell aside)."""
    from PySide6.QtCore import Qt as _Qt

    from llgui.gui.workbench.mt_cells import HTML_ROLE

    view = _view(qtbot)
    model = view.model
    checked = 0
    for only in (False, True):
        view.only_changed.setChecked(only)
        for step in range(len(demo_walk.steps) + 1):
            view.show_step(demo_walk, step)
            for r in range(model.rowCount()):
                for c in range(model.columnCount()):
                    index = model.index(r, c)
                    background = model.data(index, _Qt.ItemDataRole.BackgroundRole)
                    text = model.data(index, _Qt.ItemDataRole.DisplayRole if c == 0
                                      else HTML_ROLE)
                    got_text, got_background = model.paint_cell(r, c)
                    assert got_text == text, (only, step, r, c)
                    assert (None if got_background is None else got_background.lower()) == (
                        None if background is None else background.name()), (only, step, r, c)
                    checked += 1
    assert checked > 100
    view.only_changed.setChecked(False)
    view.show_step(demo_walk, 3)
    _paint(qtbot, view)
    visible = [c for c in range(model.columnCount()) if not view.table.isColumnHidden(c)]
    before = view.delegate.copied
    _paint(qtbot, view)
    rows = {view.table.rowAt(y) for y in range(0, view.table.viewport().height(), 4)} - {-1}
    cells = len(rows) * len(visible)
    assert cells >= 20 and cells - 1 <= view.delegate.copied - before <= cells


def test_the_next_steps_numbers_are_drawn_ahead_too(qtbot, demo_walk):
    """While a step is read, the next step's number cells are drawn into their pictures with
    its text cells: its paint copies every cell on screen (the focus cell aside), the
    numbers whose marks or ✎ steps it changes too (they were drawn by the style in the
    step's paint); what it paints is checked against a fresh view's above."""
    view = _view(qtbot)
    model = view.model
    for step in range(1, 5):
        view.show_step(demo_walk, step)
        _paint(qtbot, view)
        _prepared(qtbot, view)   # step + 1's screen made while this one is read
        before = view.delegate.copied
        view.show_step(demo_walk, step + 1)
        _paint(qtbot, view)
        visible = [c for c in range(model.columnCount()) if not view.table.isColumnHidden(c)]
        rows = {view.table.rowAt(y) for y in range(0, view.table.viewport().height(), 4)}
        cells = len(rows - {-1}) * len(visible)
        assert view.delegate.copied - before >= cells - 1, step
