"""A corrupt session file: reported once, set aside as `.bad`, and the app starts clean.

The app is started offscreen in a subprocess, once per kind of corrupt session (the ten kinds
that crashed or hung it, and more): the driver below calls llgui's own entry point
(`llgui.gui.app.main`) for each file in one process, so twenty starts cost one interpreter.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from llgui.io.session_file import check_session, read_session_file
from tests.conftest import DEMO, REPO

BIG = "9" * 400
MT = str(DEMO / "mt" / "bundle.toml")

CORRUPT = {
    # the kinds of issue 9
    "deep": "[" * 100_000 + "]" * 100_000,
    "bundles_int": '{"version": 1, "bundles": 5}',
    "metrics_list": '{"version": 1, "metrics": ["mt", "bleu"]}',
    "step_abc": '{"version": 1, "bundles": [], "step": "abc"}',
    "selection_str": '{"version": 1, "selection": "news"}',
    "cost_models_list": '{"version": 1, "cost_models": [1, 2]}',
    "view_list": '{"version": 1, "view": [1]}',
    "cost_400_digits": '{"version": 1, "cost_models": {"%s": {"window": %s}}}' % (MT, BIG),
    "policy_400_digits": '{"version": 1, "policy": {"mode": "relative", "points": [[%s, 1]]}}'
                         % BIG,
    "dev_zero": '{"version": 1, "bundles": ["/dev/zero"]}',
    "fifo_bundle": None,   # written by the driver: a FIFO in `bundles`
    # more of our own
    "not_json": '{"version": 1,',
    "empty": "",
    "not_utf8": b'{"version": 1, "bundles": ["\xff"]}',
    "huge_file": '{"version": 1, "view": {"x": "' + "a" * (5 << 20) + '"}}',
    "session_is_fifo": None,  # written by the driver: the session file itself is a FIFO
}
"""Each started as the app, in a subprocess."""

MORE = {
    # checked as the window checks them (read_session), without a start each: the app path
    # is the same for every kind that `read_session` sets aside
    "nan_cost": '{"version": 1, "cost_models": {"%s": {"window": NaN}}}' % MT,
    "cost_200_digits": '{"version": 1, "cost_models": {"%s": {"window": %s}}}' % (MT, "9" * 200),
    "cost_zero_window": '{"version": 1, "cost_models": {"%s": {"window": 0}}}' % MT,
    "policy_negative": '{"version": 1, "policy": {"mode": "relative", "points": [[0, -1]]}}',
    "policy_dup_x": '{"version": 1, "policy": {"mode": "relative", "points": [[0, 1], [0, 2]]}}',
    "step_negative": '{"version": 1, "step": -1}',
    "step_huge": '{"version": 1, "step": 1e300}',
    "version_2": '{"version": 2, "bundles": []}',
    "top_array": "[1, 2, 3]",
    "unknown_key": '{"version": 1, "bundels": []}',
    "points_not_pairs": '{"version": 1, "policy": {"mode": "relative", "points": [1, 2]}}',
    "selection_doc_int": '{"version": 1, "selection": {"bundle": null, "doc": 3}}',
    "metrics_values_int": '{"version": 1, "metrics": {"mt": 3}}',
    "view_nested": '{"version": 1, "view": {"a": {"b": {"c": 1}}}}',
    "step_beyond_the_maximum": '{"version": 1, "step": 1000000001}',
}


@pytest.mark.parametrize("name", sorted(MORE))
def test_more_corrupt_sessions_are_set_aside(tmp_path, name):
    from llgui.gui.state import read_session

    path = tmp_path / "session.json"
    path.write_text(MORE[name], encoding="utf-8")
    data, problem = read_session(path)
    assert data is None and problem.count("set aside as") == 1, problem
    assert (tmp_path / "session.json.bad").exists() and not path.exists()

DRIVER = textwrap.dedent(
    r"""
    import contextlib, io, json, os, sys, time
    from pathlib import Path
    from llgui.gui.app import main

    root = Path(sys.argv[1])
    cases = json.loads((root / "cases.json").read_text())
    for name, content in cases.items():
        session = root / name / "session.json"
        session.parent.mkdir()
        if name == "session_is_fifo":
            os.mkfifo(session)
        elif name == "fifo_bundle":
            fifo = root / name / "bundle.toml"
            os.mkfifo(fifo)
            session.write_text(json.dumps({"version": 1, "bundles": [str(fifo)]}))
        elif content is None:
            raise SystemExit(f"no content for {name}")
        else:
            # "B:" marks raw bytes carried through JSON as latin-1 text
            session.write_bytes(content[2:].encode("latin-1") if content.startswith("B:")
                                else content.encode("utf-8"))
        os.environ["LLGUI_SESSION_FILE"] = str(session)
        err = io.StringIO()
        start = time.monotonic()
        with contextlib.redirect_stderr(err):
            code = main(["--close-after", "0"])
        elapsed = time.monotonic() - start
        bad = session.with_name("session.json.bad")
        print(json.dumps({"name": name, "code": code, "stderr": err.getvalue(), "s": elapsed,
                          "bad": bad.exists() or bad.is_fifo(),
                          "left": session.exists() or session.is_fifo()}), flush=True)
    """
)


def _run_driver(tmp_path, cases: dict) -> dict:
    encoded = {}
    for name, content in cases.items():
        if isinstance(content, bytes):
            content = "B:" + content.decode("latin-1")
        encoded[name] = content
    (tmp_path / "cases.json").write_text(json.dumps(encoded))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path)], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=240)
    results = {}
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            results[row["name"]] = row
    assert out.returncode == 0 and len(results) == len(cases), (out.returncode, out.stderr[-3000:])
    return results


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")
def test_every_corrupt_session_is_set_aside_and_the_app_starts_clean(tmp_path):
    # the control: a small valid bundle (the demo would start scoring jobs at every start)
    (tmp_path / "ref.txt").write_text("a b c\n")
    (tmp_path / "hyp.txt").write_text("a b d\n")
    small = tmp_path / "small.toml"
    small.write_text('[bundle]\ntask = "mt"\nmetrics = ["bleu"]\n[[documents]]\nid = "d"\n'
                     'time = 1\nreferences = ["ref.txt"]\nhypothesis = "hyp.txt"\n')
    valid = {"version": 1, "bundles": [str(small)], "selection": {"bundle": str(small),
                                                                  "doc": "d"},
             "step": 0, "metrics": {"mt": "bleu"}, "view": {}}
    results = _run_driver(tmp_path, {**CORRUPT, "valid": json.dumps(valid)})
    for name in CORRUPT:
        row = results[name]
        assert row["code"] == 0, row
        assert "Traceback" not in row["stderr"], row
        # reported once, naming the file and where it went
        assert row["stderr"].count("set aside as") == 1, row
        assert row["bad"] and not row["left"], row
    # the control: a valid session is restored, not set aside, and nothing is reported
    assert results["valid"]["stderr"] == "" and not results["valid"]["bad"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")
def test_the_app_started_as_a_user_starts_it_does_not_hang_on_a_fifo(tmp_path):
    fifo = tmp_path / "bundle.toml"
    os.mkfifo(fifo)
    session = tmp_path / "session.json"
    session.write_text(json.dumps({"version": 1, "bundles": [str(fifo)]}))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", LLGUI_SESSION_FILE=str(session))
    out = subprocess.run([sys.executable, "-m", "llgui", "--close-after", "0"], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "FIFO" in out.stderr and "set aside as" in out.stderr
    assert (tmp_path / "session.json.bad").exists() and not session.exists()


def test_what_the_window_writes_passes_the_schema(qtbot, tmp_path):
    from llgui.core.across_time.policy import PRESETS
    from llgui.gui.state import SessionState
    from llgui.io.bundle import load_bundle

    state = SessionState()
    state.add_bundles([load_bundle(DEMO / "mt" / "bundle.toml")])
    state.select(0, state.bundles[0].documents[0].id, 2)
    state.edit_policy(PRESETS["A"].added(0.5, 0.3), "custom")
    state.view["zoom"] = 2.5
    path = tmp_path / "session.json"
    state.save(path)
    data, reason = read_session_file(path)
    assert reason is None and data == json.loads(path.read_text())
    assert check_session({**data, "step": "abc"}) is not None   # the check can fail
