"""The effect size at its edges (issue 32, item 5): nothing at Δ = 0, "≤ 50 % (coin toss)" below
the fit's coin-toss point, no value for settings the fit never saw (tok:char), and the readout
saying it is pooled over language pairs.

Expected values come from the `mt-thresholds` package itself (Kocmi et al. 2024) and from
sacrebleu's corpus BLEU of the real WMT23 de-en lines, computed here."""
from __future__ import annotations

import json

import pytest
from mt_thresholds import accuracy

from llgui.cli.main import main
from llgui.core.significance.effect import COIN_TOSS_TEXT, effect_entry, human_agreement
from tests.core.significance.test_judgments import _mt_bundles, _wmt23_lines


def test_at_zero_nothing_and_below_the_coin_toss_no_chance_below_half():
    assert accuracy(0.0, "bleu") < 50   # the published fit reads 44.2 % at Δ = 0
    for metric in ("bleu", "chrf"):
        zero = effect_entry(metric, 0.0)
        assert zero["human_agreement"] is None and zero["reading"] == "no difference"
        small = effect_entry(metric, 0.1)
        assert accuracy(0.1, metric) < 50
        assert small["human_agreement"] is None and small["coin_toss"] is True
        assert small["reading"] == COIN_TOSS_TEXT == "≤ 50 % (coin toss)"
        # above the coin toss the package's value, as a fraction, and the scope said
        one = effect_entry(metric, -1.0)
        assert one["human_agreement"] == pytest.approx(accuracy(1.0, metric) / 100)
        assert "pooled over the language pairs" in one["scope"]
    assert human_agreement("ter", 5.0) is None


def test_not_given_for_a_tokenization_the_fit_never_saw():
    from sacrebleu.metrics import BLEU, CHRF

    def signature(metric):
        metric.corpus_score(["a b"], [["a b"]])
        return metric.get_signature().format()

    char = signature(BLEU(tokenize="char"))
    assert "tok:char" in char
    entry = effect_entry("bleu", 3.0, char)
    assert entry["human_agreement"] is None and "tok:char" in entry["reading"]
    default = effect_entry("bleu", 3.0, signature(BLEU()))
    assert default["human_agreement"] == pytest.approx(accuracy(3.0, "bleu") / 100)
    plus = effect_entry("chrf", 3.0, signature(CHRF(word_order=2)))
    assert plus["human_agreement"] is None and "chrF++" in plus["reading"]


@pytest.fixture(scope="module")
def close_pair(reference_data, tmp_path_factory):
    """WMT23 de-en ONLINE-B (500 lines) and the same with its first line made the reference:
    two systems a fraction of a BLEU point apart."""
    refs, hyps = _wmt23_lines(reference_data)
    refs, hyps = refs[:500], hyps[:500]
    closer = [refs[0]] + hyps[1:]
    folder = tmp_path_factory.mktemp("effect")
    return refs, hyps, closer, _mt_bundles(folder, refs, {"ONLINE-B": hyps, "closer": closer},
                                           10, ["bleu"])


def test_compare_reads_a_coin_toss_for_a_tenth_of_a_point(close_pair, capsys):
    from sacrebleu.metrics import BLEU

    refs, hyps, closer, paths = close_pair
    delta = BLEU().corpus_score(closer, [refs]).score - BLEU().corpus_score(hyps, [refs]).score
    assert 0 < delta < 0.27 and accuracy(delta, "bleu") < 50, delta
    assert main(["compare", *map(str, paths), "--baseline", "ONLINE-B", "--format", "json",
                 "--samples", "200"]) == 0
    effect = json.loads(capsys.readouterr().out)["systems"][1]["metrics"]["bleu"]["effect"]
    assert effect["delta"] == pytest.approx(delta, abs=1e-9)
    assert effect["human_agreement"] is None and effect["coin_toss"] is True
    assert main(["compare", *map(str, paths), "--baseline", "ONLINE-B",
                 "--samples", "200"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "closer" in line)
    assert "≤ 50 % (coin toss)" in row
    assert "%" not in row.replace("≤ 50 % (coin toss)", "")   # no 46 % printed
    assert "pooled over many language pairs" in " ".join(out.split())
