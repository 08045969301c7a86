"""Speaker colours never borrow the error palette's meaning (llgui.core.display.palette)."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from llgui.core.display.palette import (
    ERROR_COLOURS, IMPAIRED, MIN_DISTANCE, RESERVED, UNMAPPED, ciede2000, colour_distance,
    speaker_colours, speaker_palette, to_lab,
)


@pytest.mark.parametrize("lab1, lab2, expected", [
    # Sharma, Wu and Dalal (2005), CIEDE2000 test data, pairs 1, 7, 17-20, 25
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
    ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
    ((50.0, 2.5, 0.0), (58.0, 24.0, 15.0), 19.4535),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
])
def test_ciede2000_published_pairs(lab1, lab2, expected):
    assert ciede2000(lab1, lab2) == pytest.approx(expected, abs=5e-5)
    assert ciede2000(lab2, lab1) == pytest.approx(expected, abs=5e-5)


def test_lab_of_srgb_primaries():
    assert to_lab("#ffffff") == pytest.approx((100, 0, 0), abs=0.01)
    assert to_lab("#ff0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.02)


def test_no_speaker_colour_is_near_an_error_colour():
    palette = speaker_palette(40)
    assert len(set(palette)) >= 12
    for speaker in set(palette):
        for name, reserved in {**ERROR_COLOURS, "impaired": IMPAIRED,
                               "unmapped": UNMAPPED}.items():
            assert colour_distance(speaker, reserved) >= MIN_DISTANCE, (speaker, name)


def test_the_first_speakers_differ_most():
    palette = speaker_palette(8)
    assert min(colour_distance(a, b) for a, b in itertools.combinations(palette[:4], 2)) > 30
    assert min(colour_distance(a, b) for a, b in itertools.combinations(palette, 2)) > 15


def test_the_old_palette_failed():
    """Tableau's red, orange and purple, which the timeline used, sit on the error colours."""
    assert colour_distance("#d62728", ERROR_COLOURS["miss"]) < MIN_DISTANCE
    assert colour_distance("#ff7f0e", ERROR_COLOURS["false_alarm"]) < MIN_DISTANCE
    assert colour_distance("#9467bd", ERROR_COLOURS["confusion"]) < MIN_DISTANCE
    assert len(RESERVED) == 5


def test_speaker_colours_follow_sorted_labels():
    colours = speaker_colours(["S2", "S1", "S2"])
    from llgui.core.display.palette import MEETING_COLOURS

    assert list(colours) == ["S1", "S2"] and colours["S1"] == MEETING_COLOURS[0]


def test_colour_levels_span_the_finite_scores():
    import numpy as np

    from llgui.core.display.palette import colour_levels

    assert colour_levels(np.array([[30.0, np.nan], [12.5, 41.0]])) == (12.5, 41.0)
    assert colour_levels(np.array([[7.0, 7.0]])) == (7.0, 8.0)
    assert colour_levels(np.full((2, 2), np.nan)) == (0.0, 1.0)


# -- per meeting, and for colour-vision deficiencies (issue 23, item 10) ----------------------

@pytest.mark.parametrize("vision, cvd_type", [("protan", "protanomaly"),
                                              ("deutan", "deuteranomaly")])
@pytest.mark.parametrize("colour", ["#0072b2", "#999933", "#e31a1c", "#80cdc1", "#ff9f1c"])
def test_cvd_simulation_equals_colorspacious(colour, vision, cvd_type):
    """Machado et al. (2009) at full severity, as colorspacious implements it."""
    colorspacious = pytest.importorskip("colorspacious")
    from llgui.core.display.palette import hex_to_rgb, simulate_cvd

    expected = colorspacious.cspace_convert(
        hex_to_rgb(colour), {"name": "sRGB1+CVD", "cvd_type": cvd_type, "severity": 100},
        "sRGB1")
    ours = hex_to_rgb(simulate_cvd(colour, vision))
    for a, b in zip(ours, expected):
        assert a == pytest.approx(min(max(b, 0.0), 1.0), abs=1 / 255 + 1e-9)


def test_the_cvd_simulation_merges_red_and_green():
    """Deuteranopes confuse the red of miss with a mid green (the point of the check)."""
    from llgui.core.display.palette import colour_distance

    assert colour_distance("#e31a1c", "#2ca02c") > 50
    assert colour_distance("#e31a1c", "#8c8c00", "deutan") < 15


def _ami_meetings(root):
    for rttm in sorted((root / "vbx-ami-mixheadset" / "ref").glob("*/*.rttm")):
        labels = {line.split()[7] for line in rttm.read_text().splitlines() if line.strip()}
        yield rttm.stem, labels


def test_every_ami_meeting_has_its_speakers_apart_in_every_vision(reference_data):
    from llgui.core.display.palette import (
        MIN_SPEAKER_DISTANCE, SAFE_SPEAKERS, colour_distance, speaker_colours,
    )

    meetings = list(_ami_meetings(reference_data))
    assert len(meetings) >= 30
    worst = {}
    for meeting, labels in meetings:
        assert len(labels) <= SAFE_SPEAKERS, meeting
        colours = speaker_colours(labels)
        for a, b in itertools.combinations(sorted(labels), 2):
            for vision in ("normal", "protan", "deutan"):
                d = colour_distance(colours[a], colours[b], vision)
                worst[vision] = min(worst.get(vision, 99.0), d)
                assert d >= MIN_SPEAKER_DISTANCE, (meeting, a, b, vision, d)
    assert worst["normal"] >= MIN_SPEAKER_DISTANCE


def test_assigned_over_a_whole_bundle_speakers_of_one_meeting_collide(reference_data):
    """The old way (colours over every speaker of the bundle) cycles the palette: two
    speakers of one meeting then share a colour or come close (TS3004c: 4.8 in the trial)."""
    from llgui.core.display.palette import MIN_SPEAKER_DISTANCE, speaker_distance

    meetings = dict(_ami_meetings(reference_data))
    everyone = sorted(set().union(*meetings.values()))
    bundle_wide = dict(zip(everyone, speaker_palette(len(everyone))))
    closest = min(speaker_distance(bundle_wide[a], bundle_wide[b])
                  for labels in meetings.values()
                  for a, b in itertools.combinations(sorted(labels), 2))
    assert closest < MIN_SPEAKER_DISTANCE


def test_the_written_out_speaker_order_is_the_chosen_one():
    from llgui.core.display.palette import SPEAKER_ORDER, _choose

    assert _choose(tuple(RESERVED), float(MIN_DISTANCE)) == SPEAKER_ORDER


# ---- issue 35: speakers told apart at any count (VoxConverse: broadcast and debates) --------

VOXCONVERSE = Path(__file__).resolve().parents[2] / "data" / "voxconverse"


def _speakers(clip: str) -> set[str]:
    text = (VOXCONVERSE / f"{clip}.rttm").read_text()
    return {line.split()[7] for line in text.splitlines() if line.strip()}


def _told_apart(colours: dict[str, str]) -> list[tuple]:
    """The pairs of speakers that neither colour (MIN_SPEAKER_DISTANCE CIEDE2000 in normal,
    protan and deutan vision) nor the fill pattern tells apart."""
    from llgui.core.display.palette import MIN_SPEAKER_DISTANCE, speaker_distance, speaker_style

    alike = []
    for a, b in itertools.combinations(sorted(colours), 2):
        (ca, pa), (cb, pb) = speaker_style(colours[a]), speaker_style(colours[b])
        if pa == pb and speaker_distance(ca, cb) < MIN_SPEAKER_DISTANCE:
            alike.append((a, b, colours[a], colours[b], speaker_distance(ca, cb)))
    return alike


@pytest.mark.parametrize("clip, n", [("kdfqk", 20), ("nitgx", 21), ("vzuru", 19)])
def test_every_pair_of_voxconverse_speakers_is_told_apart(clip, n):
    labels = _speakers(clip)
    assert len(labels) == n
    colours = speaker_colours(labels)
    assert _told_apart(colours) == []
    assert len(set(colours.values())) == n     # no two speakers share a style


def test_thirty_speakers_are_told_apart():
    """Two VoxConverse clips' speakers as one 30+-speaker show (kdfqk's 20 and vzuru's 19,
    renamed apart): up to STYLED_SPEAKERS every pair differs in colour or in pattern."""
    from llgui.core.display.palette import STYLED_SPEAKERS, styles_note

    labels = {f"a-{s}" for s in _speakers("kdfqk")} | {f"b-{s}" for s in _speakers("vzuru")}
    labels = set(sorted(labels)[:30])
    colours = speaker_colours(labels)
    assert len(labels) == 30 <= STYLED_SPEAKERS
    assert _told_apart(colours) == []
    note = styles_note(colours)
    assert note and "6 colours" in note and "hatched" in note


def test_colour_alone_did_not_tell_kdfqks_speakers_apart():
    """The palette before issue 35 (a colour per speaker from SPEAKER_ORDER): 13 pairs of
    kdfqk's 20 speakers under 10 ΔE00 in normal vision."""
    from llgui.core.display.palette import speaker_palette

    names = sorted(_speakers("kdfqk"))
    old = dict(zip(names, speaker_palette(len(names))))
    close = [(a, b) for a, b in itertools.combinations(names, 2)
             if colour_distance(old[a], old[b]) < 10]
    assert len(close) >= 10
    assert _told_apart(old)


# ---- gui2: the base colours one meeting actually uses span the hues ------------------------

def _hue(colour: str) -> float:
    import math

    _, a, b = to_lab(colour)
    return math.degrees(math.atan2(b, a)) % 360


def test_the_base_colours_nitgx_uses_are_apart_and_of_different_hues():
    """VoxConverse nitgx's 21 speakers: the base colours drawn (patterns dropped) are each
    ≥ MIN_SPEAKER_DISTANCE apart in every vision, ≥ 25 apart in normal vision, and no two
    share a hue family (CIELAB hue angles ≥ 30° apart): the old six were all blues and greens
    (#80cdc1 and #1b9e77 18 ΔE00 apart, hue angles within 10°)."""
    from llgui.core.display.palette import MIN_SPEAKER_DISTANCE, base_colour, speaker_distance

    colours = speaker_colours(_speakers("nitgx"))
    used = sorted({base_colour(c) for c in colours.values()})
    assert len(used) >= 6
    for a, b in itertools.combinations(used, 2):
        assert speaker_distance(a, b) >= MIN_SPEAKER_DISTANCE, (a, b)
        assert colour_distance(a, b) >= 25, (a, b)
        gap = abs(_hue(a) - _hue(b))
        assert min(gap, 360 - gap) >= 30, (a, b, _hue(a), _hue(b))
    for colour in used:    # and none borrows an error colour or vanishes on a backdrop
        for reserved in (*RESERVED, "#ffffff", "#fff0a0", "#c4c4c4"):
            assert colour_distance(colour, reserved) >= MIN_DISTANCE, (colour, reserved)
