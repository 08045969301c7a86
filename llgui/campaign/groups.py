"""Cells sent to Dask workers in groups: a few cells of one batch per Dask task.

A 500-sentence MT cell takes about 20 ms to score; Dask spends a few milliseconds of the
driver's time on every task it schedules, sends, tracks and fetches (the scheduler runs in the
driver's process on a LocalCluster), and its own advice is tasks of 100 ms or more. On gate 7
(576 such cells, 2 workers on 2 cores) one task per cell cost the driver 6.8 ms a cell, taken
from the workers' cores: 5.5 s of the driver's CPU per run. In groups of up to 8 cells it
cost 1.4 ms a cell.

A worker prepares a batch's references once (sacrebleu's reference n-grams and TER's
tokenized references: 90 ms for 500 sentences, as much as four cells) and keeps them for the
batch's next cells (llgui.campaign.cells). Groups of 8 of a batch's 48 cells went to both
workers alike, and each prepared all 12 batches: half a second more on 2 workers than on
one. A group now holds a whole batch where the other limits allow (gate 7: 12 groups of 48
cells, 0.5-1 s each), so each batch is prepared on one worker.

`plan_groups` cuts the cells (in the order they are sent: batch by batch) into groups of
consecutive cells of one batch, each group at most `GROUP_CELLS` cells and `GROUP_BYTES` of
hypothesis files (less under a short per-cell time limit, `group_bytes`), and at least
`GROUPS_PER_WORKER` groups per worker thread so that the workers stay evenly busy to the end.
A cell larger than the byte limit goes alone. The per-cell time limit applies to a group as
a whole (its cells are not timed apart on the worker); `group_bytes` keeps a group's work
well under it.

A group is one Dask task (`llgui.campaign.executor.run_group`); its cells are scored one after
the other on the worker, and a cell that raises gives its own named problem, as a task of its
own would. A group that
gives no result (its worker died or was stopped, it ran past the per-cell time limit, the
scheduler lost it) is split: the executor sends each of its cells again as a task of its own,
with the usual rules, so the cell at fault is the one named and the others are scored. A cell
that hangs every worker it runs on may thus hold two workers: its group's, then the one it is
sent to alone.
"""
from __future__ import annotations

from typing import Hashable, Sequence

GROUP_CELLS = 64
"""At most this many cells in a group (about 1.3 s of work for 500-sentence cells)."""

GROUP_BYTES = 2 * 1024 * 1024
"""At most this many bytes of hypothesis files in a group (a 500-sentence file is about 30 KB,
a 5,000-sentence one 300 KB: 6 of them, some 2 s of work)."""

SLOW_BYTES_PER_S = 100_000
"""A slow rate of scoring hypothesis text (WMT23 de-en's paragraphs went at 130-400 KB/s on a
busy 2-core machine, gate 7's short sentences at 1 MB/s): a group holds at most what this
rate scores in a quarter of the per-cell time limit, so that a group runs past the limit only
where one of its cells alone would come near it (`--cell-timeout 1`: about one cell a group)."""

GROUPS_PER_WORKER = 4
"""At least this many groups per worker thread (fewer, larger groups leave a worker idle at the
end while another finishes a long group)."""


def group_bytes(cell_seconds: float) -> int:
    """The bytes of hypotheses a group may hold under a per-cell limit of `cell_seconds`."""
    return max(1, min(GROUP_BYTES, int(cell_seconds * SLOW_BYTES_PER_S / 4)))


def plan_groups(keys: Sequence[Hashable], sizes: Sequence[int] | None,
                threads: int, max_bytes: int = GROUP_BYTES) -> list[list[int]]:
    """Groups of task indices: consecutive tasks with equal `keys` (a cell's batch), each group
    within GROUP_CELLS tasks, `max_bytes` of `sizes` (None: no byte limit) and
    len(keys) / (GROUPS_PER_WORKER x threads) tasks. Every index is in exactly one group, in
    order."""
    n = len(keys)
    most = max(1, min(GROUP_CELLS, n // max(1, GROUPS_PER_WORKER * max(1, threads))))
    groups: list[list[int]] = []
    held = 0
    for i, key in enumerate(keys):
        size = sizes[i] if sizes is not None else 0
        if (groups and len(groups[-1]) < most and keys[groups[-1][-1]] == key
                and held + size <= max_bytes):
            groups[-1].append(i)
            held += size
        else:
            groups.append([i])
            held = size
    return groups
