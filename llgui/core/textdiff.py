"""Word-level comparison of MT segments, for highlighting and for judging a change.

`mark_errors(hypothesis, reference)` splits a hypothesis into words flagged as matching the
reference or not (difflib's alignment, the one `diff` users know); `word_edits(a, b)` is the
word-level Levenshtein distance (substitutions, deletions, insertions), the count a post-edit
cost uses. Words are whitespace-separated: this is for display and cost, not for scoring
(scores come from sacrebleu's own tokenisation).
"""
from __future__ import annotations

from difflib import SequenceMatcher

import numpy as np


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
    """Word-level Levenshtein distance between `a` and `b` (S + D + I)."""
    x = words(a) if isinstance(a, str) else list(a)
    y = words(b) if isinstance(b, str) else list(b)
    if not x:
        return len(y)
    if not y:
        return len(x)
    vocab: dict[str, int] = {}
    xi = np.array([vocab.setdefault(w, len(vocab)) for w in x])
    yi = np.array([vocab.setdefault(w, len(vocab)) for w in y])
    previous = np.arange(len(y) + 1)
    for i in range(1, len(x) + 1):
        current = np.empty_like(previous)
        current[0] = i
        substitution = previous[:-1] + (yi != xi[i - 1])
        deletion = previous[1:] + 1
        best = np.minimum(substitution, deletion)
        # insertions run along the row: a cumulative minimum of best[j] - j, plus j
        j = np.arange(1, len(y) + 1)
        running = np.minimum.accumulate(np.concatenate(([i], best - j)))
        current[1:] = np.minimum(best, running[1:] + j)
        previous = current
    return int(previous[-1])


def change_effect(seen: str, adapted: str, reference: str) -> int:
    """+1 if `adapted` is closer to `reference` than `seen` (in word edits), -1 if further,
    0 if as close: how the GUI marks a segment the system changed by itself."""
    before, after = word_edits(seen, reference), word_edits(adapted, reference)
    return (after < before) - (after > before)
