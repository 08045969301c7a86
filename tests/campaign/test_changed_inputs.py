"""A file written while a campaign runs (outsider finding, issue 36 follow-up): the run keys a
cell by the content its files had when it looked them up, and a job that then read other
bytes put one content's statistics under the other's key, for every later run to reuse. A
cell job now scores only the bytes its key was made of: otherwise it says which file changed,
nothing is cached, and the next run scores the file as it is (sacrebleu's numbers)."""
from __future__ import annotations

import sacrebleu

from llgui.campaign.cache import CellCache
from llgui.campaign.run import run_campaign
from llgui.io.campaign import load_campaign
from tests.campaign.helpers import small_mt_campaign


def _bleu(report, system: str, model: str, batch: str) -> float:
    (found,) = [c["scores"]["bleu"] for s in report["systems"] if s["name"] == system
                for c in s["cells"] if c["model"] == model and c["batch"] == batch]
    return found


def _library_bleu(hyp_path, ref_path) -> float:
    hyps = hyp_path.read_text().splitlines()
    refs = ref_path.read_text().splitlines()
    return sacrebleu.BLEU().corpus_score(hyps, [refs]).score


def test_a_hypothesis_written_during_the_run_is_not_scored_nor_cached(tmp_path):
    path = small_mt_campaign(tmp_path / "camp")
    target = tmp_path / "camp" / "s1" / "m0" / "t1.txt"
    other = (tmp_path / "camp" / "s0" / "m1" / "t0.txt").read_text()   # another content
    written = []

    def announce(message: str) -> None:   # the look-ups are done, the jobs not yet run
        if not written:
            target.write_text(other)
            written.append(message)

    cache = CellCache(tmp_path / "cache")
    run = run_campaign(load_campaign(path), workers=0, cache=cache, announce=announce)
    assert written, "the run announced nothing before its jobs"
    problems = run.report["problems"]
    assert any("t1.txt" in str(p) and "changed while the campaign ran" in str(p)
               for p in problems), problems
    # the next run scores the file as it is now, as sacrebleu does
    again = run_campaign(load_campaign(path), workers=0, cache=CellCache(tmp_path / "cache"))
    assert not again.report["problems"]
    expected = _library_bleu(target, tmp_path / "camp" / "ref" / "t1.txt")
    assert abs(_bleu(again.report, "s1", "m0", "t1") - expected) < 1e-9


def test_a_reference_written_during_the_run_is_not_scored_nor_cached(tmp_path):
    from llgui.campaign import cells

    # (a worker keeps the references it read under their content hash: those are the
    # key's content whatever the file holds now; this run must read them)
    cells._REFERENCE_CACHE.clear()
    path = small_mt_campaign(tmp_path / "camp")
    reference = tmp_path / "camp" / "ref" / "t0.txt"
    written = []

    def announce(message: str) -> None:
        if not written:
            reference.write_text((tmp_path / "camp" / "ref" / "t1.txt").read_text())
            written.append(message)

    run = run_campaign(load_campaign(path), workers=0, cache=CellCache(tmp_path / "cache"),
                       announce=announce)
    assert any("ref/t0.txt" in str(p) and "changed while the campaign ran" in str(p)
               for p in run.report["problems"]), run.report["problems"]
    again = run_campaign(load_campaign(path), workers=0, cache=CellCache(tmp_path / "cache"))
    assert not again.report["problems"]
    hyp = tmp_path / "camp" / "s0" / "m0" / "t0.txt"
    assert abs(_bleu(again.report, "s0", "m0", "t0") - _library_bleu(hyp, reference)) < 1e-9


def test_an_online_run_whose_files_are_written_during_the_run_is_not_cached(tmp_path):
    """The same for an online run (its key: the loaded bundle's content)."""
    import shutil
    from pathlib import Path

    import llgui

    demo = Path(llgui.__file__).resolve().parent.parent / "resources" / "demo"
    shutil.copytree(demo / "campaign", tmp_path / "campaign")
    shutil.copytree(demo / "mt", tmp_path / "mt")
    target = tmp_path / "campaign" / "static" / "online" / "hyp" / "news-2023-01-09.drm"
    written = []

    def announce(message: str) -> None:
        if not written:
            lines = target.read_text(encoding="utf-8").splitlines()
            target.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
            written.append(message)

    path = tmp_path / "campaign" / "campaign.toml"
    run = run_campaign(load_campaign(path), workers=0, cache=CellCache(tmp_path / "cache"),
                       announce=announce)
    assert written
    assert any("static/online/bundle.toml" in str(p) and "changed while the campaign ran"
               in str(p) for p in run.report["problems"]), run.report["problems"]
    again = run_campaign(load_campaign(path), workers=0, cache=CellCache(tmp_path / "cache"))
    assert not again.report["problems"]
    fresh = run_campaign(load_campaign(path), workers=0, cache=CellCache(tmp_path / "fresh"))
    from llgui.io.campaign_export import to_json

    assert to_json(again.report) == to_json(fresh.report)
