"""gui2, item 3: the Across-time S_P legend lies outside the plot's data area (it covered the
upper half of the plot at 1366x768), and the policy plot names the model by its own id (it
said "tests of M₃" for the third model of a table whose ids were M0-M2)."""
from __future__ import annotations

import time

from tests.gui.systems.test_many_systems import many  # noqa: F401 - the fixture


def test_the_sp_legend_is_outside_the_data_and_the_model_is_named_by_its_id(
        many, qapp):  # noqa: F811
    window = many
    window.show_tab("time")
    for _ in range(30):
        qapp.processEvents()
        time.sleep(0.01)
    tab = window.time_tab
    item = tab.sp_plot.getPlotItem()
    legend = item.legend
    assert legend is not None and legend.items      # the entries are there
    area = item.getViewBox().sceneBoundingRect()
    box = legend.sceneBoundingRect()
    assert box.height() > 0 and not area.intersects(box), (area, box)
    # the legend is whole inside the widget (not pushed past its right edge)
    assert tab.sp_plot.mapFromScene(box.bottomRight()).x() <= tab.sp_plot.width()
    table, i = tab.table(), tab.model_index()
    assert i >= 0
    label = tab.policy_plot.getPlotItem().getAxis("left").labelText
    assert label.endswith(f"tests of {table.models[i]}"), (label, table.models[i])
