"""Where the Detection tab's threshold views start: at the decision threshold of the
system's bundle, so that the error rate they show is the Documents panel's S_base (outsider
helper-56: they started at the EER's threshold, and the two error rates differed)."""
from __future__ import annotations

import math

from PySide6.QtCore import Qt

from tests.conftest import DEMO


def test_a_bundles_system_starts_at_its_decision_threshold_with_the_panels_s_base(qtbot):
    from tests.gui.conftest import shown_window

    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles([str(DEMO / "detection-lifelong" / "bundle.toml")])
        qtbot.waitUntil(lambda: not window.jobs.busy, timeout=60000)
        window.show_tab("detection")
        tab = window.detection_tab
        qtbot.waitUntil(lambda: not window.jobs.busy and bool(tab.results)
                        and tab.threshold_panel.values is not None, timeout=60000)
        bundle = window.state.bundles[0]
        p, c_miss, c_fa = (float(bundle.settings.get(k, d)) for k, d in
                           (("p_target", 0.5), ("c_miss", 1.0), ("c_fa", 1.0)))
        # the Bayes threshold on log-likelihood ratios, log(C_fa (1 - P) / (C_miss P))
        assert tab.threshold_state.threshold == math.log(c_fa * (1 - p) / (c_miss * p))
        model = window.documents_model
        header = [model.headerData(c, Qt.Orientation.Horizontal)
                  for c in range(model.columnCount())]
        row = next(r for r in range(model.rowCount())
                   if model.index(r, 0).data() == tab.threshold_state.system)
        s_base = model.index(row, header.index("S_base")).data()
        assert f"{tab.threshold_panel.values.error_rate:.2f}" == s_base
        eer = next(r for r in tab.results if r.name == tab.threshold_state.system)
        assert eer.eer_point.threshold != tab.threshold_state.threshold   # (not the EER's)
    finally:
        window.jobs.shutdown(2000)
        window.close()
