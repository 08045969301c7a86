"""llgui.io.lifelong.load_lifelong: the long-format score table of a lifelong run."""
from __future__ import annotations

import math

import numpy as np
import pytest

from llgui.core.types import LifelongScores, Stamp
from llgui.io.lifelong import load_lifelong
from tests.io.helpers import problems, write

HEADER = "model,model_time,test,test_time,metric,value,value_pen\n"
COLUMNS = "model, model_time, test, test_time, metric, value, value_pen"


def test_good_table(tmp_path):
    path = write(tmp_path / "s.csv",
                 "\ufeff" + HEADER +                       # Excel's BOM
                 "m1,2020-02-01,t2,2020-02-15,bleu,26.5,25\n"
                 "m0,2020-01-01,t1,2020-01-15,bleu,25.1,24.0\n"
                 "\n"
                 "m0, 2020-01-01 ,t2,2020-02-15,bleu,20,\n"  # spaces stripped, empty value_pen
                 '"m1",2020-02-01,t1,2020-01-15,ter,60.5,\n'  # quoted cell
                 "m0,2020-01-01,t1,2020-01-15,ter,61,\n"
                 "m1,2020-02-01,t1,2020-01-15,bleu,1e1,\n")
    scores = load_lifelong(path)
    assert isinstance(scores, LifelongScores)
    assert scores.models == ("m0", "m1")
    assert scores.tests == ("t1", "t2")
    assert scores.model_times == (Stamp.parse("2020-01-01"), Stamp.parse("2020-02-01"))
    assert [s.text for s in scores.test_times] == ["2020-01-15", "2020-02-15"]
    assert scores.metrics == ("bleu", "ter")  # order of first appearance
    np.testing.assert_array_equal(scores.values["bleu"], [[25.1, 20.0], [10.0, 26.5]])
    np.testing.assert_array_equal(scores.values["ter"], [[61.0, np.nan], [60.5, np.nan]])
    assert set(scores.values_pen) == {"bleu"}  # no ter row gives value_pen
    np.testing.assert_array_equal(scores.values_pen["bleu"], [[24.0, np.nan], [np.nan, 25.0]])


def test_numeric_times_sorted_by_time_then_name(tmp_path):
    path = write(tmp_path / "s.csv", "metric,value,model,model_time,test,test_time\n"
                                     "der,10,b,2,y,1\n"
                                     "der,11,a,2,x,1\n"
                                     "der,12,c,1.5,x,1\n")
    scores = load_lifelong(path)
    assert scores.models == ("c", "a", "b")
    assert scores.tests == ("x", "y")
    assert [s.value for s in scores.model_times] == [1.5, 2.0, 2.0]
    assert scores.values_pen == {}
    np.testing.assert_array_equal(scores.values["der"], [[12, np.nan], [11, np.nan],
                                                         [np.nan, 10]])


def test_missing_and_empty(tmp_path):
    missing = str(tmp_path / "nope.csv")
    assert problems(load_lifelong, missing) == [(missing, 0, "file not found")]
    empty = str(write(tmp_path / "empty.csv", b""))
    assert problems(load_lifelong, empty) == [(empty, 0, "file is empty")]
    header_only = str(write(tmp_path / "h.csv", HEADER))
    assert problems(load_lifelong, header_only) == [(header_only, 0,
                                                     "no score rows (only a header)")]


def test_bad_header(tmp_path):
    path = str(write(tmp_path / "s.csv", "model,model_time,test,metric,value,value_pne,value\n"
                                         "m,1,t,bleu,1,2,3\n"))
    assert problems(load_lifelong, path) == [
        (path, 1, f"unknown column 'value_pne' (expected: {COLUMNS})"),
        (path, 1, "column 'value' appears twice"),
        (path, 1, "missing column 'test_time' (required: model, model_time, test, test_time, "
                  "metric, value)"),
    ]


def test_bad_cells(tmp_path):
    path = str(write(tmp_path / "s.csv", HEADER +
                     "m0,2020-01-01,t1,2020-01-15,bleu,abc,\n"
                     "m0,2020-01-01,t1,2020-01-15,chrf,nan,\n"
                     "m0,2020-01-01,t1,2020-01-15,ter,,\n"
                     "m0,2020-01-01,t1,2020-01-15,wer,3,x\n"
                     ",2020-01-01,,2020-01-15,,3,\n"
                     "m0,2020-01-01,t1,2020-01-15,bleu\n"
                     "m0,yesterday,t1,2020-01-15,bleu2,1,\n"))
    assert problems(load_lifelong, path) == [
        (path, 2, "value 'abc' is not a number"),
        (path, 3, "value 'nan' is not a finite number"),
        (path, 4, "value is empty"),
        (path, 5, "value_pen 'x' is not a number"),
        (path, 6, "model is empty"),
        (path, 6, "test is empty"),
        (path, 6, "metric is empty"),
        (path, 7, f"expected 7 fields ({COLUMNS}), got 5"),
        (path, 8, "model_time: time 'yesterday' is neither a number nor an ISO date "
                  "(YYYY-MM-DD[THH:MM:SS])"),
    ]


def test_inconsistent_times_and_duplicates(tmp_path):
    path = str(write(tmp_path / "s.csv", HEADER +
                     "m0,2020-01-01,t1,2020-01-15,bleu,1,\n"
                     "m0,2020-01-02,t2,2020-01-15,bleu,1,\n"     # m0 moved
                     "m1,2020-02-01,t1,2020-01-16,bleu,1,\n"     # t1 moved
                     "m1,2020-02-01,t2,5,bleu,1,\n"              # a number among dates
                     "m0,2020-01-01,t1,2020-01-15,bleu,2,\n"     # duplicate row
                     "m0,2020-01-01T00:00:00,t1,2020-01-15,ter,2,\n"))  # the same instant: fine
    assert problems(load_lifelong, path) == [
        (path, 3, "model 'm0' has model_time '2020-01-02' here but '2020-01-01' at line 2"),
        (path, 4, "test 't1' has test_time '2020-01-16' here but '2020-01-15' at line 2"),
        (path, 5, "test_time '5' is a number, but model_time at line 2 is an ISO date (times "
                  "must not mix numbers and dates)"),
        (path, 6, "duplicate row for model 'm0', test 't1', metric 'bleu' (first at line 2)"),
    ]


def test_broken_csv_quoting(tmp_path):
    path = str(write(tmp_path / "s.csv", HEADER + 'm0,"2020-01-01"x,t1,2020-01-15,bleu,1,\n'))
    found = problems(load_lifelong, path)
    assert len(found) == 1 and found[0][:2] == (path, 2)
    assert found[0][2].startswith("not valid CSV: ")


def test_invalid_utf8(tmp_path):
    path = str(write(tmp_path / "s.csv", HEADER.encode() + b"m\xe9,1,t,1,bleu,1,\n"))
    assert problems(load_lifelong, path) == [
        (path, 2, "invalid UTF-8 byte 0xe9 at column 2 (file offset 56)"),
    ]
    assert len(HEADER.encode()) == 55  # "m" at offset 55, the bad byte at 56


def test_value_pen_nan_is_empty_only(tmp_path):
    # a metric whose value_pen cells are all empty has no penalised scores at all
    path = write(tmp_path / "s.csv", HEADER + "m0,1,t1,1,bleu,1,\n")
    scores = load_lifelong(path)
    assert "bleu" not in scores.values_pen
    assert scores.values["bleu"][0, 0] == 1.0
    # one empty cell among given ones is a missing penalised score (NaN) there only
    both = load_lifelong(write(tmp_path / "t.csv", HEADER + "m0,1,t1,1,bleu,1,0.5\n"
                                                            "m0,1,t2,2,bleu,2,\n"))
    assert both.values_pen["bleu"][0, 0] == 0.5
    assert math.isnan(both.values_pen["bleu"][0, 1])
    with pytest.raises(ValueError):
        scores.values["bleu"][0, 0] = 2.0  # read-only
