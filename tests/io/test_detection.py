"""llgui.io.detection: `score label` files, and score files joined to a NIST/Kaldi trial key."""
from __future__ import annotations

import numpy as np
import pytest

from llgui.core.errors import Problems
from llgui.core.types import Trials
from llgui.io.detection import TrialKey, _table_fast, _table_slow, load_key, load_scores
from tests.io.helpers import problems, write

LABELS = "target, nontarget, 1, 0, true, false"
BOTH = "(a DET curve needs target and non-target trials)"


# --------------------------------------------------------------------------------------------
# Good input


def test_score_label_file(tmp_path):
    path = write(tmp_path / "sysA.scores", "\ufeff# a comment\r\n"
                                            "0.5 target\r\n"
                                            "\n"
                                            "  -1.25\tnontarget  \n"
                                            "3 1\n"
                                            "2e-3 0\n"
                                            "7 TRUE\n"
                                            "-7 False\n"
                                            "1 Non-Target\n")
    trials = load_scores(path)
    assert isinstance(trials, Trials)
    assert trials.name == "sysA" and trials.path == str(path)
    np.testing.assert_array_equal(trials.scores, [0.5, -1.25, 3, 0.002, 7, -7, 1])
    np.testing.assert_array_equal(trials.is_target, [1, 0, 1, 0, 1, 0, 0])


def test_key_and_scores(tmp_path):
    key_path = write(tmp_path / "trials.key", "spk1 utt1 target\n"
                                             "spk1 utt2 nontarget\n"
                                             "# comment\n"
                                             "spk2 utt1 nontarget\n")
    scores_path = write(tmp_path / "sys.txt", "spk2 utt1 -3.5\n"
                                              "spk1 utt1 2.0\n"
                                              "spk1 utt2 0.25\n")
    key = load_key(key_path)
    assert isinstance(key, TrialKey)
    assert dict(key) == {("spk1", "utt1"): True, ("spk1", "utt2"): False,
                         ("spk2", "utt1"): False}
    assert list(key.lines) == [1, 2, 4]
    for k in (key, key_path, str(key_path)):
        trials = load_scores(scores_path, key=k)
        np.testing.assert_array_equal(trials.scores, [-3.5, 2.0, 0.25])  # score-file order
        np.testing.assert_array_equal(trials.is_target, [False, True, False])
        assert trials.name == "sys"


def test_fast_and_line_by_line_readers_agree(tmp_path):
    """The bulk reader is taken only for ASCII files; a non-ASCII name takes the careful one."""
    text = "# c\n\nx y 1\r\n  a\tb  -2\n"
    fast = _table_fast(text.encode(), 3)
    slow = _table_slow(text.encode(), Problems("x"), 3, "enroll test score")
    assert fast is not None and fast.cells == slow.cells == [["x", "a"], ["y", "b"], ["1", "-2"]]
    assert list(fast.lines) == list(slow.lines) == [3, 4]
    assert _table_fast("é y 1\n".encode(), 3) is None
    key = write(tmp_path / "k", "José utt target\nMarie utt nontarget\n")
    scores = write(tmp_path / "s", "Marie utt 1\nJosé utt 2\n")
    np.testing.assert_array_equal(load_scores(scores, key).is_target, [False, True])


# --------------------------------------------------------------------------------------------
# Malformed input


def test_field_counts(tmp_path):
    path = str(write(tmp_path / "s.txt", "0.5 target\n0.1\nspk utt 0.3\n0.2 nontarget x y\n"))
    assert problems(load_scores, path) == [
        (path, 2, "expected 2 fields (score label), got 1"),
        (path, 3, "expected 2 fields (score label), got 3; `enroll test score` lines need a "
                  "key file (--key KEY)"),
        (path, 4, "expected 2 fields (score label), got 4"),
    ]


def test_scores_and_labels(tmp_path):
    path = str(write(tmp_path / "s.txt", "abc target\n"
                                         "nan nontarget\n"
                                         "-inf target\n"
                                         "1e999 target\n"
                                         "0.5 tgt\n"
                                         "0.5 imp\n"
                                         "1,5 yes\n"
                                         "0.1 target\n"))
    assert problems(load_scores, path) == [
        (path, 1, "score 'abc' is not a number"),
        (path, 2, "score 'nan' is not a finite number"),
        (path, 3, "score '-inf' is not a finite number"),
        (path, 4, "score '1e999' is not a finite number"),
        (path, 5, f"unknown label 'tgt' (expected one of: {LABELS})"),
        (path, 6, f"unknown label 'imp' (expected one of: {LABELS})"),
        (path, 7, "score '1,5' is not a number"),
        (path, 7, f"unknown label 'yes' (expected one of: {LABELS})"),
    ]


@pytest.mark.parametrize("content, reason", [
    ("0.5 target\n0.1 1\n", f"no non-target trials {BOTH}"),
    ("0.5 nontarget\n0.1 0\n", f"no target trials {BOTH}"),
    ("", "file is empty"),
    ("# only\n# comments\n\n", "no trials"),
])
def test_whole_file_problems(tmp_path, content, reason):
    path = str(write(tmp_path / "s.txt", content))
    assert problems(load_scores, path) == [(path, 0, reason)]


def test_key_problems(tmp_path):
    path = str(write(tmp_path / "trials.key", "a x target\n"
                                              "b x nontarget\n"
                                              "a x nontarget\n"
                                              "c x maybe\n"
                                              "d x\n"
                                              "b x target\n"))
    assert problems(load_key, path) == [
        (path, 3, "duplicate trial a x (first at line 1)"),
        (path, 4, "unknown label 'maybe' (expected one of: target, nontarget, 1, 0, true, false)"),
        (path, 5, "expected 3 fields (enroll test target|nontarget), got 2"),
        (path, 6, "duplicate trial b x (first at line 2)"),
    ]
    only_targets = str(write(tmp_path / "t.key", "a x target\n"))
    assert problems(load_key, only_targets) == [(only_targets, 0, f"no non-target trials {BOTH}")]


def test_join_problems(tmp_path):
    key = write(tmp_path / "trials.key",
                "".join(f"e{i} t {'target' if i % 2 else 'nontarget'}\n" for i in range(10)))
    path = str(write(tmp_path / "sys.txt", "e0 t 0.1\n"
                                           "e1 t 0.2\n"
                                           "zz t 0.3\n"
                                           "e1 t 0.4\n"
                                           "e2 t x\n"))
    assert problems(load_scores, path, key=key) == [
        (path, 3, f"trial zz t is not in the key {key}"),
        (path, 4, "duplicate trial e1 t (first at line 2)"),
        (path, 5, "score 'x' is not a number"),
        (path, 0, f"7 of the 10 trials of the key {key} have no score: e3 t (line 4), e4 t "
                  f"(line 5), e5 t (line 6), e6 t (line 7), e7 t (line 8), ..."),
    ]


def test_bad_key_file_and_bad_score_file_reported_together(tmp_path):
    key = str(write(tmp_path / "trials.key", "a x target\nb x\n"))
    path = str(write(tmp_path / "sys.txt", "a x 0.5\na x 0.7\nb x nope\n"))
    assert problems(load_scores, path, key=key) == [
        (key, 2, "expected 3 fields (enroll test target|nontarget), got 2"),
        (path, 2, "duplicate trial a x (first at line 1)"),
        (path, 3, "score 'nope' is not a number"),
    ]
    missing = str(tmp_path / "nope.key")
    assert problems(load_scores, path, key=missing)[0] == (missing, 0, "file not found")


def test_three_field_scores_without_key_in_bulk(tmp_path):
    """A whole file of `enroll test score` lines read without a key is one problem (the
    demo's 25,000 lines printed 200 of the same line and '24800 more'); among `score label`
    lines each such line is named."""
    path = str(write(tmp_path / "s.txt", "a b 1\n" * 3))
    assert problems(load_scores, path) == [
        (path, 1, "expected 2 fields (score label), got 3 on every one of its 3 lines: "
                  "`enroll test score` lines need a key file (--key KEY)")]
    mixed = str(write(tmp_path / "m.txt", "0.5 target\na b 1\n0.2 nontarget\na c 2\n"))
    hint = ("expected 2 fields (score label), got 3; `enroll test score` lines need a key "
            "file (--key KEY)")
    assert problems(load_scores, mixed) == [(mixed, 2, hint), (mixed, 4, hint)]


# --------------------------------------------------------------------------------------------
# Published data


def test_bob_measure_trials(reference_data):
    folder = reference_data / "bob-measure"
    trials = load_scores(folder / "derived_nonsep_trials.txt")
    positives = [float(x) for x in (folder / "derived_nonsep-positives.txt").read_text().split()]
    negatives = [float(x) for x in (folder / "derived_nonsep-negatives.txt").read_text().split()]
    assert trials.n_target == len(positives) == 50
    assert trials.n_nontarget == len(negatives) == 50
    assert sorted(trials.scores[trials.is_target]) == sorted(positives)
    assert sorted(trials.scores[~trials.is_target]) == sorted(negatives)


def test_key_join_at_scale(tmp_path):
    """200,000 trials joined in a shuffled order: every label lands on its own score."""
    rng = np.random.default_rng(7)
    n = 200_000
    labels = rng.random(n) < 0.3
    key = write(tmp_path / "k", "".join(f"m{i % 997} s{i} {'target' if t else 'nontarget'}\n"
                                        for i, t in enumerate(labels)))
    order = rng.permutation(n)
    write(tmp_path / "s", "".join(f"m{i % 997} s{i} {i}\n" for i in order))
    trials = load_scores(tmp_path / "s", key)
    np.testing.assert_array_equal(trials.scores, order.astype(float))
    np.testing.assert_array_equal(trials.is_target, labels[order])


# -- issue 28: a file of another kind given as a score file is not echoed ----------------------

PASSWD = ("root:x:0:0:root:/root:/bin/bash\n"
          "daemon:x:1:1:daemon user,,,:/usr/sbin:/usr/sbin/nologin\n"
          "secretuser:x:1000:1000:Secret User Name:/home/secretuser:/bin/sh\n")


def test_a_pair_file_of_another_kind_is_not_echoed(tmp_path):
    from llgui.core.errors import LoadError
    from llgui.io.detection import load_score_pair

    foreign = tmp_path / "passwd"
    foreign.write_text(PASSWD)
    scores = tmp_path / "n.txt"
    scores.write_text("0.1\n0.2\n")
    with pytest.raises(LoadError) as caught:
        load_score_pair(foreign, scores)
    text = "\n".join(map(str, caught.value.problems))
    for word in ("root", "daemon", "secret", "nologin", "Secret User"):
        assert word not in text.replace(str(tmp_path), ""), text
    assert "not shown" in text


def test_a_pair_file_of_scores_with_a_typo_still_says_where(tmp_path):
    from llgui.core.errors import LoadError
    from llgui.io.detection import load_score_pair

    targets = tmp_path / "t.txt"
    targets.write_text("0.5\n0.7\nO.9\n")
    scores = tmp_path / "n.txt"
    scores.write_text("0.1\n0.2\n")
    with pytest.raises(LoadError) as caught:
        load_score_pair(targets, scores)
    assert any(p.line == 3 for p in caught.value.problems)
