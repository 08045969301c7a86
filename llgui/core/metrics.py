"""The one registry of metrics: what a metric is, written once (in the spirit of sacrebleu's
`METRICS`).

Every metric llgui knows has one `MetricInfo` in `METRICS`: its name (the key of bundles,
campaigns, `--metric` and the JSON reports), its task, its display name, its direction, whether
it replays (has a `Track`, so a penalised replay over an interaction log), whether it counts
errors (`Metric.errors` gives errors and reference size, so its replay has a Minimal Supervision
Rate), the unit of its score and the factories that make its metric object and its Track. The
per-task defaults sit beside it. Loaders, reports, the CLI, the simulator and the GUI read these
facts from here; adding a metric is one entry below and its implementation in its family module
(`llgui.core.mt`, `.diarization`, `.detection`, `.classification`). Word metrics (cpWER,
tcpWER, WDER) are diarization metrics: `llgui.core.diarization.words`.

Layering: this module sits above the task families and below `llgui.core.penalty`, whose
`make_track` dispatches through it. A family never imports it (a fact a family needs is passed
in). The families load only inside the factories, so importing this module loads neither
sacrebleu nor pyannote (nor the families themselves): the GUI's start-up reads the registry.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

if TYPE_CHECKING:
    from llgui.core.cost import CostModel
    from llgui.core.track import Metric, Track
    from llgui.core.types import Document

PERCENT = "percent"
"""The score is a percentage, as the reference tools print it (every score but the DCFs)."""
PLAIN = "plain"
"""The score is a plain number (minDCF, actDCF: normalised costs)."""

MetricFactory = Callable[[str, Mapping[str, object], Sequence["Document"]], "Metric"]
"""(name, settings, documents) -> the metric object scoring summed statistics; `documents`
are the bundle's (a diarization metric names its UEM mode after them; may be empty)."""
TrackFactory = Callable[..., "Track"]
"""(name, document, settings, cost_model, documents, progress, should_stop) -> the Track."""


@dataclass(frozen=True)
class MetricInfo:
    """The facts of one metric. `replayable` metrics have both factories, the others none."""

    name: str
    task: str
    display: str
    higher_is_better: bool
    replayable: bool
    """It has a Track: a penalised replay (S_cor, S_imp, S_pen) over an interaction log."""
    counts_errors: bool
    """Its `Metric.errors` counts (errors, reference size): its replay has an MSR."""
    unit: str = PERCENT
    note: str = ""
    """A gloss where messages list the name ("err (the error rate at the threshold)")."""
    metric_factory: MetricFactory | None = None
    track_factory: TrackFactory | None = None

    def __post_init__(self) -> None:
        if self.unit not in (PERCENT, PLAIN):
            raise ValueError(f"{self.name}: unit must be {PERCENT!r} or {PLAIN!r}")
        has = (self.metric_factory is not None, self.track_factory is not None)
        if has != (self.replayable, self.replayable):
            raise ValueError(f"{self.name}: a replayable metric has both factories, "
                             "another none")
        if self.counts_errors and not self.replayable:
            raise ValueError(f"{self.name}: an error count is a replay's (its MSR)")

    @property
    def direction(self) -> str:
        """"higher" or "lower" (is better)."""
        return "higher" if self.higher_is_better else "lower"

    @property
    def percent(self) -> bool:
        return self.unit == PERCENT

    @property
    def name_with_note(self) -> str:
        return f"{self.name} ({self.note})" if self.note else self.name

    def make_metric(self, settings: Mapping[str, object] | None = None,
                    documents: Sequence["Document"] = ()) -> "Metric":
        """The metric object with a bundle's (or campaign's) `settings`."""
        if self.metric_factory is None:
            raise ValueError(f"{self.name} has no metric over additive statistics")
        return self.metric_factory(self.name, settings or {}, documents)

    def make_track(self, document: "Document", settings: Mapping[str, object],
                   cost_model: "CostModel", documents: Sequence["Document"] = (), *,
                   progress=None, should_stop=None) -> "Track":
        """The Track of `document` (see `llgui.core.penalty.make_track`)."""
        if self.track_factory is None:
            raise ValueError(f"{self.name} has no penalised form")
        return self.track_factory(self.name, document, settings, cost_model, documents,
                                  progress, should_stop)


# --------------------------------------------------------------------------------------------
# Factories: each family loads here, when a metric is first made


def _mt_metric(name, settings, documents=()):
    from llgui.core.mt.stats import make_metric

    return make_metric(name, settings)


def _mt_track(name, document, settings, cost_model, documents, progress, should_stop):
    from llgui.core.mt.script import bundle_unit
    from llgui.core.mt.track import MTTrack

    # one unit for the whole bundle: its trg_lang, else its text (documents are the bundle's)
    unit = bundle_unit(settings, documents, document)
    return MTTrack(document, _mt_metric(name, settings), unit=unit, progress=progress,
                   should_stop=should_stop)


def _diar_metric(name, settings, documents=()):
    from llgui.core.diarization.track import make_diar_metric

    if documents and "uem" not in settings:
        # the signature says how the documents were scored: given UEMs, pyannote's default
        # union of extents, or a mix of both
        from llgui.core.diarization.der import uem_mode

        settings = {**settings, "uem": uem_mode([d.uem for d in documents])}
    return make_diar_metric(name, settings)


def _diar_track(name, document, settings, cost_model, documents, progress, should_stop):
    from llgui.core.diarization.track import DiarTrack

    # a `same` step may listen to another of the bundle's documents
    others = {d.id: d for d in documents if d.task == "diarization" and d.id != document.id}
    return DiarTrack(document, _diar_metric(name, settings, documents or (document,)),
                     cost_model, others)


def _word_metric(name, settings, documents=()):
    from llgui.core.diarization.word_track import make_word_metric

    return make_word_metric(name, settings)


def _word_track(name, document, settings, cost_model, documents, progress, should_stop):
    from llgui.core.diarization.word_track import WordTrack

    others = {d.id: d for d in documents if d.task == "diarization" and d.id != document.id}
    return WordTrack(document, _word_metric(name, settings), cost_model, others)


def _det_metric(name, settings, documents=()):
    from llgui.core.detection.track import make_det_metric

    return make_det_metric(name, settings)


def _det_track(name, document, settings, cost_model, documents, progress, should_stop):
    from llgui.core.detection.track import DetTrack

    return DetTrack(document, _det_metric(name, settings))


def _class_metric(name, settings, documents=()):
    from llgui.core.classification.track import ClassMetric

    if not documents:
        raise ValueError(f"{name}: a classification metric needs a document (its classes)")
    return ClassMetric(name, len(documents[0].classes))


def _class_track(name, document, settings, cost_model, documents, progress, should_stop):
    from llgui.core.classification.track import ClassTrack

    return ClassTrack(document, _class_metric(name, settings, (document,)))


_MT = dict(metric_factory=_mt_metric, track_factory=_mt_track)
_DIAR = dict(metric_factory=_diar_metric, track_factory=_diar_track)
_WORDS = dict(metric_factory=_word_metric, track_factory=_word_track)
_DET = dict(metric_factory=_det_metric, track_factory=_det_track)
_CLASS = dict(metric_factory=_class_metric, track_factory=_class_track)

# --------------------------------------------------------------------------------------------
# The registry. Within a task, the order is the one messages list them in ("known: ...").

_ENTRIES = (
    MetricInfo("bleu", "mt", "BLEU", True, True, False, **_MT),
    MetricInfo("chrf", "mt", "chrF", True, True, False, **_MT),
    MetricInfo("ter", "mt", "TER", False, True, True, **_MT),         # edits / ref. words
    MetricInfo("wer", "mt", "WER", False, True, True, **_MT),         # edits / ref. words
    MetricInfo("der", "diarization", "DER", False, True, True, **_DIAR),   # error seconds
    MetricInfo("jer", "diarization", "JER", False, True, False, **_DIAR),  # no error count
    # meeting word metrics (meeteval's; need the documents' reference words)
    MetricInfo("cpwer", "diarization", "cpWER", False, True, True, **_WORDS),   # word errors
    MetricInfo("tcpwer", "diarization", "tcpWER", False, True, True,
               note="needs word_collar", **_WORDS),
    MetricInfo("wder", "diarization", "WDER", False, True, True, **_WORDS),  # speaker errors
    MetricInfo("eer", "detection", "EER", False, False, False),       # no penalised form
    MetricInfo("min_dcf", "detection", "minDCF", False, True, False, PLAIN, **_DET),
    MetricInfo("act_dcf", "detection", "actDCF", False, True, False, PLAIN, **_DET),
    MetricInfo("err", "detection", "error rate", False, True, True,
               note="the error rate at the threshold", **_DET),
    MetricInfo("error_rate", "classification", "error rate", False, True, True, **_CLASS),
    MetricInfo("macro_f1", "classification", "macro-F1", True, True, False, **_CLASS),
)

METRICS: Mapping[str, MetricInfo] = MappingProxyType({m.name: m for m in _ENTRIES})
"""Every metric, by name."""

TASK_NAMES: Mapping[str, str] = MappingProxyType({
    "mt": "MT", "diarization": "diarization", "detection": "detection",
    "classification": "classification"})
"""Tasks that have metrics, as messages name them."""

DEFAULT_METRICS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "mt": ("bleu", "chrf", "ter"),
    "diarization": ("der", "jer"),
    "detection": ("eer", "min_dcf", "act_dcf"),
    "classification": ("error_rate", "macro_f1"),
})
"""Metrics scored when a bundle or campaign names none."""

DEFAULT_REPLAY: Mapping[str, str] = MappingProxyType({
    "mt": "bleu", "diarization": "der", "detection": "err", "classification": "error_rate"})
"""The metric a replay starts from when the bundle's first cannot be replayed (a detection
bundle's EER): offered first among the task's replayable metrics."""

WORD_METRICS: tuple[str, ...] = tuple(m.name for m in _ENTRIES
                                     if m.metric_factory is _word_metric)
"""The meeting word metrics (cpWER, tcpWER, WDER): they need the documents' reference words."""

OTHER_SCORES: Mapping[str, bool] = MappingProxyType({
    "chrf++": True, "accuracy": True, "acc": True, "f1": True, "precision": True,
    "recall": True, "auc": True, "cer": False, "error": False})
"""Directions (higher is better?) of score names a lifelong score table may carry that no
task here computes."""


# --------------------------------------------------------------------------------------------
# Helpers


def info(name: str) -> MetricInfo:
    """The entry of metric `name`; KeyError for a name the registry does not have."""
    try:
        return METRICS[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r} (known: {', '.join(METRICS)})") from None


def metrics_for(task: str) -> tuple[str, ...]:
    """The metrics of `task` a bundle may list, in registry order (empty for another task)."""
    return tuple(m.name for m in _ENTRIES if m.task == task)


def default_metrics(task: str) -> tuple[str, ...]:
    """The metrics a bundle of `task` is scored under when it names none."""
    return DEFAULT_METRICS.get(task, ())


def replay_metrics(task: str) -> tuple[str, ...]:
    """The metrics of `task` with a penalised replay, its `DEFAULT_REPLAY` first."""
    names = [m.name for m in _ENTRIES if m.task == task and m.replayable]
    first = DEFAULT_REPLAY.get(task)
    return tuple(sorted(names, key=lambda n: n != first))


def default_replay(task: str) -> str | None:
    return DEFAULT_REPLAY.get(task)


def error_metrics(task: str) -> tuple[str, ...]:
    """The error-count metrics of `task` (their replays have an MSR), in registry order."""
    return tuple(m.name for m in _ENTRIES if m.task == task and m.counts_errors)


def higher_is_better(name: str) -> bool | None:
    """True for scores (BLEU, chrF, macro-F1...), False for error rates and costs (TER, WER,
    DER, JER, EER, DCFs...), None for a name unknown here. Case-insensitive: lifelong score
    tables name their metrics freely (`OTHER_SCORES` covers the usual others)."""
    key = name.lower()
    entry = METRICS.get(key)
    return entry.higher_is_better if entry is not None else OTHER_SCORES.get(key)


def display_name(name: str) -> str:
    """How tables, plots and reports name the metric ("BLEU", "minDCF"); the name itself for
    one the registry does not have."""
    entry = METRICS.get(name)
    return entry.display if entry is not None else name


def is_percent(name: str) -> bool:
    """True when the metric's scores are percentages (every one but minDCF and actDCF; a name
    the registry does not have is taken as one)."""
    entry = METRICS.get(name)
    return entry is None or entry.percent


def for_replay(task: str, name: str) -> MetricInfo:
    """The entry of `name` for documents of `task`, which must be replayable there (have a
    Track and a metric object); ValueError naming the ones that are otherwise."""
    if task not in TASK_NAMES:
        raise ValueError(f"documents of task {task!r} have no track")
    entry = METRICS.get(name)
    if entry is None or entry.task != task or not entry.replayable:
        raise ValueError(f"unknown {TASK_NAMES[task]} metric {name!r} "
                         f"(known: {', '.join(replay_metrics(task))})")
    return entry


def make_metric(task: str, name: str, settings: Mapping[str, object] | None = None,
                documents: Sequence["Document"] = ()) -> "Metric":
    """The metric object `name` of `task` with `settings` (and the `documents` scored, which
    name a diarization metric's UEM mode unless the settings do)."""
    return for_replay(task, name).make_metric(settings, documents)
