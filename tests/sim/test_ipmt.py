"""Interactive-predictive MT (issue 34, part 3): the prefix interaction of protocol 1.2, the
prefix oracles, and WSR / KSR / MAR / KSMR.

On WMT23 de-en (ONLINE-B's output as h0, 15 sentences of at most 30 words: 155 to 900 steps a
run, pointer moves and acceptances in each; 30 took twice as long and showed nothing more), two
systems run under `--oracle prefix` and `--oracle prefix-char`: the reference system
`mt_complete` and tests/sim/ipmt_external_system.py, written from docs/protocol.md alone (it
imports nothing of llgui). The effort llgui reports (run.json, `score`, `replay`) must equal
the one this file computes from Barrachina et al. (CL 2009, section 5.1) on what the run wrote
as plain files: h0 (hyp/), the system's completed sentences (the log's `adapted` lines, read as
JSON) and the references; the expert is re-played here from those sentences alone (the log's
`prefix` and `typed` are not read)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from llgui import api
from llgui.core.mt.ipmt import (
    CHARACTER, WORD, PrefixAnswer, ipmt_effort, next_prefix, prefix_versions,
)
from llgui.core.types import SentenceTarget, Step
from llgui.sim.run import run_simulation

HERE = Path(__file__).resolve().parent
EXTERNAL = HERE / "ipmt_external_system.py"
WMT23 = "wmt23-general/txt"
LINES = 15
DOC = "wmt23-de-en"
SYSTEMS = ("mt_complete", "external")


def _llgui(args: list[str]) -> subprocess.CompletedProcess:
    """`llgui ARGS`'s own entry point, in this process: the systems under test stay real
    subprocesses of the simulation; a second interpreter for llgui itself cost ~0.35 s of CPU
    a run in imports (what it prints is caught here, a traceback of llgui included)."""
    import contextlib
    import io

    from llgui.cli.main import main

    printed, said = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(said):
        code = main(args)
    return subprocess.CompletedProcess(["llgui", *args], code, printed.getvalue(),
                                       said.getvalue())


@pytest.fixture(scope="module")
def runs(reference_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("ipmt")
    ref = reference_data / WMT23 / "references" / "generaltest2023.de-en.ref.refA.en"
    hyp = reference_data / WMT23 / "system-outputs" / "generaltest2023.de-en.hyp.ONLINE-B.en"
    if not (ref.is_file() and hyp.is_file()):
        pytest.skip(f"WMT23 de-en files not found under {reference_data / WMT23}")
    refs = ref.read_text(encoding="utf-8").split("\n")
    hyps = hyp.read_text(encoding="utf-8").split("\n")
    keep = [i for i, r in enumerate(refs[:len(hyps)]) if 0 < len(r.split()) <= 30][:LINES]
    for name, lines in (("ref.en", refs), ("hyp.en", hyps)):
        (root / name).write_text("".join(lines[i] + "\n" for i in keep), encoding="utf-8")
    (root / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["bleu"]\n\n[[documents]]\n'
        f'id = "{DOC}"\ntime = 1\nreferences = [{json.dumps(str(root / "ref.en"))}]\n'
        f'hypothesis = {json.dumps(str(root / "hyp.en"))}\n', encoding="utf-8")
    run_simulation(root / "bundle.toml",
                   ["mt_complete", f"external={sys.executable} {EXTERNAL}"],
                   ["prefix", "prefix-char"], root / "out", budget=100000.0)
    return root


# -- an independent implementation of the published definitions ------------------------------


def _common(a, b) -> int:
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k


def barrachina(outputs: list[str], reference: str, unit: str) -> dict:
    """The expert of Barrachina et al. 2009 replayed on the system's successive outputs for
    one sentence: at each output, the longest correct prefix (words or characters); the
    whole reference -> accept (one mouse action); otherwise type the next reference word
    (a word stroke, its characters keystrokes) or character (a keystroke), after moving the
    pointer there (a mouse action) when the error is not where typing stopped."""
    ref = reference.split() if unit == WORD else list(reference)
    counts = {"words": 0, "keys": 0, "mouse": 0, "outputs": 0, "accepted": False}
    cursor = 0
    for output in outputs:
        counts["outputs"] += 1
        seen = output.split() if unit == WORD else list(output)
        k = _common(seen, ref)
        if k == len(ref):
            counts["mouse"] += 1
            counts["accepted"] = True
            return counts
        if k != cursor:
            counts["mouse"] += 1
        counts["words"] += 1
        # a word's characters, then a space where the reference goes on (section 5.1: the
        # keystrokes of typing the reference; every word typed is 100 %)
        counts["keys"] += len(ref[k]) + (1 if unit == WORD and k + 1 < len(ref) else 0)
        cursor = k + 1
    return counts


def expected_effort(folder: Path, references: list[str], unit: str) -> dict:
    """WSR, KSR, MAR, KSMR (percent) of a run folder, from its plain files."""
    h0 = (folder / "hyp" / f"{DOC}.txt").read_text(encoding="utf-8").split("\n")
    outputs = {i: [h0[i]] for i in range(len(references))}
    steps = {i: 0 for i in range(len(references))}
    for raw in (folder / "logs" / "system.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(raw)
        i = record["target"]["sentence"] - 1
        steps[i] += 1
        outputs[i].append(record["adapted"]["lines"][str(i + 1)])
    words = keys = mouse = 0
    for i, reference in enumerate(references):
        counts = barrachina(outputs[i], reference, unit)
        assert counts["accepted"], f"sentence {i + 1} never reached its reference"
        assert counts["outputs"] == steps[i], f"sentence {i + 1}: steps after the acceptance"
        words, keys, mouse = words + counts["words"], keys + counts["keys"], mouse + counts["mouse"]
    n_words = sum(len(r.split()) for r in references)
    n_chars = sum(len(r) for r in references)
    return {"wsr": 100 * words / n_words if unit == WORD else None,
            "ksr": 100 * keys / n_chars, "mar": 100 * mouse / n_chars,
            "ksmr": 100 * (keys + mouse) / n_chars}


def _close(got: dict, want: dict) -> None:
    for key, value in want.items():
        if value is None:
            assert got[key] is None, key
        else:
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("oracle,unit", [("prefix", WORD), ("prefix-char", CHARACTER)])
def test_effort_equals_the_published_definitions(runs, system, oracle, unit):
    folder = runs / "out" / system / oracle
    references = (runs / "ref.en").read_text(encoding="utf-8").split("\n")[:LINES]
    want = expected_effort(folder, references, unit)
    run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert run["exit"] == 0
    assert run["ipmt"]["sentences"] == LINES and run["ipmt"]["unit"] == unit
    _close(run["ipmt"], want)
    _close(run["documents"][0]["ipmt"], want)
    # the run's bundle scores and replays with the same effort beside S_pen
    score = api.score_report(folder / "bundle.toml")
    _close(score["ipmt"], want)
    assert score["documents"][0]["penalised"]["bleu"]["s_pen"] is not None
    replay = api.replay_report(folder / "bundle.toml")
    _close(replay["ipmt"], want)
    # every sentence ends as its reference: S_adapt is BLEU 100
    assert replay["s_adapt"] == pytest.approx(100.0)


def test_the_systems_differ_and_the_word_level_types_fewer_keys(runs):
    """Not one number pasted everywhere: the two systems' word-level WSR differ (the
    reference system learns and looks for missed words), and at word level no system types
    more words than the reference has."""
    out = runs / "out"
    wsr = {s: json.loads((out / s / "prefix" / "run.json").read_text())["ipmt"]["wsr"]
           for s in SYSTEMS}
    assert wsr["mt_complete"] != wsr["external"]
    assert all(0 < v <= 100 for v in wsr.values())


def test_panel_table_shows_the_effort_beside_s_pen(runs):
    panel = json.loads((runs / "out" / "panel.json").read_text(encoding="utf-8"))
    for entry in panel["runs"]:
        assert set(entry["ipmt"]) >= {"wsr", "ksr", "mar", "ksmr"}
    done = _llgui(["score", str(runs / "out" / "external" / "prefix" / "bundle.toml")])
    assert done.returncode == 0, done.stderr
    text = done.stdout
    effort = json.loads((runs / "out" / "external" / "prefix" / "run.json").read_text())["ipmt"]
    assert f"WSR {effort['wsr']:.2f} %" in text and f"KSR {effort['ksr']:.2f} %" in text


# -- the oracle and the penalty, on constructed sentences --------------------------------------


def test_prefix_oracle_word_and_character():
    ref = "the new national coach of Mexico"
    assert next_prefix("the national coach of Mexico", ref) == PrefixAnswer("the ", "new")
    assert next_prefix("a new coach", ref) == PrefixAnswer("", "the")
    assert next_prefix(ref + " today", ref) == PrefixAnswer(ref, "")     # accept, cut
    assert next_prefix("the nex", ref, CHARACTER) == PrefixAnswer("the ne", "w", CHARACTER)
    # a script written without spaces: characters
    assert next_prefix("迭戈当选", "迭戈·科卡", CHARACTER) == PrefixAnswer("迭戈", "·", CHARACTER)


def test_prefix_penalty_versions():
    """Made from the step and the reference alone: the rest of the reference masked."""
    ref, x = "the new coach", "\ue000"
    corrected, impaired = prefix_versions(ref, PrefixAnswer("the ", "new"))
    assert corrected == "the new " + x * 5
    assert impaired == "the " + x * 3 + " " + x * 5
    # a character inside a word: the word is wrong both ways; its last character completes it
    assert prefix_versions(ref, PrefixAnswer("the n", "e", CHARACTER)) == \
        ("the ne" + x + " " + x * 5, "the n" + x * 2 + " " + x * 5)
    assert prefix_versions(ref, PrefixAnswer("the ne", "w", CHARACTER)) == \
        ("the new " + x * 5, "the ne" + x + " " + x * 5)
    assert prefix_versions("the new coach x", PrefixAnswer("the new coach", "")) == \
        ("the new coach", "the new coach")


def test_effort_on_a_hand_counted_log():
    """Reference "a b c" (5 characters, 3 words). Steps: type "a" at the start (no pointer
    move: the error is at the start); the completion is wrong from "c": the expert points
    there (1 move) and types "c"; accept (1). Words 2, keys 3, mouse 2."""
    def step(n, prefix, typed):
        return Step(DOC, n, "interactive", "prefix", SentenceTarget(1),
                    PrefixAnswer(prefix, typed))

    effort = ipmt_effort([step(1, "", "a"), step(2, "a b ", "c"), step(3, "a b c", "")],
                         {DOC: ["a b c"]})
    # keys: "a" and the space after it (the reference goes on), "c" (its last word)
    assert (effort.word_strokes, effort.keystrokes, effort.mouse_actions) == (2, 3, 2)
    assert effort.wsr == pytest.approx(100 * 2 / 3)
    assert effort.ksr == pytest.approx(100 * 3 / 5)
    assert effort.mar == pytest.approx(100 * 2 / 5)
    assert effort.ksmr == pytest.approx(100 * 5 / 5)


def test_typing_every_word_is_a_ksr_of_100():
    """Barrachina et al. 2009, section 5.1: KSR is the keystrokes against typing the
    reference, so an expert who types every word (and the space after each but the last)
    of "the new coach" (13 characters) has typed 13 keys: 100 %, as at character level."""
    ref = "the new coach"

    def step(n, prefix, typed, unit=WORD):
        return Step(DOC, n, "interactive", "prefix", SentenceTarget(1),
                    PrefixAnswer(prefix, typed, unit))

    words = [step(1, "", "the"), step(2, "the ", "new"), step(3, "the new ", "coach"),
             step(4, ref, "")]
    effort = ipmt_effort(words, {DOC: [ref]})
    assert effort.keystrokes == len(ref) and effort.ksr == pytest.approx(100.0)
    assert effort.wsr == pytest.approx(100.0)
    chars = [step(i + 1, ref[:i], c, CHARACTER) for i, c in enumerate(ref)]
    chars.append(step(len(ref) + 1, ref, "", CHARACTER))
    assert ipmt_effort(chars, {DOC: [ref]}).ksr == pytest.approx(100.0)


# -- protocol 1.2 is negotiated: 1.1 systems never see it --------------------------------------


def test_a_protocol_11_system_is_stopped_at_hello_by_a_prefix_oracle(tmp_path, demo_dir):
    done = _llgui(["simulate", str(demo_dir / "mt" / "bundle.toml"),
                   "--system", "mt_memory", "--oracle", "prefix", "--out", str(tmp_path / "run"),
                   "--quiet"])
    assert done.returncode == 3, done.stderr
    assert 'needs a system speaking protocol 1.2' in done.stderr
    assert '"minor": 2' in done.stderr


def test_log_round_trip(tmp_path):
    from llgui.io.interactions import load_log, step_line

    steps = [Step(DOC, 1, "interactive", "prefix", SentenceTarget(2),
                  PrefixAnswer("ab", "c", CHARACTER)),
             Step(DOC, 2, "interactive", "prefix", SentenceTarget(2), PrefixAnswer("abc", ""))]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(step_line(s) + "\n" for s in steps), encoding="utf-8")
    assert [s.answer for s in load_log(path)] == [s.answer for s in steps]
    path.write_text('{"doc": "d", "step": 1, "initiative": "interactive", "kind": "prefix", '
                    '"target": {"sentence": 1}, "answer": {"prefix": "a"}}\n', encoding="utf-8")
    with pytest.raises(Exception, match="prefix step must be"):
        load_log(path)


def test_the_minimal_system_of_the_protocol_page_runs(tmp_path, demo_dir):
    """docs/protocol.md's 1.2 example, as written, finishes every sentence of a demo
    document under both prefix oracles: the first 20 sentences of the demo's first document
    (each sentence is its own exchange, typed to the end and accepted; the other 60 made the
    character-level run four times as long and showed nothing more)."""
    import re

    from tests.sim.test_simulate_demo import first_document_bundle

    text = (HERE.parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("## Interactive-predictive MT (protocol 1.2)", 1)[1]
    example = tmp_path / "rest.py"
    example.write_text(re.search(r"```python\n(.*?)```", section, re.S).group(1),
                       encoding="utf-8")
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in", lines=20)
    run_simulation(bundle, [f"rest={sys.executable} {example}"], ["prefix", "prefix-char"],
                   tmp_path / "out", budget=100000.0)
    from llgui.io.bundle import load_bundle

    n = load_bundle(bundle).documents[0].n_segments
    assert n == 20
    for oracle in ("prefix", "prefix-char"):
        run = json.loads((tmp_path / "out" / "rest" / oracle / "run.json").read_text())
        assert run["exit"] == 0 and run["ipmt"]["open_sentences"] == 0
        assert run["ipmt"]["sentences"] == n
        replay = api.replay_report(tmp_path / "out" / "rest" / oracle / "bundle.toml")
        assert replay["s_adapt"] == pytest.approx(100.0)   # every sentence its reference


@pytest.mark.parametrize("task,extra", [("diarization", []), ("mt", ["--mode", "active"]),
                                        ("mt", ["--interactive-ratio", "0.5"])])
def test_the_prefix_oracle_refuses_what_it_cannot_do(tmp_path, demo_dir, task, extra):
    done = _llgui(["simulate", str(demo_dir / task / "bundle.toml"),
                   "--system", "static", "--oracle", "prefix", *extra,
                   "--out", str(tmp_path / "o"), "--quiet"])
    assert done.returncode == 2, done.stderr
    assert "interactive-predictive MT: it needs an MT bundle" in done.stderr
    assert "Traceback" not in done.stderr


FAULTY = '''
import json, sys
fault = sys.argv[1]
for raw in sys.stdin:
    m = json.loads(raw)
    if m["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "faulty", "minor": 2}), flush=True)
    elif m["type"] == "document":
        print(json.dumps({"type": "hypothesis", "doc": m["doc"], "lines": m["hypothesis"]}),
              flush=True)
    elif m["type"] == "prefix":
        reply = {"adapted": {"type": "adapted", "step": m["step"]},
                 "break": {"type": "completion", "completion": " a\\nb"},
                 "own": {"type": "completion", "completion": "",
                         "lines": {str(m["target"]["sentence"]): "x"}},
                 "number": {"type": "completion", "completion": 3}}[fault]
        if m["accept"] and fault != "accept":
            reply = {"type": "completion", "completion": ""}
        print(json.dumps(reply), flush=True)
    elif m["type"] == "bye":
        break
'''


@pytest.mark.parametrize("fault,reason", [
    ("adapted", "expected completion, got adapted"),
    ("break", "completion contains a line break"),
    ("own", "completion lines name sentence 1"),
    ("number", "completion must be a string"),
])
def test_a_wrong_completion_is_a_protocol_fault(tmp_path, demo_dir, fault, reason):
    script = tmp_path / "faulty.py"
    script.write_text(FAULTY, encoding="utf-8")
    done = _llgui(["simulate", str(demo_dir / "mt" / "bundle.toml"),
                   "--system", f"{sys.executable} {script} {fault}", "--oracle", "prefix",
                   "--out", str(tmp_path / "o"), "--quiet"])
    assert done.returncode == 3, done.stderr
    assert reason in done.stderr and "step 1" in done.stderr


@pytest.mark.parametrize("oracle", ["prefix", "prefix-char"])
def test_penalised_scores_of_prefix_steps_equal_sacrebleu(runs, oracle):
    """S_cor, S_imp (the typed text replaced by characters no reference holds) and S_adapt of
    the first prefix steps, recomputed by sacrebleu on the rebuilt hypotheses
    (`llgui.core.verify`), equal the engine's."""
    from llgui.core.verify import verify_walkthrough
    from llgui.core.walkthrough import walk
    from llgui.io.bundle import load_bundle

    bundle = load_bundle(runs / "out" / "mt_complete" / oracle / "bundle.toml")
    document = bundle.documents[0]
    every = bundle.steps_of(document.id)
    ends = [i for i, s in enumerate(every) if s.answer.accept]
    steps = every[:ends[1] + 1]     # two sentences: typed steps and acceptances
    result = verify_walkthrough(walk(document, steps, "bleu", bundle.settings, bundle.cost,
                                     documents=bundle.documents), bundle.settings)
    quantities = {c.quantity for c in result.checks}
    assert quantities == {"s_base", "s_cor", "s_imp", "s_adapt"}
    for c in result.checks:
        assert c.library is not None and c.engine == pytest.approx(c.library, abs=1e-9), c


def test_compare_shows_each_systems_effort(runs):
    from llgui.io.bundle import load_bundle
    from llgui.io.compare_report import compare_table

    out = runs / "out"
    bundles = {s: load_bundle(out / s / "prefix" / "bundle.toml") for s in SYSTEMS}
    report = api.compare_report(bundles, "external", samples=20, metrics=["bleu"])
    for s in SYSTEMS:
        run = json.loads((out / s / "prefix" / "run.json").read_text())
        _close(report["ipmt"][s], {k: run["ipmt"][k] for k in ("wsr", "ksr", "mar", "ksmr")})
        assert f"{s}: interactive-predictive MT effort" in compare_table(report)


@pytest.mark.parametrize("trg_lang", ["ja", None])
def test_the_word_prefix_oracle_refuses_a_script_without_spaces(tmp_path, trg_lang):
    """Japanese has no spaces between words: a sentence would be one "word", typed whole.
    `--oracle prefix` is refused (exit 2) pointing at prefix-char, whether trg_lang says so
    or the references show it."""
    (tmp_path / "ref.ja").write_text("ディエゴ・コッカがメキシコ代表の新監督に就任する\n今日は晴れです\n",
                                     encoding="utf-8")
    (tmp_path / "hyp.ja").write_text("ディエゴ・コッカがメキシコの新監督になる\n今日は雨です\n",
                                     encoding="utf-8")
    settings = f'\n[settings]\ntrg_lang = "{trg_lang}"\n' if trg_lang else ""
    (tmp_path / "bundle.toml").write_text(
        f'[bundle]\ntask = "mt"\nmetrics = ["chrf"]\n{settings}\n[[documents]]\nid = "d"\n'
        'time = 1\nreferences = ["ref.ja"]\nhypothesis = "hyp.ja"\n', encoding="utf-8")
    done = _llgui(["simulate", str(tmp_path / "bundle.toml"),
                   "--system", "mt_complete", "--oracle", "prefix",
                   "--out", str(tmp_path / "o"), "--quiet"])
    assert done.returncode == 2, done.stderr
    assert "written without spaces" in done.stderr and "--oracle prefix-char" in done.stderr
    assert ("trg_lang ja" if trg_lang else "its references") in done.stderr
    assert "Traceback" not in done.stderr
