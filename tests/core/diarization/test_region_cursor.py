"""Issue 36 (gate 9's 10-hour show): a step view's error regions come from the walkthrough's
region cursor, swept again only where the step changed the hypothesis
(`llgui.core.diarization.region_cursor`). They must be those of a whole sweep under the
view's mapping (`der.error_regions`), at every step, stepped forward, jumped to and stepped
back, with and without a collar, a UEM and skipped overlap."""
from __future__ import annotations

import random

import numpy as np
import pytest

from llgui.core.cost import CostModel
from llgui.core.diarization.der import error_regions
from llgui.core.types import Adapted, DiarDocument, SpanTarget, Stamp, Step, Turn
from llgui.core.walkthrough import walk
from tests.core.diarization.test_incremental import turns


def _show(seed: int, uem: bool):
    """A long show (400 turns a side) and 30 steps, each correcting a short span: the
    system's adapted turns differ from the last ones there only (and now and then nowhere,
    or with a new label)."""
    rng = random.Random(seed)
    reference = turns(rng, "ABCDE", 400)
    hypothesis = turns(rng, "abcdef", 400)
    end = max(t.end for t in reference + hypothesis)
    current, steps = list(hypothesis), []
    for k in range(1, 31):
        start = rng.uniform(0, end - 10)
        target = SpanTarget(round(start, 3), round(start + rng.choice([2, 5, 9]), 3))
        if rng.random() < 0.15:
            adapted = None   # the system kept its hypothesis
        else:
            inside = [t for t in current if t.end > target.start and t.start < target.end]
            keep = [t for t in current if t not in inside]
            label = rng.choice("abcdefg")
            new = [Turn(t.start, t.end, label if rng.random() < 0.7 else t.speaker)
                   for t in inside]
            current = sorted(keep + new, key=lambda t: (t.start, t.end, t.speaker))
            adapted = Adapted(turns=tuple(current))
        steps.append(Step("show", k, "interactive", "segment", target, None, None, adapted))
    given = ((1.0, end * 0.55), (end * 0.55 + 3, end - 1)) if uem else None
    return DiarDocument("show", Stamp.parse(0), "show", reference, hypothesis,
                        uem=given), tuple(steps)


def _whole(doc, hypothesis, settings, mapping):
    return error_regions(doc.reference, hypothesis, doc.uem, settings.get("collar", 0.0),
                         settings.get("skip_overlap", False), mapping)


@pytest.mark.parametrize("seed,uem,settings", [
    (1, False, {}), (2, True, {}), (3, False, {"collar": 0.5}),
    (4, True, {"collar": 0.25, "skip_overlap": True}), (5, False, {"skip_overlap": True})])
def test_stepped_regions_are_the_whole_sweeps(seed, uem, settings):
    doc, steps = _show(seed, uem)
    result = walk(doc, steps, "der", settings, CostModel())
    cursor = result._diar["cursor"]
    given = []
    regions = cursor.regions
    cursor.regions = lambda h, m: given.append(regions(h, m)) or given[-1]
    order = [0] + list(range(1, 21)) + [27, 26, 28, 29, 30, 5]   # on, a jump, back, on
    for n in order:
        if n == 0:
            got, mapping, hypothesis = result.base_errors, result.base_mapping, result.base
        else:
            view = result.view(n)
            got, mapping, hypothesis = view.adapted_errors, view.adapted_mapping, view.adapted
        want = _whole(doc, hypothesis, settings, mapping)
        assert list(got) == list(want), f"step {n}"
        if want:
            for mine, whole in zip(got.arrays, want.arrays):
                assert np.array_equal(mine, whole) and mine.dtype == whole.dtype
    # the cursor gave most of them (it declines only where the mapping moved)
    assert sum(g is not None for g in given) >= len(given) // 2, given.count(None)


def test_a_mapping_other_than_the_scorers_gets_none():
    """Regions under another mapping than the scorer's optimal one are not the scorer's to
    give (the view then sweeps the whole show under its own)."""
    doc, steps = _show(6, False)
    result = walk(doc, steps, "der", {}, CostModel())
    cursor, view = result._diar["cursor"], result.view(3)
    mapping = dict(view.adapted_mapping)
    assert cursor.regions(view.adapted, mapping) is not None
    swapped = dict(zip(mapping, reversed(list(mapping.values()))))
    assert swapped != mapping and cursor.regions(view.adapted, swapped) is None
