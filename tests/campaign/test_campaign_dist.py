"""Campaign runs: the same bytes whatever runs the cells (in-process, a LocalCluster of two
worker processes through --scheduler, --workers 1); the cell cache (a rerun computes nothing,
a changed hypothesis recomputes its cell, a damaged entry is recomputed); a run killed with
SIGKILL at several moments restarts with only the missing cells and ends byte-identical."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from llgui.campaign.cache import CellCache
from llgui.campaign.run import run_campaign
from llgui.io.campaign import load_campaign
from llgui.io.campaign_export import to_json
from tests.conftest import REPO
from tests.campaign.helpers import build_wmt_campaign, wmt_segments


@pytest.fixture(scope="module")
def small(reference_data, tmp_path_factory):
    """Six batches of three short segments, four model versions, BLEU, chrF and TER."""
    root = tmp_path_factory.mktemp("small")
    ref, _ = wmt_segments(reference_data)
    short = sorted(range(len(ref)), key=lambda i: (len(ref[i].split()), i))
    short = [i for i in short if ref[i].strip()][:18]
    path = build_wmt_campaign(root, reference_data, [sorted(short[k::6]) for k in range(6)],
                              metrics=("bleu", "chrf", "ter"))
    campaign = load_campaign(path)
    reference = to_json(run_campaign(campaign, workers=0, use_cache=False).report)
    return path, campaign, reference


@pytest.fixture(scope="module")
def cluster():
    """One LocalCluster of two single-threaded worker processes for the module."""
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as local:
        yield local.scheduler_address


def test_same_bytes_in_process_on_two_workers_and_on_one(small, cluster):
    _, campaign, reference = small
    announced = []
    on_cluster = run_campaign(campaign, scheduler=cluster, use_cache=False,
                              announce=announced.append)
    assert on_cluster.plan.kind == "scheduler" and cluster in announced[0]
    assert to_json(on_cluster.report) == reference
    one = run_campaign(campaign, workers=1, use_cache=False)
    assert one.plan.kind == "local" and one.plan.workers == 1
    assert to_json(one.report) == reference
    assert len(campaign.cells) == 24 and on_cluster.computed == 24


def test_cache_reruns_nothing_and_recomputes_a_changed_hypothesis(small, tmp_path):
    path, campaign, reference = small
    cache = CellCache(tmp_path)
    first = run_campaign(campaign, workers=0, cache=cache)
    assert (first.computed, first.cached) == (24, 0)
    again = run_campaign(load_campaign(path), workers=0, cache=CellCache(tmp_path))
    assert (again.computed, again.cached, again.plan) == (0, 24, None)
    assert to_json(again.report) == reference
    hyp = path.parent / "beta" / "M1" / "b3.en"
    original = hyp.read_bytes()
    try:
        hyp.write_bytes(original.replace(b" ", b"  ", 1).replace(b"e", b"a", 3))
        changed = run_campaign(load_campaign(path), workers=0, cache=CellCache(tmp_path))
        assert (changed.computed, changed.cached) == (1, 23)
        assert to_json(changed.report) != reference
    finally:
        hyp.write_bytes(original)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "another entry"])
def test_a_damaged_cache_entry_is_recomputed(small, tmp_path, damage):
    _, campaign, reference = small
    run_campaign(campaign, workers=0, cache=CellCache(tmp_path))
    entries = sorted(tmp_path.rglob("*.cell"))
    assert len(entries) == 22  # two systems give identical outputs on two short batches
    victim = entries[5]
    if damage == "garbage":
        victim.write_bytes(b"not a cache entry at all")
    elif damage == "truncated":
        victim.write_bytes(victim.read_bytes()[:-40])
    else:  # a well-formed entry under the wrong name: its key does not match
        victim.write_bytes(entries[6].read_bytes())
    cache = CellCache(tmp_path)
    rerun = run_campaign(campaign, workers=0, cache=cache)
    assert rerun.corrupt == 1 and rerun.computed in (1, 2)  # 2: an entry two cells share
    (named,) = rerun.damaged   # its path and the cell that read it
    assert named.startswith(f"{victim} (cell ") and named.endswith(")")
    assert to_json(rerun.report) == reference
    assert len(list(tmp_path.rglob("*.cell"))) == 22


def test_rows_read_from_the_cache_are_checked_and_give_the_same_report(small, tmp_path):
    """A cached rerun takes each cell's sums from its entry's header and reads the rows only
    when something needs them: here the persistence figures, their own entry removed. A value
    flipped in one entry's rows is then found, that cell computed again, and the report is
    the uncached run's byte for byte."""
    _, campaign, reference = small
    run_campaign(campaign, workers=0, cache=CellCache(tmp_path))
    for entry in tmp_path.rglob("*.json"):   # the persistence figures: computed again
        entry.unlink()
    victim = sorted(tmp_path.rglob("*.cell"))[3]
    data = victim.read_bytes()
    victim.write_bytes(data[:-3] + bytes([data[-3] ^ 1]) + data[-2:])
    rerun = run_campaign(campaign, workers=0, cache=CellCache(tmp_path))
    # computed again when its rows were read (2: an entry two cells share), and said so
    assert rerun.computed in (1, 2) and rerun.cached == len(campaign.cells) - rerun.computed
    assert rerun.corrupt == 1 and rerun.damaged[0].startswith(f"{victim} (cell ")
    assert to_json(rerun.report) == reference
    assert CellCache(tmp_path).get(victim.stem) is not None   # written whole again



def _counts(stderr: str) -> tuple[int, int]:
    found = re.search(r"(\d+) from the cache, (\d+) computed", stderr)
    assert found, stderr
    return int(found.group(1)), int(found.group(2))


def test_killed_runs_restart_with_only_the_missing_cells(reference_data, tmp_path):
    root = tmp_path / "campaign"
    batches = [list(range(k, k + 12)) for k in range(0, 144, 12)]  # 12 batches, 48 cells
    path = build_wmt_campaign(root, reference_data, batches)
    uninterrupted = to_json(run_campaign(load_campaign(path), workers=0,
                                         use_cache=False).report)
    cache = tmp_path / "cache"
    env = {**os.environ, "LLGUI_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "llgui", "campaign", str(path), "--workers", "0",
               "--format", "json"]

    def entries() -> int:
        return len(list(cache.rglob("*.cell")))

    for kill_after in (0, 5, 20):  # before any cell, early, past the middle
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while entries() < kill_after and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        assert process.returncode == -signal.SIGKILL
    before = entries()
    assert 20 <= before < 48
    # the restart: `llgui campaign`'s entry point in this process (what is checked is which
    # cells it computes and what it prints; a second interpreter cost ~0.7 s of CPU)
    import contextlib
    import io

    from llgui.cli.main import main

    printed, said = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LLGUI_CACHE_DIR", str(cache))
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(said):
            code = main(command[3:])
    assert code == 0, said.getvalue()
    assert _counts(said.getvalue()) == (before, 48 - before)
    assert printed.getvalue() == uninterrupted
    assert entries() == 48


def test_only_llgui_campaign_imports_dask():
    """Dask stays in llgui/campaign: no other module names it in an import."""
    pattern = re.compile(r"^\s*(from|import)\s+(dask|distributed)\b", re.MULTILINE)
    offenders = [str(p.relative_to(REPO)) for p in (REPO / "llgui").rglob("*.py")
                 if pattern.search(p.read_text(encoding="utf-8"))
                 and "campaign" not in p.relative_to(REPO / "llgui").parts[:1]]
    assert offenders == []
    assert pattern.search((REPO / "llgui" / "campaign" / "executor.py").read_text())


def test_a_local_clusters_workers_keep_glibcs_own_trim_threshold_and_no_dashboard_chores(
        monkeypatch):
    """Dask starts its workers with MALLOC_TRIM_THRESHOLD_=65536, which halved the speed of
    a cell's many small arrays on a worker (gate 7): llgui's LocalCluster leaves it unset,
    and keeps Dask's other variables (one BLAS thread a worker)."""
    from llgui.campaign.executor import Executor, choose

    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    plan = choose(4, workers=1, memory_limit="4GB")
    assert plan.kind == "local"
    with Executor(plan) as executor:
        seen = executor._client.run(lambda: (os.environ.get("MALLOC_TRIM_THRESHOLD_"),
                                             os.environ.get("OMP_NUM_THREADS")))
        housekeeping = executor._client.run(_housekeeping)
        # a worker its nanny starts again (stopped past its memory limit) has the same
        # (outsider helper-53: Dask's defaults came back with it)
        executor._client.restart(timeout=60)
        again = executor._client.run(lambda: (os.environ.get("MALLOC_TRIM_THRESHOLD_"),
                                              os.environ.get("OMP_NUM_THREADS")))
        housekeeping_again = executor._client.run(_housekeeping)
    assert list(seen.values()) == [(None, "1")] == list(again.values())
    # and without Dask's dashboard chores (local_workers.QUIET_CLUSTER): no stack sampler
    # every 10 ms, the event loop checked every 0.5 s (Dask's 20 ms), psutil every 2 s; never
    # paused for memory (local_workers.NO_PAUSE: a paused cell worker stayed paused)
    assert list(housekeeping.values()) == [(False, 0.5, 2.0, False)] == list(
        housekeeping_again.values())


def test_a_memory_limit_below_what_a_worker_holds_is_refused_at_once():
    """Outsider helper-53: `--memory-limit 64MB` for workers of ~200 MB had Dask stop each
    one as it started, and the run waited ten minutes for a worker."""
    from llgui.campaign.executor import Executor, WorkersTooSmall, choose

    executor = Executor(choose(4, workers=1, memory_limit="64MB"),
                        warm=("mt", ["bleu"], {}))
    with pytest.raises(WorkersTooSmall, match=r"--memory-limit 64MB: a worker process holds "
                                              r"\d+ MiB before its first cell .*Give at least "
                                              r"\d+MiB"):
        executor.__enter__()
    assert executor._client is None and executor._cluster is None   # closed


def _housekeeping(dask_worker) -> tuple:
    monitor = dask_worker.periodic_callbacks.get("monitor")
    return ("profile" in dask_worker.periodic_callbacks, dask_worker._tick_interval,
            monitor.callback_time / 1000 if monitor is not None else None,
            dask_worker.memory_manager.memory_pause_fraction)


def test_a_run_with_unscored_cells_leaves_no_persistence_for_the_complete_rerun(
        small, tmp_path, monkeypatch):
    """Outsider helper-49: a run whose cells partly failed (a timeout, a stopped worker)
    cached its persistence figures (NFR over the units it had) under the key of the inputs'
    content alone; every complete rerun then read them back, exit 0 and not partial, with
    alpha's NFR 32.71 for 31.69. The figures of the complete rerun are now the clean run's."""
    import json

    from llgui.campaign import cells as jobs

    _, campaign, reference = small
    scored = jobs.score_mt_cell
    victim = campaign.cells[5].hypothesis   # a cell of a version with a later one

    def failing(task):
        if task["hypothesis"] == victim:
            raise TimeoutError("as if its worker had been given up")
        return scored(task)

    cache = CellCache(tmp_path / "cache")
    monkeypatch.setattr(jobs, "score_mt_cell", failing)
    partial = run_campaign(load_campaign(campaign.path), workers=0, cache=cache)
    assert partial.failed == 1 and partial.report["partial"] is True
    monkeypatch.setattr(jobs, "score_mt_cell", scored)
    again = run_campaign(load_campaign(campaign.path), workers=0, cache=CellCache(cache.root))
    assert again.computed == 1 and again.report["partial"] is False
    clean = json.loads(reference)
    shown = json.loads(to_json(again.report))
    assert [s["persistence"] for s in shown["systems"]] == \
        [s["persistence"] for s in clean["systems"]]
    assert to_json(again.report) == reference
