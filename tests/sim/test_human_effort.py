"""The live expert against the oracle (issue 34): live sessions driven by a scripted expert
whose answers and seconds are stated here (answers right or wrong by a fixed pattern, seconds
= stated weights x what each step asks + seeded noise); the fitted cost model recovers the
weights within its intervals; the agreement equals the count of wrong answers made by hand;
Kendall's tau between the live and the simulated rankings of two systems equals a count of
concordant pairs of their penalised scores."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

from llgui.cli import main as cli
from llgui.core.cost import CostModel
from llgui.io.bundle import load_bundle
from llgui.sim.human import effort_report, fitted_cost_toml
from llgui.sim.live import Effort, LiveSession, read_log
from llgui.sim.run import parse_system, run_simulation
from tests.sim.test_live import MT, two_docs

ROOT = Path(__file__).resolve().parents[2]
MEETING = ROOT / "resources" / "demo" / "meeting" / "bundle.toml"
W_REF, W_EDIT, W_LISTEN = 0.9, 2.5, 1.6   # seconds per reference word, word edit, second
NOISE = 0.3                               # seconds: sd of the expert's Gaussian jitter


def levenshtein(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def run_mt(bundle: Path, out: Path, rng, system="mt_memory", budget: float = 40.0) -> dict:
    """Odd steps: the reference typed (agrees with the oracle); even steps: the hypothesis
    with its last word replaced (disagrees). Seconds = W_REF x reference words or W_EDIT x
    word edits, plus noise. Returns the hand count."""
    live = LiveSession(load_bundle(bundle), parse_system(system).command, out,
                       mode="active", budget=budget)
    live.start()
    count = {"answered": 0, "wrong": 0}
    while True:
        while (q := live.question()) is not None:
            reference = live.document.references[0][q.target.sentence - 1]
            if q.step % 2:
                answer, seconds = reference, W_REF * len(reference.split())
            else:
                answer = " ".join(q.shown.split()[:-1] + ["Krake."])
                seconds = W_EDIT * levenshtein(q.shown.split(), answer.split())
            seconds = max(0.05, seconds + rng.normal(0, NOISE))
            if live.answer(answer, Effort(seconds, len(answer))) is None:
                break
            count["answered"] += 1
            count["wrong"] += " ".join(answer.split()) != " ".join(reference.split())
        if not live.next_document():
            break
    live.finish()
    return count


def speakers_at(turns, t):
    return {w for s, e, w in turns if s <= t < e}


def right_name(ref, hypothesis, t):
    """The label the oracle gives at t (the hypothesis label pyannote's optimal mapping gives
    the one reference speaker there; "non-speech" where nobody speaks); None where several
    reference speakers overlap (the expert then answers wrongly on purpose)."""
    from pyannote.core import Annotation, Segment
    from pyannote.metrics.diarization import DiarizationErrorRate

    speakers = speakers_at(ref, t)
    if not speakers:
        return "non-speech"
    if len(speakers) > 1:
        return None
    r, h = Annotation(), Annotation()
    for k, (s, e, w) in enumerate(ref):
        r[Segment(s, e), k] = w
    for k, turn in enumerate(hypothesis):
        h[Segment(turn.start, turn.end), k] = turn.speaker
    mapping = DiarizationErrorRate().optimal_mapping(r, h)
    (speaker,) = speakers
    return next((hyp for hyp, who in mapping.items() if who == speaker), speaker)


def run_meeting(out: Path, rng) -> dict:
    return run_diar(MEETING, out, rng)


def run_diar(path: Path, out: Path, rng, system: str = "diar_audio", budget: float = 40.0
             ) -> dict:
    """`same` and `name` questions of `system` answered from the reference, wrongly on every
    third step (a `same` flipped, the name "nobody"); seconds = W_LISTEN x seconds listened
    (3 s windows centred on each time, merged) plus noise."""
    bundle = load_bundle(path)
    document = bundle.documents[0]
    ref = [(t.start, t.end, t.speaker) for t in document.reference]
    live = LiveSession(bundle, parse_system(system).command, out, mode="active",
                       budget=budget)
    live.start()
    count = {"answered": 0, "wrong": 0}
    while (q := live.question()) is not None:
        wrong = q.step % 3 == 0
        if q.kind == "same":
            times = (q.target.t1, q.target.t2)
            truth = bool(speakers_at(ref, times[0]) & speakers_at(ref, times[1]))
            answer = truth != wrong
        else:
            assert q.kind == "name", q.kind
            times = (q.target.t,)
            label = right_name(ref, live.hypothesis, q.target.t)
            wrong = wrong or label is None
            answer = "nobody" if wrong else label
        spans = sorted((max(0.0, t - 1.5), min(document.extent[1], t + 1.5)) for t in times)
        listened = (spans[-1][1] - spans[0][0] if spans[-1][0] <= spans[0][1]
                    else sum(e - s for s, e in spans))
        seconds = max(0.05, W_LISTEN * listened + rng.normal(0, NOISE))
        if live.answer(answer, Effort(seconds, 1)) is None:
            break
        count["answered"] += 1
        count["wrong"] += wrong
    live.next_document()
    live.finish()
    return count


HUMAN_SESSIONS = "human-sessions"
"""The xdist group of this module and tests/gui/test_effort_dialog.py: on one worker, the two
read the same recorded sessions (`recorded_sessions`)."""
pytestmark = pytest.mark.xdist_group(HUMAN_SESSIONS)

_RECORDED: list[tuple] = []


def recorded_sessions(tmp_path_factory) -> tuple:
    """(folder, bundle, MT count, meeting count): the two live sessions (seeded, real system
    subprocesses) recorded once per process and read, never written, by this module and by
    tests/gui/test_effort_dialog.py, which recorded the same two again (~2.5 s of CPU)."""
    if not _RECORDED:
        root = tmp_path_factory.mktemp("human")
        rng = np.random.default_rng(34)
        bundle = two_docs(MT, root)
        mt = run_mt(bundle, root / "mt", rng)
        meeting = run_meeting(root / "meeting", rng)
        _RECORDED.append((root, bundle, mt, meeting))
    return _RECORDED[0]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    return recorded_sessions(tmp_path_factory)


def test_agreement_is_the_hand_count(sessions):
    root, _, mt, meeting = sessions
    assert mt["answered"] >= 4 and meeting["answered"] >= 6
    assert 0 < mt["wrong"] < mt["answered"] and 0 < meeting["wrong"] < meeting["answered"]
    report = effort_report([root / "mt", root / "meeting"])
    a = report["agreement"]
    n = mt["answered"] + meeting["answered"]
    k = mt["wrong"] + meeting["wrong"]
    assert (a["compared"], a["disagree"]) == (n, k)
    assert a["error_rate"] == pytest.approx(k / n)
    # the exact interval from the beta quantiles (Clopper & Pearson 1934)
    from scipy.stats import beta

    low = beta.ppf(0.025, k, n - k + 1)
    high = beta.ppf(0.975, k + 1, n - k)
    assert a["interval"] == pytest.approx([low, high], abs=1e-9)
    assert a["noisy"] == f"noisy:{round(k / n, 3):g}"
    per = {Path(s["folder"]).name: s["agreement"]["disagree"] for s in report["sessions"]}
    assert per == {"mt": mt["wrong"], "meeting": meeting["wrong"]}
    # Wilson's score interval by its formula
    wilson = effort_report([root / "meeting"], method="wilson")["agreement"]
    n, k, z = meeting["answered"], meeting["wrong"], 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert wilson["interval"] == pytest.approx([centre - half, centre + half], abs=1e-9)


def test_the_fit_recovers_the_stated_weights(sessions, tmp_path):
    root, *_ = sessions
    report = effort_report([root / "mt", root / "meeting"])
    fit = report["cost_fit"]
    stated = {"reference_weight": W_REF, "post_edit_weight": W_EDIT, "listen_weight": W_LISTEN}
    assert set(fit["weights"]) == set(stated)
    for name, weight in stated.items():
        low, high = fit["weights"][name]["interval"]
        assert low <= weight <= high, (name, fit["weights"][name])
        assert high - low < 0.5 * weight      # the interval says something
    # the logged features are what the expert was charged for: an independent least squares
    rows = report["effort"]
    x = np.array([[r["reference_words"], r["word_edits"], r["seconds_listened"]] for r in rows])
    y = np.array([r["seconds"] for r in rows])
    beta = np.linalg.solve(x.T @ x, x.T @ y)
    assert [fit["weights"][k]["value"] for k in stated] == pytest.approx(beta.tolist(), abs=1e-9)
    # written as a [cost] table that a bundle reads
    text = fitted_cost_toml(report)
    table = tomllib.loads(text)["cost"]
    model = CostModel.from_dict(table)
    assert model.listen_weight == pytest.approx(beta[2]) and model.use_log_cost is False
    head = MEETING.read_text(encoding="utf-8").replace('"meeting.', f'"{MEETING.parent}/meeting.')
    head = head.replace('"diar_audio.h0', f'"{MEETING.parent}/diar_audio.h0')
    (tmp_path / "b.toml").write_text(head.replace("[[documents]]", text + "\n[[documents]]", 1))
    assert load_bundle(tmp_path / "b.toml").cost == model


def test_the_command_prints_and_writes_the_same(sessions, tmp_path, capsys):
    root, *_ = sessions
    out = tmp_path / "cost.toml"
    assert cli.main(["effort", str(root / "mt"), str(root / "meeting"), "--cost-out", str(out),
                     "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["human"]["agreement"] == effort_report(
        [root / "mt", root / "meeting"])["agreement"]
    assert CostModel.from_dict(tomllib.loads(out.read_text())["cost"]).to_dict() == \
        report["human"]["cost_model"]
    assert cli.main(["effort", str(root / "meeting")]) == 0
    text = capsys.readouterr().out
    assert "human error rate" in text and "listen_weight" in text and "question value" in text


def test_kendall_tau_between_live_and_simulated_rankings(sessions, tmp_path, capsys):
    root, bundle, *_ = sessions
    rng = np.random.default_rng(7)
    run_mt(bundle, tmp_path / "live-static", rng, system="static")
    run_simulation(bundle, ["mt_memory", "static"], ["allies"], tmp_path / "sim", budget=40.0)
    live = [root / "mt", tmp_path / "live-static"]
    sim = [tmp_path / "sim" / "mt_memory" / "allies", tmp_path / "sim" / "static" / "allies"]
    report = effort_report(live, sim)
    ranking = report["ranking"]

    def pooled(folder):
        assert cli.main(["score", str(folder / "bundle.toml"), "--metric", "bleu",
                         "--format", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        if "penalised" not in report:   # static asks nothing: no step, S_pen = S_base
            return report["metrics"]["bleu"]["score"]
        return report["penalised"]["bleu"]["pooled"]["s_pen"]

    lv = [pooled(f) for f in live]
    sv = [pooled(f) for f in sim]
    assert [ranking["live"][k] for k in ("mt_memory", "static")] == pytest.approx(lv)
    assert [ranking["simulated"][k] for k in ("mt_memory", "static")] == pytest.approx(sv)
    concordant = np.sign(lv[0] - lv[1]) * np.sign(sv[0] - sv[1])
    assert ranking["tau"] == pytest.approx(float(concordant))


def test_a_log_without_effort_is_said_so(sessions, tmp_path):
    run_simulation(sessions[1], ["mt_memory"], ["allies"], tmp_path / "sim", budget=40.0)
    report = effort_report([tmp_path / "sim"])
    assert report["cost_fit"] is None and "no effort" in report["cost_fit_problem"]
    assert read_log(tmp_path / "sim")


@pytest.mark.parametrize("bad", ['"seconds": -1', '"seconds": "soon"', '"word_edits": 1e999'])
def test_a_bad_effort_in_the_log_exits_2_naming_the_line(sessions, tmp_path, capsys, bad):
    import re
    import shutil

    root, *_ = sessions
    folder = tmp_path / "mt"
    shutil.copytree(root / "mt", folder)
    log = folder / "logs" / "system.jsonl"
    lines = log.read_text().splitlines()
    key = bad.split(":")[0]
    second = re.sub(key + r": [^,}]+", bad, lines[1], count=1)
    if key not in lines[1]:
        second = lines[1].replace('"seconds":', bad + ', "seconds":', 1)
    lines[1] = second
    log.write_text("\n".join(lines) + "\n")
    assert cli.main(["effort", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "system.jsonl:2:" in err and "Traceback" not in err
