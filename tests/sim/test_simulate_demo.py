"""`llgui simulate` of the reference systems on (the first document of) the demo bundles, with
every oracle: the log replays to the S_pen the run reported, the budget holds, the same seed
gives the same folder (timing fields apart), another seed changes only random and noisy."""
from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from llgui.cli.main import main
from llgui.io.bundle import load_bundle
from llgui.sim.oracles import oracle_folder
from llgui.sim.output import TIMING_FIELDS
from llgui.sim.run import run_simulation

ORACLES = ["allies", "worst-first", "in-order", "random", "noisy:0.3"]
SEEDED = {"random", "noisy:0.3"}
SYSTEMS = {"mt": "mt_memory", "diarization": "diar_clusters"}
BUDGETS = {"mt": 80.0, "diarization": 15.0}   # a few steps each: the suite stays fast


def first_document_bundle(demo: Path, task: str, where: Path, lines: int | None = None) -> Path:
    """The demo bundle cut to its first document, paths made absolute; with `lines`, its MT
    text files (references, hypothesis, source) cut to their first `lines` lines, written in
    `where` as ref-NAME, hyp-NAME, src-NAME."""
    text = (demo / task / "bundle.toml").read_text(encoding="utf-8")
    head, *docs = text.split("[[documents]]")
    first = docs[0].split("[interactions]")[0]
    body = head + "[[documents]]" + first
    body = re.sub(r'"((?:ref|hyp|src|uem)/[^"]+)"', lambda m: json.dumps(str(demo / task / m.group(1))), body)
    where.mkdir(parents=True, exist_ok=True)
    if lines is not None:
        for name in re.findall(r'"([^"]+\.(?:drm|ulv))"', body):
            cut = where / f"{Path(name).parent.name}-{Path(name).name}"
            kept = Path(name).read_text(encoding="utf-8").splitlines()[:lines]
            cut.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
            body = body.replace(f'"{name}"', json.dumps(str(cut)))
    (where / "bundle.toml").write_text(body, encoding="utf-8")
    return where / "bundle.toml"


@pytest.fixture(scope="module", params=["mt", "diarization"])
def runs(request, tmp_path_factory, demo_dir):
    task = request.param
    root = tmp_path_factory.mktemp(f"sim-{task}")
    bundle = first_document_bundle(demo_dir, task, root / "in")
    # three independent simulations at once: most of their time is the systems starting up
    with ThreadPoolExecutor(3) as pool:
        futures = {label: pool.submit(run_simulation, bundle, [SYSTEMS[task]], ORACLES,
                                      root / label, seed=seed, budget=BUDGETS[task])
                   for label, seed in (("a", 1), ("b", 1), ("c", 2))}
        out = {label: f.result() for label, f in futures.items()}
    return task, bundle, out


def _folder(sim, oracle: str) -> Path:
    return sim.out / sim.outcomes[0].system / oracle_folder(oracle)


def test_replay_gives_the_reported_penalised_scores(runs, capsys):
    task, _, out = runs
    sim = out["a"]
    for outcome in sim.outcomes:
        folder = outcome.out
        reported = json.loads((folder / "run.json").read_text())
        assert reported["exit"] == 0
        for doc in reported["documents"]:
            for metric, scores in doc["scores"].items():
                assert main(["replay", str(folder / "bundle.toml"), "--doc", doc["doc"],
                             "--metric", metric, "--format", "json"]) == 0
                replayed = json.loads(capsys.readouterr().out)
                s_pen = replayed["steps"][-1]["s_pen"] if replayed["steps"] else replayed["s_base"]
                assert s_pen == scores["s_pen"], (outcome.oracle, metric)
                assert replayed["s_base"] == scores["s_base"]
                if "msr" in scores:
                    assert replayed["msr"] == pytest.approx(scores["msr"], rel=1e-12)


def test_budget_is_never_exceeded_and_steps_happen(runs):
    task, _, out = runs
    for outcome in out["a"].outcomes:
        bundle = load_bundle(outcome.out / "bundle.toml")
        run = json.loads((outcome.out / "run.json").read_text())
        for doc in run["documents"]:
            steps = bundle.steps_of(doc["doc"])
            assert sum(s.cost for s in steps) <= doc["budget"] + 1e-9
            assert doc["cost"] == pytest.approx(sum(s.cost for s in steps))
        assert bundle.steps, f"{outcome.oracle}: no step at all"


def _contents(folder: Path) -> dict[str, object]:
    files = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        name = str(path.relative_to(folder))
        if path.suffix == ".json":
            data = json.loads(path.read_text())
            for key in TIMING_FIELDS:
                data.pop(key, None)
            files[name] = data
        elif path.suffix == ".jsonl":
            lines = [json.loads(line) for line in path.read_text().splitlines()]
            for line in lines:
                line.pop("elapsed_s")
            files[name] = lines
        else:
            files[name] = path.read_bytes()
    return files


def test_same_seed_same_folder_other_seed_changes_only_random_and_noisy(runs):
    task, _, out = runs
    for oracle in ORACLES:
        a, b, c = (_contents(_folder(out[k], oracle)) for k in "abc")
        assert a == b, oracle
        log = "logs/system.jsonl"
        if oracle in SEEDED:
            assert a[log] != c[log], oracle
        else:
            assert a[log] == c[log], oracle
            assert {k: v for k, v in a.items() if k != "run.json"} == \
                   {k: v for k, v in c.items() if k != "run.json"}
