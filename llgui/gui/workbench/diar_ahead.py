"""The next step's timeline made ahead, while the user reads this one (issue 36).

Once a step is on screen, and the next step's view is built (a long show's on a worker),
`schedule` has each timeline (the overview and the split view's panels) make what the next
step will ask of it and can be made without touching a plot item: the lanes' bar arrays
(`DiarView._lane_arrays`), their parts at their rows, their level of detail for the range and
size shown (`diar_bars.lane_in_view`), the error lane's parts, and the turn labels each lane
would show (`DiarView._lane_labels_of`). A step then finds them in the caches it reads
anyway; a step the user takes elsewhere (back, a jump) finds nothing and makes its own.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer

from llgui.core.display.lanes import BAR_FILL, error_parts, lane_parts
from llgui.gui.widgets.after_paint import LATER_MS
from llgui.gui.workbench.diar_bars import bars_by_colour

POLL_MS = 40
"""How often a timeline looks whether the next step's view is built."""
POLLS = 250
"""How many times it looks (10 s) before leaving the next step to make its own. A look is a
check of two flags; 2 s were too few for a slow machine's worker building a 2-hour show's
next view (beside a test suite: the first step's next came after more than 3 s, and was
then made by the step itself)."""


def schedule(view, walk, step: int) -> None:
    """Make step `step + 1` of `walk` ahead in `view` (an overview: its panels too), once
    the event loop is free and the step's view is built (one look-out a view: a new step's
    ends the last one's)."""
    generation = getattr(view, "_ahead_of", (None, 0, 0, 0))[3] + 1
    view._ahead_of = (walk, step, 0, generation)
    QTimer.singleShot(POLL_MS, view, lambda: _poll(view, generation))


def _poll(view, generation: int) -> None:
    walk, step, polls, current = view._ahead_of
    if current != generation or walk is None:
        return   # a later step's look-out, or done
    if step >= len(walk.steps) or (view.shown != (walk.document.id, step)
                                   and view._split_fill is None):
        return   # another step or document is shown: its own call is on its way
    # the next step's view built, no worker still building its parts, and this step's own
    # panels drawn (the step that opens the split view draws them on later turns: on a
    # loaded machine after the first look, which gave up and left the next step unprepared):
    # made beside the worker, the lanes here shared the interpreter with it (an 18-ms turn
    # took 40) and made again what it was making (`ahead_ready`: the workbench's "no
    # step-view job running")
    ready = getattr(view, "ahead_ready", None)
    if not walk.is_cached(step + 1) or view._split_fill is not None or (
            ready is not None and not ready()):
        if polls < POLLS:
            view._ahead_of = (walk, step, polls + 1, generation)
            QTimer.singleShot(POLL_MS, view, lambda: _poll(view, generation))
        return
    view._ahead_of = (None, 0, 0, generation)
    prepare(view, walk, step + 1)


def prepare(view, walk, step: int) -> None:
    """What `view.show_step(walk, step, walk.errors_at(step))` will look up, made now for the
    range and size `view` shows (and for its panels, the spans the step will give them)."""
    from llgui.gui.workbench.diar_split import split_spans

    (lo, hi), _ = view.plot.getPlotItem().getViewBox().viewRange()
    rows = _prepare_view(view, walk, step, walk.errors_at(step), lo, hi, None)
    split = view.split
    if rows is None or split is None or not split.isVisible():
        return
    windows = walk.steps[step - 1].windows
    spans = split_spans(windows, walk.document.extent) if windows else []
    for panel, (start, end) in zip(split.panels, spans):
        if panel.isVisible():   # (a hidden panel's size is not the one it will have)
            panel._colours, panel._arrays = view._colours, view._arrays
            _prepare_view(panel, walk, step, None, float(start), float(end), rows)
    # and the panels themselves drawn, as pictures, on a turn of their own (`diar_photo`)
    shown = view.shown
    QTimer.singleShot(LATER_MS, view, lambda: _photos(view, walk, step, spans, shown))


def _photos(view, walk, step: int, spans, shown) -> None:
    if view.shown == shown and view.split is not None and view.split.isVisible():
        view.split.photos.make(view, walk, step, spans)


def _prepare_view(view, walk, step: int, errors, lo: float, hi: float, rows):
    """The next step's lanes, bars and labels in `view` for [lo, hi]; `rows`: the lanes as
    the overview made them (a panel's are the overview's), else made here. Returns the
    rows."""
    box = view.plot.getPlotItem().getViewBox()
    width = box.width()
    if width < 2 or hi <= lo:
        return rows
    pixel = (hi - lo) / width
    _, (y_lo, y_hi) = box.viewRange()
    y_pixels = max(box.height(), 1.0) / max(y_hi - y_lo, 1e-9)
    pixels = width / (hi - lo)
    height = view.LANE_HEIGHT
    step_view, lanes, tones = view._step_lanes(walk, step)
    shown_tones, view._tones = view._tones, tones
    labels: dict = {}
    made = []
    try:
        for row, (name, turns, mapping) in enumerate(lanes):
            if not turns:
                continue
            unmappable = step_view.unmappable if (step_view and name == "impaired") else None
            arrays = view._lane_arrays(turns, mapping, unmappable)
            parts = arrays.setdefault("parts", {})
            if -row not in parts:
                parts[-row] = lane_parts(arrays, -row, height)
            made.append((parts[-row], -row - height / 2, height * BAR_FILL, arrays))
            key = (id(arrays), lo, hi, width, y_lo, y_hi, y_pixels)
            labels[key] = (arrays, view._lane_labels_of(turns, arrays, lo, hi, pixels,
                                                        y_pixels))
    finally:
        view._tones = shown_tones
    view._labels_ahead = labels
    if rows is None:
        rows = made
        if errors:
            y = -len(lanes)
            view._errors_ahead = (errors, y, error_parts(errors, y, height), {})
            rows.append((view._errors_ahead[2], y - height / 2, height, view._errors_ahead[3]))
    view._bars_ahead = bars_by_colour(rows, lo, hi, pixel)
    return rows
