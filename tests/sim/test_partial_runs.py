"""A stopped run is a visible state everywhere (issue 32, item 1).

The system is llgui's reference learner `mt_memory`, run as a real subprocess through a thin
wrapper that hangs at the 6th step of the demo's second document (after 5 steps there), as
a system busy on a long step does; `llgui simulate` (a real subprocess too) is then sent
SIGTERM or SIGINT. The second document is cut short: its h0 and 5 steps, no end.

Checked: run.json lists both documents, the second with its 5 steps and `"partial": true`;
the run's bundle reopened later still knows (`partial = true`); `score` marks the document,
leaves it out of every aggregate saying "1 of 2 documents cut short, left out" (the mean is
the first document's own S_pen, the pooled BLEU is sacrebleu's corpus BLEU of the first
document's h0, computed here), and `--include-partial` counts it; `replay` marks it; the API
and JSON carry the same; `compare` refuses it as it refuses a missing document."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from llgui.cli.main import main
from llgui.io.bundle import load_bundle
from tests.conftest import DEMO, REPO

CUT_AT = 5   # steps of the second document before the system hangs

WRAPPER = textwrap.dedent('''
    import sys, time
    from llgui.systems._serve import serve
    from llgui.systems.mt_memory import MTMemory

    marker, cut_at = sys.argv[1], int(sys.argv[2])

    class Hangs(MTMemory):
        docs = 0
        steps = 0

        def document(self, message):
            self.docs += 1
            self.steps = 0
            return super().document(message)

        def learn(self, message):
            if self.docs == 2:
                self.steps += 1
                if self.steps > cut_at:
                    open(marker, "w").write("hanging")
                    time.sleep(600)
            return super().learn(message)

    sys.exit(serve(Hangs()))
''')

FIRST, SECOND = "news-2023-01-09", "news-2023-02-06"


def _two_documents(folder):
    """The demo's first two documents (their files by absolute path)."""
    text = (DEMO / "mt" / "bundle.toml").read_text(encoding="utf-8")
    head, *tables = text.split("[[documents]]")
    body = head + "".join("[[documents]]" + t for t in tables[:2])
    for sub in ("ref/", "hyp/", "src/"):
        body = body.replace(f'"{sub}', f'"{DEMO / "mt"}/{sub}')
    path = folder / "two.toml"
    path.write_text(body, encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=["SIGTERM", "SIGINT"])
def stopped(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    system = folder / "hangs.py"
    system.write_text(WRAPPER, encoding="utf-8")
    marker = folder / "hanging"
    out = folder / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "llgui", "simulate", str(_two_documents(folder)),
         "--system", f"mt_memory={sys.executable} {system} {marker} {CUT_AT}",
         "--oracle", "worst-first", "--mode", "interactive", "--budget", "80",
         "--timeout", "120", "--out", str(out), "--quiet"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not marker.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the system never reached its hang"
            time.sleep(0.05)
        proc.send_signal(getattr(signal, request.param))
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert f"interrupted by {request.param}" in err, err
    # what was cut and where the run is, said where the user reads (it said only
    # "interrupted by SIGINT; nothing more was done", outsider helper-40)
    assert f"cut short: {SECOND}" in err and f"{out} holds what was done" in err, err
    return request.param, out


def _score(capsys, *args) -> dict:
    assert main(["score", *map(str, args), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_run_json_lists_every_document_with_steps_and_marks_the_cut_one(stopped):
    signame, out = stopped
    run = json.loads((out / "run.json").read_text())
    assert run["exit"] == 128 + getattr(signal, signame)
    assert [d["doc"] for d in run["documents"]] == [FIRST, SECOND]
    first, second = run["documents"]
    assert "partial" not in first and second["partial"] is True
    assert second["steps"] == CUT_AT
    logged = [json.loads(line) for line in (out / "logs" / "system.jsonl").open()]
    assert sum(1 for s in logged if s["doc"] == SECOND) == CUT_AT
    assert run["cut_short"] == [SECOND]


def test_the_bundle_reopened_later_still_knows(stopped):
    _, out = stopped
    bundle = load_bundle(out / "bundle.toml")
    assert bundle.partial == (SECOND,)
    assert len(bundle.steps_of(SECOND)) == CUT_AT
    assert bundle.name == "mt_memory (worst-first)"


def test_score_leaves_the_cut_document_out_of_every_aggregate(stopped, capsys):
    from sacrebleu.metrics import BLEU

    from llgui.io.text import load_segments

    _, out = stopped
    bundle = out / "bundle.toml"
    report = _score(capsys, bundle)
    assert report["partial"] == {"documents": [SECOND], "left_out": True,
                                 "note": "1 of 2 documents cut short, left out"}
    docs = {d["id"]: d for d in report["documents"]}
    assert docs[SECOND]["partial"] is True and "partial" not in docs[FIRST]
    assert docs[SECOND]["penalised"]["bleu"]["steps"] == CUT_AT
    first_pen = docs[FIRST]["penalised"]["bleu"]
    for figure in ("s_base", "s_adapt", "s_pen"):   # the mean of one document is its own
        assert report["penalised"]["bleu"]["mean"][figure] == first_pen[figure]
    # the pooled h0 BLEU: sacrebleu's corpus BLEU of the first document alone
    loaded = load_bundle(bundle)
    doc = loaded.document(FIRST)
    expected = BLEU().corpus_score(list(doc.hypothesis), [list(doc.references[0])]).score
    assert report["aggregates"]["bleu"]["pooled"] == pytest.approx(expected, abs=1e-9)
    assert report["aggregates"]["bleu"]["mean"] == pytest.approx(expected, abs=1e-9)
    # counted when asked: the mean of both documents
    included = _score(capsys, bundle, "--include-partial")
    both = [d["penalised"]["bleu"]["s_pen"] for d in included["documents"]]
    assert included["partial"]["left_out"] is False
    assert included["penalised"]["bleu"]["mean"]["s_pen"] == pytest.approx(sum(both) / 2)
    assert included["penalised"]["bleu"]["mean"]["s_pen"] != report["penalised"]["bleu"][
        "mean"]["s_pen"]
    # the table says it
    assert main(["score", str(bundle)]) == 0
    table = capsys.readouterr().out
    assert f"{SECOND} (cut short)" in table
    assert "1 of 2 documents cut short, left out" in table


def test_replay_api_and_compare_see_it(stopped, capsys):
    from llgui import api

    _, out = stopped
    bundle = out / "bundle.toml"
    assert main(["replay", str(bundle), "--doc", SECOND]) == 0
    assert "CUT SHORT" in capsys.readouterr().out
    assert main(["replay", str(bundle), "--doc", SECOND, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["partial"] is True
    assert main(["replay", str(bundle), "--doc", FIRST, "--format", "json"]) == 0
    assert "partial" not in json.loads(capsys.readouterr().out)
    report = api.score_report(bundle)
    assert report["partial"]["documents"] == [SECOND]
    # compare: a cut document is refused as a missing one is
    code = main(["compare", str(bundle), str(_two_documents(out.parent)), "--baseline",
                 "mt_memory (worst-first)"])
    err = capsys.readouterr().err
    assert code == 2 and "cut short" in err and SECOND in err, err


def test_the_window_marks_it(stopped, qtbot, monkeypatch, tmp_path):
    from PySide6.QtCore import Qt

    from llgui.gui.main_window import MainWindow
    from tests.gui.conftest import settle

    monkeypatch.setenv("LLGUI_SESSION_FILE", str(tmp_path / "session.json"))
    _, out = stopped
    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.resize(1500, 950)
    window.show()
    assert window.open_bundles([str(out / "bundle.toml")])
    settle(qtbot, window)
    model = window.documents_model
    steps = model.COLUMNS.index("steps")
    shown = {model.key(r)[1]: model.data(model.index(r, steps), Qt.ItemDataRole.DisplayRole)
             for r in range(model.rowCount())}
    assert shown == {FIRST: shown[FIRST], SECOND: f"{CUT_AT} (cut short)"}
    assert "cut short" not in shown[FIRST]
    qtbot.waitUntil(lambda: "documents" in window.workbench.aggregates.text(), timeout=60000)
    text = window.workbench.aggregates.text()
    assert "1 of 2 documents</b>" in text and "1 of 2 documents cut short, left out" in text
    window.jobs.shutdown(2000)
    window.close()


def test_the_python_api_marks_it_and_its_pooled_score_leaves_it_out(stopped):
    from sacrebleu.metrics import BLEU

    import llgui

    _, out = stopped
    frame = llgui.score(out / "bundle.toml")
    assert frame["partial"].to_dict() == {FIRST: False, SECOND: True}
    assert frame.attrs["partial"]["note"] == "1 of 2 documents cut short, left out"
    doc = load_bundle(out / "bundle.toml").document(FIRST)
    assert frame.attrs["pooled"]["bleu"] == pytest.approx(
        BLEU().corpus_score(list(doc.hypothesis), [list(doc.references[0])]).score, abs=1e-9)
    assert llgui.score(out / "bundle.toml", include_partial=True).attrs["partial"][
        "left_out"] is False


def test_a_campaign_online_run_cut_short_is_marked_and_pooled_without_it(stopped, capsys,
                                                                          monkeypatch):
    from sacrebleu.metrics import BLEU

    _, out = stopped
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(out.parent / "cache"))
    campaign = out.parent / "campaign.toml"
    cell = out.parent / "sys" / "M00" / "b1.drm"
    cell.parent.mkdir(parents=True, exist_ok=True)
    cell.write_bytes((DEMO / "mt" / "hyp" / (FIRST + ".drm")).read_bytes())
    campaign.write_text(
        '[campaign]\nname = "cut"\ntask = "mt"\nmetrics = ["bleu"]\n\n'
        f'[[batches]]\nid = "b1"\ntime = "2023-01-15"\n'
        f'references = "{DEMO / "mt" / "ref" / (FIRST + ".drm")}"\n\n'
        f'[[systems]]\nname = "learner"\nmodels = [{{id = "M00", time = "2023-01-01"}}]\n'
        f'hypotheses = "{out.parent / "sys" / "{model}" / "{batch}.drm"}"\n'
        f'bundle = "{out / "bundle.toml"}"\n', encoding="utf-8")
    assert main(["campaign", str(campaign), "--workers", "0", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    board = report["systems"][0]["leaderboard"]["bleu"]
    assert board["partial"] == "1 of 2 documents cut short, left out"
    doc = load_bundle(out / "bundle.toml").document(FIRST)
    assert board["s_base"] == pytest.approx(
        BLEU().corpus_score(list(doc.hypothesis), [list(doc.references[0])]).score, abs=1e-9)
    assert main(["campaign", str(campaign), "--workers", "0"]) == 0
    table = capsys.readouterr().out
    assert "learner (cut short)" in table and "1 of 2 documents cut short" in table
