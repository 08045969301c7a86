"""Whole-file statistics (`MTMetric.batch_references` + `batch_stats`, llgui.core.mt.batch_stats)
against sacrebleu's own and against the per-segment path (`reference_info` + `segment_stats`).

Every expected row is sacrebleu's `_extract_corpus_statistics` on the same segments, computed
here; the batch rows must equal it exactly, and equal the per-segment rows. Corpora: random
WMT-like text with repeats, 1-3 references (some None), copies of references, empty and
blank texts, arbitrary unicode (astral characters, lone surrogates, newlines inside a
segment), long segments, vocabularies too wide for plain keys (the ladder of dense ids) and
key limits that nothing fits (the per-segment fallback).
"""
from __future__ import annotations

import random

import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llgui.core.mt import ngram_batch, ter_fast
from llgui.core.mt.stats import make_metric
from tests.core.mt.test_ngram_fast import SETTINGS as NGRAM_SETTINGS
from tests.core.mt.test_ngram_fast import _SCALE, corpus

TER_SETTINGS = [("ter", {}), ("ter", {"case_sensitive": True}),
                ("ter", {"normalized": True, "no_punct": True, "asian_support": True})]
SETTINGS = NGRAM_SETTINGS + TER_SETTINGS
IDS = [f"{m}-" + ",".join(f"{k}={v}" for k, v in s.items()) for m, s in SETTINGS]
CHECK = settings(max_examples=int(25 * _SCALE), deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_CLASSES = {"bleu": sacrebleu.BLEU, "chrf": sacrebleu.CHRF, "ter": sacrebleu.TER}


def library_rows(name: str, options: dict, hyps, refs) -> np.ndarray:
    rows = _CLASSES[name](**options)._extract_corpus_statistics(hyps, refs)
    return np.array(rows, dtype=np.float64).reshape(len(hyps), -1)


def segment_rows(metric, hyps, refs) -> np.ndarray:
    """The per-segment path, as the window's steps use it."""
    rows = [metric.segment_stats(h, metric.reference_info([s[i] for s in refs]))
            for i, h in enumerate(hyps)]
    return np.array(rows, dtype=np.float64).reshape(len(hyps), metric.n_stats)


def batch_rows(metric, hyps, refs) -> np.ndarray:
    return metric.batch_stats(hyps, metric.batch_references(refs))


def assert_all_equal(name, options, hyps, refs) -> None:
    metric = make_metric(name, options)
    expected = library_rows(name, options, hyps, refs)
    ours = batch_rows(metric, hyps, refs)
    np.testing.assert_array_equal(ours, expected)
    np.testing.assert_array_equal(ours, segment_rows(metric, hyps, refs))
    np.testing.assert_allclose(metric.score(ours.sum(axis=0)),
                               _CLASSES[name](**options).corpus_score(hyps, refs).score,
                               rtol=0, atol=1e-9)


def short_corpus(seed: int, n_segments: int, n_refs: int):
    """`corpus` without its 400-word segments (sacrebleu's pure-Python TER takes seconds)."""
    hyps, refs = corpus(seed, n_segments, n_refs)
    rng = random.Random(seed)

    def cut(text):
        return text if text is None or len(text.split()) <= 30 else " ".join(
            text.split()[:rng.randint(0, 30)])

    return [cut(h) for h in hyps], [[cut(r) for r in s] for s in refs]


@pytest.mark.parametrize(("name", "options"), SETTINGS, ids=IDS)
@CHECK
@given(seed=st.integers(0, 2**32 - 1), n_segments=st.integers(1, 12), n_refs=st.integers(1, 3))
def test_batch_rows_equal_the_library_and_the_segment_path(name, options, seed, n_segments,
                                                            n_refs):
    make = short_corpus if name == "ter" else corpus
    hyps, refs = make(seed, n_segments, n_refs)
    assert_all_equal(name, options, hyps, refs)


_UNICODE = st.text(st.characters(codec=None, exclude_categories=["Cs"]) | st.sampled_from(
    [" ", " ", "\n", "\t", "\ud800", "\udc00", "𝔘", "中", "é", "\u0301", ".", "a", "A"]),
    max_size=30)


@pytest.mark.parametrize(("name", "options"), [SETTINGS[k] for k in (0, 2, 8, 12, 14, 15, 17)],
                         ids=[IDS[k] for k in (0, 2, 8, 12, 14, 15, 17)])
@CHECK
@given(data=st.data(), n_segments=st.integers(1, 5), n_refs=st.integers(1, 2))
def test_arbitrary_unicode(name, options, data, n_segments, n_refs):
    refs = [[data.draw(_UNICODE) for _ in range(n_segments)] for _ in range(n_refs)]
    hyps = [data.draw(st.sampled_from([refs[0][i], refs[-1][i]]) | _UNICODE)
            for i in range(n_segments)]
    assert_all_equal(name, options, hyps, refs)


@pytest.mark.parametrize(("name", "options"), SETTINGS, ids=IDS)
def test_awkward_segments(name, options):
    """Empty, blank and copied segments, None references, astral and surrogate characters,
    a newline inside a segment (the character the batch joins segments with)."""
    refs = [["", " ", "a b a b", "x\ny z", "\ud800 q", "𝔘𝔘 𝔘", "the cat . the", "a"],
            ["q", None, "a b", None, "\ud800  q", "", "The cat.", None]]
    hyps = ["", "a", "a b a b", "x\ny z", "\ud800 q", "𝔘 𝔘𝔘", "the cat", "  "]
    assert_all_equal(name, options, hyps, refs)


def _wide(seed: int, n_segments: int, pool: list[str], sep: str, longest: int
          ) -> tuple[list, list]:
    rng = random.Random(seed)
    refs = [sep.join(rng.choices(pool, k=rng.randint(0, longest))) for _ in range(n_segments)]
    hyps = []
    for ref in refs:
        words = ref.split(sep) if ref else []
        if words and rng.random() < 0.8:
            del words[rng.randrange(len(words))]
            words.insert(rng.randrange(len(words) + 1), rng.choice(pool))
        hyps.append(sep.join(words))
    return hyps, [refs]


def test_a_wide_vocabulary_takes_the_ladder_for_bleu():
    """About 15,000 distinct tokens: base-(V+1) 4-gram keys of 600 segments pass 2^62."""
    rng = random.Random(3)
    hyps, refs = _wide(1, 600, [f"t{rng.randrange(10**6)}" for _ in range(30000)], " ", 80)
    metric = make_metric("bleu")
    prepared = metric.batch_references(refs)
    assert isinstance(prepared.data.indexer, ngram_batch.Ladder)
    assert_all_equal("bleu", {}, hyps, refs)


def test_a_wide_alphabet_takes_the_ladder_for_chrf():
    """Thousands of distinct characters: base-(V+1) 6-gram keys pass 2^62."""
    rng = random.Random(4)
    pool = ["".join(chr(0x4E00 + rng.randrange(8000)) for _ in range(rng.randint(1, 3)))
            for _ in range(6000)]
    hyps, refs = _wide(2, 200, pool, " ", 20)
    for options in ({}, {"word_order": 2}):
        prepared = make_metric("chrf", options).batch_references(refs)
        assert isinstance(prepared.data.chars, ngram_batch.Ladder)
        assert_all_equal("chrf", options, hyps, refs)


@pytest.mark.parametrize(("name", "options"), [SETTINGS[0], SETTINGS[10], SETTINGS[12]],
                         ids=[IDS[0], IDS[10], IDS[12]])
def test_keys_that_fit_nowhere_fall_back_to_the_segment_path(monkeypatch, name, options):
    monkeypatch.setattr(ngram_batch, "_KEY_LIMIT", 8)
    hyps, refs = corpus(5, 6, 2)
    metric = make_metric(name, options)
    assert isinstance(metric.batch_references(refs), list)
    assert_all_equal(name, options, hyps, refs)


def test_ter_without_numba_is_the_librarys(monkeypatch):
    monkeypatch.setattr(ter_fast, "numba", None)
    hyps, refs = short_corpus(9, 8, 2)
    assert_all_equal("ter", {}, hyps, refs)


def test_ter_pairs_past_the_matrix_limit_are_the_librarys(monkeypatch):
    monkeypatch.setattr(ter_fast, "MAX_CELLS", 30)
    hyps, refs = short_corpus(11, 10, 2)
    assert_all_equal("ter", {}, hyps, refs)


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_a_segment_without_reference_is_refused(name):
    with pytest.raises(ValueError, match="no reference"):
        make_metric(name).corpus_stats(["a", "b"], [["a", None], [None, None]])


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter", "wer"])
def test_no_segment_gives_no_row(name):
    metric = make_metric(name)
    assert metric.corpus_stats([], [[]]).shape == (0, metric.n_stats)
    with pytest.raises(ValueError):
        metric.batch_stats(["a"], metric.batch_references([[]]))


def test_batch_references_count_references_for_the_signature():
    metric = make_metric("bleu")
    metric.batch_references([["a", "b"], ["a", None]])
    assert "nrefs:var" in metric.signature
    library = sacrebleu.BLEU()
    library.corpus_score(["a", "b"], [["a", "b"], ["a", None]])
    assert metric.signature == library.get_signature().format()


@pytest.mark.parametrize(("name", "options"), [SETTINGS[k] for k in (0, 5, 8, 10, 14)],
                         ids=[IDS[k] for k in (0, 5, 8, 10, 14)])
@pytest.mark.parametrize("seed", range(3))
def test_the_numpy_search_without_numba_gives_the_same_rows(monkeypatch, name, options, seed):
    """Table.matches merges the sorted keys with the table in a numba kernel; without numba,
    it searches the table with numpy's searchsorted."""
    hyps, refs = corpus(seed, 20, 3)
    assert ngram_batch._merge_kernel() is not None
    compiled = batch_rows(make_metric(name, options), hyps, refs)
    monkeypatch.setattr(ngram_batch, "_KERNEL", [None])
    np.testing.assert_array_equal(batch_rows(make_metric(name, options), hyps, refs), compiled)
    assert_all_equal(name, options, hyps, refs)
