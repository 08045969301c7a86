"""The live session core (no Qt): the expert's answers drive a real reference system; the
log replays (`llgui replay`) to the numbers of each step; pause/resume gives the same log; a
killed system loses nothing and the session goes on with `static`."""
from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from llgui.cli import main as cli
from llgui.core.errors import SystemFailed
from llgui.io.bundle import load_bundle
from llgui.sim.live import COMPARED, Effort, LiveSession, read_log, resume
from llgui.sim.run import parse_system

ROOT = Path(__file__).resolve().parents[2]
MT = ROOT / "resources" / "demo" / "mt" / "bundle.toml"


def two_docs(src: Path, tmp: Path) -> Path:
    """The demo bundle cut to its first two documents (paths made absolute)."""
    text = src.read_text(encoding="utf-8")
    head, *docs = text.split("[[documents]]")
    docs = [d.split("\n[interactions]")[0].split("\n[lifelong]")[0] for d in docs[:2]]
    out = head
    for d in docs:
        lines = []
        for line in d.splitlines():
            key = line.split("=")[0].strip()
            if key in ("references", "hypothesis", "source", "uem"):
                value = line.split("=", 1)[1].strip()
                if value.startswith("["):
                    paths = json.loads(value)
                    line = f"{key} = {json.dumps([str(src.parent / p) for p in paths])}"
                else:
                    line = f"{key} = {json.dumps(str(src.parent / json.loads(value)))}"
            lines.append(line)
        out += "[[documents]]" + "\n".join(lines) + "\n"
    path = tmp / f"{src.parent.name}.toml"
    path.write_text(out, encoding="utf-8")
    return path


def mt_answer(live, question):
    """Odd steps: the reference; even steps: the hypothesis with one word changed."""
    if question.step % 2:
        return live.document.references[0][question.target.sentence - 1]
    words = question.shown.split()
    return " ".join(words[:-1] + ["Krake."])


def run_active(bundle_path, out, pause_at=None, budget=50.0):
    """An active MT session with scripted answers; `pause_at` = (doc index, step) pauses and
    resumes there. Returns the records' (doc, step, s_adapt, s_pen) of BLEU. The budget lets
    mt_memory ask a second sentence after its longest (it asks only what its quotes say fits:
    at 25 it stopped after one reference, and no post-edit was ever typed)."""
    live = LiveSession(load_bundle(bundle_path), parse_system("mt_memory").command, out,
                       mode="active", budget=budget)
    live.start()
    shown = []
    while True:
        while True:
            if pause_at == (live.index, live._doc_state.steps):
                live.pause()
                live = resume(out)
                pause_at = None
            question = live.question()
            if question is None:
                break
            record = live.answer(mt_answer(live, question), Effort(1.25, 7))
            if record is None:
                break
            shown.append((record.step.doc, record.step.step) + record.scores["bleu"][2:])
        if not live.next_document():
            break
    result = live.finish()
    assert result.exit == 0
    return shown


def replayed(capsys, bundle, doc, metric):
    assert cli.main(["replay", str(bundle), "--doc", doc, "--metric", metric,
                     "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def mt_bundle(tmp_path_factory):
    return two_docs(MT, tmp_path_factory.mktemp("mt"))


@pytest.fixture(scope="module")
def active_run(mt_bundle, tmp_path_factory):
    out = tmp_path_factory.mktemp("active")
    return out, run_active(mt_bundle, out)


def test_active_session_replays_to_the_numbers_shown(active_run, capsys):
    out, shown = active_run
    assert len(shown) >= 2
    for doc in sorted({d for d, *_ in shown}):
        report = replayed(capsys, out / "bundle.toml", doc, "bleu")
        mine = [(s, a, p) for d, s, a, p in shown if d == doc]
        theirs = [(s["step"], s["s_adapt"], s["s_pen"]) for s in report["steps"]]
        assert [m[0] for m in mine] == [t[0] for t in theirs]
        for m, t in zip(mine, theirs):
            assert m[1:] == pytest.approx(t[1:], abs=1e-9)
    log = read_log(out)
    kinds = {r["kind"] for r in log}
    assert kinds == {"reference", "post_edit"}   # an unedited answer is what was typed
    for r in log:
        effort = r["effort"]
        assert effort["seconds"] == 1.25 and effort["keystrokes"] == 7
        if r["kind"] == "post_edit":             # one word replaced
            assert effort["word_edits"] == 1 == r["cost"]
        else:
            assert effort["word_edits"] >= 0
        assert r["cost"] > 0
    run = json.loads((out / "run.json").read_text())
    assert run["exit"] == 0 and run["oracle"] == "human"


def strip(log):
    return [{k: r.get(k) for k in COMPARED + ("effort",)} for r in log]


def test_pause_and_resume_give_the_same_log(active_run, mt_bundle, tmp_path):
    out, shown = active_run
    second = [s for s in shown if s[0] != shown[0][0]]
    pause_at = (1, 1) if len(second) > 1 else (0, 1)
    paused = run_active(mt_bundle, tmp_path / "paused", pause_at=pause_at)
    assert strip(read_log(tmp_path / "paused")) == strip(read_log(out))
    assert [p[:2] for p in paused] == [s[:2] for s in shown]
    assert [p[2:] for p in paused] == [s[2:] for s in shown]


def test_resume_checks_the_system_adapts_the_same_way(active_run, mt_bundle, tmp_path):
    out, _ = active_run
    folder = tmp_path / "tampered"
    live = LiveSession(load_bundle(mt_bundle), parse_system("mt_memory").command, folder,
                       mode="active", budget=25.0)
    live.start()
    q = live.question()
    live.answer(mt_answer(live, q), Effort(1.0, 1))
    live.pause()
    log = folder / "logs" / "system.jsonl"
    before = log.read_text()
    record = json.loads(before)
    record["adapted"] = {"lines": {"1": "not what the system wrote"}}
    log.write_text(json.dumps(record) + "\n")
    with pytest.raises(SystemFailed, match="adapted"):
        resume(folder)
    assert json.loads(log.read_text())["adapted"] == record["adapted"]  # put back


def test_a_killed_system_loses_nothing_and_static_takes_over(mt_bundle, tmp_path):
    out = tmp_path / "killed"
    live = LiveSession(load_bundle(mt_bundle), parse_system("mt_memory").command, out,
                       mode="active", budget=60.0)
    live.start()
    q = live.question()
    live.answer(mt_answer(live, q), Effort(1.0, 2))
    q = live.question()
    os.kill(live.process.pid, signal.SIGKILL)
    typed = mt_answer(live, q)
    with pytest.raises(SystemFailed, match="killed|closed|exited|stopped"):
        live.answer(typed, Effort(3.0, 9))
    assert len(read_log(out)) == 1
    state = json.loads((out / "live.json").read_text())
    assert state["unsent"]["answer"] == typed
    stderr = (out / "system.stderr").read_bytes()
    live.switch_system(parse_system("static").command, "static")
    assert (out / "system.stderr").read_bytes() == stderr     # kept for the post-mortem
    assert (out / "system.1.stderr").is_file()
    assert live.question() is None            # static asks nothing
    live.finish()
    assert len(read_log(out)) == 1
    assert load_bundle(out / "bundle.toml").steps


def test_the_log_loader_checks_the_effort(tmp_path):
    from llgui.core.errors import LoadError
    from llgui.io.interactions import load_log

    good = {"doc": "d", "step": 1, "initiative": "active", "kind": "same",
            "target": {"t1": 1.0, "t2": 2.0}, "answer": True,
            "effort": {"seconds": 2.5, "keystrokes": 0}}
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(good) + "\n")
    assert len(load_log(path)) == 1
    bad = dict(good, effort={"seconds": -1, "keys": 3})
    path.write_text(json.dumps(bad) + "\n")
    with pytest.raises(LoadError) as caught:
        load_log(path)
    assert f"{path}:1: effort seconds must be a number >= 0, not -1" in str(caught.value)


# -- issue 28: a failed resume changes nothing on disk; hostile live.json files are refused ----


def _files(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink()}


@pytest.fixture(scope="module")
def paused(mt_bundle, tmp_path_factory):
    """A session paused after its first answer (the folder is copied by each test)."""
    folder = tmp_path_factory.mktemp("paused") / "session"
    live = LiveSession(load_bundle(mt_bundle), parse_system("mt_memory").command, folder,
                       mode="active", budget=25.0)
    live.start()
    q = live.question()
    live.answer(mt_answer(live, q), Effort(1.0, 1))
    live.pause()
    return folder


def _copy(paused, tmp_path) -> Path:
    import shutil

    folder = tmp_path / "session"
    shutil.copytree(paused, folder)
    return folder


def _edit_state(folder: Path, change) -> None:
    path = folder / "live.json"
    state = json.loads(path.read_text())
    state = change(state)
    path.write_text(json.dumps(state))


OTHER_BUNDLE = ROOT / "resources" / "demo" / "diarization" / "bundle.toml"
HOSTILE_STATES = {
    "a JSON list": lambda s: [s],
    "no mode": lambda s: {k: v for k, v in s.items() if k != "mode"},
    "a budget that is a string": lambda s: dict(s, budget="25"),
    "a 400-digit seed": lambda s: dict(s, seed=10 ** 400),
    "another bundle": lambda s: dict(s, bundle=str(OTHER_BUNDLE)),
    "a missing command": lambda s: dict(s, command="/no/such/system --x"),
}


@pytest.mark.parametrize("what", list(HOSTILE_STATES))
def test_a_failed_resume_changes_nothing_on_disk(what, paused, tmp_path):
    folder = _copy(paused, tmp_path)
    _edit_state(folder, HOSTILE_STATES[what])
    before = _files(folder)
    with pytest.raises((ValueError, SystemFailed, OSError)):
        resume(folder)
    assert _files(folder) == before


def test_a_changed_step_target_fails_and_changes_nothing(paused, tmp_path):
    folder = _copy(paused, tmp_path)
    log = folder / "logs" / "system.jsonl"
    record = json.loads(log.read_text())
    record["target"] = {"sentence": record["target"]["sentence"] + 1}
    log.write_text(json.dumps(record) + "\n")
    before = _files(folder)
    with pytest.raises(SystemFailed):
        resume(folder)
    assert _files(folder) == before
    assert b"[[documents]]" in before[Path("bundle.toml")]   # the documents were there


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_live_file_that_is_not_a_regular_file_is_refused_at_once(kind, paused, tmp_path):
    import time

    folder = _copy(paused, tmp_path)
    (folder / "live.json").unlink()
    if kind == "fifo":
        os.mkfifo(folder / "live.json")
    else:
        (folder / "live.json").symlink_to("/dev/zero")
    start = time.process_time()
    with pytest.raises(ValueError, match="not a regular file"):
        resume(folder)
    assert time.process_time() - start < 5
