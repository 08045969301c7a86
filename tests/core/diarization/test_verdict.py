"""What the system did with a diarization correction (issue 23, item 14), on the steps of
the demo's diarization bundle: applied, ignored, changed otherwise; renaming clusters is
not a change."""
from __future__ import annotations

import pytest

from llgui.core.diarization.verdict import verdict
from llgui.core.types import Turn
from llgui.core.walkthrough import walk
from llgui.io.bundle import load_bundle


@pytest.fixture(scope="module")
def views(demo_dir):
    bundle = load_bundle(demo_dir / "diarization" / "bundle.toml")
    out = []
    for doc in bundle.documents:
        w = walk(doc, bundle.steps_of(doc.id), "der", bundle.settings, bundle.cost)
        out += [v for v in w.steps if v.windows]
    assert out
    return out


def _view_to_correct(views):
    for v in views:
        got = verdict(v.seen, v.corrected, v.seen, v.windows, v.mapping, v.mapping)
        if got.verdict == "ignored":
            return v
    pytest.fail("no demo step corrects anything")


def test_the_corrected_hypothesis_as_h_n_is_applied(views):
    v = _view_to_correct(views)
    got = verdict(v.seen, v.corrected, v.corrected, v.windows, v.mapping, v.mapping)
    assert got.verdict == "applied" and got.agree_corrected == 1.0
    assert got.changed_elsewhere == 0.0


def test_h_n_equal_to_h_n_minus_1_is_ignored_even_with_its_clusters_renamed(views):
    v = _view_to_correct(views)
    renamed = tuple(Turn(t.start, t.end, "new-" + t.speaker) for t in v.seen)
    mapping = {"new-" + h: r for h, r in v.mapping.items()}
    got = verdict(v.seen, v.corrected, renamed, v.windows, v.mapping, mapping)
    assert got.verdict == "ignored" and got.agree_seen == 1.0 and got.agree_corrected < 0.95
    assert got.text() == (f"ignored ({100 * got.agree_corrected:.0f} % as corrected; "
                          "nothing changed elsewhere)")


def test_a_window_left_silent_is_changed_otherwise_and_changes_elsewhere_are_counted(views):
    v = _view_to_correct(views)
    (a, b), = v.windows[:1] or [(0, 0)]
    far = max(t.end for t in v.seen) + 50.0
    silenced = []
    for t in v.seen:   # every turn cut at the window's edges, nothing inside
        if t.start < a:
            silenced.append(Turn(t.start, min(t.end, a), t.speaker))
        if t.end > b:
            silenced.append(Turn(max(t.start, b), t.end, t.speaker))
    silenced = tuple(silenced) + (Turn(far, far + 2.0, "extra"),)
    got = verdict(v.seen, v.corrected, silenced, v.windows[:1], v.mapping, v.mapping)
    assert got.verdict == "changed otherwise"
    assert got.changed_elsewhere == pytest.approx(2.0, abs=0.11)


def test_the_demo_system_s_steps_each_get_a_verdict(views):
    kinds = {verdict(v.seen, v.corrected, v.adapted, v.windows, v.mapping,
                     v.adapted_mapping).verdict for v in views}
    assert kinds <= {"applied", "ignored", "changed otherwise", "nothing to correct"}
    assert kinds
