"""How resources/fonts/LLGUI-<Script>-Fallback.ttf were made (not used at run time).

Each is a subset of a Noto font (SIL Open Font License 1.1, resources/fonts/OFL.txt) from
Debian's `fonts-noto-core` (the Noto Sans faces of 20201225) and `fonts-noto-color-emoji`
(Noto Color Emoji 2.042), cut to the Unicode blocks of its script, with every OpenType
layout feature kept (Indic, Arabic and Khmer text needs its conjuncts, reordering and joining
forms from GSUB/GPOS). They are renamed "LLGUI <Script> Fallback", as the CJK subset is
(make_subset.py): a name of its own keeps a subset from shadowing a complete, installed Noto
font. The emoji font keeps the single-code-point emoji of the main emoji blocks (1,300; no
ZWJ sequences or skin tones) with its 109-pixel colour bitmaps scaled to 40 pixels, which
takes it from 11 MB to 1.2 MB.

The scripts are those of WMT's language pairs (general, Indic and low-resource tasks)
beyond CJK and Thai: Devanagari (hi, mr, ne), Bengali (bn, as), Gurmukhi (pa), Gujarati (gu),
Oriya (or), Tamil (ta), Telugu (te), Kannada (kn), Malayalam (ml), Sinhala (si), Arabic (ar,
fa, ur, ps), Hebrew (he), Khmer (km), Lao (lo), Myanmar (my), Armenian (hy), Georgian (ka),
Ethiopic (am), Latin/Greek/Cyrillic (for a machine with no font at all) and emoji.

    apt-get download fonts-noto-core fonts-noto-color-emoji
    dpkg-deb -x fonts-noto-core_*.deb x; dpkg-deb -x fonts-noto-color-emoji_*.deb x
    pip install fonttools pillow
    python resources/fonts/make_scripts.py x/usr/share/fonts/truetype/noto resources/fonts/
"""
from __future__ import annotations

import io
import sys
from pathlib import Path

# file stem -> (source face, Unicode ranges); the ranges are the script's blocks
SCRIPTS: dict[str, tuple[str, tuple[tuple[int, int], ...]]] = {
    "Devanagari": ("NotoSansDevanagari", ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x1CD0, 0x1CFF))),
    "Bengali": ("NotoSansBengali", ((0x0980, 0x09FF),)),
    "Gurmukhi": ("NotoSansGurmukhi", ((0x0A00, 0x0A7F),)),
    "Gujarati": ("NotoSansGujarati", ((0x0A80, 0x0AFF),)),
    "Oriya": ("NotoSansOriya", ((0x0B00, 0x0B7F),)),
    "Tamil": ("NotoSansTamil", ((0x0B80, 0x0BFF), (0x11FC0, 0x11FFF))),
    "Telugu": ("NotoSansTelugu", ((0x0C00, 0x0C7F),)),
    "Kannada": ("NotoSansKannada", ((0x0C80, 0x0CFF),)),
    "Malayalam": ("NotoSansMalayalam", ((0x0D00, 0x0D7F),)),
    "Sinhala": ("NotoSansSinhala", ((0x0D80, 0x0DFF),)),
    "Arabic": ("NotoSansArabic", ((0x0600, 0x06FF), (0x0750, 0x077F), (0x08A0, 0x08FF),
                                  (0xFB50, 0xFDFF), (0xFE70, 0xFEFF))),
    "Hebrew": ("NotoSansHebrew", ((0x0590, 0x05FF), (0xFB1D, 0xFB4F))),
    "Khmer": ("NotoSansKhmer", ((0x1780, 0x17FF), (0x19E0, 0x19FF))),
    "Lao": ("NotoSansLao", ((0x0E80, 0x0EFF),)),
    "Myanmar": ("NotoSansMyanmar", ((0x1000, 0x109F), (0xAA60, 0xAA7F), (0xA9E0, 0xA9FF))),
    "Armenian": ("NotoSansArmenian", ((0x0530, 0x058F), (0xFB13, 0xFB17))),
    "Georgian": ("NotoSansGeorgian", ((0x10A0, 0x10FF), (0x2D00, 0x2D2F), (0x1C90, 0x1CBF))),
    "Ethiopic": ("NotoSansEthiopic", ((0x1200, 0x139F), (0x2D80, 0x2DDF))),
    "Latin": ("NotoSans", ((0x0020, 0x024F), (0x0300, 0x036F), (0x0370, 0x03FF),
                           (0x0400, 0x052F), (0x1E00, 0x1FFF), (0x2000, 0x206F),
                           (0x20A0, 0x20CF), (0x2100, 0x214F))),
}
# shared by Indic and other complex scripts: joiners, dotted circle (shaping's placeholder)
SHARED = (0x200C, 0x200D, 0x25CC, 0x0964, 0x0965)
EMOJI_RANGES = ((0x1F300, 0x1FAFF), (0x2600, 0x27BF), (0x2B00, 0x2BFF), (0x1F000, 0x1F2FF))
EMOJI_PIXELS = 40


def _rename(font, family: str) -> None:
    for record in font["name"].names:
        if record.nameID in (1, 16):
            record.string = family
        elif record.nameID in (3, 4):
            record.string = f"{family} Regular"
        elif record.nameID == 6:
            record.string = family.replace(" ", "") + "-Regular"


def _subset(font, unicodes: list[int], features) -> None:
    from fontTools import subset

    options = subset.Options()
    options.layout_features = features
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.hinting = False
    sub = subset.Subsetter(options)
    sub.populate(unicodes=unicodes)
    sub.subset(font)


def make_script(source_dir: Path, out_dir: Path, stem: str) -> Path:
    from fontTools.ttLib import TTFont

    face, ranges = SCRIPTS[stem]
    font = TTFont(str(source_dir / f"{face}-Regular.ttf"))
    cmap = font.getBestCmap()
    wanted = [c for c in cmap
              if c in SHARED or any(first <= c <= last for first, last in ranges)]
    _subset(font, wanted, ["*"])
    _rename(font, f"LLGUI {stem} Fallback")
    target = out_dir / f"LLGUI-{stem}-Fallback.ttf"
    font.save(str(target))
    return target


def make_emoji(source_dir: Path, out_dir: Path) -> Path:
    from fontTools.ttLib import TTFont
    from PIL import Image

    font = TTFont(str(source_dir / "NotoColorEmoji.ttf"))
    wanted = [c for c in font.getBestCmap()
              if any(first <= c <= last for first, last in EMOJI_RANGES)]
    _subset(font, wanted, [])
    for strike, glyphs in zip(font["CBLC"].strikes, font["CBDT"].strikeData):
        sizes = strike.bitmapSizeTable
        scale = EMOJI_PIXELS / sizes.ppemX
        for glyph in glyphs.values():
            metrics = glyph.metrics
            width = max(1, round(metrics.width * scale))
            height = max(1, round(metrics.height * scale))
            image = Image.open(io.BytesIO(glyph.imageData)).resize((width, height), Image.LANCZOS)
            raw = io.BytesIO()
            image.save(raw, "PNG", optimize=True)
            glyph.imageData = raw.getvalue()
            metrics.width, metrics.height = width, height
            metrics.BearingX = round(metrics.BearingX * scale)
            metrics.BearingY = round(metrics.BearingY * scale)
            metrics.Advance = round(metrics.Advance * scale)
        sizes.ppemX = sizes.ppemY = EMOJI_PIXELS
        for line in (sizes.hori, sizes.vert):
            for name in ("ascender", "descender", "widthMax", "maxBeforeBL", "minAfterBL"):
                setattr(line, name, round(getattr(line, name) * scale))
    _rename(font, "LLGUI Emoji Fallback")
    target = out_dir / "LLGUI-Emoji-Fallback.ttf"
    font.save(str(target))
    return target


def main(source: str, out: str) -> None:
    source_dir, out_dir = Path(source), Path(out)
    for path in [make_script(source_dir, out_dir, stem) for stem in SCRIPTS] + [
            make_emoji(source_dir, out_dir)]:
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main(*sys.argv[1:3])
