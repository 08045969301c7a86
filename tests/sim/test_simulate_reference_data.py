"""Simulations on real data: a WMT23 system's output (the first
40 segments of de-en of at most 30 words, ONLINE-B) as h0 with `mt_memory` + `worst-first`,
VBx's AMI meetings with `diar_clusters` + `allies`. The systems really adapt (S_adapt differs
from S_base), and every S_cor, S_imp and S_adapt of the written log equals sacrebleu /
pyannote.metrics on the rebuilt hypotheses (`llgui.core.verify`)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llgui.core.verify import verify_walkthrough
from llgui.core.walkthrough import walk
from llgui.io.bundle import load_bundle
from llgui.sim.run import run_simulation

WMT23 = "wmt23-general/txt"
VBX = "vbx-ami-mixheadset"
MEETINGS = ("ES2011a",)
LINES = 40   # the first segments of the test set: the library re-checks each step in full


def _verify(folder: Path, metrics) -> list:
    bundle = load_bundle(folder / "bundle.toml")
    results = []
    for document in bundle.documents:
        steps = bundle.steps_of(document.id)
        if not steps:
            continue
        for metric in metrics:
            w = walk(document, steps, metric, bundle.settings, bundle.cost,
                     documents=bundle.documents)
            results.append(verify_walkthrough(w, bundle.settings))
    return results


@pytest.fixture(scope="module")
def mt_run(reference_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("wmt23")
    ref = reference_data / WMT23 / "references" / "generaltest2023.de-en.ref.refA.en"
    hyp = reference_data / WMT23 / "system-outputs" / "generaltest2023.de-en.hyp.ONLINE-B.en"
    if not (ref.is_file() and hyp.is_file()):
        pytest.skip(f"WMT23 de-en files not found under {reference_data / WMT23}")
    refs = ref.read_text(encoding="utf-8").split("\n")
    hyps = hyp.read_text(encoding="utf-8").split("\n")
    # sentences, not the test set's paragraph-long segments (TER's shift search on those
    # takes seconds each)
    keep = [i for i, r in enumerate(refs[:len(hyps)]) if 0 < len(r.split()) <= 30][:LINES]
    for name, lines in (("ref.en", refs), ("hyp.en", hyps)):
        (root / name).write_text("".join(lines[i] + "\n" for i in keep), encoding="utf-8")
    ref, hyp = root / "ref.en", root / "hyp.en"
    (root / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["bleu", "chrf"]\n\n[[documents]]\nid = "wmt23-de-en"\n'
        f'time = 1\nreferences = [{json.dumps(str(ref))}]\nhypothesis = {json.dumps(str(hyp))}\n',
        encoding="utf-8")
    run_simulation(root / "bundle.toml", ["mt_memory"], ["worst-first"], root / "out",
                   budget=60.0)
    return root / "out"


@pytest.fixture(scope="module")
def diar_run(reference_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("vbx")
    base = reference_data / VBX
    docs = []
    for k, meeting in enumerate(MEETINGS):
        paths = {kind: base / kind / "dev" / f"{meeting}.{ext}"
                 for kind, ext in (("ref", "rttm"), ("sys", "rttm"), ("uem", "uem"))}
        if not all(p.is_file() for p in paths.values()):
            pytest.skip(f"VBx AMI files of {meeting} not found under {base}")
        docs.append(f'[[documents]]\nid = "{meeting}"\ntime = {k + 1}\n'
                    f'references = [{json.dumps(str(paths["ref"]))}]\n'
                    f'hypothesis = {json.dumps(str(paths["sys"]))}\n'
                    f'uem = {json.dumps(str(paths["uem"]))}\n')
    (root / "bundle.toml").write_text(
        '[bundle]\ntask = "diarization"\nmetrics = ["der", "jer"]\n\n[settings]\ncollar = 0.0\n'
        'skip_overlap = false\n\n' + "\n".join(docs), encoding="utf-8")
    run_simulation(root / "bundle.toml", ["diar_clusters"], ["allies"], root / "out",
                   budget=24.0)
    return root / "out"


@pytest.mark.parametrize("which,metrics", [("mt", ("bleu", "chrf")), ("diar", ("der", "jer"))])
def test_real_runs_adapt_and_equal_the_libraries(which, metrics, request):
    folder = request.getfixturevalue(f"{which}_run")
    run = json.loads((folder / "run.json").read_text())
    assert run["exit"] == 0
    moved = [d for d in run["documents"] if d["steps"]
             and d["scores"][metrics[0]]["s_adapt"] != d["scores"][metrics[0]]["s_base"]]
    assert moved, "the system never changed its score"
    checks = _verify(folder, metrics)
    assert checks
    for verification in checks:
        assert verification.ok, verification.summary()
        kinds = {c.quantity for c in verification.compared}
        assert {"s_base", "s_cor", "s_adapt"} <= kinds
