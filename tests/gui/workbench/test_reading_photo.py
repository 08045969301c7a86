"""Issue 36 (MT): the reading pane's next text drawn ahead as a picture (`reading_photo`). A
step that finds it shows it over the pane, and the screen is then, pixel for pixel, what the
pane shows once it holds the step's document; the mouse or the focus on the pane bring the
document at once; a step to another text shows it live."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QEnterEvent
from PySide6.QtWidgets import QApplication

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


def _view(qtbot, height: int = 600):
    from llgui.gui.workbench.mt_view import MTView

    view = MTView()
    qtbot.addWidget(view)
    view.resize(1100, height)
    view.show()
    qtbot.waitExposed(view)
    return view


def _made(qtbot, view) -> None:
    """The next step's reading pane drawn ahead (the user reading this step)."""
    made = view.reading_photo.made
    qtbot.waitUntil(lambda: view.reading_photo.made > made, timeout=10000)


def _screen(view):
    return view.grab().toImage()


def test_a_step_shown_by_its_picture_is_what_the_pane_shows(qtbot, demo_walk):
    view = _view(qtbot)
    photo = view.reading_photo
    view.show_step(demo_walk, 1)
    covered = 0
    for step in range(2, len(demo_walk.steps) + 1):
        _made(qtbot, view)
        before = photo.covered
        view.show_step(demo_walk, step)
        if photo.covered == before:   # (a pane that grows to its text is given it live)
            continue
        covered += 1
        assert photo._live is not None   # the pane still holds the step before's document
        pictured = _screen(view)
        qtbot.waitUntil(lambda: photo._live is None, timeout=5000)
        assert not photo._cover.covering
        assert pictured == _screen(view), step
        corrected = min(demo_walk.view(step).corrected_segments)
        assert f"segment {corrected + 1}" in view.reading.toPlainText()
    assert covered >= 3


def test_a_touch_gives_the_pane_its_document_at_once(qtbot, demo_walk):
    view = _view(qtbot)
    photo = view.reading_photo
    view.show_step(demo_walk, 1)
    for step, touch in ((2, "mouse"), (3, "focus")):
        _made(qtbot, view)
        view.show_step(demo_walk, step)
        assert photo._live is not None
        if touch == "mouse":
            cover = photo._cover
            centre = QPointF(cover.width() / 2, cover.height() / 2)
            QApplication.sendEvent(cover, QEnterEvent(centre, centre,
                                                      cover.mapToGlobal(centre)))
        else:
            view.reading.setFocus()
            qtbot.waitUntil(lambda: view.reading.hasFocus(), timeout=2000)
        assert photo._live is None
        assert not photo._cover.covering
        corrected = min(demo_walk.view(step).corrected_segments)
        assert f"segment {corrected + 1}" in view.reading.toPlainText()


def test_a_step_to_another_text_shows_it_live(qtbot, demo_walk):
    view = _view(qtbot)
    view.show_step(demo_walk, 3)
    _made(qtbot, view)   # made for step 4; the user goes back instead
    covered = view.reading_photo.covered
    view.show_step(demo_walk, 2)
    assert view.reading_photo.covered == covered
    assert view.reading_photo._live is None
    corrected = min(demo_walk.view(2).corrected_segments)
    assert f"segment {corrected + 1}" in view.reading.toPlainText()
