"""Export what a widget shows as PNG (twice the screen resolution) or SVG (vectors, QtSvg).

One function for every tab. pyqtgraph's own SVGExporter fails on this Qt (pyqtgraph issue
#3485), so SVG goes through QSvgGenerator, rendering the widget as it is on screen.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, QRectF, QSize
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsView, QWidget


def export_widget(widget: QWidget, path: str | Path, title: str = "llgui") -> bool:
    """Write `widget` to `path` (.svg: vectors, anything else: PNG); True if written."""
    size = widget.size()
    if size.isEmpty():
        return False
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".svg":
        from PySide6.QtSvg import QSvgGenerator

        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(size)
        generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
        generator.setTitle(title)
        painter = QPainter(generator)
        _render(widget, painter)
        painter.end()
        return path.exists()
    image = QImage(QSize(size.width() * 2, size.height() * 2), QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(2.0)
    image.fill(QColor("white"))
    painter = QPainter(image)
    _render(widget, painter)
    painter.end()
    return image.save(str(path))


def _render(widget: QWidget, painter: QPainter) -> None:
    # A plot widget is a QGraphicsView, whose render() draws its scene (and pyqtgraph
    # overrides it): give it the viewport's rectangle. Other widgets render themselves and
    # their children.
    if isinstance(widget, QGraphicsView):
        rect = widget.viewport().rect()
        QGraphicsView.render(widget, painter, QRectF(rect), rect)
    else:
        widget.render(painter, QPoint(0, 0))
