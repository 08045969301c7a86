"""Protocol v1: the parser names message and fault; hostile systems end with exit 3 in time,
leave no process behind, and every step completed before the fault is on disk and loads."""
from __future__ import annotations

import json
import sys
import textwrap
import time

import psutil
import pytest

from llgui.cli.main import main
from llgui.core.types import PointTarget, SentenceTarget
from llgui.io.bundle import load_bundle
from llgui.sim import protocol as P

TIMEOUT = 1.5

# A minimal MT system: asks for sentences 1, 2, 3, ... and misbehaves as FAULT says at the
# step given; writes its pid (and a child's) to PIDS so the test can check nothing survives.
HOSTILE = textwrap.dedent('''
    import json, os, subprocess, sys, time
    fault, at, pids = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with open(pids, "w") as f:
        f.write(f"{os.getpid()} {child.pid}")
    def say(obj):
        sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
    step, docs = 0, 0
    for line in sys.stdin:
        msg = json.loads(line)
        t = msg["type"]
        if t == "hello":
            say({"type": "hello", "name": "hostile", "version": "0"})
        elif t == "document":
            docs += 1
            doc = "nope" if fault == "wrong-doc" and docs == at else msg["doc"]
            say({"type": "hypothesis", "doc": doc, "lines": msg["hypothesis"]})
            step = 0
        if t in ("document", "answer"):
            if t == "answer":
                say({"type": "adapted"})
            step += 1
            if step == at and fault == "crash":
                print("boom: the model fell over", file=sys.stderr); sys.exit(1)
            if step == at and fault == "hang":
                time.sleep(600)
            if step == at and fault == "non-json":
                sys.stdout.write("this is not json\\n"); sys.stdout.flush(); continue
            if step == at and fault == "huge-sentence":
                say({"type": "request", "kind": "reference", "target": {"sentence": 10**9}})
                continue
            if step == at and fault == "flood":
                while True:
                    sys.stdout.write("x" * 65536)
            if step == at and fault == "unknown-type":
                say({"type": "adaptd"}); continue
            say({"type": "request", "kind": "reference", "target": {"sentence": step}})
        elif t == "bye":
            break
''')

CASES = [
    ("crash", 3, "step 3", "exited with code 1"),
    ("hang", 3, "step 3", "no reply within"),
    ("non-json", 3, "step 3", "not valid JSON"),
    ("wrong-doc", 2, "step 0", "hypothesis for document 'nope', expected document"),
    ("huge-sentence", 3, "step 3", "target sentence 1000000000 is outside"),
    ("flood", 3, "step 3", "longer than"),
    ("unknown-type", 3, "step 3", "unknown type 'adaptd'"),
]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "hostile.py"
    path.write_text(HOSTILE, encoding="utf-8")
    return path


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.parametrize("fault,at,where,reason", CASES, ids=[c[0] for c in CASES])
def test_hostile_system_fails_cleanly(fault, at, where, reason, hostile, tmp_path, capsys,
                                      demo_dir, monkeypatch):
    monkeypatch.setattr("llgui.sim.protocol.MAX_LINE_BYTES", 1 << 20)
    pids = tmp_path / "pids"
    out = tmp_path / "out"
    command = f"{sys.executable} {hostile} {fault} {at} {pids}"
    start = time.monotonic()
    code = main(["simulate", str(demo_dir / "mt" / "bundle.toml"), "--system", command,
                 "--oracle", "allies", "--budget", "100", "--timeout", str(TIMEOUT),
                 "--out", str(out), "--quiet"])
    elapsed = time.monotonic() - start
    err = capsys.readouterr().err
    assert code == 3, err
    # ended by the fault or the timeout, not by waiting out the system's 60-s child: the
    # bound is far from both (a loaded machine takes seconds to start the system itself)
    assert elapsed < 30.0
    first = "news-2023-01-09" if fault != "wrong-doc" else "news-2023-02-06"
    assert f"(doc {first}, {where})" in err, err
    assert reason in err, err
    if fault == "crash":
        assert "boom: the model fell over" in err        # the tail of its stderr
    for pid in map(int, pids.read_text().split()):
        deadline = time.monotonic() + 2.0
        while not _gone(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(pid), f"process {pid} outlived the run"
    run = json.loads((out / "run.json").read_text())
    assert run["exit"] == 3 and reason in run["error"]
    bundle = load_bundle(out / "bundle.toml")           # what was done before loads
    done = 2 if fault != "wrong-doc" else None
    steps = [s for s in bundle.steps if s.doc == "news-2023-01-09"]
    if done is not None:
        assert [s.step for s in steps] == list(range(1, done + 1))
    else:
        assert steps and bundle.documents[0].id == "news-2023-01-09"


def test_parser_names_message_document_step_and_fault():
    with pytest.raises(P.ProtocolFault) as info:
        P.parse_system('{"type": "adaptd"}', 14, "mt", "X", 3)
    assert str(info.value) == "system message 14 (doc X, step 3): unknown type 'adaptd'"
    for raw, fault in [
        ("{", "not valid JSON"),
        ("[1]", "expected a JSON object"),
        ('{"kind": "x"}', "missing key 'type'"),
        ('{"type": "request", "kind": "same", "target": {"t1": 1, "t2": 2}}',
         "unknown request kind 'same' for mt"),
        ('{"type": "request", "kind": "reference", "target": {"sentence": 0}}',
         "target sentence must be an integer >= 1"),
        ('{"type": "adapted", "lines": {"0": "a"}}', "not a line number"),
        ('{"type": "adapted", "lines": {"2": "a\\nb"}}', "line break"),
        ('{"type": "hypothesis", "doc": "X", "lines": "abc"}', "list of strings"),
        ('{"type": "adapted", "turns": []}', "not 'turns'"),
        ('{"type": "x", "v": NaN}', "not JSON"),
    ]:
        with pytest.raises(P.ProtocolFault, match=fault):
            P.parse_system(raw, 1, "mt", "X", 1)
    with pytest.raises(P.ProtocolFault, match="item 1 ends before it starts"):
        P.parse_system('{"type": "adapted", "turns": [[2, 1, "A"]]}', 1, "diarization")
    with pytest.raises(P.ProtocolFault, match="target t must be >= 0"):
        P.parse_system('{"type": "request", "kind": "name", "target": {"t": -1}}', 1,
                       "diarization")


def test_writer_and_parsers_round_trip():
    messages = [P.Request("reference", SentenceTarget(4)), P.Stop(), P.SystemHello("s", "1"),
                P.AdaptedReply(lines={3: "x y"}), P.Hypothesis("d", lines=("a", "b"))]
    for m in messages:
        assert P.parse_system(P.encode(m), 1, "mt") == m
    m = P.Request("name", PointTarget(2.5))
    assert P.parse_system(P.encode(m), 1, "diarization") == m
    for m in [P.Answer("reference", SentenceTarget(2), "ref", 3.0), P.Refused("budget"),
              P.EndDocument("d"), P.Bye(), P.Hello("mt", 7)]:
        assert P.parse_llgui(P.encode(m)) == m


# -- issue 28: signals to `llgui simulate`, children in a new session, hostile numbers ------

SLEEPER = textwrap.dedent('''
    import json, os, subprocess, sys, time
    pids, crash = sys.argv[1], sys.argv[2] == "crash"
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                             start_new_session=True)   # `setsid sleep 300`
    with open(pids, "w") as f:
        f.write(f"{os.getpid()} {child.pid}")
    time.sleep(0.6)          # long enough to be seen running
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            sys.stdout.write(json.dumps({"type": "hello", "name": "s", "version": "0"}) + "\\n")
            sys.stdout.flush()
        elif crash:
            sys.exit(1)
        else:
            time.sleep(300)  # silent
''')


def _wait_gone(pid: int, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _gone(pid)


def test_a_child_in_a_new_session_does_not_outlive_the_run(tmp_path, capsys, demo_dir):
    script = tmp_path / "sleeper.py"
    script.write_text(SLEEPER, encoding="utf-8")
    pids = tmp_path / "pids"
    code = main(["simulate", str(demo_dir / "mt" / "bundle.toml"), "--system",
                 f"{sys.executable} {script} {pids} crash", "--timeout", "5",
                 "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 3, capsys.readouterr().err
    system, child = map(int, pids.read_text().split())
    try:
        assert _wait_gone(system)
        assert _wait_gone(child), "the setsid child outlived the run"
    finally:
        if not _gone(child):
            psutil.Process(child).kill()


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_a_signal_to_simulate_ends_the_system_and_exits_cleanly(signame, tmp_path, demo_dir):
    import os
    import signal
    import subprocess

    script = tmp_path / "sleeper.py"
    script.write_text(SLEEPER, encoding="utf-8")
    pids = tmp_path / "pids"
    proc = subprocess.Popen(
        [sys.executable, "-m", "llgui", "simulate", str(demo_dir / "mt" / "bundle.toml"),
         "--system", f"{sys.executable} {script} {pids} hang", "--timeout", "120",
         "--out", str(tmp_path / "out"), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not (pids.exists() and pids.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)   # the system is past hello, llgui waits for its reply
        proc.send_signal(getattr(signal, signame))
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=5)
    assert proc.returncode in (2, 3), err
    assert "Traceback" not in err, err
    system, child = map(int, pids.read_text().split())
    try:
        assert _wait_gone(system), "the system outlived llgui"
        assert _wait_gone(child), "the system's setsid child outlived llgui"
    finally:
        for pid in (system, child):
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("message,fault", [
    ({"type": "hypothesis", "doc": "d", "turns": [[10 ** 400, 1.0, "A"]]}, "finite"),
    ({"type": "hypothesis", "doc": "d", "turns": [[0.0, 1.0, "spk A"]]}, "white space"),
    ({"type": "hypothesis", "doc": "d", "turns": [[0.0, 1.0, "A\nB"]]}, "white space"),
    ({"type": "request", "kind": "same", "target": {"t1": 10 ** 400, "t2": 1.0}}, "finite"),
])
def test_hostile_diarization_messages_are_the_systems_fault(message, fault):
    with pytest.raises(P.ProtocolFault, match=fault):
        P.parse_system(json.dumps(message), 2, "diarization", doc="d", step=1)


@pytest.mark.parametrize("message,fault", [
    ({"type": "hypothesis", "doc": "d", "lines": ["a\u2028b"]}, "line break"),
    ({"type": "hypothesis", "doc": "d", "lines": ["a\x85b"]}, "line break"),
    ({"type": "adapted", "lines": {"\u0661": "x"}}, "not a line number"),
    ({"type": "adapted", "lines": {"1": "a\u2029b"}}, "line break"),
])
def test_hostile_mt_messages_are_the_systems_fault(message, fault):
    with pytest.raises(P.ProtocolFault, match=fault):
        P.parse_system(json.dumps(message), 2, "mt", doc="d", step=1)
