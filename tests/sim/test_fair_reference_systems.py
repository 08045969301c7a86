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
from pathlib import Path

import pytest


def _llgui(args: list[str]) -> subprocess.CompletedProcess:
    """`llgui ARGS`'s own entry point, in this process (the reference systems stay real
    subprocesses of the simulation; a second interpreter for llgui cost ~0.7 s of CPU)."""
    import contextlib
    import io

    from llgui.cli.main import main

    printed, said = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(said):
        code = main(args)
    return subprocess.CompletedProcess(["llgui", *args], code, printed.getvalue(),
                                       said.getvalue())

MEETINGS = ("EN2002a", "EN2002b", "EN2002c", "EN2002d")


def _turns(path: Path, uri: str) -> list[tuple[float, float, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        f = line.split()
        if f and f[0] == "SPEAKER" and f[1] == uri and float(f[4]) > 0:
            out.append((round(float(f[3]), 6), round(float(f[3]) + float(f[4]), 6), f[7]))
    return sorted(out)


def _pyannote_der(ref: Path, hyp: Path, uri: str) -> float:
    """pyannote.metrics' DER (collar 0, overlaps scored, the union of the extents) of one
    meeting, by `PyannoteDER`: pyannote itself (uemify, its co-occurrence matrix, the
    Hungarian mapping of the summed matrix, IdentificationErrorRate) on 5-minute pieces cut in
    the reference's silences, where cutting changes nothing; tests/core/test_pyannote_pieces.py
    holds it equal to DiarizationErrorRate on whole AMI meetings. On these four hour-long
    meetings DiarizationErrorRate on the whole took 3-4 s of CPU (its crop grows with the
    product of the segment counts), the pieces a fraction of that."""
    from llgui.core.diarization.reference import PyannoteDER
    from llgui.core.types import Turn

    reference = [Turn(s, e, spk) for s, e, spk in _turns(ref, uri)]
    hypothesis = [Turn(s, e, spk) for s, e, spk in _turns(hyp, uri)]
    components = PyannoteDER(reference, None, 0.0, False)(hypothesis)
    return 100 * components.error / components.total


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
    done = _llgui(["simulate", str(bundle),
                   "--system", "per_recording=diar_clusters",
                   "--system", "global=diar_clusters --global-speakers",
                   "--oracle", "allies", "--out", str(out), "--quiet", "--format", "json"])
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


# -- mt_memory on Japanese ----------------------------------------------------------------------

JA_REFS = [
    ["今日は機械翻訳の研究について話します。", "機械翻訳は多くの言語で使われています。",
     "私たちの機械翻訳システムは新しいです。", "学生は機械翻訳を毎日使います。",
     "この会議では機械翻訳の評価を議論します。", "機械翻訳の品質は向上しました。"],
    ["新しい機械翻訳の論文を読みました。", "先生は機械翻訳が好きです。",
     "機械翻訳の速度も大切です。", "明日も機械翻訳について学びます。"],
]
"""A term every sentence repeats; the hypothesis writes it wrong everywhere (通訳 for 翻訳)."""


@pytest.fixture(scope="module")
def ja_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ja")
    lines = ['[bundle]', 'task = "mt"', 'name = "ja"', 'metrics = ["chrf"]']
    for k, refs in enumerate(JA_REFS):
        (folder / f"ref{k}.ja").write_text("\n".join(refs) + "\n", encoding="utf-8")
        (folder / f"hyp{k}.ja").write_text(
            "\n".join(r.replace("機械翻訳", "機械通訳") for r in refs) + "\n", encoding="utf-8")
        lines += ['', '[[documents]]', f'id = "d{k}"', f'time = {k}',
                  f'references = ["ref{k}.ja"]', f'hypothesis = "hyp{k}.ja"']
    bundle = folder / "bundle.toml"
    bundle.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = folder / "out"
    done = _llgui(["simulate", str(bundle), "--system", "mt_memory",
                   "--oracle", "worst-first", "--mode", "interactive", "--budget", "25",
                   "--out", str(out), "--quiet"])
    assert done.returncode == 0, done.stderr
    return out


def test_mt_memory_generalises_below_the_word_on_japanese(ja_run, capsys):
    from sacrebleu.metrics import CHRF

    from llgui.cli.main import main

    assert main(["replay", str(ja_run / "bundle.toml"), "--doc", "d0", "--format",
                 "json"]) == 0
    replay = json.loads(capsys.readouterr().out)
    assert len(replay["steps"]) == 1   # one sentence corrected (the budget: 25 characters)
    net = replay["s_pen"] - replay["s_pen_memorise"]
    assert net > 0, replay
    # the correction reached every other sentence: after the one step, every line is its
    # reference (chrF 100 from sacrebleu on the adapted lines)
    refs = JA_REFS[0]
    assert replay["s_adapt"] == pytest.approx(CHRF().corpus_score(refs, [refs]).score)
    # and the next document starts from what was learned: its h0 is its reference
    h0 = (ja_run / "hyp" / "d1.txt").read_text(encoding="utf-8").splitlines()
    assert h0 == JA_REFS[1]
