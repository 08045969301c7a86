"""Interactive-predictive MT in the live session (issue 34): with `mt_complete` (protocol 1.2)
the expert works at the keyboard only: End/Home and arrows to put the cursor after the last
right word, Shift+End and Delete to drop the rest, the next word typed, Ctrl+Enter; the
system's completion fills the editor and the cursor waits after the typed word; the last
sentence is accepted with Ctrl+Shift+Enter. The log holds the prefix steps (prefix, typed,
the completed line, the real keystrokes), and scores with WSR/KSR beside S_pen."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from llgui import api
from llgui.core.mt.ipmt import next_prefix
from llgui.sim.live import read_log
from tests.gui.live.test_window import live, start, wait_idle  # noqa: F401 - the fixture
from tests.sim.test_simulate_demo import first_document_bundle

EXTERNAL = Path(__file__).resolve().parents[2] / "sim" / "ipmt_external_system.py"
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def _type_next_word(qtbot, editor, line: str, reference: str) -> tuple[str, str, int]:
    """With keys only: the cursor after the longest right prefix (in words), the rest of the
    line deleted, the next reference word typed. Returns (prefix, typed, keys pressed)."""
    answer = next_prefix(line, reference)
    keys = 0
    qtbot.keyClick(editor, Qt.Key.Key_Home)
    keys += 1
    for _ in range(len(answer.prefix.split())):      # word by word to the error
        qtbot.keyClick(editor, Qt.Key.Key_Right, CTRL)
        keys += 1
    position = editor.textCursor().position()
    text = editor.toPlainText()
    if position and text[position - 1] != " " and position < len(text):
        qtbot.keyClick(editor, Qt.Key.Key_Right)     # past the space, if Ctrl+Right stopped before
        keys += 1
    qtbot.keyClick(editor, Qt.Key.Key_End, SHIFT)
    qtbot.keyClick(editor, Qt.Key.Key_Delete)
    if answer.prefix and not editor.toPlainText().endswith(" "):
        qtbot.keyClicks(editor, " ")
        keys += 1
    qtbot.keyClicks(editor, answer.typed)
    keys += 2 + len(answer.typed)
    return answer.prefix, answer.typed, keys


def test_prefix_session_with_real_keys(live, qtbot, tmp_path, demo_dir):  # noqa: F811
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    start(qtbot, live, bundle, "mt_complete", "interactive", 1000, tmp_path / "out")
    panel, editor = live.mt_panel, live.mt_panel.editor
    assert panel.send_prefix.isVisible() and panel.accept.isVisible()
    assert "Ctrl+Enter" in panel.prompt.text()
    reference = live.live.document.references[0][0]
    panel.sentences.setCurrentRow(0)
    qtbot.wait(20)
    sent = []
    for _ in range(60):
        line = live.snap.hypothesis[0]
        assert editor.toPlainText() == line
        if next_prefix(line, reference).accept:
            break
        prefix, typed, _ = _type_next_word(qtbot, editor, line, reference)
        qtbot.keyClick(editor, Qt.Key.Key_Return, CTRL)
        wait_idle(qtbot, live)
        sent.append((prefix, typed))
        new = live.snap.hypothesis[0]
        assert new.startswith(prefix + typed)            # the system completed it
        position = editor.textCursor().position()        # the cursor after the typed word
        assert new[:position].rstrip() == prefix + typed
    else:
        pytest.fail("the sentence never reached its reference")
    assert sent, "the demo's first sentence needed no word: choose another"
    qtbot.keyClick(editor, Qt.Key.Key_Return, CTRL | SHIFT)   # accept
    wait_idle(qtbot, live)
    log = read_log(tmp_path / "out")
    assert [(r["answer"]["prefix"], r["answer"]["typed"]) for r in log] == sent + [
        (" ".join(live.snap.hypothesis[0].split()), "")]
    assert all(r["kind"] == "prefix" and r["target"] == {"sentence": 1} for r in log)
    assert all(r["effort"]["keystrokes"] > 0 for r in log[:-1])
    assert live.snap.hypothesis[0].split() == reference.split()
    # what the window showed is what the log scores; the effort stands beside S_pen
    _, step, s_adapt, s_pen = live.shown[-1]
    assert f"S_pen <b>{s_pen:.2f}</b>" in live.scores.text()
    wsr = 100 * len(sent) / len(reference.split())
    assert f"WSR {wsr:.1f} %" in live.scores.text()
    report = api.replay_report(tmp_path / "out" / "bundle.toml", doc=log[0]["doc"])
    assert report["s_pen"] == pytest.approx(s_pen, abs=1e-9)
    assert report["ipmt"]["sentences"] == 1
    assert report["ipmt"]["word_strokes"] == len(sent)
    assert report["ipmt"]["wsr"] == pytest.approx(100 * len(sent) / len(reference.split()))


def test_a_prefix_session_pauses_and_resumes(tmp_path, demo_dir):
    """The prefix steps of a paused session are replayed to a restarted mt_complete: the same
    completions, the session where the expert stopped; a system that completes otherwise is
    a mismatch."""
    from llgui.io.bundle import load_bundle
    from llgui.sim.live import Effort, LiveSession, ResumeMismatch, resume

    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    live = LiveSession(load_bundle(bundle), [sys.executable, "-m", "llgui.systems.mt_complete"],
                       tmp_path / "out", mode="interactive", budget=1000)
    live.start()
    reference = live.document.references[0][0]
    for _ in range(3):
        answer = next_prefix(live.hypothesis[0], reference)
        live.prefix(1, answer.prefix, answer.typed, Effort(1.0, 3))
    seen = live.hypothesis
    live.pause()
    again = resume(tmp_path / "out")
    try:
        assert again.hypothesis == seen and again._doc_state.steps == 3
    finally:
        again.pause()
    with pytest.raises(ResumeMismatch, match="completion"):
        resume(tmp_path / "out", command=[sys.executable, str(EXTERNAL)])
