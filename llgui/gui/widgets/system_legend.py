"""Systems told apart in a plot of many (issue 35): each system gets a colour, a marker and a
line style, so that 20-30 systems never share a look (the campaign palette has 6 colours:
colour alone repeated every sixth system), and the legend is a list beside the plot, not a
box over its curves (at 21 systems pyqtgraph's legend covered the plot and was cut at 1366
pixels). The list says how the systems are told apart.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap, QTransform
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem

SYMBOLS = ("o", "s", "t", "d", "star", "t1", "p", "h")
"""pyqtgraph's marker names: circle, square, triangle down, diamond, star, triangle up,
pentagon, hexagon."""
DASHES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
          Qt.PenStyle.DashDotLine)


def system_style(k: int, colours) -> tuple[str, str, Qt.PenStyle]:
    """(colour, marker, line style) of the k-th system: colours cycle fastest, markers with
    every round of colours, line styles with every round of markers: distinct for the first
    len(colours) x len(SYMBOLS) x len(DASHES) systems (192 with the campaign palette)."""
    n = len(colours)
    return (colours[k % n], SYMBOLS[(k // n) % len(SYMBOLS)],
            DASHES[(k // (n * len(SYMBOLS))) % len(DASHES)])


def campaign_system_style(name: str, names) -> tuple[str, str, Qt.PenStyle]:
    """The look of system `name` of a campaign whose systems are `names` (in the campaign's
    order), the same in every tab: the Systems tab and Across time both draw it with this
    (Across time counted only the systems other than the current one, so a system changed
    colour between the tabs). A name not in `names` comes after them."""
    from llgui.core.display.palette import CAMPAIGN_SYSTEM_COLOURS

    names = list(names)
    k = names.index(name) if name in names else len(names)
    return system_style(k, CAMPAIGN_SYSTEM_COLOURS)


def legend_icon(colour: str, symbol: str, dash: Qt.PenStyle, size: int = 22) -> QIcon:
    """A short line in the system's colour and style with its marker in the middle."""
    from pyqtgraph.graphicsItems.ScatterPlotItem import Symbols

    pixmap = QPixmap(QSize(2 * size, size))
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(QColor(colour), 2)
    pen.setStyle(dash)
    painter.setPen(pen)
    painter.drawLine(QPointF(1, size / 2), QPointF(2 * size - 1, size / 2))
    path = QTransform().translate(size, size / 2).scale(0.6 * size, 0.6 * size).map(
        Symbols[symbol])
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(colour))
    painter.drawPath(path)
    painter.end()
    return QIcon(pixmap)


class LegendList(QListWidget):
    """The plot's legend as a list beside it: one row per system, its line and marker drawn."""

    HOW = "colour, marker and line style tell the systems apart"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setIconSize(QSize(44, 22))
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setToolTip(self.HOW)
        self.styles: dict[str, tuple[str, str, Qt.PenStyle]] = {}

    def set_entries(self, entries: list[tuple[str, tuple[str, str, Qt.PenStyle]]]) -> None:
        self.clear()
        self.styles = dict(entries)
        for name, (colour, symbol, dash) in entries:
            item = QListWidgetItem(legend_icon(colour, symbol, dash), name)
            item.setToolTip(f"{name}: {colour}, marker {symbol!r}")
            self.addItem(item)
        width = max((self.fontMetrics().horizontalAdvance(n) for n, _ in entries), default=80)
        self.setFixedWidth(min(260, width + 44 + 36))
