"""Per-speaker DER breakdown (llgui.core.diarization.speakers) against pyannote.metrics, on VBx's AMI
output: the rows add up to pyannote's components, and with one speaker at a time
(skip_overlap) each speaker's miss and confusion are pyannote's identification errors on that
speaker's own speech under the optimal mapping."""
from __future__ import annotations

import warnings

import pytest

from llgui.core.diarization.reference import pyannote_der_components
from llgui.core.diarization.speakers import speaker_breakdown
from llgui.core.types import Turn

VBX = "vbx-ami-mixheadset"
MEETINGS = ("IS1009a", "TS3003a")


@pytest.fixture(scope="module")
def meetings(reference_data):
    from llgui.io.rttm import load_rttm, load_uem

    out = []
    for uri in MEETINGS:
        (ref,) = load_rttm(reference_data / VBX / "ref" / "test" / f"{uri}.rttm").values()
        (hyp,) = load_rttm(reference_data / VBX / "sys" / "test" / f"{uri}.rttm").values()
        (uem,) = load_uem(reference_data / VBX / "uem" / "test" / f"{uri}.uem").values()
        out.append((uri, ref, hyp, uem))
    return out


@pytest.mark.parametrize("collar, skip_overlap", [(0.0, False), (0.5, False), (0.5, True)])
def test_rows_add_up_to_pyannote(meetings, collar, skip_overlap):
    for uri, ref, hyp, uem in meetings:
        expected = pyannote_der_components(ref, hyp, uem, collar, skip_overlap)
        rows = speaker_breakdown(ref, hyp, uem, collar, skip_overlap)
        for part in ("miss", "false_alarm", "confusion", "correct", "total"):
            assert sum(getattr(r, part) for r in rows) == pytest.approx(
                getattr(expected, part), abs=1e-6), (uri, part)
        mapped = {r.hypothesis[0]: r.speaker for r in rows if r.speaker and r.hypothesis}
        assert mapped == dict(expected.mapping), uri


def test_each_speaker_against_pyannote_identification(meetings):
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.identification import IdentificationErrorRate

    for uri, ref, hyp, uem in meetings[:1]:
        expected = pyannote_der_components(ref, hyp, uem, 0.0, True)
        rows = speaker_breakdown(ref, hyp, uem, 0.0, True)
        mapping = dict(expected.mapping)
        renamed = Annotation()
        for i, t in enumerate(hyp):
            renamed[Segment(t.start, t.end), i] = mapping.get(t.speaker, f"unmapped {t.speaker}")
        scored = Timeline([Segment(s, e) for s, e in expected.scored])
        checked = 0
        for row in rows:
            if row.speaker is None:
                continue
            own = Annotation()
            for i, t in enumerate(t for t in ref if t.speaker == row.speaker):
                own[Segment(t.start, t.end), i] = t.speaker
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                detail = IdentificationErrorRate()(own, renamed, uem=scored.crop(own.get_timeline().support()), detailed=True)
            assert row.total == pytest.approx(detail["total"], abs=1e-6)
            assert row.miss == pytest.approx(detail["missed detection"], abs=1e-6)
            assert row.confusion == pytest.approx(detail["confusion"], abs=1e-6)
            assert row.correct == pytest.approx(detail["correct"], abs=1e-6)
            checked += 1
        assert checked >= 3


def test_unmapped_labels_get_a_row_of_false_alarm():
    #  ref  A: 0------10
    #  hyp  x: 0------10   y:      12--14 (nobody speaks: false alarm, mapped to no one)
    ref = [Turn(0, 10, "A")]
    hyp = [Turn(0, 10, "x"), Turn(12, 14, "y")]
    rows = speaker_breakdown(ref, hyp)
    assert rows[0].speaker == "A" and rows[0].hypothesis == ("x",) and rows[0].error == 0
    assert rows[1].speaker is None and rows[1].hypothesis == ("y",)
    assert rows[1].false_alarm == pytest.approx(2.0)


def test_miss_and_confusion_shared_in_overlap():
    #  ref A: 0----4, B: 0----4 (overlap); hyp x: 0----4 (maps to A)
    rows = speaker_breakdown([Turn(0, 4, "A"), Turn(0, 4, "B")], [Turn(0, 4, "x")])
    by = {r.speaker: r for r in rows}
    assert by["A"].correct == 4 and by["A"].error == 0
    assert by["B"].miss == 4 and by["B"].confusion == 0


def test_the_cached_breakdown_is_the_breakdown_and_the_rate_its_share_of_speech():
    from types import SimpleNamespace

    from llgui.core.diarization.speakers import (
        MAX_TURNS, breakdown, cached_breakdown, mapped_labels,
    )

    ref = (Turn(0, 10, "A"), Turn(10, 14, "B"), Turn(14, 20, "A"))
    hyp = (Turn(0, 9, "x"), Turn(9, 14, "y"), Turn(14, 20, "y"))
    doc = SimpleNamespace(reference=ref, uem=None)
    mapping = {"x": "A", "y": "B"}
    assert cached_breakdown(doc, hyp, mapping, 0.0, False) is None   # not made yet
    rows = breakdown(doc, hyp, mapping)
    assert rows == speaker_breakdown(ref, hyp, None, 0.0, False, mapping=mapping)
    assert cached_breakdown(doc, hyp, mapping) is rows                 # made once, kept
    assert cached_breakdown(doc, hyp, {"x": "B"}) is None              # another mapping
    a = next(r for r in rows if r.speaker == "A")
    assert a.error_rate == pytest.approx(100 * a.error / a.total)
    # A speaks 16 s; y (mapped to B) has 9-10 and 14-20 of them: 7 s of confusion
    assert (a.confusion, a.miss, a.error_rate) == pytest.approx((7.0, 0.0, 100 * 7 / 16))
    long = tuple(Turn(k, k + 0.5, "A") for k in range(MAX_TURNS))
    assert breakdown(SimpleNamespace(reference=long, uem=None), hyp, None) == ()
    assert mapped_labels({"x": "A", "z": "A", "y": "B"}) == {"A": "x, z", "B": "y"}
    assert mapped_labels(None) == {}
