"""The MT statistics adapter against the libraries' own full computations.

Every expected number comes from sacrebleu's `corpus_score` or `jiwer.wer`, computed in the test
on the same randomised corpus: small vocabularies (so n-grams match), 1-3 references, empty
segments, punctuation, unicode, odd whitespace.
"""
from __future__ import annotations

import os

import jiwer
import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llgui.core.mt.stats import (
    METRIC_NAMES,
    BLEUMetric,
    llmt_bleu,
    llmt_document_stats,
    llmt_vector,
    make_metric,
    word_edits,
)

# Words the generated corpora use. Greek letters, 'ж' and '~' never occur: tests build
# strictly wrong sentences out of them.
VOCAB = [
    "the", "The", "cat", "sat", "on", "a", "mat", "dog", "ran", "é", "naïve", "Straße",
    "中文", "字", "x1", "3.5", "1,000", ".", ",", "!", "?", "(hi)", "\"q\"", "don't", "-",
    "'s", "&amp;", "end.", "A", "ÉTÉ",
]
SEPARATORS = [" ", " ", " ", "  ", "\t", " \t "]

# (metric, settings): sacrebleu's defaults and non-default settings users will pick
SETTINGS = [
    ("bleu", {}),
    ("bleu", {"lowercase": True}),
    ("bleu", {"tokenize": "char"}),
    ("bleu", {"tokenize": "intl"}),
    ("bleu", {"tokenize": "none", "smooth_method": "floor"}),
    ("bleu", {"smooth_method": "add-k", "effective_order": True}),
    ("bleu", {"smooth_method": "none", "max_ngram_order": 3}),
    ("chrf", {}),
    ("chrf", {"word_order": 2}),
    ("chrf", {"word_order": 2, "eps_smoothing": True, "lowercase": True}),
    ("chrf", {"whitespace": True, "char_order": 4}),
    ("ter", {}),
    ("ter", {"case_sensitive": True}),
    ("ter", {"normalized": True, "no_punct": True, "asian_support": True}),
    ("wer", {}),
    ("wer", {"lowercase": True, "no_punct": True}),
]
SETTING_IDS = [f"{m}-" + ",".join(f"{k}={v}" for k, v in s.items()) for m, s in SETTINGS]


# The strategies are built once, here, and draw whole pieces at a time: a (separator, word)
# pair in one draw, the padding in one draw. Building `sentences()` afresh for every segment
# and drawing separator and word apart made hypothesis validate and draw three times as often:
# generating the corpora took two thirds of this module's time, the libraries a sixth. The
# sentences drawn have the same distribution as before (list length, words and separators
# uniform, half of them padded with one of the six paddings).
_WORD = st.sampled_from(VOCAB)
_WORDS = st.lists(st.sampled_from([(sep, word) for sep in SEPARATORS for word in VOCAB]),
                  max_size=10)
_BLANK = st.sampled_from(["", " ", "  "])
_PADDINGS = [(before, after) for before in ("", " ") for after in ("", " ", "  ")]
_PADDING = st.sampled_from([("", "")] * len(_PADDINGS) + _PADDINGS)


@st.composite
def _sentences(draw) -> str:
    words = draw(_WORDS)  # each with the separator before it, the first one's unused
    if not words:
        return draw(_BLANK)
    text = words[0][1] + "".join(sep + word for sep, word in words[1:])
    before, after = draw(_PADDING)
    return before + text + after


_SENTENCE = _sentences()


def sentences() -> st.SearchStrategy[str]:
    return _SENTENCE


_CHANGES = st.tuples(st.booleans(), st.booleans(), st.booleans())


def _near(draw, reference: str) -> str:
    """A hypothesis close to `reference` (words dropped, swapped, replaced), so that higher
    n-grams match too."""
    words = reference.split()
    drop, swap, replace = draw(_CHANGES)
    if words and drop:
        del words[draw(st.integers(0, len(words) - 1))]
    if len(words) > 1 and swap:
        i = draw(st.integers(0, len(words) - 2))
        words[i], words[i + 1] = words[i + 1], words[i]
    if words and replace:
        words[draw(st.integers(0, len(words) - 1))] = draw(_WORD)
    return " ".join(words)


@st.composite
def near(draw, reference: str) -> str:
    return _near(draw, reference)


_KIND = st.sampled_from(("other", "near", "same"))


@st.composite
def corpora(draw, max_segments: int = 6, max_refs: int = 3):
    """(hypotheses, references in sacrebleu's layout)."""
    n = draw(st.integers(1, max_segments))
    n_refs = draw(st.integers(1, max_refs))
    streams = [[draw(_SENTENCE) for _ in range(n)] for _ in range(n_refs)]
    hyps = []
    for i in range(n):
        source = streams[draw(st.integers(0, n_refs - 1))][i]
        kind = draw(_KIND)
        hyps.append(draw(_SENTENCE) if kind == "other" else
                    _near(draw, source) if kind == "near" else source)
    return hyps, streams


# LLGUI_MT_EXAMPLES scales the example counts for a deeper search (e.g. 10 -> ten times more)
_SCALE = float(os.environ.get("LLGUI_MT_EXAMPLES", "1"))
FAST = settings(max_examples=int(60 * _SCALE), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LIGHT = settings(FAST, max_examples=int(25 * _SCALE))


@pytest.mark.parametrize(("name", "options"), SETTINGS, ids=SETTING_IDS)
@FAST
@given(corpus=corpora())
def test_pooled_statistics_equal_the_library(name, options, corpus):
    hyps, refs = corpus
    metric = make_metric(name, options)
    stats = metric.corpus_stats(hyps, refs)
    assert stats.shape == (len(hyps), metric.n_stats)
    assert stats.dtype == np.float64
    expected = library(name, options, hyps, refs)
    assert metric.score(stats.sum(axis=0)) == pytest.approx(expected, abs=1e-9)
    assert metric.library_score(hyps, refs) == pytest.approx(expected, abs=1e-9)


def library(name, options, hyps, refs) -> float:
    """The reference implementation, called the documented public way."""
    if name == "wer":
        steps = []
        if options.get("lowercase"):
            steps.append(jiwer.ToLowerCase())
        if options.get("no_punct"):
            steps.append(jiwer.RemovePunctuation())
        transform = jiwer.Compose(steps + [jiwer.RemoveMultipleSpaces(), jiwer.Strip(),
                                           jiwer.ReduceToListOfListOfWords()])
        return 100 * jiwer.wer(refs[0], hyps, reference_transform=transform,
                               hypothesis_transform=transform)
    cls = {"bleu": sacrebleu.BLEU, "chrf": sacrebleu.CHRF, "ter": sacrebleu.TER}[name]
    return cls(**options).corpus_score(hyps, refs).score


@pytest.mark.parametrize(("name", "options"), SETTINGS, ids=SETTING_IDS)
@LIGHT
@given(corpus=corpora(), data=st.data())
def test_segment_stats_from_cached_reference_info(name, options, corpus, data):
    # rows computed one segment at a time from reusable reference info add up to the corpus
    hyps, refs = corpus
    metric = make_metric(name, options)
    infos = [metric.reference_info([s[i] for s in refs]) for i in range(len(hyps))]
    other = [data.draw(sentences()) for _ in hyps]
    rows = np.array([metric.segment_stats(h, info) for h, info in zip(other, infos)])
    assert np.array_equal(rows, metric.corpus_stats(other, refs))
    expected = library(name, options, other, refs)
    assert metric.score(rows.sum(axis=0)) == pytest.approx(expected, abs=1e-9)
    # the verification's library scorer, one hypothesis after another (segments it has seen
    # at the same position are not computed again): the library's corpus score of each
    scorer = metric.library_scorer(refs)
    first = scorer(hyps)
    if name == "wer":   # jiwer's own wer: no statistics to remember
        assert first == pytest.approx(library(name, options, hyps, refs), abs=1e-9)
    else:
        assert first == library(name, options, hyps, refs)
        assert scorer(other) == expected
        assert scorer(hyps) == first


@pytest.mark.parametrize(("name", "options"), SETTINGS, ids=SETTING_IDS)
@LIGHT
@given(corpus=corpora())
def test_impaired_rows_keep_what_the_paper_keeps(name, options, corpus):
    hyps, refs = corpus
    metric = make_metric(name, options)
    stats = metric.corpus_stats(hyps, refs)
    bad = metric.impaired(stats)
    assert bad.shape == stats.shape
    if name == "bleu":
        order = metric.order
        assert np.array_equal(bad[:, :2], stats[:, :2])  # hyp and ref lengths
        assert not bad[:, 2:2 + order].any()  # no match
        assert np.array_equal(bad[:, 2 + order:], stats[:, 2 + order:])  # totals
    elif name == "chrf":
        assert not bad[:, 2::3].any()
        assert np.array_equal(bad[:, 0::3], stats[:, 0::3])
        assert np.array_equal(bad[:, 1::3], stats[:, 1::3])
    else:
        assert np.array_equal(bad[:, 0], stats[:, 1])  # edits = reference length
        assert np.array_equal(bad[:, 1], stats[:, 1])
    if metric.higher_is_better:
        # fewer matches never raise BLEU or chrF. (TER/WER have no such guarantee: a long
        # hypothesis can need more edits than its reference has words, the paper's bound.)
        assert metric.score(bad.sum(axis=0)) <= metric.score(stats.sum(axis=0)) + 1e-12


@pytest.mark.parametrize(("name", "options"), SETTINGS, ids=SETTING_IDS)
def test_signature_is_the_library_signature(name, options):
    hyps = ["the cat sat .", "a dog"]
    refs = [["the cat sat on the mat .", "a dog ran"], ["The cat sat.", "dog"]]
    metric = make_metric(name, options)
    assert metric.signature.startswith("nrefs:?")  # nothing seen yet: unknown, said so
    metric.corpus_stats(hyps, refs)
    if name == "wer":
        assert metric.library_scorer(refs)(hyps) == library(name, options, hyps, refs)
        assert metric.signature == (
            "nrefs:2|ref:first|case:" + ("lc" if options.get("lowercase") else "mixed")
            + "|punct:" + ("no" if options.get("no_punct") else "yes")
            + "|tf:" + ("ToLowerCase+RemovePunctuation+" if options else "")
            + "RemoveMultipleSpaces+Strip+ReduceToListOfListOfWords"
            + f"|jiwer:{jiwer_version()}")
        return
    cls = {"bleu": sacrebleu.BLEU, "chrf": sacrebleu.CHRF, "ter": sacrebleu.TER}[name]
    reference = cls(**options)
    expected = reference.corpus_score(hyps, refs).score
    assert metric.signature == str(reference.get_signature())
    assert f"version:{sacrebleu.__version__}" in metric.signature
    # the library with the references processed once (what the verification uses) gives the
    # library's corpus score, hypothesis after hypothesis
    scorer = metric.library_scorer(refs)
    assert scorer(hyps) == expected
    assert scorer(hyps[::-1]) == cls(**options).corpus_score(hyps[::-1], refs).score
    # a segment changed, then back: what it remembers of the others changes nothing
    changed = [hyps[0] + " mat", hyps[1]]
    assert scorer(changed) == cls(**options).corpus_score(changed, refs).score
    assert scorer(hyps) == expected


def jiwer_version() -> str:
    from importlib.metadata import version

    return version("jiwer")


def test_signature_says_a_variable_number_of_references():
    metric = make_metric("bleu")
    metric.reference_info(["a b"])
    metric.reference_info(["a b", "c d"])
    assert metric.signature.startswith("nrefs:var|")
    reference = sacrebleu.BLEU()
    reference.corpus_score(["a", "b"], [["a b", "c d"], [None, "d"]])
    assert metric.signature == str(reference.get_signature())


def test_default_signatures_match_sacrebleu_documentation():
    # the strings sacrebleu 2.x documents for its defaults, one reference
    for name, expected in [
        ("bleu", "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:"),
        ("chrf", "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:"),
        ("ter", "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:"),
    ]:
        metric = make_metric(name)
        metric.reference_info(["x"])
        assert metric.signature == expected + sacrebleu.__version__


def test_settings_are_routed_by_sacrebleu_argument_names():
    shared = {"lowercase": True, "tokenize": "char", "case_sensitive": True, "word_order": 2,
              "trg_lang": "zh"}
    bleu = make_metric("bleu", shared)
    chrf = make_metric("chrf", shared)
    ter = make_metric("ter", shared)
    assert bleu.settings == {"lowercase": True, "tokenize": "char", "trg_lang": "zh"}
    assert chrf.settings == {"lowercase": True, "word_order": 2}
    assert ter.settings == {"case_sensitive": True}
    assert chrf.label == "chrF2++"
    # trg_lang alone picks sacrebleu's Chinese tokenizer, as BLEU(trg_lang="zh") does
    zh = make_metric("bleu", {"trg_lang": "zh"})
    zh.reference_info(["中文"])
    assert "tok:zh" in zh.signature


@pytest.mark.parametrize(
    ("name", "options"),
    [("bleu", {"tokenize": "no-such-tokenizer"}), ("bleu", {"smooth_method": "magic"}),
     ("wer", {"lowercase": "yes"}), ("rouge", {})],
)
def test_bad_metric_or_settings_raise_value_error(name, options):
    with pytest.raises(ValueError):
        make_metric(name, options)


def test_metric_names():
    assert METRIC_NAMES == ("bleu", "chrf", "ter", "wer")
    assert [make_metric(n).higher_is_better for n in METRIC_NAMES] == [True, True, False, False]


def test_mismatched_streams_are_refused():
    with pytest.raises(ValueError, match="2 segments"):
        make_metric("bleu").corpus_stats(["a"], [["a", "b"]])


def test_errors_feed_the_minimal_supervision_rate():
    hyps, refs = ["a b c", "d"], [["a x c", "d e f"]]
    ter = make_metric("ter")
    wer = make_metric("wer")
    out = jiwer.process_words(refs[0], hyps)
    assert wer.errors(wer.corpus_stats(hyps, refs).sum(axis=0)) == (
        out.substitutions + out.deletions + out.insertions, 6)
    score = sacrebleu.TER().corpus_score(hyps, refs)
    assert ter.errors(ter.corpus_stats(hyps, refs).sum(axis=0)) == (score.num_edits,
                                                                     score.ref_length)
    assert make_metric("bleu").errors(np.zeros(10)) is None


def test_wer_of_an_all_empty_reference_follows_jiwer():
    # jiwer's convention: no reference word at all -> WER is the number of insertions
    hyps, refs = ["a b", ""], [["", " "]]
    wer = make_metric("wer")
    expected = 100 * jiwer.wer(refs[0], hyps)
    assert expected == 200
    assert wer.score(wer.corpus_stats(hyps, refs).sum(axis=0)) == expected


@settings(max_examples=200, deadline=None)
@given(a=st.lists(st.sampled_from("abcde"), max_size=12),
       b=st.lists(st.sampled_from("abcdef"), max_size=12))
def test_word_edits_is_jiwer_s_plus_d_plus_i(a, b):
    out = jiwer.process_words(" ".join(a) or "x", " ".join(b) or "x")
    expected = out.substitutions + out.deletions + out.insertions
    assert word_edits(a or ["x"], b or ["x"]) == expected


def test_bleu_components_are_sacrebleu_s():
    hyps, refs = ["the cat sat on a mat", "a dog"], [["the cat sat on the mat", "the dog ran"]]
    metric = make_metric("bleu")
    parts = metric.components(metric.corpus_stats(hyps, refs).sum(axis=0))
    score = sacrebleu.BLEU().corpus_score(hyps, refs)
    assert [parts[f"p{n}"] for n in range(1, 5)] == score.precisions
    assert (parts["bp"], parts["hyp_len"], parts["ref_len"]) == (score.bp, score.sys_len,
                                                                 score.ref_len)


# ------------------------------------------------------------------------------------------------
# llmt mode


def _bleu_rows(hyps, refs):
    metric = make_metric("bleu")
    return metric, metric.corpus_stats(hyps, refs)


def test_llmt_removes_the_credit_of_a_copied_reference():
    # a system that outputs the reference it was given for segment 0 gets no credit for it:
    # with n = its whitespace words, llmt BLEU equals BLEU of the corpus where segment 0
    # matches nothing (13a splits no word of this reference further)
    refs = [["the cat sat on the mat", "a dog ran away", "it was late"]]
    hyps = ["the cat sat on the mat", "a dog ran", "it was late today"]
    metric, rows = _bleu_rows(hyps, refs)
    vector = llmt_vector([len(refs[0][0].split())], 4)
    assert vector.tolist() == [6, 5, 4, 3]
    wrong = ["ж ж ж ж ж ж", hyps[1], hyps[2]]
    expected = sacrebleu.BLEU().corpus_score(wrong, refs).score
    assert llmt_bleu(rows, vector) == pytest.approx(expected, abs=1e-9)
    assert llmt_bleu(rows, vector, metric) == pytest.approx(expected, abs=1e-9)


def test_llmt_floors_per_document_not_per_segment():
    refs = [["a b c d e", "a b"]]
    hyps = ["a b x", "a b"]
    metric, rows = _bleu_rows(hyps, refs)
    assert rows[:, 2:6].tolist() == [[2, 1, 0, 0], [2, 1, 0, 0]]
    # the document has (4, 2, 0, 0) matches; n = 5 removes (5, 4, 3, 2): nothing is left,
    # where a per-segment floor would have kept segment 1's matches
    assert llmt_bleu(rows, llmt_vector([5], 4)) == pytest.approx(
        sacrebleu.BLEU().corpus_score(["x y z", "q r"], refs).score, abs=1e-9)
    # n = 2 removes (2, 1, 0, 0): the document keeps (2, 1, 0, 0)
    kept = llmt_document_stats(rows, llmt_vector([2], 4), metric)
    assert kept[2:6].tolist() == [2, 1, 0, 0] and kept[:2].tolist() == rows.sum(axis=0)[:2].tolist()
    # nothing requested: plain BLEU
    assert llmt_bleu(rows, llmt_vector([], 4)) == pytest.approx(
        sacrebleu.BLEU().corpus_score(hyps, refs).score)


def test_llmt_refuses_bad_input():
    metric, rows = _bleu_rows(["a"], [["a"]])
    with pytest.raises(ValueError):
        llmt_vector([-1], 4)
    with pytest.raises(ValueError):
        llmt_bleu(rows[:, :4], llmt_vector([1], 4))
    assert isinstance(metric, BLEUMetric)


def test_sacrebleu_version_is_in_the_tested_range():
    from llgui.core.mt.stats import SACREBLEU_RANGE

    version = tuple(int(p) for p in sacrebleu.__version__.split(".")[:2])
    assert SACREBLEU_RANGE[0] <= version < SACREBLEU_RANGE[1]


@pytest.mark.parametrize("options", [{}, {"case_sensitive": True}, {"normalized": True},
                                     {"no_punct": True}, {"asian_support": True}])
def test_ter_of_a_hypothesis_equal_to_a_reference_is_the_librarys(options):
    """TERMetric skips the shift search when the hypothesis is one of the references."""
    import sacrebleu

    from llgui.core.mt.stats import make_metric

    refs = [["The cat sat on the mat .", "A dog, barking!", "Wörter und Zeichen: «ja»."],
            ["the cat is on the mat", "A  dog , barking !", "Wörter und Zeichen"]]
    metric = make_metric("ter", options)
    for i in range(3):
        for r in range(2):
            hyp = refs[r][i]
            row = metric.segment_stats(hyp, metric.reference_info([refs[0][i], refs[1][i]]))
            library = sacrebleu.TER(**options)._extract_corpus_statistics([hyp], [[refs[0][i]], [refs[1][i]]])
            assert row.tolist() == [float(x) for x in library[0]], (options, i, r)
    # and a corpus of such rows scores as sacrebleu does
    hyps = [refs[1][0], refs[0][1], "something else entirely"]
    stats = metric.corpus_stats(hyps, refs)
    assert metric.score(stats.sum(axis=0)) == pytest.approx(
        sacrebleu.TER(**options).corpus_score(hyps, refs).score, abs=1e-9)
