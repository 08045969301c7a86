"""The live session's system for a bundle with audio is the one that hears it (diar_audio)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

DEMO = Path(__file__).resolve().parents[3] / "resources" / "demo"


def test_a_bundle_with_audio_defaults_to_diar_audio(qtbot, tmp_path):
    from llgui.gui.live.window import LiveSessionWindow, names_audio

    window = LiveSessionWindow(bundle_path=str(DEMO / "meeting" / "bundle.toml"))
    qtbot.addWidget(window)
    assert window.system.currentText() == "diar_audio"
    assert window.command()[1] == "diar_audio"

    other = LiveSessionWindow(bundle_path=str(DEMO / "diarization" / "bundle.toml"))
    qtbot.addWidget(other)
    assert other.system.currentText() != "diar_audio"
    # typed in and confirmed: the default follows the bundle
    other.bundle_edit.setFocus()
    other.bundle_edit.setText(str(DEMO / "meeting" / "bundle.toml"))
    qtbot.keyClick(other.bundle_edit, Qt.Key.Key_Return)
    assert other.system.currentText() == "diar_audio"
    # a command the expert typed is kept
    other.system.setCurrentText("python3 mine.py")
    qtbot.keyClick(other.bundle_edit, Qt.Key.Key_Return)
    assert other.system.currentText() == "python3 mine.py"
    # no such file, a directory, not TOML: simply no audio
    (tmp_path / "bad.toml").write_text("[[[", encoding="utf-8")
    assert not any(names_audio(str(p)) for p in (tmp_path / "none.toml", tmp_path,
                                                  tmp_path / "bad.toml"))
