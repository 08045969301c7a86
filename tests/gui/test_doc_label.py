"""`DocLabel` (issue 36): a rich-text label laid out once per text, ahead when asked. What
it shows is held to Qt's own `QLabel` with the same text, font and width."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QRawFont
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel

from llgui.gui.widgets.doc_label import DocLabel

TEXTS = [
    "<b>BLEU</b> ↑ step&nbsp;3/40: S<sub>base</sub>&nbsp;<b>47.33</b> · S<sub>cor</sub>&nbsp;"
    "<b>47.36</b> · S<sub>imp</sub>&nbsp;<b>47.32</b> · S<sub>adapt</sub>&nbsp;<b>47.36</b> · "
    "S<sub>pen</sub>&nbsp;<b>47.32</b> (Σ&nbsp;pen.&nbsp;-0.04) · cost&nbsp;5.0, Σ&nbsp;5.0",
    "<b>EN2002c</b> · step 7 of 40 · boundary at 12:04.5 → "
    "<span style='color:#c0392b'>1:02:03.4–1:02:07.9</span>",
    "<b>wmt24</b> step 2: segment 14 corrected — <b style='color:#1e7b34'>applied</b>; "
    "हिन्दी में अनुवाद, 日本語の翻訳",
]


@pytest.fixture(scope="module")
def fallback_fonts():
    """llgui's fallback fonts loaded, as in the window (a fallback glyph drawn ahead on
    transparency came out up to 30 levels apart from the one drawn live)."""
    from llgui.gui.fonts import load_fallbacks

    return load_fallbacks()


def _pair(qtbot, text: str, width: int):
    labels = []
    for label in (QLabel(), DocLabel()):
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        label.setStyleSheet("background: white; color: black")
        qtbot.addWidget(label)
        label.setText(text)
        label.resize(width, label.heightForWidth(width) + 6)
        label.show()
        labels.append(label)
    qtbot.waitExposed(labels[1])
    return labels


def _ink_rows(image) -> tuple[int, int]:
    """The first and last pixel rows with dark ink."""
    rows = [y for y in range(image.height())
            if any(QColor(image.pixel(x, y)).lightness() < 128 for x in range(image.width()))]
    return rows[0], rows[-1]


@pytest.mark.parametrize("width", [700, 330, 180])
@pytest.mark.parametrize("text", TEXTS)
def test_it_measures_and_draws_the_text_as_qlabel_does(qtbot, text, width):
    plain, doc = _pair(qtbot, text, width)
    assert doc.text() == text
    assert abs(doc.heightForWidth(width) - QLabel.heightForWidth(plain, width)) <= 1
    doc.resize(plain.size())
    a, b = plain.grab().toImage(), doc.grab().toImage()
    top_a, bottom_a = _ink_rows(a)
    top_b, bottom_b = _ink_rows(b)
    assert abs(top_a - top_b) <= 2 and abs(bottom_a - bottom_b) <= 2, (
        (top_a, bottom_a), (top_b, bottom_b))


def test_a_text_laid_out_ahead_is_the_one_shown(qtbot):
    label = DocLabel()
    qtbot.addWidget(label)
    label.resize(400, 60)
    label.show()
    label.setText(TEXTS[0])
    label.prepare(TEXTS[1])
    assert label.prepared(TEXTS[1]) and not label.prepared(TEXTS[2])
    ahead = label._ahead[TEXTS[1]]
    label.setText(TEXTS[1])
    assert label._document(label.contentsRect().width()) is ahead
    assert not label.prepared(TEXTS[1])   # taken, not kept twice
    for text in TEXTS * 2:   # a few kept, the oldest dropped
        label.prepare(text + "!")
    assert len(label._ahead) == DocLabel.KEEP


def test_a_selectable_label_selects_with_the_mouse(qtbot):
    label = DocLabel(TEXTS[0], selectable=True)
    qtbot.addWidget(label)
    label.resize(700, 40)
    label.show()
    qtbot.waitExposed(label)
    assert not label.hasSelectedText()
    y = label.height() // 2
    QTest.mousePress(label, Qt.MouseButton.LeftButton, pos=QPoint(2, y))
    QTest.mouseMove(label, QPoint(200, y))
    QTest.mouseRelease(label, Qt.MouseButton.LeftButton, pos=QPoint(200, y))
    assert label.hasSelectedText() and "BLEU" in label.selectedText()
    QApplication.clipboard().clear()
    QTest.keyClick(label, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)   # (docs/window.md)
    assert QApplication.clipboard().text() == label.selectedText().replace("\xa0", " ")
    label.setText(TEXTS[1])   # a new text: drawn from its document again, nothing selected
    assert not label.hasSelectedText()
    assert label.textInteractionFlags() == Qt.TextInteractionFlag.NoTextInteraction


@pytest.mark.parametrize("height_extra", [6, 7])   # the text's top on a whole pixel, or half
@pytest.mark.parametrize("text", TEXTS)
def test_a_text_drawn_ahead_shows_the_pixels_of_the_text_drawn_live(qtbot, text, height_extra,
                                                                     fallback_fonts):
    """`prepare` draws the next text into a picture the step's paint copies; the label then
    looks as when it draws the text at its paint: the same pixels but where a coloured
    glyph's edge, blended on transparency first, rounds one level of one channel apart."""
    label = DocLabel()
    label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    label.setStyleSheet("color: #202060")
    qtbot.addWidget(label)
    label.setText("before")
    label.resize(330, label.heightForWidth(330) + 30)
    label.show()
    qtbot.waitExposed(label)
    label.resize(330, DocLabel(text).heightForWidth(330) + height_extra)
    QApplication.processEvents()
    label.prepare(text)
    label.setText(text)
    copied = label.copied
    ahead = label.grab().toImage()
    # copied, unless a fallback font draws some of it (Devanagari, CJK: drawn live)
    raw = QRawFont.fromFont(label.font())
    own = all(raw.supportsCharacter(ord(c)) for c in set(label._doc.toPlainText()) if c > " ")
    assert own == (text != TEXTS[2])
    assert label.copied == copied + own
    label.setText("other")
    label.setText(text)   # not prepared: drawn live
    live = label.grab().toImage()
    assert label.copied == copied + own
    assert _most_apart(ahead, live) <= 1
    label.resize(300, label.height())   # another width: drawn live, not the old picture
    label.prepare("x" + text)
    label.resize(330, label.height())
    label.setText("x" + text)
    copied = label.copied
    label.grab()
    assert label.copied == copied


def _most_apart(a, b) -> int:
    """The largest difference of one colour channel between two images of one size."""
    assert a.size() == b.size()
    return max((abs(((p >> s) & 255) - ((q >> s) & 255))
                for y in range(a.height()) for x in range(a.width())
                for p, q in [(a.pixel(x, y), b.pixel(x, y))] if p != q for s in (0, 8, 16)),
               default=0)
