"""`llgui compare` against sacrebleu's PairedTest on WMT23 de-en (DESIGN 1.7, issue 15).

A baseline and three systems, each a bundle of one 549-segment document. BLEU and chrF run on
every segment; TER on the segments whose reference has at most 12 words (150 of them), because
sacrebleu's TER (the reference computation, and our statistics, which come from it) takes
minutes on WMT23's paragraph-long segments. sacrebleu runs once per test type for the module.
"""
from __future__ import annotations

import json
import os

import pytest

from llgui.cli.main import main
from tests.cli.sacrebleu_shared import cached

SYSTEMS = ("ONLINE-A", "ONLINE-B", "ONLINE-W", "GPT4-5shot")   # the baseline first
TER_MAX_WORDS = 12


def _wmt23(reference_data):
    txt = reference_data / "wmt23-general" / "txt"
    refs = (txt / "references" / "generaltest2023.de-en.ref.refA.en").read_text(
        encoding="utf-8").splitlines()
    hyps = {name: (txt / "system-outputs" / f"generaltest2023.de-en.hyp.{name}.en").read_text(
        encoding="utf-8").splitlines() for name in SYSTEMS}
    return refs, hyps


def _bundles(folder, refs, hyps, metrics):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ref.en").write_text("\n".join(refs) + "\n", encoding="utf-8")
    paths = []
    for name, lines in hyps.items():
        (folder / f"{name}.en").write_text("\n".join(lines) + "\n", encoding="utf-8")
        path = folder / f"{name}.toml"
        path.write_text(
            f'[bundle]\ntask = "mt"\nname = "{name}"\nmetrics = {json.dumps(metrics)}\n\n'
            f'[[documents]]\nid = "generaltest2023"\ntime = "2023-06-01"\n'
            f'references = ["ref.en"]\nhypothesis = "{name}.en"\n', encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def cases(reference_data, tmp_path_factory):
    refs, hyps = _wmt23(reference_data)
    keep = [i for i, r in enumerate(refs) if len(r.split()) <= TER_MAX_WORDS]
    root = tmp_path_factory.mktemp("wmt23")
    full = _bundles(root / "full", refs, hyps, ["bleu", "chrf"])
    short = _bundles(root / "short", [refs[i] for i in keep],
                     {n: [h[i] for i in keep] for n, h in hyps.items()}, ["ter"])
    return {"full": (full, refs, hyps), "short": (short, [refs[i] for i in keep],
                                                   {n: [h[i] for i in keep] for n, h in hyps.items()})}


def _library_metric(name, refs):
    """sacrebleu's metric with the references cached, as sacrebleu's own command line builds
    it for a paired test (`Metric(references=...)`, then `PairedTest(references=None)`): the
    references are processed once per module, not once per system and test, and each
    system's statistics extracted once (tests/cli/sacrebleu_shared.py)."""
    from sacrebleu.metrics import BLEU, CHRF, TER

    return cached({"bleu": BLEU, "chrf": CHRF, "ter": TER}[name], refs)


def _sacrebleu(test, samples, refs, hyps, metrics):
    """sacrebleu's own paired test (public API), seed 12345 through SACREBLEU_SEED."""
    from sacrebleu.significance import PairedTest

    old = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = "12345"
    try:
        test_obj = PairedTest([(n, hyps[n]) for n in SYSTEMS],
                              {m: _library_metric(m, refs) for m in metrics}, references=None,
                              test_type=test, n_samples=samples,
                              n_ar_confidence=1000 if test == "ar" else -1)
        _sigs, scores = test_obj()
    finally:
        if old is None:
            os.environ.pop("SACREBLEU_SEED")
        else:
            os.environ["SACREBLEU_SEED"] = old
    names = [k for k in scores if k != "System"]
    return dict(zip(metrics, (scores[k] for k in names)))


def _ours(capsys, paths, test, samples):
    code = main(["compare", *paths, "--baseline", SYSTEMS[0], "--unit", "segment", "--test",
                 test, "--samples", str(samples), "--seed", "12345", "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


# 2,000 randomisation trials, not sacrebleu's default 10,000: equality at the same seed and count
# is the property, and a fifth of the trials shows it as well (sacrebleu's own test was 80 % of
# this file's time); tests/cli/test_compare_all_pairs.py uses 2,000 too
@pytest.mark.parametrize("test,samples", [("bs", 1000), ("ar", 2000)])
@pytest.mark.parametrize("part,metrics", [("full", ("bleu", "chrf")), ("short", ("ter",))])
def test_compare_equals_sacrebleu_paired_test(cases, capsys, test, samples, part, metrics):
    paths, refs, hyps = cases[part]
    expected = _sacrebleu(test, samples, refs, hyps, metrics)
    report = _ours(capsys, paths, test, samples)
    assert report["baseline"] == SYSTEMS[0]
    assert [s["name"] for s in report["systems"]] == list(SYSTEMS)
    sig = f"{test}:{samples}" + ("|bs:1000" if test == "ar" else "") + "|seed:12345|unit:segment"
    assert report["signature"] == sig
    for metric in metrics:
        for system, result in zip(report["systems"], expected[metric]):
            ours = system["metrics"][metric]
            assert ours["score"] == pytest.approx(result.score, abs=1e-4)
            assert ours["mean"] == pytest.approx(float(result.mean), abs=1e-4)
            assert ours["ci"] == pytest.approx(float(result.ci), abs=1e-4)
            assert ours["p_value"] == result.p_value  # None for the baseline


def test_compare_table_and_csv(cases, capsys):
    paths = cases["short"][0]
    assert main(["compare", *paths, "--baseline", "ONLINE-A", "--samples", "50"]) == 0
    out = capsys.readouterr().out
    assert "Baseline: ONLINE-A" in out and "bs:50|seed:12345|unit:segment" in out
    assert "TER: nrefs:1|" in out
    # TER has no human-agreement curve (BLEU and chrF have one, Kocmi et al. 2024): no
    # column of 'none known', no note about it
    assert "humans agree" not in out and "Kocmi" not in out
    assert main(["compare", *cases["full"][0], "--baseline", "ONLINE-A", "--samples", "20",
                 "--metric", "chrf"]) == 0
    out = capsys.readouterr().out
    assert "humans agree" in out.splitlines()[0] and "Kocmi et al. 2024" in out
    assert main(["compare", *paths, "--baseline", "ONLINE-A", "--samples", "50",
                 "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("metric,system,baseline,score,mean,ci,p_value")
    assert len(lines) == 1 + len(SYSTEMS)


def test_compare_documents_differ(tmp_path, capsys):
    def bundle(name, docs):
        (tmp_path / "r.txt").write_text("a b c\n", encoding="utf-8")
        text = f'[bundle]\ntask = "mt"\nname = "{name}"\n'
        for d in docs:
            text += (f'\n[[documents]]\nid = "{d}"\ntime = 1\nreferences = ["r.txt"]\n'
                     f'hypothesis = "r.txt"\n')
        path = tmp_path / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        return str(path)

    a = bundle("a", ["d1", "d2"])
    b = bundle("b", ["d1", "d3"])
    assert main(["compare", a, b, "--baseline", "a"]) == 2
    err = capsys.readouterr().err
    assert "d2" in err and "d3" in err and "Traceback" not in err
    assert main(["compare", a, a.replace("a.toml", "a.toml"), "--baseline", "a"]) == 2
    assert "named 'a'" in capsys.readouterr().err
    c = bundle("c", ["d1", "d2"])
    assert main(["compare", a, c, "--baseline", "zzz"]) == 2
    assert "no system named 'zzz'" in capsys.readouterr().err


def test_detection_systems_are_paired_by_key_and_resampled_by_speaker(tmp_path, capsys):
    import numpy as np

    rng = np.random.default_rng(0)
    trials = [(f"spk{i % 12}", f"utt{i}", bool(rng.random() < 0.3)) for i in range(240)]
    (tmp_path / "trials.key").write_text(
        "".join(f"{e} {t} {'target' if y else 'nontarget'}\n" for e, t, y in trials))
    scores = {name: [(e, t, rng.normal() + (shift if y else 0.0)) for e, t, y in trials]
              for name, shift in (("base", 1.0), ("better", 2.5))}
    for name, rows in scores.items():
        order = rng.permutation(len(rows)) if name == "better" else range(len(rows))
        (tmp_path / f"{name}.txt").write_text("".join(
            f"{rows[k][0]} {rows[k][1]} {rows[k][2]!r}\n" for k in order))
    bundle = tmp_path / "det.toml"
    bundle.write_text('[bundle]\ntask = "detection"\n[detection]\n'
                      'scores = ["base.txt", "better.txt"]\nkey = "trials.key"\n')
    for unit in ("trial", "speaker"):
        assert main(["compare", str(bundle), "--baseline", "base", "--unit", unit,
                     "--samples", "30", "--format", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["signature"] == f"bs:30|seed:12345|unit:{unit}"
        better = report["systems"][1]["metrics"]["eer"]
        from llgui.core.detection import det

        labels = np.array([y for _, _, y in trials])
        values = np.array([s for _, _, s in scores["better"]])   # key order
        assert better["score"] == pytest.approx(100 * det.eer(values, labels)[0], abs=1e-12)
        assert 0 < better["p_value"] <= 1


def test_randomisation_under_unit_speaker_swaps_whole_speakers(tmp_path, capsys):
    """`--test ar --unit speaker`: each draw swaps all of a speaker's trials between the two
    systems at once. Checked against a randomisation written here (the same generator, one
    coin per speaker, every pseudo-system scored by `det.eer` from scratch); the trial-level
    test gives another p on the same scores, so the signature cannot lie (issue 27, item 2)."""
    import numpy as np

    from llgui.core.detection import det

    rng = np.random.default_rng(1)
    speakers, n = 10, 300
    spk = np.arange(n) % speakers
    labels = rng.random(n) < 0.4
    trials = [(f"spk{spk[i]}", f"utt{i}", bool(labels[i])) for i in range(n)]
    (tmp_path / "trials.key").write_text(
        "".join(f"{e} {t} {'target' if y else 'nontarget'}\n" for e, t, y in trials))
    # 'better' gains on targets by an amount that varies by speaker: a whole-speaker swap
    # sees 10 units of evidence, a trial swap 300
    base = rng.normal(size=n) + labels * 1.0
    better = base + labels * (0.3 + 0.8 * rng.normal(size=speakers)[spk])
    scores = {"base": base.tolist(), "better": better.tolist()}
    for name, rows in scores.items():
        (tmp_path / f"{name}.txt").write_text("".join(
            f"{e} {t} {s!r}\n" for (e, t, _), s in zip(trials, rows)))
    bundle = tmp_path / "det.toml"
    bundle.write_text('[bundle]\ntask = "detection"\n[detection]\n'
                      'scores = ["base.txt", "better.txt"]\nkey = "trials.key"\n')
    samples, seed = 200, 7
    p = {}
    for unit in ("trial", "speaker"):
        assert main(["compare", str(bundle), "--baseline", "base", "--unit", unit, "--test",
                     "ar", "--samples", str(samples), "--seed", str(seed), "--metric", "eer",
                     "--format", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["signature"].startswith(f"ar:{samples}|")
        assert report["signature"].endswith(f"|seed:{seed}|unit:{unit}")
        p[unit] = report["systems"][1]["metrics"]["eer"]["p_value"]

    # The same test, by hand, in the key's order (the order the systems are paired in).
    real = abs(100 * det.eer(base, labels)[0] - 100 * det.eer(better, labels)[0])
    coins = np.random.default_rng(seed).integers(2, size=(samples, speakers), dtype=bool)
    exceed = 0
    for row in coins:
        take = row[spk]
        a = np.where(take, base, better)
        b = np.where(take, better, base)
        exceed += abs(100 * det.eer(a, labels)[0] - 100 * det.eer(b, labels)[0]) > real
    assert p["speaker"] == pytest.approx((exceed + 1) / (samples + 1), abs=1e-15)
    assert p["trial"] < 0.05 < p["speaker"], p   # the unit changes the verdict here


def test_compare_takes_the_dcf_operating_point_as_det_does(tmp_path, capsys):
    """`compare --dcf 0.001,1,1`: minDCF and actDCF at that point, equal to the core's DCF of
    each system's scores, and named in the metric's signature; a bad --dcf or one given to a
    non-detection bundle is exit 2 (issue 27, item 6)."""
    import numpy as np

    from llgui.core.detection import det

    rng = np.random.default_rng(3)
    labels = rng.random(400) < 0.3
    rows = {name: rng.normal(size=400) + labels * shift for name, shift in (("a", 1), ("b", 2))}
    for name, scores in rows.items():
        (tmp_path / f"{name}.txt").write_text("".join(
            f"{float(s)!r} {'target' if y else 'nontarget'}\n" for s, y in zip(scores, labels)))
    bundle = tmp_path / "det.toml"
    bundle.write_text('[bundle]\ntask = "detection"\n[detection]\nscores = ["a.txt", "b.txt"]\n')
    assert main(["compare", str(bundle), "--baseline", "a", "--samples", "20", "--dcf",
                 "0.001,1,1", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for system in report["systems"]:
        scores = rows[system["name"]]
        got = system["metrics"]
        assert got["min_dcf"]["score"] == pytest.approx(
            det.min_dcf(scores, labels, 0.001, 1.0, 1.0), abs=1e-12)
        assert got["act_dcf"]["score"] == pytest.approx(
            det.act_dcf(scores, labels, 0.001, 1.0, 1.0), abs=1e-12)
    assert "dcf:0.001,1,1" in json.dumps(report)
    assert main(["compare", str(bundle), "--baseline", "a", "--dcf", "2,1,1"]) == 2
    assert "P_TARGET" in capsys.readouterr().err


def test_compare_draws_a_progress_bar_on_a_terminal_only(capsys, monkeypatch):
    """A long compare (50,000 segments took minutes) shows a bar with the time left on a
    terminal's stderr, fed by the comparison's own progress; nothing when piped (issue 28)."""
    import io

    from llgui.cli import progress as cli_progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    bar, close = cli_progress.fraction_progress("llgui compare", stream=terminal)
    for f in (0.0, 0.25, 0.5, 1.0):
        bar(f)
    close()
    assert "llgui compare" in terminal.getvalue() and "100%" in terminal.getvalue()
    assert cli_progress.fraction_progress("x", stream=io.StringIO()) [0] is None
    # the command feeds it: the comparison's progress reaches the callback, ending at 1
    seen = []
    monkeypatch.setattr(cli_progress, "fraction_progress",
                        lambda label="", quiet=False, stream=None: (seen.append, lambda: None))
    import json as _json
    from tests.conftest import DEMO

    bundle = DEMO / "detection" / "bundle.toml"
    assert main(["compare", str(bundle), "--baseline", "sysA", "--samples", "20",
                 "--format", "json"]) == 0
    _json.loads(capsys.readouterr().out)
    assert seen and seen[-1] == pytest.approx(1.0) and seen == sorted(seen)


def test_compare_names_bundles_sharing_a_name_by_their_path(tmp_path, capsys):
    """Two bundles named alike (two runs of one input bundle, without run.json) are told
    apart by path; with run.json beside them, by the system of the run (issue 22)."""
    paths = []
    for folder, words in (("one", "a b c d"), ("two", "a b x d")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "r.txt").write_text("a b c d\n", encoding="utf-8")
        (tmp_path / folder / "h.txt").write_text(words + "\n", encoding="utf-8")
        path = tmp_path / folder / "bundle.toml"
        path.write_text('[bundle]\ntask = "mt"\nname = "same"\n\n[[documents]]\nid = "d1"\n'
                        'time = 1\nreferences = ["r.txt"]\nhypothesis = "h.txt"\n',
                        encoding="utf-8")
        paths.append(str(path))
    assert main(["compare", *paths, "--baseline", paths[0], "--format", "json"]) == 0
    names = [s["name"] for s in json.loads(capsys.readouterr().out)["systems"]]
    assert names == paths
    for folder, system in (("one", "base"), ("two", "learner")):
        (tmp_path / folder / "run.json").write_text(json.dumps({"system": {"name": system}}),
                                                    encoding="utf-8")
    assert main(["compare", *paths, "--baseline", "base", "--format", "json"]) == 0
    names = [s["name"] for s in json.loads(capsys.readouterr().out)["systems"]]
    assert names == ["base", "learner"]


def test_no_human_agreement_column_without_a_curve(capsys):
    """Detection (and diarization) metrics have no human-agreement curve: the column of
    'none known' and MT's note (Kocmi et al.) are left out of their table."""
    from tests.conftest import DEMO

    assert main(["compare", str(DEMO / "detection" / "bundle.toml"), "--baseline", "sysA",
                 "--samples", "20"]) == 0
    out = capsys.readouterr().out
    assert "EER" in out and "Baseline: sysA" in out
    assert "humans agree" not in out and "Kocmi" not in out and "none known" not in out
