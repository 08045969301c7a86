"""The penalty engine over whole bundles: series, aggregates, learning-curve area, MSR."""
from __future__ import annotations

import math

import numpy as np
import pytest

from llgui.core.penalty import (PenaltyAccumulator, StepScores, curve_area, feedback_of,
                                make_track, pooled_msr, replay_bundle)
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
    assert r.msr_cost == pytest.approx(
        100 * (r.total_cost + left.miss + left.false_alarm + left.confusion) / left.total,
        abs=1e-9)
    # Geoffrois's MSR: the feedback is the error seconds the corrections removed, each counted
    # by pyannote on the hypothesis the human saw and on its corrected version
    track = make_track(first, "der", bundle.settings, bundle.cost, bundle.documents)
    feedback = 0.0
    for step in steps:
        seen = track.current().stats
        feedback += (result.metric_impl.errors(seen)[0]
                     - result.metric_impl.errors(track.corrected(step).stats)[0])
        track.advance(step)
    assert r.msr == pytest.approx(
        100 * (feedback + left.miss + left.false_alarm + left.confusion) / left.total,
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

    # sacrebleu's own reference cache (BLEU(references=...), corpus_score(hyps, None)): the
    # references tokenised once, not again for each of the stream's 2 x steps corpus scores
    library = sacrebleu.BLEU(references=[[s for d in bundle.documents for s in d.references[0]]])

    def bleu(hyps):
        return library.corpus_score(hyps, None).score

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


class _ErrorCount:
    """A metric whose statistics are (errors, reference size), as TER's."""

    def errors(self, stats):
        return float(stats[0]), float(stats[1])


class _NoErrors:
    def errors(self, stats):
        return None


def test_accumulator_by_hand():
    sums = PenaltyAccumulator(40.0)
    assert (sums.s_pen, sums.cost, sums.penalty) == (40.0, 0.0, 0.0)
    # an error rate: the penalty adds (S_imp > S_cor); floats that do not add exactly, so
    # another order of the same sums ((penalty + S_imp) - S_cor: 4.880000000000003) fails
    assert sums.add(0.1, 21.44, 26.17, 25.0) == 25.0 + (26.17 - 21.44)
    assert sums.add(0.2, 55.07, 55.22, 22.0) == 22.0 + ((26.17 - 21.44) + (55.22 - 55.07))
    assert sums.penalty == 4.879999999999999
    assert sums.cost == 0.1 + 0.2 == 0.30000000000000004
    assert sums.add_cost(1.0) == 0.1 + 0.2 + 1.0
    assert sums.s_pen == 22.0 + 4.879999999999999   # add_cost leaves S_pen
    # msr_cost: (the cost + errors left) / reference size; msr: (the feedback + errors left)
    assert sums.msr_cost(_ErrorCount(), np.array([3.0, 8.0])) == \
        100.0 * ((0.1 + 0.2 + 1.0) + 3.0) / 8.0
    assert sums.msr(_ErrorCount(), np.array([3.0, 8.0])) == 100.0 * 3.0 / 8.0   # no feedback
    sums.add(0.0, 1.0, 2.0, 1.0, feedback=2.5)
    assert sums.feedback == 2.5
    assert sums.msr(_ErrorCount(), np.array([3.0, 8.0])) == 100.0 * (2.5 + 3.0) / 8.0
    assert sums.msr(_NoErrors(), np.array([3.0, 8.0])) is None
    assert math.isnan(sums.msr(_ErrorCount(), np.array([3.0, 0.0])))


@pytest.mark.parametrize("task, metric", [("mt", "ter"), ("mt", "bleu"), ("diarization", "der")])
def test_replay_is_the_accumulator_to_the_last_bit(task, metric):
    """Every S_pen, cumulative cost and the MSR of a replay are what one accumulator fed the
    steps' scores gives, compared with == (the simulation driver uses the same accumulator)."""
    bundle = load_bundle(DEMO / task / "bundle.toml")
    result = replay_bundle(bundle, metric, memorise=True)
    checked = 0
    for r in result.replays:
        sums, memorised = PenaltyAccumulator(r.s_base), PenaltyAccumulator()
        seen = r.stats_base
        for s, stats in zip(r.steps, r.step_stats):
            feedback = (feedback_of(result.metric_impl, seen, stats[0]) if stats is not None
                        else 0.0)
            assert sums.add(s.cost, s.s_cor, s.s_imp, s.s_adapt, feedback) == s.s_pen
            assert sums.cost == s.cum_cost
            seen = stats[2] if stats is not None else seen
            checked += 1
        assert (r.msr is None) == (metric == "bleu")
        if r.msr is not None:
            assert sums.msr(result.metric_impl, r.stats_final) == r.msr
            assert sums.msr_cost(result.metric_impl, r.stats_final) == r.msr_cost
        # the memorise-only chain: S_pen from its own accumulator (cost plays no part)
        for s, (cor, imp, adapt) in zip(r.steps, r.memorise_stats):
            metric_of = result.metric_impl.score
            assert memorised.add(0.0, metric_of(cor), metric_of(imp),
                                 metric_of(adapt)) == s.s_pen_memorise
    assert checked > 10


def test_pooled_msr_by_hand():
    assert pooled_msr(4.0, [(1.0, 10.0), (2.0, 30.0)]) == 100.0 * (4.0 + 3.0) / 40.0
    # the sums in the order given: 0.1 + 0.2 is not 0.3
    assert pooled_msr(0.0, [(0.1, 1.0), (0.2, 1.0)]) == 100.0 * (0.1 + 0.2) / 2.0
    assert pooled_msr(1.0, [(0.30000000000000004, 2.0)]) == 100.0 * 1.3 / 2.0
    assert pooled_msr(1.0, []) is None                           # no document
    assert pooled_msr(1.0, [(1.0, 10.0), None]) is None          # one not an error count
    assert pooled_msr(1.0, [(0.0, 0.0), (0.0, 0.0)]) is None     # nothing to measure against


def test_pooled_msr_of_a_bundle_replay():
    """BundleReplay.msr: all documents' feedback + the errors of their summed final statistics,
    over the summed reference size (DER seconds here); None for BLEU."""
    bundle = load_bundle(DEMO / "diarization" / "bundle.toml")
    result = replay_bundle(bundle, "der")
    final = np.sum([r.stats_final for r in result.replays], axis=0)
    errors, size = result.metric_impl.errors(final)
    cost = sum(r.total_cost for r in result.replays)
    feedback = sum(r.feedback for r in result.replays)
    assert cost > 0 and errors > 0 and feedback > 0
    assert result.msr == 100.0 * (feedback + errors) / size
    assert result.msr_cost == 100.0 * (cost + errors) / size
    # within rounding of the per-document pooling (the same sums in another order)
    per_document = pooled_msr(feedback, [result.metric_impl.errors(r.stats_final)
                                         for r in result.replays])
    assert result.msr == pytest.approx(per_document, rel=1e-12)
    assert replay_bundle(load_bundle(DEMO / "mt" / "bundle.toml"), "bleu").msr is None


def test_a_memoriser_sits_exactly_at_its_initial_error_rate(reference_data, tmp_path):
    """Geoffrois (LREC 2016, section 3.1): feedback counts as the errors it corrects, so a
    system that only memorises the references it receives has an MSR equal to its initial
    error rate, the neutral point. WMT23 de-en ONLINE-B, its first 60 lines of at most 40
    words (sacrebleu's TER on the long paragraphs takes seconds each) as one document, 20
    `reference` requests answered by the reference and memorised; TER from sacrebleu itself
    (issue 27, item 4: the cost rule put this memoriser above its initial TER)."""
    import json

    from sacrebleu.metrics import TER

    from llgui.cli.main import main

    root = reference_data / "wmt23-general" / "txt"
    ref = (root / "references" / "generaltest2023.de-en.ref.refA.en").read_text(
        encoding="utf-8").splitlines()
    hyp = (root / "system-outputs" / "generaltest2023.de-en.hyp.ONLINE-B.en").read_text(
        encoding="utf-8").splitlines()
    short = [i for i in range(len(ref))
             if len(ref[i].split()) <= 40 and len(hyp[i].split()) <= 40][:60]
    ref, hyp = [ref[i] for i in short], [hyp[i] for i in short]
    (tmp_path / "ref.en").write_text("\n".join(ref) + "\n", encoding="utf-8")
    (tmp_path / "hyp.en").write_text("\n".join(hyp) + "\n", encoding="utf-8")
    asked = list(range(1, 61, 3))   # every third sentence
    with open(tmp_path / "log.jsonl", "w", encoding="utf-8") as log:
        for n, sentence in enumerate(asked, 1):
            log.write(json.dumps({"doc": "deen", "step": n, "initiative": "active",
                                  "kind": "reference", "target": {"sentence": sentence},
                                  "adapted": {"lines": {str(sentence): ref[sentence - 1]}}})
                      + "\n")
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["ter"]\n[[documents]]\nid = "deen"\ntime = 1\n'
        'references = ["ref.en"]\nhypothesis = "hyp.en"\n[interactions]\nlog = "log.jsonl"\n',
        encoding="utf-8")
    import contextlib
    import io
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["replay", str(tmp_path / "bundle.toml"), "--doc", "deen", "--metric",
                     "ter", "--format", "json"]) == 0
    report = json.loads(buffer.getvalue())
    initial = TER().corpus_score(hyp, [ref]).score
    assert report["s_base"] == pytest.approx(initial, abs=1e-9)
    assert report["msr"] == pytest.approx(initial, abs=1e-9)
    # the cost rule (reference words as feedback) overstates a memoriser's supervision
    assert report["msr_cost"] > initial + 1.0


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
    # a sum's rounding is no change: 87.49999999999999 against 87.5 was coloured better
    for r in (bleu, ter):
        assert r.versus_base(r.s_base - 1.4e-14) == 0 and r.versus_base(r.s_base + 1e-12) == 0
        assert r.versus_base(r.s_base + 1e-6) != 0
