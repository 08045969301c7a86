"""The compiled TER engine against sacrebleu's own TER, edit count for edit count.

Every expected count comes from sacrebleu (`lib_ter.translation_edit_rate`, or `TER` with the
same options on the same strings), computed in the test. Sequences are random token lists
with many repeats (small vocabularies, so the shift search has ambiguous matches to choose
between), derived from the reference by block shifts, insertions, deletions and
substitutions; lengths up to 400 words (few examples there: sacrebleu takes seconds each),
and sentences of cased, punctuated, CJK and XML-escaped tokens for every tokenizer option.
"""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics.lib_ter import translation_edit_rate as library_ter

from llgui.core.mt import ter_fast
from llgui.core.mt.stats import make_metric

pytestmark = pytest.mark.skipif(not ter_fast.available(), reason="numba is not installed")


def derive(ref: list[str], rng: random.Random, vocab: list[str], n_edits: int) -> list[str]:
    """A hypothesis made from `ref` by block shifts (the moves TER credits as one edit),
    insertions, deletions and substitutions."""
    hyp = list(ref)
    for _ in range(n_edits):
        kind = rng.random()
        if kind < 0.35 and len(hyp) > 2:
            i = rng.randrange(len(hyp))
            block = hyp[i:i + rng.randint(1, 12)]
            del hyp[i:i + len(block)]
            j = rng.randrange(len(hyp) + 1)
            hyp[j:j] = block
        elif kind < 0.6:
            hyp.insert(rng.randrange(len(hyp) + 1), rng.choice(vocab))
        elif kind < 0.8 and hyp:
            del hyp[rng.randrange(len(hyp))]
        elif hyp:
            hyp[rng.randrange(len(hyp))] = rng.choice(vocab)
    return hyp


@st.composite
def token_pairs(draw, min_len: int, max_len: int) -> tuple[list[str], list[str]]:
    # sequences are generated from drawn integers (cheap for hypothesis at 400 tokens)
    n = draw(st.integers(min_len, max_len))
    vocab = [f"w{k}" for k in range(draw(st.integers(1, 40)))]
    rng = random.Random(draw(st.integers(0, 2 ** 32)))
    ref = [rng.choice(vocab) for _ in range(n)]
    edits = draw(st.integers(0, max(2, n // 6)))
    hyp = derive(ref, rng, vocab + ["new"], edits)
    if draw(st.booleans()):  # sometimes the roles of the two sides are swapped
        ref, hyp = hyp, ref
    return hyp, ref


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(token_pairs(0, 40))
def test_short_sequences_equal_sacrebleu(pair):
    hyp, ref = pair
    assert ter_fast.translation_edit_rate(hyp, ref) == library_ter(hyp, ref)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(token_pairs(40, 100))
def test_medium_sequences_equal_sacrebleu(pair):
    hyp, ref = pair
    assert ter_fast.translation_edit_rate(hyp, ref) == library_ter(hyp, ref)


@pytest.mark.parametrize(("n", "words", "seed"), [(100, 2, 3), (100, 3, 0)])
def test_long_sequences_equal_sacrebleu_when_its_shift_budget_runs_out(monkeypatch, n, words,
                                                                        seed):
    """sacrebleu stops searching for shifts after 1,000 candidates (`_MAX_SHIFT_CANDIDATES`):
    in the first round (100 words over 2 types) and in the second (over 3 types); the counts
    are sacrebleu's own, read from its `_shift`. (Whether a pair reaches the budget depends on
    its repeats more than on its length: random 300-400-word pairs took 0.01-12 s of sacrebleu
    and often did not; gate 10 compares 5-400-word segments and whole WMT23 systems.)"""
    from sacrebleu.metrics import lib_ter

    checked = []
    shift = lib_ter._shift

    def counting(*args):
        out = shift(*args)
        checked.append(out[2])
        return out

    monkeypatch.setattr(lib_ter, "_shift", counting)
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(words)]
    ref = [rng.choice(vocab) for _ in range(n)]
    hyp = derive(ref, rng, vocab + ["new"], rng.randint(n // 10, n // 6))
    assert ter_fast.translation_edit_rate(hyp, ref) == library_ter(hyp, ref)
    assert max(checked) >= lib_ter._MAX_SHIFT_CANDIDATES


def test_very_unequal_lengths_widen_the_beam():
    # a reference 60x longer than the hypothesis: sacrebleu widens the beam past 25 cells
    rng = random.Random(3)
    vocab = ["a", "b", "c", "d"]
    for n_hyp, n_ref in ((2, 120), (3, 250), (120, 2), (1, 1), (1, 7), (7, 1)):
        ref = [rng.choice(vocab) for _ in range(n_ref)]
        hyp = [rng.choice(vocab) for _ in range(n_hyp)]
        assert ter_fast.translation_edit_rate(hyp, ref) == library_ter(hyp, ref)


def test_empty_sides_follow_sacrebleu():
    for hyp, ref in (([], []), (["a", "b"], []), ([], ["a", "b", "c"])):
        assert ter_fast.translation_edit_rate(hyp, ref) == library_ter(hyp, ref)


def test_known_counts():
    # a block moved to the front: one shift, no other edit (hand-checked against tercom's rule)
    assert ter_fast.translation_edit_rate("c d a b".split(), "a b c d".split()) == (1, 4)
    assert ter_fast.translation_edit_rate("a b c d".split(), "a b c d".split()) == (0, 4)
    assert ter_fast.translation_edit_rate("x y".split(), "a b c".split()) == (3, 3)


def test_fallback_to_sacrebleu(monkeypatch):
    hyp, ref = "d c b a x a b".split(), "a b c d a b".split()
    expected = library_ter(hyp, ref)
    monkeypatch.setattr(ter_fast, "numba", None)        # numba missing
    assert ter_fast.translation_edit_rate(hyp, ref) == expected
    monkeypatch.undo()
    monkeypatch.setattr(ter_fast, "MAX_CELLS", 10)      # a segment too large for the matrix
    assert ter_fast.translation_edit_rate(hyp, ref) == expected


# -- through TERMetric, with sacrebleu's tokenisation, for every option ------------------------

WORDS = ["the", "The", "THE", "cat", "Cat", "sat", ".", ",", "!", "?", "(", ")", ":", ";",
         "\"", "don't", "it's", "3.5", "1,000", "9-5", "&amp;", "&quot;", "&lt;b&gt;", "中文",
         "字", "。", "、", "，", "（注）", "カタカナ", "ひらがな", "Straße", "ÉTÉ", "-", "'s"]
OPTIONS = [dict(zip(("normalized", "no_punct", "asian_support", "case_sensitive"), flags))
           for flags in itertools.product((False, True), repeat=4)]


@st.composite
def sentence_pairs(draw) -> tuple[str, list[str]]:
    rng = random.Random(draw(st.integers(0, 2 ** 32)))
    n = draw(st.integers(0, 30))
    ref = [rng.choice(WORDS) for _ in range(n)]
    hyp = derive(ref, rng, WORDS, draw(st.integers(0, 6)))
    second = derive(ref, rng, WORDS, draw(st.integers(0, 4)))
    refs = [" ".join(ref)] + ([" ".join(second)] if draw(st.booleans()) else [])
    glue = draw(st.sampled_from([" ", "", "  "]))  # "" glues tokens: tokenizers split them
    return glue.join(hyp), refs


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(k for k, v in o.items() if v)
                         or "default")
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sentence_pairs())
def test_segment_statistics_equal_sacrebleu_for_every_option(options, case):
    hyp, refs = case
    metric = make_metric("ter", options)
    ours = metric.segment_stats(hyp, metric.reference_info(refs))
    library = sacrebleu.TER(**options)
    theirs = library._compute_segment_statistics(
        library._preprocess_segment(hyp),
        library._extract_reference_info([library._preprocess_segment(r) for r in refs]))
    assert ours.tolist() == [float(x) for x in theirs]
    assert np.isfinite(ours).all()
