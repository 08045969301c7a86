"""Word- or character-level comparison of MT segments, for highlighting and judging a change.

`mark_errors(hypothesis, reference, unit)` splits a hypothesis into tokens flagged as matching
the reference or not (difflib's alignment, the one `diff` users know); `edits(a, b, unit)` is
the Levenshtein distance (substitutions, deletions, insertions) over the cost units, the count
a post-edit cost uses. The unit is the bundle's (`llgui.core.mt.script.unit_of`): "words"
splits on white space; "characters" (Chinese, Japanese, Thai, ...) compares each character of
a script written without spaces, so "。" against "." marks one character, not the segment.
This is for display and cost, not for scoring (scores come from sacrebleu's tokenisation).
"""
from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Iterable

from llgui.core.mt.script import WORDS, spaced_tokens, tokens, units


def words(text: str) -> list[str]:
    return text.split()


def _aligned(a: list[str], b: list[str]) -> list[bool]:
    ok = [False] * len(a)
    for tag, i1, i2, _, _ in SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            for i in range(i1, i2):
                ok[i] = True
    return ok


def mark_errors(hypothesis: str, reference: str, unit: str = WORDS) -> list[tuple[str, bool]]:
    """Each token of `hypothesis` with True where it aligns to an equal token of
    `reference` (tokens: `llgui.core.mt.script.tokens` of `unit`)."""
    hyp = tokens(hypothesis, unit)
    return list(zip(hyp, _aligned(hyp, tokens(reference, unit))))


def mark_changes(new: str, old: str, unit: str = WORDS) -> list[tuple[str, bool]]:
    """Each token of `new` with True where it was changed or inserted relative to `old`."""
    return [(w, not same) for w, same in mark_errors(new, old, unit)]


@dataclass(frozen=True)
class Piece:
    """One token of a marked text: `wrong` = not in the reference, `changed` = changed or
    inserted by the step, `space` = what follows it ("" or " ")."""

    text: str
    wrong: bool
    changed: bool
    space: str


def marked(text: str, reference: str, before: str | None = None,
           unit: str = WORDS) -> list[Piece]:
    """`text` cut into the tokens of `unit`, each marked against `reference` and (when
    given) against `before`, the text it replaced; the spaces are the text's own, so the
    pieces read as the original (no space is put between two Chinese characters)."""
    spaced = spaced_tokens(text, unit)
    hyp = [t for t, _ in spaced]
    ok = _aligned(hyp, tokens(reference, unit))
    kept = _aligned(hyp, tokens(before, unit)) if before is not None else [True] * len(hyp)
    return [Piece(t, not good, not same, space)
            for (t, space), good, same in zip(spaced, ok, kept)]


def word_edits(a: str | list[str], b: str | list[str]) -> int:
    """Word-level Levenshtein distance between `a` and `b` (S + D + I); strings are split on
    whitespace. The count itself is `llgui.core.mt.stats.word_edits` (rapidfuzz, jiwer's
    engine), so a post-edit's cost and this display agree."""
    from llgui.core.mt.stats import word_edits as count

    return count(words(a) if isinstance(a, str) else list(a),
                 words(b) if isinstance(b, str) else list(b))


def edits(a: str, b: str, unit: str = WORDS) -> int:
    """Levenshtein distance between `a` and `b` over the cost units of `unit` (words, or
    non-space characters): a post-edit's cost before its weight."""
    return word_edits(units(a, unit), units(b, unit))


def change_effect(seen: str, adapted: str, reference: str, unit: str = WORDS) -> int:
    """+1 if `adapted` is closer to `reference` than `seen` (in edits of `unit`), -1 if
    further, 0 if as close: how the GUI marks a segment the system changed by itself."""
    before, after = edits(seen, reference, unit), edits(adapted, reference, unit)
    return (after < before) - (after > before)


def correction_fate(correct: str, adapted: str, seen: str) -> str:
    """What the system did with a corrected segment: "applied" (its new hypothesis is the
    correction), "ignored" (unchanged from what the human saw) or "changed otherwise" (a
    correction is not a fix until the system takes it)."""
    if adapted == correct:
        return "applied"
    return "ignored" if adapted == seen else "changed otherwise"


def effect_counts(effects: Iterable[int]) -> tuple[int, int]:
    """(better, worse): how many of a step's `change_effect`s are +1 and -1."""
    effects = list(effects)
    return sum(e > 0 for e in effects), sum(e < 0 for e in effects)
