"""BLEU and chrF segment statistics through `llgui.core.mt.ngram_fast` against sacrebleu's own.

Every expected row is sacrebleu's `_extract_corpus_statistics` on the same segments; the rows
must be equal exactly. Corpora: repeated words, long segments (up to 400 words), 1-3
references (some missing), hypotheses that copy a reference (the shortcut), references that
differ from another only in spacing or case, empty and blank texts, unicode and punctuation.
"""
from __future__ import annotations

import os
import random

import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llgui.core.mt import ngram_fast
from llgui.core.mt.stats import make_metric

VOCAB = [
    "the", "The", "THE", "cat", "sat", "on", "a", "mat", "é", "É", "naïve", "Straße", "中文",
    "字", "x1", "3.5", "1,000", ".", ",", "!", "(hi)", "\"q\"", "don't", "-", "'s", "&amp;",
    "end.", "ÉTÉ", "a-b", "ß", "𝔘",
]
SEPARATORS = [" ", " ", " ", "  ", "\t", "\xa0", " \u3000 "]

# every BLEU tokenizer sacrebleu ships that needs no extra package, and the orders and
# options of chrF / chrF++
SETTINGS = [("bleu", {"tokenize": t}) for t in ("13a", "none", "intl", "char", "zh")] + [
    ("bleu", {"lowercase": True}),
    ("bleu", {"max_ngram_order": 2}),
    ("bleu", {"max_ngram_order": 6, "tokenize": "intl"}),
    ("chrf", {}),
    ("chrf", {"word_order": 1}),
    ("chrf", {"word_order": 2}),
    ("chrf", {"word_order": 2, "lowercase": True, "eps_smoothing": True}),
    ("chrf", {"char_order": 3, "word_order": 3}),
    ("chrf", {"whitespace": True}),
    ("chrf", {"whitespace": True, "eps_smoothing": True, "char_order": 8}),
]
IDS = [f"{m}-" + ",".join(f"{k}={v}" for k, v in s.items()) for m, s in SETTINGS]
# LLGUI_MT_EXAMPLES scales the example counts for a deeper search (as in test_mt_stats.py)
_SCALE = float(os.environ.get("LLGUI_MT_EXAMPLES", "1"))
CHECK = settings(max_examples=int(25 * _SCALE), deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _join(rng: random.Random, words: list[str]) -> str:
    if not words:
        return rng.choice(["", " ", "\t"])
    text = words[0]
    for word in words[1:]:
        text += rng.choice(SEPARATORS) + word
    return rng.choice(["", " "]) + text + rng.choice(["", " ", "  "])


def _text(rng: random.Random, long: bool) -> str:
    vocab = rng.sample(VOCAB, rng.randint(2, len(VOCAB)))  # small vocabularies repeat more
    return _join(rng, rng.choices(vocab, k=rng.randint(0, 400 if long else 12)))


def _variant(rng: random.Random, text: str) -> str:
    """A text near `text`: words dropped, moved, replaced, recased, or respaced."""
    words = text.split()
    kind = rng.randrange(5)
    if kind == 0 and words:
        del words[rng.randrange(len(words))]
    elif kind == 1 and len(words) > 2:
        i = rng.randrange(len(words) - 1)
        block = words[i:i + rng.randint(1, 5)]
        del words[i:i + len(block)]
        j = rng.randrange(len(words) + 1)
        words[j:j] = block
    elif kind == 2 and words:
        for _ in range(max(1, len(words) // 10)):
            words[rng.randrange(len(words))] = rng.choice(VOCAB)
    elif kind == 3:
        return text.upper() if rng.random() < 0.5 else text.lower()
    else:  # the same characters, the spaces elsewhere (equal character n-grams)
        squeezed = "".join(words)
        cuts = sorted(rng.sample(range(1, len(squeezed)), min(3, max(0, len(squeezed) - 1))))
        return " ".join(squeezed[a:b] for a, b in zip([0] + cuts, cuts + [len(squeezed)]))
    return _join(rng, words)


def corpus(seed: int, n_segments: int, n_refs: int) -> tuple[list[str], list[list]]:
    """(hypotheses, reference streams): references of a segment are often variants of each
    other; hypotheses copy a reference, vary one, or are unrelated."""
    rng = random.Random(seed)
    streams: list[list] = [[] for _ in range(n_refs)]
    hyps = []
    for _ in range(n_segments):
        long = rng.random() < 0.4
        first = _text(rng, long)
        refs = [first]
        for k in range(1, n_refs):
            refs.append(None if rng.random() < 0.15 else
                        _variant(rng, rng.choice([r for r in refs if r is not None]))
                        if rng.random() < 0.7 else _text(rng, long))
        for k, ref in enumerate(refs):
            streams[k].append(ref)
        present = [r for r in refs if r is not None]
        choice = rng.randrange(4)
        if choice == 0:
            hyps.append(rng.choice(present))  # a corrected segment: a reference's own text
        elif choice == 1:
            hyps.append(_text(rng, long))
        else:
            hyps.append(_variant(rng, rng.choice(present)))
    return hyps, streams


def _library_rows(name: str, options: dict, hyps, refs) -> np.ndarray:
    cls = {"bleu": sacrebleu.BLEU, "chrf": sacrebleu.CHRF}[name]
    return np.array(cls(**options)._extract_corpus_statistics(hyps, refs), dtype=np.float64)


@pytest.mark.parametrize(("name", "options"), SETTINGS, ids=IDS)
@CHECK
@given(seed=st.integers(0, 2**32 - 1), n_segments=st.integers(1, 5), n_refs=st.integers(1, 3))
def test_segment_rows_equal_the_library(name, options, seed, n_segments, n_refs):
    hyps, refs = corpus(seed, n_segments, n_refs)
    ours = make_metric(name, options).corpus_stats(hyps, refs)
    np.testing.assert_array_equal(ours, _library_rows(name, options, hyps, refs))


@pytest.mark.parametrize(("name", "options"), SETTINGS, ids=IDS)
def test_a_copy_of_any_reference_equals_the_library(name, options):
    """The shortcut for a hypothesis that is a reference's text, including references that
    tie with it (respaced, recased, repeated, empty) and copies of a later reference."""
    refs = [["a b c a b", "ab c", "", "x y", "The cat", " "],
            ["a bc a b", "a b c", "q", "x y", "the CAT", ""],
            ["a b c a b", "", "q", "y x", "The  cat", "z"]]
    metric = make_metric(name, options)
    for k in range(3):
        hyps = list(refs[k])
        np.testing.assert_array_equal(metric.corpus_stats(hyps, refs),
                                      _library_rows(name, options, hyps, refs))


@pytest.mark.parametrize(("name", "options"), [SETTINGS[0], SETTINGS[-1], SETTINGS[-5]],
                         ids=[IDS[0], IDS[-1], IDS[-5]])
def test_keys_too_wide_for_int64_fall_back_to_the_library(monkeypatch, name, options):
    monkeypatch.setattr(ngram_fast, "_KEY_LIMIT", 8)
    hyps, refs = corpus(5, 6, 2)
    metric = make_metric(name, options)
    info = metric.reference_info([refs[0][0], refs[1][0]])
    assert info.library is not None
    np.testing.assert_array_equal(metric.corpus_stats(hyps, refs),
                                  _library_rows(name, options, hyps, refs))


def test_keys_mark_unknown_symbols_and_separate_orders():
    ids = np.array([1, 2, 0, 2, 1], dtype=np.int64)
    keys = ngram_fast.keys(ids, 3, 3)
    # order 1: 1 2 - 2 1 | order 2: 12 - - 21 | order 3: - - -   (in base 3)
    assert keys.tolist() == [1, 2, -1, 2, 1, 5, -1, -1, 7, -1, -1, -1]
    ref = ngram_fast.table(np.array([1, 2, 2, 1], dtype=np.int64), 3, 3)
    assert ref.keys.tolist() == [1, 2, 5, 7, 8, 17, 25]
    assert ngram_fast.matches(keys, ref).tolist() == [4, 2, 0]
