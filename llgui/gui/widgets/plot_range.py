"""A plot's range set only when it would change (issue 36).

`ViewBox.setRange` does its work even when asked for the range it shows: it turns auto-range
off again, recomputes the view's transform, emits `sigStateChanged` and moves its target, so a
step that asks a plot for its unchanged range (the score bars' x range, the overview's whole
meeting, a zoomed panel moved by its overview brush right after the step moved it) paid for a
new one (0.3-0.6 ms each, six a step on an hour's meeting). `set_range` remembers what was
asked and what it gave; the same request, while the view still holds what it gave (no pan,
zoom or auto-range since), is skipped.
"""
from __future__ import annotations


def set_range(view_box, axis: int, lo: float, hi: float, padding: float) -> bool:
    """`view_box.setRange` along `axis` (0: x, 1: y) unless it already shows what this
    request gave last time. True when the range was set."""
    asked = view_box.__dict__.setdefault("_llgui_asked", {})
    request = (float(lo), float(hi), float(padding))
    done = asked.get(axis)
    state = view_box.state
    if (done is not None and done[0] == request and state["autoRange"][axis] is False
            and list(state["targetRange"][axis]) == done[1]
            and list(state["viewRange"][axis]) == done[2]):
        return False
    if axis == 0:
        view_box.setXRange(lo, hi, padding=padding)
    else:
        view_box.setYRange(lo, hi, padding=padding)
    asked[axis] = (request, list(state["targetRange"][axis]), list(state["viewRange"][axis]))
    return True


def set_tip(widget, text: str) -> None:
    """`widget.setToolTip(text)` unless it has that tooltip (each call sends the widget and
    the application's filters a ToolTipChange event; five a step, the score bars' a
    paragraph)."""
    if widget.toolTip() != text:
        widget.setToolTip(text)


def quiet_hidden_axes(plot_item) -> None:
    """No SI-prefix label work on a plot's hidden axes (top, right). pyqtgraph keeps all
    four axes linked to the view: at each new range a hidden axis with its auto SI prefix on
    (the default) set its label's HTML again (0.2-0.3 ms a time, two a step)."""
    for name in ("top", "right"):
        axis = plot_item.getAxis(name)
        if not axis.isVisible() and axis.autoSIPrefix:
            axis.enableAutoSIPrefix(False)
