"""Hostile input (issue 9, items 2 to 6): every bad value or path gets exit 2 and a reason.

One numeric parser for every loader; a range for every setting, at the bundle's line; only
regular files of bounded size are read (a device, a FIFO, a sparse 2 GiB file are refused
before reading); a tokenizer sacrebleu cannot load says which package is missing.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from importlib.util import find_spec

import pytest

from llgui.cli.main import main
from llgui.core.numbers import check_number, parse_number
from llgui.core.types import Stamp
from llgui.io.detection import load_scores
from llgui.io.rttm import load_turns
from tests.io.helpers import problems, write

MT_REF = "the cat sat on the mat\na dog barks\n"
MT_HYP = "the cat sat on a mat\na dog barked\n"


def run(*args) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, err.getvalue()


def mt_bundle(tmp_path, settings: str = "", cost: str = "", time_: str = "1",
              metrics: str = '["bleu", "chrf"]'):
    write(tmp_path / "ref.txt", MT_REF)
    write(tmp_path / "hyp.txt", MT_HYP)
    text = (f'[bundle]\ntask = "mt"\nmetrics = {metrics}\n[settings]\n{settings}\n[cost]\n'
            f'{cost}\n[[documents]]\nid = "d"\ntime = {time_}\nreferences = ["ref.txt"]\n'
            f'hypothesis = "hyp.txt"\n')
    return write(tmp_path / "bundle.toml", text), text


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# ---- item 3: one numeric parser ---------------------------------------------------------

@pytest.mark.parametrize("text, reason", [
    ("1_2.00", "is not a number (no '_' inside numbers)"),
    ("１２", "is not a number (digits must be ASCII 0-9)"),
    ("1.5\u0660", "is not a number (digits must be ASCII 0-9)"),
    ("nan", "is not a finite number"),
    ("-Infinity", "is not a finite number"),
    ("1e999", "is not a finite number"),
    ("9" * 5000, "is not a finite number (too many digits)"),
    ("0x10", "is not a number"),
    ("", "is not a number"),
])
def test_parse_number_refuses_what_float_accepts(text, reason):
    with pytest.raises(ValueError) as info:
        parse_number(text)
    assert str(info.value) == reason


@pytest.mark.parametrize("text, value", [("12", 12.0), ("-1.5e3", -1500.0), (".5", 0.5),
                                         ("+3.", 3.0)])
def test_parse_number_reads_plain_numbers(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("value", [10 ** 400, -(10 ** 400), float("nan"), float("inf"), True,
                                   "3", None, [1]])
def test_check_number_refuses_with_a_reason(value):
    with pytest.raises(ValueError, match="^x must be a number >= 0, not "):
        check_number(value, "x", minimum=0)


def test_rttm_and_score_files_refuse_underscores_and_non_ascii_digits(tmp_path):
    rttm = write(tmp_path / "a.rttm", "SPEAKER f 1 1_2.00 1.0 <NA> <NA> A <NA> <NA>\n"
                                      "SPEAKER f 1 ３ 1.0 <NA> <NA> A <NA> <NA>\n")
    assert problems(load_turns, rttm) == [
        (str(rttm), 1, "onset '1_2.00' is not a number (no '_' inside numbers)"),
        (str(rttm), 2, "onset '３' is not a number (digits must be ASCII 0-9)"),
    ]
    scores = write(tmp_path / "s.txt", "1.0 target\n1_0 nontarget\n２ target\n")
    found = problems(load_scores, scores)
    assert [(line, reason) for _, line, reason in found] == [
        (2, "score '1_0' is not a number (no '_' inside numbers)"),
        (3, "score '２' is not a number (digits must be ASCII 0-9)"),
    ]


@pytest.mark.parametrize("raw", [10 ** 400, "1_2", "１２", 1e300])
def test_a_time_is_a_plain_number_in_range(raw):
    with pytest.raises(ValueError, match="time"):
        Stamp.parse(raw)


@pytest.mark.parametrize("table, key", [("settings", "collar"), ("settings", "beta"),
                                        ("cost", "window"), ("time", "time")])
def test_integers_beyond_float_range_give_exit_2_at_their_line(tmp_path, table, key):
    big = "9" * 400
    if table == "time":
        path, text = mt_bundle(tmp_path, time_=big)
    elif table == "cost":
        path, text = mt_bundle(tmp_path, cost=f"{key} = {big}")
    else:
        path, text = mt_bundle(tmp_path, settings=f"{key} = {big}")
    code, err = run("score", path)
    assert code == 2, err
    assert err.startswith(f"{path}:{line_of(text, big)}: "), err
    assert "more than 300 digits" in err and "Traceback" not in err


# ---- item 2: every setting has a range ----------------------------------------------------

@pytest.mark.parametrize("setting, reason", [
    ("max_ngram_order = 1000000000000000000000000000000",
     "max_ngram_order must be an integer between 1 and 9, not 1000000000000000000000000000000"),
    ("char_order = 1000000000", "char_order must be an integer between 0 and 20, not 1000000000"),
    ("word_order = 1000000000", "word_order must be an integer between 0 and 9, not 1000000000"),
    ("smooth_value = 1e308", "smooth_value must be a number between 0 and 1e+06, not 1e+308"),
    ("char_order = 0", "char_order = 0 needs word_order >= 1 (chrF would have no n-grams)"),
])
def test_unbounded_settings_are_refused_at_the_bundle_line(tmp_path, setting, reason):
    path, text = mt_bundle(tmp_path, settings=setting)
    start = time.process_time()
    code, err = run("score", path)
    assert (code, err) == (2, f"{path}:{line_of(text, setting)}: {reason}\n")
    assert time.process_time() - start < 5


def test_the_largest_allowed_orders_score_quickly(tmp_path):
    path, _ = mt_bundle(tmp_path, settings="max_ngram_order = 9\nchar_order = 20\nword_order = 9")
    start = time.process_time()
    assert run("score", path)[0] == 0
    assert time.process_time() - start < 10


# ---- item 4: tokenizers that cannot be loaded -------------------------------------------

@pytest.mark.parametrize("setting, module, package", [
    ('tokenize = "ja-mecab"', "MeCab", "mecab-python3"),
    ('tokenize = "flores101"', "sentencepiece", "sentencepiece"),
    ('trg_lang = "ja"', "MeCab", "mecab-python3"),
    ('trg_lang = "ko"', "mecab_ko", "mecab-ko"),
])
def test_a_tokenizer_without_its_package_gives_exit_2(tmp_path, monkeypatch, setting, module,
                                                      package):
    # MeCab and its dictionaries are llgui's dependencies (issue 35): the package is made
    # unloadable here (a None in sys.modules cannot be imported), as on a machine without it
    monkeypatch.setitem(sys.modules, module, None)
    assert find_spec(module) is None
    path, text = mt_bundle(tmp_path, settings=setting)
    code, err = run("score", path)
    assert code == 2, err
    assert err.startswith(f"{path}:{line_of(text, setting)}: tokenizer "), err
    assert package in err and "not installed" in err


def test_a_tokenizer_is_not_checked_when_bleu_is_not_scored(tmp_path):
    path, _ = mt_bundle(tmp_path, settings='tokenize = "ja-mecab"', metrics='["chrf"]')
    assert run("score", path)[0] == 0


# ---- item 5: --dcf ------------------------------------------------------------------------

@pytest.mark.parametrize("dcf", ["0.01,inf,1", "0.01,1,nan", "0.01,1_0,1", "0.01,1e999,1"])
def test_non_finite_dcf_parameters_give_exit_2(tmp_path, dcf):
    scores = write(tmp_path / "s.txt", "1.0 target\n0.0 nontarget\n")
    code, err = run("det", scores, "--dcf", dcf)
    assert code == 2 and "--dcf" in err and "Traceback" not in err, err


# ---- item 6: only regular files of bounded size -------------------------------------------

needs_posix = pytest.mark.skipif(not (hasattr(os, "mkfifo") and os.path.exists("/dev/zero")),
                                 reason="needs FIFOs and /dev/zero")


@needs_posix
@pytest.mark.parametrize("kind", ["bundle", "scores", "key", "policy"])
def test_a_device_or_a_fifo_on_the_command_line_is_refused(tmp_path, kind):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    good_scores = write(tmp_path / "s.txt", "1.0 target\n0.0 nontarget\n")
    for special in ("/dev/zero", fifo):
        bundle, _ = mt_bundle(tmp_path)
        args = {"bundle": ["score", special],
                "scores": ["det", special],
                "key": ["det", good_scores, "--key", special],
                "policy": ["score", bundle, "--metric", "bleu", "--policy", special]}[kind]
        start = time.process_time()
        code, err = run(*args)
        assert code == 2, err
        assert "is not a regular file" in err, err
        assert time.process_time() - start < 5


@needs_posix
def test_a_fifo_named_by_a_bundle_is_refused_at_its_line(tmp_path):
    path, text = mt_bundle(tmp_path)
    os.unlink(tmp_path / "hyp.txt")
    os.mkfifo(tmp_path / "hyp.txt")
    code, err = run("score", path)
    assert code == 2
    assert err == (f"{path}:{line_of(text, 'hypothesis')}: hypothesis file 'hyp.txt' is not a "
                   f"regular file (a FIFO); only regular files are read\n")


def test_a_sparse_file_beyond_the_cap_is_refused_before_reading(tmp_path):
    write(tmp_path / "ref.txt", MT_REF)
    write(tmp_path / "hyp.txt", MT_HYP)
    with open(tmp_path / "big.txt", "wb") as handle:   # 2 GiB, sparse: costs no disk
        handle.truncate(2 << 30)
    write(tmp_path / "log.jsonl",
          '{"doc": "d", "step": 1, "initiative": "active", "kind": "reference", '
          '"target": {"sentence": 1}, "adapted": {"path": "big.txt"}}\n')
    path, _ = mt_bundle(tmp_path)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('[interactions]\nlog = "log.jsonl"\n')
    start = time.process_time()
    code, err = run("score", path)
    assert code == 2, err
    assert "adapted file 'big.txt' is too large (2.0 GiB" in err, err
    assert time.process_time() - start < 5
