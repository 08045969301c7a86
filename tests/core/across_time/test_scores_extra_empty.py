"""A lifelong table with no test for a metric (a campaign whose cells all failed): the
time series has no point, and the Across-time tab does not raise in its showEvent."""
from __future__ import annotations

import numpy as np

from llgui.core.across_time import scores as S


def test_diagonal_of_a_table_without_tests_is_empty_not_an_error(monkeypatch):
    class Table:
        pass

    table = Table()
    monkeypatch.setattr(S, "_matrix", lambda scores, metric, penalised=False: np.zeros((3, 0)))
    table.test_time_values = lambda: np.zeros(0)
    table.model_time_values = lambda: np.arange(3.0)
    assert S.diagonal_tests(table, "bleu").tolist() == [-1, -1, -1]
    assert np.isnan(S.diagonal(table, "bleu")).all()
