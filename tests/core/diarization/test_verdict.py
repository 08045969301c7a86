"""What the system did with a diarization correction (issue 23, item 14), on the steps of
the demo's diarization bundle and an AMI meeting: applied, ignored, changed otherwise,
nothing to correct; renaming clusters is not a change."""
from __future__ import annotations

import pytest

from llgui.core.diarization.der import der_components
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
        out += [(doc, v) for v in w.steps if v.windows]
    assert out
    return out


def _view_to_correct(views):
    for doc, v in views:
        got = verdict(v.seen, doc.reference, v.seen, v.windows, v.mapping, v.mapping)
        if got.verdict == "ignored":
            return doc, v
    pytest.fail("no demo step corrects anything")


def _mapping(doc, turns):
    return dict(der_components(doc.reference, turns, uem=doc.uem).mapping)


def test_the_corrected_hypothesis_as_h_n_is_applied(views):
    doc, v = _view_to_correct(views)
    got = verdict(v.seen, doc.reference, v.corrected, v.windows, v.mapping,
                  _mapping(doc, v.corrected))
    assert got.verdict == "applied" and got.agree_corrected >= 0.95


def test_h_n_equal_to_h_n_minus_1_is_ignored_even_with_its_clusters_renamed(views):
    doc, v = _view_to_correct(views)
    renamed = tuple(Turn(t.start, t.end, "new-" + t.speaker) for t in v.seen)
    mapping = {"new-" + h: r for h, r in v.mapping.items()}
    got = verdict(v.seen, doc.reference, renamed, v.windows, v.mapping, mapping)
    assert got.verdict == "ignored" and got.agree_seen == 1.0 and got.agree_corrected < 0.95
    assert got.text() == (f"ignored ({100 * got.agree_corrected:.0f} % as corrected, "
                          "nothing else changed)")


def test_a_window_left_silent_is_changed_otherwise_and_changes_elsewhere_are_counted(views):
    doc, v = _view_to_correct(views)
    (a, b) = v.windows[0]
    far = max(t.end for t in v.seen) + 50.0
    silenced = []
    for t in v.seen:   # every turn cut at the window's edges, nothing inside
        if t.start < a:
            silenced.append(Turn(t.start, min(t.end, a), t.speaker))
        if t.end > b:
            silenced.append(Turn(max(t.start, b), t.end, t.speaker))
    silenced = tuple(silenced) + (Turn(far, far + 2.0, "extra"),)
    reference = tuple(doc.reference)
    got = verdict(v.seen, reference, silenced, v.windows[:1], v.mapping, v.mapping)
    if any(t.end > a and t.start < b for t in reference):
        assert got.verdict == "changed otherwise"
    assert got.changed_elsewhere == pytest.approx(2.0, abs=0.11)


def test_a_name_for_a_speaker_no_cluster_stood_for_is_applied(reference_data):
    """ES2011a: FEE042 has no cluster in h_{n-1}; the correction gives the window a fresh
    label, and h_n names the speaker: that is the correction applied (it read "changed
    otherwise, 0 %" when the corrected lane's fresh label was compared)."""
    from llgui.io.rttm import load_rttm

    d = reference_data / "vbx-ami-mixheadset"
    ref = next(iter(load_rttm(d / "ref" / "dev" / "ES2011a.rttm").values()))
    window = (385.0, 391.0)
    inside = [t for t in ref if t.end > window[0] and t.start < window[1]]
    person = max(inside, key=lambda t: min(t.end, window[1]) - max(t.start, window[0])).speaker
    seen = tuple(Turn(t.start, t.end, "c1") for t in ref)          # one cluster: all wrong there
    adapted = tuple(t if not (t.end > window[0] and t.start < window[1]) else
                    Turn(t.start, t.end, "c1" if t.speaker != person else "new")
                    for t in seen)
    adapted = tuple(Turn(t.start, t.end, "new") if (r.speaker == person and t.end > window[0]
                                                      and t.start < window[1]) else t
                    for t, r in zip(adapted, ref))
    others = {t.speaker for t in ref} - {person}
    biggest = max(others, key=lambda s: sum(t.end - t.start for t in ref if t.speaker == s))
    got = verdict(seen, ref, adapted, [window], {"c1": biggest},
                  {"c1": biggest, "new": person})
    inside_others = any(t.speaker not in (person, biggest) for t in inside)
    assert got.verdict in (("applied",) if not inside_others else ("applied", "changed otherwise"))
    assert got.agree_corrected > got.agree_seen


def test_the_demo_system_s_steps_each_get_a_verdict(views):
    kinds = {verdict(v.seen, doc.reference, v.adapted, v.windows, v.mapping,
                     v.adapted_mapping).verdict for doc, v in views}
    assert kinds <= {"applied", "ignored", "changed otherwise", "nothing to correct"}
    assert kinds


def _frames_by_loop(turns, names, lo, n, grid):
    """The speaker bits of each frame, one turn at a time (what `_frames` computes in bulk)."""
    import numpy as np

    mask = np.zeros(n, dtype=np.uint64)
    for t in turns:
        a = max(int(round((t.start - lo) / grid)), 0)
        b = min(int(round((t.end - lo) / grid)), n)
        if b > a:
            mask[a:b] |= np.uint64(1) << np.uint64(names[t.speaker] % 64)
    return mask


def test_frames_in_bulk_equal_the_turn_by_turn_frames():
    """Issue 36: `_frames` vectorised; overlaps, turns outside the range, half-frame
    boundaries (rounded half to even) and more than 64 labels sharing bits."""
    import numpy as np

    from llgui.core.diarization.verdict import _frames

    rng = np.random.default_rng(36)
    for case in range(40):
        labels = [f"s{i}" for i in range(int(rng.integers(1, 80)))]
        names = {lab: i for i, lab in enumerate(labels)}
        turns = []
        for _ in range(int(rng.integers(0, 60))):
            start = float(rng.choice([rng.uniform(-5, 60), round(rng.uniform(0, 60) * 2) / 2
                                      + 0.005]))
            turns.append(Turn(start, start + float(rng.uniform(0, 8)),
                              labels[int(rng.integers(len(labels)))]))
        lo, grid = float(rng.uniform(-2, 10)), float(rng.choice([0.01, 0.1, 0.5]))
        n = int(rng.integers(1, 3000))
        assert np.array_equal(_frames(turns, names, lo, n, grid),
                              _frames_by_loop(turns, names, lo, n, grid)), case


def _verdict_by_loop(seen, reference, adapted, windows, seen_mapping, adapted_mapping):
    """The verdict's fractions and 'elsewhere' time turn by turn, as its definition says:
    h_{n-1} and h_n in reference terms, the correction as the reference, frames compared."""
    import numpy as np

    from llgui.core.diarization.verdict import ELSEWHERE_GRID, GRID

    def terms(turns, mapping):
        return [Turn(t.start, t.end, mapping.get(t.speaker, "\x00unmapped")) for t in turns]

    s, c, h = terms(seen, seen_mapping or {}), list(reference), terms(adapted,
                                                                        adapted_mapping or {})
    names = {lab: i for i, lab in enumerate(sorted({t.speaker for t in (*s, *c, *h)}))}
    same_c = same_s = total = 0
    for a, b in windows:
        n = max(int(round((b - a) / GRID)), 1)
        fs, fc, fh = (_frames_by_loop([t for t in x if t.end > a and t.start < b], names, a,
                                      n, GRID) for x in (s, c, h))
        same_c += int(np.count_nonzero(fh == fc))
        same_s += int(np.count_nonzero(fh == fs))
        total += n
    times = [t.start for t in (*s, *h)] + [t.end for t in (*s, *h)]
    lo, hi = min(times), max(times)
    n = int(np.ceil((hi - lo) / ELSEWHERE_GRID)) + 1
    differs = (_frames_by_loop(s, names, lo, n, ELSEWHERE_GRID)
               != _frames_by_loop(h, names, lo, n, ELSEWHERE_GRID))
    for a, b in windows:
        differs[max(int(np.floor((a - lo) / ELSEWHERE_GRID)), 0):
                max(int(np.ceil((b - lo) / ELSEWHERE_GRID)), 0)] = False
    return same_c / total, same_s / total, float(np.count_nonzero(differs)) * ELSEWHERE_GRID


def test_the_verdict_on_arrays_equals_its_turn_by_turn_definition():
    """Issue 36: the verdict reads each turn list's cached arrays (a 10-hour show's turns were
    made into new turns at every step); on random steps, mapped and unmapped clusters, as
    tuples (cached) and lists, it gives what comparing the frames turn by turn gives."""
    import numpy as np

    rng = np.random.default_rng(3600)
    speakers = [f"spk{i}" for i in range(6)]
    clusters = [f"c{i}" for i in range(8)]

    def turns(labels, count):
        out = []
        for _ in range(count):
            start = float(rng.uniform(0, 200))
            out.append(Turn(start, start + float(rng.uniform(0.2, 9)),
                            labels[int(rng.integers(len(labels)))]))
        return sorted(out)

    for case in range(25):
        reference = tuple(turns(speakers, int(rng.integers(1, 40))))
        seen = turns(clusters, int(rng.integers(1, 40)))
        adapted = turns(clusters, int(rng.integers(0, 40)))
        mapping = {c: speakers[int(rng.integers(len(speakers)))] for c in clusters
                   if rng.random() < 0.7}
        adapted_mapping = {c: speakers[int(rng.integers(len(speakers)))] for c in clusters
                           if rng.random() < 0.7}
        a = float(rng.uniform(0, 150))
        windows = [(a, a + float(rng.uniform(1, 30)))]
        if case % 2:
            windows.append((windows[0][1] + 5, windows[0][1] + 12))
        expected = _verdict_by_loop(seen, reference, adapted, windows, mapping,
                                    adapted_mapping)
        for kind in (list, tuple):
            got = verdict(kind(seen), reference, kind(adapted), windows, mapping,
                          adapted_mapping)
            assert (got.agree_corrected, got.agree_seen) == pytest.approx(
                expected[:2], abs=1e-12), (case, kind)
            assert got.changed_elsewhere == pytest.approx(expected[2], abs=1e-9), (case, kind)
