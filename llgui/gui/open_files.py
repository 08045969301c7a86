"""File › Open files…: a reference and a hypothesis (MT text or RTTM/MDTM) without a bundle."""
from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLineEdit, QPushButton,
    QWidget,
)


class OpenFilesDialog(QDialog):
    FIELDS = (("references", "reference(s)", "reference text files (several for MT), or an RTTM/MDTM"),
              ("hypothesis", "hypothesis", "the system's output: text file or RTTM/MDTM"),
              ("log", "interaction log (optional)", "JSONL interaction log"),
              ("uem", "UEM (optional)", "scored regions, diarization only"))

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Open files")
        self.edits: dict[str, QLineEdit] = {}
        form = QFormLayout(self)
        for key, label, tip in self.FIELDS:
            edit = QLineEdit()
            edit.setToolTip(tip)
            browse = QPushButton("…")
            browse.setFixedWidth(30)
            browse.clicked.connect(lambda _=False, k=key: self._browse(k))
            row = QHBoxLayout()
            row.addWidget(edit, 1)
            row.addWidget(browse)
            form.addRow(label, row)
            self.edits[key] = edit
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.resize(640, 200)

    def _browse(self, key: str) -> None:
        if key == "references":
            paths, _ = QFileDialog.getOpenFileNames(self, "References")
            if paths:
                self.edits[key].setText(";".join(paths))
        else:
            path, _ = QFileDialog.getOpenFileName(self, key.capitalize())
            if path:
                self.edits[key].setText(path)

    def result_spec(self) -> dict:
        text = {k: e.text().strip() for k, e in self.edits.items()}
        return {"references": [p for p in text["references"].split(";") if p],
                "hypothesis": text["hypothesis"], "log": text["log"] or None,
                "uem": text["uem"] or None}
