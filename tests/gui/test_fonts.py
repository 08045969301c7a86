"""Any script in the window (issue 23, item 1): text no installed font draws is found, the
bundled fallback font is loaded for it, and the window says so with the fix.

These tests mean to run where no CJK font is installed (a stock server or CI: this project's
machines have DejaVu only); where one is, the "before" half is skipped."""
from __future__ import annotations

import pytest
from llgui.gui import fonts
from tests.gui.conftest import settle, shown_window

ZH = "绝地武士的破解版崩溃了。"
THAI = "ภาษาไทย"


@pytest.fixture
def checks(qapp):
    """No bundle checked yet. (Qt cannot take an application font back out of fontconfig:
    the tests of the machine's own fonts run in a fresh process, `_fresh`.)"""
    fonts.forget_checks()
    yield
    fonts.forget_checks()


FRESH = r"""
import json, os, sys
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter
from PySide6.QtWidgets import QApplication
app = QApplication([])
from llgui.gui import fonts

def render(char):
    image = QImage(40, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    font = QFont()
    font.setPixelSize(28)
    painter.setFont(font)
    painter.setPen(QColor("black"))
    painter.drawText(image.rect(), Qt.AlignmentFlag.AlignCenter, char)
    painter.end()
    return bytes(image.constBits())

chars = set(sys.argv[1])
latin = fonts.check_characters(set("Grüße, café – naïve"))
out = {"latin_message": latin.message, "latin_loaded": dict(fonts._loaded),
       "before": fonts.undrawable(chars), "boxes": render("中") == render("文")}
check = fonts.check_characters(chars)
out.update(loaded=check.loaded, missing=check.missing, undrawable=check.undrawable,
           scripts=check.scripts, message=check.message, after=fonts.undrawable(chars),
           boxes_after=render("中") == render("文"))
print(json.dumps(out))
"""


def _fresh(chars: str, **env_extra: str) -> dict:
    """`check_characters(chars)` in a new process: the machine's fonts, then the fallback."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", **env_extra)
    done = subprocess.run([sys.executable, "-c", FRESH, chars], capture_output=True,
                          text=True, env=env, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if "中" in chars and "中" not in out["before"]:
        pytest.skip("this machine has a CJK font installed: the no-font case cannot be shown")
    return out


def test_without_a_cjk_font_chinese_is_boxes_and_the_fallback_makes_it_readable():
    chars = set(ZH + THAI)
    out = _fresh("".join(sorted(chars)))
    assert set(out["before"]) == chars
    assert out["boxes"]                   # two different characters draw the same empty box
    # Latin text needs nothing: no message, no font registered (start-up stays light)
    assert out["latin_message"] is None and out["latin_loaded"] == {}
    assert "LLGUI CJK Fallback" in out["loaded"] and "Noto Sans Thai" in out["loaded"]
    assert set(out["missing"]) == chars and out["undrawable"] == []
    assert out["after"] == [] and not out["boxes_after"]
    assert out["scripts"][0] == "Chinese/Japanese" and "Thai" in out["scripts"]
    assert "fallback font" in out["message"]
    assert "apt install fonts-noto-cjk fonts-thai-tlwg" in out["message"]


def test_with_the_bundled_font_registered_zh_ja_ko_are_drawn(checks):
    fonts.load_fallbacks()
    text = "中文简体，繁體中文，日本語のテキスト、カタカナ，한국어 텍스트，ภาษาไทย"
    assert fonts.undrawable(set(text) - {" "}) == []


def test_characters_outside_every_font_are_named_with_the_fix():
    rare = "\U0002A6A5"   # a CJK extension-B character, outside the bundled subset
    out = _fresh("中" + rare)
    assert out["undrawable"] == [rare]
    # named by code point and name, never drawn (it would be a box)
    assert rare not in out["message"] and "empty boxes" in out["message"]
    assert "U+2A6A5 CJK UNIFIED IDEOGRAPH-2A6A5" in out["message"]
    assert "apt install fonts-noto-cjk" in out["message"]


HINDI = "हिन्दी में अनुवाद"


def test_hindi_without_any_font_is_named_by_code_point_with_its_package(tmp_path):
    """Issue 35, item 2: with no font for Devanagari at all (the bundled fallbacks taken
    away), the warning names the characters (U+0915 DEVANAGARI LETTER KA), not as boxes (a
    combining mark would swallow the closing parenthesis), and the package that draws them."""
    out = _fresh(HINDI, LLGUI_FONT_DIR=str(tmp_path))
    chars = set(HINDI) - {" "}
    if not out["before"]:
        pytest.skip("this machine has a Devanagari font installed")
    assert set(out["undrawable"]) == chars and out["scripts"] == ["Devanagari"]
    message = out["message"]
    assert not chars & set(message)
    assert "U+0905 DEVANAGARI LETTER A" in message          # among the first four named
    assert "apt install fonts-noto-core" in message and "fonts-noto-cjk" not in message
    assert f"{len(chars)} character(s) (Devanagari)" in message


def test_wmt_scripts_and_emoji_are_drawn_by_the_bundled_fallbacks():
    """Issue 35, item 2: the scripts of WMT's language pairs beyond CJK and Thai, drawn."""
    text = ("हिन्दी বাংলা ਪੰਜਾਬੀ ગુજરાતી தமிழ் తెలుగు ಕನ್ನಡ മലയാളം සිංහල العربية עברית ខ្មែរ "
            "ພາສາລາວ မြန်မာ Հայերեն ქართული አማርኛ 🚀🙏😀")
    out = _fresh("".join(sorted(set(text) - {" "})))
    if not out["before"]:
        pytest.skip("this machine has fonts for every one of these scripts")
    assert out["after"] == [] and out["undrawable"] == []
    assert {"LLGUI Devanagari Fallback", "LLGUI Emoji Fallback"} <= set(out["loaded"])


def test_emoji_get_emoji_advice(tmp_path):
    out = _fresh("🚀🙏", LLGUI_FONT_DIR=str(tmp_path))
    if not out["before"]:
        pytest.skip("this machine has an emoji font installed")
    assert "U+1F680 ROCKET" in out["message"]
    assert "fonts-noto-color-emoji" in out["message"] and "fonts-noto-cjk" not in out["message"]
    assert "colour emoji font" in out["message"]


def _zh_bundle(tmp_path):
    refs = [ZH, "这是一个测试。", "现在，我明白了。"]
    hyps = ["绝地武士的破解版本崩溃了。", "这是一个测试.", "现在我明白了。"]
    (tmp_path / "ref.zh").write_text("\n".join(refs) + "\n", encoding="utf-8")
    (tmp_path / "hyp.zh").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (tmp_path / "log.jsonl").write_text(
        '{"doc": "zh", "step": 1, "initiative": "active", "kind": "reference", '
        '"target": {"sentence": 2}, "adapted": {"lines": {"2": "这是一个测试。", '
        '"3": "现在，我明白了。"}}}\n', encoding="utf-8")
    path = tmp_path / "bundle.toml"
    path.write_text('''[bundle]
task = "mt"
name = "zh"
metrics = ["bleu", "ter"]

[settings]
trg_lang = "zh"

[[documents]]
id = "zh"
time = "1"
references = ["ref.zh"]
hypothesis = "hyp.zh"

[interactions]
log = "log.jsonl"
''', encoding="utf-8")
    return path


def test_the_window_warns_once_and_marks_characters(qtbot, tmp_path, checks):
    from llgui.gui.workbench.mt_view import HTML_ROLE

    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles([_zh_bundle(tmp_path)])
        settle(qtbot, window)
        window.state.set_step(1)
        settle(qtbot, window)
        qtbot.waitUntil(lambda: "fonts-noto-cjk" in window.statusBar().currentMessage()
                        or not fonts.check_bundle(window.state.bundle())[0].missing)
        message = window.statusBar().currentMessage()
        assert "asian_support" in message            # item 4: the bundle's warning, on screen
        view = window.workbench.mt_view
        check = fonts.check_bundle(window.state.bundle())[0]
        if check.missing:                             # no CJK font on this machine
            assert "fallback font" in message
            assert view.notes.isVisible() and "fallback font" in view.notes.text()
        assert fonts.undrawable(set(ZH)) == []
        # item 2 in the window: one red character, no space between characters
        model = view.model
        seen = model.data(model.index(1, 2), HTML_ROLE)
        assert seen.count("color:") == 1 and "这是一个测试" in seen
        # the cost unit on the learning-curve axis and in the cost editor
        assert window.workbench.walkthrough.replay.cost_unit == "characters"
        editor = window.workbench.cost_editor
        form = editor.layout().itemAt(0).layout()
        assert form.labelForField(editor.spins["reference_weight"]).text() == \
            "per reference character"
        # item 4 in the MT view: under TER, the note; a font check is not repeated
        window.state.set_metric("mt", "ter")
        settle(qtbot, window)
        assert "asian_support" in view.notes.text()
        assert fonts.check_bundle(window.state.bundle())[1] is False
    finally:
        window.jobs.shutdown(2000)
        window.close()


def test_the_load_finds_a_bundles_characters_and_the_window_scans_nothing(tmp_path, monkeypatch):
    """Opening 1,000 documents, the font check scanned every text on the event loop (31 ms of
    its largest gap): the load job finds each bundle's characters on its worker, and the
    window's check takes them as they are."""
    import llgui.core.mt.script as script
    from llgui.gui.window.opening import _font_messages
    from llgui.io.open_job import open_bundles

    opened = open_bundles([_zh_bundle(tmp_path)])
    (bundle,) = opened.bundles
    # every non-ASCII character of its texts (all visible here), nothing else
    expected = {c for t in script.bundle_texts(bundle) for c in t if not c.isascii()}
    assert set(ZH) <= expected and opened.characters == (frozenset(expected),)

    def no_scan(*args, **kwargs):
        raise AssertionError("the window scanned the bundle's texts again")

    monkeypatch.setattr(script, "distinct_characters", no_scan)
    monkeypatch.setattr(script, "bundle_characters", no_scan)
    fonts._checked.clear()
    _font_messages(opened.bundles, opened.characters)   # (no scan: no AssertionError)
    check, first = fonts.check_bundle(bundle)
    assert first is False and set(check.missing) <= opened.characters[0]
