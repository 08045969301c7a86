"""One time format for diarization (issue 23, item 13) and steps said in reference terms
(item 11): axis ticks, the table's targets, the step line, tooltips."""
from __future__ import annotations

import pytest

from llgui.core.display.diar_text import describe_step, describe_target, turn_tooltip
from llgui.core.display.layout import time_labels, time_ticks
from llgui.core.jobs import time_left
from llgui.core.types import PointTarget, SameTarget, Step, Turn


@pytest.mark.parametrize("lo, hi, most, spacing", [
    (0.0, 5324.0, 8, 900.0),      # the 89-minute recording: every 15 minutes
    (0.0, 5324.0, 14, 600.0),
    (1630.0, 1640.0, 6, 2.0),
    (0.0, 2970.0, 8, 600.0),
    (0.0, 36000.0, 8, 7200.0),
])
def test_ticks_fall_on_round_seconds_minutes_or_hours(lo, hi, most, spacing):
    step, values = time_ticks(lo, hi, most)
    assert step == spacing and len(values) <= most + 1
    assert all(v % step == 0 and lo <= v <= hi for v in values)
    # never the multiples of 500 s (8:20, 16:40, 33:20) the axis had
    assert not any(v % 500 == 0 and v % 60 for v in values)


def test_a_narrow_span_gets_two_ticks_at_least():
    """A panel like AMI TS3003a's t1, 21:11.5 to 21:19.6 over ~350 px (3 ticks at most):
    5-s multiples leave 21:15 alone in it; 2-s ones give four labels (outsider helper-40)."""
    lo, hi = 21 * 60 + 11.5, 21 * 60 + 19.6
    step, values = time_ticks(lo, hi, 3)
    assert step == 2.0 and values == [1272.0, 1274.0, 1276.0, 1278.0]
    # a span whose round spacing already gives two keeps it
    assert time_ticks(1270.0, 1281.0, 3) == (5.0, [1270.0, 1275.0, 1280.0])
    # the panel itself: 21:13.26 to 21:20.26 over 347 px, labels ~18 px each side of their
    # tick: 21:20, 13 px from the edge, is not labelled, so 2-s ticks
    lo, hi = 1273.26, 1280.26
    assert time_ticks(lo, hi, 3)[0] == 5.0   # (without the margin: two in range)
    step, values = time_ticks(lo, hi, 3, margin=18 / 347)
    assert step == 2.0 and values == [1274.0, 1276.0, 1278.0, 1280.0]
    # but never labels that run together: the 89-minute IB4010+IB4011's t1 panel at 1366,
    # 0:27:16.3 to 0:27:23.3 over 163 px, h:mm:ss labels 46 px wide: 2-s ticks were 47 px
    # apart and read "0:27:180:27:200:27:22" (outsider helper-41); 5-s ones give one
    assert time_ticks(1636.28, 1643.28, 2, margin=23.1 / 163) == (5.0, [1640.0])


def test_tick_labels_of_an_hour_long_recording_are_all_h_mm_ss():
    _, values = time_ticks(0.0, 5324.0, 8)
    assert time_labels(values, 900.0) == ["0:00:00", "0:15:00", "0:30:00", "0:45:00",
                                          "1:00:00", "1:15:00", "1:30:00"][:len(values)]


def _step(kind, target, answer):
    return Step("m", 3, "active", kind, target, answer, None, None, line=3)


def test_targets_and_steps_in_the_clock_format():
    same = _step("same", SameTarget(1639.78, 4272.915), True)
    assert describe_target(same, hours=True) == "0:27:19.8 ~ 1:11:12.9"
    assert describe_step(same, hours=True) == \
        "step 3: same speaker at t1 0:27:19.8 ~ t2 1:11:12.9? yes"
    assert describe_target(same, hours=False) == "27:19.8 ~ 71:12.9"


def test_a_boundary_step_says_its_point_and_its_bounds_in_one_precision():
    """Outsider finding: '10:03.4 is 9:58.13–10:05.20' mixed tenths and hundredths."""
    boundary = _step("boundary", PointTarget(603.4), (598.13, 605.2))
    assert describe_step(boundary, False) == "step 3: the turn around 10:03.40 is 9:58.13–10:05.20"
    assert describe_step(boundary, True) == \
        "step 3: the turn around 0:10:03.40 is 0:09:58.13–0:10:05.20"


def test_a_name_answer_is_said_in_reference_terms():
    name = _step("name", PointTarget(75.25), "7")
    assert describe_step(name, False, {"7": "MEE071"}) == \
        "step 3: the speaker at 1:15.2 is 7 (reference speaker MEE071)"
    assert describe_step(name, False, {"3": "MEE071"}, ["MEE071"], ["3", "7"]).endswith(
        "is 7 (a cluster mapped to no reference speaker)")
    # ES2011a step 5: the human named FEE042, whom no cluster stood for
    fee = _step("name", PointTarget(387.6), "FEE042")
    assert describe_step(fee, False, {"3": "FEE041"}, ["FEE041", "FEE042"], ["3"]) == (
        "step 3: the speaker at 6:27.6 is FEE042 (reference speaker FEE042, whom no cluster "
        "of h\u2099\u208b\u2081 stands for)")


def test_a_turn_tooltip_gives_label_times_and_mapped_speaker():
    turns = (Turn(10.0, 14.5, "c1"), Turn(12.0, 20.0, "c2"), Turn(30.0, 31.0, "c1"))
    tip = turn_tooltip(turns, 13.0, "seen", {"c1": "FEE005"})
    assert tip.splitlines() == ["seen",
                                "c1: 0:10.00 – 0:14.50 (4.50 s) · mapped to FEE005",
                                "c2: 0:12.00 – 0:20.00 (8.00 s) · unmapped (no reference speaker)"]
    assert turn_tooltip(turns, 25.0, "seen", {}) == ""


def test_time_left_at_the_pace_so_far():
    assert time_left(30.0, 0.25) == pytest.approx(90.0)
    assert time_left(30.0, 0.01) is None and time_left(0.0, 0.5) is None
    assert time_left(10.0, 1.0) == 0.0
