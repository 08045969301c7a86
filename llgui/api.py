"""The Python API: the command line's numbers as pandas DataFrames (`import llgui`).

    import llgui
    bundle = llgui.load(llgui.demo_dir() / "mt" / "bundle.toml")
    llgui.score(bundle)                  # one row per document; pooled scores in .attrs
    llgui.replay(bundle, doc="news-2023-01-09")

Each `*_report` function returns the command's JSON report as plain data (the CLI prints it);
the function of the same name without `_report` returns it as a DataFrame whose `.attrs`
hold the rest of the report (signatures, settings, pooled scores; `attrs["report"]` is the
whole of it). Bad files raise `LoadError` (`.problems`: `FILE:LINE: reason`), bad arguments
`UsageError` (a ValueError). Importing this module imports neither Qt nor pandas: every
computation is imported when it is first called.
"""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from llgui.core import bounds
from llgui.core.errors import LoadError, UsageError
from llgui.resources import demo_dir

if TYPE_CHECKING:   # pragma: no cover
    import pandas
    from llgui.core.types import Bundle

__all__ = ["LoadError", "UsageError", "demo_dir", "load", "load_files", "with_settings",
           "score", "replay", "lifelong", "det", "compare", "score_campaign",
           "score_report", "replay_report", "lifelong_report", "det_report", "compare_report",
           "campaign_report", "question_value_report", "effort_report"]

DEFAULT_DCF = (0.01, 1.0, 1.0)


# -- loading ---------------------------------------------------------------------------------


def load(path: str | Path, *, warn: bool = True, **settings) -> "Bundle":
    """A bundle file and everything it names; `settings` (collar=0.25, tokenize="intl", ...)
    override its `[settings]`. The bundle's warnings (a number that will say nothing) are
    issued as Python warnings unless `warn` is False; they stay in `bundle.warnings`."""
    from llgui.io.bundle import load_bundle

    bounds.check_path(path, "path")
    if not Path(path).exists():   # the command line's "did you mean" (`bundel.toml`)
        from llgui.core.errors import Problem
        from llgui.utils.names import meant_file

        close = meant_file(Path(path))
        if close is not None:
            raise LoadError([Problem(str(path), 0,
                                     f"no such file; did you mean {str(close)!r}?")])
    bundle = load_bundle(Path(path))
    if warn:
        for warning in bundle.warnings:
            warnings.warn(str(warning), stacklevel=2)
    return with_settings(bundle, **settings)


def load_files(ref: str | Path | Sequence[str | Path], hyp: str | Path, *,
               log: str | Path | None = None, src: str | Path | None = None,
               uem: str | Path | None = None, task: str | None = None,
               log_base: str | Path | None = None, warn: bool = True,
               **settings) -> "Bundle":
    """Plain files without a bundle file: MT text (one or more references, one segment a
    line, one document named after the hypothesis) or diarization RTTM/MDTM (one document per
    recording). `task` is "mt" or "diarization", by default diarization when the hypothesis
    or a reference ends in .rttm or .mdtm. `log` is an interaction log to replay (its
    `adapted` files found in `log_base`, default the log's folder); `settings` and `warn` as
    in `load` (diarization: a recording of the reference the hypothesis has no turn for, one
    of the hypothesis the reference has not)."""
    from llgui.io.loose import bundle_from_files

    from llgui.io.loose import DIARIZATION_SUFFIXES

    refs = [ref] if isinstance(ref, (str, Path)) else bounds.check_sequence(ref, "ref")
    for r in refs:
        bounds.check_path(r, "ref")
    for name, value in (("hyp", hyp), ("log", log), ("src", src), ("uem", uem),
                        ("log_base", log_base)):
        if value is not None or name == "hyp":
            bounds.check_path(value, name)
    if task is not None and task not in ("mt", "diarization"):
        raise UsageError(f"task {task!r}: plain files are mt or diarization")
    if task is None and any(Path(p).suffix.lower() in DIARIZATION_SUFFIXES
                            for p in [*refs, hyp]):
        task = "diarization"
    bundle = bundle_from_files(refs, hyp, log=log, uem=uem, task=task, source=src,
                               log_base=log_base)
    if warn:
        for warning in bundle.warnings:
            warnings.warn(str(warning), stacklevel=2)
    return with_settings(bundle, **settings)


def with_settings(bundle: "Bundle", **settings) -> "Bundle":
    """`bundle` with `settings` laid over its own, checked as a bundle's `[settings]` are
    (UsageError on a bad value or a setting that no metric of the task reads); None leaves a
    setting as it is."""
    from llgui.io.bundle import with_settings as overlay

    return overlay(bundle, settings)


def _bundle(bundle) -> "Bundle":
    bounds.check_bundle(bundle)   # UsageError for anything else (llgui.score(None))
    return bundle if bounds.is_bundle(bundle) else load(bundle)


def _names(metrics) -> tuple[str, ...]:
    """Metric names as a tuple: one name may be given alone (`metrics="bleu"`; a string is
    not read letter by letter)."""
    return bounds.check_names(metrics or None, "metrics")


def _check_metrics(task: str, metrics: Sequence[str], bundle=None) -> None:
    """Each metric applies to the task; a word metric (cpWER, tcpWER, WDER) finds what it
    needs in `bundle`: reference words in every document, tcpWER a word_collar."""
    from llgui.core.metrics import WORD_METRICS, metrics_for

    for m in metrics:
        if m not in metrics_for(task):
            import difflib

            from llgui.core.types import TASKS

            other = next((t for t in TASKS if t != task and m in metrics_for(t)), None)
            close = difflib.get_close_matches(str(m).lower(), metrics_for(task), n=1,
                                              cutoff=0.5)
            # (`--metric der` on MT: der is diarization's, not a typo of wer)
            hint = (f"; {m!r} is a {other} metric" if other is not None
                    else f"; did you mean {close[0]!r}?" if close else "")
            raise UsageError(f"metric {m!r} does not apply to {task} bundles "
                             f"(known: {', '.join(metrics_for(task))}){hint}")
        if bundle is None or m not in WORD_METRICS:
            continue
        where = bundle.path or bundle.name
        if m == "tcpwer" and "word_collar" not in bundle.settings:
            raise UsageError(f"{where}: metric tcpwer needs [settings] word_collar "
                             f"(seconds; meeteval requires a collar)")
        lacking = [d.id for d in bundle.documents if not getattr(d, "words", None)]
        if lacking:
            raise UsageError(f"{where}: metric {m} needs reference words (words = "
                             f"\"FILE\") in every document; {lacking[0]!r} has none")


def _policy(spec: str | Path):
    """(name, Policy) of a preset letter A, B, C or a policy file."""
    from llgui.core.across_time.policy import PRESETS
    from llgui.io.policy_file import load_policy

    if not isinstance(spec, (str, Path)):
        raise UsageError(f"policy must be A, B, C or the path of a policy file, not "
                         f"{type(spec).__name__}")
    text = str(spec)
    if text.upper() in PRESETS:
        return text.upper(), PRESETS[text.upper()]
    path = Path(text)
    if not path.exists():
        raise UsageError(f"policy {text!r} is neither A, B, C nor an existing policy file")
    return str(path), load_policy(path)


# -- reports (plain data: what the command line prints) --------------------------------------


def score_report(bundle, metrics: Sequence[str] | None = None, policy_spec=None,
                 mode: str = "paper", include_partial: bool = False) -> dict:
    """The `score` report: per-metric pooled score and signature, aggregates, per-document
    scores (a detection bundle gives the `det` report). Documents cut short (a run stopped in
    them: `bundle.partial`) are marked and left out of the aggregates unless
    `include_partial` (`report["partial"]` says so)."""
    from llgui.core.reports import commands as reports

    bundle = _bundle(bundle)
    if bundle.task == "detection" and not bundle.steps:
        # trials without a log: the DET summary at the bundle's operating point
        return reports.det_report(bundle.detection, bundle_dcf(bundle), "rocch")
    metrics = _names(metrics) or bundle.metrics
    _check_metrics(bundle.task, metrics, bundle)
    chosen = _policy(policy_spec) if policy_spec is not None else None
    if mode not in ("paper", "llmt"):
        raise UsageError(f"mode {mode!r}: paper or llmt")
    if mode == "llmt" and (bundle.task != "mt" or "bleu" not in metrics):
        raise UsageError("mode llmt is the WMT lifelong MT scorer: it needs an MT bundle and "
                         "the bleu metric")
    report = reports.score_report(bundle, metrics, chosen, mode=mode,
                                  include_partial=include_partial)
    question = _question_value(bundle, metrics[0])
    if question is not None:   # run and documents; the steps are replay's and effort's
        report["question_value"] = {k: v for k, v in question.items() if k != "steps"}
    return report


def replay_report(bundle, doc: str | None = None, metric: str | None = None,
                  mode: str = "paper") -> dict:
    """The `replay` report of one document (default: the bundle's only document)."""
    from llgui.core.metrics import default_replay, info, replay_metrics
    from llgui.core.penalty import make_track, replay as run_replay
    from llgui.core.reports import commands as reports

    bundle = _bundle(bundle)
    bounds.check_text("doc", doc)
    bounds.check_text("metric", metric)
    bounds.check_choice(mode, "mode", ("paper", "llmt"))
    where = bundle.path or bundle.name
    if bundle.task == "detection" and not bundle.steps:
        raise UsageError(f"{where} has no interaction log to replay")
    chosen = metric or bundle.metrics[0]
    _check_metrics(bundle.task, [chosen], bundle)
    if not info(chosen).replayable:   # a detection bundle's EER
        if metric is not None:
            names = [info(m).name_with_note for m in replay_metrics(bundle.task)]
            listed = " or ".join(filter(None, (", ".join(names[:-1]), names[-1])))
            raise UsageError(f"{chosen} has no penalised form here: replay {listed}")
        chosen = default_replay(bundle.task)
    if doc is None:
        if len(bundle.documents) != 1:
            raise UsageError(f"{where} has {len(bundle.documents)} documents: name one "
                             f"(--doc ID; documents: {_some_ids(bundle)})")
        doc = bundle.documents[0].id
    try:
        document = bundle.document(doc)
    except KeyError:
        raise UsageError(f"no document {doc!r} in {where} (documents: {_some_ids(bundle)})"
                         ) from None
    if mode == "llmt" and chosen != "bleu":
        raise UsageError("mode llmt is the WMT lifelong MT scorer: it is defined for bleu only")
    try:
        track = make_track(document, chosen, bundle.settings, bundle.cost, bundle.documents)
        # a second track for the memorise-only reference (figure 4 of the paper), where the
        # task has corrected hypotheses (MT, diarization)
        twin = (make_track(document, chosen, bundle.settings, bundle.cost, bundle.documents)
                if hasattr(track, "corrected_hypothesis") else None)
    except ValueError as error:   # e.g. a detection operating point outside (0, 1)
        raise UsageError(str(error)) from None
    result = run_replay(track, bundle.steps_of(document.id), bundle.cost, doc=document.id,
                        mode=mode, memorise=twin)
    report = reports.replay_report(result)
    question = _question_value(bundle, chosen, docs=(document.id,))
    if question is not None:
        report["question_value"] = question
    if bundle.task == "mt":   # interactive-predictive MT's effort beside S_pen
        from llgui.core.mt.ipmt import ipmt_effort

        effort = ipmt_effort(bundle.steps_of(document.id), {document.id: document.references[0]})
        if effort is not None:
            report["ipmt"] = effort.to_json()
    if document.id in (getattr(bundle, "partial", ()) or ()):
        report["partial"] = True   # cut short: the run stopped in this document
    return report


def _question_value(bundle, metric: str | None = None, docs=None) -> dict | None:
    """The question value of the bundle's active steps (issue 34), or None where the log has
    none or the task has no error count to value them with (detection)."""
    from llgui.core.effort.units import ERROR_METRIC, question_report

    if bundle.task not in ERROR_METRIC or not any(
            s.initiative == "active" and (docs is None or s.doc in docs) for s in bundle.steps):
        return None
    return question_report(bundle, metric, docs=docs).to_dict()


def question_value_report(bundle, metric: str | None = None) -> dict:
    """The value of every question the system asked (active steps): per step, per document
    and over the run, with their definition (docs/metrics.md, "Question value")."""
    from llgui.core.effort.units import ERROR_METRIC, question_report

    bundle = _bundle(bundle)
    if bundle.task not in ERROR_METRIC:
        raise UsageError(f"question value is defined for MT, diarization and classification "
                         f"logs, not {bundle.task}")
    return question_report(bundle, metric).to_dict()


def effort_report(paths: Sequence[str | Path], simulated: Sequence[str | Path] = (), *,
                  metric: str | None = None, interval: str = "exact", level: float = 0.95,
                  tolerance: float = 0.5) -> dict:
    """The `llgui effort` report: the question value of each input (a bundle file, or a run
    or live-session folder), and, over the live-session folders among them, the human
    against the oracle (agreement, the fitted cost model, Kendall's tau against `simulated`
    run folders of the same systems)."""
    from llgui.sim.human import effort_report as human_report, has_effort

    questions: dict[str, dict] = {}
    live = []
    try:
        for path in paths:
            path = Path(path)
            bundle_path = path / "bundle.toml" if path.is_dir() else path
            bundle = load(bundle_path, warn=False)
            q = _question_value(bundle, metric)
            questions[str(path)] = q if q is not None else {"steps": []}
            if path.is_dir() and has_effort(path):
                live.append(path)
        if simulated and not live:
            raise UsageError("--simulated compares rankings with live sessions: give their "
                             "folders")
        human = (human_report(live, simulated, metric, interval, level, tolerance)
                 if live else None)
    except LoadError:
        raise
    except ValueError as error:   # a log line, an effort value, a metric: said, not raised
        raise UsageError(str(error)) from None
    return {"questions": questions, "human": human}


def _some_ids(bundle) -> str:
    known = ", ".join(d.id for d in bundle.documents[:10])
    return known + (", ..." if len(bundle.documents) > 10 else "")


def lifelong_report(bundle, policy_spec: str | Path = "B", penalised: bool = False,
                    metric: str | None = None) -> dict:
    """The `lifelong` report: S_P of every model version of the bundle's score table."""
    from llgui.core.reports import commands as reports

    bundle = _bundle(bundle)
    bounds.check_flag(penalised, "penalised")
    bounds.check_text("metric", metric)
    if bundle.lifelong is None:
        raise UsageError(f"{bundle.path or bundle.name} has no [lifelong] score table")
    table = bundle.lifelong
    chosen = metric or table.metrics[0]
    if chosen not in table.metrics:
        raise UsageError(f"the score table has no metric {chosen!r} "
                         f"(it has: {', '.join(table.metrics)})")
    if penalised and chosen not in table.values_pen:
        raise UsageError("penalised scores need a value_pen column in the score table")
    name, weights = _policy(policy_spec)
    return reports.lifelong_report(table, chosen, name, weights, penalised=penalised)


def parse_dcf(value, what: str = "dcf") -> tuple[float, float, float]:
    """P_TARGET,C_MISS,C_FA from "0.01,1,1" or a sequence of three numbers, checked;
    UsageError names `what`."""
    from llgui.core.numbers import parse_number

    if not isinstance(value, str) and not isinstance(value, (list, tuple)):
        raise UsageError(f"{what} must be \"P_TARGET,C_MISS,C_FA\" or three numbers, not "
                         f"{type(value).__name__}")
    parts = value.split(",") if isinstance(value, str) else list(value)
    try:
        values = tuple(parse_number(str(p).strip()) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 3:
        raise UsageError(f"{what} {value!r}: expected three finite numbers P_TARGET,C_MISS,C_FA")
    p, c_miss, c_fa = values
    if not 0 < p < 1 or c_miss <= 0 or c_fa <= 0:
        raise UsageError(f"{what} {value!r}: need 0 < P_TARGET < 1, C_MISS > 0 and C_FA > 0")
    return values  # type: ignore[return-value]


def det_trials(scores: Sequence[str | Path] = (), key: str | Path | None = None,
               pairs: Sequence[tuple[str | Path, str | Path]] = ()) -> list:
    """The trials of score files (joined to `key` when given) and of (targets, nontargets)
    file pairs; LoadError lists every problem of every file."""
    from llgui.core.errors import Problem
    from llgui.io.detection import load_key, load_score_pair, load_scores

    scores = [bounds.check_path(p, "scores") for p in ([scores] if isinstance(
        scores, (str, Path)) else bounds.check_sequence(scores, "scores"))]
    pairs = bounds.check_pairs(pairs)   # each a (targets, nontargets) pair of file names
    if key is not None:
        bounds.check_path(key, "key")
    if not scores and not pairs:
        raise UsageError("give score files, or pairs of target and non-target score files")
    loaded_key = load_key(key) if key is not None else None   # read once for all systems
    trials, problems = [], []
    for path in scores:
        try:
            trials.append(load_scores(Path(path), key=loaded_key))
        except LoadError as error:
            problems.extend(error.problems)
    for targets, nontargets in pairs:   # bob.measure / pyeer layout
        try:
            trials.append(load_score_pair(Path(targets), Path(nontargets)))
        except LoadError as error:
            problems.extend(error.problems)
    if problems:
        raise LoadError(problems)
    names = [t.name for t in trials]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise LoadError([Problem(str(trials[names.index(dup)].path), 0,
                                 f"two score files are named {dup!r}: systems are named by "
                                 "file stem, rename one")])
    return trials


def bundle_dcf(bundle) -> tuple[float, float, float]:
    """The operating point (p_target, c_miss, c_fa) of a detection bundle's `[settings]`,
    each missing one at its default (0.01, 1, 1): what its minDCF and actDCF mean."""
    settings = getattr(bundle, "settings", None) or {}
    return parse_dcf(tuple(settings.get(k, d) for k, d in
                           zip(("p_target", "c_miss", "c_fa"), DEFAULT_DCF)))


def det_report(scores=(), key=None, pairs=(), dcf=None, eer_method: str = "rocch",
               calibrated: Sequence[str] = (), threshold: float | None = None) -> dict:
    """The `det` report (EER, minDCF, actDCF per system) of score files, of a detection
    bundle (`scores` = the bundle or its path), or of loaded trials. `dcf` None: a bundle's
    operating point (`bundle_dcf`), else 0.01, 1, 1."""
    from llgui.core.reports import commands as reports

    bounds.check_choice(eer_method, "eer_method", ("rocch", "threshold"))
    threshold = bounds.check("threshold", threshold)   # the bound of `det --threshold`
    calibrated = bounds.check_names(calibrated, "calibrated")
    if isinstance(scores, (str, Path)) and Path(scores).suffix == ".toml":
        scores = load(scores)
    if dcf is None:
        dcf = bundle_dcf(scores) if hasattr(scores, "detection") else DEFAULT_DCF
    dcf = parse_dcf(dcf)
    if hasattr(scores, "detection"):   # a bundle
        if scores.task != "detection":
            raise UsageError(f"{scores.path or scores.name} is not a detection bundle")
        trials = list(scores.detection)
    elif scores and all(hasattr(t, "is_target") for t in scores):
        trials = list(scores)
    else:
        trials = det_trials([scores] if isinstance(scores, (str, Path)) else scores, key, pairs)
    return reports.det_report(trials, dcf, eer_method, calibrated, threshold)


def is_campaign(path) -> bool:
    """A campaign file has a [campaign] table (read as text: no TOML parse needed here)."""
    if not isinstance(path, (str, Path)):
        return False
    from llgui.io.campaign import is_campaign_file

    return is_campaign_file(path)


def campaign_bundles(path: str | Path, reader=None) -> list:
    """The online runs (`bundle = ...`) of a campaign's systems, each named by its system:
    the runs a paired test compares on the same documents. Systems without an online run
    take no part (their cells are scored by `campaign`). `reader` reads one bundle (default:
    `load`)."""
    import dataclasses

    from llgui.io.campaign import load_campaign

    read = reader or load
    loaded = load_campaign(Path(path))
    if loaded.problems:
        raise LoadError(loaded.problems)
    bundles = [dataclasses.replace(read(Path(system.bundle)), name=system.name)
               for system in loaded.systems if system.bundle is not None]
    if not bundles:
        raise UsageError(f"{path}: no system of this campaign has an online run (`bundle = "
                         "...`) to compare")
    return bundles


def _systems(inputs) -> list:
    """Bundles to compare from a bundle, a path (a bundle or a campaign), a sequence of
    them, or a mapping of system name to bundle or path; LoadError lists every problem."""
    import dataclasses

    if isinstance(inputs, Mapping):
        return [dataclasses.replace(_bundle(b), name=str(name)) for name, b in inputs.items()]
    if not (isinstance(inputs, (str, Path, list, tuple)) or bounds.is_bundle(inputs)):
        raise UsageError(f"bundles must be bundles or their paths, a campaign file or a "
                         f"mapping of system name to bundle, not {type(inputs).__name__}")
    items = [inputs] if isinstance(inputs, (str, Path)) or hasattr(inputs, "task") else inputs
    bundles, problems = [], []
    for item in items:
        try:
            bundles.extend(campaign_bundles(item) if is_campaign(item) else [_bundle(item)])
        except LoadError as error:
            problems.extend(error.problems)
    if problems:
        raise LoadError(problems)
    from llgui.io.run_names import distinct_names

    # runs of one input bundle share its name: each is named by its system (or its path)
    return [dataclasses.replace(b, name=n) if n != b.name else b
            for b, n in zip(bundles, distinct_names(bundles))]


def compare_report(bundles, baseline: str | None, test: str = "bs", unit: str | None = None,
                   samples: int | None = None, seed: int = 12345,
                   metrics: Sequence[str] | None = None, dcf=None, progress=None,
                   all_pairs: bool = False, correction: str = "holm", cells: bool = False,
                   human=None) -> dict:
    """The `compare` report: every system against `baseline` (a bundle's name or file stem)
    with intervals and p-values, on the same documents; or, with `all_pairs` (or `baseline`
    None), every pair of systems, p-values adjusted by `correction` (holm | none). `bundles`:
    bundles or their paths, a campaign file (its online runs; its scored outputs, each
    system's last model version, when it has no online run or `cells` is set), or a mapping of
    system name to bundle. `human`: a human-score file (or scores read by
    `llgui.io.human.read_human_scores`): each metric's agreement with it is reported."""
    from llgui.core.reports.compare import DEFAULT_UNIT, compare_bundles
    from llgui.core.significance.resample import DEFAULT_SAMPLES, Plan

    # the command line's bounds (--samples, --seed, --test, --unit), checked before any work
    samples, seed = bounds.check("samples", samples), bounds.check("seed", seed)
    bounds.check_choice(test, "test", ("bs", "ar"))
    if unit is not None:
        bounds.check_choice(unit, "unit", ("segment", "document", "trial", "speaker"))
    bounds.check_text("baseline", baseline)
    metrics = _names(metrics)
    if test not in DEFAULT_SAMPLES:
        raise UsageError(f"test {test!r}: bs or ar")
    if samples is not None and samples < 1:
        raise UsageError(f"samples {samples}: need at least 1")
    if correction not in ("holm", "none"):
        raise UsageError(f"correction {correction!r}: holm or none")
    if all_pairs:
        baseline = None
    elif baseline is None:
        raise UsageError("name a baseline, or ask for all pairs")
    campaign = _campaign_of(bundles, cells)
    if campaign is not None:
        from llgui.campaign.compare_cells import compare_cells

        if metrics:
            _check_metrics(campaign.task, metrics)
        return compare_cells(campaign, baseline, test, unit, samples, seed, metrics,
                             correction, human, progress)
    loaded = _systems(bundles)
    if not loaded:
        raise UsageError("give at least one bundle")
    task = loaded[0].task
    chosen_unit = unit or DEFAULT_UNIT.get(task, "document")
    if metrics:
        _check_metrics(task, metrics)
    if dcf is not None and task != "detection":
        raise UsageError(f"dcf applies to detection bundles, not to {task}")
    if dcf is not None:
        point = parse_dcf(dcf)
    else:   # the bundles' own operating point where they agree on one
        points = {bundle_dcf(b) for b in loaded} if task == "detection" else set()
        point = points.pop() if len(points) == 1 else DEFAULT_DCF
    plan = Plan(test, samples or DEFAULT_SAMPLES[test], seed, chosen_unit)
    try:
        comparison = compare_bundles(loaded, baseline, plan, list(metrics) if metrics else None,
                                     dcf=point, progress=progress, correction=correction)
    except ValueError as error:
        raise UsageError(str(error)) from None
    out = comparison.report()
    questions = {}
    for bundle in loaded:   # issue 34: each system's questions, valued (active logs only)
        q = _question_value(bundle)
        if q is not None:
            questions[bundle.name] = {"unit": q["unit"], "run": q["run"]}
    if questions:
        out["question_value"] = questions
    if task == "mt":   # interactive-predictive MT: each system's effort (no test on it)
        from llgui.core.mt.ipmt import bundle_effort

        efforts = {b.name: bundle_effort(b) for b in loaded}
        if any(efforts.values()):
            out["ipmt"] = {k: e.to_json() for k, e in efforts.items() if e is not None}
    if human is None:   # a campaign's online runs: its [human] scores, if any
        human = _campaign_human(bundles)
    if human is not None:
        from llgui.campaign.compare_cells import add_agreement

        add_agreement(out, human)
    return out


def _campaign_human(inputs):
    """(path, pair) of the `[human] scores` of `inputs` when it is one campaign file."""
    if isinstance(inputs, (list, tuple)) and len(inputs) == 1:
        inputs = inputs[0]
    if not (isinstance(inputs, (str, Path)) and is_campaign(inputs)):
        return None
    from llgui.io.campaign import load_campaign

    loaded = load_campaign(Path(inputs))
    return None if loaded.human is None else (loaded.human, loaded.human_pair)


def _campaign_of(inputs, cells: bool):
    """The loaded campaign when `inputs` is one campaign file whose scored outputs are to be
    compared (`cells`, or no system has an online run); else None."""
    if isinstance(inputs, (list, tuple)) and len(inputs) == 1:
        inputs = inputs[0]
    if not (isinstance(inputs, (str, Path)) and is_campaign(inputs)):
        if cells:
            raise UsageError("cells: give one campaign file")
        return None
    from llgui.io.campaign import load_campaign

    loaded = load_campaign(Path(inputs))
    if loaded.problems:
        raise LoadError(loaded.problems)
    if cells or not any(s.bundle for s in loaded.systems):
        return loaded
    return None


def campaign_run(campaign, workers: int | None = None, scheduler: str | None = None,
                 progress=None, announce=None, **options):
    """Score a campaign (its file, or the campaign `llgui.io.campaign.load_campaign` read) on
    Dask: local workers, or an existing `scheduler`. Returns the run: `.report`, `.partial`,
    `.cached`, `.computed`, `.failed`, `.scores.problems`... `options` go to
    `llgui.campaign.run.run_campaign` (scheduler_file, threads, memory_limit, cell_seconds,
    connect_seconds, waiting)."""
    from llgui.campaign.executor import SchedulerUnreachable, WorkersTooSmall
    from llgui.campaign.run import run_campaign
    from llgui.io.campaign import load_campaign

    workers = bounds.check("workers", workers)   # the command line's bounds, one check
    bounds.check_text("scheduler", scheduler)
    bounds.check_text("scheduler_file", options.get("scheduler_file"))
    for option, name in (("threads", "threads"), ("cell_seconds", "cell_timeout"),
                         ("connect_seconds", "connect_timeout")):
        if options.get(option) is not None:
            options[option] = bounds.check(name, options[option], option)
    if options.get("memory_limit") is not None:
        bounds.check_byte_size(options["memory_limit"], "memory_limit")
    if isinstance(campaign, (str, Path)) or not hasattr(campaign, "systems"):
        bounds.check_path(campaign, "campaign")
    loaded = load_campaign(Path(campaign)) if isinstance(campaign, (str, Path)) else campaign
    try:
        return run_campaign(loaded, workers=workers, scheduler=scheduler, progress=progress,
                            announce=announce, **options)
    except (SchedulerUnreachable, WorkersTooSmall) as error:
        raise UsageError(str(error)) from None


def campaign_report(path: str | Path, workers: int | None = 0,
                    scheduler: str | None = None) -> dict:
    """The `campaign` report of a campaign file (by default in this process: workers=0)."""
    return campaign_run(path, workers=workers, scheduler=scheduler).report


def regressions_report(path: str | Path, *, metric: str | None = None,
                       tolerance: float = 0.0, samples: int = 1000, seed: int = 12345,
                       top: int = 20, workers: int | None = 0, threshold: float = 0.0) -> dict:
    """The `regressions` report (negative flips, relapses) of a campaign or a bundle (a
    detection bundle's score files, or a classification bundle's documents, taken as
    consecutive versions: exact flips, trials decided at `threshold`)."""
    from llgui.campaign.regressions import bundle_regressions, campaign_regressions

    if is_campaign(path):
        return campaign_regressions(path, metric=metric, tolerance=tolerance, samples=samples,
                                    seed=seed, top=top, workers=workers)
    return bundle_regressions(load(path, warn=False), threshold=threshold, samples=samples,
                              seed=seed, top=top)


def regressions(path: str | Path, **options) -> "pandas.DataFrame":
    """One row per flip / relapse (`regressions_report`'s rows); the report in `.attrs`."""
    report = regressions_report(path, **options)
    return _frame(report["rows"], None, {"report": report})


# -- DataFrames ------------------------------------------------------------------------------


class Report(dict):
    """A report in a DataFrame's `.attrs`: shared, not copied, by the frames derived from it
    (pandas deep-copies `.attrs` on every selection, which for a report of 10**5 documents
    took seconds each time). Treat it as read-only."""

    def __deepcopy__(self, memo) -> "Report":
        return self


def _frame(rows: list[dict], index: str | None, attrs: Mapping) -> "pandas.DataFrame":
    import pandas as pd

    frame = pd.DataFrame(rows)
    for column in [c for c in frame.columns if c == "time" or str(c).endswith("_time")]:
        frame[column] = _time_column(frame[column])
    if index is not None and index in frame.columns:
        frame = frame.set_index(index)
    frame.attrs.update(attrs)
    if "report" in attrs:
        frame.attrs["report"] = Report(attrs["report"])
    return frame


def _time_column(values: "pandas.Series") -> "pandas.Series":
    """A bundle's times as pandas can sort and plot them: numbers (a bundle's `time = 3`)
    as numbers, ISO dates and datetimes as datetime64; anything else stays as written."""
    import pandas as pd

    if values.isna().all():
        return values
    try:
        return pd.to_numeric(values)
    except (TypeError, ValueError):
        pass
    try:
        return pd.to_datetime(values, format="ISO8601")
    except (TypeError, ValueError, OverflowError):
        return values


def score(bundle, metrics: Sequence[str] | None = None, *, policy: str | Path | None = None,
          mode: str = "paper", include_partial: bool = False) -> "pandas.DataFrame":
    """One row per document (index: its id): its time, the score of each metric and, with an
    interaction log, `METRIC.s_base`, `.s_adapt`, `.s_pen`; a run's bundle also has
    `partial` (True for a document cut short: the run stopped in it). `.attrs`: `pooled` (the
    corpus scores, which are not the mean of the rows), `signatures`, `settings`,
    `aggregates`, `penalised`, `partial` (which documents were cut short and left out of the
    aggregates, unless `include_partial`) and `report`. A detection bundle gives `det`'s
    table."""
    bundle = _bundle(bundle)
    report = score_report(bundle, metrics, policy, mode, include_partial)
    if "systems" in report:   # a detection bundle of systems' scores: `det`'s table
        return _det_frame(report)   # (one with an interaction log has documents, below)
    rows = []
    for entry in report["documents"]:
        row = {"document": entry["id"], "time": entry["time"], **entry["scores"]}
        if bundle.partial:
            row["partial"] = bool(entry.get("partial", False))
        for metric, values in entry.get("penalised", {}).items():
            for key in ("s_base", "s_adapt", "s_pen"):
                row[f"{metric}.{key}"] = values[key]
        rows.append(row)
    metrics_part = report["metrics"]
    return _frame(rows, "document", {
        "task": report["task"], "name": report["name"], "bundle": report["bundle"],
        "mode": report["mode"], "settings": dict(bundle.settings),
        "pooled": {m: v["score"] for m, v in metrics_part.items()},
        "signatures": {m: v["signature"] for m, v in metrics_part.items()},
        "aggregates": report["aggregates"], "penalised": report.get("penalised", {}),
        "partial": report.get("partial"), "report": report})


def replay(bundle, doc: str | None = None, metric: str | None = None, *,
           mode: str = "paper") -> "pandas.DataFrame":
    """One row per interaction step (index: step): initiative, kind, cost, cumulated cost,
    S_cor, S_imp, S_adapt, S_pen. `.attrs`: the document's summary (`s_base`, `s_adapt`,
    `s_pen`, `msr`, `signature`, ...) and `report`."""
    report = replay_report(bundle, doc, metric, mode)
    attrs = {k: v for k, v in report.items() if k != "steps"}
    return _frame(list(report["steps"]), "step", {**attrs, "report": report})


def lifelong(bundle, policy: str | Path = "B", *, penalised: bool = False,
             metric: str | None = None) -> "pandas.DataFrame":
    """One row per model version (index: model): its time, S_P and S_P of the penalised
    scores. `.attrs`: `metric`, `policy`, `summary` (forgetting, transfer, ...), `report`."""
    report = lifelong_report(bundle, policy, penalised, metric)
    attrs = {k: v for k, v in report.items() if k != "models"}
    return _frame(list(report["models"]), "model", {**attrs, "report": report})


def _det_frame(report: dict) -> "pandas.DataFrame":
    rows = []
    for system in report["systems"]:
        row = {k: v for k, v in system.items() if k not in ("dcf", "at_threshold")}
        for k, v in (system.get("at_threshold") or {}).items():
            row[f"at_threshold.{k}"] = v
        rows.append(row)
    dcf = report["systems"][0]["dcf"] if report["systems"] else list(DEFAULT_DCF)
    return _frame(rows, "name", {"dcf": dcf, "report": report})


def det(scores=(), key=None, pairs=(), *, dcf=None, eer_method: str = "rocch",
        calibrated: Sequence[str] = (), threshold: float | None = None) -> "pandas.DataFrame":
    """One row per system (index: name): trial counts, EER (%), minDCF, actDCF and the
    warning on actDCF; with a `threshold`, `at_threshold.*` counts and rates. `scores`: score
    files, a detection bundle or its path. `dcf` None: a bundle's operating point, else
    0.01, 1, 1 (as `llgui det`)."""
    return _det_frame(det_report(scores, key, pairs, dcf, eer_method, calibrated, threshold))


def compare(bundles, baseline: str, *, test: str = "bs", unit: str | None = None,
            samples: int | None = None, seed: int = 12345,
            metrics: Sequence[str] | None = None, dcf=None) -> "pandas.DataFrame":
    """One row per (system, metric): score, 95 % interval, p-value against the baseline,
    significance, effect. `.attrs`: `baseline`, `test`, `samples`, `seed`, `signature`,
    `metric_signatures`, `report`."""
    report = compare_report(bundles, baseline, test, unit, samples, seed, metrics, dcf)
    rows = []
    for system in report["systems"]:
        for metric, item in system["metrics"].items():
            row = {"system": system["name"], "metric": metric,
                   **{k: v for k, v in item.items() if k != "effect"}}
            effect = item.get("effect") or {}
            for k, v in effect.items():
                row[f"effect.{k}"] = v
            rows.append(row)
    frame = _frame(rows, None, {k: v for k, v in report.items() if k != "systems"})
    if len(frame):
        frame = frame.set_index(["system", "metric"])
    frame.attrs["report"] = Report(report)
    return frame


def score_campaign(path: str | Path, metric: str | None = None, *, workers: int | None = 0,
                   scheduler: str | None = None) -> "pandas.DataFrame":
    """The leaderboard of a campaign for `metric` (default: its first): one row per system
    (index: system) with the online figures and S_P under policies A, B, C. `.attrs`:
    `signatures`, `settings`, `problems`, `partial`, `report` (cells, per-model scores)."""
    from llgui.core.reports.campaign import leaderboard_rows

    bounds.check_text("metric", metric)
    report = campaign_report(path, workers, scheduler)
    chosen = metric or (report["metrics"][0] if report["metrics"] else None)
    if chosen not in report["metrics"]:
        raise UsageError(f"the campaign has no metric {chosen!r} "
                         f"(it has: {', '.join(report['metrics'])})")
    attrs = {k: v for k, v in report.items() if k != "systems"}
    return _frame(leaderboard_rows(report, chosen), "system",
                  {**attrs, "metric": chosen, "report": report})
