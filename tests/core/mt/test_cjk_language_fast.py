"""Issue 36 (gate 5, start-up): `cjk_language` counts visible characters in C and looks up the
script of non-ASCII ones only (opening the demo looked up ~17,000 characters one by one). It
must decide exactly as the character-by-character walk it replaces, on any mix of scripts,
white space (Unicode's too), sample limits and non-text items."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from llgui.core.mt import script
from llgui.core.mt.script import cjk_language, script_of


def _walk(texts, limit=script._SAMPLE_CHARS):
    """The character-by-character count (the code before the fast path)."""
    counts = {"ja": 0, "ko": 0, "zh": 0}
    total = 0
    for text in texts:
        if not isinstance(text, str):
            continue
        for char in text[:script._SAMPLE_PER_TEXT]:
            if char.isspace():
                continue
            total += 1
            name = script_of(char)
            key = {"Japanese": "ja", "Korean": "ko", "Chinese/Japanese": "zh"}.get(name)
            if key:
                counts[key] += 1
        if total >= limit:
            break
    if total == 0 or 3 * sum(counts.values()) < total:
        return None
    if counts["ja"]:
        return "ja"
    return "ko" if counts["ko"] > counts["zh"] else "zh"


pieces = st.sampled_from(["the cat", "Straße", "东京", "とうきょう", "서울", " ", "\u3000",
                          "\u00a0", "\x1c", "\t\n", "é", "ü", "ไทย", "😀", "，", "ｱ", "x"])
texts = st.lists(st.one_of(st.lists(pieces, max_size=12).map("".join), st.none(),
                           st.integers()), max_size=12)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(texts, st.integers(1, 40))
def test_fast_count_decides_as_the_walk(items, limit):
    assert cjk_language(items, limit) == _walk(items, limit)
    assert cjk_language(items) == _walk(items)


def test_long_texts_are_cut_at_the_per_text_sample():
    head = "東" * script._SAMPLE_PER_TEXT
    items = [head + "a b c " * 3000, "서울 " * 50]
    assert cjk_language(items) == _walk(items) == "zh"
    items = ["a" * script._SAMPLE_PER_TEXT + "東" * 5000]
    assert cjk_language(items) is _walk(items) is None
