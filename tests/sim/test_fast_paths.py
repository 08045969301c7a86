"""The simulation's per-step fast paths equal the plain code they replace.

- turn lists checked in bulk (`protocol._turns_fast`) give what the item-by-item check gives,
  and leave every malformed list to it (so its message names the item);
- the log line written with per-turn text made once equals json.dumps of the record;
- the oracle's vectorised error list and `were_corrected` equal the list walk and
  `was_corrected`.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llgui.core.types import Adapted, SpanTarget, Step, Turn
from llgui.sim import protocol as P
from llgui.sim.oracles import ERROR_KINDS, View

times = st.one_of(st.floats(0, 1e4, allow_nan=False), st.integers(0, 10_000))
items = st.tuples(times, times, st.sampled_from(["A", "spk_2", "é", "B"]))
# (a label with white space is refused by both paths since issue 28: tests/sim/test_protocol)


def _slow(value):
    """The item-by-item check of `parse_turns` (the fast path switched off)."""
    out = []
    for i, item in enumerate(value, 1):
        start = P._time(item[0], "s")
        end = P._time(item[1], "e")
        if end < start:
            raise P._Bad("ends before it starts")
        out.append((start, end, P._string(item[2], "speaker", empty=False)))
    return tuple(out)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(items, min_size=1, max_size=30))
def test_bulk_turn_check_equals_the_item_by_item_one(raw):
    value = [[min(a, b), max(a, b), s] for a, b, s in raw]
    got = P._turns_fast(value)
    assert got == _slow(value)
    assert all(type(x) is float for t in got for x in t[:2])


@pytest.mark.parametrize("bad", [
    [[0.0, 1.0, "A"], [2.0, 1.0, "A"]],          # ends before it starts
    [[0.0, 1.0, "A"], [-1.0, 1.0, "A"]],         # negative
    [[0.0, 1.0, "A"], [0.0, 1.0, ""]],           # empty speaker
    [[0.0, 1.0, "A"], [0.0, True, "A"]],         # bool
    [[0.0, 1.0, "A"], [0.0, 1.0]],               # two items
    [[0.0, 1.0, "A"], (0.0, 1.0, "A")],          # not a list
    [[0.0, float("inf"), "A"]],
    [[0.0, 1.0, 3]],
])
def test_malformed_turn_lists_go_to_the_item_by_item_check(bad):
    assert P._turns_fast(bad) is None
    with pytest.raises(P._Bad, match="item 2|item 1"):
        P.parse_turns(bad)


def test_log_line_equals_json_dumps_of_the_record(tmp_path, demo_dir):
    from llgui.io.bundle import load_bundle
    from llgui.sim.output import RunWriter

    turns = (Turn(0.0, 1.5, "A"), Turn(1.25, 3.0, "spk é"), Turn(4.0, 4.1, 'q"x'))
    step = Step(doc="show", step=3, initiative="interactive", kind="segment",
                target=SpanTarget(1.0, 2.0), answer=None, cost=1.0,
                adapted=Adapted(turns=turns))
    writer = RunWriter(tmp_path, load_bundle(demo_dir / "diarization" / "bundle.toml"))
    for extra in (None, {"effort": 2}):
        writer.append_step(step, 0.25, extra)
        writer.append_step(step, 0.5, extra)     # the second time from the cached texts
    writer.close()
    lines = (tmp_path / "logs" / "system.jsonl").read_text(encoding="utf-8").splitlines()
    for line, (elapsed, extra) in zip(lines, [(0.25, None), (0.5, None), (0.25, {"effort": 2}),
                                              (0.5, {"effort": 2})]):
        record = {"doc": "show", "step": 3, "initiative": "interactive", "kind": "segment",
                  "target": P.target_to_json(step.target), "answer": None, "cost": 1.0,
                  "adapted": {"turns": P.turns_to_json(turns)}}
        record.update(extra or {})
        record["elapsed_s"] = elapsed
        assert line == json.dumps(record, ensure_ascii=False, allow_nan=False)


class _Track:
    def __init__(self, regions):
        self.regions = regions

    def error_region_arrays(self):
        out = {}
        for kind in ("correct", "confusion", "miss", "false_alarm"):
            spans = [(s, e) for s, e, k in self.regions if k == kind]
            out[kind] = (np.array([s for s, _ in spans], dtype=float),
                         np.array([e for _, e in spans], dtype=float))
        return out

    def error_regions(self):
        order = ("correct", "confusion", "miss", "false_alarm")
        return sorted(self.regions, key=lambda r: (r[0], order.index(r[2])))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 5),
                          st.sampled_from(["correct", "confusion", "miss", "false_alarm"])),
                max_size=25),
       st.lists(st.tuples(st.integers(0, 45), st.integers(0, 6)), max_size=5))
def test_vectorised_error_list_and_corrected_test_equal_the_walk(raw, windows):
    regions, taken = [], set()
    for s, d, k in raw:               # runs of one kind never overlap
        if all((k, t) not in taken for t in range(s, s + d)):
            taken.update((k, t) for t in range(s, s + d))
            regions.append((float(s), float(s + d), k))
    view = View.__new__(View)
    view.track = _Track(regions)
    view.corrected_windows = [(float(a), float(a + w)) for a, w in windows]
    starts, ends, kinds = view.error_arrays()
    want = view.error_regions()
    assert [(s, e, ERROR_KINDS[k]) for s, e, k in zip(starts.tolist(), ends.tolist(),
                                                      kinds.tolist())] == want
    mids = 0.5 * (starts + ends)
    assert view.were_corrected(mids).tolist() == [view.was_corrected(t) for t in mids.tolist()]


def _json_decode(raw: bytes):
    """`_decode` with orjson switched off (json alone, as before it)."""
    real = P._decode_fast
    P._decode_fast = lambda raw: None
    try:
        return P._decode(raw)
    except P._Bad as exc:
        return ("refused", str(exc))
    finally:
        P._decode_fast = real


def _decoded(raw: bytes):
    try:
        return P._decode(raw)
    except P._Bad as exc:
        return ("refused", str(exc))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=5), children, max_size=4), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(["hypothesis", "request", 3, None]))
def test_messages_decode_as_json_decodes_them(value, kind):
    """orjson reads a system's messages (`protocol._decode_fast`): whatever the message, what
    `_decode` returns, or the fault it names, is what json alone gives."""
    message = {"type": kind, "doc": "d", "turns": value} if kind is not None else value
    raw = json.dumps(message, ensure_ascii=False).encode("utf-8")
    assert _decoded(raw) == _json_decode(raw)


@pytest.mark.parametrize("raw", [
    b'{"type": "hypothesis", "turns": [[0, 1.5, "A"]]}',
    b'{"type": "a", "type": "b"}',                          # the last key wins in both
    b'{"type": "hypothesis", "step": 123456789012345678901234567890}',   # past 64 bits
    b'{"type": "hypothesis", "x": 1e400}',                  # past the doubles: json's inf
    b'{"type": "hypothesis", "x": NaN}',
    b'{"type": "hypothesis", "x": "\\ud800"}',              # a lone surrogate
    b'{"type": "hypothesis", "x": "\\ud83d\\ude00"}',       # a pair: one character
    b'\x0c{"type": "x"}\xc2\xa0',                            # white space str.strip() takes
    b'{"type": "x", "label": "caf\xc3\xa9"}', b'{"type": "x", "bad": "\xff"}',
    b'', b'   ', b'[1, 2]', b'{"no type": 1}', b'{"type": -0, "y": -0.0}',
    b'{"type": "x"} trailing',
])
def test_edge_messages_decode_as_json_decodes_them(raw):
    assert _decoded(raw) == _json_decode(raw)
