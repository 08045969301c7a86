"""Short system names (issue 23, item 15): what differs between names, cut at word
boundaries; names that would become equal or empty stay whole."""
from llgui.core.display.names import short_names


def test_the_part_that_differs_is_kept():
    assert short_names(["WMT23 en-zh (ONLINE-B) (simulated)",
                        "WMT23 en-zh (NLLB_Greedy) (simulated)"]) == ["ONLINE-B", "NLLB_Greedy"]


def test_a_word_is_never_cut_in_its_middle():
    assert short_names(["sysA", "sysB"]) == ["sysA", "sysB"]
    assert short_names(["baseline run", "baseline rerun"]) == ["run", "rerun"]


def test_equal_or_empty_names_stay_whole():
    assert short_names(["same", "same"]) == ["same", "same"]
    assert short_names(["run", "run (2)"]) == ["run", "2"]
    assert short_names(["only"]) == ["only"]
    assert short_names([]) == []
