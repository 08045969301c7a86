"""Two runs of one bundle open in the window show different names (issue 32, item 6): the
system column of the documents table, Side by side and the Across-time selector all say
"mt_memory (allies)" and "mt_memory (worst-first)", as `compare` does, where both used to read
"<bundle name> (simulated)". The runs are real `llgui simulate` runs of the reference system."""
from __future__ import annotations

import subprocess

import pytest

from llgui.io.bundle import load_bundle
from tests.conftest import DEMO
from tests.gui.conftest import settle
from tests.conftest import llgui_in_process as _llgui  # noqa: E402


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "sim"
    done = _llgui(["simulate", str(DEMO / "mt" / "bundle.toml"),
                   "--system", "mt_memory", "--oracle", "allies", "--oracle", "worst-first",
                   "--budget", "30", "--out", str(out), "--quiet"])
    assert done.returncode == 0, done.stderr
    return [out / "mt_memory" / oracle / "bundle.toml" for oracle in ("allies", "worst-first")]


def test_a_run_is_named_by_its_system_and_oracle(runs):
    assert [load_bundle(p).name for p in runs] == ["mt_memory (allies)",
                                                  "mt_memory (worst-first)"]


def test_two_runs_open_in_the_window_show_different_names(runs, qtbot, tmp_path):
    from llgui.gui.main_window import MainWindow

    # the older runs' name, shared by both, as a run written before this change carries it
    old = []
    for k, path in enumerate(runs):
        folder = tmp_path / f"old{k}"
        folder.mkdir()
        for item in path.parent.iterdir():
            (folder / item.name).symlink_to(item)
        (folder / "bundle.toml").unlink()
        text = path.read_text(encoding="utf-8")
        (folder / "bundle.toml").write_text(
            text.replace(f'name = "{load_bundle(path).name}"',
                         'name = "Demo (simulated)"'), encoding="utf-8")
        old.append(folder / "bundle.toml")
    for paths in (runs, old):
        window = MainWindow(use_session=False)
        qtbot.addWidget(window)
        window.resize(1500, 950)
        window.show()
        assert window.open_bundles([str(p) for p in paths])
        settle(qtbot, window)
        names = [b.name for b in window.state.bundles]
        assert names == ["mt_memory (allies)", "mt_memory (worst-first)"], names
        # the system column of the documents table
        systems = window.documents_model.systems
        assert len(set(systems)) == 2, systems
        # the Across-time selector (built when the tab first shows)
        window.tabs.setCurrentWidget(window.time_tab)
        qtbot.waitUntil(lambda: hasattr(window.time_tab, "bundle_box"), timeout=60000)
        box = window.time_tab.bundle_box
        items = [box.itemText(i) for i in range(box.count())]
        assert len(items) == 2 and len(set(items)) == 2, items
        window.tabs.setCurrentWidget(window.workbench)
        # Side by side: both systems on the selected document, each by its own name
        second = window.workbench.second
        qtbot.waitUntil(lambda: len(second.shown) == 2, timeout=60000)
        assert set(second.shown) == set(names)
        window.jobs.shutdown(2000)
        window.close()
