"""Issue 23, item 15 and 19: two systems on the same WMT23 en-zh documents in a 1366x768
window. Their rows carry the system's name, Δ S_pen is in view, the aggregates name the
system; the Documents panel can be closed and brought back from the View menu."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.gui.conftest import diar_bundle, settle, shown_window, window_for_module

RANGES = ("1-37", "38-90")
SYSTEMS = ("ONLINE-B", "NLLB_Greedy")


def _bundle(tmp: Path, reference_data: Path, system: str) -> Path:
    txt = reference_data / "wmt23-general" / "txt"
    folder = tmp / system
    folder.mkdir()
    docs = "".join(
        f'[[documents]]\nid = "wmt23-en-zh-{k}"\ntime = {k}\nlines = "{lines}"\n'
        f'references = ["{txt}/references/generaltest2023.en-zh.ref.refA.zh"]\n'
        f'hypothesis = "{txt}/system-outputs/generaltest2023.en-zh.hyp.{system}.zh"\n\n'
        for k, lines in enumerate(RANGES, 1))
    (folder / "bundle.toml").write_text(
        f'[bundle]\ntask = "mt"\nname = "WMT23 en-zh ({system}) (run)"\nmetrics = ["bleu"]\n\n'
        f'[settings]\ntrg_lang = "zh"\n\n{docs}', encoding="utf-8")
    return folder / "bundle.toml"


@pytest.fixture(scope="module")
def two_systems(qapp, tmp_path_factory, reference_data):
    """The window of both systems, shared by the module's two tests that read it (the second
    puts back the panel it closes): a window opening and scoring them cost ~0.6 s of CPU."""
    import time

    from tests.gui.across_time.test_policy_item import wait_for

    tmp = tmp_path_factory.mktemp("two")
    window = window_for_module([_bundle(tmp, reference_data, s) for s in SYSTEMS], 1366, 768)
    model = window.documents_model
    wait_for(lambda: all(model.difference(r) is not None for r in range(model.rowCount())),
             timeout=60)
    deadline = time.monotonic() + 0.1
    while time.monotonic() < deadline:
        qapp.processEvents()
        time.sleep(0.01)
    yield window
    window.jobs.shutdown(2000)
    window.close()


def test_two_systems_rows_say_which_and_the_difference_is_in_view(qtbot, two_systems):
    window = two_systems
    view, model, proxy = window.documents_view, window.documents_model, window.documents_proxy
    system = model.COLUMNS.index("system")
    diff = len(model.COLUMNS) - 1
    assert not view.isColumnHidden(system) and not view.isColumnHidden(diff)
    shown = {}
    for row in range(proxy.rowCount()):
        source = proxy.mapToSource(proxy.index(row, 0)).row()
        b, doc = model.key(source)
        shown[(b, doc)] = proxy.index(row, system).data()
        # every row's identity (document, system) is unique on screen
    assert {v for (b, _), v in shown.items() if b == 0} == {"ONLINE-B"}
    assert {v for (b, _), v in shown.items() if b == 1} == {"NLLB_Greedy"}
    # the system and Δ S_pen columns lie whole inside the panel at 1366 px
    viewport = view.viewport().width()
    for column in (0, system, diff, model.COLUMNS.index("S_pen")):
        x = view.columnViewportPosition(column)
        assert 0 <= x, column
        if column != model.COLUMNS.index("S_pen"):
            assert x + view.columnWidth(column) <= viewport, column
        assert all(proxy.index(r, diff).data() != "-0.00" for r in range(proxy.rowCount()))
        text = proxy.index(0, column).data()
        assert view.fontMetrics().horizontalAdvance(text) <= view.columnWidth(column), column
    # the aggregates name the system they pool
    window.state.select(1, "wmt23-en-zh-1")
    settle(qtbot, window)
    qtbot.waitUntil(lambda: "NLLB_Greedy" in window.workbench.aggregates.text(), timeout=30000)
    assert "ONLINE-B" not in window.workbench.aggregates.text()


def test_the_documents_panel_closes_and_comes_back_from_the_view_menu(qtbot, two_systems):
    window = two_systems
    dock = window.documents_dock
    action = dock.toggleViewAction()
    assert action in window.view_menu.actions()
    assert dock.isVisible() and action.isChecked()
    action.trigger()
    assert not dock.isVisible()
    # the central tabs take the room
    qtbot.waitUntil(lambda: window.tabs.geometry().left() < 50, timeout=5000)
    window.state.bundles_changed.emit()   # new bundles: a panel the user closed stays closed
    assert not dock.isVisible()
    action.trigger()
    assert dock.isVisible()


# ---- gui2, item 4: a document with no steps has no gain, and the gain column is in view ----

def test_a_document_without_steps_shows_no_signed_zero_and_its_gain_is_in_view(qtbot,
                                                                              tmp_path):
    """VoxConverse nitgx scored against itself, no steps: S_base = S_pen, and DER's gain
    (S_base − S_pen, positive = better) is −0.0 in floating point; the cell says "–" (no
    steps), never "-0.00", and lies whole inside the panel of a 1366x768 window."""
    clip = Path(__file__).resolve().parents[1] / "data" / "voxconverse" / "nitgx.rttm"
    bundle = diar_bundle(tmp_path, clip, clip, "nitgx", "nitgx")
    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles([str(bundle)])
        settle(qtbot, window)
        view, proxy, model = window.documents_view, window.documents_proxy, window.documents_model
        gain = model.COLUMNS.index("gain")
        qtbot.waitUntil(lambda: proxy.index(0, gain).data() not in (None, "…"), timeout=30000)
        qtbot.wait(100)
        assert proxy.index(0, gain).data() == "–"
        x = view.columnViewportPosition(gain)
        assert 0 <= x and x + view.columnWidth(gain) <= view.viewport().width()
    finally:
        window.jobs.shutdown(2000)


def test_s_pen_and_gain_are_whole_beside_a_document_with_steps_at_1366(qtbot):
    """An outsider's `llgui --demo --size 1366x768`: the gain column was cut ("gair",
    "+39.7") beside a document with steps, where the panel keeps to 270 px. S_pen and gain
    come first now."""
    from llgui.gui.demo import demo_bundles
    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles(demo_bundles())
        settle(qtbot, window)
        qtbot.wait(100)
        view, model = window.documents_view, window.documents_model
        assert window.workbench.walkthrough.steps   # the case that was cut: steps shown
        for name in ("document", "S_pen", "gain"):
            column = model.COLUMNS.index(name)
            x = view.columnViewportPosition(column)
            assert 0 <= x and x + view.columnWidth(column) <= view.viewport().width(), name
        # the ids keep their 7 ems: narrowing them to 4 would not bring the steps into this
        # 270-px panel ("ES2004a" read "ES...4a" for nothing)
        document = model.COLUMNS.index("document")
        assert view.columnWidth(document) >= 7 * window.fontMetrics().height() - 1
        # no number column cut by the panel's edge (S_base's 9.33 read "9.3", outsider
        # helper-41): each lies whole inside or wholly past it, where the scrollbar reaches
        qtbot.wait(50)   # (the viewport's last resize fitted)
        room = view.viewport().width()
        for name in ("S_pen", "gain", "S_base", "steps"):
            column = model.COLUMNS.index(name)
            x, width = view.columnViewportPosition(column), view.columnWidth(column)
            assert x + width <= room or x >= room, (name, x, width, room)
    finally:
        window.jobs.shutdown(2000)


def test_the_steps_and_a_cut_short_mark_are_in_view_at_1920(qtbot, tmp_path):
    """An outsider's run stopped by Ctrl-C (helper-40): at 1920x1080 the steps column, with
    "0 (cut short)", lay past the panel's edge behind the time column. The steps come before
    the time now, and columns wider than the panel take the room from the document's id
    (cut in the middle)."""
    import shutil

    from llgui.gui.demo import demo_bundles

    source = next(Path(p) for p in demo_bundles() if Path(p).parent.name == "mt")
    run = tmp_path / "run"
    shutil.copytree(source.parent, run)
    text = (run / "bundle.toml").read_text(encoding="utf-8")
    # the second document cut short, as the bundle of a stopped `llgui simulate` says it
    marked = 'id = "news-2023-02-06"\n'
    assert marked in text
    (run / "bundle.toml").write_text(text.replace(marked, marked + "partial = true\n"),
                                     encoding="utf-8")
    window = shown_window(qtbot, 1920, 1080)
    try:
        assert window.open_bundles([str(run / "bundle.toml")])
        settle(qtbot, window)
        view, proxy, model = window.documents_view, window.documents_proxy, window.documents_model
        steps, gain = model.COLUMNS.index("steps"), model.COLUMNS.index("gain")
        qtbot.waitUntil(lambda: proxy.index(0, gain).data() not in (None, "…"), timeout=30000)
        qtbot.wait(100)
        assert "(cut short)" in " ".join(str(proxy.index(r, steps).data())
                                         for r in range(proxy.rowCount()))
        for name in ("S_pen", "gain", "S_base", "steps"):
            column = model.COLUMNS.index(name)
            x = view.columnViewportPosition(column)
            assert 0 <= x and x + view.columnWidth(column) <= view.viewport().width(), name
    finally:
        window.jobs.shutdown(2000)
