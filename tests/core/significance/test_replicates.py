"""Replicates (issue 33, acceptance 3): a campaign with 3 replicates ("seeds") per system, made
of WMT23 de-en submissions; a pair whose single-run difference is starred but lies inside the
replicate spread is not starred; a clearly better system is; the two-stage bootstrap equals a
brute-force loop rescoring with sacrebleu on a small case."""
from __future__ import annotations

import numpy as np
import pytest

from tests.campaign.helpers import wmt_segments

RUNS = {"alpha": ("GPT4-5shot", "GTCOM_Peter", "Lan-BridgeMT"),
        "beta": ("ONLINE-M", "ONLINE-W", "ONLINE-Y"),
        "gamma": ("NLLB_Greedy", "AIRC", "NLLB_MBR_BLEU")}
BATCHES = [list(range(0, 50)), list(range(50, 100))]


def _campaign(root, reference_data):
    ref, _ = wmt_segments(reference_data)
    txt = reference_data / "wmt23-general" / "txt" / "system-outputs"
    toml = ["[campaign]", 'name = "replicates"', 'task = "mt"', 'metrics = ["chrf"]', ""]
    (root / "ref").mkdir()
    for b, rows in enumerate(BATCHES):
        (root / "ref" / f"b{b}.en").write_text("\n".join(ref[i] for i in rows) + "\n")
        toml += ["[[batches]]", f'id = "b{b}"', f"time = {b}", f'references = ["ref/b{b}.en"]',
                 ""]
    for name, runs in RUNS.items():
        for k, run in enumerate(runs):
            hyp = (txt / f"generaltest2023.de-en.hyp.{run}.en").read_text().split("\n")
            folder = root / name / f"seed{k + 1}" / "M0"
            folder.mkdir(parents=True)
            for b, rows in enumerate(BATCHES):
                (folder / f"b{b}.en").write_text("\n".join(hyp[i] for i in rows) + "\n")
        toml += ["[[systems]]", f'name = "{name}"', 'models = [{id = "M0", time = 0}]',
                 'replicates = ["seed1", "seed2", "seed3"]',
                 f'hypotheses = "{name}/{{replicate}}/{{model}}/{{batch}}.en"', ""]
    path = root / "campaign.toml"
    path.write_text("\n".join(toml))
    return path


@pytest.fixture(scope="module")
def report(reference_data, tmp_path_factory):
    from llgui import api

    root = tmp_path_factory.mktemp("replicates")
    with pytest.MonkeyPatch.context() as patch:   # a cache of its own, not the user's
        patch.setenv("LLGUI_CACHE_DIR", str(root / "cache"))
        return api.regressions_report(_campaign(root, reference_data), samples=1000)


def test_spread_of_each_system_equals_sacrebleu(report, reference_data):
    import sacrebleu

    ref, _ = wmt_segments(reference_data)
    txt = reference_data / "wmt23-general" / "txt" / "system-outputs"
    rows = [i for b in BATCHES for i in b]
    spreads = {s["name"]: s for s in report["replicates"]}
    assert set(spreads) == set(RUNS)
    for name, runs in RUNS.items():
        values = []
        for run in runs:
            hyp = (txt / f"generaltest2023.de-en.hyp.{run}.en").read_text().split("\n")
            values.append(sacrebleu.corpus_chrf([hyp[i] for i in rows],
                                                [[ref[i] for i in rows]]).score)
        assert spreads[name]["scores"] == pytest.approx(values, abs=1e-9)
        assert spreads[name]["sd"] == pytest.approx(np.std(values, ddof=1), abs=1e-9)


def test_single_run_star_inside_the_replicate_spread_is_not_starred(report):
    tests = {(t["a"], t["b"]): t for t in report["replicate_tests"]}
    ab = tests[("alpha", "beta")]
    # seed1 of each: GPT4-5shot against ONLINE-M, a star from the single-run bootstrap
    assert ab["single_run"]["significant"] and ab["single_run"]["p_value"] < 0.05
    # ... but some seed of beta reaches some seed of alpha: inside the spread, no star
    assert ab["inside_spread"] and not ab["significant"]
    # alpha against gamma: every seed of alpha above every seed of gamma, and starred
    ag = tests[("alpha", "gamma")]
    assert not ag["inside_spread"] and ag["significant"] and ag["difference"] > 0


def test_two_stage_bootstrap_equals_brute_force(reference_data):
    """8 segments, 3 and 2 replicates, 60 resamples: every resample rescored by sacrebleu."""
    import sacrebleu

    from llgui.core.mt.stats import make_metric
    from llgui.core.significance.replicates import replicate_test
    from llgui.core.significance.resample import p_value
    from llgui.core.significance.vector_scores import vector_score

    ref, hyps = wmt_segments(reference_data)
    txt = reference_data / "wmt23-general" / "txt" / "system-outputs"
    out = {run: (txt / f"generaltest2023.de-en.hyp.{run}.en").read_text().split("\n")
           for run in ("GPT4-5shot", "ONLINE-A", "ONLINE-B", "ONLINE-M", "ONLINE-W")}
    units = list(range(20, 28))
    a_runs, b_runs = ("GPT4-5shot", "ONLINE-A", "ONLINE-B"), ("ONLINE-M", "ONLINE-W")
    metric = make_metric("chrf", {})
    infos = [metric.reference_info([ref[i]]) for i in units]

    def stats(run):
        return np.array([metric.segment_stats(out[run][i], info)
                         for i, info in zip(units, infos)])

    samples, seed = 60, 3
    got = replicate_test([stats(r) for r in a_runs], [stats(r) for r in b_runs],
                         vector_score(metric), samples=samples, seed=seed)

    def chrf(run, rows):
        return sacrebleu.corpus_chrf([out[run][units[i]] for i in rows],
                                     [[ref[units[i]] for i in rows]]).score

    every = range(len(units))
    real = np.mean([chrf(r, every) for r in a_runs]) - np.mean([chrf(r, every) for r in b_runs])
    rng = np.random.default_rng(seed)
    rep_a = rng.integers(3, size=(samples, 3))
    rep_b = rng.integers(2, size=(samples, 2))
    draws = rng.integers(len(units), size=(samples, len(units)))
    diffs = []
    for k in range(samples):
        a = np.mean([chrf(a_runs[j], draws[k]) for j in rep_a[k]])
        b = np.mean([chrf(b_runs[j], draws[k]) for j in rep_b[k]])
        diffs.append(a - b)
    diffs = np.array(diffs)
    assert got.difference == pytest.approx(real, abs=1e-9)
    ordered = np.sort(diffs)
    assert got.interval == pytest.approx((ordered[samples // 40],
                                          ordered[samples - samples // 40 - 1]), abs=1e-9)
    absolute = np.abs(diffs)
    assert got.p_value == p_value(absolute - absolute.mean(), abs(real))
