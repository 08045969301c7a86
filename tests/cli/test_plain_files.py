"""Plain files without a bundle, standard input, settings as flags (issue 24).

`llgui score --ref REF [--hyp HYP]` as `sacrebleu REF < HYP`, `llgui replay --ref --hyp --log`,
RTTM/MDTM as pyannote-metrics reads them; `--collar`, `--skip-overlap`, `-tok`, `-lc`,
`--trg-lang` over a bundle's [settings], checked as bundle settings are.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DEMO, REPO

MT = DEMO / "mt"
DIAR = DEMO / "diarization"
DOC = "news-2023-01-09"
REF, HYP, SRC = (MT / "ref" / f"{DOC}.drm", MT / "hyp" / f"{DOC}.drm", MT / "src" / f"{DOC}.ulv")
URIS = ("NEWS_20230306", "NEWS_20230313", "NEWS_20230320", "NEWS_20230327", "NEWS_20230403")


def llgui(*args, stdin: bytes | None = None, cwd: Path = REPO):
    """The command as a user runs it: a process, its exit code, stdout and stderr."""
    out = subprocess.run([sys.executable, "-m", "llgui", *map(str, args)], cwd=cwd,
                         input=stdin if stdin is not None else b"",
                         capture_output=True, timeout=600,
                         env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    return out.returncode, out.stdout.decode(), out.stderr.decode()


def in_process(*args, stdin: bytes | None = None, cwd: Path | None = None):
    """The same command through the same entry point (`python -m llgui` is
    `llgui.__main__.main`) in this process: its exit code, stdout and stderr. For what is
    not the process's own behaviour (the options, the files read, the numbers, the
    messages); every path the real process matters for (standard input, exit 2 of a bad line,
    the replay of a piped log) keeps a test through `llgui` above. A process costs a second of
    imports: run in-process, this module takes a third of the CPU it did."""
    import contextlib
    import io
    import os

    from llgui.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    stdin_was, cwd_was = sys.stdin, Path.cwd()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8")
    try:
        os.chdir(cwd or REPO)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as exit_:   # argparse's errors
                code = exit_.code
    finally:
        sys.stdin = stdin_was
        os.chdir(cwd_was)
    return code, out.getvalue(), err.getvalue()


def scored(text: str) -> dict:
    """A report without the two keys that name where it came from."""
    report = json.loads(text)
    report.pop("bundle", None)
    report.pop("name", None)
    return report


@pytest.fixture(scope="module")
def one_document(tmp_path_factory) -> Path:
    """One document of the MT demo as a bundle of its own (its log lines and adapted files
    copied): the same documents the plain files give."""
    folder = tmp_path_factory.mktemp("one")
    (folder / "logs").mkdir()
    shutil.copytree(MT / "logs" / "adapted", folder / "logs" / "adapted")
    lines = [line for line in (MT / "logs" / "system.jsonl").read_text().splitlines()
             if json.loads(line)["doc"] == DOC]
    assert len(lines) > 3
    (folder / "logs" / "system.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["bleu", "chrf", "ter"]\n\n'
        f'[[documents]]\nid = "{DOC}"\ntime = 0\nreferences = ["{REF}"]\n'
        f'hypothesis = "{HYP}"\nsource = "{SRC}"\n\n'
        '[interactions]\nlog = "logs/system.jsonl"\n')
    return folder


def test_plain_mt_files_score_as_the_bundle_does(one_document):
    code, from_bundle, err = in_process("score", one_document / "bundle.toml", "--format", "json")
    assert code == 0, err
    log = one_document / "logs" / "system.jsonl"
    code, plain, err = in_process("score", "--ref", REF, "--hyp", HYP, "--src", SRC, "--log", log,
                             "--format", "json")
    assert code == 0, err
    assert scored(plain) == scored(from_bundle)
    assert "penalised" in json.loads(plain)   # the log was read: the penalised scores too


def test_the_hypothesis_on_standard_input_as_sacrebleu_reads_it():
    """`llgui score --ref REF < HYP` gives sacrebleu's corpus BLEU and chrF of the pair."""
    import sacrebleu

    code, out, err = llgui("score", "--ref", REF, "--format", "json", stdin=HYP.read_bytes())
    assert code == 0, err
    report = json.loads(out)
    hyp = HYP.read_text(encoding="utf-8").splitlines()
    ref = REF.read_text(encoding="utf-8").splitlines()
    assert report["name"] == "<stdin>"
    assert report["metrics"]["bleu"]["score"] == pytest.approx(
        sacrebleu.corpus_bleu(hyp, [ref]).score, abs=1e-9)
    assert report["metrics"]["chrf"]["score"] == pytest.approx(
        sacrebleu.corpus_chrf(hyp, [ref]).score, abs=1e-9)


def test_replay_of_plain_files_and_of_a_log_on_standard_input(one_document):
    code, from_bundle, err = in_process("replay", one_document / "bundle.toml", "--doc", DOC,
                                   "--format", "json")
    assert code == 0, err
    log = one_document / "logs" / "system.jsonl"
    code, plain, err = in_process("replay", "--ref", REF, "--hyp", HYP, "--log", log,
                             "--format", "json")   # the only document: no --doc needed
    assert code == 0, err
    assert json.loads(plain) == json.loads(from_bundle)
    # the log on standard input: its adapted files are found from the working folder
    code, piped, err = llgui("replay", "--ref", REF, "--hyp", HYP, "--log", "-", "--format",
                             "json", stdin=log.read_bytes(), cwd=log.parent)
    assert code == 0, err
    assert json.loads(piped) == json.loads(from_bundle)
    assert json.loads(piped)["n_steps"] > 3


def test_mt_flags_are_sacrebleu_options():
    """-lc and -tok reach sacrebleu: BLEU equals sacrebleu's with the same options, and the
    signature says so."""
    import sacrebleu

    code, out, err = in_process("score", "--ref", REF, "--hyp", HYP, "-lc", "-tok", "intl",
                           "--metric", "bleu", "--format", "json")
    assert code == 0, err
    bleu = json.loads(out)["metrics"]["bleu"]
    hyp = HYP.read_text(encoding="utf-8").splitlines()
    ref = REF.read_text(encoding="utf-8").splitlines()
    expected = sacrebleu.corpus_bleu(hyp, [ref], lowercase=True, tokenize="intl")
    assert bleu["score"] == pytest.approx(expected.score, abs=1e-9)
    assert expected.score != pytest.approx(sacrebleu.corpus_bleu(hyp, [ref]).score, abs=1e-6)
    assert "case:lc" in bleu["signature"] and "tok:intl" in bleu["signature"]


@pytest.fixture(scope="module")
def diar_files(tmp_path_factory) -> dict:
    """The diarization demo as plain files: one hypothesis RTTM of all recordings, and a
    bundle of the same recordings (ids = file fields, times 0..4) with collar 0.5 and
    skip_overlap."""
    folder = tmp_path_factory.mktemp("diar")
    hyp = folder / "all.rttm"
    hyp.write_text("".join((DIAR / "hyp" / f"{u}.rttm").read_text() for u in URIS))
    documents = "".join(
        f'[[documents]]\nid = "{u}"\ntime = {i}\nreferences = ["{DIAR / "ref" / "shows.rttm"}"]'
        f'\nhypothesis = "{hyp}"\nuem = "{DIAR / "uem" / "shows.uem"}"\n\n'
        for i, u in enumerate(URIS))
    bundle = folder / "bundle.toml"
    bundle.write_text('[bundle]\ntask = "diarization"\nmetrics = ["der", "jer"]\n\n'
                      '[settings]\ncollar = 0.5\nskip_overlap = true\n\n' + documents)
    plain = folder / "plain.toml"   # the same without settings: the flags give them
    plain.write_text('[bundle]\ntask = "diarization"\nmetrics = ["der", "jer"]\n\n'
                     + documents)
    return {"hyp": hyp, "bundle": bundle, "plain": plain}


def test_plain_rttm_with_flags_score_as_a_bundle_with_settings(diar_files):
    ref, uem = DIAR / "ref" / "shows.rttm", DIAR / "uem" / "shows.uem"
    code, from_bundle, err = in_process("score", diar_files["bundle"], "--format", "json")
    assert code == 0, err
    code, plain, err = in_process("score", "--ref", ref, "--hyp", diar_files["hyp"], "--uem", uem,
                             "--collar", "0.5", "--skip-overlap", "--format", "json")
    assert code == 0, err
    assert scored(plain) == scored(from_bundle)
    # flags over a bundle's [settings]: the bundle without settings, given them as flags
    code, flagged, err = in_process("score", diar_files["plain"], "--collar", "0.5",
                               "--skip-overlap", "--format", "json")
    assert code == 0, err
    assert scored(flagged) == scored(from_bundle)


def test_collar_and_skip_overlap_flags_are_pyannotes(diar_files):
    """The pooled DER with --collar 0.5 --skip-overlap is pyannote.metrics' with the same
    options on the same files (and differs from the default's)."""
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.diarization import DiarizationErrorRate

    def annotations(path: Path) -> dict:
        out: dict = {}
        for line in path.read_text().splitlines():
            f = line.split()
            if f and f[0] == "SPEAKER":
                start, dur = float(f[3]), float(f[4])
                out.setdefault(f[1], Annotation(uri=f[1]))[Segment(start, start + dur)] = f[7]
        return out

    refs, hyps = annotations(DIAR / "ref" / "shows.rttm"), annotations(diar_files["hyp"])
    uems: dict = {}
    for line in (DIAR / "uem" / "shows.uem").read_text().splitlines():
        f = line.split()
        if f:
            uems.setdefault(f[0], Timeline(uri=f[0])).add(Segment(float(f[2]), float(f[3])))
    metric = DiarizationErrorRate(collar=0.5, skip_overlap=True)
    for uri in URIS:
        metric(refs[uri], hyps.get(uri, Annotation(uri=uri)), uem=uems[uri])
    code, out, err = in_process("score", "--ref", DIAR / "ref" / "shows.rttm", "--hyp",
                           diar_files["hyp"], "--uem", DIAR / "uem" / "shows.uem",
                           "--collar", "0.5", "--skip-overlap", "--metric", "der",
                           "--format", "json")
    assert code == 0, err
    der = json.loads(out)["metrics"]["der"]["score"]
    assert der == pytest.approx(100 * abs(metric), abs=1e-9)
    code, out, _ = in_process("score", "--ref", DIAR / "ref" / "shows.rttm", "--hyp",
                         diar_files["hyp"], "--uem", DIAR / "uem" / "shows.uem",
                         "--metric", "der", "--format", "json")
    assert json.loads(out)["metrics"]["der"]["score"] != pytest.approx(der, abs=1e-6)


@pytest.mark.parametrize("args, says", [
    (["--ref", REF, "--hyp", HYP, "--collar", "0.5"], "collar is read by der, jer"),
    (["--ref", REF, "--hyp", HYP, "-tok", "nope"], "tokenize must be one of"),
    (["--ref", DIAR / "ref" / "shows.rttm", "--hyp", DIAR / "hyp" / f"{URIS[0]}.rttm",
      "--collar", "-1"], "collar"),
    (["--ref", DIAR / "ref" / "shows.rttm", "--hyp", DIAR / "hyp" / f"{URIS[0]}.rttm",
      "--collar", "nan"], "--collar 'nan'"),
    (["--ref", DIAR / "ref" / "shows.rttm", "--hyp", DIAR / "hyp" / f"{URIS[0]}.rttm",
      "--collar", "1e9"], "collar"),
    (["--ref", DIAR / "ref" / "shows.rttm", "--hyp", DIAR / "hyp" / f"{URIS[0]}.rttm",
      "--trg-lang", "de"], "trg_lang is read by bleu"),
    ([MT / "bundle.toml", "--ref", REF], "a bundle or plain files, not both"),
    (["--ref", "-", "--hyp", HYP], "--ref -"),
    (["--ref", REF, "--hyp", MT / "hyp" / "news-2023-01-9.drm"],
     f"did you mean '{MT / 'hyp' / 'news-2023-01-09.drm'}'"),
    ([MT / "bundel.toml"], f"did you mean '{MT / 'bundle.toml'}'"),
    ([], "give a bundle file, or plain files"),
    ([DEMO / "detection" / "bundle.toml", "--collar", "1"], "no setting flag applies"),
])
def test_bad_inputs_and_flag_values_are_exit_2_on_one_line(args, says):
    code, out, err = in_process("score", *args, stdin=b"")
    assert code == 2, (out, err)
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_a_bad_line_on_standard_input_is_reported_as_stdin():
    code, _, err = llgui("score", "--ref", REF, stdin=b"ok\n\xff\xfe bad\n")
    assert code == 2 and err.startswith("<stdin>:2: "), err
    assert "llgui-stdin-" not in err   # the temporary file is never named


def test_replay_of_plain_files_needs_a_log():
    code, _, err = in_process("replay", "--ref", REF, "--hyp", HYP)
    assert code == 2 and "replay needs the interaction log" in err


def test_a_mistyped_option_is_exit_2_with_the_option_meant():
    code, _, err = in_process("score", MT / "bundle.toml", "--colar", "0.5")
    assert code == 2 and "unrecognized arguments: --colar 0.5; did you mean --collar?" in err
    code, _, err = in_process("det", "--dfc", "0.1,1,1")
    assert code == 2 and "did you mean --dcf?" in err


def test_every_missing_input_of_det_and_campaign_says_which_file_was_meant():
    scores = DEMO / "detection" / "scores"
    code, _, err = in_process("det", scores / "sysa.txt", scores / "sysB.txt", scores / "nope.txt")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 2, err
    assert lines[0] == f"{scores / 'sysa.txt'}: no such file; did you mean '{scores / 'sysA.txt'}'?"
    assert lines[1] == f"{scores / 'nope.txt'}: no such file"
    code, _, err = in_process("campaign", DEMO / "campaign" / "campain.toml")
    assert code == 2 and f"did you mean '{DEMO / 'campaign' / 'campaign.toml'}'?" in err


def test_an_rttm_hypothesis_on_standard_input_scores_as_the_file():
    ref, hyp = DIAR / "ref" / "shows.rttm", DIAR / "hyp" / f"{URIS[0]}.rttm"
    code, named, err = in_process("score", "--ref", ref, "--hyp", hyp, "--format", "json")
    assert code == 0, err
    code, piped, err = llgui("score", "--ref", ref, "--format", "json", stdin=hyp.read_bytes())
    assert code == 0, err
    assert scored(piped) == scored(named) and json.loads(piped)["task"] == "diarization"
