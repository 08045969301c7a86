"""The metric registry (llgui.core.metrics): every metric's facts as the design states them,
the loaders accepting exactly the registry's names, the factories' metric objects agreeing with
the table, and an import that stays cheap."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from llgui.core import metrics as registry
from llgui.core.cost import CostModel
from llgui.core.errors import LoadError
from llgui.core.metrics import METRICS, info
from llgui.core.penalty import make_track, replay
from llgui.core.types import (Word, 
    ClassDocument, DetDocument, DiarDocument, MTDocument, Stamp, Trials, Turn,
)
from tests.conftest import REPO

TASKS = ("mt", "diarization", "detection", "classification")

# name: (task, display, higher is better, replayable, counts errors (has an MSR), percent)
DESIGN = {
    "bleu": ("mt", "BLEU", True, True, False, True),
    "chrf": ("mt", "chrF", True, True, False, True),
    "ter": ("mt", "TER", False, True, True, True),             # edits / reference words
    "wer": ("mt", "WER", False, True, True, True),             # edits / reference words
    "der": ("diarization", "DER", False, True, True, True),    # error / reference seconds
    "jer": ("diarization", "JER", False, True, False, True),   # no MSR (as before)
    "eer": ("detection", "EER", False, False, False, True),    # no penalised form
    "min_dcf": ("detection", "minDCF", False, True, False, False),   # plain numbers
    "act_dcf": ("detection", "actDCF", False, True, False, False),
    "err": ("detection", "error rate", False, True, True, True),     # at a threshold
    "cpwer": ("diarization", "cpWER", False, True, True, True),      # meeting word metrics
    "tcpwer": ("diarization", "tcpWER", False, True, True, True),
    "wder": ("diarization", "WDER", False, True, True, True),
    "error_rate": ("classification", "error rate", False, True, True, True),
    "macro_f1": ("classification", "macro-F1", True, True, False, True),
}


@pytest.mark.parametrize("name", DESIGN)
def test_facts_as_designed(name):
    task, display, higher, replayable, counts_errors, percent = DESIGN[name]
    m = info(name)
    assert (m.name, m.task, m.display) == (name, task, display)
    assert m.higher_is_better is higher
    assert m.direction == ("higher" if higher else "lower")
    assert m.replayable is replayable
    assert m.counts_errors is counts_errors
    assert m.percent is percent and m.unit == ("percent" if percent else "plain")
    assert registry.is_percent(name) is percent
    assert registry.display_name(name) == display
    assert registry.higher_is_better(name) is higher


def test_the_registry_is_the_table():
    assert set(METRICS) == set(DESIGN)
    for task in TASKS:
        assert set(registry.metrics_for(task)) == {n for n, f in DESIGN.items() if f[0] == task}
    assert registry.metrics_for("nosuch") == ()


def test_per_task_lists():
    assert registry.metrics_for("mt") == ("bleu", "chrf", "ter", "wer")
    assert registry.metrics_for("detection") == ("eer", "min_dcf", "act_dcf", "err")
    assert registry.default_metrics("mt") == ("bleu", "chrf", "ter")
    assert registry.default_metrics("diarization") == ("der", "jer")
    assert registry.default_metrics("detection") == ("eer", "min_dcf", "act_dcf")
    assert registry.default_metrics("classification") == ("error_rate", "macro_f1")
    assert registry.replay_metrics("detection") == ("err", "min_dcf", "act_dcf")
    assert registry.replay_metrics("mt") == ("bleu", "chrf", "ter", "wer")
    assert registry.error_metrics("mt") == ("ter", "wer")
    assert registry.error_metrics("diarization") == ("der", "cpwer", "tcpwer", "wder")
    assert registry.WORD_METRICS == ("cpwer", "tcpwer", "wder")
    for task in TASKS:
        assert set(registry.default_metrics(task)) <= set(registry.metrics_for(task))
        assert registry.default_replay(task) == registry.replay_metrics(task)[0]
        assert info(registry.default_replay(task)).replayable


def test_direction_of_other_score_names():
    """Lifelong score tables name their metrics freely: the usual others are known too."""
    assert registry.higher_is_better("BLEU") is True
    assert registry.higher_is_better("ter") is False
    assert registry.higher_is_better("eer") is False
    assert registry.higher_is_better("accuracy") is True
    assert registry.higher_is_better("cer") is False
    assert registry.higher_is_better("mystery") is None
    assert registry.display_name("mystery") == "mystery"
    with pytest.raises(KeyError, match="unknown metric 'mystery'"):
        info("mystery")


def test_entries_are_consistent():
    with pytest.raises(ValueError, match="both factories"):
        registry.MetricInfo("x", "mt", "X", True, True, False)
    with pytest.raises(ValueError, match="unit"):
        registry.MetricInfo("x", "mt", "X", True, False, False, unit="%")


# --------------------------------------------------------------------------------------------
# The loaders accept exactly the registry's names of the task


def _metric_problems(path) -> list[str]:
    from llgui.io.bundle import load_bundle
    from llgui.io.campaign import load_campaign

    load = load_campaign if path.name.startswith("campaign") else load_bundle
    try:
        found = load(path)
    except LoadError as error:
        reasons = [p.reason for p in error.problems]
    else:
        reasons = [p.reason for p in getattr(found, "problems", ())]
    return [r for r in reasons if "metric" in r]


@pytest.mark.parametrize("task", TASKS)
def test_bundle_loader_accepts_the_registry(tmp_path, task):
    names = list(METRICS) + ["nosuch"]
    path = tmp_path / "bundle.toml"
    path.write_text(f'[bundle]\ntask = "{task}"\nmetrics = {json.dumps(names)}\n')
    rejected = {r.split("'")[1]: r for r in _metric_problems(path)
                if r.startswith("unknown metric")}
    known = ", ".join(registry.metrics_for(task))
    assert set(rejected) == set(names) - set(registry.metrics_for(task))
    assert all(r.endswith(f"for task {task} (known: {known})") for r in rejected.values())


@pytest.mark.parametrize("task", ("mt", "diarization"))
def test_campaign_loader_accepts_the_registry(tmp_path, task):
    names = list(METRICS) + ["nosuch"]
    path = tmp_path / "campaign.toml"
    path.write_text(f'[campaign]\ntask = "{task}"\nmetrics = {json.dumps(names)}\n')
    rejected = {r.split("'")[1] for r in _metric_problems(path) if r.startswith("unknown")}
    assert rejected == set(names) - set(registry.metrics_for(task))


# --------------------------------------------------------------------------------------------
# The factories: metric objects and tracks agree with the table


def _documents():
    t = Stamp.parse(1)
    trials = Trials("s", np.array([2.0, 0.5, -1.0, 1.5, -0.2]),
                    np.array([True, False, False, True, False]))
    return {
        "mt": MTDocument("d", t, ("the cat sat", "a dog"), (("the cat sat down", "a dog"),)),
        "diarization": DiarDocument("d", t, "d", (Turn(0, 5, "A"), Turn(5, 10, "B")),
                                    (Turn(0, 6, "x"), Turn(6, 10, "y")), None,
                                    words=(Word(1, 2, "hi", "A"), Word(7, 8, "yo", "B"))),
        "detection": DetDocument("s", t, trials, ("1", "2", "3", "4", "5")),
        "classification": ClassDocument("c", t, ("i1", "i2", "i3"), ("a", "b", "a"),
                                        ("a", "a", "b"), ("a", "b")),
    }


@pytest.mark.parametrize("name", [n for n, f in DESIGN.items() if f[3]])
def test_tracks_agree_with_the_table(name):
    entry = info(name)
    document = _documents()[entry.task]
    settings = {"word_collar": 1.0}   # tcpWER's (meeteval has no default); others ignore it
    track = make_track(document, name, settings, CostModel(), (document,))
    metric = track.metric
    assert metric.name == name
    assert metric.higher_is_better is entry.higher_is_better
    stats = track.current().stats
    assert (metric.errors(stats) is not None) is entry.counts_errors
    assert (replay(track, ()).msr is not None) is entry.counts_errors
    made = registry.make_metric(entry.task, name, settings, (document,))
    assert type(made) is type(metric) and made.score(stats) == metric.score(stats)


def test_family_lists_are_the_registry():
    from llgui.core.classification.track import CLASS_METRICS
    from llgui.core.detection.track import DET_TRACK_METRICS
    from llgui.core.diarization.track import DIAR_METRICS
    from llgui.core.diarization.words import WORD_METRICS
    from llgui.core.mt.stats import METRIC_NAMES

    assert METRIC_NAMES == registry.replay_metrics("mt")
    assert tuple(DIAR_METRICS) + WORD_METRICS == registry.replay_metrics("diarization")
    assert DET_TRACK_METRICS == registry.replay_metrics("detection")
    assert CLASS_METRICS == registry.replay_metrics("classification")


def test_make_track_names_what_the_task_replays():
    docs = _documents()
    with pytest.raises(ValueError, match=r"unknown detection metric 'eer' \(known: err, "
                                         r"min_dcf, act_dcf\)"):
        make_track(docs["detection"], "eer", {}, CostModel())
    with pytest.raises(ValueError, match=r"unknown MT metric 'der' \(known: bleu, chrf, "
                                         r"ter, wer\)"):
        make_track(docs["mt"], "der", {}, CostModel())


def test_import_is_cheap():
    """Importing the registry loads no family, no sacrebleu, no pyannote (start-up time)."""
    code = textwrap.dedent("""
        import json, sys
        import llgui.core.metrics
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in {"sacrebleu", "pyannote",
                       "jiwer", "numba", "scipy"} or m.startswith(("llgui.core.mt",
                       "llgui.core.diarization", "llgui.core.detection",
                       "llgui.core.classification", "llgui.core.across_time")))
        print(json.dumps(heavy))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_families_do_not_import_the_registry():
    """The registry sits above the task families: none of them imports it."""
    import ast

    for family in ("mt", "diarization", "detection", "classification", "across_time"):
        for path in (REPO / "llgui" / "core" / family).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [f"{node.module}.{a.name}" for a in node.names]
                else:
                    continue
                assert not any(n.startswith("llgui.core.metrics") for n in names), path
