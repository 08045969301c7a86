"""The MT view's reading pane: the selected segment whole, its next text set ahead (issue 36).

A `QTextBrowser` lays its document out again whenever it is given one (`setDocument` sets
the page size, and a new page size lays the whole text out): a document laid out ahead was
laid out a second time at the step, ~0.7 ms of the MT step. The pane is two browsers of the
same look in a stack: the one shown, and one given the next step's document while the user
reads (`hold`), at the size it will be shown at; the step shows it (`show_held`) instead of
laying the text out in the step. Any other text is set on the browser shown, as before.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QStackedWidget, QTextBrowser, QWidget


class ReadingPane(QStackedWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        for _ in range(2):
            browser = QTextBrowser()
            browser.setOpenLinks(False)
            browser.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            browser.setPlaceholderText("select a segment to read it whole here")
            browser.setToolTip("the selected segment whole: source, reference, what the "
                               "human saw and the system's hypothesis after the step")
            self.addWidget(browser)
        # each browser's document, kept alive here: a browser does not own a document it
        # did not make, and one freed under it (the held one, or the one shown before the
        # last swap) would be used after its end
        self._documents: dict[int, QTextDocument] = {}
        self.swaps = 0   # steps that showed the held document (for tests)

    @property
    def shown(self) -> QTextBrowser:
        return self.currentWidget()

    @property
    def other(self) -> QTextBrowser:
        return self.widget(1 - self.currentIndex())

    def show_document(self, document: QTextDocument) -> None:
        """Show `document`: the held browser when it holds it, else set on the one shown."""
        if self._documents.get(1 - self.currentIndex()) is document:
            focused = self.shown.hasFocus()
            self.setCurrentIndex(1 - self.currentIndex())
            if focused:
                self.shown.setFocus()
            self.swaps += 1
            return
        self.shown.setDocument(document)
        self._documents[self.currentIndex()] = document

    def hold(self, document: QTextDocument) -> None:
        """Give `document` to the browser not shown, laid out there at its size."""
        index = 1 - self.currentIndex()
        if self._documents.get(index) is not document:
            self.widget(index).setDocument(document)
            self._documents[index] = document

    def clear(self) -> None:
        self.shown.clear()
