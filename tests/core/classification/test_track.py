"""ClassTrack: penalised error rate and macro-F1 per step equal scikit-learn on the rebuilt
decisions (corrected: the true labels; impaired: a wrong label)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llgui.core.classification.track import CLASS_METRICS, ClassMetric, ClassTrack
from llgui.core.penalty import replay
from llgui.core.types import Adapted, ClassDocument, ItemsTarget, Stamp, Step

CLASSES = ("cat", "dog", "emu", "fox")


@st.composite
def runs(draw):
    n_classes = draw(st.integers(2, 4))
    classes = CLASSES[:n_classes]
    cls = st.sampled_from(classes)
    n = draw(st.integers(1, 25))
    truth = draw(st.lists(cls, min_size=n, max_size=n))
    decided = draw(st.lists(cls, min_size=n, max_size=n))
    steps = []
    for k in range(draw(st.integers(1, 4))):
        items = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4, unique=True))
        changed = draw(st.dictionaries(st.integers(0, n - 1), cls, max_size=5))
        steps.append(Step("sys", k + 1, "active", "label",
                          ItemsTarget(tuple(f"i{i}" for i in items)),
                          tuple(truth[i] for i in items),
                          adapted=Adapted(labels={f"i{i}": c for i, c in changed.items()})
                          if changed else None))
    return classes, truth, decided, steps


def sklearn_score(name, truth, decided, classes) -> float:
    from sklearn.metrics import accuracy_score, f1_score

    if name == "error_rate":
        return 100.0 * (1.0 - accuracy_score(truth, decided))
    return 100.0 * f1_score(truth, decided, labels=list(classes), average="macro",
                            zero_division=0)


@settings(max_examples=12, deadline=None)
@given(runs(), st.sampled_from(CLASS_METRICS))
def test_each_step_equals_scikit_learn_on_the_rebuilt_decisions(run, name):
    classes, truth, decided, steps = run
    doc = ClassDocument("sys", Stamp(0.0, "0"), tuple(f"i{i}" for i in range(len(truth))),
                        tuple(truth), tuple(decided), classes)
    result = replay(ClassTrack(doc, ClassMetric(name, len(classes))), steps)
    current = list(decided)
    assert result.s_base == pytest.approx(sklearn_score(name, truth, current, classes), abs=1e-12)
    penalty = 0.0
    for step, got in zip(steps, result.steps):
        items = [int(i[1:]) for i in step.target.items]
        cor, imp = list(current), list(current)
        for i in items:
            cor[i] = truth[i]
            # wrong: the system's own decision if wrong, else the next class after the truth
            imp[i] = current[i] if current[i] != truth[i] else \
                classes[(classes.index(truth[i]) + 1) % len(classes)]
            assert imp[i] != truth[i]
        if step.adapted is not None:
            for i, c in step.adapted.labels.items():
                current[int(i[1:])] = c
        s_cor = sklearn_score(name, truth, cor, classes)
        s_imp = sklearn_score(name, truth, imp, classes)
        s_adapt = sklearn_score(name, truth, current, classes)
        penalty += s_imp - s_cor
        assert (got.s_cor, got.s_imp, got.s_adapt) == pytest.approx((s_cor, s_imp, s_adapt),
                                                                   abs=1e-12)
        assert got.s_pen == pytest.approx(s_adapt + penalty, abs=1e-12)


def test_the_walkthrough_keeps_labelled_and_re_decided_items():
    from llgui.core.cost import CostModel
    from llgui.core.walkthrough import walk

    doc = ClassDocument("sys", Stamp(0.0, "0"), ("a", "b", "c", "d"),
                        ("cat", "dog", "emu", "cat"), ("cat", "cat", "emu", "dog"),
                        ("cat", "dog", "emu"))
    steps = (Step("sys", 1, "active", "label", ItemsTarget(("b",)), ("dog",),
                  adapted=Adapted(labels={"b": "dog", "d": "cat"})),)
    result = walk(doc, steps, "error_rate", {}, CostModel())
    (view,) = result.steps
    assert view.corrected_segments == (1,) and view.changed_segments == (3,)
    assert list(result.base) == [0, 0, 2, 1] and list(view.adapted) == [0, 1, 2, 0]
    assert (view.scores.s_cor, view.scores.s_imp, view.scores.s_adapt) == (25.0, 50.0, 0.0)


def test_wrong_first_decisions_are_scikit_learns_zero_one_loss():
    from sklearn.metrics import zero_one_loss

    truth, decided = ("cat", "dog", "emu", "cat", "fox"), ("cat", "cat", "emu", "dog", "fox")
    doc = ClassDocument("sys", Stamp(0.0, "0"), tuple("abcde"), truth, decided, CLASSES)
    assert doc.n_wrong == zero_one_loss(truth, decided, normalize=False) == 2
