"""`llgui campaign` on separately started Dask processes, as an organiser runs them: a real
`dask scheduler` and real `dask worker`s (bound to 127.0.0.1 only), started in another working
directory than the campaign's and the driver's; faults made by real worker processes
(tests/campaign/worker_hooks.py, preloaded into the workers): a cell that ends its worker, a
worker stopped with SIGSTOP, a worker with another sacrebleu version; a TCP service that is not
a Dask scheduler. Each run ends within a bounded time; where cells finish, their figures are
the in-process run's, byte for byte.

These tests bind ports: they run in one xdist group, one after the other.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.campaign.helpers import build_wmt_campaign, wmt_segments
from tests.conftest import REPO

pytestmark = pytest.mark.xdist_group("dask-ports")

HOOKS = REPO / "tests" / "campaign" / "worker_hooks.py"
_DASK = Path(sys.executable).parent / "dask"   # the `dask` command of this environment
DASK = ([str(_DASK), "scheduler"] if _DASK.exists()
        else [sys.executable, "-m", "distributed.cli.dask_scheduler"])
WORKER = ([str(_DASK), "worker"] if _DASK.exists()
          else [sys.executable, "-m", "distributed.cli.dask_worker"])


def _env(**extra) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO), "LLGUI_PROGRESS_EVERY": "0.5", **extra}
    return {k: v for k, v in env.items() if v is not None}


def _end(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGCONT)
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


@contextlib.contextmanager
def dask_cluster(folder: Path, workers: int = 2, scheduler_env=None, worker_env=None):
    """A `dask scheduler` and `workers` `dask worker`s on 127.0.0.1, run from `folder` (not
    the campaign's); yields (address, scheduler file)."""
    folder.mkdir(parents=True, exist_ok=True)
    scheduler_file = folder / "scheduler.json"
    processes = []
    try:
        processes.append(subprocess.Popen(
            DASK + ["--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", str(scheduler_file)],
            cwd=folder, env=_env(**(scheduler_env or {})), start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        for _ in range(workers):
            processes.append(subprocess.Popen(
                WORKER + [address, "--host", "127.0.0.1", "--nthreads", "1", "--no-dashboard",
                          "--preload", str(HOOKS)],
                cwd=folder, env=_env(**(worker_env or {})), start_new_session=True,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait_for_workers(address, workers)
        yield address, scheduler_file
    finally:
        for process in processes:
            _end(process)


def _wait_for_workers(address: str, n: int) -> None:
    from dask.distributed import Client

    with Client(address, timeout="30s", set_as_default=False) as client:
        client.wait_for_workers(n, timeout=90)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """`cluster()`: the module's cluster, started by the first test that asks for it (in a
    folder of its own, not the campaign's) and shared with the later ones, each given it with
    both workers connected, in this order: the relative paths; the death Dask recovers from,
    then the cell that kills every worker it runs on (their nannies restart them); a worker
    stopped while its result is fetched (continued after); the stopped worker last: nothing
    recovers from SIGSTOP. Its scheduler gives a cell up at the second death of a worker
    running it (allowed-failures 1, Dask's default is 3): once is recovered from, twice is
    the named problem. A scheduler and two workers with their nannies cost ~5 s
    of CPU to start: one cluster, not one for each allowed-failures."""
    with contextlib.ExitStack() as stack:
        started: list[tuple[str, Path]] = []

        def get() -> tuple[str, Path]:
            if not started:
                started.append(stack.enter_context(
                    dask_cluster(tmp_path_factory.mktemp("shared"), scheduler_env=ONE_RETRY)))
            _wait_for_workers(started[0][0], 2)
            return started[0]

        yield get


ONE_RETRY = {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"}


def llgui(args, cwd: Path, timeout: float = 180, **env) -> tuple[subprocess.CompletedProcess,
                                                                    float]:
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "llgui", "campaign", *args], cwd=cwd,
                          env=_env(**env), capture_output=True, text=True, timeout=timeout)
    return done, time.monotonic() - began


def llgui_here(args, cwd: Path, **env) -> tuple[subprocess.CompletedProcess, float]:
    """`llgui()`, its entry point run in this process (from `cwd`, with `env` set): for runs
    where the driver's process is not what is checked (a second interpreter importing llgui
    and Dask cost ~1 s of CPU); the Dask processes stay real."""
    import io

    from llgui.cli.main import main

    printed, said = io.StringIO(), io.StringIO()
    began = time.monotonic()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        for name, value in {"LLGUI_PROGRESS_EVERY": "0.5", **env}.items():
            patch.setenv(name, value)
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(said):
            code = main(["campaign", *args])
    return (subprocess.CompletedProcess(["llgui", "campaign", *args], code, printed.getvalue(),
                                        said.getvalue()), time.monotonic() - began)


@pytest.fixture(scope="module")
def small(reference_data, tmp_path_factory):
    """Four batches of three short WMT23 de-en segments, four model versions (16 cells); the
    in-process report (run from the campaign's parent folder, the path given relative)."""
    root = tmp_path_factory.mktemp("cluster") / "organiser"
    root.mkdir()
    ref, _ = wmt_segments(reference_data)
    short = [i for i in sorted(range(len(ref)), key=lambda i: (len(ref[i].split()), i))
             if ref[i].strip()][:12]
    build_wmt_campaign(root / "campaign", reference_data, [sorted(short[k::4]) for k in range(4)],
                       metrics=("bleu", "chrf"))
    done, _ = llgui_here(["campaign/campaign.toml", "--workers", "0", "--format", "json"], root,
                         LLGUI_CACHE_DIR=str(root / "cache-in-process"))
    assert done.returncode == 0, done.stderr
    return root, json.loads(done.stdout)


def _with_faulty_system(root: Path, folder: str, batch: str = "b3") -> str:
    """The campaign plus a system whose only cell (M0 on `batch`) lies in `folder`; returns
    the new campaign's path, relative to `root`."""
    source = root / "campaign" / "alpha" / "M0" / f"{batch}.en"
    target = root / "campaign" / folder / "M0" / f"{batch}.en"
    target.parent.mkdir(parents=True, exist_ok=True)
    # content of its own: cells with the same content are one job (alpha's, here)
    target.write_bytes(source.read_bytes().upper())
    text = (root / "campaign" / "campaign.toml").read_text()
    text += (f'\n[[systems]]\nname = "{folder}"\nmodels = [{{id = "M0", time = "2023-01-01"}}]'
             f'\nhypotheses = "{folder}/{{model}}/{{batch}}.en"\n')
    (root / "campaign" / f"with-{folder}.toml").write_text(text)
    return f"campaign/with-{folder}.toml"


def _finished_cells_are_the_same(report: dict, reference: dict, stderr: str) -> None:
    """Every alpha and beta cell of `report` is the in-process run's, byte for byte; each
    one missing is a named problem (a fault may take a worker's other cells with it)."""
    for system, expected in zip(report["systems"], reference["systems"]):
        shown = {json.dumps(c, sort_keys=True) for c in system["cells"]}
        assert shown <= {json.dumps(c, sort_keys=True) for c in expected["cells"]}
        for cell in expected["cells"]:
            if json.dumps(cell, sort_keys=True) not in shown:
                assert f"{system['name']}/{cell['model']}/{cell['batch']}" in stderr
        if len(shown) == len(expected["cells"]):
            assert json.dumps(system, sort_keys=True) == json.dumps(expected, sort_keys=True)


def test_relative_path_from_another_folder_by_address_file_and_environment(small, tmp_path,
                                                                           cluster):
    root, reference = small
    address, scheduler_file = cluster()
    by_address, seconds = llgui_here(["campaign/campaign.toml", "--scheduler", address,
                                      "--format", "json"], root,
                                     LLGUI_CACHE_DIR=str(tmp_path / "c1"))
    assert by_address.returncode == 0, by_address.stderr
    assert json.loads(by_address.stdout) == reference
    assert "16 computed" in by_address.stderr
    assert "2 workers connected; no dashboard" in by_address.stderr
    by_file, _ = llgui_here(["campaign/campaign.toml", "--scheduler-file", str(scheduler_file),
                             "--format", "json"], root, LLGUI_CACHE_DIR=str(tmp_path / "c2"))
    assert by_file.returncode == 0, by_file.stderr
    assert by_file.stdout == by_address.stdout
    # a process of its own: Dask reads $DASK_SCHEDULER_ADDRESS when it is imported
    by_env, _ = llgui(["campaign/campaign.toml", "--format", "json"], root,
                      LLGUI_CACHE_DIR=str(tmp_path / "c3"), DASK_SCHEDULER_ADDRESS=address)
    assert by_env.returncode == 0, by_env.stderr
    assert f"the Dask cluster at {address} ($DASK_SCHEDULER_ADDRESS)" in by_env.stderr
    assert by_env.stdout == by_address.stdout


def test_a_worker_death_dask_recovers_from_is_reported(small, tmp_path, cluster):
    """Issue 32: a worker dies on a cell, Dask runs the cell again on the other worker and the
    run ends whole; the report and the terminal say a worker was lost."""
    root, reference = small
    campaign = _with_faulty_system(root, "crash-once")
    address, _ = cluster()   # allowed-failures 1: one death is recovered from
    done, seconds = llgui_here([campaign, "--scheduler", address, "--format", "json"], root,
                               LLGUI_CACHE_DIR=str(tmp_path / "cache"))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["partial"] is False and report["problems"] == []
    _finished_cells_are_the_same(report, reference, done.stderr)
    assert [c["batch"] for c in report["systems"][-1]["cells"]] == ["b3"]   # scored after all
    (note,) = report["notes"]
    assert note.startswith("the worker at tcp://127.0.0.1:") and "left the cluster" in note
    assert f"llgui campaign: note: {note}" in done.stderr


def test_a_cell_that_kills_its_worker_is_a_named_problem(small, tmp_path, cluster):
    root, reference = small
    campaign = _with_faulty_system(root, "crash")
    # allowed-failures 1: Dask gives the cell up at the second worker it kills (with the
    # default, 3, it is retried on three more workers first)
    address, _ = cluster()
    done, seconds = llgui_here([campaign, "--scheduler", address, "--format", "json"], root,
                               LLGUI_CACHE_DIR=str(tmp_path / "cache"))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert report["partial"] is True
    _finished_cells_are_the_same(report, reference, done.stderr)
    (problem,) = [line for line in done.stderr.splitlines() if "crash/M0/b3.en" in line]
    assert "cell crash/M0/b3: its worker process died while scoring it on the worker at " \
           "tcp://127.0.0.1:" in problem
    assert " not scored (problems below)" in done.stderr
    assert seconds < 120


FETCHING_AS_IT_CLOSES = """
import os, signal, sys, time
from distributed import as_completed
from llgui.campaign.executor import Executor, choose

executor = Executor(choose(1, scheduler=sys.argv[1])).__enter__()
client = executor._client
future = client.submit(os.getpid, pure=False)
while future.status != "finished":
    time.sleep(0.05)
(holder,) = client.who_has([future])[future.key]
pid = client.run(os.getpid, workers=[holder])[holder]
os.kill(pid, signal.SIGSTOP)
try:
    # fetched as Executor.run fetches each result: through the scheduler, which waits on
    # the stopped worker; the client closes (its comms aborted) with the fetch waiting
    queue = as_completed([future], loop=client.loop, with_results=True, raise_errors=False)
    time.sleep(0.5)
    executor.__exit__(None, None, None)
finally:
    os.kill(pid, signal.SIGCONT)
"""


def test_a_result_still_being_fetched_as_the_client_closes_prints_nothing(cluster):
    """A run's client closing while a result is still fetched from a stopped worker (a run
    that gave the worker up, or the stopped-worker test under load): the fetch's
    CommClosedError was printed on stderr as a traceback, "Exception in callback", by
    tornado.application, to which Dask's logging settings give ERROR and a stderr handler of
    its own. The organiser's stderr is the process's, so the client runs in one of its own."""
    address, _ = cluster()
    done = subprocess.run([sys.executable, "-c", FETCHING_AS_IT_CLOSES, address], env=_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_a_stopped_worker_is_given_up_after_the_cell_time_limit(small, tmp_path, cluster):
    root, reference = small
    campaign = _with_faulty_system(root, "stop")
    # the cell time limit gives the cell up, not Dask: its retries do not come into it
    address, _ = cluster()
    # 8 s: the other cells of its batch end first, and at least 2 s of the limit must be left
    # after them for the stall to be said (with 4 s, a loaded machine's cells ended 2.5 s
    # in, and the stop came before any line could say so)
    done, seconds = llgui([campaign, "--scheduler", address, "--format", "json",
                           "--cell-timeout", "8"], root,
                          LLGUI_CACHE_DIR=str(tmp_path / "cache"))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert report["partial"] is True
    _finished_cells_are_the_same(report, reference, done.stderr)
    stop = [line for line in done.stderr.splitlines() if "/stop/" in line]
    assert len(stop) == 1 and "cell stop/M0/b3: no result after 8 s on the worker at " \
                              "tcp://127.0.0.1:" in stop[0], done.stderr
    assert "the worker is hung, stopped or too slow" in stop[0]
    # while it hung, the progress said so rather than "a few seconds left"
    stalls = [line for line in done.stderr.splitlines()
              if line.startswith("llgui campaign: no cell finished for ")]
    assert any(" running, the longest for " in line or " queued on the workers, the longest"
               in line for line in stalls), done.stderr
    # two single-threaded workers run at most two cells (issue 32: it said "4 running")
    assert all(int(line.split("; ")[1].split()[0]) <= 2 for line in stalls), stalls
    assert seconds < 120


def test_a_worker_with_another_sacrebleu_scores_nothing_and_caches_nothing(small, tmp_path):
    root, _ = small
    cache = tmp_path / "cache"
    with dask_cluster(tmp_path / "elsewhere", workers=1,
                      worker_env={"LLGUI_TEST_FAKE_SACREBLEU": "0.0-fake"}) as (address, _):
        done, seconds = llgui_here(["campaign/campaign.toml", "--scheduler", address,
                                    "--format", "json"], root, LLGUI_CACHE_DIR=str(cache))
    assert done.returncode == 2, done.stderr
    problems = [line for line in done.stderr.splitlines() if "0.0-fake" in line]
    assert "16 cells: 0 from the cache, 0 computed, 16 not scored" in done.stderr
    assert "cell alpha/M0/b0 not scored: the worker on " in "\n".join(problems)
    assert "has sacrebleu 0.0-fake (the driver has " in problems[0]
    report = json.loads(done.stdout)
    assert report["partial"] is True and all(not s["cells"] for s in report["systems"])
    assert not list(cache.rglob("*.cell")), "a number signed with the driver's versions"
    assert seconds < 120


class _NotDask(threading.Thread):
    """A TCP service on 127.0.0.1 that is not a Dask scheduler: it answers every connection
    with `greeting` (an HTTP error, or nothing at all) and keeps it open."""

    def __init__(self, greeting: bytes):
        super().__init__(daemon=True)
        self.greeting = greeting
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self.held = []

    def run(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            if self.greeting:
                connection.sendall(self.greeting)
            self.held.append(connection)


@pytest.mark.parametrize("greeting", [b"HTTP/1.0 400 Bad Request\r\n\r\n", b""],
                         ids=["http", "silent"])
def test_a_service_that_is_not_a_scheduler_fails_within_the_deadline(small, tmp_path,
                                                                     greeting):
    root, _ = small
    service = _NotDask(greeting)
    service.start()
    try:
        address = f"tcp://127.0.0.1:{service.port}"
        done, seconds = llgui_here(["campaign/campaign.toml", "--scheduler", address,
                                    "--connect-timeout", "3"], root,
                                   LLGUI_CACHE_DIR=str(tmp_path / "cache"))
    finally:
        service.server.close()
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert (f"no Dask scheduler answered at {address}" in done.stderr
            and "dashboard's port (8787)" in done.stderr), done.stderr
    assert done.stdout == ""
    assert seconds < 30


def test_jobqueue_worker_command_run_here(small, tmp_path):
    """The docs' dask-jobqueue recipe: a SLURMCluster's scheduler, and its job script's
    worker command run on this machine, as a SLURM job would run it."""
    jobqueue = pytest.importorskip("dask_jobqueue")
    root, reference = small
    with jobqueue.SLURMCluster(cores=1, processes=1, memory="1GB", python=sys.executable,
                               scheduler_options={"host": "127.0.0.1",
                                                  "dashboard_address": None}) as cluster:
        command = cluster.job_script().strip().splitlines()[-1].split()
        assert command[1:3] == ["-m", "distributed.cli.dask_worker"], command
        (tmp_path / "node").mkdir()
        worker = subprocess.Popen(command + ["--host", "127.0.0.1"], cwd=tmp_path / "node",
                                  env=_env(), start_new_session=True,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_for_workers(cluster.scheduler_address, 1)
            done, _ = llgui_here(["campaign/campaign.toml", "--scheduler",
                                  cluster.scheduler_address, "--format", "json"], root,
                                 LLGUI_CACHE_DIR=str(tmp_path / "c"))
        finally:
            _end(worker)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == reference
