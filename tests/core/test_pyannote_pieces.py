"""`PyannoteDER` (verify's pyannote on pieces of a meeting) equals pyannote.metrics on the whole
meeting, on real AMI meetings (issue 23, item 18; TS3004c's first 20 minutes, see EXCERPT): the
VBx output, a copy with one cluster relabelled in a stretch (a correction), and with a label
left unmappable."""
from __future__ import annotations

import pytest

from llgui.core.diarization.reference import PyannoteDER, pyannote_der_components
from llgui.core.types import Turn
from llgui.io.rttm import load_rttm

MEETINGS = ["ES2011a", "TS3004c"]
EXCERPT = {"TS3004c": 1200.0}
"""Seconds of a meeting kept (its turns clipped there, its UEM with them): TS3004c lasts
50 minutes and DiarizationErrorRate on the whole of it (the oracle here) took three quarters of
this file's time, its crop growing with the product of the segment counts; the pieces' equality
does not depend on the length (20 minutes still cut into 10 pieces of 2 minutes). ES2011a
(18.5 minutes) is whole."""


def _load(root, meeting, full: bool = False):
    d = root / "vbx-ami-mixheadset"
    ref = next(iter(load_rttm(d / "ref" / "dev" / f"{meeting}.rttm").values()))
    hyp = next(iter(load_rttm(d / "sys" / "dev" / f"{meeting}.rttm").values()))
    end = float((d / "uem" / "dev" / f"{meeting}.uem").read_text().split()[3])
    if meeting in EXCERPT and not full:
        end = EXCERPT[meeting]
        ref, hyp = ([Turn(t.start, min(t.end, end), t.speaker) for t in turns if t.start < end]
                    for turns in (ref, hyp))
    return ref, hyp, ((0.0, end),)


def _corrected(hyp, lo, hi):
    """The hypothesis with every turn between lo and hi given the first turn's label there."""
    inside = [t for t in hyp if lo <= t.start < hi]
    label = inside[-1].speaker
    return tuple(Turn(t.start, t.end, label) if lo <= t.start < hi else t for t in hyp)


@pytest.mark.parametrize("meeting", MEETINGS)
@pytest.mark.parametrize("collar, skip_overlap, given", [(0.5, False, True), (0.0, True, True),
                                                         (0.25, False, False)])
def test_pieces_equal_pyannote_on_the_whole_meeting(reference_data, meeting, collar,
                                                    skip_overlap, given):
    ref, hyp, uem = _load(reference_data, meeting)
    uem = uem if given else None
    der = PyannoteDER(ref, uem, collar, skip_overlap, chunk_seconds=120.0)
    changed = _corrected(hyp, 400.0, 700.0)
    blocked = sorted({t.speaker for t in hyp})[0]
    for hypothesis, unmappable in ((hyp, ()), (changed, ()), (changed, (blocked,))):
        ours = der(hypothesis, unmappable)
        lib = pyannote_der_components(ref, hypothesis, uem, collar, skip_overlap, unmappable)
        for field in ("miss", "false_alarm", "confusion", "correct", "total"):
            assert getattr(ours, field) == pytest.approx(getattr(lib, field), abs=1e-9), field
        assert dict(ours.mapping) == dict(lib.mapping)
        flat = lambda spans: [x for span in spans for x in span]  # noqa: E731
        assert flat(ours.scored) == pytest.approx(flat(lib.scored), abs=1e-9)
    assert len(der._cuts((0.0, ref[-1].end))) >= 3      # it did cut the meeting


def test_a_correction_recomputes_only_the_pieces_it_touched(reference_data):
    ref, hyp, uem = _load(reference_data, "TS3004c", full=True)
    der = PyannoteDER(ref, uem, 0.5, False, chunk_seconds=120.0)
    der(hyp)
    pieces = len(der._pieces)
    der(_corrected(hyp, 400.0, 500.0))
    added = len(der._pieces) - pieces
    assert 1 <= added <= 3 < pieces
