"""Question value (issue 34, DESIGN.md 1.9): the errors inside what an active system asked,
against random selection and the best question of the same cost.

Constructed cases with answers worked out by hand, then real runs made with `llgui simulate`
(`diar_audio` on the demo meeting, `diar_clusters` on an AMI meeting of VBx, `mt_memory` on
WMT23 de-en), each step checked against an independent computation written here: sacrebleu's
TER per sentence (MT), pyannote.metrics' IdentificationErrorRate under the document's optimal
DER mapping inside the listened windows (diarization), and a plain sweep for the best."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from llgui.core.effort.question import random_and_best, summarise
from llgui.core.effort.units import question_report
from llgui.io.bundle import load_bundle
from llgui.sim.run import run_simulation

ROOT = Path(__file__).resolve().parents[3]
MEETING = ROOT / "resources" / "demo" / "meeting" / "bundle.toml"
WINDOW = 3.0   # the cost model's default: a `same` listens to two windows of 3 s


# -- constructed cases --------------------------------------------------------------------


def test_random_and_best_by_hand():
    # three sentences of 10, 5 and 5 words with 2, 5 and 0 edits; the 10-word one asked:
    # random = 10 x 7/20 = 3.5; best takes the 5 words of density 1 (5 edits) then 5 words of
    # the density-0.2 one (1 edit) = 6
    random, best = random_and_best(np.array([2.0, 5.0, 0.0]), np.array([10.0, 5.0, 5.0]), 10.0)
    assert random == pytest.approx(3.5) and best == pytest.approx(6.0)


def _write_mt(tmp: Path, log: list[dict]) -> Path:
    (tmp / "ref.txt").write_text("a b c d e f g h i j\nk l m n o\np q r s t\n")
    (tmp / "hyp.txt").write_text("a b x x e f g h i j\nz z z z z\np q r s t\n")
    (tmp / "log.jsonl").write_text("".join(json.dumps(s) + "\n" for s in log))
    (tmp / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["bleu"]\n\n[[documents]]\nid = "d"\ntime = 1\n'
        'references = ["ref.txt"]\nhypothesis = "hyp.txt"\n\n[interactions]\n'
        'log = "log.jsonl"\n')
    return tmp / "bundle.toml"


def test_mt_constructed_case(tmp_path):
    # sentence 1: 10 words, 2 substitutions; sentence 2: 5 words all wrong; sentence 3 right.
    # Step 1 asks sentence 1 (cost 10): asked 2, random 10 x 7/20 = 3.5, best 5 + 1 = 6.
    # The system then fixes sentence 2 as well; step 2 asks sentence 3 (cost 5) from the pool
    # {2, 3} (sentence 1 was asked): errors 0 and 0: asked 0, random 0, best 0.
    log = [{"doc": "d", "step": 1, "initiative": "active", "kind": "reference",
            "target": {"sentence": 1}, "adapted": {"lines": {"1": "a b c d e f g h i j",
                                                             "2": "k l m n o"}}},
           {"doc": "d", "step": 2, "initiative": "active", "kind": "reference",
            "target": {"sentence": 3}}]
    report = question_report(load_bundle(_write_mt(tmp_path, log)))
    assert report.metric == "ter" and report.unit == "TER edits"
    first, second = report.steps
    assert (first.cost, first.asked, first.random, first.best) == pytest.approx(
        (10, 2, 3.5, 6))
    assert (second.cost, second.asked, second.random, second.best) == (5, 0, 0, 0)
    run = report.run
    assert (run.n, run.touched, run.precision) == (2, 1, 0.5)
    assert run.gain == pytest.approx(-1.5) and run.regret == pytest.approx(4.0)


def test_diarization_constructed_case(tmp_path):
    # reference: A speaks 0-12, B 12-20; hypothesis: X speaks 0-20 -> X maps to A and the
    # 8 s of B are confusion (1 error second per second). UEM 0-20.
    # name(15): window 13.5-16.5 (3 s): asked 3, random 3 x 8/20 = 1.2, best 3.
    # same(5, 15): windows 3.5-6.5 and 13.5-16.5 (6 s): asked 3, random 2.4, best 6.
    (tmp_path / "ref.rttm").write_text("SPEAKER f 1 0 12 <NA> <NA> A <NA> <NA>\n"
                                       "SPEAKER f 1 12 8 <NA> <NA> B <NA> <NA>\n")
    (tmp_path / "hyp.rttm").write_text("SPEAKER f 1 0 20 <NA> <NA> X <NA> <NA>\n")
    (tmp_path / "f.uem").write_text("f 1 0 20\n")
    steps = [{"doc": "f", "step": 1, "initiative": "active", "kind": "name",
              "target": {"t": 15}, "answer": "X"},
             {"doc": "f", "step": 2, "initiative": "active", "kind": "same",
              "target": {"t1": 5, "t2": 15}, "answer": False},
             {"doc": "f", "step": 3, "initiative": "interactive", "kind": "same",
              "target": {"t1": 5, "t2": 15}, "answer": False}]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "diarization"\nmetrics = ["der"]\n\n[[documents]]\nid = "f"\n'
        'time = 1\nreferences = ["ref.rttm"]\nhypothesis = "hyp.rttm"\nuem = "f.uem"\n\n'
        '[interactions]\nlog = "log.jsonl"\n')
    report = question_report(load_bundle(tmp_path / "bundle.toml"))
    assert report.unit == "DER error seconds" and len(report.steps) == 2   # active only
    name, same = report.steps
    assert (name.cost, name.asked, name.random, name.best) == pytest.approx((3, 3, 1.2, 3))
    assert (same.cost, same.asked, same.random, same.best) == pytest.approx((6, 3, 2.4, 6))
    assert report.run.precision == 1.0


# -- independent computations -------------------------------------------------------------


def _fill(errors, costs, cost):
    """Best: units by errors per cost, highest first, filling `cost` (fractions allowed)."""
    pairs = sorted(((e / c, e, c) for e, c in zip(errors, costs) if c > 0), reverse=True)
    best, room = 0.0, cost
    for _, e, c in pairs:
        take = min(room, c)
        best += e * take / c
        room -= take
        if room <= 0:
            break
    return best


def _log(folder: Path) -> list[dict]:
    return [json.loads(line) for line in
            (folder / "logs" / "system.jsonl").read_text(encoding="utf-8").splitlines()]


def expected_mt(folder: Path) -> list[tuple[float, float, float, float]]:
    """(cost, asked, random, best) per active step from sacrebleu's TER per sentence."""
    from sacrebleu.metrics import TER

    ter = TER()
    bundle = load_bundle(folder / "bundle.toml")
    document = bundle.documents[0]
    refs = list(document.references[0])
    hyp = list(document.hypothesis)
    words = [float(len(r.split())) for r in refs]
    asked_before: set[int] = set()
    out = []
    for record in _log(folder):
        index = record["target"]["sentence"] - 1
        if record["initiative"] == "active":
            edits = [ter.sentence_score(h, [r]).num_edits for h, r in zip(hyp, refs)]
            pool = [i for i in range(len(refs)) if i not in asked_before or i == index]
            pe, pc = [edits[i] for i in pool], [words[i] for i in pool]
            cost = words[index]
            out.append((cost, edits[index], cost * sum(pe) / sum(pc), _fill(pe, pc, cost)))
        asked_before.add(index)
        for number, text in ((record.get("adapted") or {}).get("lines") or {}).items():
            hyp[int(number) - 1] = text
    return out


def _annotation(turns):
    from pyannote.core import Annotation, Segment

    a = Annotation()
    for k, (s, e, who) in enumerate(turns):
        a[Segment(s, e), k] = who
    return a


def _windows(record, extent_end):
    """The listened windows of a `same` / `name` step: 3 s centred on each time, clipped to
    the recording and merged."""
    target = record["target"]
    times = [target["t1"], target["t2"]] if record["kind"] == "same" else [target["t"]]
    spans = sorted((max(0.0, t - WINDOW / 2), min(extent_end, t + WINDOW / 2)) for t in times)
    merged = [list(spans[0])]
    for s, e in spans[1:]:
        if s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [tuple(m) for m in merged]


def _error_profile(ref, hyp, mapping, uem):
    """Elementary intervals inside the UEM and their DER errors per second (max(n_ref,
    n_hyp) - correct under `mapping`), by direct counting."""
    times = sorted({t for s, e, _ in list(ref) + list(hyp) for t in (s, e)}
                   | {t for s, e in uem for t in (s, e)})
    lo, hi, err = [], [], []
    for a, b in zip(times[:-1], times[1:]):
        mid = 0.5 * (a + b)
        if not any(s <= mid < e for s, e in uem):
            continue
        r = [w for s, e, w in ref if s <= mid < e]
        h = [w for s, e, w in hyp if s <= mid < e]
        correct = sum(min(h.count(x), r.count(mapping[x])) for x in set(h) if x in mapping)
        lo.append(a)
        hi.append(b)
        err.append(max(len(r), len(h)) - correct)
    return np.array(lo), np.array(hi), np.array(err, dtype=float)


def expected_diar(folder: Path) -> list[tuple[float, float, float, float]]:
    """(cost, asked, random, best) per active step: pyannote.metrics inside the windows."""
    from pyannote.core import Segment, Timeline
    from pyannote.metrics.diarization import DiarizationErrorRate
    from pyannote.metrics.identification import IdentificationErrorRate

    bundle = load_bundle(folder / "bundle.toml")
    document = bundle.documents[0]
    ref = [(t.start, t.end, t.speaker) for t in document.reference]
    hyp = [(t.start, t.end, t.speaker) for t in document.hypothesis]
    end = document.extent[1]
    uem = list(document.uem) if document.uem else [(min(t[0] for t in ref + hyp),
                                                    max(t[1] for t in ref + hyp))]
    uem_tl = Timeline([Segment(s, e) for s, e in uem])
    uem_seconds = sum(e - s for s, e in uem)
    reference = _annotation(ref)
    out = []
    for record in _log(folder):
        if record["initiative"] == "active":
            assert record["kind"] in ("same", "name"), record["kind"]
            hypothesis = _annotation(hyp)
            mapping = DiarizationErrorRate().optimal_mapping(reference, hypothesis, uem=uem_tl)
            relabelled = hypothesis.rename_labels(
                {h: mapping.get(h, f"unmapped:{h}") for h in hypothesis.labels()})
            ier = IdentificationErrorRate()

            def errors(spans):
                crop = Timeline([piece for s, e in spans for piece in uem_tl.crop(Segment(s, e))])
                if not crop:
                    return 0.0
                c = ier(reference, relabelled, uem=crop, detailed=True)
                return c["confusion"] + c["missed detection"] + c["false alarm"]

            windows = _windows(record, end)
            cost = sum(e - s for s, e in windows)
            assert cost == pytest.approx(record["cost"], abs=1e-9)
            asked = sum(errors([w]) for w in windows)
            total = errors(uem)
            lo, hi, per = _error_profile(ref, hyp, mapping, uem)
            assert float(per @ (hi - lo)) == pytest.approx(total, abs=1e-6)  # the profile is DER's
            out.append((cost, asked, cost * total / uem_seconds, _fill(per * (hi - lo), hi - lo,
                                                                       cost)))
        turns = (record.get("adapted") or {}).get("turns")
        if turns is not None:
            hyp = [(float(s), float(e), str(w)) for s, e, w in turns]
    return out


def _check(folder: Path, expected) -> None:
    report = question_report(load_bundle(folder / "bundle.toml"))
    got = [(v.cost, v.asked, v.random, v.best) for v in report.steps]
    assert len(got) == len(expected) >= 2
    for mine, theirs in zip(got, expected):
        assert mine == pytest.approx(theirs, abs=1e-6)
    run = summarise(report.steps)
    touched = sum(e[1] > 1e-9 for e in expected)
    assert run.touched == touched and run.precision == pytest.approx(touched / len(expected))
    assert run.gain == pytest.approx(sum(e[1] - e[2] for e in expected), abs=1e-6)
    assert run.regret == pytest.approx(sum(e[3] - e[1] for e in expected), abs=1e-6)


# -- real runs ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def meeting_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("meeting") / "out"
    run_simulation(MEETING, ["diar_audio"], ["allies"], out, budget=20.0)
    return out


@pytest.fixture(scope="module")
def ami_run(reference_data, tmp_path_factory):
    base = reference_data / "vbx-ami-mixheadset"
    paths = {kind: base / kind / "dev" / f"ES2011a.{ext}"
             for kind, ext in (("ref", "rttm"), ("sys", "rttm"), ("uem", "uem"))}
    if not all(p.is_file() for p in paths.values()):
        pytest.skip(f"VBx AMI ES2011a not found under {base}")
    root = tmp_path_factory.mktemp("ami")
    (root / "bundle.toml").write_text(
        '[bundle]\ntask = "diarization"\nmetrics = ["der"]\n\n[[documents]]\nid = "ES2011a"\n'
        f'time = 1\nreferences = [{json.dumps(str(paths["ref"]))}]\n'
        f'hypothesis = {json.dumps(str(paths["sys"]))}\nuem = {json.dumps(str(paths["uem"]))}\n',
        encoding="utf-8")
    run_simulation(root / "bundle.toml", ["diar_clusters"], ["allies"], root / "out",
                   budget=24.0)
    return root / "out"


@pytest.fixture(scope="module")
def wmt_run(reference_data, tmp_path_factory):
    base = reference_data / "wmt23-general" / "txt"
    ref = base / "references" / "generaltest2023.de-en.ref.refA.en"
    hyp = base / "system-outputs" / "generaltest2023.de-en.hyp.ONLINE-B.en"
    if not (ref.is_file() and hyp.is_file()):
        pytest.skip(f"WMT23 de-en files not found under {base}")
    root = tmp_path_factory.mktemp("wmt23")
    refs = ref.read_text(encoding="utf-8").split("\n")
    hyps = hyp.read_text(encoding="utf-8").split("\n")
    keep = [i for i, r in enumerate(refs[:len(hyps)]) if 0 < len(r.split()) <= 30][:30]
    for name, lines in (("ref.en", refs), ("hyp.en", hyps)):
        (root / name).write_text("".join(lines[i] + "\n" for i in keep), encoding="utf-8")
    (root / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["bleu", "ter"]\n\n[[documents]]\nid = "wmt23"\n'
        f'time = 1\nreferences = [{json.dumps(str(root / "ref.en"))}]\n'
        f'hypothesis = {json.dumps(str(root / "hyp.en"))}\n', encoding="utf-8")
    run_simulation(root / "bundle.toml", ["mt_memory"], ["allies"], root / "out", budget=80.0)
    return root / "out"


def test_diar_audio_on_the_demo_meeting(meeting_run):
    _check(meeting_run, expected_diar(meeting_run))


def test_diar_clusters_on_an_ami_meeting(ami_run):
    _check(ami_run, expected_diar(ami_run))


def test_mt_memory_on_wmt23_de_en(wmt_run):
    _check(wmt_run, expected_mt(wmt_run))


def test_classification_constructed_case(tmp_path):
    # truth cat dog emu cat dog, decisions cat cat emu dog dog: i2 and i4 wrong.
    # Step 1 asks i1, i2 (cost 2): asked 1, random 2 x 2/5 = 0.8, best 2; i2 is then fixed.
    # Step 2 asks i3 from the pool {i3, i4, i5} (1 wrong): asked 0, random 1/3, best 1.
    (tmp_path / "items.key").write_text("i1 cat\ni2 dog\ni3 emu\ni4 cat\ni5 dog\n")
    (tmp_path / "sys.txt").write_text("i1 cat\ni2 cat\ni3 emu\ni4 dog\ni5 dog\n")
    steps = [{"doc": "sys", "step": 1, "initiative": "active", "kind": "label",
              "target": {"items": ["i1", "i2"]}, "answer": ["cat", "dog"],
              "adapted": {"labels": {"i2": "dog"}}},
             {"doc": "sys", "step": 2, "initiative": "active", "kind": "label",
              "target": {"items": ["i3"]}, "answer": ["emu"]}]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "classification"\n[classification]\nkey = "items.key"\n'
        'decisions = ["sys.txt"]\n[interactions]\nlog = "log.jsonl"\n')
    report = question_report(load_bundle(tmp_path / "bundle.toml"))
    assert report.unit == "wrong labels"
    first, second = report.steps
    assert (first.cost, first.asked, first.random, first.best) == pytest.approx((2, 1, 0.8, 2))
    assert (second.cost, second.asked, second.random, second.best) == pytest.approx(
        (1, 0, 1 / 3, 1))


def _whole_sort_random_and_best(errors, costs, cost):
    """`random_and_best` as it was: the whole pool sorted at every call (the reference the
    partial sort must equal bit for bit)."""
    errors, costs = np.asarray(errors, dtype=float), np.asarray(costs, dtype=float)
    total_cost = float(costs.sum())
    if total_cost <= 0 or cost <= 0:
        return 0.0, 0.0
    random = cost * float(errors.sum()) / total_cost
    paid = costs > 0
    e, c = errors[paid], costs[paid]
    room, best = min(float(cost), total_cost), 0.0
    for k in np.argsort(-(e / c), kind="stable").tolist():
        if room <= 0:
            break
        take = min(room, float(c[k]))
        best += float(e[k]) * take / float(c[k])
        room -= take
    return random, best


def test_the_densest_units_first_equal_the_whole_sort_to_the_bit():
    """A pool of 20,000 units, many of them tied (whole edits over whole words), costs with
    float residues (thirds), zero-cost and zero-error units; questions from a sliver of one
    unit to more than the whole pool."""
    rng = np.random.default_rng(7)
    for trial in range(60):
        n = int(rng.choice([5, 70, 300, 20_000]))
        costs = rng.integers(0, 30, n).astype(float) / rng.choice([1.0, 3.0])
        errors = rng.integers(0, 6, n).astype(float) * rng.choice([1.0, 0.1])
        if trial % 5 == 0:
            errors[:] = 0.0
        total = float(costs.sum())
        for cost in (1e-3, 1.0, 1 / 3, 17.0, 250.0, total / 2, total, total * 2):
            assert random_and_best(errors, costs, cost) == _whole_sort_random_and_best(
                errors, costs, cost), (trial, n, cost)
