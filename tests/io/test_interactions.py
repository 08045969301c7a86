"""llgui.io.interactions.load_log: the JSONL interaction log, schema version 1."""
from __future__ import annotations

import json

import pytest

from llgui.core.types import (
    Adapted, PointTarget, SameTarget, SentenceTarget, SpanTarget, Step, Turn,
)
from llgui.io.interactions import load_log
from tests.io.helpers import problems, write

KINDS = "reference, post_edit, prefix, same, boundary, name, segment, label"
KINDS = "reference, post_edit, prefix, same, boundary, name, segment, label"
KEYS = "version, doc, step, initiative, kind, target, answer, cost, adapted, elapsed_s, effort"


def jsonl(*objects) -> str:
    """One line per object: dicts are dumped as JSON, strings are written as they are."""
    return "".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects)


def mt(doc="d1", step=1, kind="reference", sentence=1, **extra) -> dict:
    out = {"doc": doc, "step": step, "initiative": "active", "kind": kind,
           "target": {"sentence": sentence}}
    if kind == "post_edit":
        out["answer"] = "edited"
    out.update(extra)
    return out


def diar(kind, target, answer=None, doc="show1", step=1, **extra) -> dict:
    out = {"doc": doc, "step": step, "initiative": "interactive", "kind": kind, "target": target}
    if answer is not None:
        out["answer"] = answer
    out.update(extra)
    return out


# --------------------------------------------------------------------------------------------
# Good input


def test_mt_log(tmp_path):
    write(tmp_path / "adapted" / "d1-2.txt", "new one\nnew two\nnew three\n")
    path = write(tmp_path / "logs" / "log.jsonl", "")  # adapted paths resolve against logs/
    write(path, jsonl(
        {"version": 1, **mt(cost=12, adapted={"lines": {"2": "fixed two", "3": "fixed three"}})},
        "",
        mt(doc="d2", kind="post_edit", sentence=4, answer="Das ist gut.", cost=None),
        "   ",
        mt(step=2, kind="post_edit", sentence=3, answer="", initiative="interactive",
           adapted={"path": "../adapted/d1-2.txt"}),
        mt(doc="d2", step=2, adapted=None),
    ))
    steps = load_log(path, task="mt")
    assert steps == (
        Step("d1", 1, "active", "reference", SentenceTarget(1), None, 12.0,
             Adapted(lines={2: "fixed two", 3: "fixed three"})),
        Step("d2", 1, "active", "post_edit", SentenceTarget(4), "Das ist gut.", None, None),
        Step("d1", 2, "interactive", "post_edit", SentenceTarget(3), "", None,
             Adapted(lines={1: "new one", 2: "new two", 3: "new three"},
                     path=str(tmp_path / "logs" / "../adapted/d1-2.txt"))),
        Step("d2", 2, "active", "reference", SentenceTarget(1), None, None, None),
    )
    assert [s.line for s in steps] == [1, 3, 5, 6]
    assert load_log(path) == steps  # the task follows from the kinds


def test_diarization_log(tmp_path):
    write(tmp_path / "hyp" / "all.rttm", "SPEAKER other 1 0 1 <NA> <NA> X <NA> <NA>\n"
                                         "SPEAKER SHOW_1 1 2 1 <NA> <NA> B <NA> <NA>\n"
                                         "SPEAKER SHOW_1 1 0 1 <NA> <NA> A <NA> <NA>\n")
    path = write(tmp_path / "log.jsonl", jsonl(
        diar("same", {"t1": 1, "t2": 20.5}, True, cost=6.0,
             adapted={"turns": [[3, 4, "B"], [0, 2.5, "A"]]}),
        diar("same", {"t1": 1, "t2": 2, "doc2": "show2"}, False, step=2),
        diar("boundary", {"t": 12.25}, [11, 13.5], step=3, adapted={"path": "hyp/all.rttm"}),
        diar("name", {"t": 0}, "Alice", step=4),
        diar("segment", {"start": 5, "end": 7.5}, step=5, adapted={"turns": []}),
        diar("segment", {"start": 5, "end": 7.5}, doc="show2", adapted={"path": "hyp/all.rttm"}),
    ))
    steps = load_log(path, task="diarization", uris={"show1": "SHOW_1"})
    assert steps == (
        Step("show1", 1, "interactive", "same", SameTarget(1.0, 20.5), True, 6.0,
             Adapted(turns=(Turn(0.0, 2.5, "A"), Turn(3.0, 4.0, "B")))),
        Step("show1", 2, "interactive", "same", SameTarget(1.0, 2.0, "show2"), False),
        Step("show1", 3, "interactive", "boundary", PointTarget(12.25), (11.0, 13.5), None,
             Adapted(turns=(Turn(0.0, 1.0, "A"), Turn(2.0, 3.0, "B")),
                     path=str(tmp_path / "hyp/all.rttm"))),
        Step("show1", 4, "interactive", "name", PointTarget(0.0), "Alice"),
        Step("show1", 5, "interactive", "segment", SpanTarget(5.0, 7.5), None, None,
             Adapted(turns=())),
        # show2 has no uri mapping, so its file field is "show2": absent from the file, so the
        # adapted hypothesis is empty (the system found no speech)
        Step("show2", 1, "interactive", "segment", SpanTarget(5.0, 7.5), None, None,
             Adapted(turns=(), path=str(tmp_path / "hyp/all.rttm"))),
    )


def test_base_dir_overrides_the_log_folder(tmp_path):
    write(tmp_path / "elsewhere" / "a.txt", "x\ny\n")
    path = write(tmp_path / "log.jsonl", jsonl(mt(adapted={"path": "a.txt"})))
    (step,) = load_log(path, base_dir=tmp_path / "elsewhere")
    assert dict(step.adapted.lines) == {1: "x", 2: "y"}


# --------------------------------------------------------------------------------------------
# Malformed input


def _json_error(text: str) -> str:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return f"invalid JSON: {exc.msg[0].lower()}{exc.msg[1:]} (column {exc.colno})"
    raise AssertionError("valid JSON")


def test_not_json(tmp_path):
    # 5,000 nested lists: Python 3.11's json gives up (RecursionError), 3.13's parses them and
    # the line is then not an object; either way one clean problem at that line
    try:
        json.loads("[" * 5000 + "]" * 5000)
        NESTED = "expected a JSON object, got [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[..."
    except RecursionError:
        NESTED = "invalid JSON: nested too deeply"
    path = str(write(tmp_path / "log.jsonl", jsonl(
        mt(),
        '{"doc": "d1", "step": 2,',
        '{"doc": "d1", "doc": "d2"}',
        '{"cost": NaN}',
        '{"cost": -Infinity}',
        "[1, 2]",
        '"just a string"',
        "[" * 5000 + "]" * 5000,
        '{"step": ' + "1" * 5000 + "}",
    )))
    assert problems(load_log, path) == [
        (path, 2, _json_error('{"doc": "d1", "step": 2,')),
        (path, 3, "duplicate key 'doc' in an object"),
        (path, 4, "invalid JSON: NaN is not a JSON value"),
        (path, 5, "invalid JSON: -Infinity is not a JSON value"),
        (path, 6, "expected a JSON object, got [1, 2]"),
        (path, 7, "expected a JSON object, got 'just a string'"),
        (path, 8, NESTED),
        (path, 9, "invalid JSON: an integer has too many digits"),
    ]


def test_keys_version_and_basic_fields(tmp_path):
    path = str(write(tmp_path / "log.jsonl", jsonl(
        {**mt(), "kidn": "reference", "version": 2},
        {"doc": "d1", "step": 2, "kind": "reference"},
        mt(doc="", step=3),
        mt(doc="a", step=0),
        mt(doc="b", step=True),
        mt(doc="c", step=4.0),
        mt(doc="d", initiative="pasive"),
        mt(doc="e", cost=-1),
        mt(doc="f", cost="5"),
        mt(doc="g", cost=True),
    )))
    assert problems(load_log, path) == [
        (path, 1, f"unknown key 'kidn' (expected: {KEYS})"),
        (path, 1, "version must be 1, not 2"),
        (path, 2, "missing key 'initiative'"),
        (path, 2, "missing key 'target'"),
        (path, 3, "doc must be a non-empty string, not ''"),
        (path, 4, "step must be an integer >= 1, not 0"),
        (path, 5, "step must be an integer >= 1, not true"),
        (path, 6, "step must be an integer >= 1, not 4.0"),
        (path, 7, "initiative must be 'active' or 'interactive', not 'pasive'"),
        (path, 8, "cost must be a number >= 0, not -1"),
        (path, 9, "cost must be a number >= 0, not '5'"),
        (path, 10, "cost must be a number >= 0, not true"),
    ]


def test_step_numbering(tmp_path):
    path = str(write(tmp_path / "log.jsonl", jsonl(
        mt(doc="nc-1", step=1),
        mt(doc="nc-2", step=2),
        mt(doc="nc-1", step=3),
        mt(doc="nc-1", step=4),      # follows 3: fine
        mt(doc="nc-1", step=4),
        mt(doc="nc-2", step=3),      # follows nc-2's step 2
    )))
    assert problems(load_log, path) == [
        (path, 2, "step 2 is the first of document 'nc-2' (expected 1)"),
        (path, 3, "step 3 of document 'nc-1' follows step 1 (expected 2)"),
        (path, 5, "step 4 of document 'nc-1' follows step 4 (expected 5)"),
    ]


def test_kinds_and_tasks(tmp_path):
    path = str(write(tmp_path / "log.jsonl", jsonl(
        mt(kind="refrence"),
        mt(doc="d2"),
        diar("name", {"t": 1}, "A"),
        mt(doc="d3", kind=None),
    )))
    assert problems(load_log, path) == [
        (path, 1, f"unknown kind 'refrence' (expected one of: {KINDS})"),
        (path, 3, "kind 'name' is a diarization kind, but line 2 has the mt kind 'reference' "
                  "(a log holds one task)"),
        (path, 4, f"unknown kind null (expected one of: {KINDS})"),
    ]
    assert problems(load_log, path, task="diarization")[1:3] == [
        (path, 2, "kind 'reference' is an mt kind, but the task is diarization (expected one of: "
                  "same, boundary, name, segment)"),
        (path, 4, f"unknown kind null (expected one of: {KINDS})"),
    ]


def test_targets(tmp_path):
    path = str(write(tmp_path / "log.jsonl", jsonl(
        mt(target={"sentense": 3}),
        mt(doc="a", sentence=0),
        mt(doc="b", sentence="3"),
        mt(doc="c", target=[3]),
        diar("same", {"t1": -1, "t2": "x", "doc2": 7}, True),
        diar("segment", {"start": 5, "end": 5}, doc="s2"),
        diar("boundary", {"t": 1, "t2": 2}, [0, 1], doc="s3"),
        '{"doc": "s4", "step": 1, "initiative": "active", "kind": "name", "target": {"t": 1e400}}',
        diar("name", {"t": 10**400}, "A", doc="s5"),
    )))
    found = problems(load_log, path, task="mt")
    assert found[:5] == [
        (path, 1, "target of a reference step: unknown key 'sentense' (expected: sentence)"),
        (path, 1, "target of a reference step: missing key 'sentence'"),
        (path, 2, "target sentence must be an integer >= 1, not 0"),
        (path, 3, "target sentence must be an integer >= 1, not '3'"),
        (path, 4, "target must be an object, not [3]"),
    ]
    found = problems(load_log, path, task="diarization")
    assert [p for p in found if p[1] >= 5] == [
        (path, 5, "target t1 must be a number of seconds >= 0, not -1"),
        (path, 5, "target t2 must be a number of seconds >= 0, not 'x'"),
        (path, 5, "target doc2 must be a document id, not 7"),
        (path, 6, "target end 5 is not after start 5"),
        (path, 7, "target of a boundary step: unknown key 't2' (expected: t)"),
        (path, 8, "invalid JSON: number '1e400' is out of range"),
        (path, 9, "target t must be a number of seconds >= 0, not 1" + "0" * 36 + "..."),
    ]


def test_answers(tmp_path):
    path = str(write(tmp_path / "log.jsonl", jsonl(
        mt(answer="the reference"),
        {k: v for k, v in mt(doc="b", kind="post_edit").items() if k != "answer"},
        mt(doc="c", kind="post_edit", answer="two\nlines"),
        mt(doc="d", kind="post_edit", answer=3),
    )))
    assert problems(load_log, path) == [
        (path, 1, "a reference step takes no answer (absent or null), not 'the reference'"),
        (path, 2, "missing key 'answer' (a post_edit step needs the post-edited text)"),
        (path, 3, "answer contains a line break (U+000A at column 4 of the text); a segment "
                  "must be one line"),
        (path, 4, "answer must be the post-edited text (a string), not 3"),
    ]
    path = str(write(tmp_path / "log2.jsonl", jsonl(
        diar("same", {"t1": 1, "t2": 2}, "yes"),
        diar("same", {"t1": 1, "t2": 2}, doc="b"),
        diar("boundary", {"t": 1}, [2, 1], doc="c"),
        diar("boundary", {"t": 1}, [1, 2, 3], doc="d"),
        diar("boundary", {"t": 1}, [-1, 2], doc="e"),
        diar("name", {"t": 1}, "", doc="f"),
        diar("segment", {"start": 1, "end": 2}, "A", doc="g"),
    )))
    assert problems(load_log, path) == [
        (path, 1, "answer of a same step must be true or false, not 'yes'"),
        (path, 2, "missing key 'answer' (a same step needs true or false)"),
        (path, 3, "answer end 1 is not after start 2"),
        (path, 4, "answer of a boundary step must be [start, end] in seconds, not [1, 2, 3]"),
        (path, 5, "answer start must be a number of seconds >= 0, not -1"),
        (path, 6, "answer of a name step must be the speaker (a non-empty string), not ''"),
        (path, 7, "answer of a segment step must be null or a list of [start, end, speaker], not 'A'"),
    ]


def test_adapted(tmp_path):
    write(tmp_path / "bad.txt", b"ok\n\xff\n")
    path = str(write(tmp_path / "log.jsonl", jsonl(
        mt(adapted={"lines": {"1": "a"}, "path": "x.txt"}),
        mt(doc="b", adapted={"line": {}}),
        mt(doc="c", adapted={"turns": []}),
        mt(doc="d", adapted={"lines": {"0": "a", "01": "b", "2": 3, "3": "x\u2028y", "4": "ok"}}),
        mt(doc="e", adapted={"path": "missing.txt"}),
        mt(doc="f", adapted={"path": "bad.txt"}),
        mt(doc="g", adapted={"path": "bad.txt"}),   # the file's problems are reported once
        mt(doc="h", adapted="lines"),
        mt(doc="i", adapted={"lines": ["a"]}),
    )))
    assert problems(load_log, path) == [
        (path, 1, 'adapted must hold exactly one of "path", "lines", "turns", "scores"'),
        (path, 2, "adapted: unknown key 'line' (expected one of: path, lines, turns, scores, labels)"),
        (path, 3, 'adapted "turns" is for diarization steps; an MT step gives "lines" or "path"'),
        (path, 4, "adapted lines: key '0' is not a segment number (\"1\", \"2\", ...)"),
        (path, 4, "adapted lines: key '01' is not a segment number (\"1\", \"2\", ...)"),
        (path, 4, "adapted lines: segment 2 must be a string, not 3"),
        (path, 4, "adapted lines: segment 3 contains a line break (U+2028); a segment must be "
                  "one line"),
        (path, 5, "adapted file 'missing.txt' not found"),
        (str(tmp_path / "bad.txt"), 2, "invalid UTF-8 byte 0xff at column 1 (file offset 3)"),
        (path, 8, "adapted must be an object or null, not 'lines'"),
        (path, 9, 'adapted "lines" must be an object {"12": "text", ...}, not ["a"]'),
    ]
    write(tmp_path / "empty.rttm", ";; nothing\n")
    path = str(write(tmp_path / "log2.jsonl", jsonl(
        diar("name", {"t": 1}, "A", adapted={"lines": {"1": "x"}}),
        diar("name", {"t": 1}, "A", doc="b", adapted={"turns": [[0, 1, "A"], [2, 1, "B"],
                                                               [0, 1], [0, -3, "C"], "x"]}),
        diar("name", {"t": 1}, "A", doc="c", adapted={"path": "empty.rttm"}),
    )))
    assert problems(load_log, path) == [
        (path, 1, 'adapted "lines" is for MT steps; a diarization step gives "turns" or "path"'),
        (path, 2, "adapted turns[1]: end 1 is not after start 2"),
        (path, 2, "adapted turns[2] must be [start, end, speaker], not [0, 1]"),
        (path, 2, "adapted turns[3] end must be a number of seconds >= 0, not -3"),
        (path, 2, "adapted turns[4] must be [start, end, speaker], not 'x'"),
        (str(tmp_path / "empty.rttm"), 0, "no SPEAKER turns"),
    ]


@pytest.mark.parametrize("content", [b"", b"\n  \n\n"])
def test_empty_log(tmp_path, content):
    path = str(write(tmp_path / "log.jsonl", content))
    assert problems(load_log, path) == [(path, 0, "no interaction steps")]


def test_missing_log(tmp_path):
    path = str(tmp_path / "log.jsonl")
    assert problems(load_log, path) == [(path, 0, "file not found")]


def test_bad_task_argument_is_a_programming_error(tmp_path):
    with pytest.raises(ValueError):
        load_log(tmp_path / "log.jsonl", task="asr")


# --------------------------------------------------------------------------------------------
# The writer: what step_line writes, load_log reads back

from llgui.io.interactions import TurnTexts, step_line  # noqa: E402

_TURNS = (Turn(0.1, 0.1 + 0.2, "spk 1 é"), Turn(0.2, 7.5, 'q"\\x'),
          Turn(1e-7, 1e5 + 0.1, "Ünï☃😀"), Turn(3.0, 4.0, "<NA>"))


def _mt_steps(doc: str) -> list[Step]:
    return [
        Step(doc, 1, "active", "reference", SentenceTarget(2), None, 0.1 + 0.2,
             Adapted(lines={2: "Ref ☃ «x»", 10: "tab\there", 1: 'q"\\ 😀'})),
        Step(doc, 2, "interactive", "post_edit", SentenceTarget(10), "post\u00a0édité 😀",
             None, None),
        Step(doc, 3, "active", "reference", SentenceTarget(1), None, 4, Adapted(lines={})),
    ]


def _diar_steps(doc: str) -> list[Step]:
    return [
        Step(doc, 1, "active", "same", SameTarget(0.1, 0.1 + 0.2, "autre doc ☃"), True, 6.0,
             Adapted(turns=tuple(sorted(_TURNS)))),
        Step(doc, 2, "active", "same", SameTarget(5e-324, 1e5, None), False, 0.0, None),
        Step(doc, 3, "interactive", "boundary", PointTarget(2.5), (0.1, 0.30000000000000004),
             None, Adapted(turns=())),
        Step(doc, 4, "interactive", "name", PointTarget(0.0), "spk 1 é", 1e-9,
             Adapted(turns=tuple(sorted(_TURNS[:2])))),
        Step(doc, 5, "interactive", "segment", SpanTarget(0.1, 0.2), None, 3.0, None),
    ]


@pytest.mark.parametrize("task, doc", [("mt", "nëws ☃/1 \"q\" 😀"), ("diarization", "shöw 😀")])
def test_log_lines_written_then_read(tmp_path, task, doc):
    steps = _mt_steps(doc) if task == "mt" else _diar_steps(doc)
    extras = [None, {"elapsed_s": 0.1 + 0.2}, {"effort": {"seconds": 1.5, "keystrokes": 3},
                                               "elapsed_s": 0.25}]
    cached = TurnTexts()
    lines = []
    for i, step in enumerate(steps):
        extra = extras[i % len(extras)]
        line = step_line(step, extra)
        # the writer's own text is json.dumps of the record, with or without the turn cache
        assert step_line(step, extra, turns_text=cached) == line
        assert step_line(step, extra, turns_text=cached) == line     # from the cache
        record = json.loads(line)
        assert list(record)[:5] == ["doc", "step", "initiative", "kind", "target"]
        assert json.dumps(record, ensure_ascii=False) == line
        for key, value in (extra or {}).items():
            assert record[key] == value
        lines.append(line)
    path = write(tmp_path / "log.jsonl", "".join(line + "\n" for line in lines))
    back = load_log(path, task=task)
    assert back == tuple(steps)     # floats compared with ==: the same bits
    if task == "diarization":
        assert back[0].adapted.turns[1] == Turn(0.1, 0.30000000000000004, "spk 1 é")
        assert back[0].target.t2 == 0.30000000000000004
    else:
        assert back[0].cost == 0.30000000000000004


def test_step_line_of_an_empty_extra_is_still_json():
    step = _diar_steps("d")[0]
    for extra in (None, {}):
        assert json.loads(step_line(step, extra))["adapted"]["turns"][0] == [
            1e-7, 1e5 + 0.1, "Ünï☃😀"]
