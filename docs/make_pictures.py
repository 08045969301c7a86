"""Every picture the README and docs/ show, made by llgui itself, offscreen.

    python docs/make_pictures.py              # every picture (real data: when it is found)
    python docs/make_pictures.py NAME ...     # only these (paths relative to docs/)
    python docs/make_pictures.py --list       # what it makes

`PICTURES` is the one list: tests/docs/test_pictures.py fails when a document shows a picture
that is not in it, or when a picture in it is missing from docs/. Demo pictures are made from
the bundled synthetic demo; `realdata/` pictures from public reference data (AMI, WMT23,
bob.measure, pyeer) turned into bundles by `docs/realdata/make_bundles.py` in /tmp/realdata
(set $LLGUI_REFERENCE_DATA to where that data lies; nothing of it is copied here).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
DEMO = REPO / "resources" / "demo"
REAL = Path(os.environ.get("LLGUI_REALDATA", "/tmp/realdata"))


@dataclass(frozen=True)
class Shot:
    """A picture made by `llgui ARGS --screenshot` (the application's own rendering)."""

    args: tuple[str, ...]
    size: str = "1500x950"
    real: bool = False      # needs docs/realdata/make_bundles.py's bundles


@dataclass(frozen=True)
class Scripted:
    """A picture that needs the window driven (a threshold typed, a live session answered)."""

    make: str               # the name of a function below, called with the PNG's path
    size: tuple[int, int] = (1500, 950)
    real: bool = False      # needs docs/realdata/make_bundles.py's bundles
    needs: tuple[str, ...] = ()   # the file under the real-data folder it opens


def _demo(*parts: str) -> str:
    return str(DEMO.joinpath(*parts))


def _real(*parts: str) -> str:
    return str(REAL.joinpath(*parts))


PICTURES: dict[str, Shot | Scripted] = {
    # the demo (synthetic)
    "workbench-mt.png": Shot(("--demo", "--doc", "news-2023-01-09", "--step", "4")),
    "across-time.png": Shot((_demo("mt", "bundle.toml"), "--tab", "time")),
    "campaign-systems.png": Shot(("--demo", "--tab", "systems")),
    "campaign-time.png": Shot(("--demo", "--tab", "time")),
    "workbench-detection.png": Shot((_demo("detection-lifelong", "bundle.toml"),
                                     "--doc", "adaptive", "--step", "3")),
    "side-by-side-mt.png": Shot((_demo("mt", "bundle.toml"),
                                 _demo("campaign", "static", "online", "bundle.toml"),
                                 "--doc", "news-2023-01-09", "--step", "2")),
    "detection-threshold.png": Scripted("detection_threshold"),
    "detection-qq.png": Scripted("detection_qq"),
    "detection-bands.png": Scripted("detection_bands"),
    "systems-few-units-1366x768.png": Scripted("systems_few_units", (1366, 768)),
    "systems-few-units-1920x1080.png": Scripted("systems_few_units", (1920, 1080)),
    "live-mt-question.png": Scripted("live_mt_question", (1300, 820)),
    "live-diar-same.png": Scripted("live_diar_same", (1300, 700)),
    "live-diar-boundary.png": Scripted("live_diar_boundary", (1300, 700)),
    # the audio controls (a meeting with its recording)
    **{f"audio-workbench-{w}x{h}.png": Scripted("audio_workbench", (w, h))
       for w, h in ((1366, 768), (1920, 1080))},
    **{f"audio-live-{w}x{h}.png": Scripted("audio_live", (w, h))
       for w, h in ((1366, 768), (1920, 1080))},
    # issue 34 on the reference data: question value in the workbench; the human vs oracle
    **{f"question-value-{name}-{w}x{h}.png": Scripted(f"question_value_{name}", (w, h))
       for name in ("ami", "wmt") for w, h in ((1366, 768), (1920, 1080))},
    **{f"human-oracle-{w}x{h}.png": Scripted("human_oracle", (w, h))
       for w, h in ((1366, 768), (1920, 1080))},
    # real data
    **{f"realdata/ami-workbench-{s}.png": Shot((_real("ami", "run", "bundle.toml"), "--doc",
                                                "TS3003a", "--step", "3"), s, True)
       for s in ("1366x768", "1500x950", "1920x1080")},
    **{f"realdata/ami-time-{s}.png": Shot((_real("ami", "run", "bundle.toml"), "--tab", "time"),
                                          s, True)
       for s in ("1366x768", "1500x950", "1920x1080")},
    **{f"realdata/wmt-workbench-{s}.png": Shot((_real("wmt", "run", "bundle.toml"), "--doc",
                                                "wmt23-de-en-2", "--step", "3"), s, True)
       for s in ("1366x768", "1500x950", "1920x1080")},
    # what persists (issue 33): docs/realdata/make_persist.py's campaigns
    **{f"realdata/persist-flips-{w}x{h}.png": Scripted("persist_flips", (w, h), real=True)
       for w, h in ((1366, 768), (1920, 1080))},
    **{f"realdata/persist-systems-{w}x{h}.png": Scripted("persist_systems", (w, h), real=True)
       for w, h in ((1366, 768), (1920, 1080))},
    **{f"realdata/persist-replicates-{w}x{h}.png": Scripted("persist_replicates", (w, h),
                                                            real=True)
       for w, h in ((1366, 768), (1920, 1080))},
    # WMT23 en-zh, two systems and a campaign: docs/realdata/make_zh_screenshots.py
    **{f"realdata/wmt-zh-{name}.png": Scripted("zh_pictures", real=True)
       for name in ("workbench-1366x768", "workbench-1920x1080", "workbench-ter-1366x768",
                    "time-1366x768", "systems-1366x768")},
    **{f"realdata/ami-long-{s}.png": Shot((_real("ami-dev", "run", "bundle.toml"), "--doc",
                                           "IB4010+IB4011", "--step", "3"), s, True)
       for s in ("1366x768", "1500x950", "1920x1080")},
    **{f"realdata/detection-{s}.png": Shot((_real("det", "bundle.toml"), "--tab", "detection"),
                                           s, True)
       for s in ("1366x768", "1500x950", "1920x1080")},
    # interactive-predictive MT in the live session, WMT23 de-en (read from the reference data)
    **{f"realdata/wmt-live-prefix-{w}x{h}.png": Scripted("live_prefix", (w, h))
       for w, h in ((1366, 768), (1920, 1080))},
    **{f"realdata/wmt-workbench-prefix-{w}x{h}.png": Scripted("workbench_prefix", (w, h))
       for w, h in ((1366, 768), (1920, 1080))},
    # issue 35, every script and speaker count: WMT24 en-hi / en-ja and a 22-system campaign
    # (docs/realdata/make_wmt24.py), VoxConverse kdfqk (docs/realdata/make_voxconverse.py)
    **{f"realdata/wmt24-hi-workbench-{s}.png": Shot((
        _real("wmt24-hi", "run", "bundle.toml"), "--doc",
        "test-en-news_brisbanetimes.com.au.228963", "--step", "2"), s, True)
       for s in ("1366x768", "1920x1080")},
    **{f"realdata/wmt24-ja-live-{w}x{h}.png": Scripted("live_ja", (w, h), True,
                                                        ("wmt24-ja", "bundle.toml"))
       for w, h in ((1366, 768), (1920, 1080))},
    **{f"realdata/wmt24-ja-{tab}-{s}.png": Shot((
        _real("wmt24-ja-campaign", "campaign.toml"), "--tab", tab), s, True)
       for tab in ("systems", "time") for s in ("1366x768", "1920x1080")},
    **{f"realdata/vox-kdfqk-{s}.png": Shot((_real("vox", "bundle.toml"),), s, True)
       for s in ("1366x768", "1920x1080")},
}


# ---- the scripted pictures: the window driven as a user would, then grabbed ------------------

def _app():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([sys.argv[0]])


def _settle(app, until=lambda: True, timeout: float = 300.0, extra: float = 0.5) -> None:
    deadline = time.monotonic() + timeout
    while not until() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    end = time.monotonic() + extra
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def _window(size):
    from llgui.gui.main_window import MainWindow

    app = _app()
    window = MainWindow(use_session=False)
    window.resize(*size)
    window.show()
    window.jobs.release()
    return app, window


def _detection(size):
    app, window = _window(size)
    window.open_bundles([Path(_demo("detection", "bundle.toml"))], tab="detection")
    tab = window.detection_tab
    _settle(app, lambda: not window.jobs.busy and bool(tab.results))
    tab.reset_view()
    return app, window, tab


def detection_threshold(path: Path, size) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    app, window, tab = _detection(size)
    edit = tab.threshold_panel.threshold_edit
    edit.setFocus()
    edit.selectAll()
    QTest.keyClicks(edit, "1.25")
    QTest.keyClick(edit, Qt.Key.Key_Return)
    _settle(app, lambda: not window.jobs.busy)
    window.grab().save(str(path))


def detection_qq(path: Path, size) -> None:
    app, window, tab = _detection(size)
    views = tab.lecture_views
    views.setCurrentIndex([views.tabText(i) for i in range(views.count())].index("Q-Q"))
    _settle(app, lambda: not window.jobs.busy)
    window.grab().save(str(path))


def detection_bands(path: Path, size) -> None:
    app, window, tab = _detection(size)
    tab.bands.box.setChecked(True)
    _settle(app, lambda: not window.jobs.busy and tab.bands.box.isChecked(), extra=1.0)
    window.grab().save(str(path))


def systems_few_units(path: Path, size) -> None:
    """The Systems tab on the 4-document demo campaign: the paired test has too few
    documents, so nothing is starred and the status line says why."""
    from llgui.gui.demo import demo_campaign

    app, window = _window(size)
    assert window.open_campaign(demo_campaign())
    window.show_tab("systems")
    view = window.systems_view
    _settle(app, lambda: view.model.comparison is not None and not view.model.pending)
    window.grab().save(str(path))


def _persist_campaign(name: str) -> Path:
    path = REAL / f"persist-{name}" / "campaign.toml"
    if not path.is_file():
        subprocess.run([sys.executable, str(DOCS / "realdata" / "make_persist.py"), str(REAL)],
                       check=True, stdout=subprocess.DEVNULL)
    return path


def persist_flips(path: Path, size) -> None:
    """Across time, Flips between versions, on WMT23 de-en submissions taken as consecutive
    versions: the worst pair chosen, its largest regression opened side by side."""
    app, window = _window(size)
    assert window.open_campaign(_persist_campaign("wmt"), show=False)
    window.show_tab("time")
    tab = window.time_tab
    _settle(app, lambda: tab.flips.report is not None, timeout=600)
    tab.pages.setCurrentIndex(1)
    _settle(app, lambda: not window.jobs.busy, extra=1.0)
    window.grab().save(str(path))


def _persist_systems(path: Path, size, name: str) -> None:
    app, window = _window(size)
    assert window.open_campaign(_persist_campaign(name))
    window.show_tab("systems")
    view = window.systems_view
    _settle(app, lambda: view.model.rowCount() > 0 and not window.jobs.busy
            and not view.model.pending, timeout=600)
    _settle(app, lambda: not window.jobs.busy, extra=1.0)
    window.grab().save(str(path))


def persist_systems(path: Path, size) -> None:
    """Systems on the AMI ES2011a-d campaign: NFR between VBx and diar_clusters taught, and the
    relapse rate of the diar_clusters run (no replicates: the spread reads -)."""
    _persist_systems(path, size, "ami")


def persist_replicates(path: Path, size) -> None:
    """Systems on WMT23 de-en, two systems of three replicates each: NFR of each replicate
    and its group's replicate sd."""
    _persist_systems(path, size, "wmt")


def first_document_bundle(task: str, where: Path) -> Path:
    """The demo bundle of a task cut to its first document, paths made absolute."""
    import json
    import re

    text = (DEMO / task / "bundle.toml").read_text(encoding="utf-8")
    head, *docs = text.split("[[documents]]")
    body = head + "[[documents]]" + docs[0].split("[interactions]")[0]
    body = re.sub(r'"((?:ref|hyp|src|uem)/[^"]+)"',
                  lambda m: json.dumps(str(DEMO / task / m.group(1))), body)
    where.mkdir(parents=True, exist_ok=True)
    (where / "bundle.toml").write_text(body, encoding="utf-8")
    return where / "bundle.toml"


def _live(size, task: str, system: str, mode: str, budget: float, out: Path):
    from llgui.gui.live.window import LiveSessionWindow

    app = _app()
    live = LiveSessionWindow()
    live.resize(*size)
    live.show()
    bundle = first_document_bundle(task, out / "in")
    live.bundle_edit.setText(str(bundle))
    live.system.setEditText(system)
    live.mode.setCurrentText(mode)
    live.budget.setValue(budget)
    live.out_edit.setText(str(out / "run"))
    live.start_button.click()
    _settle(app, lambda: not live.busy)
    return app, live


def live_mt_question(path: Path, size) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app, live = _live(size, "mt", "mt_memory", "active", 40, Path(tmp))
        live.grab().save(str(path))
        live.close()


def live_diar_same(path: Path, size) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app, live = _live(size, "diarization", "diar_clusters", "active", 20, Path(tmp))
        for _ in range(6):            # to the first `same` question
            if live.snap.finished or live.snap.question.kind == "same":
                break
            panel = live.diar_panel
            (panel.send_boundary if live.snap.question.kind == "boundary"
             else panel.send_name).click()
            _settle(app, lambda: not live.busy)
        live.grab().save(str(path))
        live.close()


def live_diar_boundary(path: Path, size) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app, live = _live(size, "diarization", "diar_clusters", "interactive", 40, Path(tmp))
        panel = live.diar_panel
        turn = max(live.live.document.reference, key=lambda t: t.end - t.start)
        panel._zoom(turn.start, turn.end, 5.0)
        panel.region.setRegion((turn.start + 0.4, turn.end - 0.6))
        _settle(app)
        live.grab().save(str(path))
        live.close()


def _meeting(where: Path) -> Path:
    """A diarization bundle with audio: the demo meeting when there is one, else the tone
    meeting of the tests (one pitch per speaker, made here)."""
    demo = DEMO / "meeting" / "bundle.toml"
    if demo.is_file():
        return demo
    from tests.meeting_audio import write_meeting

    return write_meeting(where / "in")


def audio_workbench(path: Path, size) -> None:
    """The workbench playing a step's listened windows (the meeting's system simulated on
    it), the playhead mid-window, a region selected as a Shift+drag does."""
    from llgui.cli.main import main as cli

    with tempfile.TemporaryDirectory() as tmp:
        bundle = _meeting(Path(tmp))
        system = "diar_audio" if bundle == DEMO / "meeting" / "bundle.toml" else "diar_clusters"
        assert cli(["simulate", str(bundle), "--system", system, "--oracle", "allies",
                    "--budget", "30", "--out", f"{tmp}/run", "--quiet"]) == 0
        app, window = _window(size)
        assert window.open_bundles([Path(tmp, "run", "bundle.toml")], step=1, tab="workbench")
        bench = window.workbench
        _settle(app, lambda: not window.jobs.busy and bench.ready()
                and bench.diar_view.shown[1:] == (1,), extra=0.2)
        bar = bench.audio
        a, b = bar.windows[0]
        bench.diar_view.select(a + 0.3 * (b - a), a + 0.7 * (b - a))
        bar.play_listened()
        _settle(app, lambda: bar.player.current >= a + 0.5 * (b - a), timeout=8, extra=0)
        window.grab().save(str(path))
        bar.player.stop()
        window.jobs.shutdown(2000)
        window.close()


def audio_live(path: Path, size) -> None:
    """A live `same` question on the meeting, window A playing (key P)."""
    from llgui.gui.live.window import LiveSessionWindow

    with tempfile.TemporaryDirectory() as tmp:
        app = _app()
        live = LiveSessionWindow()
        live.resize(*size)
        live.show()
        live.bundle_edit.setText(str(_meeting(Path(tmp))))
        live.system.setEditText("diar_clusters")   # diar_audio when the recording plays
        live.mode.setCurrentText("active")
        live.budget.setValue(30)
        live.out_edit.setText(f"{tmp}/live")
        live.start_button.click()
        _settle(app, lambda: live.snap is not None and not live.busy, extra=0.2)
        panel = live.diar_panel
        panel.toggle_play()
        a, b = panel.listen_spans()[0]
        _settle(app, lambda: panel.player.current >= a + 0.3 * (b - a), timeout=8, extra=0)
        live.grab().save(str(path))
        panel.player.stop()
        live.close()
        live.jobs.shutdown(5000)


REFERENCE = Path(os.environ.get("LLGUI_REFERENCE_DATA", REPO.parent / "shared" / "reference-data"))
_RUNS: dict[str, Path] = {}


def _real_bundles() -> dict[str, Path]:
    """AMI ES2011a (VBx's system output) and 30 sentences of WMT23 de-en (ONLINE-B) as
    bundles, made once per process under a temporary folder (the tests' own choice)."""
    if "ami" in _RUNS:
        return _RUNS
    root = Path(tempfile.mkdtemp(prefix="llgui-effort-pictures-"))
    vbx = REFERENCE / "vbx-ami-mixheadset"
    ref, sys_, uem = (vbx / k / "dev" / f"ES2011a.{e}"
                      for k, e in (("ref", "rttm"), ("sys", "rttm"), ("uem", "uem")))
    (root / "ami.toml").write_text(
        '[bundle]\ntask = "diarization"\nname = "AMI ES2011a (VBx)"\nmetrics = ["der", "jer"]\n\n'
        '[[documents]]\nid = "ES2011a"\ntime = 1\n'
        f'references = [{json.dumps(str(ref))}]\nhypothesis = {json.dumps(str(sys_))}\n'
        f'uem = {json.dumps(str(uem))}\n', encoding="utf-8")
    base = REFERENCE / "wmt23-general" / "txt"
    refs = (base / "references" / "generaltest2023.de-en.ref.refA.en").read_text(
        encoding="utf-8").split("\n")
    hyps = (base / "system-outputs" / "generaltest2023.de-en.hyp.ONLINE-B.en").read_text(
        encoding="utf-8").split("\n")
    keep = [i for i, r in enumerate(refs[:len(hyps)]) if 0 < len(r.split()) <= 30][:30]
    for name, lines in (("ref.en", refs), ("hyp.en", hyps)):
        (root / name).write_text("".join(lines[i] + "\n" for i in keep), encoding="utf-8")
    (root / "wmt.toml").write_text(
        '[bundle]\ntask = "mt"\nname = "WMT23 de-en (ONLINE-B), 30 sentences"\n'
        'metrics = ["bleu", "ter"]\n\n[[documents]]\nid = "wmt23-de-en"\ntime = 1\n'
        f'references = [{json.dumps(str(root / "ref.en"))}]\n'
        f'hypothesis = {json.dumps(str(root / "hyp.en"))}\n', encoding="utf-8")
    _RUNS.update(ami=root / "ami.toml", wmt=root / "wmt.toml", root=root)
    return _RUNS


def _simulated(name: str) -> Path:
    from llgui.sim.run import run_simulation

    key = f"{name}-run"
    if key not in _RUNS:
        bundles = _real_bundles()
        system, budget = (("diar_clusters", 30.0) if name == "ami" else ("mt_memory", 200.0))
        out = bundles["root"] / key
        run_simulation(bundles[name], [system], ["allies"], out, budget=budget)
        _RUNS[key] = out / "bundle.toml"
    return _RUNS[key]


def _question_value(path: Path, size, name: str, step: int) -> None:
    app, window = _window(size)
    assert window.open_bundles([_simulated(name)], step=step, tab="workbench")
    bench = window.workbench
    _settle(app, lambda: not window.jobs.busy and bench.ready(), extra=0.5)
    model = bench.model
    bench.table.scrollTo(model.index(step, 0))   # the row only: every column up to the
    # question value shows without scrolling sideways (issue 35)
    _settle(app, extra=0.3)
    window.grab().save(str(path))
    window.jobs.shutdown(2000)
    window.close()


def question_value_ami(path: Path, size) -> None:
    """diar_clusters on AMI ES2011a under allies: the question column, the curve's marks."""
    _question_value(path, size, "ami", 4)


def question_value_wmt(path: Path, size) -> None:
    """mt_memory on 30 sentences of WMT23 de-en under allies."""
    _question_value(path, size, "wmt", 4)


def human_oracle(path: Path, size) -> None:
    """Session › Human vs oracle… on two live sessions on the reference data, answered by the
    tests' scripted expert (tests/sim/test_human_effort.py: stated seconds per word, edit and
    second listened; every third answer wrong)."""
    import numpy as np

    from tests.sim.test_human_effort import run_diar, run_mt

    bundles = _real_bundles()
    live = [bundles["root"] / "live-wmt", bundles["root"] / "live-ami"]
    if not (live[0] / "run.json").is_file():
        rng = np.random.default_rng(34)
        run_mt(bundles["wmt"], live[0], rng, budget=200.0)
        run_diar(bundles["ami"], live[1], rng, system="diar_clusters", budget=30.0)
    app, window = _window(size)
    window.show_effort_dialog()
    dialog = window.effort_dialog
    dialog.folders_edit.setPlainText("\n".join(map(str, live)))
    dialog.compute_button.click()
    _settle(app, lambda: dialog.report is not None or bool(dialog.error), extra=0.3)
    dialog.resize(*size)
    _settle(app, extra=0.3)
    dialog.grab().save(str(path))
    dialog.close()
    window.jobs.shutdown(2000)
    window.close()


def live_ja(path: Path, size) -> None:
    """The live session on WMT24 en-ja (issue 35): started on a bundle the workbench never
    opened, the system's Japanese hypotheses and the editor drawn (the fonts checked)."""
    from llgui.gui.live.window import LiveSessionWindow

    app = _app()
    with tempfile.TemporaryDirectory() as tmp:
        live = LiveSessionWindow()
        live.resize(*size)
        live.show()
        live.bundle_edit.setText(_real("wmt24-ja", "bundle.toml"))
        live.system.setEditText("mt_memory")
        live.mode.setCurrentText("active")
        live.budget.setValue(200)
        live.out_edit.setText(f"{tmp}/run")
        live.start_button.click()
        _settle(app, lambda: live.snap is not None and not live.busy)
        if live.snap is None:   # a picture of "could not start" is no picture of the session
            live.close()
            live.jobs.shutdown(5000)
            raise RuntimeError(f"{path.name}: the live session did not start")
        live.grab().save(str(path))
        live.close()
        live.jobs.shutdown(5000)


def zh_pictures(path: Path, size) -> None:
    """The WMT23 en-zh pictures (both systems open, the campaign), all five in one run of
    docs/realdata/make_zh_screenshots.py."""
    if not getattr(zh_pictures, "done", False):
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYQTGRAPH_QT_LIB="PySide6")
        subprocess.run([sys.executable, str(DOCS / "realdata" / "make_zh_screenshots.py"),
                        str(REAL)], check=True, cwd=REPO, env=env)
        zh_pictures.done = True


# ---- making them ---------------------------------------------------------------------------

def make(name: str) -> str:
    recipe, path = PICTURES[name], DOCS / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(recipe, Shot):
        if recipe.real and not Path(recipe.args[0]).exists():
            return f"skipped {name}: run docs/realdata/make_bundles.py first"
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYQTGRAPH_QT_LIB="PySide6")
        subprocess.run([sys.executable, "-m", "llgui", *recipe.args, "--size", recipe.size,
                        "--no-session", "--screenshot", str(path)], check=True, cwd=REPO,
                       env=env)
    else:
        if recipe.real and not REAL.joinpath(*recipe.needs).exists():
            # (the en-ja live pictures were once made of the dialog's "file not found")
            return f"skipped {name}: {REAL.joinpath(*recipe.needs)} not found (run " \
                   "docs/realdata/make_bundles.py, or the script named beside it, first)"
        globals()[recipe.make](path, recipe.size)
    return f"made {name}"


def _wmt23_de_en(root: Path) -> list[str]:
    """A bundle in `root` of 30 sentences of WMT23 de-en (at most 30 words each) with
    ONLINE-B's output as the hypothesis, read from $LLGUI_REFERENCE_DATA (default:
    ../shared/reference-data beside the repository); returns the references."""
    import json

    data = Path(os.environ.get("LLGUI_REFERENCE_DATA",
                               Path(__file__).resolve().parents[2] / "shared" / "reference-data"))
    txt = data / "wmt23-general" / "txt"
    refs = (txt / "references" / "generaltest2023.de-en.ref.refA.en").read_text("utf-8").split("\n")
    hyps = (txt / "system-outputs" / "generaltest2023.de-en.hyp.ONLINE-B.en").read_text(
        "utf-8").split("\n")
    srcs = (txt / "sources" / "generaltest2023.de-en.src.de").read_text("utf-8").split("\n")
    keep = [i for i, r in enumerate(refs[:len(hyps)]) if 0 < len(r.split()) <= 30][:30]
    for name, lines in (("ref.en", refs), ("hyp.en", hyps), ("src.de", srcs)):
        (root / name).write_text("".join(lines[i] + "\n" for i in keep), encoding="utf-8")
    (root / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nname = "WMT23 de-en, ONLINE-B (30 sentences)"\n'
        'metrics = ["bleu", "chrf"]\n\n[[documents]]\nid = "wmt23-de-en"\ntime = 1\n'
        f'references = [{json.dumps(str(root / "ref.en"))}]\n'
        f'hypothesis = {json.dumps(str(root / "hyp.en"))}\n'
        f'source = {json.dumps(str(root / "src.de"))}\n', encoding="utf-8")
    return [refs[i] for i in keep]


def workbench_prefix(path: Path, size) -> None:
    """The workbench on a run of `mt_complete` under the word-level prefix oracle on 30
    sentences of WMT23 de-en: the prefix steps, and WSR/KSR/MAR/KSMR beside S_pen."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _wmt23_de_en(root)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYQTGRAPH_QT_LIB="PySide6")
        subprocess.run([sys.executable, "-m", "llgui", "simulate", str(root / "bundle.toml"),
                        "--system", "mt_complete", "--oracle", "prefix", "--budget", "100000",
                        "--out", str(root / "run"), "--quiet"], check=True, cwd=REPO, env=env,
                       stdout=subprocess.DEVNULL)
        subprocess.run([sys.executable, "-m", "llgui", str(root / "run" / "bundle.toml"),
                        "--tab", "workbench", "--step", "5", "--size", f"{size[0]}x{size[1]}",
                        "--no-session", "--screenshot", str(path)], check=True, cwd=REPO,
                       env=env)


def live_prefix(path: Path, size) -> None:
    """The live session with `mt_complete` on 30 sentences of WMT23 de-en (ONLINE-B as h0):
    the first two sentences completed word by word and accepted, the third under way (the
    editor holds the system's completion after the typed words), the effort so far shown."""
    from llgui.core.mt.ipmt import next_prefix

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        refs = _wmt23_de_en(root)
        from llgui.gui.live.window import LiveSessionWindow

        app = _app()
        live = LiveSessionWindow()
        live.resize(*size)
        live.show()
        live.bundle_edit.setText(str(root / "bundle.toml"))
        live.system.setEditText("mt_complete")
        live.mode.setCurrentText("interactive")
        live.budget.setValue(1000)
        live.out_edit.setText(str(root / "run"))
        live.start_button.click()
        _settle(app, lambda: not live.busy)
        panel, editor = live.mt_panel, live.mt_panel.editor
        for row, steps in ((0, 99), (1, 99), (2, 2)):
            panel.sentences.setCurrentRow(row)
            _settle(app, lambda: True)
            for _ in range(steps):
                answer = next_prefix(live.snap.hypothesis[row], refs[row])
                if answer.accept:
                    panel._on_accept()
                    _settle(app, lambda: not live.busy)
                    break
                editor.setPlainText(answer.prefix + answer.typed)   # what the expert typed
                cursor = editor.textCursor()
                cursor.movePosition(cursor.MoveOperation.End)
                editor.setTextCursor(cursor)
                panel._on_prefix()
                _settle(app, lambda: not live.busy)
        live.grab().save(str(path))
        live.close()


def main(argv: list[str]) -> int:
    if argv[:1] == ["--list"]:
        print("\n".join(PICTURES))
        return 0
    unknown = [n for n in argv if n not in PICTURES]
    if unknown:
        print(f"make_pictures.py: not a picture of PICTURES: {', '.join(unknown)}",
              file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO))
    for name in argv or PICTURES:
        print(make(name), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

