"""gui2, item 2: a campaign-only window at 1366x768, Systems tab with a baseline chosen: no
empty Documents panel takes the left fifth of the window, and the significance columns
(S_base 95 %, p S_base, p S_pen) lie whole in view, with no horizontal scrolling."""
from __future__ import annotations

import pytest

from llgui.gui.app import build_parser, open_arguments
from llgui.gui.demo import demo_campaign
from tests.gui.across_time.test_policy_item import wait_for


@pytest.fixture
def window(qapp):
    """A window on the run's cell cache (tests/conftest.py: a temporary folder of the whole
    run): the layout does not need the demo campaign's cells scored afresh, and the
    demo's subprocess windows of tests/gui/test_app.py, on the same worker, may have scored
    them already (~1.5 s of CPU)."""
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    window.resize(1366, 768)
    window.show()
    window.jobs.release()
    yield window
    window.jobs.shutdown(2000)
    window.close()


def test_the_demo_campaign_fits_a_1366_window_without_an_empty_documents_panel(window, qapp):
    assert open_arguments(window, build_parser().parse_args([str(demo_campaign())]))
    view = window.systems_view
    wait_for(lambda: view.model.rowCount() == 4 and not window.jobs.busy, timeout=300)
    assert view.baseline_box.currentText()          # the campaign's baseline is chosen
    for _ in range(20):
        qapp.processEvents()
    assert window.documents_model.rowCount() == 0
    assert not window.documents_dock.isVisible()
    from llgui.gui.systems.tab import COLUMNS

    table = view.view
    keys = [c[0] for c in COLUMNS]
    for name in ("s_base_ci", "s_base_p", "s_pen_p"):
        column = keys.index(name)
        assert not table.isColumnHidden(column), name
        x = table.columnViewportPosition(column)
        assert 0 <= x and x + table.columnWidth(column) <= table.viewport().width(), name
    # every pair of systems is in sight under the plot (setSizes gave it 0 px: hidden), and
    # the leaderboard shows its four rows whole
    pairs = view.pairs_view
    assert pairs.isVisible() and pairs.height() >= 150, pairs.height()
    last = table.rowViewportPosition(3) + table.rowHeight(3)
    assert 0 < last <= table.viewport().height(), (last, table.viewport().height())
    # the workbench, where documents are listed, shows the panel again
    window.show_tab("workbench")
    assert window.documents_dock.isVisible()
