"""Issue 35, item 10: a cost weight informed by fewer than 3 steps is flagged in the report,
the table and the written cost model (its interval rests on the other steps' residuals)."""
from __future__ import annotations

import numpy as np

from llgui.core.effort.human import fit_cost
from llgui.io.effort_report import fit_line, human_table
from llgui.sim.human import fitted_cost_toml

# six `reference` steps (words) and one `post_edit` step (word edits); stated seconds
FEATURES = np.array([[10, 0, 0], [7, 0, 0], [12, 0, 0], [5, 0, 0], [9, 0, 0], [14, 0, 0],
                     [0, 4, 0]], dtype=float)
SECONDS = np.array([9.5, 6.0, 11.1, 4.4, 8.3, 12.4, 10.0])


def test_a_weight_of_one_step_is_flagged():
    fit = fit_cost(FEATURES, SECONDS).to_dict()
    ref, edit = fit["weights"]["reference_weight"], fit["weights"]["post_edit_weight"]
    assert (ref["steps"], edit["steps"]) == (6, 1)
    assert ref["warning"] is None
    assert "rests on 1 step" in edit["warning"]
    assert "other steps' residuals" in edit["warning"]
    # the one step's seconds per edit is the weight (least squares fits it exactly)
    assert edit["value"] == 10.0 / 4
    assert "warning: post_edit_weight rests on 1 step" in fit_line(fit)
    report = {"agreement": {"interval": [0.0, 0.5], "level": 0.95, "compared": 4, "agree": 4,
                            "disagree": 0, "error_rate": 0.0, "method": "exact",
                            "noisy": "is not shown to be noisy"},
              "answers": [], "cost_fit": fit, "ranking": None,
              "cost_model": {"post_edit_weight": 2.5, "reference_weight": 0.9,
                             "use_log_cost": False}}
    lines = human_table(report).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("warning: post_edit_weight"))
    assert at > next(i for i, line in enumerate(lines) if line.startswith("post_edit_weight"))
    assert "# warning: post_edit_weight rests on 1 step" in fitted_cost_toml(report)
