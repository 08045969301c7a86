"""Fonts for any script: find the characters a bundle shows that the fonts cannot draw, load
llgui's bundled fallback fonts for them, and say what is still missing.

A stock Linux server, container or CI has no CJK or Thai font: Qt draws such text as empty
boxes and says nothing. `prepare(texts)` is the one check, called wherever text enters a
window (a bundle opening in the workbench or side by side, the live session's bundle and every
answer its system sends, a campaign's names); `check_bundle(bundle)` is it once per bundle. It
takes the text's distinct non-ASCII characters (`llgui.core.mt.script.distinct_characters`, computed
in core), asks Qt which of them no font can draw (`QFontMetrics.inFontUcs4`, which counts
the fallback fonts Qt would use), and only then registers the fonts of `resources/fonts/`
(`QFontDatabase.addApplicationFont`: fontconfig, and so Qt's per-character fallback, finds
them for every widget). Start-up pays nothing for a bundle of Latin text. `FontCheck.message`
says what was done and the fix for what is left; the window shows it in the status bar and
above the MT segments.

The bundled fonts (SIL Open Font License 1.1, see resources/fonts/OFL.txt):
`LLGUI-CJK-Fallback.otf`, a subset of Noto Sans CJK SC (13,252 characters: GB2312, JIS X 0208
and Big5 level-1 Han, KS X 1001 Hangul, kana, CJK punctuation; 2.7 MB),
`NotoSansThai-Regular.ttf` (38 kB), and `LLGUI-<Script>-Fallback.ttf`: the Noto Sans face of
each script of WMT's language pairs cut to its Unicode blocks with its shaping features
(Devanagari, Bengali, Gurmukhi, Gujarati, Oriya, Tamil, Telugu, Kannada, Malayalam, Sinhala,
Arabic, Hebrew, Khmer, Lao, Myanmar, Armenian, Georgian, Ethiopic, Latin/Greek/Cyrillic) and
Noto Color Emoji's single-code-point emoji at 40 px (resources/fonts/make_scripts.py; 3 MB
together). A character still without a glyph is named by code point and Unicode name with the
package that draws it (`FontCheck.message`).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics
from PySide6.QtWidgets import QApplication

FALLBACK_FILES = ("LLGUI-CJK-Fallback.otf", "NotoSansThai-Regular.ttf") + tuple(
    f"LLGUI-{stem}-Fallback.ttf" for stem in (
        "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada",
        "Malayalam", "Sinhala", "Arabic", "Hebrew", "Khmer", "Lao", "Myanmar", "Armenian",
        "Georgian", "Ethiopic", "Latin", "Emoji"))
_NOTO = "fonts-noto-core"
PACKAGES = {"Chinese/Japanese": "fonts-noto-cjk", "Japanese": "fonts-noto-cjk",
            "Korean": "fonts-noto-cjk", "Thai": "fonts-thai-tlwg",
            "Emoji": "fonts-noto-color-emoji", "Latin": "fonts-dejavu-core",
            "Greek": "fonts-dejavu-core", "Cyrillic": "fonts-dejavu-core",
            **{script: _NOTO for script in (
                "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu",
                "Kannada", "Malayalam", "Sinhala", "Arabic", "Hebrew", "Khmer", "Lao",
                "Burmese", "Armenian", "Georgian", "Ethiopic")}}
"""Debian/Ubuntu packages with complete fonts for a script (`llgui.core.mt.script.script_of`)."""
_PARTIAL = {"Chinese/Japanese", "Japanese", "Korean", "Emoji"}
"""Scripts the bundled fallbacks cover only in part (common Han; single-code-point emoji)."""
_SHOWN = 4   # characters named in a message

_loaded: dict[str, int] = {}       # file name -> QFontDatabase id
_checked: dict[int, tuple[object, "FontCheck"]] = {}   # id(bundle) -> (bundle, check)
_drawable: set[str] = set()        # characters found drawable once: not asked again


def font_dir() -> Path:
    from llgui.resources import font_dir as _font_dir
    return _font_dir()


def _fix(scripts: Iterable[str]) -> str:
    """The packages that draw `scripts`, as one command (emoji get their own advice)."""
    scripts = list(scripts)
    packages = sorted({PACKAGES[s] for s in scripts if s in PACKAGES})
    fix = ("apt install " + " ".join(packages) if packages
           else "install a font that covers them")
    if "Emoji" in scripts:
        fix += (" (emoji need a colour emoji font: fonts-noto-color-emoji, "
                "or the emoji font of your desktop)")
    return fix


@dataclass(frozen=True)
class FontCheck:
    """What a text needed: `missing` = characters no font could draw before the fallback
    fonts, `loaded` = the fallback families registered for them, `undrawable` = characters
    still drawn as boxes, `scripts` = the scripts of `missing` (most frequent first)."""

    missing: tuple[str, ...] = ()
    loaded: tuple[str, ...] = ()
    undrawable: tuple[str, ...] = ()
    scripts: tuple[str, ...] = ()

    @property
    def message(self) -> str | None:
        """One or two sentences for the status bar and the MT view (the fix included); None
        when nothing was missing. Characters without a glyph are named by code point and
        Unicode name, never drawn (they would be boxes, and combining marks swallow what
        follows them)."""
        from llgui.core.mt.script import describe, script_names

        if not self.missing:
            return None
        named = [s for s in self.scripts if not (s == "Chinese/Japanese" and "Japanese"
                                                  in self.scripts)]   # kana: Japanese
        scripts = " and ".join(named[:2]) or "non-Latin"
        if not self.undrawable:
            part = (" (common characters only)" if _PARTIAL.intersection(self.scripts)
                    else "")
            return (f"No installed font draws this {scripts} text: shown with llgui's "
                    f"bundled fallback font{part}. For all, {_fix(self.scripts)}.")
        left = script_names(self.undrawable)
        named = ", ".join(describe(c) for c in self.undrawable[:_SHOWN])
        more = (f" and {len(self.undrawable) - _SHOWN} more"
                if len(self.undrawable) > _SHOWN else "")
        done = " (llgui's bundled fallback fonts draw the others)" if self.loaded else ""
        return (f"{len(self.undrawable)} character(s) ({' and '.join(left[:2])}) show as "
                f"empty boxes: {named}{more}; no installed font draws them{done}. To read "
                f"them, {_fix(left)}.")


def undrawable(chars: Iterable[str], font: QFont | None = None) -> list[str]:
    """The characters of `chars` that neither `font` (default: the application's) nor any
    fallback font Qt would use can draw."""
    metrics = QFontMetrics(font if font is not None else QApplication.font())
    return sorted(c for c in chars if not metrics.inFontUcs4(ord(c)))


def load_fallbacks() -> tuple[str, ...]:
    """Register the bundled fallback fonts (once); their family names."""
    from PySide6.QtCore import QLoggingCategory

    # Qt says "OpenType support missing for ..., script N" for every font without the
    # script's tables (DejaVu and the emoji font), dozens of lines on stderr that tell a user
    # nothing: the check above says what is missing
    QLoggingCategory.setFilterRules("qt.text.font.db.warning=false")
    families: list[str] = []
    for name in FALLBACK_FILES:
        font_id = _loaded.get(name)
        if font_id is None:
            path = font_dir() / name
            font_id = QFontDatabase.addApplicationFont(str(path)) if path.is_file() else -1
            if font_id < 0:
                continue
            _loaded[name] = font_id
        families.extend(QFontDatabase.applicationFontFamilies(font_id))
    return tuple(families)


def forget_checks() -> None:
    """Forget which bundles were checked (tests). The fonts stay registered: Qt cannot take
    a font back out of fontconfig, and registering it again does not bring it back."""
    _checked.clear()
    _drawable.clear()


def check_characters(chars: Iterable[str], font: QFont | None = None) -> FontCheck:
    """Which of `chars` no font draws; the fallback fonts are loaded when some are
    missing, and what they do not cover is `undrawable`."""
    from llgui.core.mt.script import script_names

    chars = [c for c in chars if c not in _drawable]
    missing = undrawable(chars, font)
    if not missing:
        _drawable.update(chars)
        return FontCheck()
    loaded = load_fallbacks()
    left = undrawable(missing, font) if loaded else missing
    _drawable.update(set(chars) - set(left))
    return FontCheck(tuple(missing), loaded, tuple(left), tuple(script_names(missing)))


def prepare(texts: Iterable[str], font: QFont | None = None) -> FontCheck:
    """The one check every window makes where text enters it, before it paints: the
    distinct characters of `texts` that no font draws get llgui's fallback fonts
    registered; what is still missing is in the returned check's `message`. Characters
    found drawable once are not asked again, so calling it on every new text is cheap."""
    from llgui.core.mt.script import distinct_characters

    return check_characters(sorted(distinct_characters(
        t for t in texts if isinstance(t, str))), font)


def check_bundle(bundle, characters: frozenset[str] | None = None) -> tuple[FontCheck, bool]:
    """The `FontCheck` of an MT bundle (`prepare` on its texts), computed once per bundle;
    (check, True the first time) so the caller warns once. Other tasks show text only in
    their names (speakers, documents, labels), checked too. `characters`: the bundle's
    (`llgui.core.mt.script.bundle_characters`), when the loader found them already."""
    seen = _checked.get(id(bundle))
    if seen is not None and seen[0] is bundle:
        return seen[1], False
    if characters is None:
        from llgui.core.mt.script import bundle_characters

        characters = bundle_characters(bundle)
    check = check_characters(sorted(characters))
    _checked[id(bundle)] = (bundle, check)
    return check, True


def strings_of(data, limit: int = 200_000):
    """Every string in plain data (a campaign's report: system, model and document names),
    the first `limit` of them: what `prepare` checks for a window that shows a report."""
    stack, seen = [data], 0
    while stack and seen < limit:
        item = stack.pop()
        if isinstance(item, str):
            seen += 1
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
