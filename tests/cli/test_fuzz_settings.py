"""Fuzzing the values a user types: `[settings]`, `[cost]` and policy points.

Whatever the value (huge, tiny, negative, non-finite, integers beyond float range, wrong
types), `llgui score` ends with exit 0 or 2 (never 1: an internal error), within a bounded
time, and never prints a traceback. Run in-process through `llgui.cli.main.main` to stay cheap.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import signal
import time
from datetime import date

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from llgui.cli.main import main
from llgui.io.bundle import SETTINGS

SECONDS = 20.0   # bound per command; a valid extreme (char_order 20) takes well under 1 s here

MT_TEXT = ["the cat sat on the mat", "a dog barks", "it rains today in the old town",
           "good morning", "we met at noon near the bridge", "x"]
HYP_TEXT = ["the cat sat on a mat", "a dog barked", "it rains in the old town today",
            "good morning", "we met near the bridge", "y"]

VALUES = st.one_of(
    st.integers(min_value=-10 ** 6, max_value=10 ** 6),
    st.sampled_from([0, 1, 4, 9, 10, 20, 21, 100, 101, 3600, 10 ** 9, 10 ** 30, -10 ** 30,
                     10 ** 400, -(10 ** 400), 2 ** 63, 2 ** 64 + 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 5e-324, 1e-300, 1e300, 1.7976931348623157e308]),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(["13a", "none", "char", "ja-mecab", "flores101", "spm", "zh", "ko-mecab",
                     "intl", "exp", "floor", "add-k", "ja", "ko", "de", "1_2", "１２"]),
    st.lists(st.integers(min_value=-3, max_value=3), max_size=3),
    st.just(date(2020, 1, 1)),
)


def toml_value(value) -> str:
    """A Python value as a TOML literal (TOML writes nan/inf its own way)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)   # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return value.isoformat()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    (root / "ref.txt").write_text("\n".join(MT_TEXT) + "\n", encoding="utf-8")
    (root / "hyp.txt").write_text("\n".join(HYP_TEXT) + "\n", encoding="utf-8")
    (root / "ref.rttm").write_text(
        "SPEAKER f 1 0.0 4.0 <NA> <NA> A <NA> <NA>\nSPEAKER f 1 4.0 3.0 <NA> <NA> B <NA> <NA>\n")
    (root / "hyp.rttm").write_text(
        "SPEAKER f 1 0.0 5.0 <NA> <NA> s1 <NA> <NA>\nSPEAKER f 1 5.0 2.0 <NA> <NA> s2 <NA> <NA>\n")
    return root


def _bundle(root, task: str, settings_table: dict, cost_table: dict) -> str:
    lines = ["[bundle]", f'task = "{task}"']
    lines.append('metrics = ["bleu", "chrf", "ter", "wer"]' if task == "mt"
                 else 'metrics = ["der", "jer"]')
    lines.append("[settings]")
    lines += [f"{k} = {toml_value(v)}" for k, v in settings_table.items()]
    lines.append("[cost]")
    lines += [f"{k} = {toml_value(v)}" for k, v in cost_table.items()]
    lines += ["[[documents]]", 'id = "d1"', "time = 1"]
    if task == "mt":
        lines += ['references = ["ref.txt"]', 'hypothesis = "hyp.txt"']
    else:
        lines += ['uri = "f"', 'references = ["ref.rttm"]', 'hypothesis = "hyp.rttm"']
    path = root / f"{task}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


class _Hung(BaseException):
    """Raised by the alarm: the command ran past the bound (a hang, not a slow pass)."""


@contextlib.contextmanager
def _bounded(seconds: float):
    """Interrupt the command after `seconds` of its CPU time (POSIX profiling timer), so a hang
    fails the test."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def ring(*_):
        raise _Hung(f"still running after {seconds} s")

    # The command's own CPU time (all its threads), not the wall clock: a hang spins and rings,
    # while a busy machine (waits for a core) does not; a hang that blocks without spinning is
    # pytest-timeout's.
    previous = signal.signal(signal.SIGPROF, ring)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _run(args) -> tuple[int, str, float]:
    out, err = io.StringIO(), io.StringIO()
    start = time.process_time()
    with _bounded(SECONDS), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, err.getvalue(), time.process_time() - start


def _assert_clean(code: int, err: str, elapsed: float, what) -> None:
    assert code in (0, 2), (what, code, err[-2000:])
    assert "Traceback" not in err, (what, err[-2000:])
    assert elapsed < SECONDS, (what, elapsed)
    if code == 2:
        assert err.strip(), what   # refused with a reason


MT_KEYS = [k for k, s in SETTINGS.items() if "der" not in s.used_by]
COST_KEYS = ["window", "reference_weight", "post_edit_weight", "listen_weight", "use_log_cost"]


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(MT_KEYS), VALUES, max_size=3),
       st.dictionaries(st.sampled_from(COST_KEYS), VALUES, max_size=2))
# the values of issue 9, always tried (the draws above are derandomized)
@example({"max_ngram_order": 10 ** 30}, {})
@example({"char_order": 10 ** 9, "word_order": 10 ** 9}, {})
@example({"beta": 10 ** 400}, {"window": 10 ** 400})
@example({"tokenize": "ja-mecab"}, {"reference_weight": float("nan")})
@example({"trg_lang": "ja", "smooth_value": 1e308}, {"listen_weight": -(10 ** 400)})
def test_mt_settings_and_cost_give_exit_0_or_2(files, settings_table, cost_table):
    path = _bundle(files, "mt", settings_table, cost_table)
    _assert_clean(*_run(["score", path, "--format", "json"]), (settings_table, cost_table))


@settings(max_examples=15, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["collar", "skip_overlap"]), VALUES, max_size=2),
       st.dictionaries(st.sampled_from(COST_KEYS), VALUES, max_size=2))
@example({"collar": 10 ** 400}, {"window": float("inf")})
@example({"collar": 1e300}, {})
def test_diarization_settings_and_cost_give_exit_0_or_2(files, settings_table, cost_table):
    path = _bundle(files, "diarization", settings_table, cost_table)
    _assert_clean(*_run(["score", path, "--format", "json"]), (settings_table, cost_table))


POINT_VALUES = st.one_of(VALUES, st.sampled_from(["2020-01-01", "1e999", "NaN"]))


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["relative", "absolute", "sideways", 3]),
       st.lists(st.lists(POINT_VALUES, min_size=1, max_size=3), min_size=0, max_size=3),
       st.one_of(st.booleans(), st.integers()))
def test_policy_values_give_exit_0_or_2(files, mode, points, normalise):
    bundle = _bundle(files, "mt", {}, {})
    policy = files / "policy.json"
    doc = {"mode": mode, "points": points, "normalise": normalise}
    text = json.dumps(doc, default=str)   # dates as ISO text; NaN/Infinity as JSON allows
    policy.write_text(text, encoding="utf-8")
    _assert_clean(*_run(["score", bundle, "--metric", "bleu", "--policy", str(policy),
                         "--format", "json"]), doc)


@pytest.mark.parametrize("text", ['{"mode": "relative", "points": [[0, ' + "9" * 5000 + "]]}",
                                  '{"mode": "relative", "points": [[' + "9" * 400 + ", 1]]}",
                                  '{"mode": "relative", "points": [[0, 1e999]]}'])
def test_huge_numbers_in_a_policy_file_give_exit_2(files, text):
    bundle = _bundle(files, "mt", {}, {})
    policy = files / "policy.json"
    policy.write_text(text, encoding="utf-8")
    code, err, _ = _run(["score", bundle, "--metric", "bleu", "--policy", str(policy)])
    assert code == 2 and str(policy) in err, err
