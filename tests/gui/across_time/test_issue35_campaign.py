"""Across time with an output-only campaign of 24 systems (issue 35, items 4 and 6): the other
systems overlaid with one legend entry instead of 23 over the plot, told apart by colour,
marker and line style; no legend entry for a curve that is not drawn (it showed as ⊘); the
penalised box, greyed, is not ticked; the time-series plot without a bundle says why and
draws no empty ticks; the heatmap's row axis has no "(x0.001)" prefix."""
from __future__ import annotations

import time

from tests.gui.systems.test_many_systems import N_SYSTEMS, many  # noqa: F401 - the fixture


def test_across_time_with_many_output_only_systems(many, qapp):  # noqa: F811
    window = many
    window.show_tab("time")
    for _ in range(30):
        qapp.processEvents()
        time.sleep(0.01)
    tab = window.time_tab
    legend = tab.sp_plot.getPlotItem().legend
    entries = [(sample.item, label.text) for sample, label in legend.items]
    assert all(item.isVisible() for item, _ in entries), [t for i, t in entries
                                                          if not i.isVisible()]
    assert not any("penalised" in text for _, text in entries)
    assert sum("other systems" in text for _, text in entries) == 1
    assert len(entries) <= 6                          # 3 presets, current, the others
    systems = tab._sp_curves["systems"]
    assert len(systems) == N_SYSTEMS - 1
    looks = {(c.opts["pen"].color().name(), c.opts["symbol"], c.opts["pen"].style())
             for _, _, c in systems}
    assert len(looks) == N_SYSTEMS - 1
    box = tab.penalised_box
    assert not box.isEnabled() and not box.isChecked()
    series = tab.series_plot.getPlotItem()
    assert "no bundle: open one" in series.titleLabel.text
    assert not series.getAxis("left").style["showValues"]
    assert not tab.heatmap.plot.getPlotItem().getAxis("left").autoSIPrefix
