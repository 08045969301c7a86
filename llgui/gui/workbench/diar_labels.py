"""The timeline's turn labels: the speaker (or cluster) label inside every turn wide enough
on screen to hold it, found over the bars in view (`diar_bars.runs_in`), kept per lane by its
arrays, range and size, and painted by the view's one label item (`diar_paint.LaneLabels`,
issue 36)."""
from __future__ import annotations

import numpy as np

from llgui.core.display.lanes import BAR_FILL, lane_geometry
from llgui.core.display.palette import base_colour, to_lab
from llgui.gui.workbench.diar_bars import runs_in


class TurnLabels:
    """The turn labels of a `DiarView` (a mix-in: it reads the view's plot, lanes and
    LANE_HEIGHT)."""

    MAX_LABELS = 60
    LABEL_PX = 7   # pixels per character of a turn label (the plot's 8-pt font)
    LABEL_BAR_PX = 11
    """The thinnest bar (pixels) that holds a turn label: the 7.5-pt names and digits are 8 px
    high (at 12, a 1366x768 window's zoomed panels lost every label for the 11.3 px their
    lanes kept under a four-row speaker table)."""

    def _label_turns(self, lo: float, hi: float) -> None:
        """The speaker label inside every turn wide enough on screen to hold it (hypothesis
        lanes: the cluster label), at most MAX_LABELS, widest first."""
        item = self.plot.getPlotItem()
        box = item.getViewBox()
        pixels = max(box.width(), 1.0) / max(hi - lo, 1e-9)
        key = (lo, hi, box.width(), box.height(), tuple(id(i[1]) for i in self._lane_info.values()))
        if key == self._labels_for:
            return   # the same lanes, range and size: the labels stand
        self._labels_for = key
        (_, _), (y_lo, y_hi) = box.viewRange()
        y_pixels = max(box.height(), 1.0) / max(y_hi - y_lo, 1e-9)
        # each lane's candidate labels kept by its arrays, the range and the size, whatever
        # its row: a step changes a lane or two (and the seen lane is the last step's
        # adapted one), the others' labels are not looked for again
        kept = getattr(self, "_lane_labels", {})
        self._lane_labels = {}
        wanted = []
        for row, (_, turns, _, arrays) in self._lane_info.items():
            lane_key = (id(arrays), lo, hi, box.width(), y_lo, y_hi, y_pixels)
            old = (kept.get(lane_key) or self._lane_labels.get(lane_key)
                   or getattr(self, "_labels_ahead", {}).get(lane_key))
            if old is not None and old[0] is arrays:
                lane = old[1]
            else:
                lane = self._lane_labels_of(turns, arrays, lo, hi, pixels, y_pixels)
            self._lane_labels[lane_key] = (arrays, lane)
            wanted += [(shown, x, -row - self.LANE_HEIGHT / 2 + offset, row, text, ink)
                       for shown, x, offset, text, ink in lane]
        wanted.sort(key=lambda w: -w[0])
        wanted = wanted[:self.MAX_LABELS]
        # drawn by one item in pixels from their points (`diar_paint.LaneLabels`)
        self.labelled = [(row, text) for _, _, _, row, text, _ in wanted]
        self.turn_labels.set_labels([(text, x + 2 / pixels, y, colour or "#ffffff")
                                     for _, x, y, _, text, colour in wanted])

    def _lane_labels_of(self, turns, arrays, lo, hi, pixels, y_pixels) -> list:
        """The labels a lane would show in [lo, hi] (widest first, at most MAX_LABELS):
        (width shown, x, height in its row, text, ink) each."""
        geometry = lane_geometry(turns)
        ink = arrays.get("ink")
        if ink is None:   # per label, once per lane's arrays (each colour's once per view)
            inks = self.__dict__.setdefault("_inks", {})
            for c in arrays["colours"]:
                if c not in inks:
                    inks[c] = "#000000" if to_lab(base_colour(c))[0] > 62 else "#ffffff"
            ink = arrays["ink"] = [inks[c] for c in arrays["colours"]]
        labels = geometry["labels"]
        label_of = arrays["label"]   # each piece's label (a turn cut where overlaps are)
        depth = arrays.get("depth_each")
        if depth is None:   # once per lane's arrays
            depth = arrays["depth_each"] = np.broadcast_to(
                np.asarray(arrays["depth"], dtype=float), np.shape(arrays["x0"]))
        # a speaker's adjacent turns drawn as one bar are labelled as one (at an
        # overview no single turn held a label, gui2)
        x0, ends, first = runs_in(arrays, geometry, lo, hi, 1.0 / pixels)
        left = np.maximum(x0, lo)
        shown = np.minimum(ends, hi) - left
        fit = np.flatnonzero(shown * pixels >= 3 * self.LABEL_PX + 8)
        wanted = []
        for run in fit[np.argsort(-shown[fit])][:self.MAX_LABELS].tolist():
            i = int(first[run])
            text = labels[label_of[i]]
            if shown[run] * pixels < len(text) * self.LABEL_PX + 8:
                continue
            height = self.LANE_HEIGHT / depth[i]
            if height * BAR_FILL * y_pixels < self.LABEL_BAR_PX:   # too thin for a line
                continue
            wanted.append((float(shown[run]), float(left[run]),
                           (arrays["level"][i] + 0.5) * height, text,
                           ink[label_of[i]]))
        return wanted
