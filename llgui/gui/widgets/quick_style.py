"""The application's style, its scroll bars' grooves drawn once per look (issue 36).

Qt's Fusion style draws a scroll bar's groove (a gradient, its edge lines) anew at every paint
of the bar: ~0.5 ms of the ~0.6 ms a 218-px bar takes, and a step of the MT view moves the
segment table's bar. `GrooveStyle` is the application's style with the groove drawn once per
size and look (orientation, state, palette, direction, pixel ratio) into a picture and copied;
the slider and the arrows are drawn by the style on it as before. The groove's outer edge is
a translucent line, blended here on transparency and then on what is behind the bar: an edge
pixel may come one level of one channel apart from the style's own drawing (held to that in
tests/gui/test_quick_style.py), nothing else.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle

_KEEP = 64   # grooves kept (a few bars, a few sizes each)
_BAR = QStyle.ComplexControl.CC_ScrollBar
_GROOVE = QStyle.SubControl.SC_ScrollBarGroove


class GrooveStyle(QProxyStyle):
    """The style named `key` (the application's), scroll bar grooves drawn from pictures."""

    def __init__(self, key: str):
        super().__init__(key)
        self._grooves: dict[tuple, QPixmap] = {}
        self.drawn = 0   # grooves drawn into pictures (for tests)

    def drawComplexControl(self, control, option, painter, widget=None):  # noqa: N802 - Qt's
        if control != _BAR or not option.subControls & _GROOVE:
            super().drawComplexControl(control, option, painter, widget)
            return
        rect = option.rect
        ratio = painter.device().devicePixelRatioF()
        key = (rect.width(), rect.height(), option.orientation.value, option.state.value,
               option.activeSubControls.value, option.palette.cacheKey(),
               option.direction.value, ratio)
        picture = self._grooves.get(key)
        if picture is None:
            picture = QPixmap(round(rect.width() * ratio), round(rect.height() * ratio))
            picture.setDevicePixelRatio(ratio)
            picture.fill(Qt.GlobalColor.transparent)
            alone = type(option)(option)
            alone.rect = rect.translated(-rect.topLeft())
            alone.subControls = _GROOVE
            inside = QPainter(picture)
            super().drawComplexControl(control, alone, inside, widget)
            inside.end()
            if len(self._grooves) >= _KEEP:
                self._grooves.clear()
            self._grooves[key] = picture
            self.drawn += 1
        painter.drawPixmap(rect.topLeft(), picture)
        rest = type(option)(option)
        rest.subControls = option.subControls & ~_GROOVE
        super().drawComplexControl(control, rest, painter, widget)


def install() -> GrooveStyle:
    """Make the application's style a `GrooveStyle` of it (once)."""
    app = QApplication.instance()
    style = app.style()
    if isinstance(style, GrooveStyle):
        return style
    quick = GrooveStyle(style.name())
    app.setStyle(quick)
    return quick
