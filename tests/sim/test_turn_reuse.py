"""Issue 36 (gate 8): a system's turn list is checked against the one before it
(`llgui.sim.turn_reuse.TurnReuse`): only the items that changed are checked and made anew.

The result must be what the plain check (`protocol.parse_turns`) gives, for any sequence of
lists, every refusal must stay a refusal naming the item in the whole list, and the items
that did not change must come back as the previous list's objects (what lets the session's
turns, the scorer and the log writer see them as unchanged)."""
from __future__ import annotations

import json
import operator
import random
import sys

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from llgui.io.bundle import load_bundle
from llgui.sim import protocol as P
from llgui.sim.driver import Session
from llgui.sim.oracles import make_oracle
from llgui.sim.turn_reuse import TurnReuse
from tests.conftest import REPO

times = st.one_of(st.floats(0, 1e4, allow_nan=False), st.integers(0, 10_000))
item = st.tuples(times, times, st.sampled_from(["A", "spk_2", "é", "B"])).map(
    lambda t: [min(t[0], t[1]), max(t[0], t[1]), t[2]])
edit = st.tuples(st.sampled_from(["replace", "insert", "delete", "same"]),
                 st.integers(0, 40), item)


def _message(turns) -> bytes:
    return json.dumps({"type": "adapted", "turns": turns}).encode()


def _read(reuse, value):
    raw = _message(value)
    return reuse.parse(json.loads(raw)["turns"], P.parse_turns, P._turns_fast, raw)


def _edited(value: list, edits) -> list:
    """A copy of the turn list `value` with the generated edits applied in order."""
    value = [list(t) for t in value]
    for op, at, new in edits:
        at = at % (len(value) + 1)
        if op == "insert":
            value.insert(at, new)
        elif op == "replace" and at < len(value):
            value[at] = new
        elif op == "delete" and at < len(value) and len(value) > 1:
            del value[at]
    return value


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.lists(item, min_size=1, max_size=25), st.lists(st.lists(edit, max_size=4),
                                                          max_size=6))
def test_every_list_of_a_sequence_is_what_the_plain_check_makes(first, rounds):
    reuse, value = TurnReuse(), first
    before = before_value = None
    for edits in [[]] + rounds:
        value = _edited(value, edits)
        got = _read(reuse, value)
        assert got == P.parse_turns(value)
        assert all(type(x) is float for t in got for x in t[:2])
        if before is not None:
            # the items of the common head and tail are the previous list's objects
            n, m = len(value), len(before_value)
            p = 0
            while p < min(n, m) and value[p] == before_value[p]:
                assert got[p] is before[p]
                p += 1
        before, before_value = got, value


def test_an_equal_list_is_the_previous_result_itself():
    reuse = TurnReuse()
    value = [[0.5, 1.0, "A"], [1.0, 2.5, "B"]]
    first = _read(reuse, value)
    assert _read(reuse, [list(t) for t in value]) is first


def test_a_boolean_equal_to_a_checked_number_is_still_refused():
    """`true == 1` in Python: the item must not pass as the checked [1, 2, "A"] it equals."""
    reuse = TurnReuse()
    _read(reuse, [[0.0, 0.5, "B"], [1, 2, "A"]])
    with pytest.raises(P._Bad, match="item 2 start must be a number, not True"):
        _read(reuse, [[0.0, 0.5, "B"], [True, 2, "A"]])


def test_a_malformed_changed_item_is_named_by_its_place_in_the_whole_list():
    rng = random.Random(4)
    value = sorted([[round(s, 3), round(s + rng.uniform(0.3, 5), 3), f"spk{rng.randrange(4)}"]
                    for s in (rng.uniform(0, 3600) for _ in range(3000))])
    reuse = TurnReuse()
    _read(reuse, value)
    bad = [list(t) for t in value]
    bad[2499] = [bad[2499][1], bad[2499][0], "spk1"]      # ends before it starts
    with pytest.raises(P._Bad, match="item 2500 ends before it starts"):
        _read(reuse, bad)
    bad[2499] = [1.0, 2.0, "two words"]
    with pytest.raises(P._Bad, match="item 2500 speaker 'two words' holds white space"):
        _read(reuse, bad)


def test_a_session_sees_an_unchanged_hypothesis_as_the_same_turns(tmp_path):
    """Through the driver: a step whose adapted list equals the one before gets the very turn
    tuple of that step (so the scorer's and the log writer's identity checks hold), and the
    log written reads back to the turns the system sent."""
    from llgui.io.interactions import load_log

    bundle = load_bundle(REPO / "resources" / "demo" / "diarization" / "bundle.toml")
    session = Session(bundle, [sys.executable, "-m", "llgui.systems.diar_clusters"],
                      make_oracle("worst-first"), tmp_path / "out", budget=60.0,
                      timeout=120.0)
    records = []
    try:
        session.start()
        session.begin_document(0)
        while (record := session.next_step()) is not None:
            records.append(record)
        session.end_document()
        session.finish()
    finally:
        session.close()
    adapted = [r.step.adapted.turns for r in records]
    pairs = list(zip(adapted, adapted[1:]))
    assert any(a == b for a, b in pairs), "no step kept the hypothesis: nothing was checked"
    assert all(b is a for a, b in pairs if a == b)
    log = next((tmp_path / "out" / "logs").iterdir())
    logged = load_log(log, "diarization")
    assert [tuple(s.adapted.turns) for s in logged] == [tuple(t) for t in adapted]


def test_the_log_writers_turn_texts_equal_json_over_a_sequence():
    """`TurnTexts` (per-turn texts kept by identity, the last list's text kept whole) gives
    json.dumps' items for every list of a sequence that keeps, changes and returns to lists."""
    from llgui.core.types import Turn
    from llgui.io.interactions_writer import TurnTexts

    a = tuple(Turn(float(i), i + 0.5, f"s{i % 3}") for i in range(6))
    b = a[:2] + (Turn(2.0, 2.25, 'q"x'),) + a[3:]
    texts = TurnTexts()
    for turns in (a, a, b, b, a, list(b), b[1:], a):
        want = json.dumps([[t.start, t.end, t.speaker] for t in turns], ensure_ascii=False)
        assert "[" + texts(turns) + "]" == want


def _whole_path(parsed, limit):
    """What the session made of an adapted list before the splice (the plain code)."""
    from llgui.core.types import Turn

    raw = sorted(t for t in parsed if t[1] > t[0])
    if raw and max(t[1] for t in raw) > limit:
        raise ValueError("late")
    return tuple(Turn(*t) for t in raw)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(item, min_size=1, max_size=25), st.lists(st.lists(edit, max_size=3),
                                                          max_size=8))
def test_adapted_turns_of_a_sequence_are_the_whole_paths(first, rounds):
    """`AdaptedTurns.make` over the lists `TurnReuse` reads (heads and tails shared by
    identity): the turns the plain path makes (sorted, empty ones dropped, a late end sent to
    the time check), each (start, end, speaker) one object for the document."""
    from llgui.sim.adapted_turns import AdaptedTurns

    def check(times):
        raise ValueError("late")

    made = AdaptedTurns(9_000.0, check)      # limit: 12,600 s; the items reach 10,000
    made.limit = 9_990.0                     # ... so some lists are late
    reuse, value = TurnReuse(), sorted(first)
    seen: dict = {}
    for edits in [[]] + rounds:
        value = _edited(value, edits)
        parsed = _read(reuse, value)
        try:
            want = _whole_path(parsed, made.limit)
        except ValueError:
            with pytest.raises(ValueError, match="late"):
                made.make(parsed)
            made = AdaptedTurns(9_000.0, check)   # a fault ends the run: start afresh
            made.limit = 9_990.0
            seen = {}
            continue
        got = made.make(parsed)
        assert got == want
        for turn in got:
            assert seen.setdefault((turn.start, turn.end, turn.speaker), turn) is turn


def test_a_step_that_changes_a_few_turns_of_a_show_makes_only_those():
    """The splice is taken (the whole path is not called) and gives the whole path's turns,
    the unchanged ones the very objects of the step before."""
    from llgui.sim.adapted_turns import AdaptedTurns

    rng = random.Random(5)
    value = sorted([[round(s, 3), round(s + rng.uniform(0.3, 5), 3), f"spk{rng.randrange(4)}"]
                    for s in (rng.uniform(0, 3600) for _ in range(3000))])
    reuse, made = TurnReuse(), AdaptedTurns(3600.0, lambda times: None)
    before = made.make(_read(reuse, value))
    made._whole = None                                  # not to be called again
    changed = [list(t) for t in value]
    changed[1200][2] = "spk9"                            # a name
    del changed[2000]                                    # a segment's turns replaced
    changed.insert(2000, [changed[1999][0] + 0.001, changed[1999][0] + 0.002, "spk1"])
    parsed = _read(reuse, changed)
    got = made.make(parsed)
    assert got == _whole_path(parsed, 7200.0)
    assert got[:1200] == before[:1200] and all(map(operator.is_, got[:1200], before[:1200]))
    assert all(map(operator.is_, got[2001:], before[2001:]))


# -- the raw message read without its unchanged list (TurnReuse.decode) ----------------------


def _raw_adapted(turns, step: int) -> bytes:
    """An adapted message as a system speaking through the protocol's writer sends it."""
    return P.encode(P.AdaptedReply(turns=tuple(map(tuple, turns)), doc="d", step=step)).encode()


def _outcome(raw, reuse):
    try:
        return P.parse_system(raw, 1, "diarization", "d", 1, reuse)
    except P.ProtocolFault as fault:
        return ("fault", str(fault))


LIST = [[0.5, 1.25, "A"], [1.0, 2.5, "B"], [3.0, 4.000000000000001, "spk_2"]]


def test_an_unchanged_list_is_read_without_decoding_it():
    reuse = TurnReuse()
    first = P.parse_system(_raw_adapted(LIST, 1), 1, "diarization", "d", 1, reuse)
    raw = _raw_adapted(LIST, 12)
    assert reuse.decode(raw, P._decode_fast) is not None     # the short way is taken
    again = P.parse_system(raw, 2, "diarization", "d", 12, reuse)
    assert again == P.parse_system(raw, 2, "diarization", "d", 12)   # the whole path's
    assert again.turns is first.turns and again.step == 12


HEADS = [
    b'{"type":"adapted","step":3,"turns":',                       # the short way
    b'{"type":"adapted","step":3,"turns" :  ',                    # white space
    b'{"type":"adapted","turns":null,"other":',                   # another key's value
    b'{"type":"adapted","a":{"turns":',                           # nested: not JSON
    b'{"type":"adapted","turns":"',                               # inside a string
    b'{"type":"adapted","turns":"\\',                             # after a backslash
    b'{"type":"adapted","turns":[[0,1,"A"]],"turns":',            # a duplicate key
    b'{"type":"adapted","turns":[[0,1,"A"]],"x":1',               # no value position
    b'{"type":"adapted","step":1234567890123456789012,"turns":',  # past 64 bits: json's way
    b'{"type":"adapted","step":true,"turns":',                    # a boolean step
    b'{"type":"adapted","step":1,"turns":1',                      # inside a number
    b'["type","adapted","turns",',                                # a list
    b'',                                                          # the list alone
    b'{"type":"adapted","doc":"\xff","turns":',                   # not UTF-8
]


@pytest.mark.parametrize("head", HEADS)
def test_a_message_ending_with_the_previous_list_reads_as_the_whole_path_reads_it(head):
    """Whatever precedes the previous list's bytes, the message reads (or is refused) as
    without the reuse: the sentinel lands on "turns" only where the list is its value."""
    reuse = TurnReuse()
    P.parse_system(_raw_adapted(LIST, 1), 1, "diarization", "d", 1, reuse)
    tail = reuse._tail
    assert tail is not None and tail.endswith(b"}\n")
    raw = head + tail
    assert _outcome(raw, reuse) == _outcome(raw, None)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(item, min_size=1, max_size=12), st.lists(st.tuples(
    st.lists(edit, max_size=2), st.integers(0, 3), st.sampled_from(HEADS)), max_size=8))
def test_any_sequence_reads_as_without_the_reuse(first, rounds):
    """Messages that keep, change or mangle the list before its bytes, in any order: every
    one reads (or is refused) as it does without the reuse; a refused one ends a run, so the
    reuse starts afresh after it."""
    reuse, value = TurnReuse(), first
    for step, (edits, how, head) in enumerate([([], 0, b"")] + rounds, 1):
        value = _edited(value, edits)
        raw = _raw_adapted(value, step)
        if how == 3 and reuse._tail is not None:
            raw = head + reuse._tail
        event("short way" if reuse.decode(raw, P._decode_fast) is not None else "whole way")
        got, want = _outcome(raw, reuse), _outcome(raw, None)
        assert got == want
        if isinstance(got, tuple):
            reuse = TurnReuse()


def test_a_system_writing_its_lists_otherwise_takes_the_whole_path():
    """json's own spacing (not orjson's): no tail is kept, and the lists read as before."""
    reuse = TurnReuse()
    for step in (1, 2, 3):
        raw = json.dumps({"type": "adapted", "step": step, "turns": LIST}).encode() + b"\n"
        assert _outcome(raw, reuse) == _outcome(raw, None)
        assert reuse._tail is None
