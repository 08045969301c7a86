"""The live session draws every script (issue 35, item 1): started from the menu on an en-ja
and an en-hi bundle the workbench never opened, on a machine with no CJK or Indic font (this
project's machines have DejaVu only), every character of the sentences it shows and of the
editor the expert types into is in the font Qt uses for them (`QFontMetrics.inFontUcs4`,
which counts the fallbacks Qt would pick); before the session, the same characters are not.

Each case runs in a fresh process: a font registered once cannot be taken back out of
fontconfig, so "before" is only seen in a process that never registered one."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

JA = ["猫がマットの上に座っていました。", "今日は雨が降っています。", "東京へ行きます。"]
JA_HYP = ["猫はマットの上に座った。", "今日は雨です。", "東京に行く。"]
HI = ["बिल्ली चटाई पर बैठी थी।", "आज बारिश हो रही है।", "मैं दिल्ली जा रहा हूँ।"]
HI_HYP = ["बिल्ली चटाई पर बैठा।", "आज बारिश है।", "मैं दिल्ली जाता हूँ।"]

SESSION = r"""
import json, sys, time
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication
app = QApplication([])
from llgui.gui import fonts
from llgui.gui.main_window import MainWindow

bundle, out, text = sys.argv[1], sys.argv[2], sys.argv[3]
def missing(widget, chars):
    metrics = QFontMetrics(widget.font())
    return sorted(c for c in chars if not c.isspace() and not metrics.inFontUcs4(ord(c)))

window = MainWindow(use_session=False)
window.resize(1366, 768)
before = missing(window, set(text))
action = next(a for a in window.findChildren(type(window.menuBar().actions()[0]))
              if a.text() == "Start &live session…")
action.trigger()
live = window.live_window
live.bundle_edit.setText(bundle)
live.system.setEditText("mt_memory")
live.mode.setCurrentText("interactive")
live.out_edit.setText(out)
live.start_button.click()
deadline = time.monotonic() + 120
while (live.busy or live.snap is None) and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.01)
panel = live.mt_panel
panel.sentences.setCurrentRow(0)
app.processEvents()
shown = [panel.sentences.item(i).text() for i in range(panel.sentences.count())]
edited = panel.editor.toPlainText()
after = {"sentences": missing(panel.sentences, set("".join(shown))),
         "editor": missing(panel.editor, set(edited))}
print(json.dumps({"before": before, "after": after, "shown": shown, "edited": edited,
                  "status": live.status.text(), "scores": live.scores.text()}))
live.close()
window.jobs.shutdown(5000)
"""


def _bundle(folder: Path, lang: str, refs: list[str], hyps: list[str]) -> Path:
    folder.mkdir()
    (folder / "src.en").write_text("The cat sat on the mat.\nIt is raining.\nI go.\n",
                                   encoding="utf-8")
    (folder / f"ref.{lang}").write_text("\n".join(refs) + "\n", encoding="utf-8")
    (folder / f"hyp.{lang}").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    path = folder / "bundle.toml"
    path.write_text(f'''[bundle]
task = "mt"
name = "en-{lang}"
metrics = ["bleu", "chrf"]

[settings]
trg_lang = "{lang}"

[[documents]]
id = "news-1"
time = "1"
source = "src.en"
references = ["ref.{lang}"]
hypothesis = "hyp.{lang}"
''', encoding="utf-8")
    return path


def _session(tmp_path: Path, lang: str, refs, hyps) -> dict:
    bundle = _bundle(tmp_path / lang, lang, refs, hyps)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", SESSION, str(bundle), str(tmp_path / "out"),
                           "".join(refs + hyps)], capture_output=True, text=True, env=env,
                          timeout=300, cwd=Path(__file__).resolve().parents[3])
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("lang, refs, hyps", [("ja", JA, JA_HYP), ("hi", HI, HI_HYP)],
                         ids=["en-ja", "en-hi"])
def test_the_live_session_from_the_menu_draws_japanese_and_hindi(tmp_path, lang, refs, hyps):
    out = _session(tmp_path, lang, refs, hyps)
    # the session's scores say which tokenizer BLEU uses: WMT's for Japanese
    assert ("(tok:ja-mecab-" if lang == "ja" else "(tok:13a)") in out["scores"]
    if not out["before"]:
        pytest.skip(f"this machine has a font for {lang}: the no-font case cannot be shown")
    # the session shows the system's hypotheses: those characters were boxes before it
    assert [s.split(None, 1)[1] for s in out["shown"]] == hyps
    assert set(out["before"]) >= set("".join(hyps)) - set(" ।。")
    assert out["edited"] == hyps[0]
    assert out["after"] == {"sentences": [], "editor": []}
    assert "fallback font" in out["status"]
