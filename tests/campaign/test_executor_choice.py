"""The default executor is measured, not guessed: the first cells are timed in this process,
and worker processes are started only when predicted to finish the rest sooner here (free
cores, the start-up and efficiency a local cluster measured on this machine)."""
from __future__ import annotations

import json
import os
import re

from llgui.campaign.executor import Measurements, choose, scheduler_address, worth_workers
from llgui.campaign.run import run_campaign
from llgui.io.campaign import load_campaign
from llgui.io.campaign_export import to_json
from tests.campaign.helpers import build_wmt_campaign


def test_worth_workers_weighs_start_up_against_the_measured_cell_cost():
    known = Measurements(startup_s=2.0, efficiency=0.8, measured=True)
    # 0.5 s a cell, 100 left: 50 s here; 2 workers: 2 + 50 / 1.6 = 33 s
    n, why = worth_workers(0.5, 100, known, cores=2)
    assert n == 2 and "about 50.0 s in this process" in why and "33.2 s" in why
    # 10 ms a cell, 100 left: 1 s here; the start-up alone costs more
    n, why = worth_workers(0.01, 100, known, cores=2)
    assert n == 0 and "faster than 2 workers" in why
    # a loaded machine: one core free
    n, why = worth_workers(0.5, 100, known, cores=1)
    assert n == 0 and "1 core free" in why
    # with the load it was read from (outsider helper-59: "1 core free" at 0 % idle)
    load = re.search(r"1 core free \(load average ([0-9.]+) on (\d+) cores, this process one "
                     r"of them\)$", why)
    assert load is not None and int(load.group(2)) == os.cpu_count(), why
    # a poor measured efficiency keeps the work here
    n, _ = worth_workers(0.5, 100, Measurements(2.0, 0.5, True), cores=2)
    assert n == 0
    # 11 jobs for 20 cells not done yet (cells of the same content are scored once)
    _, why = worth_workers(0.028, 11, known, cores=2, cells_left=20, cells=48)
    assert why.startswith("28 ms a cell here, 20 of 48 cells left (11 to score, ")


def test_measurements_are_read_back_and_damage_means_the_priors(tmp_path):
    Measurements.load(tmp_path).save(3.0, 0.6)
    back = Measurements.load(tmp_path)
    assert (back.startup_s, back.efficiency, back.measured) == (3.0, 0.6, True)
    (tmp_path / "executor.json").write_text(json.dumps({"startup_s": "nan",
                                                        "efficiency": 0.6}))
    assert not Measurements.load(tmp_path).measured


def test_the_default_times_the_first_cells_and_says_why(reference_data, tmp_path):
    path = build_wmt_campaign(tmp_path, reference_data, [list(range(0, 20)),
                                                         list(range(20, 40))])
    said, done = [], []
    run = run_campaign(load_campaign(path), use_cache=False, announce=said.append,
                       progress=lambda d, total: done.append((d, total, len(said))))
    assert run.plan.kind in ("in-process", "local")
    assert " ms a cell here, " in said[0]
    # the cells left it names are the campaign's cells not yet done when it chose (issue:
    # "11 left" had counted only what was still to score, next to a stale "1/48 cells")
    before = [(d, total) for d, total, n_said in done if n_said == 0]
    left, of = map(int, re.search(r"(\d+) of (\d+) cells left", said[0]).groups())
    assert of == before[-1][1] == len(load_campaign(path).cells)
    assert left == of - before[-1][0]
    # "running" while cells are left to run; "scored" when timing the first ones did them all
    # (an outsider read "running in this process (... 0 of 72 cells left)" after 72/72)
    assert said[0].startswith("running " if left else "scored in this process (")
    reference = run_campaign(load_campaign(path), workers=0, use_cache=False)
    assert to_json(run.report) == to_json(reference.report)


def test_a_campaign_scored_while_being_timed_says_so(reference_data, tmp_path):
    # 8 cells of one sentence: a few ms each, all scored within the second the default
    # times cells for; it said "running in this process (... 0 of 8 cells left)" after 8/8
    path = build_wmt_campaign(tmp_path, reference_data, [[0], [1]])
    said, done = [], []
    run = run_campaign(load_campaign(path), use_cache=False, announce=said.append,
                       progress=lambda d, total: done.append((d, total, len(said))))
    assert run.plan.kind == "in-process" and len(said) == 1
    assert [(d, total) for d, total, n_said in done if n_said == 0][-1] == (8, 8)
    assert said[0].startswith("scored in this process (") and " ms a cell here, 0 of 8 " \
        "cells left: every cell was scored while the first ones were timed" in said[0]


def test_scheduler_address_options_then_dask_config(tmp_path, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    assert scheduler_address() == (None, "")
    assert scheduler_address("tcp://a:1") == ("tcp://a:1", "--scheduler")
    file = tmp_path / "scheduler.json"
    file.write_text(json.dumps({"type": "Scheduler", "address": "tcp://b:2"}))
    assert scheduler_address(None, str(file)) == ("tcp://b:2", f"--scheduler-file {file}")
    import dask

    with dask.config.set({"scheduler-address": "tcp://c:3"}):
        assert scheduler_address() == ("tcp://c:3", "Dask's scheduler-address setting")
    assert choose(10, None, "tcp://c:3", "x").kind == "scheduler"
    assert choose(10).kind == "auto" and choose(10, 0).kind == "in-process"


def test_a_file_that_is_not_a_scheduler_file_is_exit_2(tmp_path):
    from tests.conftest import llgui_in_process

    (tmp_path / "s.json").write_text("not json")
    path = tmp_path / "c.toml"
    path.write_text('[campaign]\ntask = "mt"\n')
    # the command's entry point in this process: its exit and message are checked, not its
    # interpreter (a second one cost ~0.5 s of CPU of imports)
    done = llgui_in_process(["campaign", str(path), "--scheduler-file",
                             str(tmp_path / "s.json")])
    assert done.returncode == 2
    assert f"--scheduler-file {tmp_path / 's.json'}: not a Dask scheduler file" in done.stderr


def test_a_cell_that_raises_in_this_process_is_a_named_problem(reference_data, tmp_path,
                                                               monkeypatch):
    from llgui.campaign import cells

    path = build_wmt_campaign(tmp_path, reference_data, [list(range(0, 10))])
    real = cells.score_mt_cell

    def score(task):
        if "beta/M1" in task["hypothesis"]:
            raise MemoryError("no room")
        return real(task)

    monkeypatch.setattr(cells, "score_mt_cell", score)
    run = run_campaign(load_campaign(path), workers=0, use_cache=False)
    (problem,) = run.scores.problems
    assert problem.reason == "cell beta/M1/b0: failed in this process: MemoryError: no room"
    assert run.partial and run.failed == 1 and run.computed == 3


def test_a_cell_is_lost_only_when_two_answers_of_the_scheduler_in_a_row_say_so():
    """`Executor._lost`: a key the scheduler does not know yet (its submission still on the
    way, as with 576 cells sent at once on a busy machine: 461 of gate 7's cells once failed
    "its error could not be read back" that way) is not lost at the first answer; a key
    erred or unknown in two answers running is; one running or done is never."""
    from llgui.campaign.executor import LOST_CHECK, Executor, Plan

    class Future:
        def __init__(self, done=False):
            self._done = done

        def done(self):
            return self._done

    answers = []

    class Client:
        def run_on_scheduler(self, function, keys):
            return {k: v for k, v in answers.pop(0).items() if k in keys}

    executor = Executor(Plan("local", 2, None, "test"))
    executor._client = Client()
    left = {"a": Future(), "b": Future(), "c": Future(), "d": Future(done=True)}
    now = 1000.0
    # a and b unknown (not yet registered), c erred, d unknown but done
    answers.append({"c": "erred"})
    assert executor._lost(left, [], {}, now) == []
    # too soon for another question: nothing asked
    assert executor._lost(left, [], {}, now + LOST_CHECK / 2) == []
    # now a is known and waiting, b still unknown, c still erred
    answers.append({"a": "processing", "c": "erred"})
    assert executor._lost(left, [], {}, now + LOST_CHECK) == ["b", "c"]
    # a running is not asked about; a key that comes back is no longer a suspect
    answers.append({"b": "memory"})
    assert executor._lost({"a": left["a"], "b": left["b"]}, ["a"], {}, now + 2 * LOST_CHECK) \
        == []
    answers.append({"b": "forgotten"})
    assert executor._lost({"b": left["b"]}, [], {}, now + 3 * LOST_CHECK) == []
    assert not answers
