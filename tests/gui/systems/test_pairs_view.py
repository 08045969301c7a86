"""An output-only campaign (WMT23 de-en outputs, no online run) in the Systems tab (issue 32):
the baseline box lists its systems, the paired test against the chosen baseline fills the
interval and p columns, and the all-pairs matrix shows the CLI's Holm-adjusted p-values."""
from __future__ import annotations

import json

from llgui.cli.main import main
from tests.cli.test_compare_all_pairs import write_campaign

SYSTEMS = ("ONLINE-B", "ONLINE-W", "GPT4-5shot")


def _cli(capsys, *args) -> dict:
    assert main(["compare", *map(str, args), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_output_only_campaign_baseline_box_and_all_pairs(qtbot, reference_data, tmp_path,
                                                        monkeypatch, capsys):
    from llgui.gui.main_window import MainWindow

    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))
    path, _, _ = write_campaign(tmp_path / "campaign", reference_data, SYSTEMS)
    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.show()
    window.jobs.release()
    try:
        assert window.open_campaign(str(path))
        view = window.systems_view
        qtbot.waitUntil(lambda: view.pairs_view.report is not None
                        and view.model.comparison is not None and not window.jobs.busy,
                        timeout=300_000)
        assert [view.baseline_box.itemText(k) for k in range(view.baseline_box.count())] == \
            list(SYSTEMS)
        assert view.baseline_box.isEnabled()
        pairs = _cli(capsys, path, "--all-pairs", "--test", "ar", "--samples", "10000")
        for metric in ("bleu", "chrf"):
            view.metric_box.setCurrentIndex(view.metric_box.findData(metric))
            view._on_metric_box_activated(view.metric_box.currentIndex())
            for pair in pairs["pairs"]:
                e = pair["metrics"][metric]
                text = f"{e['p_adjusted']:.4f}" + ("*" if e["significant"] else "")
                assert view.pairs_view.cell_text(pair["a"], pair["b"]) == text
                assert view.pairs_view.cell_text(pair["b"], pair["a"]) == text
        assert "78" not in view.pairs_view.label.text() and "3 pairs" in \
            view.pairs_view.label.text() and "Holm" in view.pairs_view.label.text()
        against = _cli(capsys, path, "--baseline", SYSTEMS[0], "--test", "bs", "--samples",
                       "1000", "--unit", "segment")
        model = view.model
        for row in range(model.rowCount()):
            name = model.value(row, "system")
            expected = next(s for s in against["systems"] if s["name"] == name)
            assert model.value(row, "s_base_p") == expected["metrics"][model.metric]["p_value"]
        assert "last model versions' outputs" in view.status.text()
    finally:
        window.jobs.shutdown(2000)
        window.close()
