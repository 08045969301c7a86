"""The penalty engine over whole bundles: series, aggregates, learning-curve area, MSR."""
from __future__ import annotations

import math

import numpy as np
import pytest

from llgui.core.penalty import StepScores, curve_area, replay_bundle
from llgui.io.bundle import load_bundle
from tests.conftest import DEMO


def steps(*pairs):
    """StepScores from (cumulative cost, S_adapt) pairs."""
    out, previous = [], 0.0
    for i, (cum, adapt) in enumerate(pairs, 1):
        out.append(StepScores(i, "active", "reference", cum - previous, cum, None, None,
                              adapt, adapt))
        previous = cum
    return out


def test_curve_area_of_a_step_function_by_hand():
    # S = 30 on [0, 10), 40 on [10, 30), 50 on [30, 40]: (30*10 + 40*20 + 50*10) / 40 = 40
    assert curve_area(30.0, steps((10, 40.0), (30, 50.0), (40, 50.0))) == pytest.approx(40.0)
    # cut at a maximum cost of 20: (30*10 + 40*10) / 20 = 35
    assert curve_area(30.0, steps((10, 40.0), (30, 50.0)), max_cost=20) == pytest.approx(35.0)
    # beyond the last step the last score holds: (30*10 + 40*30) / 40 = 37.5
    assert curve_area(30.0, steps((10, 40.0)), max_cost=40) == pytest.approx(37.5)
    # no cost, no area (issue 9: "area = 19.24 (normalised by cost 0.0)" was printed)
    assert math.isnan(curve_area(30.0, []))
    assert math.isnan(curve_area(30.0, steps((0, 40.0))))


def test_series_and_aggregates_of_the_demo_diarization():
    from llgui.core.diarization.reference import pyannote_der_components

    bundle = load_bundle(DEMO / "diarization" / "bundle.toml")
    result = replay_bundle(bundle, "der")
    series = result.series()
    assert series.docs == tuple(d.id for d in bundle.documents)      # processing order
    assert np.all(np.diff(series.times) > 0)
    assert np.all(np.diff(series.cum_cost) >= 0)
    # pooled = summed error time over summed reference time (duration-weighted), with the
    # components computed by pyannote.metrics on the documents' hypotheses
    components = [pyannote_der_components(d.reference, d.hypothesis, uem=d.uem)
                  for d in bundle.documents]
    error = sum(c.miss + c.false_alarm + c.confusion for c in components)
    total = sum(c.total for c in components)
    assert result.pooled_base == pytest.approx(100 * error / total, abs=1e-9)
    assert result.mean("s_base") == pytest.approx(np.mean([c.der for c in components]),
                                                  abs=1e-9)
    # MSR of the first show: (seconds listened + error seconds left) / reference seconds,
    # the errors of the final hypothesis counted by pyannote
    first = bundle.documents[0]
    steps = bundle.steps_of(first.id)
    final = next(s.adapted.turns for s in reversed(steps) if s.adapted is not None)
    left = pyannote_der_components(first.reference, final, uem=first.uem)
    r = result.replays[0]
    assert r.msr == pytest.approx(
        100 * (r.total_cost + left.miss + left.false_alarm + left.confusion) / left.total,
        abs=1e-9)


def test_pooled_penalised_bleu_equals_sacrebleu_on_the_stream():
    """pooled S_pen = pooled final S_adapt + sum over every step of (S_imp - S_cor) scored on
    the whole corpus: documents before the step's at their final hypothesis, after it at their
    first, the step's document corrected / impaired (a real impaired sentence: as many tokens
    as the sentence the human saw, none of them in the reference)."""
    import sacrebleu
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    bundle = load_bundle(DEMO / "mt" / "bundle.toml")
    result = replay_bundle(bundle, "bleu")
    tokenize = Tokenizer13a()

    def bleu(hyps):
        refs = [s for d in bundle.documents for s in d.references[0]]
        return sacrebleu.BLEU().corpus_score(hyps, [refs]).score

    def adapted(doc, hyp, step):
        hyp = list(hyp)
        if step.adapted is not None:
            for number, text in step.adapted.lines.items():
                hyp[number - 1] = text
        return hyp

    finals, current = [], [list(d.hypothesis) for d in bundle.documents]
    penalty = 0.0
    for k, doc in enumerate(bundle.documents):
        for step in bundle.steps_of(doc.id):
            i = step.target.sentence - 1
            seen = current[k]
            corrected = list(seen)
            corrected[i] = doc.references[0][i] if step.kind == "reference" else step.answer
            impaired = list(seen)
            n = len(tokenize(seen[i]).split())
            assert "zqxjvk" not in doc.references[0][i]
            impaired[i] = " ".join(["zqxjvk"] * n)
            before = [s for h in current[:k] for s in h]
            after = [s for h in current[k + 1:] for s in h]
            penalty += bleu(before + impaired + after) - bleu(before + corrected + after)
            current[k] = adapted(doc, seen, step)
        finals.append(current[k])
    pooled_final = bleu([s for h in current for s in h])
    assert result.pooled_adapt == pytest.approx(pooled_final, abs=1e-9)
    assert result.pooled_pen == pytest.approx(pooled_final + penalty, abs=1e-9)


def test_pen_difference_of_two_systems_on_a_document():
    from types import SimpleNamespace

    from llgui.core.penalty import pen_difference

    mine, theirs = SimpleNamespace(s_pen=31.5), SimpleNamespace(s_pen=29.0)
    assert pen_difference(mine, theirs) == 2.5                  # plain: this - other
    assert pen_difference(mine, theirs, True) == 2.5            # BLEU: higher is better
    assert pen_difference(mine, theirs, False) == -2.5          # DER: lower is better
    bundle = load_bundle(DEMO / "mt" / "bundle.toml")
    result = replay_bundle(bundle, "bleu")
    a, b = result.replays[:2]
    assert pen_difference(a, b, result.higher_is_better) == a.s_pen - b.s_pen
    summaries = result.summaries()
    assert pen_difference(summaries[a.doc], summaries[b.doc]) == a.s_pen - b.s_pen


def test_a_score_versus_the_base_follows_the_metrics_direction():
    bundle = load_bundle(DEMO / "mt" / "bundle.toml")
    bleu = replay_bundle(bundle, "bleu").replays[0]
    ter = replay_bundle(bundle, "ter").replays[0]
    assert bleu.higher_is_better and not ter.higher_is_better
    for r in (bleu, ter):
        assert r.versus_base(r.s_base) == 0
    assert bleu.versus_base(bleu.s_base + 1) == 1 and bleu.versus_base(bleu.s_base - 1) == -1
    assert ter.versus_base(ter.s_base + 1) == -1 and ter.versus_base(ter.s_base - 1) == 1
