"""File › Open campaign…: a campaign file and where to score it (this machine, or a running
Dask scheduler's address, remembered in the session)."""
from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLineEdit, QPushButton,
    QWidget,
)


class OpenCampaignDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, path: str = "", scheduler: str = ""):
        super().__init__(parent)
        self.setWindowTitle("Open campaign")
        form = QFormLayout(self)
        self.path = QLineEdit(path)
        self.path.setToolTip("the campaign file (*.toml with a [campaign] table)")
        browse = QPushButton("…")
        browse.setFixedWidth(30)
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form.addRow("campaign", row)
        self.scheduler = QLineEdit(scheduler)
        self.scheduler.setPlaceholderText("empty: this machine; or tcp://HOST:8786")
        self.scheduler.setToolTip("the address of a running Dask scheduler (`dask scheduler` "
                                  "prints it); its workers need the campaign's files at the "
                                  "same path. Empty: scored on this machine")
        form.addRow("Dask scheduler", self.scheduler)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.resize(640, 120)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open campaign", "",
                                              "llgui campaigns (*.toml);;All files (*)")
        if path:
            self.path.setText(path)

    def result_spec(self) -> tuple[str, str | None]:
        """(campaign path, scheduler address or None)."""
        return self.path.text().strip(), self.scheduler.text().strip() or None
