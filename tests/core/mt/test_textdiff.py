"""Word-level diff and edit counts used for highlighting and post-edit costs."""
from __future__ import annotations

import jiwer
from hypothesis import given, settings, strategies as st

from llgui.core.mt.textdiff import change_effect, mark_changes, mark_errors, word_edits

sentence = st.lists(st.sampled_from(["a", "b", "c", "d", "der", "Haus"]), max_size=10)


@settings(max_examples=500, deadline=None, database=None, derandomize=True)
@given(hyp=sentence, ref=sentence.filter(bool))
def test_word_edits_equal_jiwer(hyp, ref):
    if hyp:
        out = jiwer.process_words(" ".join(ref), " ".join(hyp))
        expected = out.substitutions + out.deletions + out.insertions
    else:
        expected = len(ref)  # everything deleted; jiwer refuses an empty hypothesis string
    assert word_edits(hyp, ref) == expected
    assert word_edits(" ".join(hyp), " ".join(ref)) == expected


def test_mark_errors_flags_the_words_not_in_the_reference():
    #   hyp: the  cat  sat on  a   mat
    #   ref: the  cat  sat on  the mat
    assert mark_errors("the cat sat on a mat", "the cat sat on the mat") == [
        ("the", True), ("cat", True), ("sat", True), ("on", True), ("a", False), ("mat", True)]


def test_mark_changes_flags_inserted_and_replaced_words():
    assert mark_changes("a big red house", "a red house") == [
        ("a", False), ("big", True), ("red", False), ("house", False)]


def test_change_effect_signs():
    ref = "the cat sat on the mat"
    assert change_effect("the dog sat", "the cat sat on the mat", ref) == 1
    assert change_effect("the cat sat on the mat", "the dog sat", ref) == -1
    assert change_effect("the dog sat", "the cow sat", ref) == 0
