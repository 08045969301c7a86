"""Word-level comparison of MT segments, for highlighting and for judging a change.

`mark_errors(hypothesis, reference)` splits a hypothesis into words flagged as matching the
reference or not (difflib's alignment, the one `diff` users know); `word_edits(a, b)` is the
word-level Levenshtein distance (substitutions, deletions, insertions), the count a post-edit
cost uses. Words are whitespace-separated: this is for display and cost, not for scoring
(scores come from sacrebleu's own tokenisation).
"""
from __future__ import annotations

from difflib import SequenceMatcher
from typing import Iterable


def words(text: str) -> list[str]:
    return text.split()


def mark_errors(hypothesis: str, reference: str) -> list[tuple[str, bool]]:
    """Each word of `hypothesis` with True where it aligns to an equal word of `reference`."""
    hyp, ref = words(hypothesis), words(reference)
    ok = [False] * len(hyp)
    for tag, i1, i2, _, _ in SequenceMatcher(a=hyp, b=ref, autojunk=False).get_opcodes():
        if tag == "equal":
            for i in range(i1, i2):
                ok[i] = True
    return list(zip(hyp, ok))


def mark_changes(new: str, old: str) -> list[tuple[str, bool]]:
    """Each word of `new` with True where it was changed or inserted relative to `old`."""
    return [(w, not same) for w, same in mark_errors(new, old)]


def word_edits(a: str | list[str], b: str | list[str]) -> int:
    """Word-level Levenshtein distance between `a` and `b` (S + D + I); strings are split on
    whitespace. The count itself is `llgui.core.mt.stats.word_edits` (rapidfuzz, jiwer's
    engine), so a post-edit's cost and this display agree."""
    from llgui.core.mt.stats import word_edits as count

    return count(words(a) if isinstance(a, str) else list(a),
                 words(b) if isinstance(b, str) else list(b))


def change_effect(seen: str, adapted: str, reference: str) -> int:
    """+1 if `adapted` is closer to `reference` than `seen` (in word edits), -1 if further,
    0 if as close: how the GUI marks a segment the system changed by itself."""
    before, after = word_edits(seen, reference), word_edits(adapted, reference)
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
