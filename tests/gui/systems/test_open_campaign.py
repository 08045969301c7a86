"""A campaign opened from the command line (`llgui CAMPAIGN.toml`, where a bundle goes), dropped
on the window, or through File › Open campaign with a Dask scheduler's address: it is read as a
campaign (never as a bundle: "unknown table [campaign]"), scored, and shown in the Systems tab;
the address is remembered in the session."""
from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from llgui.gui.app import build_parser, open_arguments
from llgui.gui.demo import demo_campaign
from tests.gui.across_time.test_policy_item import wait_for


@pytest.fixture(scope="module")
def cells_cache(tmp_path_factory):
    """The cell cache of the module's campaign: its cells are scored by the first test that
    opens it and read from the cache by the others, which test how it is opened and shown
    (each scored it again: ~1.5 s of CPU a test). The scheduler's test has a cache of its own,
    so that its cells really go to the scheduler."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def window(qapp, cells_cache, monkeypatch):
    from llgui.gui.main_window import MainWindow

    monkeypatch.setenv("LLGUI_CACHE_DIR", str(cells_cache))
    window = MainWindow(use_session=False)
    window.resize(1366, 768)
    window.show()
    window.jobs.release()
    yield window
    window.jobs.shutdown(2000)
    window.close()


@pytest.fixture
def campaign(tmp_path):
    """The demo campaign with one system (quick to score)."""
    source = demo_campaign().parent
    shutil.copytree(source / "ref", tmp_path / "c" / "ref")
    shutil.copytree(source / "static", tmp_path / "c" / "static")
    text = demo_campaign().read_text(encoding="utf-8")
    head, *systems = text.split("[[systems]]")
    static = next(s for s in systems if '"static"' in s)
    path = tmp_path / "c" / "campaign.toml"
    path.write_text(head + "[[systems]]" + static.replace('bundle = ', '# bundle = '),
                    encoding="utf-8")
    return path


def _scored(window) -> None:
    wait_for(lambda: window.systems_view.model.rowCount() > 0 and not window.jobs.busy,
             timeout=300)
    assert not window.errors, window.errors


def test_a_campaign_on_the_command_line_opens_in_the_systems_tab(window, campaign):
    assert open_arguments(window, build_parser().parse_args([str(campaign)]))
    assert window.tabs.currentWidget() is window.systems_view
    _scored(window)
    assert window.systems_view.model.rowCount() == 1
    assert window.state.bundles == []   # not read as a bundle


def test_tab_is_honoured_for_a_campaign(window, campaign):
    open_arguments(window, build_parser().parse_args([str(campaign), "--tab", "time"]))
    assert window.tabs.currentWidget() is window.time_tab
    _scored(window)


def test_a_dropped_campaign_opens_in_the_systems_view(window, campaign):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(campaign))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    _scored(window)
    assert window.state.bundles == []


@pytest.mark.xdist_group("dask-ports")
def test_open_campaign_on_a_scheduler_remembers_its_address(window, campaign, monkeypatch,
                                                            tmp_path):
    from dask.distributed import LocalCluster

    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))   # scored on the cluster

    from llgui.gui.open_campaign import OpenCampaignDialog

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        address = cluster.scheduler_address

        def accept(dialog):
            assert dialog.scheduler.text() == ""   # nothing remembered yet
            dialog.path.setText(str(campaign))
            dialog.scheduler.setText(address)
            return OpenCampaignDialog.DialogCode.Accepted

        monkeypatch.setattr(OpenCampaignDialog, "exec", accept)
        submitted = []
        real_submit = window.jobs.submit
        monkeypatch.setattr(window.jobs, "submit", lambda key, fn, *a, **k: (
            submitted.append((key, a)), real_submit(key, fn, *a, **k))[1])
        window.open_campaign_dialog()
        assert submitted[-1] == ("campaign", (str(campaign), address))
        _scored(window)
    assert window.state.to_dict()["view"]["campaign_scheduler"] == address

    def shown(dialog):
        assert dialog.scheduler.text() == address   # offered again
        return OpenCampaignDialog.DialogCode.Rejected

    monkeypatch.setattr(OpenCampaignDialog, "exec", shown)
    window.open_campaign_dialog()
