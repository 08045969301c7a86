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


def test_the_fate_of_a_correction_and_the_effect_counts():
    from llgui.core.mt.textdiff import correction_fate, effect_counts

    assert correction_fate("the cat sat", "the cat sat", "a cat sat") == "applied"
    assert correction_fate("the cat sat", "a cat sat", "a cat sat") == "ignored"
    assert correction_fate("the cat sat", "the cat sits", "a cat sat") == "changed otherwise"
    effects = [change_effect("a b c", "a b d", "a b d"), change_effect("a b d", "a b c", "a b d"),
               change_effect("a b c", "a b e", "a b d"), 1]
    assert effects == [1, -1, 0, 1]
    assert effect_counts(effects) == (2, 1)
    assert effect_counts({3: 1, 7: -1}.values()) == (1, 1)
