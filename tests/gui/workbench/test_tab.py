"""The step-through workbench, driven with real key presses and clicks (offscreen)."""
from __future__ import annotations

import contextlib
import io
import json

import pytest
from PySide6.QtCore import Qt

from tests.conftest import REPO
from tests.gui.conftest import settle

MT_BUNDLE = REPO / "resources" / "demo" / "mt" / "bundle.toml"
DIAR_BUNDLE = REPO / "resources" / "demo" / "diarization" / "bundle.toml"


def cli_replay(bundle, doc: str, metric: str) -> dict:
    """What `llgui replay` prints for the document: the command line's own entry point, run in
    this process (a subprocess per call cost ~0.8 s of CPU in imports; the command as a
    process is tested in tests/cli)."""
    from llgui.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["replay", str(bundle), "--doc", doc, "--metric", metric,
                     "--format", "json"])
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


def shown(window) -> dict:
    return dict(window.workbench.scores.shown)


def assert_step_matches(window, expected: dict, step: int) -> None:
    values = shown(window)
    if step == 0:
        assert values["s_adapt"] == pytest.approx(expected["s_base"], abs=1e-9)
        assert values["s_pen"] == pytest.approx(expected["s_base"], abs=1e-9)
        return
    row = expected["steps"][step - 1]
    for key in ("s_cor", "s_imp", "s_adapt", "s_pen", "cost", "cum_cost"):
        assert values[key] == pytest.approx(row[key], abs=1e-9), (step, key)
    # the corrections table shows the same numbers, rounded for display
    model = window.workbench.model
    s_pen_column = model.COLUMNS.index("S_pen")
    assert model.index(step, s_pen_column).data() == f"{row['s_pen']:.2f}"


def press(qtbot, window, key) -> None:
    qtbot.keyClick(window.workbench.table, key)


def test_keys_step_through_an_mt_document_like_llgui_replay(qtbot, module_demo_window):
    window = module_demo_window
    doc = "news-2023-01-09"
    window.state.select(window.state.bundle_index_of_task("mt"), doc)
    settle(qtbot, window)
    expected = cli_replay(MT_BUNDLE, doc, "bleu")
    n = len(expected["steps"])
    assert n >= 10
    window.activateWindow()
    window.workbench.table.setFocus()
    assert window.state.step == 0
    assert_step_matches(window, expected, 0)
    for step in range(1, n + 1):
        press(qtbot, window, Qt.Key.Key_Right)
        assert window.state.step == step
        assert_step_matches(window, expected, step)
    press(qtbot, window, Qt.Key.Key_Right)          # past the end: stays on the last step
    assert window.state.step == n
    press(qtbot, window, Qt.Key.Key_Home)
    assert window.state.step == 0
    press(qtbot, window, Qt.Key.Key_End)
    assert window.state.step == n
    assert_step_matches(window, expected, n)
    press(qtbot, window, Qt.Key.Key_Left)
    assert_step_matches(window, expected, n - 1)


def test_buttons_and_table_clicks_step_through_a_diarization_show(qtbot,
                                                                 module_demo_window):
    window = module_demo_window
    doc = "show-2023-03-13"
    window.state.select(window.state.bundle_index_of_task("diarization"), doc)
    settle(qtbot, window)
    expected = cli_replay(DIAR_BUNDLE, doc, "der")
    bench = window.workbench
    qtbot.mouseClick(bench.buttons["next"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(bench.buttons["next"], Qt.MouseButton.LeftButton)
    assert window.state.step == 2
    assert_step_matches(window, expected, 2)
    # click the row of step 4 in the corrections table
    rect = bench.table.visualRect(bench.model.index(4, 0))
    qtbot.mouseClick(bench.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.state.step == 4
    assert_step_matches(window, expected, 4)
    # the timeline shows the windows' corrected and impaired lanes of that step
    view = window.workbench.walkthrough.steps[3]
    assert bench.diar_view.lanes["corrected"] == view.corrected
    assert bench.diar_view.lanes["impaired"] == view.impaired
    assert view.windows, "a diarization step listens to at least one window"
    # the errors lane is the adapted hypothesis' miss / false alarm / confusion regions
    assert bench.diar_view.lanes["errors"] == tuple(view.adapted_errors)
    assert {kind for _, _, kind in view.adapted_errors} <= {"miss", "false_alarm", "confusion",
                                                            "correct"}
    qtbot.mouseClick(bench.buttons["first"], Qt.MouseButton.LeftButton)
    assert window.state.step == 0


def test_page_keys_change_document(qtbot, module_demo_window):
    window = module_demo_window
    flat = window.state.documents_flat()
    window.state.select(*flat[0])
    settle(qtbot, window)
    window.workbench.table.setFocus()
    press(qtbot, window, Qt.Key.Key_PageDown)
    assert (window.state.selection.bundle, window.state.selection.doc) == flat[1]
    settle(qtbot, window)
    assert window.workbench.walkthrough.document.id == flat[1][1]
    press(qtbot, window, Qt.Key.Key_PageUp)
    assert (window.state.selection.bundle, window.state.selection.doc) == flat[0]


def test_mt_view_marks_corrected_and_generalised_segments(qtbot, module_demo_window):
    window = module_demo_window
    window.state.select(window.state.bundle_index_of_task("mt"), "news-2023-01-09", step=1)
    settle(qtbot, window)
    walk = window.workbench.walkthrough
    view = walk.steps[0]
    rows = {r["segment"]: r["mark"] for r in window.workbench.mt_view.rows}
    corrected = view.step.target.sentence
    assert rows[corrected] == "corrected"
    # every segment the system changed by itself is marked as generalisation, and only those
    marked = {s for s, m in rows.items() if m in ("better", "worse", "changed")}
    assert marked == {i + 1 for i in view.changed_segments}
    assert marked, "the demo's first document generalises its first correction"


def test_mt_caption_says_what_the_system_did_with_the_correction(qtbot, module_demo_window):
    """Outsider finding: applied / ignored was shown only in a tooltip (the segments column's
    third line, cut by its two-line rows). The caption above the segments says it: on the
    demo's news-2023-02-06 the system ignores most corrections and applies steps 3 and 7's."""
    import re

    window = module_demo_window
    bench = window.workbench
    said = []
    for step in (1, 3, 7):
        window.state.select(window.state.bundle_index_of_task("mt"), "news-2023-02-06",
                            step=step)
        settle(qtbot, window)
        view = bench.walkthrough.steps[step - 1]
        (i,) = view.corrected_segments
        expected = ("applied" if view.adapted[i] == view.corrected[i] else
                    "ignored" if view.adapted[i] == view.seen[i] else "changed otherwise")
        caption = re.sub("<[^>]+>", "", bench.mt_view.summary.text())
        assert f"segment {i + 1} corrected — {expected};" in caption, caption
        changed = len(view.changed_segments)
        assert (("the system changed no other segment by itself" in caption) if not changed
                else (f"the system changed {changed} other segment" in caption)), caption
        said.append(expected)
    assert said == ["ignored", "applied", "applied"]


def test_mt_caption_is_painted_once_a_step(qtbot, module_demo_window):
    """The caption's rich text is laid out when set, not in its paint (which asked there for
    a second paint of it: two paints a step)."""
    from PySide6.QtCore import QEvent

    from tests.gui.workbench.conftest import event_count

    window = module_demo_window
    bench = window.workbench
    window.state.select(window.state.bundle_index_of_task("mt"), "news-2023-02-06", step=0)
    settle(qtbot, window)
    # what the document's opening sends later (its question values, the other documents'
    # scores) in before the count: run first in its module, the count was 11 for 10 steps
    qtbot.waitUntil(lambda: bench.model.walkthrough.questions is not None
                    and not window.jobs.busy, timeout=60000)
    settle(qtbot, window)
    caption = bench.mt_view.summary
    # the caption grows to the lines its longest text needs (never shrinks: `_caption`); the
    # step that grows it lays the view out again, and its paints came over several turns
    # (on a loaded machine, into the count: 13 for 10 steps): the steps seen once first
    for step in (1, 2, 3, 4, 5):
        window.state.set_step(step)
        settle(qtbot, window)
    qtbot.wait(100)
    paints = event_count(caption, QEvent.Type.Paint)
    texts = []
    for step in (1, 2, 3, 4, 5, 1, 2, 3, 4, 5):   # a caption seen before is laid out again
        window.state.set_step(step)
        settle(qtbot, window)
        qtbot.wait(80)   # (what a step puts on later turns, in the count)
        texts.append(caption.text())
        assert caption.heightForWidth(caption.width()) <= caption.height(), step
    assert len(set(texts)) == 5
    assert paints.count == 10


def test_metric_switch_recomputes(qtbot, module_demo_window):
    window = module_demo_window
    doc = "news-2023-03-06"
    window.state.select(window.state.bundle_index_of_task("mt"), doc, step=3)
    settle(qtbot, window)
    window.state.set_metric("mt", "ter")
    settle(qtbot, window)
    expected = cli_replay(MT_BUNDLE, doc, "ter")
    assert window.workbench.walkthrough.replay.metric == "ter"
    assert_step_matches(window, expected, 3)
    assert window.workbench.walkthrough.replay.msr == pytest.approx(expected["msr"], abs=1e-9)


def test_cost_model_edit_recomputes_and_undoes(qtbot, module_demo_window):
    window = module_demo_window
    index = window.state.bundle_index_of_task("diarization")
    window.state.select(index, "show-2023-03-06", step=2)
    settle(qtbot, window)
    before = shown(window)
    editor = window.workbench.cost_editor
    editor.use_log.setChecked(False)          # let the model price every step
    editor.spins["window"].setValue(6.0)      # listen to twice as much around each point
    editor.commit_now()
    settle(qtbot, window)
    model = window.state.cost_model(index)
    assert model.window == 6.0 and not model.use_log_cost
    after = shown(window)
    assert after["cost"] != before["cost"]
    # the engine with the same cost model gives the numbers shown
    from llgui.core.penalty import make_track, replay

    bundle = window.state.bundle(index)
    doc = bundle.document("show-2023-03-06")
    result = replay(make_track(doc, "der", bundle.settings, model, bundle.documents),
                    bundle.steps_of(doc.id), model)
    assert after["s_pen"] == pytest.approx(result.steps[1].s_pen, abs=1e-12)
    assert after["cost"] == pytest.approx(result.steps[1].cost, abs=1e-12)
    window.state.undo_stack.undo()
    settle(qtbot, window)
    assert window.state.cost_model(index) == bundle.cost
    assert shown(window)["s_pen"] == pytest.approx(before["s_pen"], abs=1e-12)


def test_a_corrupt_bundle_from_the_menu_names_file_and_line_and_keeps_the_document(
        qtbot, module_demo_window, tmp_path, monkeypatch):
    window = module_demo_window
    window.state.select(window.state.bundle_index_of_task("mt"), "news-2023-02-06", step=3)
    settle(qtbot, window)
    before = (list(window.state.bundles), window.state.selection, window.state.step,
              window.workbench.walkthrough, shown(window))
    bad = tmp_path / "broken.toml"
    bad.write_text('[bundle]\ntask = "mt"\n\n[[documents]]\nid = "d1"\ntime = "2024-01-01"\n'
                   'references = ["missing.ref"]\nhypothesis = "missing.hyp"\n',
                   encoding="utf-8")
    from PySide6.QtWidgets import QFileDialog

    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        staticmethod(lambda *a, **k: ([str(bad)], "")))
    action = next(a for a in window.findChildren(type(window.undo_action))
                  if a.text().replace("&", "").startswith("Open bundle"))
    action.trigger()
    box = window._error_box
    assert box is not None and box.isVisible()
    # never modal: the window behind it still takes the keys (Qt's open() made it modal)
    from PySide6.QtCore import Qt

    assert box.windowModality() == Qt.WindowModality.NonModal and not box.isModal()
    assert f"{bad}:7: references file 'missing.ref' not found" in box.text()
    assert f"{bad}:8: hypothesis file 'missing.hyp' not found" in box.text()
    after = (list(window.state.bundles), window.state.selection, window.state.step,
             window.workbench.walkthrough, shown(window))
    assert after == before


def test_session_is_saved_and_restored(qtbot, isolated_session):
    from llgui.gui.demo import demo_bundles
    from llgui.gui.main_window import MainWindow

    first = MainWindow(use_session=True)
    qtbot.addWidget(first)
    first.show()
    first.open_bundles(demo_bundles())
    index = first.state.bundle_index_of_task("diarization")
    first.state.select(index, "show-2023-03-20", step=4)
    first.state.edit_cost_model(index, first.state.cost_model(index).with_(window=4.5))
    settle(qtbot, first)
    first.close()
    saved = json.loads(isolated_session.read_text())
    assert saved["selection"]["doc"] == "show-2023-03-20"

    second = MainWindow(use_session=True)
    qtbot.addWidget(second)
    second.show()
    second.restore_session()
    settle(qtbot, second)
    assert second.state.selection.doc == "show-2023-03-20"
    assert second.state.step == 4
    assert second.state.cost_model(second.state.bundle_index_of_task("diarization")).window == 4.5
    second.jobs.shutdown(2000)


def test_a_corrupt_session_file_is_ignored(qtbot, isolated_session):
    from llgui.gui.main_window import MainWindow

    isolated_session.write_text("{not json", encoding="utf-8")
    window = MainWindow(use_session=True)
    qtbot.addWidget(window)
    window.restore_session()
    assert window.state.bundles == []


def test_exports_of_the_workbench(qtbot, module_demo_window, tmp_path):
    import csv
    import xml.etree.ElementTree as ET

    from PySide6.QtGui import QImage

    window = module_demo_window
    window.state.select(window.state.bundle_index_of_task("diarization"), "show-2023-03-06",
                        step=2)
    settle(qtbot, window)
    bench = window.workbench
    bench.export_plot(str(tmp_path / "timeline.png"))
    image = QImage(str(tmp_path / "timeline.png"))
    assert (image.width(), image.height()) == (2 * bench.diar_view.plot.width(),
                                               2 * bench.diar_view.plot.height())
    bench.export_plot(str(tmp_path / "timeline.svg"))
    assert ET.parse(tmp_path / "timeline.svg").getroot().tag.endswith("svg")
    bench.export_table(str(tmp_path / "steps.json"), "json")
    bench.export_table(str(tmp_path / "steps.csv"), "csv")
    report = json.loads((tmp_path / "steps.json").read_text())
    expected = cli_replay(DIAR_BUNDLE, "show-2023-03-06", "der")
    assert [s["s_pen"] for s in report["steps"]] == [s["s_pen"] for s in expected["steps"]]
    with open(tmp_path / "steps.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [float(r["s_pen"]) for r in rows] == [s["s_pen"] for s in expected["steps"]]


def test_the_aggregates_show_the_policy_weighted_score(qtbot, module_demo_window):
    # DESIGN.md 1.5: pooled, mean and policy-weighted side by side, labelled; the last follows
    # the user policy
    import numpy as np

    from llgui.core.across_time.policy import PRESETS, document_weights

    state = module_demo_window.state
    index = state.selection.bundle
    qtbot.waitUntil(lambda: "policy-weighted" in module_demo_window.workbench.aggregates.text(),
                    timeout=60000)
    _, result = module_demo_window.workbench._collection

    def expected(policy) -> str:
        w = document_weights(policy, result.times)
        pen = np.array([r.s_pen for r in result.replays])
        return f"{float(np.sum(w * pen) / np.sum(w)):.2f}"

    assert expected(PRESETS["B"]) in module_demo_window.workbench.aggregates.text()
    state.edit_policy(PRESETS["A"], "A")
    text = module_demo_window.workbench.aggregates.text()
    assert "policy A" in text and expected(PRESETS["A"]) in text
    assert index == state.selection.bundle


def test_the_llmt_scorer_is_offered_in_the_window(qtbot, module_demo_window):
    # issue 9, item 9: the WMT LLMT stream score, in the window as in `llgui replay --mode llmt`
    # and `llgui score --mode llmt`
    import contextlib
    import io

    from llgui.cli.main import main
    from llgui.gui.workbench.tab import LLMT

    window = module_demo_window
    doc = "news-2023-03-06"
    window.state.select(window.state.bundle_index_of_task("mt"), doc, step=2)
    settle(qtbot, window)
    box = window.workbench.metric_box
    box.setCurrentIndex(box.findData(LLMT))
    box.activated.emit(box.currentIndex())
    settle(qtbot, window)
    replay = window.workbench.walkthrough.replay
    assert (replay.metric, replay.mode) == ("bleu", "llmt")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["replay", str(MT_BUNDLE), "--doc", doc, "--mode", "llmt",
                     "--format", "json"]) == 0
    expected = json.loads(out.getvalue())
    assert window.workbench.scores.shown["s_pen"] == pytest.approx(
        expected["steps"][1]["s_pen"], abs=1e-9)
    # the aggregates: the pooled llmt stream score, as `llgui score --mode llmt` prints it
    qtbot.waitUntil(lambda: window.workbench._collection is not None
                    and window.workbench._collection[1].replays[0].mode == "llmt", timeout=60000)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["score", str(MT_BUNDLE), "--metric", "bleu", "--mode", "llmt",
                     "--format", "json"]) == 0
    pooled = json.loads(out.getvalue())["penalised"]["bleu"]["pooled"]["s_pen"]
    assert window.workbench._collection[1].pooled_pen == pytest.approx(pooled, abs=1e-9)


# -- moved here from modules of one test each, to share this module's demo window (a window
# of the demo, opened and settled, cost ~0.7 s of CPU a module) ------------------------------


def test_the_cost_fields_follow_the_task(module_demo_window, qtbot):
    """The cost model shows only what prices the open document's steps (a detection document
    showed MT's words and diarization's seconds). (Was in tests/gui/workbench/
    test_cost_fields.py, in a demo window of its own.)"""
    window = module_demo_window
    editor = window.workbench.cost_editor
    wanted = {"mt": ["reference_weight", "post_edit_weight"],
              "diarization": ["window", "listen_weight"], "detection": []}
    seen = set()
    for index, bundle in enumerate(window.state.bundles):
        if bundle.task not in wanted or not bundle.documents:
            continue
        window.state.select(index, bundle.documents[0].id)
        settle(qtbot, window)
        assert editor.shown_fields() == wanted[bundle.task], bundle.task
        seen.add(bundle.task)
    assert seen == set(wanted)


def test_step_0_has_no_empty_text_column(qtbot, module_demo_window):
    """Issue 35 minor: at step 0 of an MT document the MT view shows the reference and h₀ only,
    no empty third text column; from step 1 on, what the human saw and what came after.
    (Was tests/gui/workbench/test_issue35_mt_columns.py, in a demo window of its own.)"""
    window = module_demo_window
    window.state.select(window.state.bundle_index_of_task("mt"), "news-2023-01-09")
    settle(qtbot, window)
    view = window.workbench.mt_view
    window.state.set_step(0)
    settle(qtbot, window)
    header = view.model.headerData
    shown = [header(c, qtbot_h()) for c in range(view.model.columnCount())
             if not view.table.isColumnHidden(c)]
    assert shown == ["#", "reference", "system hypothesis (h₀)"]
    window.state.set_step(1)
    settle(qtbot, window)
    shown = [header(c, qtbot_h()) for c in range(view.model.columnCount())
             if not view.table.isColumnHidden(c)]
    assert shown == ["#", "reference", "the human saw (hₙ₋₁)", "after the step (hₙ)"]


def qtbot_h():
    from PySide6.QtCore import Qt

    return Qt.Orientation.Horizontal


def test_with_steps_the_cost_model_stays(qtbot, module_demo_window):
    """gui2, item 1: a bundle with steps keeps its cost model and steps column (the demo's
    first document, as the window opens it). (Was in tests/gui/workbench/test_empty_panels.py,
    in a demo window of its own.)"""
    window = module_demo_window
    window.state.select(0, window.state.bundles[0].documents[0].id, step=0)
    settle(qtbot, window)
    bench = window.workbench
    state = window.state
    assert len(state.bundle().steps_of(state.selection.doc)) > 0
    assert bench.cost_editor.isVisible()
    assert bench.splitter.widget(0).minimumWidth() >= 520


def test_pooled_aggregates_get_their_intervals(module_demo_window, qtbot):
    """Intervals on the workbench's pooled aggregates (issue 15): computed on a worker after the
    collection job, shown beside the point estimates, equal to the core's bootstrap.
    On the demo's first document, as the window opens it. (Was tests/gui/workbench/
    test_aggregate_intervals.py, in a demo window of its own.)"""
    window = module_demo_window
    window.state.select(0, window.state.bundles[0].documents[0].id, step=0)
    settle(qtbot, window)
    bench = window.workbench
    qtbot.waitUntil(lambda: bool(bench.shown_intervals), timeout=120000)
    settle(qtbot, window)
    estimates = bench.shown_intervals
    assert set(estimates) == {"s_base", "s_adapt", "s_pen"}
    text = bench.aggregates.text()
    # issue 21: a percentile interval beside the pooled score, not mean ± half-width
    assert "95 % CI [lo, hi]" in text and "±" not in text
    index = window.state.selection.bundle
    bundle = window.state.bundles[index]
    from llgui.core.penalty import replay_bundle
    from llgui.core.significance.resample import Plan
    from llgui.core.significance.penalised import collection_intervals

    metric = window.state.metric(bundle.task)
    result = replay_bundle(bundle, metric, window.state.cost_model(index))
    expected = collection_intervals(bundle, result, Plan("bs", 1000, 12345, "document"))
    for m, e in expected.items():
        assert estimates[m].score == pytest.approx(e.score, abs=1e-9)
        assert estimates[m].mean == pytest.approx(e.mean, abs=1e-9)
        assert estimates[m].ci == pytest.approx(e.ci, abs=1e-9)
        assert estimates[m].low == pytest.approx(e.low, abs=1e-9)
        assert f"[{e.low:.2f}, {e.high:.2f}]" in text
        # the demo bundle has 4 documents: fewer than MIN_UNITS, said, in grey
        assert e.n_units == len(bundle.documents) == 4 and e.too_few
    assert text.count("too few units (4)") == 3
    # the interval is the 2.5 / 97.5 % order statistics of the resampled pooled scores
    from llgui.core.significance.penalised import MEASURES, Stream, StreamSample, metric_of
    from llgui.core.significance.resample import bootstrap_scores
    import numpy as np

    stream = Stream.from_replays(result.replays, metric_of(bundle, result.metric))
    scores = bootstrap_scores([StreamSample(stream, m) for m in MEASURES],
                              Plan("bs", 1000, 12345, "document"))
    for m, values in zip(MEASURES, scores):
        ordered = np.sort(values)
        assert (estimates[m].low, estimates[m].high) == (ordered[25], ordered[974])
