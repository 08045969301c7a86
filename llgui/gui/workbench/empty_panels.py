"""Panels with nothing to show give their room to the document (gui2).

A document without steps (no interaction log: the system's first hypothesis only) has an
empty steps table but one row and a cost model that prices nothing; at 1366x768 the two took
half the workbench while a 21-speaker timeline got the other half. For such a document the
cost model is folded away and the left column narrows to `NARROW_LEFT` px, so the timeline
(or the MT table) gets the room; a document with steps brings them back as they were."""
from __future__ import annotations

NARROW_LEFT = 330
"""Width of the steps column for a document without steps (the step, kind and scores)."""
WIDE_LEFT = 520
"""Its least width otherwise (as the workbench sets it)."""


def fit_empty_panels(bench, steps: int) -> None:
    """Fold the cost model and narrow the steps column of `bench` (the workbench tab) when
    its document has no `steps`; restore both when it has."""
    has_steps = steps > 0
    bench.cost_editor.setVisible(has_steps)
    left = bench.splitter.widget(0)
    was_narrow = left.minimumWidth() < WIDE_LEFT
    if has_steps == (not was_narrow):
        return
    left.setMinimumWidth(WIDE_LEFT if has_steps else NARROW_LEFT)
    sizes = bench.splitter.sizes()
    total = sum(sizes)
    if total > 0:
        first = max(WIDE_LEFT, sizes[0]) if has_steps else NARROW_LEFT
        bench.splitter.setSizes([first, max(total - first, 0)])
    if not has_steps:   # the room freed lets the Documents panel show its gain column whole
        fit = getattr(bench.window(), "_fit_documents_dock", None)
        if fit is not None:
            fit()
