"""Cells sent to workers in groups (llgui.campaign.groups): how the groups are cut, a group's
cells each keep their own result and problem, a group whose worker dies is split so that the
cell at fault is named alone and the others are scored (on a real LocalCluster), and a
closed worker ends without the interpreter's teardown but with its exit code."""
from __future__ import annotations

import multiprocessing
import os
import sys

import numpy as np
import pytest

from hypothesis import given, settings, strategies as st

from llgui.campaign.executor import Executor, Plan, run_group
from llgui.campaign.groups import GROUP_BYTES, GROUP_CELLS, GROUPS_PER_WORKER, plan_groups


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(0, 3), max_size=120).map(sorted),
       sizes=st.lists(st.integers(0, 200_000), min_size=120, max_size=120),
       threads=st.integers(1, 8))
def test_groups_are_runs_of_one_key_within_every_limit(keys, sizes, threads):
    sizes = sizes[:len(keys)]
    groups = plan_groups(keys, sizes, threads)
    assert [i for g in groups for i in g] == list(range(len(keys)))   # each once, in order
    most = max(1, min(GROUP_CELLS, len(keys) // (GROUPS_PER_WORKER * threads)))
    for group in groups:
        assert len({keys[i] for i in group}) == 1
        assert len(group) <= most
        assert len(group) == 1 or sum(sizes[i] for i in group) <= GROUP_BYTES
    # a group is closed only by a limit or another key (the groups are as large as allowed)
    for group, after in zip(groups, groups[1:]):
        nxt = after[0]
        assert (keys[nxt] != keys[group[-1]] or len(group) == most
                or sum(sizes[i] for i in group) + sizes[nxt] > GROUP_BYTES)


def test_gate_7s_campaign_goes_a_batch_a_group():
    """576 cells of 30 KB, 48 per batch, two workers: a batch a group, so that each batch's
    references are prepared on one worker (groups of 8 sent every batch to both); files ten
    times as large fill a group with their bytes (2 MB: 6 of 300 KB)."""
    keys = [b for b in range(12) for _ in range(48)]
    groups = plan_groups(keys, [30_000] * len(keys), 2)
    assert len(groups) == 12 and [sorted({keys[i] for i in g}) for g in groups] == [
        [b] for b in range(12)]
    assert {len(g) for g in plan_groups(keys, [300_000] * len(keys), 2)} == {6}
    # few cells for the workers: smaller groups, every worker busy to the end
    assert {len(g) for g in plan_groups([0] * 17, [30_000] * 17, 2)} == {2, 1}


def _score(task: dict) -> dict:
    """A cell job for these tests: its task's value, or a fault of its kind."""
    if task.get("fault") == "raise":
        raise ValueError("no such line")
    if task.get("fault") == "die":
        os._exit(13)
    try:
        from distributed import get_worker

        key = get_worker().get_current_task()
    except Exception:
        key = None
    return {"stats": {"value": task["value"]}, "key": str(key), "problems": []}


def test_a_raising_cell_of_a_group_is_its_own_problem_and_the_others_are_scored():
    tasks = [{"value": 1, "label": "a/M0/b0"}, {"value": 2, "label": "a/M1/b0", "fault": "raise",
                                                 "hypothesis": "a/M1/b0.txt"},
             {"value": 3, "label": "a/M2/b0"}]
    out = run_group(_score, tasks)
    assert [r["stats"].get("value") for r in out] == [1, None, 3]
    assert out[1]["problems"] == [["a/M1/b0.txt", 0,
                                   "cell a/M1/b0: failed: ValueError: no such line"]]
    assert out[0]["problems"] == out[2]["problems"] == []


def test_on_a_cluster_groups_are_one_task_and_a_dying_cell_is_named_alone():
    """16 cells of one batch on two workers go in groups of two (one Dask task each). A cell
    that ends its worker process takes its group down; the group is split, the cell at fault
    is the one problem and its group's other cell is scored as well as every other."""
    tasks = [{"value": i, "label": f"s/M{i}/b0", "hypothesis": f"s/M{i}/b0.txt"}
             for i in range(16)]
    plain = [dict(t) for t in tasks]
    tasks[5]["fault"] = "die"
    groups = plan_groups([0] * 16, None, 2)
    assert len(groups) == 8 and [5 in g for g in groups].count(True) == 1
    plan = Plan("local", 2, None, "two workers")
    with Executor(plan) as executor:
        clean = dict(executor.run(_score, plain, group_by=[0] * 16))
        faulty = dict(executor.run(_score, tasks, group_by=[0] * 16))
    # without a fault: the members of a group ran in one Dask task, each group in its own
    assert sorted(clean) == list(range(16))
    for group in groups:
        assert len({clean[i]["key"] for i in group}) == 1
    assert len({r["key"] for r in clean.values()}) == len(groups)
    # with one: it alone is the problem, named as the cell that killed its worker
    assert sorted(faulty) == list(range(16))
    for i, result in faulty.items():
        if i == 5:
            (problem,) = result["problems"]
            assert problem[0] == "s/M5/b0.txt"
            assert problem[2].startswith("cell s/M5/b0: its worker process died while "
                                         "scoring it")
        else:
            assert result["problems"] == [] and result["stats"] == {"value": i}
    partner = next(g for g in groups if 5 in g)
    other = next(i for i in partner if i != 5)
    # the partner was sent again alone (another group the deaths took down, as Dask may
    # count a task just given to a dying worker, is split and scored alike: checked above)
    assert [i for i in faulty if faulty[i].get("key") == faulty[other]["key"]] == [other]


def _end_after_teardown(folder: str) -> None:
    import atexit

    from llgui.campaign.local_workers import ExitWithoutTeardown

    atexit.register(lambda: open(os.path.join(folder, "teardown-ran"), "w").close())
    ExitWithoutTeardown().teardown(None)
    sys.stdout.write("flushed before the end\n")   # (not flushed by the child itself)
    sys.exit(3)


def test_a_closed_worker_ends_without_teardown_and_keeps_its_exit_code(tmp_path, capfd):
    """As a spawned worker process ends (`sys.exit(code)`): its output is flushed, its exit
    code kept, and the interpreter's teardown (atexit handlers among it) skipped."""
    context = multiprocessing.get_context("spawn")
    child = context.Process(target=_end_after_teardown, args=(str(tmp_path),))
    child.start()
    child.join(60)
    assert child.exitcode == 3
    assert not (tmp_path / "teardown-ran").exists()
    assert "flushed before the end" in capfd.readouterr().out


def test_a_short_cell_time_limit_makes_small_groups():
    """Outsider helper-49: with --cell-timeout 1, groups of 8 cells of 0.1-0.3 s ran past the
    limit on their own; a group holds what a slow rate scores in a quarter of the limit."""
    from llgui.campaign.groups import SLOW_BYTES_PER_S, group_bytes

    assert group_bytes(600.0) == GROUP_BYTES
    assert group_bytes(1.0) == SLOW_BYTES_PER_S // 4 < 30_000
    keys = [0] * 48
    assert {len(g) for g in plan_groups(keys, [30_000] * 48, 2, group_bytes(1.0))} == {1}
    assert {len(g) for g in plan_groups(keys, [30_000] * 48, 2, group_bytes(4.0))} == {3}


def _slow(task: dict) -> dict:
    import time

    time.sleep(0.3)
    return {"stats": {}, "problems": []}


def _interrupt_ignored() -> bool:
    import signal

    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def _loaded(names) -> dict:
    return {name: name in sys.modules for name in names}


def test_local_workers_warm_up_and_take_a_task_only_when_free():
    """Outsider helper-49: the first cells of fresh workers paid the workers' imports and
    numba's compiler against the per-cell limit, and the first four groups, submitted one
    at a time, went to the workers at once (one waiting behind each running one, which a
    stopped worker took with it). The workers now warm up as they start, and every group
    waits on the scheduler until a worker is free."""
    with Executor(Plan("local", 2, None, "two workers"),
                  warm=("mt", ["bleu", "chrf", "ter"], {})) as executor:
        client = executor._client
        loaded = client.run(_loaded, ["sacrebleu", "numba", "llgui.core.mt.ter_fast"])
        assert len(loaded) == 2 and all(all(v.values()) for v in loaded.values()), loaded
        # Ctrl-C is the llgui process's to handle: no worker prints a traceback for it
        assert set(client.run(_interrupt_ignored).values()) == {True}
        import threading

        most, done = [0], threading.Event()

        def watch():   # the most tasks a worker held at once, from the first submission
            while not done.wait(0.02):
                held = client.processing().values()
                most[0] = max([most[0], *(len(keys) for keys in held)])

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            assert len(list(executor.run(_slow, [{"value": i} for i in range(16)],
                                         group_by=[0] * 16))) == 16
        finally:
            done.set()
            watcher.join()
        assert most[0] == 1
    # (the yardstick: a spawned worker, not one forked from this process's worker server,
    # which another run may have warmed up)
    from llgui.campaign import worker_server

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(worker_server, "available", lambda: False)
        with Executor(Plan("local", 1, None, "one cold worker")) as executor:
            (cold,) = executor._client.run(_loaded, ["sacrebleu", "numba"]).values()
            assert not any(cold.values())
            assert set(executor._client.run(_interrupt_ignored).values()) == {True}


def test_statistics_travel_as_small_integers_and_come_back_exact(tmp_path):
    """A cell's counts go to the driver in the smallest integer type holding them (a quarter
    of float64's bytes for gate 7's cells); what is not a count stays float64, and read back
    as float64 every value is the one the cell job computed."""
    from llgui.campaign.executor import compact

    counts = np.array([[0.0, 3.0, 250.0], [17.0, 1.0, 9.0]])
    result = {"stats": {"bleu": counts, "big": counts * 100, "huge": counts * 1e5,
                        "past": counts * 1e7,
                        "ter": counts + 0.5, "gap": np.array([[1.0, np.nan]]),
                        "negative": -counts, "empty": np.zeros((0, 3))},
              "problems": []}
    sent = compact(result)["stats"]
    assert {name: a.dtype for name, a in sent.items()} == {
        "bleu": np.uint8, "big": np.uint16, "huge": np.int32, "past": np.float64, "ter": np.float64,
        "gap": np.float64, "negative": np.float64, "empty": np.float64}
    for name, array in result["stats"].items():
        np.testing.assert_array_equal(sent[name].astype(np.float64), array)
    assert compact({"stats": {}, "problems": [["f", 1, "bad"]]})["problems"] == [["f", 1, "bad"]]
