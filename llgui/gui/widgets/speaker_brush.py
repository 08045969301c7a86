"""Brushes for speaker styles (`llgui.core.display.palette.speaker_colours`): a plain colour,
or the colour under a white fill pattern (hatched, cross-hatched, striped), the second
channel that keeps the speakers of a 7-36-speaker meeting apart where colours must repeat.
Qt draws its pattern brushes in device pixels whatever the view's scale (a texture brush
would be stretched with the seconds axis), so a patterned bar is two bars: the colour, and
the pattern over it (`pattern_brush`)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor

from llgui.core.display.palette import base_colour, speaker_style

QT_PATTERNS = {"bdiag": Qt.BrushStyle.BDiagPattern, "fdiag": Qt.BrushStyle.FDiagPattern,
               "cross": Qt.BrushStyle.DiagCrossPattern, "hor": Qt.BrushStyle.HorPattern,
               "ver": Qt.BrushStyle.VerPattern}
OVERLAY = QColor(255, 255, 255, 235)


def fill_brush(key: str) -> QBrush:
    """The plain colour of a speaker style key ('#0072b2' or '#0072b2/bdiag')."""
    return QBrush(QColor(base_colour(key)))


def pattern_brush(key: str) -> QBrush | None:
    """The white pattern drawn over a patterned speaker's colour; None for a plain one."""
    pattern = speaker_style(key)[1]
    style = QT_PATTERNS.get(pattern)
    return None if style is None else QBrush(OVERLAY, style)
