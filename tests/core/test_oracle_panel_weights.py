"""The panel's oracle weights (Geoffrois 2016, 3.2.1): 1 - best MSR as a fraction, floored at 0
and capped at 1; a negative MSR (no sound run has one) and a panel where every weight is 0
are said in the notes."""
from __future__ import annotations

import pytest

from llgui.core.reports.oracle_panel import PanelRun, make_panel


def _run(system, oracle, msr, s_pen=20.0):
    return PanelRun(system, oracle, 30.0, 40.0, s_pen, msr, 10.0)


def test_a_negative_msr_weighs_1_and_is_named_a_defect():
    # the outsider's prefix-char run had MSR -96 %: 1 - (-0.96) would weigh 1.96
    panel = make_panel([_run("a", "prefix-char", -96.0), _run("b", "prefix-char", 50.0),
                        _run("a", "reference", 40.0), _run("b", "reference", 70.0)],
                       "bleu", "ter")
    assert panel.weights == {"prefix-char": 1.0, "reference": pytest.approx(0.6)}
    # panel MSR of a: (1 x -96 + 0.6 x 40) / 1.6, by hand
    assert panel.panel_msr["a"] == pytest.approx((-96.0 + 0.6 * 40.0) / 1.6)
    notes = " ".join(panel.notes)
    assert "oracle prefix-char: best MSR -96.0 % is below 0" in notes and "defect" in notes
    assert "reference: best MSR" not in notes


@pytest.mark.parametrize("msrs, why", [((100.0, 130.0), "100 % or more"),
                                       ((None, None), "counts no errors")])
def test_a_panel_where_every_oracle_weighs_0_says_why(msrs, why):
    panel = make_panel([_run("a", "prefix", msrs[0]), _run("b", "prefix", msrs[1])],
                       "bleu", "ter")
    assert panel.weights == {"prefix": 0.0}
    assert panel.panel_s_pen == {"a": None, "b": None}
    note = next(n for n in panel.notes if n.startswith("every oracle weighs 0"))
    assert why in note


def test_sound_weights_have_no_weight_note():
    panel = make_panel([_run("a", "prefix", 20.0), _run("b", "prefix", 50.0)], "bleu", "ter")
    assert panel.weights == {"prefix": pytest.approx(0.8)}
    assert not any("weighs 0" in n or "below 0" in n for n in panel.notes)
