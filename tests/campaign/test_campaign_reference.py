"""Every campaign cell equals the reference library on that batch: sacrebleu's corpus_score
(WMT23 de-en cut into time-stamped batches) and pyannote.metrics (VBx on AMI, meetings as
batches, the three scoring protocols), and the pooled VBx DER equals the published table."""
from __future__ import annotations

import pytest

from llgui.campaign.cache import CellCache
from llgui.campaign.run import run_campaign
from llgui.io.campaign import load_campaign
from tests.campaign.helpers import (
    PROTOCOLS, WMT_SYSTEMS, build_vbx_campaign, build_wmt_campaign, wmt_segments,
)


def _cells(report):
    for system in report["systems"]:
        for cell in system["cells"]:
            yield system["name"], cell


def _run(path, tmp):
    campaign = load_campaign(path)
    assert campaign.problems == ()
    return campaign, run_campaign(campaign, workers=0, cache=CellCache(tmp / "cache"))


@pytest.fixture(scope="module")
def wmt(reference_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("wmt")
    # the first 240 segments of the test set (whole documents), in six batches of 40: the
    # whole set (549) takes twice as long and checks nothing more
    batches = [list(range(k, k + 40)) for k in range(0, 240, 40)]
    campaign, run = _run(build_wmt_campaign(root, reference_data, batches), root)
    return batches, campaign, run


def _library(metric: str, hyps, refs) -> float:
    import sacrebleu

    cls = {"bleu": sacrebleu.BLEU, "chrf": sacrebleu.CHRF, "ter": sacrebleu.TER}[metric]
    return cls().corpus_score(hyps, [refs]).score


def test_wmt23_cells_equal_sacrebleu(wmt, reference_data):
    batches, campaign, run = wmt
    assert len(batches) >= 6
    ref, hyps = wmt_segments(reference_data)
    n = 0
    for system, cell in _cells(run.report):
        name = WMT_SYSTEMS[system][int(cell["model"][1:])]
        indices = batches[int(cell["batch"][1:])]
        for metric in ("bleu", "chrf"):
            expected = _library(metric, [hyps[name][i] for i in indices],
                                [ref[i] for i in indices])
            assert cell["scores"][metric] == pytest.approx(expected, abs=1e-9), (system, cell)
            n += 1
    assert n == 2 * 4 * len(batches)
    assert not run.report["partial"] and run.report["gaps"] == []


def test_wmt23_ter_on_short_batches(reference_data, tmp_path):
    """TER (sacrebleu's is slow: a second per long segment) on six batches of short segments."""
    ref, hyps = wmt_segments(reference_data)
    short = sorted(range(len(ref)), key=lambda i: (len(ref[i].split()), i))
    short = [i for i in short if ref[i].strip()][:18]
    batches = [sorted(short[k::6]) for k in range(6)]
    _, run = _run(build_wmt_campaign(tmp_path, reference_data, batches,
                                     metrics=("bleu", "chrf", "ter")), tmp_path)
    for system, cell in _cells(run.report):
        name = WMT_SYSTEMS[system][int(cell["model"][1:])]
        indices = batches[int(cell["batch"][1:])]
        for metric in ("bleu", "chrf", "ter"):
            expected = _library(metric, [hyps[name][i] for i in indices],
                                [ref[i] for i in indices])
            assert cell["scores"][metric] == pytest.approx(expected, abs=1e-9)
    assert len(list(_cells(run.report))) == 24


def test_wmt23_lifelong_csv_reads_back(wmt, tmp_path):
    """The per-system lifelong CSV is the section 3 format: llgui.io.lifelong reads it back."""
    from llgui.io.campaign_export import write_campaign
    from llgui.io.lifelong import load_lifelong

    _, _, run = wmt
    write_campaign(run.report, tmp_path)
    table = load_lifelong(tmp_path / "lifelong" / "alpha.csv")
    assert table.models == ("M0", "M1") and len(table.tests) == 6
    cell = run.report["systems"][0]["cells"][7]
    i, j = table.models.index(cell["model"]), table.tests.index(cell["batch"])
    assert table.values["chrf"][i, j] == cell["scores"]["chrf"]


@pytest.mark.filterwarnings("ignore:'uem' was approximated")
@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_vbx_ami_cells_equal_pyannote_and_pool_to_the_published_der(
        protocol, reference_data, expected, tmp_path):
    from pyannote.core import Annotation, Segment
    from pyannote.metrics.diarization import DiarizationErrorRate

    from llgui.core.diarization.der import DERMetric
    from llgui.io.rttm import load_rttm

    # the second version (VBx shifted by 0.25 s) differs from the first on the shortest
    # meeting only, whose cells are checked against pyannote below; elsewhere it is the same
    # file, scored once (its 17 other cells were half of this test's time and read by nothing)
    dev = reference_data / "vbx-ami-mixheadset" / "ref" / "dev"
    meetings = sorted(p.stem for p in dev.glob("*.rttm"))
    shortest_meeting = min(meetings, key=lambda m: len(next(iter(
        load_rttm(dev / f"{m}.rttm").values()))))
    campaign, run = _run(build_vbx_campaign(tmp_path, reference_data, protocol,
                                            shifted=[shortest_meeting]), tmp_path)
    assert len(campaign.batches) == 18
    # pooled over the batches, the published VBx output (M0) gives VBx's published DER
    case = next(c for c in expected["diarization"] if c["id"] == "vbx-ami-mixheadset")
    column = next(k for k in case["published"] if k.lower().startswith(protocol))
    pooled = sum(stats["der"] for (s, m, b), stats in run.scores.cells.items() if m == 0)
    assert round(DERMetric().score(pooled), 2) == case["published"][column]["dev"]
    # each cell of the shortest meeting, both model versions, against pyannote itself
    collar, skip = PROTOCOLS[protocol]
    shortest = sorted(campaign.batches, key=lambda b: len(load_rttm(b.references[0])
                                                          [b.uri]))[:1]
    assert [b.id for b in shortest] == [shortest_meeting]

    def annotation(turns):
        a = Annotation()
        for k, t in enumerate(turns):
            a[Segment(t.start, t.end), k] = t.speaker
        return a

    for batch in shortest:
        reference = annotation(load_rttm(batch.references[0])[batch.uri])
        for cell in run.report["systems"][0]["cells"]:
            if cell["batch"] != batch.id:
                continue
            hyp_file = tmp_path / "vbx" / cell["model"] / f"{batch.id}.rttm"
            hypothesis = annotation(load_rttm(hyp_file)[batch.uri])
            library = DiarizationErrorRate(collar=collar, skip_overlap=skip)
            assert cell["scores"]["der"] == pytest.approx(
                100 * library(reference, hypothesis), abs=1e-9)


def test_the_report_rebuilds_each_systems_lifelong_table(wmt):
    """The window rebuilds the matrices from the JSON report: the same numbers as the driver's."""
    import json

    import numpy as np

    from llgui.core.reports.campaign import lifelong_table, table_from_report
    from llgui.io.campaign_export import to_json

    _, campaign, run = wmt
    report = json.loads(to_json(run.report))
    for s in range(len(campaign.systems)):
        direct, rebuilt = lifelong_table(campaign, run.scores, s), table_from_report(report, s)
        assert (rebuilt.models, rebuilt.tests) == (direct.models, direct.tests)
        assert [t.value for t in rebuilt.test_times] == [t.value for t in direct.test_times]
        for metric in campaign.metrics:
            np.testing.assert_array_equal(rebuilt.values[metric], direct.values[metric])
