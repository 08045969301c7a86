"""Inputs users have as they are: an MT document cut from a larger test file by a line range or
by WMT document id, and detection scores as separate target / non-target files."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llgui.io.bundle import load_bundle
from llgui.io.detection import load_score_pair, pair_name
from llgui.io.text import load_docids, parse_line_range
from tests.io.helpers import problems, write

REF = "wmt23-general/txt/references/generaltest2023.de-en.ref.refA.en"
SRC = "wmt23-general/txt/sources/generaltest2023.de-en.src.de"
HYP = "wmt23-general/txt/system-outputs/generaltest2023.de-en.hyp.ONLINE-B.en"


def at(path, needle: str) -> int:
    """The bundle line holding `needle` (the test's own locator)."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def mt_bundle(folder, documents: str):
    return write(folder / "bundle.toml", '[bundle]\ntask = "mt"\n' + documents)


def document(extra: str, **paths) -> str:
    files = "\n".join(f'{k} = "{v}"' for k, v in paths.items())
    return f'\n[[documents]]\nid = "d1"\ntime = 1\n{files}\n{extra}\n'


@pytest.fixture
def small(tmp_path):
    write(tmp_path / "ref.txt", "".join(f"ref {i}\n" for i in range(1, 11)))
    write(tmp_path / "hyp.txt", "".join(f"hyp {i}\n" for i in range(1, 11)))
    write(tmp_path / "src.txt", "".join(f"src {i}\n" for i in range(1, 11)))
    write(tmp_path / "ids.txt", "a\na\na\nb\tde\nb\tde\nc\nc\nc\nc\nc\n")
    return tmp_path


# -- line ranges ------------------------------------------------------------------------------


def test_line_range_cuts_references_hypothesis_and_source(small):
    path = mt_bundle(small, document('lines = "3-5"', references="ref.txt", hypothesis="hyp.txt",
                                     source="src.txt"))
    (doc,) = load_bundle(path).documents
    assert doc.hypothesis == ("hyp 3", "hyp 4", "hyp 5")
    assert doc.references == (("ref 3", "ref 4", "ref 5"),)
    assert doc.source == ("src 3", "src 4", "src 5")


def test_log_lines_count_from_the_first_line_of_the_range(small):
    write(small / "log.jsonl", json.dumps({"doc": "d1", "step": 1, "initiative": "active",
                                           "kind": "reference", "target": {"sentence": 4}})
          + "\n")
    path = mt_bundle(small, document('lines = "3-5"', references="ref.txt", hypothesis="hyp.txt")
                     + '[interactions]\nlog = "log.jsonl"\n')
    text = path.read_text()
    found = problems(load_bundle, path)
    assert found == [(str(small / "log.jsonl"), 1, "target sentence 4 is beyond the last segment "
                                                   "of document 'd1' (3 segments)")], text


@pytest.mark.parametrize("value, reason", [
    ('"5-3"', "lines '5-3': the last line comes before the first"),
    ('"0-3"', "lines '0-3': line numbers start at 1"),
    ('"3"', 'lines must be a range "FIRST-LAST" of 1-based line numbers, e.g. "131-260"; '
            "not '3'"),
    ("3", 'lines must be a range "FIRST-LAST" of 1-based line numbers, e.g. "131-260"; '
          "not a number"),
    ('"a-b"', 'lines must be a range "FIRST-LAST" of 1-based line numbers, e.g. "131-260"; '
              "not 'a-b'"),
])
def test_bad_line_ranges_are_reported_at_their_line(small, value, reason):
    path = mt_bundle(small, document(f"lines = {value}", references="ref.txt",
                                     hypothesis="hyp.txt"))
    assert problems(load_bundle, path) == [(str(path), at(path, "lines ="), reason)]


def test_a_range_past_the_end_of_a_file_names_the_file(small):
    write(small / "short.txt", "r1\nr2\nr3\n")
    path = mt_bundle(small, document('lines = "2-6"', references="short.txt",
                                     hypothesis="hyp.txt"))
    assert problems(load_bundle, path) == [
        (str(path), at(path, "references"), "references file 'short.txt' has 3 lines; lines = \"2-6\" needs at "
                       "least 6")]


def test_parse_line_range():
    assert parse_line_range("131-260") == (131, 260)
    assert parse_line_range(" 7 - 7 ") == (7, 7)
    with pytest.raises(ValueError):
        parse_line_range("1-2-3")


def test_wmt23_line_range_scores_as_the_cut_files(reference_data, tmp_path):
    """A range of the real WMT23 test set scores exactly as the same lines cut by hand."""
    import sacrebleu

    path = mt_bundle(tmp_path, document('lines = "131-260"', references=reference_data / REF,
                                        hypothesis=reference_data / HYP,
                                        source=reference_data / SRC))
    (doc,) = load_bundle(path).documents
    refs = (reference_data / REF).read_text(encoding="utf-8").split("\n")[130:260]
    hyps = (reference_data / HYP).read_text(encoding="utf-8").split("\n")[130:260]
    assert doc.n_segments == 130 and list(doc.references[0]) == refs
    from llgui.core.scoring import score_bundle

    (bleu,) = score_bundle(load_bundle(path), ("bleu",))
    assert bleu.pooled == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-9)


# -- WMT document ids ----------------------------------------------------------------------


def test_docid_takes_the_lines_of_one_document(small):
    path = mt_bundle(small, document('docids = "ids.txt"\ndocid = "b"', references="ref.txt",
                                     hypothesis="hyp.txt", source="src.txt"))
    (doc,) = load_bundle(path).documents
    assert doc.hypothesis == ("hyp 4", "hyp 5") and doc.source == ("src 4", "src 5")


def test_docid_defaults_to_the_document_id(small):
    text = document('docids = "ids.txt"', references="ref.txt", hypothesis="hyp.txt")
    path = mt_bundle(small, text.replace('id = "d1"', 'id = "c"'))
    (doc,) = load_bundle(path).documents
    assert doc.hypothesis == tuple(f"hyp {i}" for i in range(6, 11))


def test_docid_bad_inputs(small):
    path = mt_bundle(small, document('docids = "ids.txt"\ndocid = "zz"', references="ref.txt",
                                     hypothesis="hyp.txt"))
    assert problems(load_bundle, path) == [
        (str(path), at(path, "docid ="), "document id 'zz' is not in docids file 'ids.txt' (its 3 ids: a, b, c)")]
    path = mt_bundle(small, document('docid = "a"', references="ref.txt", hypothesis="hyp.txt"))
    assert problems(load_bundle, path) == [
        (str(path), at(path, "docid ="), "docid needs docids = the doc-id file of the test set (one document id "
                       "per line)")]
    path = mt_bundle(small, document('docids = "ids.txt"\nlines = "1-2"', references="ref.txt",
                                     hypothesis="hyp.txt"))
    assert problems(load_bundle, path) == [
        (str(path), at(path, "lines ="), "give either lines or docids (+ docid), not both")]
    path = mt_bundle(small, document('docids = "nope.txt"\ndocid = "a"', references="ref.txt",
                                     hypothesis="hyp.txt"))
    assert problems(load_bundle, path) == [
        (str(path), at(path, "docids ="), "docids file 'nope.txt' not found")]


def test_docids_file_must_be_as_long_as_the_test_set(small):
    write(small / "few.txt", "a\nb\n")
    path = mt_bundle(small, document('docids = "few.txt"\ndocid = "a"', references="ref.txt",
                                     hypothesis="hyp.txt"))
    reason = "file 'X' has 10 lines but docids file 'few.txt' has 2 (one document id per line " \
             "of the test set)"
    assert problems(load_bundle, path) == [
        (str(path), at(path, "references"), reason.replace("file 'X'", "references file 'ref.txt'")),
        (str(path), at(path, "hypothesis"), reason.replace("file 'X'", "hypothesis file 'hyp.txt'"))]


def test_docids_file_problems_at_their_line(small):
    write(small / "gap.txt", "a\n\nb\n")
    assert problems(load_docids, small / "gap.txt") == [
        (str(small / "gap.txt"), 2, "no document id on this line (one id per line of the test "
                                    "set)")]
    assert load_docids(small / "ids.txt")[3] == "b"


# -- target / non-target score files --------------------------------------------------------


def det_bundle(folder, body: str):
    return write(folder / "det.toml", '[bundle]\ntask = "detection"\n[detection]\n' + body)


def test_published_eers_from_target_and_nontarget_files(reference_data, expected, tmp_path):
    """bob.measure's ROCCH EER (published) and pyeer's example files, loaded as pairs."""
    from llgui.core.detection.det import evaluate_systems

    cases = [e for e in expected["detection"] if "target" in e]
    pyeer = next(e for e in expected["detection"] if "cases" in e)
    pairs = [(c["target"], c["nontarget"]) for c in cases] + [
        (c["target"], c["nontarget"]) for c in pyeer["cases"].values()]
    path = det_bundle(tmp_path, "targets = [%s]\nnontargets = [%s]\n" % (
        ", ".join(f'"{reference_data / t}"' for t, _ in pairs),
        ", ".join(f'"{reference_data / n}"' for _, n in pairs)))
    trials = load_bundle(path).detection
    assert [t.name for t in trials] == ["derived_nonsep", "derived_linsep", "exp1", "exp2"]
    results = evaluate_systems(trials, (0.01, 1.0, 1.0), "rocch")
    assert results[0].eer == pytest.approx(
        cases[0]["published"]["ROCCH_BOSARIS_1.06"]["EER"], abs=1e-12)
    assert results[1].eer == pytest.approx(cases[1]["published"]["ROCCH_EER"], abs=1e-12)
    for result, case in zip(results[2:], pyeer["cases"].values()):
        assert result.eer == pytest.approx(case["ROCCH_EER"], abs=1e-9)
    for t, case in zip(trials[2:], pyeer["cases"].values()):
        assert (t.n_target, t.n_nontarget) == (case["n_target"], case["n_nontarget"])


def test_pair_file_equals_the_two_column_file(reference_data):
    pair = load_score_pair(reference_data / "bob-measure/derived_nonsep-positives.txt",
                           reference_data / "bob-measure/derived_nonsep-negatives.txt")
    rows = [line.split() for line in
            (reference_data / "bob-measure/derived_nonsep_trials.txt").read_text().splitlines()]
    assert np.array_equal(pair.scores, [float(s) for s, _ in rows])
    assert np.array_equal(pair.is_target, [label == "target" for _, label in rows])


def test_pair_names():
    assert pair_name("x/exp1_true.txt", "x/exp1_false.txt") == "exp1"
    assert pair_name("pos.txt", "neg.txt") == "pos"


def test_pair_bad_inputs(tmp_path):
    write(tmp_path / "t.txt", "1.5\n2 target\nnan\n")
    write(tmp_path / "n.txt", "")
    assert problems(load_score_pair, tmp_path / "t.txt", tmp_path / "n.txt") == [
        (str(tmp_path / "t.txt"), 2, "expected 1 fields (one score per line), got 2"),
        (str(tmp_path / "t.txt"), 3, "score 'nan' is not a finite number"),
        (str(tmp_path / "n.txt"), 0, "file is empty")]
    write(tmp_path / "t.txt", "1.5\ninf\n")
    write(tmp_path / "n.txt", "0.5\n")
    assert problems(load_score_pair, tmp_path / "t.txt", tmp_path / "n.txt") == [
        (str(tmp_path / "t.txt"), 2, "score 'inf' is not a finite number")]


def test_pair_bundle_bad_inputs(tmp_path):
    write(tmp_path / "a_t.txt", "1\n2\n")
    write(tmp_path / "a_n.txt", "0\n")
    path = det_bundle(tmp_path, 'targets = ["a_t.txt", "a_t.txt"]\nnontargets = ["a_n.txt"]\n')
    assert problems(load_bundle, path) == [
        (str(path), 5, "nontargets has 1 entries but targets has 2 (paired by position)")]
    path = det_bundle(tmp_path, 'targets = ["a_t.txt"]\n')
    assert problems(load_bundle, path) == [
        (str(path), 4, "targets needs nontargets = [...] (one file of each per system)")]
    path = det_bundle(tmp_path, 'targets = ["a_t.txt", "a_t.txt"]\n'
                                'nontargets = ["a_n.txt", "missing.txt"]\n')
    assert problems(load_bundle, path) == [
        (str(path), 5, "nontargets file 'missing.txt' not found")]
    path = det_bundle(tmp_path, 'targets = ["a_t.txt", "a_t.txt"]\n'
                                'nontargets = ["a_n.txt", "a_n.txt"]\n')
    assert problems(load_bundle, path) == [
        (str(path), 4, "system name 'a' is given twice (first at line 4); set names = [...] "
                       "to tell them apart")]
    path = det_bundle(tmp_path, 'targets = ["a_t.txt", "a_t.txt"]\n'
                                'nontargets = ["a_n.txt", "a_n.txt"]\nnames = ["x", "x"]\n')
    assert problems(load_bundle, path) == [
        (str(path), 6, "system name 'x' is given twice (first at line 6); set names = [...] "
                       "to tell them apart")]


def test_a_huge_range_fails_on_the_file_length_not_on_memory(small):
    path = mt_bundle(small, document('lines = "2-999999999999"', references="ref.txt",
                                     hypothesis="hyp.txt"))
    found = problems(load_bundle, path)
    assert [reason for _, _, reason in found] == [
        "references file 'ref.txt' has 10 lines; lines = \"2-999999999999\" needs at least "
        "999999999999",
        "hypothesis file 'hyp.txt' has 10 lines; lines = \"2-999999999999\" needs at least "
        "999999999999"]


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=300))
def test_fuzz_docids_and_score_pairs(tmp_path_factory, data):
    from tests.io.helpers import only_load_errors
    from llgui.core.types import Trials

    folder = tmp_path_factory.mktemp("fuzz")
    write(folder / "f.txt", data)
    write(folder / "ok.txt", "1\n2\n")
    only_load_errors(load_docids, folder / "f.txt", tuple)
    only_load_errors(load_score_pair, folder / "f.txt", Trials, folder / "ok.txt")


def test_pairs_beside_score_files(tmp_path):
    write(tmp_path / "a_t.txt", "1\n2\n")
    write(tmp_path / "a_n.txt", "0\n")
    write(tmp_path / "sysB.txt", "1 target\n0 nontarget\n")
    path = det_bundle(tmp_path, 'scores = ["sysB.txt"]\ntargets = ["a_t.txt"]\n'
                                'nontargets = ["a_n.txt"]\n')
    assert [t.name for t in load_bundle(path).detection] == ["sysB", "a"]
    path = det_bundle(tmp_path, 'scores = ["sysB.txt"]\ntargets = ["a_t.txt"]\n'
                                'nontargets = ["a_n.txt"]\nnames = ["sysB"]\n')
    assert problems(load_bundle, path) == [
        (str(path), 5, "system name 'sysB' is also a scores file's stem; set names = [...] to "
                       "tell them apart")]


def test_a_hypothesis_longer_than_its_references_is_named_not_cut(small):
    """A whole output with a line too many was cut by the range and loaded (outsider
    helper-49, in a campaign): every selected segment would be its neighbour's. A source
    file is not held to it (it is shown, not scored)."""
    write(small / "long.txt", "extra\n" + "".join(f"hyp {i}\n" for i in range(1, 11)))
    path = mt_bundle(small, document('lines = "2-4"', references="ref.txt",
                                     hypothesis="long.txt"))
    assert [reason for _, _, reason in problems(load_bundle, path)] == [
        "hypothesis file 'long.txt' has 11 lines but its references have 10: lines = \"2-4\" "
        "takes the same lines of both, and a line too many shifts every segment after it"]
    write(small / "short.txt", "".join(f"hyp {i}\n" for i in range(1, 10)))   # line 10 gone
    path = mt_bundle(small, document('lines = "2-4"', references="ref.txt",
                                     hypothesis="short.txt"))
    assert [reason for _, _, reason in problems(load_bundle, path)] == [
        "hypothesis file 'short.txt' has 9 lines but its references have 10: lines = \"2-4\" "
        "takes the same lines of both, and a line too few shifts every segment after it"]
    path = mt_bundle(small, document('lines = "2-4"', references="ref.txt",
                                     hypothesis="hyp.txt"))
    assert load_bundle(path).documents[0].hypothesis == ("hyp 2", "hyp 3", "hyp 4")
