"""`GrooveStyle` (issue 36): the application's style with scroll bar grooves drawn once per
look, held to the style's own drawing of the same bars."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QProxyStyle, QScrollBar, QVBoxLayout, QWidget

from llgui.gui.widgets import quick_style


def _most_apart(a, b) -> int:
    """The largest difference of one colour channel between two images of one size."""
    assert a.size() == b.size()
    return max((abs(((p >> s) & 255) - ((q >> s) & 255))
                for y in range(a.height()) for x in range(a.width())
                for p, q in [(a.pixel(x, y), b.pixel(x, y))] if p != q for s in (0, 8, 16)),
               default=0)


def _bars(qtbot, style):
    """Pictures of scroll bars of two orientations and sizes at several values, enabled,
    disabled, on the window's colour and on a coloured backdrop, drawn by `style`."""
    pictures = []
    for backdrop in ("", "#f6e7c8"):
        holder = QWidget()
        holder.setStyle(style)
        if backdrop:
            holder.setAutoFillBackground(True)
            palette = holder.palette()
            palette.setColor(holder.backgroundRole(), backdrop)
            holder.setPalette(palette)
        qtbot.addWidget(holder)
        layout = QVBoxLayout(holder)
        bars = []
        for orientation, size in ((Qt.Orientation.Vertical, (14, 218)),
                                  (Qt.Orientation.Horizontal, (300, 14)),
                                  (Qt.Orientation.Vertical, (17, 500))):
            bar = QScrollBar(orientation)
            bar.setStyle(style)
            bar.setFixedSize(*size)
            bar.setRange(0, 480)
            bar.setPageStep(8)
            layout.addWidget(bar)
            bars.append(bar)
        holder.show()
        qtbot.waitExposed(holder)
        for bar in bars:
            for value in range(0, 481, 60):
                bar.setValue(value)
                pictures.append(holder.grab(bar.geometry()).toImage())
            bar.setEnabled(False)
            pictures.append(holder.grab(bar.geometry()).toImage())
    return pictures


@pytest.fixture
def styles():
    name = QApplication.style().name()
    plain = QProxyStyle(name)   # the style itself (drawing passed through)
    quick = quick_style.GrooveStyle(name)
    yield plain, quick


def test_bars_drawn_from_groove_pictures_look_as_the_styles_own(qtbot, styles):
    plain, quick = styles
    own = _bars(qtbot, plain)
    copied = _bars(qtbot, quick)
    assert quick.drawn >= 3   # the grooves were pictures (one per size and look)
    assert quick.drawn < len(copied) // 4   # and each drawn once, not per value
    assert len(own) == len(copied) == 60
    apart = [_most_apart(a, b) for a, b in zip(own, copied)]
    assert max(apart) <= 1, apart


def test_the_window_installs_it_once(qtbot):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    style = QApplication.style()
    assert isinstance(style, quick_style.GrooveStyle)
    assert quick_style.install() is style
    window.jobs.shutdown(2000)
