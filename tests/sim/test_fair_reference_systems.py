"""Reference systems fair on any data (issue 32, items 3 and 4).

`diar_clusters` on four AMI test meetings (EN2002a-d, the VB system of dover-lap, labels per
recording: "1".."6" in each, as VoxConverse and most RTTM corpora label them): by default each
meeting's h0 is the bundle's own hypothesis, its DER equal to pyannote.metrics' on the input
RTTM; told `--global-speakers`, it carries merges to later meetings (their h0 changes).

`mt_memory` on Japanese (a script without spaces, whose "words" are whole sentences): it learns
below the word, so a correction generalises to the repeated phrase in later sentences: net
generalisation (S_pen above the memorise-only S_pen, `llgui replay`) > 0."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

MEETINGS = ("EN2002a", "EN2002b", "EN2002c", "EN2002d")


def _turns(path: Path, uri: str) -> list[tuple[float, float, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        f = line.split()
        if f and f[0] == "SPEAKER" and f[1] == uri and float(f[4]) > 0:
            out.append((round(float(f[3]), 6), round(float(f[3]) + float(f[4]), 6), f[7]))
    return sorted(out)


def _pyannote_der(ref: Path, hyp: Path, uri: str) -> float:
    from pyannote.core import Annotation, Segment
    from pyannote.metrics.diarization import DiarizationErrorRate

    def annotation(path):
        a = Annotation(uri=uri)
        for k, (s, e, spk) in enumerate(_turns(path, uri)):
            a[Segment(s, e), k] = spk
        return a

    return 100 * DiarizationErrorRate(collar=0.0, skip_overlap=False)(
        annotation(ref), annotation(hyp))


@pytest.fixture(scope="module")
def diar_runs(reference_data, tmp_path_factory):
    root = reference_data / "dover-lap"
    folder = tmp_path_factory.mktemp("diar")
    lines = ['[bundle]', 'task = "diarization"', 'name = "AMI test, VB"', 'metrics = ["der"]']
    for i, m in enumerate(MEETINGS):
        lines += ['', '[[documents]]', f'id = "{m}"', f'time = {i}',
                  f'uri = "{m}.Mix-Headset"', f'references = ["{root / "ref_rttm_test"}"]',
                  f'hypothesis = "{root / "rttm_test_vb"}"']
    bundle = folder / "bundle.toml"
    bundle.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = folder / "out"
    done = subprocess.run(
        [sys.executable, "-m", "llgui", "simulate", str(bundle),
         "--system", "per_recording=diar_clusters",
         "--system", "global=diar_clusters --global-speakers",
         "--oracle", "allies", "--out", str(out), "--quiet", "--format", "json"],
        cwd=REPO, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return root, out


def test_diar_clusters_h0_is_the_bundles_on_per_recording_labels(diar_runs, capsys):
    from llgui.cli.main import main

    root, out = diar_runs
    run = out / "per_recording" / "allies"
    assert main(["score", str(run / "bundle.toml"), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    s_base = {d["id"]: d["scores"]["der"] for d in report["documents"]}
    for m in MEETINGS:
        uri = f"{m}.Mix-Headset"
        # the very turns of the bundle (the run's hyp/ RTTM holds h0 as the system sent it)
        assert _turns(run / "hyp" / f"{m}.rttm", uri) == _turns(root / "rttm_test_vb", uri)
        assert s_base[m] == pytest.approx(
            _pyannote_der(root / "ref_rttm_test", root / "rttm_test_vb", uri), abs=1e-9)


def test_diar_clusters_carries_merges_only_when_told_labels_are_global(diar_runs):
    root, out = diar_runs
    run = out / "global" / "allies"
    changed = [m for m in MEETINGS[1:]
               if _turns(run / "hyp" / f"{m}.rttm", f"{m}.Mix-Headset")
               != _turns(root / "rttm_test_vb", f"{m}.Mix-Headset")]
    assert changed, "with --global-speakers a merge of the first meeting carries on"
    assert _turns(run / "hyp" / "EN2002a.rttm", "EN2002a.Mix-Headset") == _turns(
        root / "rttm_test_vb", "EN2002a.Mix-Headset")
