"""Issue 38: hostile input on the newest surfaces, each case as an outsider meets it: `llgui`'s
exit code and stderr are the contract. Real subprocesses of `llgui` where the process is in
question (a file-size limit, /dev/full, a run holding the folder, a signal); elsewhere the same
entry point in this process (`here`: a second interpreter cost ~0.5 s of CPU in imports).

1. a WAV whose header lies is the documented warning in `score` and `simulate` (the window
   and the live session: tests/gui/test_audio.py, tests/gui/live/test_listen.py);
2. two `simulate` runs into one `--out`: the second is refused, naming the first;
3. a write that fails (a file-size limit, /dev/full) is exit 2 with the reason, never exit 0
   with a truncated report, never a traceback; simulate stops cleanly and its folder reopens;
6. the minors: a lone surrogate from a system, a scheduler file nested 10**5 deep, JSON of
   a run folder nested as deep, system.stderr's cap, noisy:P's digits, a zip-bomb cache
   entry, --cell-timeout below a millisecond, files of too many lines.
(4, the API's bounds: tests/test_api_bounds.py; 5, word files: tests/io/test_words_io.py and
gate 15; an unusable cache folder: tests/cli/test_hostile.py.)
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import llgui_in_process
from tests.meeting_audio import write_lying_wav, write_meeting

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo"


def here(*args) -> subprocess.CompletedProcess:
    """`llgui ARGS` through its entry point in this process: exit code, stdout and stderr."""
    return llgui_in_process([str(a) for a in args])


def llgui(*args: str, stdout=subprocess.PIPE, preexec_fn=None, timeout: float = 240,
          env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llgui", *map(str, args)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=timeout, cwd=ROOT,
                          preexec_fn=preexec_fn, env={**os.environ, **(env or {})})


# -- 1. a WAV whose header lies ---------------------------------------------------------------


@pytest.fixture(scope="module")
def lying(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("lying")
    bundle = write_meeting(folder, audio="lying.wav")
    write_lying_wav(folder / "lying.wav")
    return bundle


WARNING = ("warning: document 'meeting': audio file 'lying.wav' is cut short: its header "
           "announces more bytes than the file")


def test_score_warns_of_a_lying_wav_and_scores(lying):
    run = here("score", lying, "--metric", "der", "--format", "json")
    assert run.returncode == 0, run.stderr
    assert f"{lying}:10: {WARNING}" in run.stderr and "internal error" not in run.stderr
    assert json.loads(run.stdout)["metrics"]["der"]["score"] > 0


def test_simulate_warns_of_a_lying_wav_and_runs(lying, tmp_path):
    run = here("simulate", lying, "--system", "diar_clusters", "--oracle", "worst-first",
                "--budget", "5", "--out", tmp_path / "run", "--quiet")
    assert run.returncode == 0, run.stderr
    assert WARNING in run.stderr and "Traceback" not in run.stderr
    assert json.loads((tmp_path / "run" / "run.json").read_text())["documents"]


# -- 2. one run at a time in an output folder ------------------------------------------------


def test_a_second_simulate_into_a_busy_folder_is_refused_naming_the_first(tmp_path):
    """Two `simulate` into one --out both exited 0 and interleaved their logs; now the
    second is exit 2 naming the first (pid, command, start), which runs on undisturbed."""
    import signal
    import time

    out = tmp_path / "run"
    sleeper = f'{sys.executable} -c "import time; time.sleep(120)"'   # never says hello
    first = subprocess.Popen([sys.executable, "-m", "llgui", "simulate",
                              DEMO / "diarization" / "bundle.toml", "--system", sleeper,
                              "--timeout", "300", "--out", out, "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        lock = out / ".llgui.lock"
        for _ in range(600):   # until the first run holds the folder (no time is asserted)
            if lock.exists() and lock.read_text().strip():
                break
            assert first.poll() is None, first.communicate()
            time.sleep(0.05)
        second = here("simulate", DEMO / "diarization" / "bundle.toml", "--system",
                      "diar_clusters", "--out", out, "--quiet")
        assert second.returncode == 2, second.stderr
        assert (f"llgui simulate: --out {out}: another run is writing there (pid {first.pid}, "
                f"`llgui simulate {DEMO / 'diarization' / 'bundle.toml'}") in second.stderr
        assert ", started 20" in second.stderr and "Traceback" not in second.stderr
        assert first.poll() is None   # the first run was not disturbed
    finally:
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=60)
    assert first.returncode == 2 and "interrupted" in err, err
    assert json.loads((out / "run.json").read_text())["partial"] is True
    assert not (out / ".llgui.lock").exists()   # released when the run ended


def test_a_stale_lock_does_not_stop_a_run(tmp_path):
    """A lock file left by a run that died (SIGKILL: the kernel released its flock) is taken
    over: the folder is held by a live process or by none."""
    out = tmp_path / "run"
    out.mkdir()
    (out / ".llgui.lock").write_text(json.dumps({"pid": 999999999, "command": "llgui simulate",
                                                 "started": "2026-01-01T00:00:00+00:00"}))
    run = here("simulate", DEMO / "diarization" / "bundle.toml", "--system", "diar_clusters",
               "--oracle", "worst-first", "--budget", "5", "--out", out, "--quiet")
    assert run.returncode == 0, run.stderr
    assert json.loads((out / "run.json").read_text())["exit"] == 0


# -- 3. a write that fails -------------------------------------------------------------------


def limit_file_size(size: int):
    def apply() -> None:   # in the child, as `ulimit -f` (Python ignores SIGXFSZ: EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return apply


REPORTS = {
    "score": ["score", DEMO / "diarization" / "bundle.toml", "--format", "json"],
    "compare": ["compare", DEMO / "campaign" / "campaign.toml", "--baseline", "static",
                "--samples", "20", "--format", "json"],
}


@pytest.mark.parametrize("command", sorted(REPORTS))
def test_a_report_cut_by_a_file_size_limit_is_exit_2(command, tmp_path):
    """`ulimit -f 1; llgui score B --format json > big.json` was exit 0 with big.json cut at
    1,024 bytes (Python's buffered writer drops the short count). The whole report it is
    compared with comes from the same entry point in this process (only the limited run's
    process is in question)."""
    whole = here(*REPORTS[command])
    assert whole.returncode == 0 and len(whole.stdout) > 1024, whole.stderr
    with open(tmp_path / "big.json", "w") as f:
        run = llgui(*REPORTS[command], stdout=f, preexec_fn=limit_file_size(1024))
    assert run.returncode == 2, run.stderr
    assert (f"llgui {command}: cannot write the report to standard output (File too large)"
            in run.stderr and "Traceback" not in run.stderr)
    assert (tmp_path / "big.json").read_text() == whole.stdout[:1024]   # what was written


@pytest.mark.parametrize("command", sorted(REPORTS))
def test_a_report_into_dev_full_is_exit_2(command):
    with open("/dev/full", "w") as f:
        run = llgui(*REPORTS[command], stdout=f)
    assert run.returncode == 2, run.stderr
    assert (f"llgui {command}: cannot write the report to standard output (No space left on "
            f"device)" in run.stderr and "Traceback" not in run.stderr)


def test_simulate_under_a_file_size_limit_stops_cleanly_and_reopens(tmp_path):
    """simulate under `ulimit -f` was exit 1 (OSError in append_step), a log cut mid-line
    and no run.json; now exit 2 with the reason, the log cut back to its last whole step,
    run.json written (exit 2, partial, the reason) and the folder reopens."""
    out = tmp_path / "run"
    run = llgui("simulate", DEMO / "diarization" / "bundle.toml", "--system", "diar_clusters",
                "--oracle", "worst-first", "--out", out, "--quiet",
                preexec_fn=limit_file_size(8192))
    assert run.returncode == 2, run.stderr
    assert (f"llgui simulate: cannot write {out / 'logs' / 'system.jsonl'} (File too large); "
            "the run stopped after") in run.stderr and "Traceback" not in run.stderr
    lines = (out / "logs" / "system.jsonl").read_text().splitlines(keepends=True)
    assert lines and all(line.endswith("\n") for line in lines)
    steps = [json.loads(line) for line in lines]   # every line whole
    done = json.loads((out / "run.json").read_text())
    assert done["exit"] == 2 and done["partial"] is True
    assert done["error"].startswith("cannot write") and "File too large" in done["error"]
    assert f"stopped after {len(steps)} steps" in done["error"]
    again = llgui("replay", out / "bundle.toml", "--doc", steps[0]["doc"], "--format", "json")
    assert again.returncode == 0, again.stderr
    assert len(json.loads(again.stdout)["steps"]) == sum(s["doc"] == steps[0]["doc"]
                                                         for s in steps)


def test_simulate_into_dev_full_is_exit_2(tmp_path):
    with open("/dev/full", "w") as f:
        run = llgui("simulate", DEMO / "diarization" / "bundle.toml", "--system",
                    "diar_clusters", "--oracle", "worst-first", "--budget", "5", "--out",
                    tmp_path / "run", "--quiet", "--format", "json", stdout=f)
    assert run.returncode == 2, run.stderr
    assert "llgui simulate: cannot write the report to standard output (No space left on " \
           "device)" in run.stderr
    assert json.loads((tmp_path / "run" / "run.json").read_text())["exit"] == 0   # the run


# -- 6. the minors ---------------------------------------------------------------------------

SURROGATE_SYSTEM = '''
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "s", "version": "0"}), flush=True)
    elif msg["type"] == "document":
        lines = list(msg["hypothesis"])
        lines[0] = "\\ud800" + lines[0]   # a lone surrogate: json.dumps writes it as \\ud800
        print(json.dumps({"type": "hypothesis", "doc": msg["doc"], "lines": lines}),
              flush=True)
    elif msg["type"] == "bye":
        break
'''


def test_a_lone_surrogate_in_a_systems_line_is_its_fault(tmp_path):
    """A `\\ud800` escape without its pair decodes to a string no file can hold: it was
    llgui's own error at the next write; now the system's fault (exit 3) with the message
    number, document and step, as the other protocol faults."""
    script = tmp_path / "surrogate.py"
    script.write_text(SURROGATE_SYSTEM)
    run = here("simulate", DEMO / "mt" / "bundle.toml", "--system",
               f"{sys.executable} {script}", "--out", tmp_path / "run", "--quiet")
    assert run.returncode == 3, run.stderr
    assert "message 2 (doc news-2023-01-09, step 0)" in run.stderr, run.stderr
    assert "lone surrogate" in run.stderr and "internal error" not in run.stderr
    assert json.loads((tmp_path / "run" / "run.json").read_text())["exit"] == 3


def test_a_deeply_nested_scheduler_file_is_exit_2(tmp_path):
    """100,000 nested arrays: json's RecursionError was an internal error (exit 1)."""
    path = tmp_path / "scheduler.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    run = here("campaign", DEMO / "campaign" / "campaign.toml", "--scheduler-file", path)
    assert run.returncode == 2, run.stderr
    assert (f"--scheduler-file {path}: not a Dask scheduler file (too deeply nested"
            in run.stderr)


CHATTY_SYSTEM = '''
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        sys.stderr.write("e" * 300_000 + "\\nthe last words\\n"); sys.stderr.flush()
        print(json.dumps({"type": "hello", "name": "s", "version": "0"}), flush=True)
    elif msg["type"] == "document":
        print(json.dumps({"type": "hypothesis", "doc": msg["doc"],
                          "lines": msg["hypothesis"]}), flush=True)
        print(json.dumps({"type": "stop"}), flush=True)
    elif msg["type"] == "bye":
        break
'''


def test_system_stderr_is_capped(tmp_path, monkeypatch, capsys):
    """A system printing without end filled the disk through system.stderr; the file now
    keeps at most llgui.sim.process.MAX_STDERR_BYTES (16 MiB; 100 KB here) and says how much
    was dropped, the system never blocking on the pipe."""
    from llgui.cli.main import main
    from llgui.sim import process

    assert process.MAX_STDERR_BYTES == 16 << 20
    monkeypatch.setattr(process, "MAX_STDERR_BYTES", 100_000)
    script = tmp_path / "chatty.py"
    script.write_text(CHATTY_SYSTEM)
    out = tmp_path / "run"
    code = main(["simulate", str(DEMO / "mt" / "bundle.toml"), "--system",
                 f"{sys.executable} {script}", "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    text = (out / "system.stderr").read_bytes()
    dropped = 300_000 + len("\nthe last words\n") - 100_000
    assert text == b"e" * 100_000 + (f"\n[llgui: system.stderr is capped at 100000 bytes; "
                                      f"{dropped} more were dropped]\n").encode()


@pytest.mark.parametrize("oracle", ["noisy:\uff10.\uff15", "noisy:\u0660.5", "noisy:0_5"])
def test_a_noisy_oracle_reads_its_probability_as_the_command_line_reads_numbers(oracle):
    """`noisy:０.５` (full-width digits) was read by float() as 0.5; every number llgui reads
    is ASCII (llgui.core.numbers.parse_number)."""
    from llgui.sim.oracles import make_oracle

    with pytest.raises(ValueError, match=r"P must be a probability in \[0, 1\] \(P is not a "
                                         r"number"):
        make_oracle(oracle)
    assert make_oracle("noisy:0.5").name == "noisy:0.5"


def _zip_bomb(path: Path, key: str, megabytes: int = 100) -> None:
    """An .npz entry named for `key` whose statistics member inflates from ~100 KB to
    `megabytes` MB of zeros (deflate), written in chunks (the test never holds it whole)."""
    import zipfile

    import numpy as np

    rows = megabytes * (1 << 20) // 8
    header = np.lib.format.header_data_from_array_1_0(np.zeros((1, 1)))
    header["shape"] = (rows, 1)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("stats_0.npy", "w", force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(member, header)
            chunk = bytes(1 << 20)
            for _ in range(megabytes):
                member.write(chunk)
        meta = json.dumps({"format": 1, "key": key, "metrics": ["bleu"], "digest": ""})
        buffer = __import__("io").BytesIO()
        np.save(buffer, np.frombuffer(meta.encode(), dtype=np.uint8))
        archive.writestr("header.npy", buffer.getvalue())


def _lying_header(path: Path, key: str, megabytes: int = 100) -> None:
    """A `.cell` entry whose header claims `megabytes` MB of statistics (and a checksum)
    while ~100 KB follow it: a reader that allocated what the header says would pay for it."""
    import hashlib

    rows = megabytes * (1 << 20) // 8
    header = {"format": 4, "key": key, "metrics": ["bleu"], "shapes": [[rows, 1]],
              "types": ["<f8"], "sums": [[0.0]], "digest": "0" * 64}
    text = json.dumps(header).encode()   # with its own checksum: only its sizes lie
    path.write_bytes(hashlib.sha256(text).hexdigest().encode() + b" " + text + b"\n"
                     + bytes(100 << 10))


@pytest.mark.parametrize("craft", [_zip_bomb, _lying_header])
def test_a_crafted_cache_entry_costs_its_own_size(tmp_path, craft):
    """A 2.5 MB cache entry inflating to 4.9 GB cost that memory and 30 s, deaf to SIGTERM
    (zlib in C) when entries were `.npz` archives. An entry is now raw values after one
    header line: a zip archive under its name is damage, and so is a header claiming more
    values than the entry holds. Both are removed before anything of their claimed size is
    allocated. Measured by memory (tracemalloc sees numpy's buffers; the 16 MiB read buffer
    of `read_regular` is the floor), not by time."""
    import tracemalloc

    from llgui.campaign.cache import CACHE_FORMAT, CellCache

    assert CACHE_FORMAT == 4, "the lying header is written in format 4"
    cache = CellCache(tmp_path / "campaign")
    key = "ab" + "0" * 62
    entry = cache.path(key)
    entry.parent.mkdir(parents=True)
    craft(entry, key)
    assert entry.stat().st_size < 1 << 20   # ~100 KB on disk, 100 MB claimed
    tracemalloc.start()
    try:
        assert cache.head(key) is None   # what a cached rerun reads first
        craft(entry, key)
        assert cache.get(key) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 48 << 20, f"{peak / 2 ** 20:.0f} MiB used to refuse a 100 KB entry"
    assert cache.corrupt == 2 and not entry.exists()


def test_a_cell_timeout_below_a_millisecond_is_refused(capsys):
    """`--cell-timeout 0.000001` gave up no cell (a limit below the clock's resolution): it
    is refused as out of range, as every option's bound (llgui.core.bounds)."""
    from llgui.cli.main import main

    with pytest.raises(SystemExit) as stopped:
        main(["campaign", str(DEMO / "campaign" / "campaign.toml"), "--cell-timeout",
              "0.000001"])
    assert stopped.value.code == 2
    assert ("argument --cell-timeout: '0.000001': must be a number between 0.001 and 604800"
            in capsys.readouterr().err)


@pytest.mark.parametrize("kind", ["rttm", "scores", "bundle"])
def test_a_file_of_too_many_lines_is_exit_2_before_it_is_parsed(kind, monkeypatch, capsys,
                                                               tmp_path):
    """Inputs of 10**6-10**7 lines cost over 60 s and 2.3-2.6 GB: each reader now has a
    documented line limit (2*10**6 RTTM lines, 10**7 score lines, 2*10**6 bundle lines),
    checked on the bytes before any line is parsed. Shown here with the limit lowered to the
    demo files' size: the message names the file, the count and how to split it."""
    from llgui.cli.main import main
    from llgui.io import _read, detection, rttm

    if kind == "rttm":
        monkeypatch.setattr(rttm, "MAX_RTTM_LINES", 5)
        path = DEMO / "diarization" / "ref" / sorted(
            p.name for p in (DEMO / "diarization" / "ref").iterdir())[0]
        args, split = ["score", "--ref", path, "--hyp", path], "split it by recording"
    elif kind == "scores":
        monkeypatch.setattr(detection, "MAX_SCORE_LINES", 5)
        path = DEMO / "detection" / "scores" / "trials.key"   # read first, as a score file
        args, split = ["det", DEMO / "detection" / "scores" / "sysA.txt", "--key", path], \
            "split it by system or by enrolment"
    else:
        monkeypatch.setattr(_read, "MAX_BUNDLE_LINES", 5)
        path = DEMO / "mt" / "bundle.toml"
        args, split = ["score", path], "split its documents into several bundles"
    lines = path.read_bytes().count(b"\n")
    assert lines > 5
    assert main([str(a) for a in args]) == 2
    err = capsys.readouterr().err
    assert f"{path}: has {lines:,} lines: at most 5 are read ({split})" in err, err


def test_json_nested_too_deep_in_a_run_folder_is_damage_not_a_crash(tmp_path):
    """The readers of a run folder's JSON (run.json naming the run's system in the window,
    a live session's log and state) catch what json raises on 10**5 nested arrays
    (RecursionError, which is no ValueError), through the readers' guard."""
    from llgui.io.run_names import run_system
    from llgui.sim.live import read_log, read_state

    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "run.json").write_text(deep)
    assert run_system(tmp_path / "bundle.toml") is None
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "system.jsonl").write_text(deep + "\n")
    with pytest.raises(ValueError, match=r"system\.jsonl:1: not a log line \(too deeply "
                                         r"nested\)"):
        read_log(tmp_path)
    from llgui.sim.live import LIVE_FILE

    (tmp_path / LIVE_FILE).write_text(deep)
    with pytest.raises(ValueError, match=r"not a live-session file \(too deeply nested\)"):
        read_state(tmp_path)
