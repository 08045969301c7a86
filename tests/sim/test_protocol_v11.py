"""Protocol 1.1 (issue 22): step ids and their echo, replies of the wrong step refused at once
with a log of the accepted replies only, signals ending the system's process group with a
partial run that reopens, the cost known before a request and the budget per mode, and runs
of bundles cut by `lines` that reopen everywhere. Every system here is a real subprocess."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from llgui.cli.main import main
from llgui.io.bundle import load_bundle
from tests.conftest import llgui_in_process

REPO = Path(__file__).resolve().parents[2]

# An MT system that echoes doc and step, writes every message both ways to JOURNAL (one JSON
# object a line: {"dir": "in"|"out", "msg": ...}) and its pid (and a setsid child's, or 0) to
# PIDS, and misbehaves as BEHAVIOUR says at step AT:
#   ok, duplicate (sends its adapted of step AT twice), skipped (echoes step AT + 1 at AT),
#   late (replies to step AT after SLEEP seconds), v1dup (no echo at all, and a duplicate
#   adapted at AT), hang (silent from the first step of the second document),
#   quote (active: quotes each sentence in turn and requests the first that fits),
#   greedy (active: requests sentences in order, never quotes).
SYSTEM = textwrap.dedent('''
    import json, os, subprocess, sys, time
    behaviour, at, journal, pids, sleep = sys.argv[1], int(sys.argv[2]), sys.argv[3], \\
        sys.argv[4], float(sys.argv[5])
    child = 0
    if behaviour == "hang":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                                 start_new_session=True).pid   # `setsid sleep 300`
    with open(pids, "w") as f:
        f.write(f"{os.getpid()} {child}")
    out = open(journal, "a", encoding="utf-8")
    echo = behaviour != "v1dup"

    def say(obj):
        if not echo:
            obj.pop("step", None)
        out.write(json.dumps({"dir": "out", "msg": obj}) + "\\n"); out.flush()
        sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()

    docs, lines, next_sentence, left = 0, [], 1, 0.0

    def ask(step):
        global next_sentence
        if behaviour == "quote":
            if next_sentence <= len(lines):
                say({"type": "quote", "kind": "reference",
                     "target": {"sentence": next_sentence}, "step": step})
                return
        elif next_sentence <= len(lines):
            say({"type": "request", "kind": "reference", "target": {"sentence": next_sentence},
                 "step": step})
            next_sentence += 1
            return
        say({"type": "stop", "step": step})

    for raw in sys.stdin:
        m = json.loads(raw)
        out.write(json.dumps({"dir": "in", "msg": m}) + "\\n"); out.flush()
        t = m["type"]
        if t == "hello":
            say({"type": "hello", "name": "probe", "version": "1"})
        elif t == "document":
            docs += 1
            lines, next_sentence = list(m["hypothesis"]), 1
            say({"type": "hypothesis", "doc": m["doc"], "step": m["step"], "lines": lines})
            if m["mode"] == "active":
                ask(1)
        elif t == "quote":
            if m["cost"] <= m["left"]:
                say({"type": "request", "kind": m["kind"], "target": m["target"],
                     "step": m["step"]})
                next_sentence += 1
            else:
                next_sentence += 1
                ask(m["step"])
        elif t in ("answer", "correction"):
            n = m["step"]
            if behaviour == "hang" and docs == 2:
                time.sleep(300)
            if behaviour == "late" and n == at:
                time.sleep(sleep)
            i = m["target"]["sentence"]
            reply = {"type": "adapted", "doc": m["doc"], "step": n,
                     "lines": {str(i): m["answer"] + f" (step {n})"}}
            if behaviour == "skipped" and n == at:
                reply["step"] = n + 1
            say(dict(reply))
            if behaviour in ("duplicate", "v1dup") and n == at:
                say(dict(reply))
            if t == "answer":
                ask(n + 1)
        elif t == "bye":
            break
''')


@pytest.fixture()
def probe(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(SYSTEM, encoding="utf-8")

    def command(behaviour: str, at: int = 0, sleep: float = 0.0) -> tuple[str, Path, Path]:
        journal, pids = tmp_path / f"{behaviour}.journal", tmp_path / f"{behaviour}.pids"
        return (f"{sys.executable} {script} {behaviour} {at} {journal} {pids} {sleep}",
                journal, pids)

    return command


def journal(path: Path) -> list[dict]:
    """The probe's journal lines; while it runs (a test polling it), a last line not yet ended
    is left out: read in the middle of its write it was cut, and not JSON (once, a clean
    clone's suite)."""
    text = path.read_text(encoding="utf-8")
    whole = text if text.endswith("\n") else text[:text.rfind("\n") + 1]
    return [json.loads(line) for line in whole.splitlines()]


def log_steps(out: Path) -> list[dict]:
    path = out / "logs" / "system.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def gone(pid: int, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def group_members(pgid: int) -> list[int]:
    out = []
    for process in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(process.pid) == pgid and process.status() != psutil.STATUS_ZOMBIE:
                out.append(process.pid)
        except (ProcessLookupError, psutil.NoSuchProcess, PermissionError):
            continue
    return out


# -- replies of another step ---------------------------------------------------------------------

AT = 3


@pytest.mark.parametrize("behaviour,mode,refused_at,accepted,reason", [
    ("duplicate", "interactive", AT + 1, AT, f"adapted for step {AT}, expected step {AT + 1} "
                                             "(a duplicate, skipped or late reply)"),
    ("skipped", "interactive", AT, AT - 1, f"adapted for step {AT + 1}, expected step {AT}"),
    ("late", "interactive", AT, AT - 1, "no reply within --timeout 1.5 s"),
    ("v1dup", "active", AT + 1, AT, "out of turn: expected a request or stop, got adapted"),
])
def test_a_reply_of_another_step_is_refused_at_that_step(behaviour, mode, refused_at, accepted,
                                                        reason, probe, tmp_path, demo_dir,
                                                        capsys):
    command, journal_path, pids = probe(behaviour, AT, sleep=3.0)
    out = tmp_path / "out"
    oracle = "allies" if mode == "active" else "worst-first"
    code = main(["simulate", str(demo_dir / "mt" / "bundle.toml"), "--system", command,
                 "--oracle", oracle, "--mode", mode, "--budget", "400", "--timeout", "1.5",
                 "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 3, err
    first = load_bundle(demo_dir / "mt" / "bundle.toml").documents[0].id
    assert f"(doc {first}, step {refused_at}): {reason}" in err, err
    # the log on disk is the replies llgui accepted, each at its own step, and nothing more
    logged = log_steps(out)
    assert [s["step"] for s in logged] == list(range(1, accepted + 1))
    sent = [e["msg"] for e in journal(journal_path) if e["dir"] == "out"
            and e["msg"]["type"] == "adapted"]
    for step in logged:
        first_reply = next(m for m in sent if m["lines"] and
                           next(iter(m["lines"].values())).endswith(f"(step {step['step']})"))
        assert step["adapted"] == {"lines": first_reply["lines"]}
    assert json.loads((out / "run.json").read_text())["partial"] is True
    assert main(["replay", str(out / "bundle.toml"), "--doc", first]) == 0
    system, _ = map(int, pids.read_text().split())
    assert gone(system)


# -- signals -------------------------------------------------------------------------------------


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_signal_while_the_system_hangs_ends_its_group_and_the_run_reopens(
        signame, probe, tmp_path, demo_dir, capsys):
    command, journal_path, pids = probe("hang")
    out = tmp_path / "out"
    timeout = 5.0
    proc = subprocess.Popen(
        [sys.executable, "-m", "llgui", "simulate", str(demo_dir / "mt" / "bundle.toml"),
         "--system", command, "--oracle", "worst-first", "--budget", "30",
         "--timeout", str(timeout), "--out", str(out), "--quiet"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:   # until the second document's first correction
            if journal_path.exists() and sum(
                    1 for e in journal(journal_path)
                    if e["dir"] == "in" and e["msg"]["type"] == "correction"
                    and e["msg"]["doc"] != "news-2023-01-09"):
                break
            time.sleep(0.05)
        else:
            pytest.fail("the system never reached its second document")
        time.sleep(0.3)   # llgui waits for the reply that never comes
        system, child = map(int, pids.read_text().split())
        assert group_members(system), "the system's group should be running"
        sent = time.monotonic()
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=timeout + 10)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=5)
    assert took < timeout + 2.0, took
    assert proc.returncode == 2, err
    assert f"interrupted by {signame}" in err and "Traceback" not in err, err
    try:
        assert gone(system) and not group_members(system), "a process of the system's group is left"
        assert gone(child), "the system's setsid child outlived llgui"
    finally:
        for pid in (system, child):
            if not gone(pid, 0.1):
                os.kill(pid, signal.SIGKILL)
    run = json.loads((out / "run.json").read_text())
    assert run["partial"] is True
    assert run["exit"] == 128 + getattr(signal, signame)
    assert run["error"].startswith(f"interrupted by {signame} (cut short: ")
    # the run reopens: both documents' h0 arrived, the first document's steps are logged
    bundle = load_bundle(out / "bundle.toml")
    assert [d.id for d in bundle.documents] == ["news-2023-01-09", "news-2023-02-06"]
    assert {s.doc for s in bundle.steps} == {"news-2023-01-09"}
    capsys.readouterr()
    assert main(["score", str(out / "bundle.toml")]) == 0
    assert "news-2023-02-06" in capsys.readouterr().out


# -- the cost of a request, the budget per mode -------------------------------------------------


def _reference_words(demo_dir: Path, doc: str) -> list[int]:
    text = (demo_dir / "mt" / "ref" / f"{doc}.drm").read_text(encoding="utf-8")
    return [len(line.split()) for line in text.splitlines()]


def _received(path: Path) -> list[dict]:
    return [e["msg"] for e in journal(path) if e["dir"] == "in"]


def test_a_quote_tells_the_cost_of_a_request_before_it_is_made(probe, tmp_path, demo_dir):
    command, journal_path, _ = probe("quote")
    budget = 40.0
    assert main(["simulate", str(demo_dir / "mt" / "bundle.toml"), "--system", command,
                 "--oracle", "allies", "--budget", str(budget), "--out", str(tmp_path / "out"),
                 "--quiet"]) == 0
    received = _received(journal_path)
    assert not [m for m in received if m["type"] == "refused"]
    answers = [m for m in received if m["type"] == "answer"]
    assert answers
    spent: dict[str, float] = {}
    for k, m in enumerate(received):
        if m["type"] != "answer":
            continue
        quote = received[k - 1]   # the system requested what it was just quoted
        assert quote["type"] == "quote" and quote["target"] == m["target"]
        assert quote["step"] == m["step"]
        words = _reference_words(demo_dir, m["doc"])[m["target"]["sentence"] - 1]
        assert quote["cost"] == m["cost"] == words   # the reference's words, weight 1
        spent[m["doc"]] = spent.get(m["doc"], 0.0) + m["cost"]
        assert m["left"] == pytest.approx(budget - spent[m["doc"]])
        assert quote["left"] == pytest.approx(budget - spent[m["doc"]] + m["cost"])
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert all(d["cost"] <= budget for d in run["documents"])


def test_active_a_request_over_the_budget_is_refused_and_ends_the_document(probe, tmp_path,
                                                                            demo_dir):
    command, journal_path, _ = probe("greedy")
    budget = 3.0   # less than the first reference sentence of every demo document
    assert main(["simulate", str(demo_dir / "mt" / "bundle.toml"), "--system", command,
                 "--oracle", "allies", "--budget", str(budget), "--out", str(tmp_path / "out"),
                 "--quiet"]) == 0
    received = _received(journal_path)
    refused = [m for m in received if m["type"] == "refused"]
    docs = [d.id for d in load_bundle(demo_dir / "mt" / "bundle.toml").documents]
    assert [m["doc"] for m in refused] == docs
    for m in refused:
        assert m["reason"] == "budget" and m["step"] == 1 and m["left"] == budget
        assert m["cost"] == _reference_words(demo_dir, m["doc"])[0] > budget
        after = received[received.index(m) + 1]
        assert after == {"type": "end_document", "doc": m["doc"]}
    assert not [m for m in received if m["type"] == "answer"]
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert [d["steps"] for d in run["documents"]] == [0] * len(docs)


def test_interactive_the_oracle_never_exceeds_the_budget(probe, tmp_path, demo_dir):
    command, journal_path, _ = probe("ok")
    budget = 25.0
    assert main(["simulate", str(demo_dir / "mt" / "bundle.toml"), "--system", command,
                 "--oracle", "worst-first", "--budget", str(budget), "--out",
                 str(tmp_path / "out"), "--quiet"]) == 0
    corrections = [m for m in _received(journal_path) if m["type"] == "correction"]
    assert corrections
    spent: dict[str, float] = {}
    for m in corrections:
        spent[m["doc"]] = spent.get(m["doc"], 0.0) + m["cost"]
        assert spent[m["doc"]] <= budget + 1e-9
        assert m["left"] == pytest.approx(budget - spent[m["doc"]])
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert all(d["cost"] <= budget + 1e-9 and d["mode"] == "interactive"
               for d in run["documents"])


def test_mode_none_has_no_steps(probe, tmp_path, demo_dir):
    command, journal_path, _ = probe("ok")
    assert main(["simulate", str(demo_dir / "mt" / "bundle.toml"), "--system", command,
                 "--mode", "none", "--out", str(tmp_path / "out"), "--quiet"]) == 0
    kinds = {m["type"] for m in _received(journal_path)}
    assert kinds == {"hello", "document", "end_document", "bye"}
    assert not log_steps(tmp_path / "out")


# -- a WMT23 test set cut into documents by `lines` ---------------------------------------------

WMT_RANGES = ("1-37", "38-60")


def wmt_lines_bundle(reference_data: Path, folder: Path) -> Path:
    d = reference_data / "wmt23-general" / "txt"
    docs = []
    for i, lines in enumerate(WMT_RANGES):
        docs.append(textwrap.dedent(f'''
            [[documents]]
            id = "deen-{"ab"[i]}"
            time = "2023-0{i + 6}-05"
            references = ["{d}/references/generaltest2023.de-en.ref.refA.en"]
            hypothesis = "{d}/system-outputs/generaltest2023.de-en.hyp.ONLINE-B.en"
            source = "{d}/sources/generaltest2023.de-en.src.de"
            lines = "{lines}"
            '''))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bundle.toml"
    path.write_text('[bundle]\ntask = "mt"\nname = "WMT23 de-en (ONLINE-B)"\n'
                    'metrics = ["bleu", "ter"]\n' + "".join(docs), encoding="utf-8")
    return path


def test_a_run_of_a_bundle_cut_by_lines_reopens_everywhere(reference_data, tmp_path, capsys):
    import sacrebleu

    bundle = wmt_lines_bundle(reference_data, tmp_path / "in")
    runs = {}
    for system in ("mt_memory", "static"):
        runs[system] = tmp_path / system
        assert main(["simulate", str(bundle), "--system", system, "--oracle", "worst-first",
                     "--budget", "60", "--out", str(runs[system]), "--quiet"]) == 0
    capsys.readouterr()
    run = runs["mt_memory"] / "bundle.toml"
    # score: S_base of each document is sacrebleu's BLEU of its lines of the test set
    assert main(["score", str(run), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    d = reference_data / "wmt23-general" / "txt"
    refs = (d / "references" / "generaltest2023.de-en.ref.refA.en").read_text(
        encoding="utf-8").splitlines()
    hyps = (d / "system-outputs" / "generaltest2023.de-en.hyp.ONLINE-B.en").read_text(
        encoding="utf-8").splitlines()
    by_doc = {d["id"]: d["scores"]["bleu"] for d in report["documents"]}
    for doc, lines in zip(("deen-a", "deen-b"), WMT_RANGES):
        a, b = (int(x) for x in lines.split("-"))
        assert by_doc[doc] == pytest.approx(
            sacrebleu.corpus_bleu(hyps[a - 1:b], [refs[a - 1:b]]).score, abs=1e-9)
    assert report["metrics"]["bleu"]["score"] == pytest.approx(
        sacrebleu.corpus_bleu(hyps[:60], [refs[:60]]).score, abs=1e-9)
    # replay of each document, compare of the two runs (same input bundle name), the window
    for doc in ("deen-a", "deen-b"):
        assert main(["replay", str(run), "--doc", doc]) == 0
    capsys.readouterr()
    assert main(["compare", str(run), str(runs["static"] / "bundle.toml"), "--baseline",
                 "static", "--format", "json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    # runs are named by system and oracle (issue 32); the system alone names the baseline
    assert [s["name"] for s in compared["systems"]] == ["static (worst-first)",
                                                        "mt_memory (worst-first)"]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    shot = subprocess.run([sys.executable, "-m", "llgui", str(run), "--screenshot",
                           str(tmp_path / "run.png"), "--size", "900x600"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    assert shot.returncode == 0, shot.stderr
    assert (tmp_path / "run.png").stat().st_size > 0


def test_screenshot_exits_2_when_a_bundle_fails_to_open(tmp_path):
    bad = tmp_path / "bundle.toml"
    bad.write_text('[bundle]\ntask = "mt"\nname = "x"\n\n[[documents]]\nid = "a"\n'
                   'time = 1\nreferences = ["missing.txt"]\nhypothesis = "missing.txt"\n',
                   encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    shot = subprocess.run([sys.executable, "-m", "llgui", str(bad), "--screenshot",
                           str(tmp_path / "bad.png"), "--size", "800x600"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    assert shot.returncode == 2, shot.stderr
    assert "missing.txt" in shot.stderr


# -- the schema of every message, the docs held to it -------------------------------------------

SCHEMA_PATH = REPO / "docs" / "protocol.schema.json"

# Copies every line both ways between llgui and the system it wraps into LOG, as
# {"from": "llgui"|"system", "line": "..."}: what llgui sent, and what it read (and accepted,
# in a run that ends with exit 0).
PROXY = textwrap.dedent('''
    import json, subprocess, sys, threading
    log = open(sys.argv[1], "a", encoding="utf-8")
    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    lock = threading.Lock()
    def note(side, line):
        with lock:
            log.write(json.dumps({"from": side, "line": line.decode("utf-8")}) + "\\n")
            log.flush()
    def pump():
        for line in child.stdout:
            note("system", line)
            sys.stdout.buffer.write(line); sys.stdout.buffer.flush()
    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    for line in sys.stdin.buffer:
        note("llgui", line)
        child.stdin.write(line); child.stdin.flush()
    child.stdin.close()
    thread.join()
    sys.exit(child.wait())
''')


# A diarization system asking one request of each kind per document (a quote first), then
# stopping; it keeps the bundle's hypothesis.
ASKER = textwrap.dedent('''
    import json, sys
    def say(obj):
        sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
    todo = []
    def ask(step):
        if todo:
            kind, target = todo.pop(0)
            say({"type": "quote", "kind": kind, "target": target, "step": step})
        else:
            say({"type": "stop", "step": step})
    for raw in sys.stdin:
        m = json.loads(raw)
        if m["type"] == "hello":
            say({"type": "hello", "name": "asker"})
        elif m["type"] == "document":
            say({"type": "hypothesis", "doc": m["doc"], "step": 0, "turns": m["hypothesis"]})
            todo = [("name", {"t": 10.0}), ("boundary", {"t": 20.0}),
                    ("same", {"t1": 5.0, "t2": 30.0})]
            if m["mode"] == "active":
                ask(1)
        elif m["type"] == "quote":   # what it costs: ask it all the same
            say({"type": "request", "kind": m["kind"], "target": m["target"],
                 "step": m["step"]})
        elif m["type"] == "answer":
            say({"type": "adapted", "doc": m["doc"], "step": m["step"]})
            ask(m["step"] + 1)
        elif m["type"] == "correction":
            say({"type": "adapted", "step": m["step"]})
        elif m["type"] == "bye":
            break
''')


def _validator(direction: str):
    """A message's validator: the branch of `direction`'s oneOf that its "type" names. The
    branches' "type" constants differ (checked here), so a message is valid under the oneOf
    exactly when it is valid under that branch; a message whose type names no branch meets
    the whole oneOf (and fails it). Trying all of a direction's nine branches on each of the
    ~1000 messages was most of this test's CPU (~3 s)."""
    from jsonschema import Draft202012Validator

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    schema = dict(schema)
    schema.pop("anyOf")
    whole = Draft202012Validator({**schema, "$ref": f"#/$defs/{direction}"})
    branches: dict[str, Draft202012Validator] = {}
    for ref in schema["$defs"][direction]["oneOf"]:
        name = ref["$ref"].rsplit("/", 1)[1]
        kind = schema["$defs"][name]["properties"]["type"]["const"]
        assert kind not in branches, f"two branches of {direction} are of type {kind!r}"
        branches[kind] = Draft202012Validator({**schema, "$ref": f"#/$defs/{name}"})

    def iter_errors(message):
        kind = message.get("type") if isinstance(message, dict) else None
        chosen = branches.get(kind) if isinstance(kind, str) else None
        return (chosen or whole).iter_errors(message)

    return iter_errors


def test_every_message_sent_and_accepted_fits_the_schema(probe, tmp_path, demo_dir):
    from tests.sim.test_panel import readme_example
    from tests.sim.test_simulate_demo import first_document_bundle

    proxy = tmp_path / "proxy.py"
    proxy.write_text(PROXY, encoding="utf-8")
    keeper = tmp_path / "keeper.py"
    keeper.write_text(readme_example(), encoding="utf-8")
    asker = tmp_path / "asker.py"
    asker.write_text(ASKER, encoding="utf-8")
    py = sys.executable
    # MT on the demo's first document (an MT message names one document's sentences: the
    # other three documents sent the same shapes again); diarization on all five (a `same`
    # target may name an earlier document: doc2)
    mt = first_document_bundle(demo_dir, "mt", tmp_path / "mt")
    diar = demo_dir / "diarization" / "bundle.toml"
    runs = [
        (mt, f"{py} -m llgui.systems.static", "allies", "40"),
        (mt, f"{py} -m llgui.systems.mt_memory", "allies", "40"),
        (mt, f"{py} -m llgui.systems.mt_memory", "noisy:0.3:worst-first", "40"),
        (mt, f"{py} {keeper}", "allies", "40"),
        (mt, probe("quote")[0], "allies", "40"),
        (mt, probe("greedy")[0], "allies", "3"),
        (diar, f"{py} -m llgui.systems.diar_clusters", "allies", "30"),
        (diar, f"{py} {asker}", "allies", "60"),
        (diar, f"{py} -m llgui.systems.diar_clusters", "worst-first", "60"),
        (diar, f"{py} -m llgui.systems.static", "noisy:0.5:worst-first", "30"),
        (mt, f"{py} -m llgui.systems.mt_complete", "prefix", "40"),   # protocol 1.2
        (mt, f"{py} -m llgui.systems.mt_complete", "prefix-char", "40"),
    ]
    seen = {"llgui": set(), "system": set()}
    kinds = set()
    validators = {"llgui": _validator("from_llgui"), "system": _validator("from_system")}
    for k, (bundle, command, oracle, budget) in enumerate(runs):
        log = tmp_path / f"transcript{k}.jsonl"
        out = tmp_path / f"run{k}"
        assert main(["simulate", str(bundle), "--system", f"s={py} {proxy} {log} {command}",
                     "--oracle", oracle, "--budget", budget, "--out", str(out),
                     "--quiet"]) == 0, command
        for entry in journal(log):
            message = json.loads(entry["line"])
            errors = [e.message for e in validators[entry["from"]](message)]
            assert not errors, (command, oracle, entry["from"], message, errors[:3])
            seen[entry["from"]].add(message["type"])
            if message["type"] in ("answer", "correction"):
                kinds.add((message["type"], message["kind"]))
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert seen["llgui"] == _types(schema, "from_llgui")     # every message llgui can send
    assert seen["system"] == _types(schema, "from_system")
    assert kinds == {("answer", "reference"), ("answer", "same"), ("answer", "boundary"),
                     ("answer", "name"), ("correction", "post_edit"), ("correction", "name"),
                     ("correction", "segment")}


def _types(schema: dict, direction: str) -> set[str]:
    defs = schema["$defs"]
    return {defs[ref["$ref"].rsplit("/", 1)[1]]["properties"]["type"]["const"]
            for ref in defs[direction]["oneOf"]}


def _fields(value) -> set[str]:
    out = set()
    if isinstance(value, dict):
        out |= set(value.get("properties", {}))
        for v in value.values():
            out |= _fields(v)
    elif isinstance(value, list):
        for v in value:
            out |= _fields(v)
    return out


def test_the_protocol_page_and_the_schema_name_the_same_messages_and_fields():
    import re

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    text = (REPO / "docs" / "protocol.md").read_text(encoding="utf-8")
    types = _types(schema, "from_llgui") | _types(schema, "from_system")
    fields = _fields(schema["$defs"])
    for name in types:
        assert f'"type": "{name}"' in text, f"docs/protocol.md never shows a {name} message"
    for name in fields:
        assert f'"{name}"' in text, f"docs/protocol.md never names the field {name!r}"
    section = text.split("## The conversation", 1)[1].split("## What `--out DIR` holds", 1)[0]
    for name in re.findall(r'"type": "([a-z_]+)"', section):
        assert name in types, f"docs/protocol.md shows a {name} message the schema lacks"
    for key in re.findall(r'"([A-Za-z_0-9]+)":', section):
        assert key.isdigit() or key in fields, f"docs/protocol.md names a field {key!r} the " \
                                               "schema lacks"
    for kind in ("reference", "post_edit", "same", "boundary", "name", "segment"):
        assert f"| `{kind}` |" in section, f"the answers table lacks {kind}"


# -- the answers are what the page says ----------------------------------------------------------


def _rttm(path: Path, uri: str) -> list[tuple[float, float, str]]:
    turns = []
    for line in path.read_text(encoding="utf-8").splitlines():
        f = line.split()
        if f and f[0] == "SPEAKER" and f[1] == uri:
            turns.append((float(f[3]), float(f[3]) + float(f[4]), f[7]))
    return turns


def test_name_and_segment_answers_are_what_the_page_says(tmp_path, demo_dir):
    """name: the label pyannote.metrics' optimal mapping of h_{n-1} gives the reference speaker
    at t (that speaker's reference label when unmapped, "non-speech" where nobody speaks);
    segment: the reference turns cut to the span, logged (not null)."""
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.diarization import DiarizationErrorRate

    out = tmp_path / "out"
    assert main(["simulate", str(demo_dir / "diarization" / "bundle.toml"), "--system",
                 "diar_clusters", "--oracle", "worst-first", "--budget", "150", "--out",
                 str(out), "--quiet"]) == 0
    bundle = load_bundle(out / "bundle.toml")
    ref_file = demo_dir / "diarization" / "ref" / "shows.rttm"
    checked = {"name": 0, "segment": 0, "unmapped": 0}
    for document in bundle.documents:
        steps = [s for s in log_steps(out) if s["doc"] == document.id]
        reference = _rttm(ref_file, document.uri)
        ref = Annotation(uri=document.uri)
        for k, (s, e, spk) in enumerate(reference):
            ref[Segment(s, e), k] = spk
        uem = Timeline([Segment(s, e) for s, e in document.uem], uri=document.uri)
        hypothesis = [(t.start, t.end, t.speaker) for t in document.hypothesis]  # h0
        for step in steps:
            if step["kind"] == "name":
                hyp = Annotation(uri=document.uri)
                for k, (s, e, spk) in enumerate(hypothesis):
                    hyp[Segment(s, e), k] = spk
                mapping = DiarizationErrorRate(collar=0.0, skip_overlap=False).optimal_mapping(
                    ref, hyp, uem=uem)
                t = step["target"]["t"]
                speakers = sorted({spk for s, e, spk in reference if s <= t < e})
                if not speakers:
                    expected = "non-speech"
                else:
                    mine = [h for h, r in mapping.items() if r == speakers[0]]
                    expected = mine[0] if mine else speakers[0]
                    checked["unmapped"] += not mine
                assert step["answer"] == expected, (document.id, step["step"], mapping)
                checked["name"] += 1
            if step["kind"] == "segment":
                a, b = step["target"]["start"], step["target"]["end"]
                cut = [[max(s, a), min(e, b), spk] for s, e, spk in
                       sorted(reference, key=lambda x: (x[0], x[1], x[2])) if e > a and s < b]
                assert len(step["answer"]) == len(cut)
                for got, want in zip(step["answer"], cut):
                    assert got[:2] == pytest.approx(want[:2], abs=1e-9) and got[2] == want[2]
                checked["segment"] += 1
            if step.get("adapted") and "turns" in step["adapted"]:
                hypothesis = [tuple(x) for x in step["adapted"]["turns"]]
    assert checked["name"] >= 3 and checked["segment"] >= 3, checked


def test_defaults_and_limits_are_in_the_help_and_the_page(capsys):
    from llgui.sim import protocol as P

    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    page = " ".join((REPO / "docs" / "protocol.md").read_text(encoding="utf-8").split())
    assert P.MAX_LINE_BYTES == 16 * 1024 * 1024
    for text in (help_text, page):
        for needle in ("16 MiB", "start-up", "(default: 30)" if text is help_text else "| 30 |",
                       "60 s", "60 %", "interactive", "active", "none", "quote"):
            assert needle in text, needle
    assert "--interactive-ratio" in page and "`--mode` wins" in page and "--mode wins" in help_text


def test_a_silent_active_system_is_told_what_llgui_waits_for(tmp_path):
    """An outsider's active system sent its h0 and then waited for llgui (it forgot to ask):
    'no reply within --timeout' alone did not say that the system owed a request."""
    script = tmp_path / "forgetful.py"
    script.write_text(textwrap.dedent('''
        import json, sys
        for raw in sys.stdin:
            m = json.loads(raw)
            if m["type"] == "hello":
                print(json.dumps({"type": "hello", "name": "forgetful"}), flush=True)
            elif m["type"] == "document":
                print(json.dumps({"type": "hypothesis", "doc": m["doc"], "step": m["step"],
                                  "lines": m["hypothesis"]}), flush=True)
    '''), encoding="utf-8")
    bundle = REPO / "resources" / "demo" / "mt" / "bundle.toml"
    # llgui's entry point in this process (what it says is in question, not its process);
    # the system is a real subprocess
    done = llgui_in_process(["simulate", str(bundle), "--system", f"{sys.executable} {script}",
                             "--mode", "active", "--timeout", "2", "--out", str(tmp_path / "out")])
    assert done.returncode == 3, done.stderr
    assert "no reply within --timeout 2 s: llgui was waiting for your request, quote or stop" \
        in done.stderr
    assert "Traceback" not in done.stderr


def test_a_mistyped_reference_system_is_a_usage_error_with_a_suggestion(tmp_path):
    bundle = REPO / "resources" / "demo" / "mt" / "bundle.toml"
    done = llgui_in_process(["simulate", str(bundle), "--system", "mt_memroy", "--out",
                             str(tmp_path / "out")])
    assert done.returncode == 2, done.stderr
    assert "did you mean 'mt_memory'?" in done.stderr
    assert not (tmp_path / "out").exists()
