"""Scripts written with and without spaces: the unit of a diff, of a cost, of a font check.

Chinese, Japanese and Thai (and Lao, Khmer, Burmese) are written without spaces between
words, so a whitespace "word" of such text is a whole clause or sentence: a diff on words
marks a segment red from end to end for one full stop, and a 33-character reference "costs"
2 words. For these scripts llgui counts and compares characters instead:

- `unit_of(settings, texts)`: the bundle's unit, "characters" or "words". The bundle's
  `trg_lang` decides when it is set (zh, ja, th, lo, km, my -> characters; any other -> words);
  without it, the text decides (characters when it has at least as many characters of such
  scripts as words of others).
- `units(text, unit)`: what a cost counts and a post-edit's edits are counted over: the
  whitespace-separated words, or every character that is not white space (a base character
  with its combining marks, so a Thai vowel sign is not a character of its own).
- `tokens(text, unit)` / `spaced_tokens`: what a diff aligns: words, or with "characters"
  each character of a script without spaces alone and any other run (a Latin name, a number)
  whole, as sacrebleu's `zh` tokenizer splits.

`CJK_TER_LANGUAGES` and `ter_script_note(settings)`: sacrebleu's TER splits CJK characters
only with `asian_support` and `normalized` both on; otherwise a Chinese segment is one "word"
and TER counts it as one edit or none. llgui keeps sacrebleu's defaults and says so.

`distinct_characters(texts)`: the characters a bundle shows beyond ASCII, for the window's
check that its fonts can draw them.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Iterable, Mapping

from llgui.utils.identity_cache import IdentityCache

WORDS = "words"
CHARACTERS = "characters"
UNITS = (WORDS, CHARACTERS)

UNSPACED_LANGUAGES = frozenset({"zh", "ja", "th", "lo", "km", "my"})
"""Languages (ISO 639-1, as sacrebleu's `trg_lang`) written without spaces between words."""

CJK_TER_LANGUAGES = frozenset({"zh", "ja", "ko"})
"""Target languages for which sacrebleu's TER has `asian_support`."""

_UNSPACED_RANGES = (
    (0x0E00, 0x0E7F),    # Thai
    (0x0E80, 0x0EFF),    # Lao
    (0x1000, 0x109F),    # Myanmar
    (0x1780, 0x17FF),    # Khmer
    (0x2E80, 0x2FDF),    # CJK radicals, Kangxi radicals
    (0x2FF0, 0x303F),    # ideographic description, CJK symbols and punctuation
    (0x3040, 0x30FF),    # hiragana, katakana
    (0x3100, 0x312F),    # bopomofo
    (0x31A0, 0x31FF),    # bopomofo extended, CJK strokes, katakana extensions
    (0x3200, 0x4DBF),    # enclosed CJK, compatibility, extension A
    (0x4E00, 0x9FFF),    # CJK unified ideographs
    (0xF900, 0xFAFF),    # CJK compatibility ideographs
    (0xFE30, 0xFE4F),    # CJK compatibility forms
    (0xFF00, 0xFFEF),    # full-width and half-width forms
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)
_CLASS = "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _UNSPACED_RANGES)
_TOKEN = re.compile(f"[{_CLASS}]|[^\\s{_CLASS}]+")
_UNSPACED_CHAR = re.compile(f"[{_CLASS}]")

_SAMPLE_CHARS = 50_000
"""Characters of a bundle's references that `unit_of` reads at most to decide its unit."""
_SAMPLE_PER_TEXT = 2_000


def is_unspaced(char: str) -> bool:
    """True for a character of a script written without spaces (Han, kana, Thai, ...)."""
    return _UNSPACED_CHAR.match(char) is not None


def language_unit(trg_lang: object) -> str | None:
    """The unit a `trg_lang` setting implies ("characters" / "words"), None when unset."""
    if trg_lang is None or not str(trg_lang).strip():
        return None
    primary = re.split(r"[-_]", str(trg_lang).strip().lower(), maxsplit=1)[0]
    return CHARACTERS if primary in UNSPACED_LANGUAGES else WORDS


def detect_unit(texts: Iterable[str], limit: int = _SAMPLE_CHARS) -> str:
    """"characters" when `texts` (their first `limit` characters) have at least as many
    characters of scripts written without spaces as words of other scripts (a Chinese
    character weighs as a Latin word: "调用 vtable" is Chinese), else "words"."""
    unspaced = spaced = seen = 0
    for text in texts:
        text = text[:_SAMPLE_PER_TEXT]
        seen += len(text)
        for token in _TOKEN.findall(text):
            if is_unspaced(token[0]):
                unspaced += 1
            elif any(c.isalpha() for c in token):
                spaced += 1
        if seen >= limit:
            break
    return CHARACTERS if unspaced and unspaced >= spaced else WORDS


def unit_of(settings: Mapping[str, object] | None, texts: Iterable[str] = ()) -> str:
    """The cost and diff unit of a bundle: its `trg_lang` decides when set, else its text."""
    return language_unit((settings or {}).get("trg_lang")) or detect_unit(texts)


_BUNDLE_UNITS = IdentityCache(8)


def bundle_unit(settings: Mapping[str, object] | None, documents, document=None) -> str:
    """`unit_of` a bundle's documents (or of `document` alone when there are none), decided
    once per documents object: every track of a bundle asks it, and sampling 50,000 characters
    for each of 1,000 documents took 18 s of a bundle's first scoring."""
    trg_lang = (settings or {}).get("trg_lang")
    given = language_unit(trg_lang)
    if given is not None:
        return given
    source = documents if documents else (document,)
    return _BUNDLE_UNITS.get_or_make((source,), (), lambda: detect_unit(sample_texts(source)))


def sample_texts(documents) -> Iterable[str]:
    """The first reference of each MT document, segment by segment, for `unit_of` (lazy:
    `detect_unit` stops after its sample)."""
    for document in documents:
        references = getattr(document, "references", None)
        if references:
            yield from references[0]


def _clusters(text: str) -> list[str]:
    """Non-space characters, each with the combining marks that follow it."""
    out: list[str] = []
    for char in text:
        if char.isspace():
            continue
        if out and unicodedata.category(char).startswith("M"):
            out[-1] += char
        else:
            out.append(char)
    return out


def units(text: str, unit: str = WORDS) -> list[str]:
    """What a cost counts in `text`: its words, or its non-space characters."""
    return _clusters(text) if unit == CHARACTERS else text.split()


def count_units(text: str, unit: str = WORDS) -> int:
    """How many `units` `text` has (a reference's cost before its weight)."""
    return len(units(text, unit))


def spaced_tokens(text: str, unit: str = WORDS) -> list[tuple[str, str]]:
    """The diff tokens of `text`, each with the space that follows it ("" or " ", white
    space collapsed), so a marked text reads as the original. Words: whitespace-separated.
    Characters: each character of a script without spaces alone (with its combining
    marks), any other run of non-space characters whole."""
    if unit != CHARACTERS:
        parts = text.split()
        return [(w, " " if i < len(parts) - 1 else "") for i, w in enumerate(parts)]
    out: list[tuple[str, str]] = []
    last_end = 0
    for match in _TOKEN.finditer(text):
        piece = match.group()
        if out and last_end == match.start() and unicodedata.category(piece[0]).startswith("M"):
            out[-1] = (out[-1][0] + piece, "")   # a combining mark stays on its base
        else:
            if out:
                out[-1] = (out[-1][0], " " if match.start() > last_end else "")
            out.append((piece, ""))
        last_end = match.end()
    return out


def tokens(text: str, unit: str = WORDS) -> list[str]:
    """The diff tokens of `text` (see `spaced_tokens`)."""
    return [t for t, _ in spaced_tokens(text, unit)] if unit == CHARACTERS else text.split()


def ter_script_note(settings: Mapping[str, object] | None) -> str | None:
    """What to tell a user whose TER on Chinese, Japanese or Korean runs on whitespace words
    (sacrebleu's default); None when `trg_lang` is not one of them or CJK support is on."""
    settings = settings or {}
    trg = settings.get("trg_lang")
    primary = re.split(r"[-_]", str(trg or "").strip().lower(), maxsplit=1)[0]
    if primary not in CJK_TER_LANGUAGES:
        return None
    if settings.get("asian_support") and settings.get("normalized"):
        return None
    missing = " and ".join(k for k in ("asian_support", "normalized") if not settings.get(k))
    return (f"TER cuts this trg_lang = {trg!r} text at spaces only ({missing} off, "
            "sacrebleu's default, kept): a sentence is one or a few 'words' and TER can pass "
            "100 %. Set asian_support = true and normalized = true to count characters")


_NON_ASCII_VISIBLE = re.compile(r"[^\x00-\x7f\s]")
"""A character that is neither ASCII nor white space (re's \\s is str.isspace's set)."""
BLEU_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
"""WMT's (and sacrebleu's, from trg_lang) BLEU tokenizer for Chinese, Japanese, Korean."""
_LANGUAGE_NAMES = {"zh": "Chinese", "ja": "Japanese", "ko": "Korean"}


def cjk_language(texts: Iterable[str], limit: int = _SAMPLE_CHARS) -> str | None:
    """"ja" (kana), "ko" (Hangul) or "zh" (Han without kana) when at least a third of the
    first `limit` visible characters of `texts` are of those scripts; else None."""
    counts = {"ja": 0, "ko": 0, "zh": 0}
    total = 0
    for text in texts:
        if not isinstance(text, str):
            continue
        sample = text[:_SAMPLE_PER_TEXT]
        # the visible characters, counted in C (str.split cuts where str.isspace is true);
        # an ASCII one is of no script (`script_of`: "other"), so only the others are looked up
        total += len("".join(sample.split()))
        for char in (() if sample.isascii() else _NON_ASCII_VISIBLE.findall(sample)):
            name = script_of(char)
            if name == "Japanese":
                counts["ja"] += 1
            elif name == "Korean":
                counts["ko"] += 1
            elif name == "Chinese/Japanese":
                counts["zh"] += 1
        if total >= limit:
            break
    if total == 0 or 3 * sum(counts.values()) < total:
        return None
    if counts["ja"]:
        return "ja"
    return "ko" if counts["ko"] > counts["zh"] else "zh"


def bleu_tokenizer_note(settings: Mapping[str, object] | None, texts: Iterable[str] = ()
                        ) -> str | None:
    """What a reader of a BLEU score must know when it is not tokenized as WMT tokenizes
    Chinese, Japanese or Korean: `tokenize` set to another tokenizer for such a `trg_lang`,
    or no `trg_lang` and no `tokenize` on text of such a language (`cjk_language`), where
    sacrebleu's default 13a cuts only at spaces and punctuation. None when all is well.
    (sacrebleu's own "Consider using ..." is silenced: this note says it once.)"""
    settings = settings or {}
    tokenize, trg = settings.get("tokenize"), settings.get("trg_lang")
    if trg in BLEU_TOKENIZERS:
        wanted = BLEU_TOKENIZERS[str(trg)]
        if tokenize is None or tokenize in (wanted, "spm", "flores101", "flores200",
                                            "spBLEU-1K"):
            return None
        return (f"BLEU tokenizes this trg_lang = {trg!r} text with {tokenize!r} (the tokenize "
                f"setting), not with WMT's {wanted!r}: the numbers are not comparable to "
                f"published {_LANGUAGE_NAMES[str(trg)]} BLEU")
    if trg is not None or tokenize is not None:
        return None
    lang = cjk_language(texts)
    if lang is None:
        return None
    return (f"this text is {_LANGUAGE_NAMES[lang]} but the bundle has no trg_lang: BLEU "
            f"tokenizes it with sacrebleu's default 13a (spaces and punctuation only), not "
            f"with WMT's {BLEU_TOKENIZERS[lang]!r}. Set trg_lang = {lang!r} in [settings]")


_INVISIBLE = ("C", "Z")   # control, format, private use, unassigned; separators: never drawn


def distinct_characters(texts: Iterable[str], limit: int = 20_000_000) -> set[str]:
    """The distinct visible non-ASCII characters of `texts` (the first `limit` characters
    of text that is not plain ASCII): what the window must draw beyond Latin."""
    seen: set[str] = set()
    total = 0
    for text in texts:
        if not isinstance(text, str) or not text or text.isascii():
            continue
        seen.update(text)
        total += len(text)
        if total >= limit:
            break
    return {c for c in seen
            if not c.isascii() and unicodedata.category(c)[0] not in _INVISIBLE}


def bundle_characters(bundle) -> frozenset[str]:
    """The distinct visible non-ASCII characters a window shows of `bundle`: every text of an
    MT bundle (`bundle_texts`), the document ids of the others (their other text is names,
    checked where they are shown). Computed where the bundle is loaded (a worker), so that
    the window's font check does not scan a large bundle on its event loop."""
    if getattr(bundle, "task", None) == "mt":
        texts = bundle_texts(bundle)
    else:
        texts = (getattr(d, "id", "") for d in getattr(bundle, "documents", ()) or ())
    return frozenset(distinct_characters(t for t in texts if isinstance(t, str)))


def bundle_texts(bundle) -> Iterable[str]:
    """Every text an MT bundle shows: references, hypotheses, sources, document ids, and
    the log's post-edits and adapted lines (lazy)."""
    for document in getattr(bundle, "documents", ()):
        yield document.id
        for stream in getattr(document, "references", ()) or ():
            yield from stream
        yield from getattr(document, "hypothesis", ()) or ()
        yield from getattr(document, "source", None) or ()
    for step in getattr(bundle, "steps", ()) or ():
        if isinstance(step.answer, str):
            yield step.answer
        lines = getattr(step.adapted, "lines", None)
        if lines:
            yield from lines.values()


_SCRIPT_BLOCKS = (
    ((0x0E00, 0x0E7F), "Thai"), ((0x0E80, 0x0EFF), "Lao"), ((0x1000, 0x109F), "Burmese"),
    ((0x1780, 0x17FF), "Khmer"), ((0x1100, 0x11FF), "Korean"), ((0x3130, 0x318F), "Korean"),
    ((0xAC00, 0xD7AF), "Korean"), ((0x3040, 0x30FF), "Japanese"), ((0x31F0, 0x31FF), "Japanese"),
    ((0x2E80, 0x2FDF), "Chinese/Japanese"), ((0x2FF0, 0x303F), "Chinese/Japanese"),
    ((0x3100, 0x312F), "Chinese/Japanese"), ((0x3200, 0x4DBF), "Chinese/Japanese"),
    ((0x4E00, 0x9FFF), "Chinese/Japanese"), ((0xF900, 0xFAFF), "Chinese/Japanese"),
    ((0xFE30, 0xFE4F), "Chinese/Japanese"), ((0xFF00, 0xFFEF), "Chinese/Japanese"),
    ((0x20000, 0x3FFFF), "Chinese/Japanese"),
    ((0x0900, 0x097F), "Devanagari"), ((0xA8E0, 0xA8FF), "Devanagari"),
    ((0x1CD0, 0x1CFF), "Devanagari"), ((0x0980, 0x09FF), "Bengali"),
    ((0x0A00, 0x0A7F), "Gurmukhi"), ((0x0A80, 0x0AFF), "Gujarati"), ((0x0B00, 0x0B7F), "Oriya"),
    ((0x0B80, 0x0BFF), "Tamil"), ((0x0C00, 0x0C7F), "Telugu"), ((0x0C80, 0x0CFF), "Kannada"),
    ((0x0D00, 0x0D7F), "Malayalam"), ((0x0D80, 0x0DFF), "Sinhala"),
    ((0x0600, 0x06FF), "Arabic"), ((0x0750, 0x077F), "Arabic"), ((0x08A0, 0x08FF), "Arabic"),
    ((0xFB50, 0xFDFF), "Arabic"), ((0xFE70, 0xFEFF), "Arabic"),
    ((0x0590, 0x05FF), "Hebrew"), ((0xFB1D, 0xFB4F), "Hebrew"), ((0x19E0, 0x19FF), "Khmer"),
    ((0x0530, 0x058F), "Armenian"), ((0x10A0, 0x10FF), "Georgian"), ((0x1C90, 0x1CBF), "Georgian"),
    ((0x1200, 0x139F), "Ethiopic"), ((0x0370, 0x03FF), "Greek"), ((0x1F00, 0x1FFF), "Greek"),
    ((0x0400, 0x052F), "Cyrillic"), ((0x0080, 0x024F), "Latin"), ((0x1E00, 0x1EFF), "Latin"),
    ((0x1F000, 0x1FAFF), "Emoji"), ((0x2600, 0x27BF), "Emoji"),
)


def script_of(char: str) -> str:
    """The script of `char` for a message: "Chinese/Japanese" (Han, CJK punctuation,
    full-width forms), "Japanese" (kana), "Korean", "Thai", "Devanagari", "Arabic", "Emoji"
    ...; "other" elsewhere."""
    code = ord(char)
    for (first, last), name in _SCRIPT_BLOCKS:
        if first <= code <= last:
            return name
    return "other"


def describe(char: str) -> str:
    """A character as a message names it, never by drawing it: "U+0915 DEVANAGARI LETTER KA"
    (`unicodedata.name`; "U+E000" for one without a name)."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def script_names(chars: Iterable[str]) -> list[str]:
    """The scripts of `chars` (`script_of`), most frequent first."""
    counts: dict[str, int] = {}
    for char in chars:
        name = script_of(char)
        counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda n: -counts[n])
