"""A plot title that fits its plot's width: its parts joined with " · " on as few lines as the
width allows (issue 23 item 9: the learning curve's and the DET plot's titles were cut at
1366 and 1500 px). Measured as pyqtgraph lays the title out (rich text at the title's size)
against the width of the plot's view, which is the title's column."""
from __future__ import annotations

import math
from typing import Callable, Sequence

from PySide6.QtGui import QFont, QTextDocument


def title_lines(parts: Sequence[str], width: float,
                measure: Callable[[str], float]) -> list[list[int]]:
    """The parts (indices into `parts`) of each line: greedy, each line at most `width`
    wide by `measure` (a part alone wider than that gets a line of its own)."""
    lines: list[list[int]] = []
    text = ""
    for k, part in enumerate(parts):
        joined = f"{text} · {part}" if text else part
        if lines and text and measure(joined) <= width:
            lines[-1].append(k)
            text = joined
        else:
            lines.append([k])
            text = part
    return lines


class FittedTitle:
    """Keeps a pyqtgraph plot's title fitted to its width, re-fitted when the plot resizes."""

    def __init__(self, plot_widget, size_pt: float, color=None) -> None:
        self.widget = plot_widget
        self.size_pt = size_pt
        self.color = color
        self.parts: list[tuple[str, str]] = []   # (rich text, plain text)
        self.lines: list[str] = []               # the plain lines on screen (tests)
        self._shown = None
        plot_widget.getPlotItem().getViewBox().sigResized.connect(self.fit)

    def clear(self) -> None:
        """The plot's title is set elsewhere until the next `set`."""
        self.parts, self.lines, self._shown = [], [], None

    def room(self) -> float:
        """The title's width: its column is the plot's view's, from the view's left edge to
        the widget's right one (the widget's width is the layout's; the view's own width
        grows with a title too wide for it, so it cannot be the measure)."""
        left = self.widget.getPlotItem().getViewBox().sceneBoundingRect().left()
        return self.widget.width() - left - 8

    def measure(self, rich: str) -> float:
        """The width of `rich` drawn as pyqtgraph draws a title of this size."""
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(QFont(self.widget.font()))
        doc.setHtml(f"<span style='font-size:{self.size_pt:g}pt'>{rich}</span>")
        return doc.idealWidth()

    def set(self, parts: Sequence[tuple[str, str] | str]) -> None:
        self.parts = [(p, p) if isinstance(p, str) else (p[0], p[1]) for p in parts]
        self._shown = None   # the plot's title may have been set elsewhere meanwhile
        self.fit()

    def fit(self, *_) -> None:
        if not self.parts:
            return
        lines = title_lines([p[0] for p in self.parts], self.room(), self.measure)
        self.lines = [" · ".join(self.parts[k][1] for k in line) for line in lines]
        self.line_widths = [self.measure(" · ".join(self.parts[k][0] for k in line))
                            for line in lines]
        rich = "<br>".join(" · ".join(self.parts[k][0] for k in line) for line in lines)
        if rich != self._shown:
            self._shown = rich
            options = {"size": f"{self.size_pt:g}pt"}
            if self.color is not None:
                options["color"] = self.color
            item = self.widget.getPlotItem()
            item.setTitle(rich, **options)
            # pyqtgraph gives the title a row of 30 px: two or three lines of it were cut at
            # the top (the learning curve's legend at 1366x768); the row holds them all
            height = max(30, math.ceil(item.titleLabel.item.boundingRect().height()))
            item.titleLabel.setMaximumHeight(height)
            item.layout.setRowFixedHeight(0, height)
