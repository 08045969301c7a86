"""Negative flips on real campaigns (issue 33, acceptance 1): NFR, NFI and the regressed units
of `llgui regressions` equal an independent computation from unit scores made here by
sacrebleu (sentence_chrf: WMT23 de-en submissions taken as consecutive model versions) and by
pyannote.metrics (DER on each reference turn of the AMI meetings ES2011a-d: the published VBx
output, then a version of it 0.25 s late)."""
from __future__ import annotations

import bisect
import json

import pytest

from llgui.cli.main import main
from tests.campaign.helpers import WMT_SYSTEMS, build_vbx_campaign, build_wmt_campaign, \
    wmt_segments

TOLERANCE = 1.0


def _regressions(path, capsys, *extra) -> dict:
    code = main(["regressions", str(path), "--format", "json", "--tolerance", str(TOLERANCE),
                 "--samples", "200", *extra])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def _expected(before: list[float], after: list[float], best: float, higher: bool):
    """NFR, NFI and the regressed positions, written out from the definitions."""
    regressed, errors = [], 0
    for i, (x, y) in enumerate(zip(before, after)):
        worse = x - y if higher else y - x
        if worse > TOLERANCE:
            regressed.append(i)
        if (best - y if higher else y - best) > TOLERANCE:
            errors += 1
    n = len(before)
    return len(regressed) / n, (len(regressed) / errors if errors else None), regressed


def test_wmt23_flips_equal_sacrebleu_sentence_chrf(reference_data, tmp_path, capsys,
                                                   monkeypatch):
    import sacrebleu

    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))
    batches = [list(range(0, 30)), list(range(30, 60))]
    path = build_wmt_campaign(tmp_path, reference_data, batches)
    report = _regressions(path, capsys)
    ref, hyps = wmt_segments(reference_data)
    assert report["unit"] == "segment-chrf" and "tol:1" in report["signature"]
    for system in report["flips"]:
        first, second = WMT_SYSTEMS[system["name"]]
        units = [i for b in batches for i in b]
        before = [sacrebleu.sentence_chrf(hyps[first][i], [ref[i]]).score for i in units]
        after = [sacrebleu.sentence_chrf(hyps[second][i], [ref[i]]).score for i in units]
        nfr, nfi, regressed = _expected(before, after, 100.0, True)
        (pair,) = system["pairs"]
        assert pair["n_units"] == 60 and pair["flips"] == len(regressed)
        assert pair["nfr"] == pytest.approx(100 * nfr, abs=1e-10)
        assert pair["nfi"] == pytest.approx(100 * nfi, abs=1e-10)
        lo, hi = pair["nfr_interval"]
        assert lo <= 100 * nfr <= hi
        rows = [r for r in report["rows"] if r["kind"] == "flip" and r["system"] ==
                system["name"]]
        got = {(r["batch"], r["index"]) for r in rows}
        assert got == {(f"b{u // 30}", u % 30) for u in regressed}
        for r in rows:
            u = int(r["batch"][1:]) * 30 + r["index"]
            assert r["score_before"] == pytest.approx(before[u], abs=1e-9)
            assert r["score_after"] == pytest.approx(after[u], abs=1e-9)
        # listed largest regression first
        deltas = [r["delta"] for r in rows]
        assert deltas == sorted(deltas)
    assert any(p["flips"] for s in report["flips"] for p in s["pairs"])


MEETINGS = ["ES2011a", "ES2011b", "ES2011c", "ES2011d"]


@pytest.mark.filterwarnings("ignore:'uem' was approximated")
def test_ami_es2011_flips_equal_pyannote_der_per_turn(reference_data, tmp_path, capsys,
                                                      monkeypatch):
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.diarization import DiarizationErrorRate

    from llgui.io.rttm import load_turns

    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))
    path = build_vbx_campaign(tmp_path, reference_data, "fair", MEETINGS)
    report = _regressions(path, capsys)
    assert report["unit"] == "turn-der"

    class Near:
        """pyannote's loose crop of a whole meeting, applied to the turns that reach within a
        second of the window (the same tracks, so the same crop): cropping the whole meeting
        for each of its turns was three quarters of the test's time."""

        def __init__(self, turns):
            self.turns = sorted(enumerate(turns), key=lambda kt: kt[1].start)
            self.starts = [t.start for _, t in self.turns]
            self.longest = max(t.end - t.start for t in turns)

        def crop(self, window, mode):
            lo = bisect.bisect_left(self.starts, window.start - self.longest - 1.0)
            hi = bisect.bisect_right(self.starts, window.end + 1.0)
            a = Annotation()
            for k, t in self.turns[lo:hi]:
                a[Segment(t.start, t.end), k] = t.speaker
            return a.crop(window, mode=mode)

    metric = DiarizationErrorRate(collar=0.5, skip_overlap=False)
    before, after, where = [], [], []
    base = reference_data / "vbx-ami-mixheadset" / "ref" / "dev"
    for meeting in MEETINGS:
        reference = load_turns(base / f"{meeting}.rttm")[meeting]
        ref = Near(reference)
        hyp = {m: Near(load_turns(tmp_path / "vbx" / m / f"{meeting}.rttm")[meeting])
               for m in ("M0", "M1")}
        for k, turn in enumerate(reference):
            window = Segment(turn.start - 0.5, turn.end + 0.5)
            uem = Timeline([Segment(turn.start, turn.end)])
            scores = []
            for m in ("M0", "M1"):
                parts = metric(ref.crop(window, mode="loose"), hyp[m].crop(window, mode="loose"),
                               uem=uem, detailed=True)
                scores.append(None if parts["total"] == 0 else 100 * parts[
                    "diarization error rate"])
            if scores[0] is not None and scores[1] is not None:
                before.append(scores[0])
                after.append(scores[1])
                where.append((meeting, k))
    nfr, nfi, regressed = _expected(before, after, 0.0, False)
    (system,) = report["flips"]
    (pair,) = system["pairs"]
    assert pair["n_units"] == len(before) > 400
    assert pair["flips"] == len(regressed) > 0
    assert pair["nfr"] == pytest.approx(100 * nfr, abs=1e-10)
    assert pair["nfi"] == pytest.approx(100 * nfi, abs=1e-10)
    rows = [r for r in report["rows"] if r["kind"] == "flip"]
    assert {(r["batch"], r["index"]) for r in rows} == {where[i] for i in regressed}
    by_unit = {where[i]: (before[i], after[i]) for i in regressed}
    for r in rows:
        x, y = by_unit[(r["batch"], r["index"])]
        assert r["score_before"] == pytest.approx(x, abs=1e-9)
        assert r["score_after"] == pytest.approx(y, abs=1e-9)
