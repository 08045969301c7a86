"""How resources/fonts/LLGUI-CJK-Fallback.otf was made (not used at run time).

A subset of Noto Sans CJK SC Regular (SIL Open Font License 1.1; Debian package
fonts-noto-cjk, NotoSansCJK-Regular.ttc, face "Noto Sans CJK SC") to the characters of
everyday Chinese, Japanese and Korean text: every Han character of GB2312 (simplified),
JIS X 0208 (Japanese) and Big5 level 1 (traditional), the 2,350 Hangul syllables of
KS X 1001, kana, CJK punctuation and full-width forms. Characters outside it still show as
boxes (the window says so). The subset is renamed "LLGUI CJK Fallback": the OFL lets no
modified version use a Reserved Font Name (Noto Sans CJK reserves "Source"), and a name of its
own keeps the subset from shadowing an installed, complete Noto Sans CJK. Its GSUB/GPOS
features are dropped (horizontal text, simplified-Chinese shapes: Japanese kanji are drawn
in their Chinese form).

NotoSansThai-Regular.ttf beside it is Noto Sans Thai (OFL 1.1, Debian fonts-noto-core), as is.

    pip install fonttools
    python resources/fonts/make_subset.py NotoSansCJK-Regular.ttc resources/fonts/
"""
from __future__ import annotations

import sys
from pathlib import Path

FAMILY = "LLGUI CJK Fallback"
FILE = "LLGUI-CJK-Fallback.otf"


def _encodable(cp: int, codec: str, first: int = 0, last: int = 0xFFFF) -> bool:
    try:
        raw = chr(cp).encode(codec)
    except UnicodeEncodeError:
        return False
    return len(raw) == 2 and first <= int.from_bytes(raw, "big") <= last


def characters() -> list[int]:
    han = range(0x4E00, 0xA000)
    chosen = {c for c in han if _encodable(c, "gb2312") or _encodable(c, "euc_jp")
              or _encodable(c, "big5", 0xA440, 0xC67E)}
    chosen |= {c for c in range(0xAC00, 0xD7A4) if _encodable(c, "euc_kr")}
    for first, last in ((0x3000, 0x303F),   # CJK symbols and punctuation
                        (0x3040, 0x30FF),   # hiragana, katakana
                        (0x31F0, 0x31FF),   # katakana phonetic extensions
                        (0x3130, 0x318F),   # Hangul compatibility jamo
                        (0xFF00, 0xFFEF),   # half-width and full-width forms
                        (0x2010, 0x2027),   # dashes, quotes, ellipsis
                        (0x00B7, 0x00B7)):
        chosen |= set(range(first, last + 1))
    return sorted(chosen)


def main(source: str, out_dir: str) -> None:
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    collection = TTCollection(source)
    font = next(f for f in collection.fonts
                if f["name"].getDebugName(1) == "Noto Sans CJK SC")
    options = subset.Options()
    # no GSUB/GPOS features: horizontal text in the SC shapes only (locl's JP/KR/TC shapes
    # and the vertical forms would pull in thousands of alternate glyphs)
    options.layout_features = []
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.hinting = False
    sub = subset.Subsetter(options)
    sub.populate(unicodes=characters())
    sub.subset(font)
    names = font["name"]
    for record in names.names:
        if record.nameID in (1, 16):
            record.string = FAMILY
        elif record.nameID in (3, 4):
            record.string = f"{FAMILY} Regular"
        elif record.nameID == 6:
            record.string = FAMILY.replace(" ", "") + "-Regular"
    font["CFF "].cff.fontNames = [FAMILY.replace(" ", "") + "-Regular"]
    target = Path(out_dir) / FILE
    font.save(str(target))
    print(f"{target}: {target.stat().st_size} bytes, {len(characters())} characters")


if __name__ == "__main__":
    main(*sys.argv[1:3])
