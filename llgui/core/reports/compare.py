"""Systems side by side: every metric of several systems against a baseline, with intervals
and paired significance tests (DESIGN 1.7, the `compare` command of section 7).

Systems come as bundles on the same documents (one bundle, one system, named by its
`[bundle] name`, which defaults to the file stem), or as detection score files on the same
trials. Every statistic comes from the cache the rest of llgui builds (tracks and replays):
per-unit additive statistics for the plain metrics (`resample.Additive`), the replayed
document stream for the penalised ones (`significance.penalised.StreamSample`, document unit always:
a correction's effect spreads inside its document), and sorted trials for detection
(`significance.detection.TrialSample`). A campaign feeds `compare_samples` the same objects.

On MT segments the statistics are scored in float32, as sacrebleu's `PairedTest` does, so
the numbers equal it (DESIGN 1.7); every other unit is float64.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from llgui.core.errors import LoadError, Problem
from llgui.core.jobs import check, report
from llgui.core.metrics import default_metrics, display_name, info
from llgui.core.significance.resample import Estimate, Plan, Sample, paired_test

DEFAULT_UNIT = {"mt": "segment", "diarization": "document", "detection": "trial"}
UNITS_OF_TASK = {"mt": ("segment", "document"), "diarization": ("document",),
                 "detection": ("trial", "speaker")}
PENALISED = ("s_adapt", "s_pen")


@dataclass(frozen=True)
class MetricComparison:
    """One metric (or penalised measure) of every system, the baseline first.

    `key`: `bleu`, or `bleu.s_pen` for a penalised measure; `signature`: the metric's own
    (sacrebleu's, pyannote's); `resampling`: the plan's signature with the unit used."""

    key: str
    label: str
    higher_is_better: bool
    signature: str
    resampling: str
    estimates: tuple[Estimate, ...]


@dataclass(frozen=True)
class Comparison:
    """The result of `compare`: systems (baseline first) x metrics."""

    task: str
    baseline: str
    systems: tuple[str, ...]
    plan: Plan
    metrics: tuple[MetricComparison, ...]

    def report(self) -> dict:
        """The JSON shape of DESIGN section 7 (`compare`), with a few added keys.

        Per system and metric: `score`; the percentile interval `low`/`high` (95 %) over
        `n_units` units of `unit`; sacrebleu's `mean` and `ci` (half-width about the mean);
        `p_value` with the `test` that produced it (`bs`, `ar`, `ar-exact`) and its smallest
        possible value `p_min`; `too_few` (fewer than MIN_UNITS units: the bootstrap interval
        is not trusted, the p is the exact randomisation one); `significant` (p < 0.05 from a
        trusted test: the table's star); `ties` (units equal to the baseline's within the tie
        tolerance); `effect`: the difference to the baseline and the probability that humans
        agree with its ranking (BLEU, chrF; Kocmi et al. 2024), null for other metrics."""
        from llgui.core.significance.effect import effect_entry
        from llgui.core.significance.resample import MIN_UNITS, TIE_TOLERANCE

        systems = []
        for k, name in enumerate(self.systems):
            entry = {}
            for m in self.metrics:
                e = m.estimates[k]
                base = m.estimates[0]
                item = {"score": e.score, "low": e.low, "high": e.high, "mean": e.mean,
                        "ci": e.ci, "p_value": e.p_value, "test": e.test, "p_min": e.p_min,
                        "significant": e.significant, "n_units": e.n_units,
                        "too_few": e.too_few, "ties": e.ties,
                        "unit": m.resampling.rsplit(":", 1)[1]}
                if k > 0:
                    # the plain metric only: the published curves are of corpus scores
                    item["effect"] = effect_entry(m.key, e.score - base.score, m.signature)
                entry[m.key] = item
            systems.append({"name": name, "metrics": entry})
        return {
            "baseline": self.baseline, "test": self.plan.test, "unit": self.plan.unit,
            "samples": self.plan.samples, "seed": self.plan.seed,
            "signature": self.plan.signature, "task": self.task,
            "min_units": MIN_UNITS, "tie_tolerance": TIE_TOLERANCE,
            "metric_signatures": {m.key: {"signature": m.signature, "resampling": m.resampling,
                                          "higher_is_better": m.higher_is_better,
                                          "label": m.label}
                                  for m in self.metrics},
            "systems": systems,
        }


def compare_samples(names: Sequence[str], baseline: str,
                    metrics: Sequence[tuple[str, str, bool, str, str, Sequence[Sample]]],
                    plan: Plan, task: str = "", groups: np.ndarray | None = None,
                    progress: Callable[[float], None] | None = None,
                    should_stop: Callable[[], bool] | None = None) -> Comparison:
    """The engine's entry for any source of systems (bundles here, a campaign later).

    `metrics`: (key, label, higher_is_better, signature, unit, samples) with one Sample per
    system in the order of `names`. The baseline is moved first."""
    if baseline not in names:
        raise ValueError(f"no system named {baseline!r} (systems: {', '.join(names)})")
    first = list(names).index(baseline)
    order = [first] + [k for k in range(len(names)) if k != first]
    out = []
    for i, (key, label, higher, signature, unit, samples) in enumerate(metrics):
        check(should_stop)
        unit_plan = plan.with_unit(unit)

        def part(f: float, i: int = i) -> None:
            report(progress, (i + f) / max(1, len(metrics)))

        ordered = [samples[k] for k in order]
        estimates = paired_test(ordered[0], ordered[1:], unit_plan,
                                groups=groups if unit == "speaker" else None,
                                progress=part, should_stop=should_stop)
        out.append(MetricComparison(key, label, higher, signature, unit_plan.signature,
                                    estimates))
    return Comparison(task, baseline, tuple(names[k] for k in order), plan, tuple(out))


# --------------------------------------------------------------------------------------------
# Bundles


def check_same_documents(bundles: Sequence) -> None:
    """Raise LoadError naming every document (or trial list) that differs from the first
    bundle's: missing, extra, or with other segments / references."""
    first = bundles[0]
    problems = []
    tasks = {b.task for b in bundles}
    if len(tasks) > 1:
        raise LoadError([Problem(str(b.path), 0, f"task {b.task!r}: every compared bundle "
                                 f"must have the same task (the first has {first.task!r})")
                         for b in bundles[1:] if b.task != first.task])
    if first.task == "detection":
        return
    for b in bundles:   # a document cut short is compared as a missing one would be: not
        cut = list(getattr(b, "partial", ()) or ())   # (issue 32)
        if cut:
            problems.append(Problem(str(b.path), 0, "documents cut short here (the run "
                                    "stopped in them, fewer steps than they would have had): "
                                    + ", ".join(cut) + "; compare needs every document of "
                                    "every system complete, as for a missing one"))
    ref = {d.id: d for d in first.documents}
    for b in bundles[1:]:
        ids = {d.id for d in b.documents}
        missing = [d.id for d in first.documents if d.id not in ids]
        extra = [d.id for d in b.documents if d.id not in ref]
        if missing:
            problems.append(Problem(str(b.path), 0, f"documents of {first.path} missing here: "
                                    + ", ".join(missing)))
        if extra:
            problems.append(Problem(str(b.path), 0, f"documents not in {first.path}: "
                                    + ", ".join(extra)))
        for d in b.documents:
            other = ref.get(d.id)
            if other is None:
                continue
            if d.task == "mt" and (d.n_segments != other.n_segments
                                   or d.references != other.references):
                problems.append(Problem(str(b.path), 0, f"document {d.id!r} differs from "
                                        f"{first.path}'s: {d.n_segments} segments against "
                                        f"{other.n_segments}, or other references"))
            if d.task == "diarization" and (d.reference != other.reference
                                            or d.uem != other.uem):
                problems.append(Problem(str(b.path), 0, f"document {d.id!r} differs from "
                                        f"{first.path}'s: other reference turns or UEM"))
    if problems:
        raise LoadError(problems)


def system_names(bundles: Sequence) -> list[str]:
    """`[bundle] name` of each bundle (the file stem by default); duplicates are an error."""
    names = [b.name for b in bundles]
    seen: dict[str, object] = {}
    problems = []
    for b in bundles:
        if b.name in seen:
            problems.append(Problem(str(b.path), 0, f"two bundles are named {b.name!r} (also "
                                    f"{seen[b.name]}): systems are named by [bundle] name, "
                                    "rename one"))
        seen[b.name] = b.path
    if problems:
        raise LoadError(problems)
    return names


def compare_bundles(bundles: Sequence, baseline: str | None, plan: Plan,
                    metrics: Sequence[str] | None = None,
                    dcf: tuple[float, float, float] = (0.01, 1.0, 1.0),
                    progress: Callable[[float], None] | None = None,
                    should_stop: Callable[[], bool] | None = None,
                    correction: str | None = None) -> Comparison:
    """Compare the systems of `bundles` (the same documents) against `baseline`.

    `plan.unit` applies to the plain metrics (segment or document for MT, document for
    diarization, trial for detection); penalised measures (bundles with an interaction log)
    are always resampled by document. Raises LoadError when documents differ, ValueError
    for a bad baseline, unit or metric. `baseline=None`: every pair of systems instead
    (`llgui.core.significance.all_pairs`, with `correction`), an `AllPairs`."""
    check_same_documents(bundles)
    task = bundles[0].task
    if task not in UNITS_OF_TASK:   # e.g. classification: no paired test is defined yet
        raise ValueError(f"compare does not handle {task} bundles (it compares "
                         f"{', '.join(UNITS_OF_TASK)} bundles); score them with llgui score")
    if plan.unit not in UNITS_OF_TASK[task]:
        raise ValueError(f"unit {plan.unit!r} does not apply to {task} "
                         f"(use {' or '.join(UNITS_OF_TASK[task])})")
    if task == "detection":
        return _compare_detection(bundles, baseline, plan, metrics, dcf, progress, should_stop,
                                  correction)
    names = system_names(bundles)
    if baseline is not None:
        baseline = _resolve(baseline, names, bundles)
    metrics = tuple(metrics) if metrics else bundles[0].metrics
    order = [d.id for d in bundles[0].documents]
    aligned = [_aligned(b, order) for b in bundles]
    entries = []
    penalised = any(b.steps for b in bundles)
    stages = len(metrics) * (2 if penalised else 1)
    done = 0
    for name in metrics:
        check(should_stop)
        samples, metric = _plain_samples(aligned, name, plan.unit, should_stop)
        entries.append((name, display_name(name), metric.higher_is_better,
                        metric.signature, plan.unit, samples))
        done += 1
        report(progress, 0.5 * done / stages)
        if penalised:
            streams = _streams(aligned, name, should_stop)
            for measure in PENALISED:
                entries.append((f"{name}.{measure}", f"{display_name(name)} {measure}",
                                metric.higher_is_better, metric.signature, "document",
                                [_stream_sample(s, measure) for s in streams]))
            done += 1
            report(progress, 0.5 * done / stages)

    def rest(f: float) -> None:
        report(progress, 0.5 + 0.5 * f)

    return _finish(names, baseline, entries, plan, task, None, rest, should_stop, correction)


def _finish(names, baseline, entries, plan, task, groups, progress, should_stop, correction):
    """Against the baseline, or (baseline None) every pair."""
    if baseline is None:
        from llgui.core.significance.all_pairs import all_pairs

        return all_pairs(names, entries, plan, correction or "holm", task,
                         source={"kind": "bundles"}, progress=progress,
                         should_stop=should_stop, groups=groups)
    return compare_samples(names, baseline, entries, plan, task, groups=groups,
                           progress=progress, should_stop=should_stop)


def _resolve(baseline: str, names: Sequence[str], bundles: Sequence) -> str:
    if baseline in names:
        return baseline
    from pathlib import Path

    for b, n in zip(bundles, names):  # the file stem works too
        if b.path and Path(b.path).stem == baseline:
            return n
    # a run named "SYSTEM (ORACLE)" (`llgui simulate`) by its system alone, when only one is
    runs = [n for n in names if n.startswith(baseline + " (") and n.endswith(")")]
    if len(runs) == 1:
        return runs[0]
    from llgui.utils.names import closest

    meant = closest(baseline, names)   # (a case slip, `ONLINE-b`, too)
    hint = f"; did you mean {meant!r}?" if meant is not None else ""
    raise ValueError(f"no system named {baseline!r}{hint} (systems: {', '.join(names)})")


def _aligned(bundle, order: Sequence[str]):
    """The bundle with its documents in the first bundle's order (same ids, checked)."""
    import dataclasses

    by_id = {d.id: d for d in bundle.documents}
    return dataclasses.replace(bundle, documents=tuple(by_id[i] for i in order))


def _plain_samples(bundles, name: str, unit: str, should_stop):
    from llgui.core.penalty import make_track
    from llgui.core.significance.resample import Additive
    from llgui.core.significance.vector_scores import vector_score

    samples, metric = [], None
    for b in bundles:
        rows = []
        for d in b.documents:
            check(should_stop)
            track = make_track(d, name, b.settings, b.cost, b.documents)
            metric = track.metric
            if unit == "segment":
                rows.append(np.asarray(track.stats))
            else:
                rows.append(np.asarray(track.current().stats)[None, :])
        stats = np.concatenate(rows, axis=0)
        # sacrebleu's significance tests score float32 sums: do the same on segments
        dtype = np.float32 if unit == "segment" else np.float64
        samples.append(Additive(stats, vector_score(metric), dtype))
    return samples, metric


def _streams(bundles, name: str, should_stop):
    from llgui.core.penalty import make_track, replay
    from llgui.core.significance.penalised import Stream
    from llgui.core.significance.vector_scores import vector_score

    streams = []
    for b in bundles:
        replays, metric = [], None
        for d in b.documents:
            check(should_stop)
            track = make_track(d, name, b.settings, b.cost, b.documents)
            metric = track.metric
            replays.append(replay(track, b.steps_of(d.id), b.cost, doc=d.id))
        streams.append(Stream.from_replays(replays, metric))
    return streams


def _stream_sample(stream, measure: str):
    from llgui.core.significance.penalised import StreamSample

    return StreamSample(stream, measure)


def _in_key_order(trials):
    """Trials joined to a key, put in the key's order (score files may list them in any
    order); others as they are (paired by position)."""
    if trials.key_index is None:
        return trials
    import dataclasses

    order = np.argsort(trials.key_index, kind="stable")
    return dataclasses.replace(trials, scores=trials.scores[order],
                               is_target=trials.is_target[order],
                               key_index=trials.key_index[order],
                               groups=None if trials.groups is None else trials.groups[order])


def _compare_detection(bundles, baseline, plan, metrics, dcf, progress, should_stop,
                       correction=None):
    from llgui.core.significance.detection import TrialSample

    systems = [_in_key_order(t) for b in bundles for t in b.detection]
    if not systems:
        raise ValueError("no detection scores to compare")
    names = [t.name for t in systems]
    problems = []
    for t in systems[1:]:
        if len(set(names)) != len(names):
            break
        same = (t.scores.size == systems[0].scores.size
                and np.array_equal(t.is_target, systems[0].is_target))
        if not same:
            problems.append(Problem(str(t.path), 0, f"the trials of {t.name!r} are not those "
                                    f"of {systems[0].name!r} (count or labels differ, in order)"))
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        problems.append(Problem(str(systems[names.index(dup)].path), 0,
                                f"two score files are named {dup!r}: systems are named by "
                                "file stem, rename one"))
    if problems:
        raise LoadError(problems)
    groups = None
    if plan.unit == "speaker":
        groups = systems[0].groups
        if groups is None:
            raise ValueError("unit 'speaker' needs trials with enrolment ids (a key file); "
                             "these have none")
    metrics = tuple(metrics) if metrics else default_metrics("detection")
    entries = []
    for m in metrics:
        samples = [TrialSample(t, m, dcf) for t in systems]
        signature = f"{m}|dcf:{dcf[0]:g},{dcf[1]:g},{dcf[2]:g}|eer:rocch"
        entries.append((m, display_name(m), info(m).higher_is_better, signature, plan.unit,
                        samples))
    return _finish(names, baseline, entries, plan, "detection", groups, progress, should_stop,
                   correction)
