"""One document replayed with everything a reviewer looks at, step by step.

`walk()` runs the penalty engine (`llgui.core.penalty.replay`) once for the numbers of every
step, and keeps only what it takes to rebuild any step's hypotheses later: MT, the base
segments and, per segment, the steps that changed it (so the hypothesis at step n is read
segment by segment, never copied); diarization, the turn list after each step (shared with
the log's `adapted`, never copied). What a step looked like (`StepView`: the hypothesis the
human saw h_{n-1}, its corrected and impaired versions, the adapted h_n, the windows, the
speaker mappings and error regions, the segments the system changed and whether each got
better) is built on demand by `Walkthrough.view(n)` and kept in a small bounded cache, so the
memory is the document's plus the log's, not document x steps. A diarization view costs a few
full DER sweeps of the show: the GUI builds it on a worker (`view` is thread-safe).

The numbers are the replay's, so the window and `llgui replay` cannot disagree.
"""
from __future__ import annotations

import threading
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping, Sequence

from llgui.core.cost import CostModel
from llgui.core.penalty import Replay, StepScores, make_track, replay
from llgui.core.track import Track
from llgui.core.types import Document, Step

Hypothesis = Sequence  # MT: `Segments` (str per segment); diarization: tuple[Turn, ...];
# detection: a read-only float array of the trials' scores

VIEW_CACHE = 16
"""Step views kept per walkthrough (a 10-hour show's view holds three turn lists)."""


class Segments(Sequence[str]):
    """The MT hypothesis at one step, read through the walkthrough's change history: O(log k)
    per segment (k = the times that segment changed), nothing copied. Compares equal to a
    tuple or list of the same strings."""

    __slots__ = ("_base", "_history", "_upto", "_override")

    def __init__(self, base: tuple[str, ...], history: Mapping[int, tuple[list, list]],
                 upto: int, override: Mapping[int, str] | None = None):
        self._base, self._history, self._upto = base, history, upto
        self._override = override or {}

    def __len__(self) -> int:
        return len(self._base)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self._base)
        if index in self._override:
            return self._override[index]
        changes = self._history.get(index)
        if changes is not None:
            at = bisect_right(changes[0], self._upto)
            if at:
                return changes[1][at - 1]
        return self._base[index]

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self._base)))

    def __eq__(self, other) -> bool:
        if isinstance(other, (Segments, tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __hash__(self):  # a view of mutable-looking data: compared, never hashed
        raise TypeError("Segments is not hashable")

    def __repr__(self) -> str:
        return f"Segments({len(self)} segments at step {self._upto})"


@dataclass(frozen=True, eq=False)
class StepView:
    """What step n looked like. MT `corrected_segments` are 0-based; diarization `windows`
    are (start, end) seconds of this document. MT `effects` gives, for each changed segment,
    +1 / -1 / 0 when the system's change brought it closer to / further from / as far from
    the reference in edits of the bundle's unit, words or characters
    (`llgui.core.mt.textdiff.change_effect`). Detection:
    `corrected_segments` are the labelled trials' positions, `changed_segments` the other
    trials whose scores the system changed (generalisation); classification likewise with
    decisions."""

    step: Step
    scores: StepScores
    seen: Hypothesis
    corrected: Hypothesis
    impaired: Hypothesis | None
    adapted: Hypothesis
    corrected_segments: tuple[int, ...] = ()
    changed_segments: tuple[int, ...] = ()
    windows: tuple[tuple[float, float], ...] = ()
    unmappable: str | None = None
    mapping: dict | None = None          # diarization: optimal mapping of `seen` (hyp -> ref)
    adapted_mapping: dict | None = None  # diarization: optimal mapping of `adapted`
    adapted_errors: tuple = ()           # diarization: (start, end, kind) regions of `adapted`
    effects: Mapping[int, int] = field(default_factory=dict)


class _Steps(Sequence[StepView]):
    """`Walkthrough.steps`: step n-1 is `walk.view(n)`, built on access."""

    def __init__(self, walk: "Walkthrough"):
        self._walk = walk

    def __len__(self) -> int:
        return len(self._walk.replay.steps)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        return self._walk.view(index + 1)


class Walkthrough:
    """A document's replay and what it takes to show any step (see the module text)."""

    def __init__(self, document: Document, replay_: Replay, log: tuple[Step, ...], *,
                 mt: dict | None = None, diar: dict | None = None, det: dict | None = None):
        self.document = document
        self.replay = replay_
        self.log = log
        self._mt = mt
        self._diar = diar
        self._det = det
        self._lock = threading.Lock()
        self._views: OrderedDict[int, StepView] = OrderedDict()
        self._base_extra: tuple | None = None
        self.questions: dict | None = None
        """Step number -> its question value (`llgui.core.effort.question.QuestionValue`)
        for the active steps, when the job that built the walkthrough computed them."""

    @property
    def steps(self) -> _Steps:
        """Every step's view, built on access (a view object per call: a walkthrough holds
        no reference to itself, so refcounting frees it as soon as it is evicted, even
        frozen out of the garbage collector)."""
        return _Steps(self)

    # -- hypotheses -------------------------------------------------------------------------

    @property
    def base(self) -> Hypothesis:
        """h_0."""
        return self.hypothesis_at(0)

    def hypothesis_at(self, n: int) -> Hypothesis:
        """h_n: the base for n = 0, the adapted hypothesis of step n otherwise."""
        n = max(0, min(n, len(self.replay.steps)))
        if self._mt is not None:
            return Segments(self._mt["base"], self._mt["history"], n)
        if self._det is not None:
            return self._det["hypotheses"][n]
        return self._diar["hypotheses"][n]

    def is_cached(self, n: int) -> bool:
        """True when `view(n)` (or for n = 0 the base mapping and errors) is ready."""
        with self._lock:
            return n in self._views if n > 0 else self._base_extra is not None or \
                self._mt is not None or self._det is not None

    # -- diarization extras of h_0 ----------------------------------------------------------

    def _base_mapping_errors(self) -> tuple:
        if self._mt is not None or self._det is not None:
            return (None, ())
        with self._lock:
            if self._base_extra is not None:
                return self._base_extra
        probe = self._diar["probe"](self.hypothesis_at(0), self._mapping_of(0))
        mapping = dict(probe.mapping())
        extra = (mapping, _regions(self._stepped_errors(self.hypothesis_at(0), mapping)
                                   or probe.error_regions(mapping)))
        with self._lock:
            self._base_extra = extra
        return extra

    @property
    def base_mapping(self) -> dict | None:
        return self._base_mapping_errors()[0]

    @property
    def base_errors(self) -> tuple:
        return self._base_mapping_errors()[1]

    def errors_at(self, n: int) -> tuple:
        """Diarization: where h_n is correct, missed, false alarm or confused."""
        return self.base_errors if n <= 0 else self.view(min(n, len(self.steps))).adapted_errors

    # -- step views -------------------------------------------------------------------------

    def view(self, n: int, checkpoint=None) -> StepView:
        """What step n (1-based) looked like; built on first use, then cached (bounded).
        `checkpoint`: called between the parts of a diarization view (a few sweeps of a long
        show, tens of ms each): a worker's job pauses or stops there."""
        if not 1 <= n <= len(self.replay.steps):
            raise IndexError(n)
        with self._lock:
            cached = self._views.get(n)
            if cached is not None:
                self._views.move_to_end(n)
                return cached
        if self._mt is not None:
            built = self._build_mt(n)
        elif self._det is not None:
            built = self._build_det(n)
        else:
            built = self._build_diar(n, checkpoint or (lambda: None))
        with self._lock:
            self._views[n] = built
            while len(self._views) > VIEW_CACHE:
                self._views.popitem(last=False)
        return built

    def _build_mt(self, n: int) -> StepView:
        from llgui.core.mt.textdiff import change_effect

        mt = self._mt
        index, correct_text, changed = mt["per_step"][n - 1]
        seen = Segments(mt["base"], mt["history"], n - 1)
        adapted = Segments(mt["base"], mt["history"], n)
        reference = self.document.references[0]
        unit = self.replay.cost_unit or "words"   # characters for scripts without spaces
        effects = {i: change_effect(seen[i], adapted[i], reference[i], unit) for i in changed}
        return StepView(step=self.log[n - 1], scores=self.replay.steps[n - 1], seen=seen,
                        corrected=Segments(mt["base"], mt["history"], n - 1,
                                           {index: correct_text}),
                        impaired=None, adapted=adapted, corrected_segments=(index,),
                        changed_segments=changed, effects=effects)

    def _build_det(self, n: int) -> StepView:
        import numpy as np

        seen, adapted = self.hypothesis_at(n - 1), self.hypothesis_at(n)
        items = self._det["items"][n - 1]
        labelled = set(items)
        changed = tuple(int(k) for k in np.flatnonzero(adapted != seen).tolist()
                        if k not in labelled)
        return StepView(step=self.log[n - 1], scores=self.replay.steps[n - 1], seen=seen,
                        corrected=seen, impaired=None, adapted=adapted,
                        corrected_segments=items, changed_segments=changed)

    def _build_diar(self, n: int, checkpoint) -> StepView:
        step = self.log[n - 1]
        seen = self.hypothesis_at(n - 1)
        adapted = self.hypothesis_at(n)
        # h_{n-1}'s mapping, from the view before when it is cached: no DER sweep
        probe = self._diar["probe"](seen, self._mapping_of(n - 1))
        impaired, label = probe.impaired_hypothesis(step)
        mapping = dict(probe.mapping())
        checkpoint()
        if adapted is seen:
            adapted_mapping = mapping
            adapted_errors = self._errors_of(n - 1, probe, mapping)
        else:
            after = self._diar["probe"](adapted, self._mapping_of(n))
            adapted_mapping = dict(after.mapping())
            checkpoint()
            adapted_errors = _regions(self._stepped_errors(adapted, adapted_mapping)
                                      or after.error_regions(adapted_mapping))
        checkpoint()
        corrected = tuple(probe.corrected_hypothesis(step))
        return StepView(step=step, scores=self.replay.steps[n - 1], seen=seen,
                        corrected=corrected,
                        impaired=tuple(impaired), adapted=adapted, unmappable=label,
                        windows=tuple(probe.windows(step)), mapping=mapping,
                        adapted_mapping=adapted_mapping, adapted_errors=adapted_errors)

    def _stepped_errors(self, hypothesis, mapping) -> list | None:
        """The error regions of `hypothesis` under `mapping` from the walkthrough's region
        cursor (swept only where the hypothesis changed since the one it stands at), or None
        (`RegionCursor.regions`)."""
        cursor = self._diar.get("cursor")
        return cursor.regions(hypothesis, mapping) if cursor is not None else None

    def _mapping_of(self, n: int) -> dict | None:
        """h_n's optimal mapping when a view already holds it or the replay kept it (else
        None)."""
        with self._lock:
            if n == 0 and self._base_extra is not None:
                return self._base_extra[0]
            cached = self._views.get(n) if n > 0 else None
        if cached is not None:
            return cached.adapted_mapping
        kept = self._diar.get("mappings", ()) if self._diar is not None else ()
        return kept[n] if 0 <= n < len(kept) else None

    def _errors_of(self, n: int, probe, mapping) -> tuple:
        """Error regions of h_n, reusing a cached view's when there is one."""
        if n == 0:
            return self.base_errors
        with self._lock:
            cached = self._views.get(n)
        if cached is not None:
            return cached.adapted_errors
        return _regions(probe.error_regions(mapping))


def _regions(regions) -> tuple:
    """A track's error regions as a step view keeps them: a tuple, with the arrays they were
    made from (`der.region_tuple`: the timeline draws from those)."""
    from llgui.core.diarization.der import region_tuple

    return region_tuple(regions)


def walk(
    document: Document,
    steps: tuple[Step, ...],
    metric_name: str,
    settings,
    cost_model: CostModel,
    *,
    mode: str = "paper",
    should_stop: Callable[[], bool] | None = None,
    documents: tuple[Document, ...] = (),
    progress: Callable[[float], None] | None = None,
    memorise: bool = False,
) -> Walkthrough:
    """The walkthrough of `document` through `steps`; `documents` are the bundle's others.
    `memorise`: also replay a second track for the memorise-only S_pen of each step
    (`StepScores.s_pen_memorise`, figure 4 of the paper; MT and diarization, about twice the work)."""
    steps = tuple(steps)
    n_steps = max(len(steps), 1)
    # progress: the statistics extraction is the first half, the steps the second
    first_half = None if progress is None else (lambda f: progress(0.5 * f))
    track = make_track(document, metric_name, settings, cost_model, documents,
                       progress=first_half, should_stop=should_stop)
    if document.task in ("detection", "classification"):
        return _walk_items(document, steps, track, cost_model, mode, should_stop)
    twin = (make_track(document, metric_name, settings, cost_model, documents)
            if memorise else None)
    if progress is not None:
        second = progress
        progress = lambda f: second(0.5 + 0.5 * f)  # noqa: E731
    if document.task == "mt":
        base = tuple(document.hypothesis)
        history: dict[int, tuple[list, list]] = {}
        per_step: list[tuple[int, str, tuple[int, ...]]] = []

        def before(step: Step, tr: Track) -> None:
            n = len(per_step) + 1
            index = step.target.sentence - 1  # type: ignore[union-attr]
            changes = tr.adapted_changes(step)  # type: ignore[attr-defined]
            for i, text in changes.items():
                numbers, texts = history.setdefault(i, ([], []))
                numbers.append(n)
                texts.append(text)
            per_step.append((index, tr.correct_text(step),  # type: ignore[attr-defined]
                             tuple(sorted(i for i in changes if i != index))))
            if progress is not None and n % 64 == 0:
                progress(n / n_steps)

        result = replay(track, steps, cost_model, doc=document.id, mode=mode,
                        should_stop=should_stop, before_step=before, memorise=twin)
        return Walkthrough(document, result, steps,
                           mt={"base": base, "history": history, "per_step": per_step})

    hypotheses = [track.hypothesis]  # type: ignore[attr-defined]
    done = [0]
    # h_n's optimal mapping where the replay's scorer holds it (a long show's incremental
    # one): a step's view then makes no sweep of the whole show for it (40 ms of a 10-hour
    # show's view job, a quarter of it)
    mappings: list[dict | None] = []
    known = getattr(track, "known_mapping", lambda: None)

    def before_diar(step: Step, tr: Track) -> None:
        mappings.append(known())
        done[0] += 1
        if progress is not None and done[0] % 8 == 0:
            progress(done[0] / n_steps)

    result = replay(track, steps, cost_model, doc=document.id, mode=mode,
                    should_stop=should_stop, before_step=before_diar, memorise=twin)
    # h_n: the adapted turn list of step n (shared with the log), else h_{n-1}
    for step in steps:
        adapted = step.adapted
        hypotheses.append(tuple(adapted.turns) if adapted is not None and adapted.turns
                          is not None else hypotheses[-1])
    if len(mappings) == len(result.steps):   # (else the replay stopped early: none kept)
        mappings.append(known())
    else:
        mappings = []
    from llgui.core.diarization.region_cursor import RegionCursor

    probe = track.at  # type: ignore[attr-defined]
    cursor = RegionCursor(track.scorer_at)  # type: ignore[attr-defined]
    return Walkthrough(document, result, steps, diar={"hypotheses": hypotheses, "probe": probe,
                                                      "mappings": mappings, "cursor": cursor})


def _walk_items(document, steps, track, cost_model, mode, should_stop) -> Walkthrough:
    """The walkthrough of a detection or classification system: what the human saw at each
    step (detection: every trial's score; classification: every item's decided class, as an
    index into `document.classes`), the labelled items, and the items the system changed
    besides them."""
    import numpy as np

    def frozen(tr) -> np.ndarray:
        if document.task == "detection":
            array = np.array(tr.scores, dtype=float)
        else:
            index = {c: k for k, c in enumerate(document.classes)}
            array = np.array([index[c] for c in tr.decisions], dtype=np.int64)
        array.setflags(write=False)
        return array

    seen: list = []
    items: list[tuple[int, ...]] = []

    def before(step: Step, tr: Track) -> None:
        seen.append(frozen(tr))
        items.append(tuple(tr.positions(step).tolist()))  # type: ignore[attr-defined]

    result = replay(track, steps, cost_model, doc=document.id, mode=mode,
                    should_stop=should_stop, before_step=before)
    hypotheses = seen + [frozen(track)]  # h_0 .. h_N
    return Walkthrough(document, result, steps, det={"hypotheses": hypotheses, "items": items})
