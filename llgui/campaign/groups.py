"""Cells sent to Dask workers in groups: a few cells of one batch per Dask task.

A 500-sentence MT cell takes about 30 ms to score; Dask spends a few milliseconds of the
driver's time on every task it schedules, sends, tracks and fetches (the scheduler runs in the
driver's process on a LocalCluster), and its own advice is tasks of 100 ms or more. On gate 7
(576 such cells, 2 workers on 2 cores) one task per cell cost the driver 6.8 ms a cell, taken
from the workers' cores: 5.5 s of the driver's CPU per run. In groups of up to 8 cells it
cost 1.4 ms a cell.

`plan_groups` cuts the cells (in the order they are sent: batch by batch) into groups of
consecutive cells of one batch, each group at most `GROUP_CELLS` cells and `GROUP_BYTES` of
hypothesis files, and at least `GROUPS_PER_WORKER` groups per worker thread so that the
workers stay evenly busy to the end. A cell larger than the byte limit goes alone.

A group is one Dask task (`run_group`); its cells are scored one after the other on the worker
and a cell that raises gives its own named problem, as a task of its own would. A group that
gives no result (its worker died or was stopped, it ran past the per-cell time limit, the
scheduler lost it) is split: the executor sends each of its cells again as a task of its own,
with the usual rules, so the cell at fault is the one named and the others are scored. A cell
that hangs every worker it runs on may thus hold two workers: its group's, then the one it is
sent to alone.
"""
from __future__ import annotations

from typing import Callable, Hashable, Sequence

GROUP_CELLS = 8
"""At most this many cells in a group (about 250 ms of work for 500-sentence cells)."""

GROUP_BYTES = 256 * 1024
"""At most this many bytes of hypothesis files in a group (a 500-sentence file is about 30 KB)."""

GROUPS_PER_WORKER = 4
"""At least this many groups per worker thread (fewer, larger groups leave a worker idle at the
end while another finishes a long group)."""


def plan_groups(keys: Sequence[Hashable], sizes: Sequence[int] | None,
                threads: int) -> list[list[int]]:
    """Groups of task indices: consecutive tasks with equal `keys` (a cell's batch), each group
    within GROUP_CELLS tasks, GROUP_BYTES of `sizes` (None: no byte limit) and
    len(keys) / (GROUPS_PER_WORKER x threads) tasks. Every index is in exactly one group, in
    order."""
    n = len(keys)
    most = max(1, min(GROUP_CELLS, n // max(1, GROUPS_PER_WORKER * max(1, threads))))
    groups: list[list[int]] = []
    held = 0
    for i, key in enumerate(keys):
        size = sizes[i] if sizes is not None else 0
        if (groups and len(groups[-1]) < most and keys[groups[-1][-1]] == key
                and held + size <= GROUP_BYTES):
            groups[-1].append(i)
            held += size
        else:
            groups.append([i])
            held = size
    return groups


def run_group(function: Callable[[dict], dict], tasks: Sequence[dict]) -> list[dict]:
    """`function(task)` of every task, in order, on a worker: a list of results. A task that
    raises gives its own problem (the worker named), as it would as a task of its own."""
    from llgui.campaign.executor import _describe, failed

    out = []
    for task in tasks:
        try:
            out.append(function(task))
        except Exception as error:
            out.append(failed(task, f"failed{_on_worker()}: {_describe(error)}"))
    return out


def _on_worker() -> str:
    try:
        from distributed import get_worker

        return f" on the worker at {get_worker().address}"
    except Exception:   # (not on a worker: a test calling it here)
        return ""
