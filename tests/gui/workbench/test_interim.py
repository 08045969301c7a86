"""While a slow metric of a document is computed, the workbench shows what is ready (the same
document under BLEU or chrF), says what it is waiting for, and swaps in the wanted metric when
it arrives; `--screenshot` (MainWindow.when_settled) waits for the wanted metric."""
from __future__ import annotations

import threading

from llgui.gui.jobs import workbench as workbench_jobs


def test_bleu_is_shown_until_ter_arrives(qtbot, demo_window, monkeypatch):
    window = demo_window
    release = threading.Event()
    real = workbench_jobs.walk_job

    def slow_ter(key, document, steps, metric, *args, **kwargs):
        if metric == "ter":  # TER held back until the test lets it go (never for ever)
            release.wait(timeout=60)
        return real(key, document, steps, metric, *args, **kwargs)

    monkeypatch.setattr(workbench_jobs, "walk_job", slow_ter)
    bench = window.workbench
    mt = window.state.bundle_index_of_task("mt")
    window.state.select(mt, "news-2023-02-06")
    window.state.set_metric("mt", "ter")
    try:
        qtbot.waitUntil(lambda: bench.walkthrough is not None
                        and bench.walkthrough.document.id == "news-2023-02-06"
                        and bench.walkthrough.replay.metric in ("bleu", "chrf"), timeout=60000)
        assert "TER on its way" in bench.step_label.text()
        assert not bench.ready() and not bench.settled()
        assert bench.mt_view.isVisible()  # the document, not an empty "computing" state
        settled_with = []
        window.when_settled(lambda: settled_with.append(
            (bench.ready(), bench.walkthrough.replay.metric)))
    finally:
        release.set()
    qtbot.waitUntil(lambda: bool(settled_with), timeout=60000)
    assert settled_with == [(True, "ter")]
    assert "on its way" not in bench.step_label.text()
