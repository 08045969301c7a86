"""Reference information made once for every track of the same settings
(`llgui.core.mt.track.shared_reference_info`): two systems on one reference share it, a metric
with other settings (another tokenizer) never does, and each system's score stays sacrebleu's."""
from __future__ import annotations

import pytest
import sacrebleu

from llgui.core.mt.stats import make_metric
from llgui.core.mt.track import MTTrack, shared_reference_info
from llgui.core.types import MTDocument

REFS = ("The cat sat on the mat, didn't it?", "Mr. Smith's e-mail arrived at 10:30 a.m.",
        "Le chat (noir) dort.")
SYSTEMS = {"a": ("The cat sat on a mat, didn't it?", "Mr Smith's email came at 10:30am.",
                 "Le chat noir dort."),
           "b": ("A cat is on the mat.", "Mr. Smith's e-mail arrived at 10:30 a.m.",
                 "The black cat sleeps.")}


def test_two_systems_share_one_references_information_and_keep_their_scores():
    infos = {}
    for name, hyp in SYSTEMS.items():
        doc = MTDocument(id=name, time=1, hypothesis=hyp, references=(REFS,))
        metric = make_metric("bleu")           # one metric per document, as a bundle makes them
        track = MTTrack(doc, metric, unit="words")
        assert track.current().score == pytest.approx(
            sacrebleu.corpus_bleu(list(hyp), [list(REFS)]).score, abs=1e-9)
        infos[name] = [track._info(i) for i in range(len(REFS))]
    assert all(a is b for a, b in zip(infos["a"], infos["b"]))


def test_other_settings_never_share():
    refs = ("Mr. Smith's e-mail arrived at 10:30 a.m.",)
    plain = shared_reference_info(make_metric("bleu"), refs)
    assert shared_reference_info(make_metric("bleu"), refs) is plain
    intl = shared_reference_info(make_metric("bleu", {"tokenize": "intl"}), refs)
    lower = shared_reference_info(make_metric("bleu", {"lowercase": True}), refs)
    assert intl is not plain and lower is not plain and lower is not intl
    hyp = "Mr Smith's email arrived at 10:30 a.m."
    for settings in ({}, {"tokenize": "intl"}, {"lowercase": True}):
        metric = make_metric("bleu", settings)
        ours = metric.score(metric.segment_stats(hyp, shared_reference_info(metric, refs)))
        assert ours == pytest.approx(sacrebleu.metrics.BLEU(**settings).corpus_score(
            [hyp], [list(refs)]).score, abs=1e-9), settings
