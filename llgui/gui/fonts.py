"""Fonts for any script: find the characters a bundle shows that the fonts cannot draw, load
llgui's bundled fallback fonts for them, and say what is still missing.

A stock Linux server, container or CI has no CJK or Thai font: Qt draws such text as empty
boxes and says nothing. `check_bundle(bundle)` (once per bundle, when it opens) takes the
bundle's distinct non-ASCII characters (`llgui.core.mt.script.distinct_characters`, computed
in core), asks Qt which of them no font can draw (`QFontMetrics.inFontUcs4`, which counts
the fallback fonts Qt would use), and only then registers the fonts of `resources/fonts/`
(`QFontDatabase.addApplicationFont`: fontconfig, and so Qt's per-character fallback, finds
them for every widget). Start-up pays nothing for a bundle of Latin text. `FontCheck.message`
says what was done and the fix for what is left; the window shows it in the status bar and
above the MT segments.

The bundled fonts (SIL Open Font License 1.1, see resources/fonts/OFL.txt):
`LLGUI-CJK-Fallback.otf`, a subset of Noto Sans CJK SC (13,252 characters: GB2312, JIS X 0208
and Big5 level-1 Han, KS X 1001 Hangul, kana, CJK punctuation; 2.7 MB), and
`NotoSansThai-Regular.ttf` (38 kB).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics
from PySide6.QtWidgets import QApplication

FALLBACK_FILES = ("LLGUI-CJK-Fallback.otf", "NotoSansThai-Regular.ttf")
PACKAGES = {"Chinese/Japanese": "fonts-noto-cjk", "Japanese": "fonts-noto-cjk",
            "Korean": "fonts-noto-cjk", "Thai": "fonts-thai-tlwg"}
"""Debian/Ubuntu packages with complete fonts for a script (`llgui.core.mt.script.script_of`)."""
_SHOWN = 8   # characters quoted in a message

_loaded: dict[str, int] = {}       # file name -> QFontDatabase id
_checked: dict[int, tuple[object, "FontCheck"]] = {}   # id(bundle) -> (bundle, check)


def font_dir() -> Path:
    from llgui.resources import font_dir as _font_dir
    return _font_dir()


@dataclass(frozen=True)
class FontCheck:
    """What a bundle needed: `missing` = characters no font could draw before the fallback
    fonts, `loaded` = the fallback families registered for them, `undrawable` = characters
    still drawn as boxes, `scripts` = the scripts of `missing` (most frequent first)."""

    missing: tuple[str, ...] = ()
    loaded: tuple[str, ...] = ()
    undrawable: tuple[str, ...] = ()
    scripts: tuple[str, ...] = ()

    @property
    def message(self) -> str | None:
        """One or two sentences for the status bar and the MT view (the fix included); None
        when nothing was missing."""
        if not self.missing:
            return None
        scripts = " and ".join(s for s in self.scripts[:2]) or "non-Latin"
        packages = sorted({PACKAGES[s] for s in self.scripts if s in PACKAGES})
        fix = ("apt install " + " ".join(packages) if packages
               else "install a font that covers them")
        if not self.undrawable:
            return (f"No installed font draws this bundle's {scripts} text: shown with "
                    f"llgui's bundled fallback font (common characters only). For all, {fix}.")
        shown = "".join(self.undrawable[:_SHOWN]) + ("…" if len(self.undrawable) > _SHOWN else "")
        done = " (llgui's bundled fallback font has the others)" if self.loaded else ""
        return (f"{len(self.undrawable)} character(s) of this bundle ({shown}) show as empty "
                f"boxes: no installed font draws them{done}. To read them, {fix}.")


def undrawable(chars: Iterable[str], font: QFont | None = None) -> list[str]:
    """The characters of `chars` that neither `font` (default: the application's) nor any
    fallback font Qt would use can draw."""
    metrics = QFontMetrics(font if font is not None else QApplication.font())
    return sorted(c for c in chars if not metrics.inFontUcs4(ord(c)))


def load_fallbacks() -> tuple[str, ...]:
    """Register the bundled fallback fonts (once); their family names."""
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


def check_characters(chars: Iterable[str], font: QFont | None = None) -> FontCheck:
    """Which of `chars` no font draws; the fallback fonts are loaded when some are
    missing, and what they do not cover is `undrawable`."""
    from llgui.core.mt.script import script_names

    missing = undrawable(chars, font)
    if not missing:
        return FontCheck()
    loaded = load_fallbacks()
    left = undrawable(missing, font) if loaded else missing
    return FontCheck(tuple(missing), loaded, tuple(left), tuple(script_names(missing)))


def check_bundle(bundle) -> tuple[FontCheck, bool]:
    """The `FontCheck` of an MT bundle, computed once per bundle; (check, True the first
    time) so the caller warns once. Other tasks show no text to check."""
    seen = _checked.get(id(bundle))
    if seen is not None and seen[0] is bundle:
        return seen[1], False
    check = FontCheck()
    if getattr(bundle, "task", None) == "mt":
        from llgui.core.mt.script import bundle_texts, distinct_characters

        check = check_characters(distinct_characters(bundle_texts(bundle)))
    _checked[id(bundle)] = (bundle, check)
    return check, True
