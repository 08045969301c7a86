"""Numbers that are no result are not printed as one (issue 9, items 10 to 13).

- a diarization document where nothing is scored (UEM outside the speech, a collar wider than
  every turn): "nothing scored", no number, and a warning at the bundle's line;
- a document without steps: "(no steps)" in tables, `"steps": 0` in JSON, no learning-curve
  area without cost;
- error messages never echo a line of a file that is not in our formats.
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest

from llgui.cli.main import main

REF = "SPEAKER f 1 0.0 4.0 <NA> <NA> A <NA> <NA>\nSPEAKER f 1 4.0 3.0 <NA> <NA> B <NA> <NA>\n"
HYP = "SPEAKER f 1 0.0 5.0 <NA> <NA> s1 <NA> <NA>\nSPEAKER f 1 5.0 2.0 <NA> <NA> s2 <NA> <NA>\n"


def run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def diar_bundle(tmp_path, settings: str = "", uem: str | None = None):
    (tmp_path / "ref.rttm").write_text(REF)
    (tmp_path / "hyp.rttm").write_text(HYP)
    doc = '[[documents]]\nid = "d1"\ntime = 1\nuri = "f"\nreferences = ["ref.rttm"]\n' \
          'hypothesis = "hyp.rttm"\n'
    if uem is not None:
        (tmp_path / "all.uem").write_text(uem)
        doc += 'uem = "all.uem"\n'
    text = f'[bundle]\ntask = "diarization"\n[settings]\n{settings}\n{doc}'
    path = tmp_path / "bundle.toml"
    path.write_text(text)
    return path, next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("id"))


@pytest.mark.parametrize("settings, uem, why", [
    ("", "f 1 10.0 20.0\n", "its UEM misses all reference speech"),
    ("collar = 10.0", None, "collar 10 s is at least as wide as its longest reference turn"),
])
def test_nothing_scored_says_so_instead_of_a_number(tmp_path, settings, uem, why):
    path, line = diar_bundle(tmp_path, settings, uem)
    code, out, err = run("score", path, "--format", "json")
    assert code == 0, err
    assert err.startswith(f"{path}:{line}: warning: document 'd1': {why}"), err
    report = json.loads(out)
    doc = report["documents"][0]
    assert doc["scores"] == {"der": None, "jer": None}
    assert doc["notes"] == {"der": "nothing scored", "jer": "nothing scored"}
    assert report["aggregates"]["der"]["pooled"] is None
    code, out, _ = run("score", path)
    row = next(line for line in out.splitlines() if line.startswith("d1 "))
    assert "nothing scored" in row and "0.00" not in row and "100.00" not in row


def test_a_scored_document_gets_no_warning(tmp_path):
    path, _ = diar_bundle(tmp_path, "collar = 0.5", "f 1 0.0 20.0\n")
    code, out, err = run("score", path, "--format", "json")
    assert (code, err) == (0, "")
    assert json.loads(out)["documents"][0]["scores"]["der"] > 0


# ---- documents without steps ------------------------------------------------------------

@pytest.fixture
def mt_with_and_without_steps(tmp_path):
    for doc in ("a", "b"):
        (tmp_path / f"{doc}.ref").write_text("the cat sat on the mat\na dog barks\n")
        (tmp_path / f"{doc}.hyp").write_text("the cat sat on a mat\na dog barked\n")
    (tmp_path / "log.jsonl").write_text(json.dumps(
        {"doc": "a", "step": 1, "initiative": "active", "kind": "reference",
         "target": {"sentence": 2}, "adapted": {"lines": {"2": "a dog barks"}}}) + "\n")
    docs = "".join(f'[[documents]]\nid = "{d}"\ntime = {i}\nreferences = ["{d}.ref"]\n'
                   f'hypothesis = "{d}.hyp"\n' for i, d in enumerate("ab"))
    path = tmp_path / "bundle.toml"
    path.write_text('[bundle]\ntask = "mt"\nmetrics = ["bleu"]\n' + docs
                    + '[interactions]\nlog = "log.jsonl"\n')
    return path


def test_a_document_without_steps_is_marked(mt_with_and_without_steps):
    path = mt_with_and_without_steps
    code, out, _ = run("score", path, "--format", "json")
    entries = {d["id"]: d["penalised"]["bleu"] for d in json.loads(out)["documents"]}
    assert (entries["a"]["steps"], entries["b"]["steps"]) == (1, 0)
    code, out, _ = run("score", path)
    row_b = next(line for line in out.splitlines() if line.startswith("b "))
    assert row_b.rstrip().endswith("(no steps)")


def test_no_learning_curve_area_without_cost(mt_with_and_without_steps):
    code, out, _ = run("replay", mt_with_and_without_steps, "--doc", "b")
    assert code == 0
    assert "normalised by cost 0.0" not in out
    assert "learning-curve area: none (no cost)" in out and "(no steps" in out
    code, out, _ = run("replay", mt_with_and_without_steps, "--doc", "b", "--format", "json")
    report = json.loads(out)
    assert report["curve_area"] is None and report["n_steps"] == 0


# ---- actDCF on scores that are not log-likelihood ratios --------------------------------

def test_calibrated_gaussian_llrs_raise_no_warning_and_rescaled_ones_do():
    import numpy as np

    from llgui.core.detection.det import bayes_threshold
    from llgui.core.detection.llr import llr_warning

    # target ~ N(d2/2, d2), non-target ~ N(-d2/2, d2) are exactly calibrated LLRs
    rng = np.random.default_rng(0)
    d2 = 4.0
    tar = rng.normal(d2 / 2, d2 ** 0.5, 3000)
    non = rng.normal(-d2 / 2, d2 ** 0.5, 3000)
    scores = np.concatenate([tar, non])
    labels = np.concatenate([np.ones(3000, bool), np.zeros(3000, bool)])
    t = bayes_threshold(0.01, 1.0, 1.0)
    assert llr_warning(scores, labels, t) is None
    assert "E[exp" in llr_warning(scores * 5, labels, t)            # over-confident
    assert "every score is" in llr_warning(scores / 100 + 0.5, labels, t)  # probabilities
    assert "not plausible" in llr_warning(scores * 100, labels, t)


def test_det_warns_when_act_dcf_cannot_mean_anything(reference_data):
    bob = reference_data / "bob-measure" / "derived_nonsep_trials.txt"
    code, out, _ = run("det", bob)
    assert code == 0 and "89.1000 !" in out
    assert "cannot be: E[exp(-s) | target]" in out
    code, out, _ = run("det", bob, "--format", "json")
    assert "calibrated log-likelihood ratios give 1" in json.loads(out)["systems"][0][
        "act_dcf_warning"]
    code, out, _ = run("det", bob, "--calibrated", "derived_nonsep_trials", "--format", "json")
    assert json.loads(out)["systems"][0]["act_dcf_warning"] is None


# ---- messages echo only files in our formats ---------------------------------------------

SECRET = "root:x:0:0:hunter2-SECRET:/root:/bin/bash\ndaemon:x:1:1:SECRET2:/usr/sbin:/bin/sh\n"


@pytest.mark.parametrize("role", ["references", "uem", "log", "lifelong", "key", "scores"])
def test_a_file_of_another_kind_is_not_echoed(tmp_path, role):
    (tmp_path / "passwd").write_text(SECRET)
    (tmp_path / "ref.rttm").write_text(REF)
    (tmp_path / "hyp.rttm").write_text(HYP)
    (tmp_path / "s.txt").write_text("a b 1.0\n")
    (tmp_path / "k.txt").write_text("a b target\n")
    doc = ('[[documents]]\nid = "f"\ntime = 1\nreferences = ["{ref}"]\nhypothesis = "hyp.rttm"\n'
           .format(ref="passwd" if role == "references" else "ref.rttm"))
    extra = {"uem": 'uem = "passwd"\n', "log": '[interactions]\nlog = "passwd"\n',
             "lifelong": '[lifelong]\nscores = "passwd"\n'}.get(role, "")
    if role in ("key", "scores"):
        text = ('[bundle]\ntask = "detection"\n[detection]\nscores = ["{s}"]\nkey = "{k}"\n'
                .format(s="passwd" if role == "scores" else "s.txt",
                        k="passwd" if role == "key" else "k.txt"))
    elif role == "uem":
        text = '[bundle]\ntask = "diarization"\n' + doc + extra
    else:
        text = '[bundle]\ntask = "diarization"\n' + doc + extra
    path = tmp_path / "bundle.toml"
    path.write_text(text)
    code, _, err = run("score", path)
    assert code == 2, err
    assert "SECRET" not in err and "root:x" not in err and "hunter2" not in err, err
    assert "the content is not shown" in err


def test_a_file_of_our_format_with_a_typo_is_still_quoted(tmp_path):
    (tmp_path / "ref.rttm").write_text(REF.replace("4.0 3.0", "4.0 3,5"))
    (tmp_path / "hyp.rttm").write_text(HYP)
    path = tmp_path / "bundle.toml"
    path.write_text('[bundle]\ntask = "diarization"\n[[documents]]\nid = "f"\ntime = 1\n'
                    'references = ["ref.rttm"]\nhypothesis = "hyp.rttm"\n')
    code, _, err = run("score", path)
    assert code == 2 and "duration '3,5' is not a number" in err, err


def test_the_series_says_which_documents_have_no_steps(mt_with_and_without_steps):
    # the across-time plot marks S_pen of these as no result
    from llgui.core.penalty import replay_bundle
    from llgui.io.bundle import load_bundle

    series = replay_bundle(load_bundle(mt_with_and_without_steps), "bleu").series()
    assert series.n_steps.tolist() == [1, 0]
