"""A bundle of detection scores only (bob.measure's derived sets: one system perfectly
separated, one not): no empty Documents panel beside the Detection tab, and an operating
point at P_fa = 0 gets a hint that says so (probit() clips 0 to about -8.1, and the hint
read only "nonsep minDCF")."""
from __future__ import annotations

import pytest


@pytest.fixture
def scores_only(qtbot, tmp_path, reference_data):
    from llgui.gui.main_window import MainWindow

    folder = reference_data / "bob-measure"
    sets = ("nonsep", "linsep")
    path = tmp_path / "bob.toml"
    path.write_text(
        '[bundle]\ntask = "detection"\nname = "bob.measure"\n\n[detection]\n'
        f"targets = {[str(folder / f'derived_{s}-positives.txt') for s in sets]!r}\n"
        f"nontargets = {[str(folder / f'derived_{s}-negatives.txt') for s in sets]!r}\n"
        f"names = {list(sets)!r}\n".replace("'", '"'), encoding="utf-8")
    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    assert window.open_bundles([path])
    window.show_tab("detection")
    tab = window.detection_tab
    qtbot.waitUntil(lambda: len(tab.table_rows()) == 2 and not window.jobs.busy,
                    timeout=60000)
    yield window
    window.jobs.shutdown(2000)


def test_no_documents_panel_and_a_hint_at_p_fa_zero(scores_only, qtbot):
    window = scores_only
    assert not window.documents_dock.isVisible()
    for tab in ("workbench", "detection"):   # nor on another tab
        window.show_tab(tab)
        qtbot.wait(50)
        assert not window.documents_dock.isVisible(), tab
    tab = window.detection_tab
    tab.reset_view()
    nonsep = next(r for r in tab.results if r.name == "nonsep")
    assert nonsep.min_dcf_point.p_fa == 0.0   # no false alarm at its minDCF point
    assert "nonsep minDCF (P_fa = 0)" in tab.edge_hints.outside()
    texts = [a.textItem.toPlainText() for a in tab.edge_hints.arrows]
    assert any("(P_fa = 0)" in t for t in texts), texts
