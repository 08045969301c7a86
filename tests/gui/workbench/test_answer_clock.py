"""The steps table's answer column says a diarization boundary in the clock of its target
column and of the step's line (outsider helper-48: raw seconds beside m:ss)."""
from __future__ import annotations

import pytest

from llgui.gui.table_models import describe_answer


@pytest.mark.parametrize("end, said", [(600.0, "0:20.66–0:21.04"),
                                        (5324.0, "0:00:20.66–0:00:21.04")])
def test_a_boundary_answer_is_said_in_the_clock_of_its_target_and_the_step_line(end, said):
    """The steps table's answer column (and its export) wrote a boundary answer in raw
    seconds ("20.66–21.04 s") beside a target in m:ss (outsider helper-48): now the clock
    of the target column and of the step's line, to the hundredth as the line has it."""
    from types import SimpleNamespace

    from llgui.core.display.diar_text import describe_step, describe_target
    from llgui.core.types import PointTarget, Step

    step = Step("doc", 1, "interactive", "boundary", PointTarget(20.8), (20.66, 21.04))
    document = SimpleNamespace(extent=(0.0, end))
    hours = end >= 3600
    assert describe_answer(step, document) == said
    assert said in describe_step(step, hours)
    assert describe_target(step, hours).split(".")[0] in said.split("–")[0]
