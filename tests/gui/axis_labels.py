"""The labels a pyqtgraph axis draws, as it lays them out (for tests of overlapping labels)."""
from __future__ import annotations


def drawn_labels(axis) -> list:
    """(rectangle, text) of every non-empty label `axis` draws now, left to right."""
    from PySide6.QtGui import QImage, QPainter

    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return sorted(((rect, text) for rect, _flags, text in texts if text.strip()),
                  key=lambda found: found[0].left())


def assert_apart(labels) -> None:
    """No two of `labels` ((rectangle, text) pairs) overlap."""
    for k, (a, text_a) in enumerate(labels):
        for b, text_b in labels[k + 1:]:
            assert not a.intersects(b), (text_a, text_b)
