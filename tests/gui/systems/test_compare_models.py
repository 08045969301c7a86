"""Side by side in the Documents list (issue 15): two MT systems on the same documents, the
per-document S_pen difference column equal to `llgui replay` of each bundle."""
from __future__ import annotations

import json
import shutil

import pytest

from llgui.cli.main import main
from llgui.gui.systems.compare_models import DIFF, DocumentsComparisonModel
from llgui.gui.table_models import SORT_ROLE


@pytest.fixture
def two_systems(tmp_path, demo_dir):
    """The demo MT bundle, and a copy named "fewer" whose log keeps every other line."""
    a = tmp_path / "a"
    shutil.copytree(demo_dir / "mt", a)
    b = tmp_path / "b"
    shutil.copytree(demo_dir / "mt", b)
    text = (b / "bundle.toml").read_text(encoding="utf-8")
    (b / "bundle.toml").write_text(text.replace('name = "Demo: lifelong MT, Ulvi to Darem '
                                                '(synthetic)"', 'name = "fewer"'),
                                   encoding="utf-8")
    log = b / "logs" / "system.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    kept, seen = [], {}
    for line in lines:   # the first step of each document only (steps stay 1..n)
        doc = json.loads(line)["doc"]
        seen[doc] = seen.get(doc, 0) + 1
        if seen[doc] == 1:
            kept.append(line)
    log.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return a / "bundle.toml", b / "bundle.toml"


def replay_pen(capsys, bundle, doc) -> float:
    assert main(["replay", str(bundle), "--doc", doc, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["steps"][-1]["s_pen"]


def test_difference_column_equals_replays(qtbot, qtmodeltester, two_systems, capsys):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    assert window.open_bundles([str(p) for p in two_systems])
    model = window.documents_model
    assert isinstance(model, DocumentsComparisonModel)
    column = model.COLUMNS.index(DIFF)
    rows = model.rowCount()
    qtbot.waitUntil(lambda: all(model.difference(r) is not None for r in range(rows)),
                    timeout=120000)
    qtmodeltester.check(model)
    capsys.readouterr()   # the model tester says which tester it used
    for r in range(rows):
        b, doc = model.key(r)
        mine = replay_pen(capsys, two_systems[b], doc)
        theirs = replay_pen(capsys, two_systems[1 - b], doc)
        assert model.difference(r) == pytest.approx(mine - theirs, abs=1e-9)   # BLEU: higher
        index = model.index(r, column)
        assert model.data(index, SORT_ROLE) == pytest.approx(mine - theirs, abs=1e-9)
        assert model.data(index) == f"{mine - theirs:+.2f}"
    window.jobs.shutdown(2000)


def test_workbench_shows_the_second_system_as_replay_prints_it(qtbot, two_systems, capsys):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    assert window.open_bundles([str(p) for p in two_systems])
    second = window.workbench.second
    doc = window.state.bundles[0].documents[1].id
    window.state.select(0, doc)
    qtbot.waitUntil(lambda: len(second.shown) == 2, timeout=120000)
    names = [b.name for b in window.state.bundles]
    for path, name in zip(two_systems, names):
        assert main(["replay", str(path), "--doc", doc, "--format", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        shown = second.shown[name]
        assert shown["s_base"] == pytest.approx(report["s_base"], abs=1e-9)
        assert shown["s_pen"] == pytest.approx(report["steps"][-1]["s_pen"], abs=1e-9)
        assert shown["s_adapt"] == pytest.approx(report["steps"][-1]["s_adapt"], abs=1e-9)
        assert shown["steps"] == len(report["steps"])
    assert "Side by side" in second.label.text()
    window.jobs.shutdown(2000)
