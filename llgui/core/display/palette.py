"""Colours with a meaning: the error palette of the diarization timeline, and speaker colours
kept perceptibly away from it (so no speaker is drawn in the red of *miss*).

Distances are CIEDE2000 (Sharma, Wu and Dalal 2005) between sRGB colours (D65) in CIELAB;
about 2 is a just-noticeable difference, and colours 20 apart read as different families.
Speaker colours are chosen so that they also stay apart as seen with a protan or deutan
colour-vision deficiency (`simulate_cvd`: Machado, Oliveira and Fernandes 2009, severity 1),
about 8 % of men; they are assigned per meeting (`speaker_colours` of one meeting's labels).
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

import numpy as np

ERROR_COLOURS = {"miss": "#e31a1c", "false_alarm": "#ff9f1c", "confusion": "#6a3d9a"}
"""The diarization error kinds as drawn (red, orange, purple)."""
IMPAIRED = "#444444"
"""Speech given to the never-mapped speaker of the impaired hypothesis (dark grey)."""
UNMAPPED = "#b0b0b0"
"""A hypothesis label the optimal mapping gives no reference speaker (grey)."""
UNMAPPED_TONES = ("#b0b0b0", "#dcdcdc", "#8a8a8a", "#c8b49c", "#9fb0c8", "#c4c4a0")
"""Unmapped hypothesis labels of one hypothesis, in sorted order: greys and greyed tints, so
that two unmapped clusters are told apart and none looks like a speaker (cycled beyond)."""
PANEL_MARK = "#000000"
"""The overview strip's marks of a split view's panels (their spans, t1 / t2): black, which no
speaker is drawn in (they were a speaker's blue, and read as one of its turns)."""
RESERVED = (*ERROR_COLOURS.values(), IMPAIRED, UNMAPPED)
"""Colours whose meaning no speaker may borrow."""

DET_CURVE_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                     "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")
"""The systems of the Detection tab, in order: each one's DET curve, band and table name."""
CAMPAIGN_SYSTEM_COLOURS = ("#c0392b", "#d4ac0d", "#e84393", "#00b894", "#6c5ce7", "#2d3436")
"""The systems of a campaign drawn over one another (S_P curves of the Across-time and
Systems tabs)."""

MIN_DISTANCE = 20.0
"""Least CIEDE2000 distance of a speaker colour from a reserved one."""
BACKDROP = ("#ffffff", "#fff0a0", "#c4c4c4")
"""What speaker bars are drawn on (the plot, a listened window, a collar zone): a speaker
colour keeps MIN_DISTANCE from them too (a yellow speaker vanished in a listened window)."""
MIN_SPEAKER_DISTANCE = 15.0
"""Least CIEDE2000 distance between two speakers of one meeting of up to SAFE_SPEAKERS, in
normal vision and as simulated for protanopia and deuteranopia (held on every AMI meeting)."""
SAFE_SPEAKERS = 6

MACHADO_2009 = {
    "protan": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
               (-0.003882, -0.048116, 1.051998)),
    "deutan": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
               (-0.011820, 0.042940, 0.968881)),
}
"""Machado, Oliveira and Fernandes (2009), severity 1.0: linear-RGB matrices simulating
protanopia and deuteranopia (checked against colorspacious in the tests)."""

_CANDIDATES = (
    "#0072b2", "#56b4e9", "#009e73", "#cc79a7", "#1f77b4", "#2ca02c", "#17becf", "#e377c2",
    "#637939", "#3182bd", "#31a354", "#0b6e4f", "#8c6d31", "#f781bf", "#66c2a5", "#1b9e77",
    "#006d2c", "#ce6dbd", "#44aa99", "#117733", "#999933", "#6699cc", "#00bfbf", "#2166ac",
    "#a6611a", "#80cdc1", "#01665e", "#8c564b", "#393b79", "#9edae5", "#08306b", "#e7ba52",
)
"""Speaker colour candidates (Okabe-Ito, Tol, Tableau and ColorBrewer colours); the first
is the first speaker's, the order of the others is chosen (`_allowed`)."""


def hex_to_rgb(colour: str) -> tuple[float, float, float]:
    """'#rrggbb' -> sRGB components in [0, 1]."""
    text = colour.lstrip("#")
    if len(text) != 6:
        raise ValueError(f"expected a colour as #rrggbb, not {colour!r}")
    return tuple(int(text[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def to_lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65 white) of an sRGB colour '#rrggbb'."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
              for c in hex_to_rgb(colour)]
    m = ((0.4124564, 0.3575761, 0.1804375), (0.2126729, 0.7151522, 0.0721750),
         (0.0193339, 0.1191920, 0.9503041))
    x, y, z = (sum(a * b for a, b in zip(row, linear)) for row in m)
    white = (0.95047, 1.0, 1.08883)

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x / white[0]), f(y / white[1]), f(z / white[2])
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def ciede2000(lab1: Sequence[float], lab2: Sequence[float]) -> float:
    """CIEDE2000 colour difference of two CIELAB colours (kL = kC = kH = 1)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    c_bar = (c1 + c2) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl = l2 - l1
    dc = c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    elif h2p - h1p > 180:
        dh = h2p - h1p - 360
    else:
        dh = h2p - h1p + 360
    dH = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar = (l1 + l2) / 2
    cp_bar = (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        h_bar = (h1p + h2p + 360) / 2
    else:
        h_bar = (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6))
         - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (dH / s_h) ** 2
                     + r_t * (dc / s_c) * (dH / s_h))


def colour_distance(first: str, second: str, vision: str = "normal") -> float:
    """CIEDE2000 distance of two '#rrggbb' colours, as seen in `vision` (normal, protan,
    deutan)."""
    if vision != "normal":
        first, second = simulate_cvd(first, vision), simulate_cvd(second, vision)
    return ciede2000(to_lab(first), to_lab(second))


def simulate_cvd(colour: str, vision: str) -> str:
    """'#rrggbb' as seen with `vision` ("protan" or "deutan", full severity): Machado et al.
    (2009)'s matrix applied to linear RGB, clipped, gamma-encoded again."""
    matrix = MACHADO_2009[vision]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
              for c in hex_to_rgb(colour)]
    out = []
    for row in matrix:
        v = min(max(sum(a * b for a, b in zip(row, linear)), 0.0), 1.0)
        v = 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055
        out.append(f"{round(v * 255):02x}")
    return "#" + "".join(out)


def speaker_distance(first: str, second: str) -> float:
    """The least CIEDE2000 distance of two colours in normal, protan and deutan vision."""
    return min(colour_distance(first, second, v) for v in ("normal", "protan", "deutan"))


def speaker_palette(n: int, reserved: Iterable[str] = RESERVED,
                    min_distance: float = MIN_DISTANCE) -> list[str]:
    """`n` speaker colours ('#rrggbb'), none within `min_distance` (CIEDE2000) of a reserved
    colour, distinct hues first; beyond the candidates that qualify, the list repeats (the
    legend and the labels still tell speakers apart)."""
    allowed = _allowed(tuple(reserved), float(min_distance))
    if not allowed:
        raise ValueError("no speaker colour is far enough from the reserved colours")
    return [allowed[i % len(allowed)] for i in range(max(int(n), 0))]


SPEAKER_ORDER = (
    "#0072b2", "#999933", "#80cdc1", "#0b6e4f", "#56b4e9", "#1b9e77", "#637939", "#cc79a7",
    "#01665e", "#66c2a5", "#ce6dbd", "#006d2c", "#00bfbf", "#6699cc", "#31a354", "#a6611a",
    "#17becf", "#44aa99", "#f781bf", "#2166ac", "#117733", "#1f77b4", "#3182bd", "#009e73",
    "#2ca02c", "#8c6d31", "#e377c2",
)
"""`_choose(RESERVED, MIN_DISTANCE)`, written out: choosing takes ~40 ms of CIEDE2000 in
Python, which the window's start-up would pay (a test holds the two equal)."""


def _allowed(reserved: tuple[str, ...], min_distance: float) -> tuple[str, ...]:
    if reserved == tuple(RESERVED) and min_distance == MIN_DISTANCE:
        return SPEAKER_ORDER
    return _choose(reserved, min_distance)


@lru_cache(maxsize=8)
def _choose(reserved: tuple[str, ...], min_distance: float) -> tuple[str, ...]:
    """The candidates far enough from `reserved`, each next one the farthest (CIEDE2000) from
    those already taken, so that the first few speakers differ most."""
    reserved_lab = [to_lab(c) for c in (*reserved, *BACKDROP)]
    labs = {c: to_lab(c) for c in _CANDIDATES}
    left = [c for c in _CANDIDATES
            if all(ciede2000(labs[c], r) >= min_distance for r in reserved_lab)]
    pair = {(a, b): speaker_distance(a, b) for a in left for b in left if a < b}
    apart = lambda a, b: pair[(a, b) if a < b else (b, a)]  # noqa: E731
    chosen: list[str] = []
    while left:
        if not chosen:
            best = left[0]
        else:   # the farthest from those taken, in the worst of the three visions
            best = max(left, key=lambda c: min(apart(c, k) for k in chosen))
        chosen.append(best)
        left.remove(best)
    return tuple(chosen)


MEETING_COLOURS = ("#2166ac", "#cc79a7", "#2ca02c", "#5c3a00", "#66ccee", "#01665e")
"""The SAFE_SPEAKERS base colours of one meeting's speakers, one per hue family: blue, pink,
green, brown, sky, teal (Tol's and Okabe-Ito's colour-blind-safe palettes, ColorBrewer's
blue and brown). Chosen among the candidates MIN_DISTANCE away from the reserved colours and
the backdrops as the six whose CIELAB hue angles lie farthest apart (≥ 40°) with every pair
≥ MIN_SPEAKER_DISTANCE apart in normal, protan and deutan vision and ≥ 27 in normal vision.
(The farthest-first SPEAKER_ORDER gave six blues and greens that the eye confused at 14 px:
issue gui2.)"""

PATTERNS = ("solid", "bdiag", "cross", "hor", "fdiag", "ver")
"""The second channel of speakers beyond SAFE_SPEAKERS: the fill's pattern (solid, then
hatched / cross-hatched / striped in white over the colour)."""
PATTERN_GLYPHS = {"solid": "\u25a0", "bdiag": "\u25a8", "cross": "\u25a6", "hor": "\u25a4",
                  "fdiag": "\u25a7", "ver": "\u25a5"}
"""A legend swatch per pattern: ■ ▨ ▦ ▤ ▧ ▥ (in DejaVu Sans and the bundled Latin font)."""
PATTERN_NAMES = {"solid": "solid", "bdiag": "hatched", "cross": "cross-hatched",
                 "hor": "striped across", "fdiag": "hatched the other way",
                 "ver": "striped down"}
STYLED_SPEAKERS = SAFE_SPEAKERS * len(PATTERNS)
"""Speakers of one meeting that colour and pattern tell apart (36); beyond, styles repeat and
only the labels (on the lanes, in the legend and the tooltips) tell speakers apart."""


def speaker_style(key: str) -> tuple[str, str]:
    """(colour, pattern) of a speaker's style key: '#0072b2' or '#0072b2/bdiag'."""
    colour, _, pattern = key.partition("/")
    return colour, pattern or "solid"


def base_colour(key: str) -> str:
    """The colour of a style key (its pattern dropped)."""
    return key.partition("/")[0]


def speaker_colours(labels: Iterable[str]) -> dict[str, str]:
    """A style per speaker label of ONE meeting, assigned in sorted label order. Up to
    SAFE_SPEAKERS, plain colours at least MIN_SPEAKER_DISTANCE apart in every vision. (Assigned
    over a whole bundle, two speakers of one meeting drew the 11th and 19th colours: 4.8
    apart.) With more, colour alone cannot keep them apart (VoxConverse's 20 speakers: 13
    pairs under 10 ΔE00): the SAFE_SPEAKERS colours repeat, each round with its own fill
    pattern ('#0072b2/bdiag', `speaker_style`), so two speakers of one meeting either differ
    by MIN_SPEAKER_DISTANCE in colour or differ in pattern, up to STYLED_SPEAKERS."""
    names = sorted(set(labels), key=str)
    colours = MEETING_COLOURS
    if len(names) <= SAFE_SPEAKERS:
        return dict(zip(names, colours))
    out = {}
    for i, name in enumerate(names):
        pattern = PATTERNS[(i // SAFE_SPEAKERS) % len(PATTERNS)]
        colour = colours[i % SAFE_SPEAKERS]
        out[name] = colour if pattern == "solid" else f"{colour}/{pattern}"
    return out


def styles_note(colours: Mapping[str, str]) -> str | None:
    """What the legend says when patterns tell speakers apart (None when colour alone does)."""
    patterns = {speaker_style(c)[1] for c in colours.values()}
    if patterns <= {"solid"}:
        return None
    n = len(colours)
    repeat = (f"; beyond {STYLED_SPEAKERS} speakers styles repeat: read the labels"
              if n > STYLED_SPEAKERS else "")
    return (f"{n} speakers: {SAFE_SPEAKERS} colours, each with up to "
            f"{len(patterns)} fills ({', '.join(PATTERN_NAMES[p] for p in PATTERNS if p in patterns)})"
            f"{repeat}")


def palette_array(colours: Sequence[str]) -> np.ndarray:
    """(n, 3) uint8 RGB of '#rrggbb' colours, for brushes built in bulk."""
    return np.array([[round(c * 255) for c in hex_to_rgb(x)] for x in colours], dtype=np.uint8)


def colour_levels(values) -> tuple[float, float]:
    """The value range a colour map spans for a matrix of scores (NaN for missing cells):
    its finite minimum and maximum, one unit wide when they are equal, (0, 1) when no value
    is finite."""
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if hi <= lo:
        hi = lo + 1.0
    return lo, hi


def unmapped_colours(labels: Iterable[str], mapping) -> dict[str, str]:
    """A tone of UNMAPPED_TONES per hypothesis label that `mapping` leaves out, sorted order."""
    mapping = mapping or {}
    left = sorted({label for label in labels if label not in mapping}, key=str)
    return {label: UNMAPPED_TONES[i % len(UNMAPPED_TONES)] for i, label in enumerate(left)}
