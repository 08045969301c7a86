"""Local workers forked from llgui's worker server (llgui.campaign.worker_server): one warm,
single-threaded process per llgui process; each worker is a fork of it, with the llgui
process's environment of its cluster's start; a run starts the server at its first cell not
in the cache, and a run with every cell cached starts none; where there is no forkserver, the
workers are spawned as before."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from llgui.campaign import worker_server
from tests.conftest import REPO

needs_forkserver = pytest.mark.skipif(not worker_server.available(),
                                      reason="no forkserver on this system")

CAMPAIGN = textwrap.dedent('''
    import pathlib, sys
    root = pathlib.Path(sys.argv[1])
    (root / "ref").mkdir(parents=True, exist_ok=True)
    words = "the cat sat on a mat while it rained over the old town".split()
    lines = ['[campaign]', 'name = "forked"', 'task = "mt"', 'metrics = ["bleu", "chrf", "ter"]']
    for b in range(2):
        ref = [" ".join(words[(i + b) % 7:(i + b) % 7 + 6]) for i in range(4)]
        (root / "ref" / f"b{b}.txt").write_text("\\n".join(ref) + "\\n")
        lines += ['[[batches]]', f'id = "b{b}"', f'time = {b + 1}', f'references = "ref/b{b}.txt"']
        for s in ("x", "y"):
            for m in ("m0", "m1"):
                folder = root / s / m
                folder.mkdir(parents=True, exist_ok=True)
                hyp = [r.replace("cat", "dog") if (m == "m0") == (s == "x") else r for r in ref]
                (folder / f"b{b}.txt").write_text("\\n".join(hyp) + "\\n")
    for s in ("x", "y"):
        lines += ['[[systems]]', f'name = "{s}"',
                  'models = [{id = "m0", time = 0}, {id = "m1", time = 1}]',
                  f'hypotheses = "{s}/{{model}}/{{batch}}.txt"']
    (root / "campaign.toml").write_text("\\n".join(lines) + "\\n")
''')


def _python(code: str, *args, env: dict | None = None, timeout: float = 120
            ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


@needs_forkserver
def test_workers_are_forks_of_one_warm_single_threaded_server_with_the_drivers_environment():
    """A fresh process starts a 2-worker cluster for an MT campaign: both workers are
    children of one server, not of the llgui process; the server has one thread (a process
    is forked safely only so) and one BLAS thread for its children; it loaded numba's
    compiled kernels before forking (llvmlite's library mapped in it); each worker has the
    llgui process's environment of the cluster's start: a variable set after the server
    started is there, and the server's warm-up variable, not in the llgui process, is not."""
    script = textwrap.dedent('''
        import json, os, sys
        import psutil
        from llgui.campaign import worker_server
        from llgui.campaign.executor import Plan, _spawn_environ
        from llgui.campaign.local_workers import start_cluster
        from dask.distributed import Client

        if __name__ == "__main__":
            warm = ("mt", ["bleu", "chrf", "ter"], {})
            assert worker_server.prepare(warm, _spawn_environ()) == "forkserver"
            os.environ["LLGUI_SET_AFTER_THE_SERVER"] = "here"
            cluster = start_cluster(Plan("local", 2, None, "test"), warm, _spawn_environ())
            with Client(cluster) as client:
                seen = client.run(lambda: (os.getppid(), os.environ.get(
                    "LLGUI_SET_AFTER_THE_SERVER"), os.environ.get("LLGUI_WORKER_WARM"),
                    os.environ.get("OMP_NUM_THREADS")))
            cluster.close()
            parents = {p for p, *_ in seen.values()}
            server = psutil.Process(parents.pop()) if len(parents) == 1 else None
            maps = open(f"/proc/{server.pid}/maps").read() if server else ""
            print(json.dumps({
                "workers": [rest for _, *rest in seen.values()],
                "one_parent": server is not None, "me": os.getpid(),
                "parent": server.pid if server else None,
                "parent_is_server": bool(server) and "forkserver" in " ".join(server.cmdline()),
                "server_threads": server.num_threads() if server else None,
                "server_blas": server.environ().get("OPENBLAS_NUM_THREADS") if server else None,
                "server_llvm": "llvmlite" in maps}))
    ''')
    done = _python(script)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["one_parent"] and found["parent"] != found["me"]
    assert found["parent_is_server"]
    assert found["server_threads"] == 1
    assert found["server_blas"] == "1"
    assert found["server_llvm"]
    assert found["workers"] == [["here", None, "1"]] * 2


@needs_forkserver
def test_a_run_starts_the_server_at_its_first_uncached_cell_and_a_cached_rerun_starts_none(
        tmp_path):
    """In a fresh process each: the first run on one local worker starts the server before
    its cluster (the driver's look-ups and Dask's import then overlap its imports); the
    rerun, every cell in the cache, starts neither (its 2 % of the first run's time would
    not hold a server's start)."""
    built = _python(CAMPAIGN, tmp_path)
    assert built.returncode == 0, built.stderr
    script = textwrap.dedent('''
        import json, sys
        from llgui.campaign import local_workers, worker_server
        from llgui.campaign.cache import CellCache
        from llgui.campaign.run import run_campaign
        from llgui.io.campaign import load_campaign

        if __name__ == "__main__":
            order = []
            start = local_workers.start_cluster

            def recording(*args, **kwargs):
                order.append(("cluster", worker_server.started()))
                return start(*args, **kwargs)

            local_workers.start_cluster = recording
            run = run_campaign(load_campaign(sys.argv[1] + "/campaign.toml"), workers=1,
                               cache=CellCache(sys.argv[1] + "/cache"))
            print(json.dumps({"order": order, "started": worker_server.started(),
                              "computed": run.computed, "cached": run.cached,
                              "problems": run.report.get("problems", [])}))
    ''')
    first = _python(script, tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    first = json.loads(first.stdout.strip().splitlines()[-1])
    assert first["problems"] == [] and first["computed"] == 8
    assert first["order"] == [["cluster", True]]   # the server was up before the cluster
    again = _python(script, tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    again = json.loads(again.stdout.strip().splitlines()[-1])
    assert again["cached"] == 8 and again["computed"] == 0
    assert again["order"] == [] and again["started"] is False


def test_without_a_forkserver_the_workers_are_spawned_by_this_process(monkeypatch):
    """Windows has no forkserver: the workers are this process's children, as before."""
    from dask.distributed import Client

    from llgui.campaign.executor import Plan, _spawn_environ
    from llgui.campaign.local_workers import start_cluster

    monkeypatch.setattr(worker_server, "available", lambda: False)
    assert worker_server.prepare(None, {}) == "spawn"
    cluster = start_cluster(Plan("local", 1, None, "test"), None, _spawn_environ())
    try:
        with Client(cluster) as client:
            parents = set(client.run(os.getppid).values())
    finally:
        cluster.close()
    assert parents == {os.getpid()}


@pytest.mark.parametrize("warm", ["[not json", '["mt", ["no-such-metric"], {}]',
                                  '["mt", 5, {}]', '["speech", [], {}]', "x" * 100_001],
                         ids=["not-json", "unknown-metric", "not-a-list", "unknown-task",
                              "too-long"])
def test_the_servers_warm_up_never_fails_its_import(warm):
    """Whatever $LLGUI_WORKER_WARM holds, importing the preload module ends well and says
    nothing (the server goes on; its workers warm up themselves)."""
    done = _python("import llgui.campaign.worker_preload", env={"LLGUI_WORKER_WARM": warm})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_fetched_result_is_not_kept_on_the_workers():
    """Outsider helper-57: every result stayed in its worker's memory to the run's end (the
    executor held all the futures): 300 MB more a worker on 320 cells, and under
    --memory-limit the workers were stopped one after another. Once fetched, a result is
    forgotten by the cluster while the run goes on."""
    import time

    from llgui.campaign.executor import Executor, choose
    from llgui.campaign.groups import plan_groups

    # repr: a job that gives a large result (190 KB; 300,000 values took 70 s of a loaded run);
    # 48 cells in 4 groups of 12 on one worker
    tasks = [{"cell": k, "values": list(range(30_000))} for k in range(48)]
    groups, held = len(plan_groups([0] * 48, None, 1)), None
    assert groups >= 4
    with Executor(choose(len(tasks), workers=1)) as executor:
        client = executor._client
        for n, (index, result) in enumerate(executor.run(repr, tasks, group_by=[0] * 48)):
            assert result.startswith(f"{{'cell': {index}, ")
            if n == len(tasks) - 1:   # every group fetched: only the last batch may be held
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    held = client.run_on_scheduler(
                        lambda dask_scheduler: sum(1 for t in dask_scheduler.tasks.values()
                                                   if t.state == "memory"))
                    if held < groups:
                        break
                    time.sleep(0.1)
    assert held is not None and held < groups
