"""Fuzzing every loader: whatever the bytes, nothing but LoadError escapes.

Each loader gets 300 examples (1,000 under LLGUI_RUN_SLOW=1; reproducible: derandomized, no example database) of random
bytes or text and of structured-but-mutated content: valid lines with fields dropped,
duplicated, garbled or swapped, lines duplicated or interleaved with blanks and comments,
random JSON values in the log, random TOML values in a bundle. A successful load must return
the right type and keep the loader's promises (sorted turns, merged UEM, numbered steps...).
"""
from __future__ import annotations

import json
import math
from datetime import date, datetime

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llgui.core.errors import LoadError, Problems
from llgui.core.types import Bundle, LifelongScores, Step, Trials
from llgui.io.bundle import load_bundle
from llgui.io.detection import TrialKey, _table_fast, _table_slow, load_key, load_scores
from llgui.io.interactions import load_log
from llgui.io.lifelong import load_lifelong
from llgui.io.rttm import load_mdtm, load_rttm, load_uem
from llgui.io.text import load_segments
from tests.io.helpers import FUZZ, only_load_errors, write

pytestmark = pytest.mark.slow

NASTY = ["", "nan", "NaN", "-1", "-0", "0", "inf", "-inf", "1e999", "1e-400", "x", "<NA>",
         "\x00", "é", "1_0", "0x1", "9" * 40, "\u2028", "\ufeff", "\r", "#", ";;", "speaker",
         "SPEAKER", "target", "nontarget", "2020-01-01", "2020-13-45", ",", '"', "true", "1.5"]


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    write(root / "ref.txt", "a b\nc d\ne f\n")
    write(root / "hyp.txt", "a x\nc d\ne\n")
    write(root / "src.txt", "1\n2\n3\n")
    write(root / "ref.rttm", "SPEAKER f1 1 0 10 <NA> <NA> A <NA> <NA>\n"
                             "SPEAKER f2 1 1 4 <NA> <NA> B <NA> <NA>\n")
    write(root / "hyp.rttm", "SPEAKER f1 1 0 12 <NA> <NA> s1 <NA> <NA>\n")
    write(root / "x.uem", "f1 1 0 20\nf2 1 0 6\n")
    write(root / "mt.jsonl", '{"doc": "d1", "step": 1, "initiative": "active", '
                             '"kind": "reference", "target": {"sentence": 2}}\n')
    write(root / "diar.jsonl", '{"doc": "f1", "step": 1, "initiative": "active", '
                               '"kind": "name", "target": {"t": 2}, "answer": "A"}\n')
    write(root / "life.csv", "model,model_time,test,test_time,metric,value\nm,1,t,1,bleu,2\n")
    write(root / "trials.key", "a x target\nb x nontarget\n")
    write(root / "sysA.txt", "a x 1\nb x 0\n")
    write(root / "plain.txt", "1 target\n0 nontarget\n")
    return root


# --------------------------------------------------------------------------------------------
# Mutation strategies


_separator = st.sampled_from([" ", " ", "\t", "  ", ","])
# Strategies of a fixed list are built once, here: sampled_from of a list (not hashable) is a
# new strategy at every call, validated by hypothesis on its first draw (built per line, that
# was a good part of the generation, the bulk of these tests' time). Same draws as before.
_MUTATIONS = st.sampled_from([0, 0, 0, 0, 0, 1, 2])
_OPS = st.sampled_from(["drop", "dup", "garble", "swap", "glue"])
_GARBLED = st.one_of(st.sampled_from(NASTY), st.text(max_size=5))
_EXTRA = {c: st.sampled_from([None, None, None, "", c + " c", "   "]) for c in ("#", ";;", ";")}
_ENDS = st.sampled_from(["\n", "\r\n"])


@st.composite
def mutated_lines(draw, line: st.SearchStrategy | list, comment: str = "#") -> str:
    """Valid lines from `line` (each a tuple of fields; or the rows themselves, as a list),
    then mutated field- and line-wise."""
    rows = line if isinstance(line, list) else draw(st.lists(line, max_size=6))
    sep = draw(_separator)  # one for the file, and now and then another for a line
    out = []
    for fields in rows:
        fields = list(fields)
        for _ in range(draw(_MUTATIONS)):  # most lines stay valid
            op = draw(_OPS)
            if not fields:
                continue
            i = draw(st.integers(0, len(fields) - 1))
            if op == "drop":
                del fields[i]
            elif op == "dup":
                fields.insert(i, fields[i])
            elif op == "garble":
                fields[i] = draw(_GARBLED)
            elif op == "swap":
                j = draw(st.integers(0, len(fields) - 1))
                fields[i], fields[j] = fields[j], fields[i]
            else:
                fields[i:i + 2] = ["".join(fields[i:i + 2])]
        out.append((sep if draw(st.integers(0, 7)) else draw(_separator)).join(fields))
        extra = draw(_EXTRA[comment] if comment in _EXTRA else
                     st.sampled_from([None, None, None, "", comment + " c", "   "]))
        if extra is not None:
            out.append(extra)
    if out and draw(st.integers(0, 3)) == 0:
        out.append(out[draw(st.integers(0, len(out) - 1))])  # a duplicated line
    end = draw(_ENDS)
    text = end.join(out) + (end if draw(st.booleans()) else "")
    return ("\ufeff" if draw(st.integers(0, 9)) == 0 else "") + text


def as_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


CONTENT = {}  # name -> strategy of bytes, filled below per format

_number = st.one_of(st.integers(0, 100).map(str),
                    st.floats(0, 1e4, allow_nan=False).map(lambda x: f"{x:.3f}"))
_uri = st.sampled_from(["f1", "f2", "x"])
_spk = st.sampled_from(["A", "B", "spk_3"])


def _content(structured: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(st.binary(max_size=200), st.text(max_size=100).map(as_bytes),
                     structured.map(as_bytes), structured.map(as_bytes))


# --------------------------------------------------------------------------------------------
# Text


@given(_content(st.lists(st.text(max_size=10), max_size=5).map("\n".join)))
@FUZZ
def test_text(fuzz_dir, data):
    path = write(fuzz_dir / "fz-t.txt", data)
    only_load_errors(load_segments, path, tuple)
    try:
        segments = load_segments(path)
    except LoadError:
        return
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    assert len(segments) == n_lines
    assert all("\n" not in s and "\r" not in s for s in segments)


# --------------------------------------------------------------------------------------------
# RTTM, MDTM, UEM

_rttm_line = st.one_of(
    st.tuples(st.just("SPEAKER"), _uri, st.just("1"), _number, _number, st.just("<NA>"),
              st.just("<NA>"), _spk, st.just("<NA>"), st.just("<NA>")),
    st.tuples(st.sampled_from(["SPKR-INFO", "LEXEME", "NON-LEX"]), _uri, st.just("1"),
              st.just("<NA>"), st.just("<NA>"), st.just("<NA>"), st.just("unknown"), _spk,
              st.just("<NA>")),
)


def _check_turns(turns):
    for uri, ts in turns.items():
        assert isinstance(uri, str) and isinstance(ts, tuple)
        assert list(ts) == sorted(ts)
        assert all(math.isfinite(t.end) and 0 <= t.start < t.end for t in ts)


@given(_content(mutated_lines(_rttm_line, comment=";;")))
@FUZZ
def test_rttm(fuzz_dir, data):
    path = write(fuzz_dir / "fz-x.rttm", data)
    only_load_errors(load_rttm, path, dict)
    try:
        turns = load_rttm(path)
    except LoadError:
        return
    _check_turns(turns)


_mdtm_line = st.tuples(_uri, st.just("1"), _number, _number, st.just("speaker"),
                       st.just("NA"), st.just("adult_male"), _spk)


@given(_content(mutated_lines(_mdtm_line, comment=";;")))
@FUZZ
def test_mdtm(fuzz_dir, data):
    path = write(fuzz_dir / "fz-x.mdtm", data)
    only_load_errors(load_mdtm, path, dict)
    try:
        turns = load_mdtm(path)
    except LoadError:
        return
    _check_turns(turns)


_uem_line = st.tuples(_uri, st.integers(0, 50), st.integers(1, 50)).map(
    lambda r: (r[0], "1", str(r[1]), str(r[1] + r[2])))


@given(_content(mutated_lines(_uem_line, comment=";")))
@FUZZ
def test_uem(fuzz_dir, data):
    path = write(fuzz_dir / "fz-x.uem", data)
    only_load_errors(load_uem, path, dict)
    try:
        uem = load_uem(path)
    except LoadError:
        return
    for spans in uem.values():
        assert spans and all(0 <= s < e for s, e in spans)
        assert all(a[1] < b[0] for a, b in zip(spans, spans[1:]))  # sorted, disjoint


# --------------------------------------------------------------------------------------------
# Interaction log

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)

_TARGETS = {"reference": {"sentence": 2}, "post_edit": {"sentence": 1},
            "same": {"t1": 1.0, "t2": 3, "doc2": "f2"}, "boundary": {"t": 2},
            "name": {"t": 2}, "segment": {"start": 1, "end": 2}}
_ANSWERS = {"post_edit": "text", "same": True, "boundary": [1, 2], "name": "A"}
_ADAPTED = [None, {"lines": {"1": "x"}}, {"path": "hyp.txt"}, {"path": "hyp.rttm"},
            {"path": "missing.txt"}, {"turns": [[0, 1, "A"]]}, {"path": ""}]


_INITIATIVES = st.sampled_from(["active", "interactive"])
_ADAPTED_DRAWN = st.sampled_from(_ADAPTED)
_COSTS = st.sampled_from([0, 1.5, None, 12])
_STEP_MUTATIONS = st.sampled_from([0, 0, 0, 0, 1, 2])
_STEP_OPS = st.sampled_from(["del", "set", "add", "target"])


@st.composite
def _step(draw, doc: str, number: int, kinds: list[str]) -> dict:
    kind = draw(st.sampled_from(kinds))
    obj = {"doc": doc, "step": number,
           "initiative": draw(_INITIATIVES), "kind": kind,
           "target": dict(_TARGETS[kind])}
    if kind in _ANSWERS:
        obj["answer"] = _ANSWERS[kind]
    if draw(st.booleans()):
        obj["adapted"] = draw(_ADAPTED_DRAWN)
    if draw(st.booleans()):
        obj["cost"] = draw(_COSTS)
    for _ in range(draw(_STEP_MUTATIONS)):
        op = draw(_STEP_OPS)
        key = draw(st.sampled_from(sorted(obj)))
        if op == "del":
            obj.pop(key, None)
        elif op == "set":
            obj[key] = draw(_json)
        elif op == "add":
            obj[draw(st.text(max_size=4))] = draw(_json)
        elif isinstance(obj.get("target"), dict) and obj["target"]:
            obj["target"][draw(st.sampled_from(sorted(obj["target"])))] = draw(_json)
    return obj


@st.composite
def _log(draw) -> str:
    """Steps numbered 1, 2, ... per document, a few mutated; now and then a random JSON line."""
    kinds = draw(st.sampled_from([["reference", "post_edit"],
                                  ["same", "boundary", "name", "segment"],
                                  list(_TARGETS)]))
    numbers: dict[str, int] = {}
    lines = []
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.integers(0, 7)) == 0:
            lines.append(draw(st.one_of(_json.map(json.dumps),
                                        st.sampled_from(["", "{", "[1", "NaN", " "]))))
            continue
        doc = draw(st.sampled_from(["d1", "f1", "f2"]))
        numbers[doc] = numbers.get(doc, 0) + 1
        lines.append(json.dumps(draw(_step(doc, numbers[doc], kinds))))
    return "\n".join(lines)


_log_text = _log()


@given(_content(_log_text), st.sampled_from([None, "mt", "diarization"]))
@FUZZ
def test_log(fuzz_dir, data, task):
    path = write(fuzz_dir / "fz-log.jsonl", data)
    only_load_errors(load_log, path, tuple, task=task, uris={"f1": "f1"})
    try:
        steps = load_log(path, task=task)
    except LoadError:
        return
    assert steps and all(isinstance(s, Step) for s in steps)
    assert [s.line for s in steps] == sorted(s.line for s in steps)
    last = {}
    for s in steps:
        assert s.step == last.get(s.doc, 0) + 1
        last[s.doc] = s.step


# --------------------------------------------------------------------------------------------
# Lifelong score table

_MODEL_TIMES = {"m0": "1", "m1": "2.5", "m2": "4"}
_TEST_TIMES = {"t0": "0", "t1": "3"}
_life_row = st.tuples(st.sampled_from(sorted(_MODEL_TIMES)), st.sampled_from(sorted(_TEST_TIMES)),
                      st.sampled_from(["bleu", "ter"]), _number, st.sampled_from(["", "1.5"])
                      ).map(lambda r: (r[0], _MODEL_TIMES[r[0]], r[1], _TEST_TIMES[r[1]], *r[2:]))


@st.composite
def _life_text(draw) -> str:
    header = "model,model_time,test,test_time,metric,value,value_pen"
    if draw(st.integers(0, 5)) == 0:
        header = header.replace(draw(st.sampled_from(["model", "value", "_pen", ","])), "", 1)
    rows = list({r[:5]: r for r in draw(st.lists(_life_row, max_size=6))}.values())
    body = draw(mutated_lines(rows))
    return header + "\n" + body.replace(" ", ",").replace("\t", ",")


@given(_content(_life_text()))
@FUZZ
def test_lifelong(fuzz_dir, data):
    path = write(fuzz_dir / "fz-life.csv", data)
    only_load_errors(load_lifelong, path, LifelongScores)
    try:
        scores = load_lifelong(path)
    except LoadError:
        return
    for table in scores.values.values():
        assert table.shape == (len(scores.models), len(scores.tests))
    times = [s.value for s in scores.model_times]
    assert times == sorted(times)


# --------------------------------------------------------------------------------------------
# Detection

_plain_line = st.tuples(_number, st.sampled_from(["target", "nontarget", "1", "0", "TRUE"]))
_enroll = st.sampled_from(["a", "b", "c"])
_test = st.sampled_from(["x", "y"])


def _check_trials(trials):
    assert isinstance(trials, Trials)
    assert np.isfinite(trials.scores).all()
    assert trials.n_target > 0 and trials.n_nontarget > 0


@given(_content(mutated_lines(_plain_line)))
@FUZZ
def test_detection_plain(fuzz_dir, data):
    path = write(fuzz_dir / "fz-plain.scores", data)
    only_load_errors(load_scores, path, Trials)
    try:
        trials = load_scores(path)
    except LoadError:
        return
    _check_trials(trials)


@st.composite
def _key_and_scores(draw) -> tuple[bytes, bytes]:
    """A key of distinct trials and a score file of the same trials, reordered; both mutated."""
    n = draw(st.integers(0, 6))
    labels = ["target", "nontarget"][:n] + draw(st.lists(
        st.sampled_from(["target", "nontarget", "1", "0"]), min_size=max(n - 2, 0),
        max_size=max(n - 2, 0)))
    trials = [(f"e{i % 3}", f"t{i}") for i in range(n)]
    key = [(*t, label) for t, label in zip(trials, labels)]
    scores = [(*t, draw(_number)) for t in draw(st.permutations(trials))]
    if scores and draw(st.integers(0, 4)) == 0:
        scores.pop()  # a trial of the key without a score
    def clean(rows):
        return "".join(" ".join(r) + "\n" for r in rows)

    key_text = draw(st.one_of(st.just(clean(key)), mutated_lines(key), st.text(max_size=40)))
    score_text = draw(st.one_of(st.just(clean(scores)), mutated_lines(scores)))
    return as_bytes(key_text), as_bytes(score_text)


@given(_key_and_scores())
@FUZZ
def test_detection_with_key(fuzz_dir, files):
    key, scores = files
    score_path = write(fuzz_dir / "fz-s.scores", scores)
    key_path = write(fuzz_dir / "fz-s.key", key)
    only_load_errors(load_key, key_path, TrialKey)
    only_load_errors(load_scores, score_path, Trials, key=key_path)
    try:
        trials = load_scores(score_path, key=key_path)
    except LoadError:
        return
    _check_trials(trials)
    assert trials.scores.size == len(load_key(key_path))


@given(st.one_of(mutated_lines(st.tuples(_enroll, _test, _number)).map(as_bytes),
                 st.binary(max_size=100)), st.sampled_from([2, 3]))
@FUZZ
def test_detection_fast_reader_equals_careful_reader(data, n_fields):
    fast = _table_fast(data, n_fields)
    if fast is None:
        return
    problems = Problems("x")
    slow = _table_slow(data, problems, n_fields, "layout")
    assert not problems
    assert fast.cells == slow.cells
    assert list(fast.lines) == list(slow.lines)


# --------------------------------------------------------------------------------------------
# Bundle


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return "nan"
        if isinstance(value, float) and math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value), ensure_ascii=False)


def _toml(tables: dict) -> str:
    out = []
    for name, table in tables.items():
        if isinstance(table, list):
            for item in table:
                out.append(f"[[{name}]]")
                out += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in item.items()]
        elif isinstance(table, dict):
            out.append(f"[{name}]")
            out += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in table.items()]
        else:
            out.insert(0, f"{json.dumps(name)} = {_toml_value(table)}")
    return "\n".join(out) + "\n"


_toml_scalar = st.one_of(st.booleans(), st.integers(-5, 5), st.floats(), st.text(max_size=6),
                         st.dates(), st.sampled_from(["ref.txt", "hyp.rttm", "x.uem", "", ".",
                                                      "missing", "mt.jsonl", "life.csv"]))
_toml_any = st.recursive(_toml_scalar, lambda c: st.lists(c, max_size=3)
                         | st.dictionaries(st.text(max_size=4), c, max_size=2), max_leaves=5)


def _base_bundle(task: str) -> dict:
    """A valid bundle over the fuzz folder's files (held valid by `test_base_bundles_load`)."""
    if task == "mt":
        return {"bundle": {"task": task, "name": "n"}, "cost": {"window": 3.0},
                "documents": [{"id": "d1", "time": "2020-01-01", "references": ["ref.txt"],
                               "hypothesis": "hyp.txt", "source": "src.txt"}],
                "interactions": {"log": "mt.jsonl"}, "lifelong": {"scores": "life.csv"}}
    if task == "diarization":
        return {"bundle": {"task": task}, "settings": {"collar": 0.5},
                "documents": [{"id": "f1", "time": 1, "references": "ref.rttm",
                               "hypothesis": "hyp.rttm", "uem": "x.uem"},
                              {"id": "d2", "uri": "f2", "time": 2.5, "references": ["ref.rttm"],
                               "hypothesis": "hyp.rttm"}],
                "interactions": {"log": "diar.jsonl"}}
    return {"bundle": {"task": task, "metrics": ["eer"]},
            "detection": {"scores": ["sysA.txt"], "key": "trials.key"}}


@pytest.mark.parametrize("task", ["mt", "diarization", "detection"])
def test_base_bundles_load(fuzz_dir, task):
    bundle = load_bundle(write(fuzz_dir / f"base-{task}.toml", _toml(_base_bundle(task))))
    assert bundle.task == task


@st.composite
def _bundle(draw) -> str:
    tables = _base_bundle(draw(st.sampled_from(["mt", "diarization", "detection"])))
    docs = tables.get("documents", [])
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2, 3]))):
        op = draw(st.sampled_from(["del", "set", "add", "doc", "table"]))
        name = draw(st.sampled_from(sorted(tables)))
        table = tables[name]
        if op == "table":
            tables[draw(st.sampled_from(["settings", "extra", "lifelong", "detection"]))] = \
                draw(st.dictionaries(st.sampled_from(["scores", "key", "log", "collar", "x"]),
                                     _toml_any, max_size=2))
        elif op == "doc" and docs:
            doc = docs[draw(st.integers(0, len(docs) - 1))]
            key = draw(st.sampled_from(["id", "time", "references", "hypothesis", "uem", "uri",
                                        "source", "other"]))
            doc[key] = draw(_toml_any)
        elif isinstance(table, dict) and table:
            key = draw(st.sampled_from(sorted(table)))
            if op == "del":
                del table[key]
            elif op == "set":
                table[key] = draw(_toml_any)
            else:
                table[draw(st.text(max_size=4))] = draw(_toml_any)
    return _toml(tables)


@given(_content(_bundle()))
@FUZZ
def test_bundle(fuzz_dir, data):
    path = write(fuzz_dir / "fz-bundle.toml", data)
    only_load_errors(load_bundle, path, Bundle)
