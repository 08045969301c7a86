"""Campaign minors of issue 32: identical outputs scored once and said so; the `auto` plan's
time estimate leaves out the first cell's one-time costs; the stall line counts no more cells
running than the workers have threads."""
from __future__ import annotations

import shutil
import subprocess

import pytest

import llgui.campaign.cells as cells
from llgui.campaign.cache import CellCache
from llgui.campaign.executor import measured_enough, per_cell_estimate, running_text
from llgui.campaign.run import run_campaign
from llgui.io.campaign import load_campaign
from tests.campaign.helpers import build_wmt_campaign
from tests.conftest import llgui_in_process as _llgui  # noqa: E402


def test_identical_outputs_are_scored_once_and_the_count_says_so(reference_data, tmp_path,
                                                                 monkeypatch):
    root = tmp_path / "campaign"
    path = build_wmt_campaign(root, reference_data, [[0, 1, 2], [3, 4, 5]])
    # beta's second model version publishes the very files of its first
    for batch in ("b0", "b1"):
        shutil.copyfile(root / "beta" / "M0" / f"{batch}.en", root / "beta" / "M1" / f"{batch}.en")
    calls = []
    real = cells.score_mt_cell

    def counting(task):   # the real scoring, counted
        calls.append(task["hypothesis"])
        return real(task)

    monkeypatch.setattr(cells, "score_mt_cell", counting)
    run = run_campaign(load_campaign(path), workers=0, cache=CellCache(tmp_path / "cache"))
    assert len(calls) == 6 and run.scored == 6 and run.computed == 8
    beta = run.report["systems"][1]["cells"]
    assert [c["scores"] for c in beta if c["model"] == "M0"] == \
        [c["scores"] for c in beta if c["model"] == "M1"]
    monkeypatch.undo()
    done = _llgui(["campaign", str(path), "--workers", "0"],
                  LLGUI_CACHE_DIR=str(tmp_path / "fresh"))
    assert done.returncode == 0, done.stderr
    assert ("8 cells: 0 from the cache, 8 computed (6 files scored: cells of the same content "
            "are scored once)") in done.stderr


def test_the_estimate_leaves_the_first_cells_one_time_costs_out():
    # the figures of issue 32's investigation: a first WMT23 cell under load (imports, the
    # compiled TER engine loaded, its batch's reference statistics) against the next ones
    times = [21.4, 0.45, 0.44, 0.46]
    assert per_cell_estimate(times) == pytest.approx((0.45 + 0.44 + 0.46) / 3)
    assert per_cell_estimate([3.3]) == 3.3        # nothing else timed: all there is
    assert per_cell_estimate([]) == 0.0
    assert not measured_enough([21.4])            # a later cell is always timed
    assert not measured_enough([21.4, 0.45])
    assert measured_enough([21.4, 0.6, 0.5])


def test_the_stall_line_runs_no_more_cells_than_the_workers_have_threads():
    two_single = {"tcp://127.0.0.1:1": 1, "tcp://127.0.0.1:2": 1}
    assert running_text(4, two_single) == "2 running, 2 queued on the workers"
    assert running_text(2, two_single) == "2 running"
    assert running_text(3, {"tcp://127.0.0.1:1": 4}) == "3 running"
    assert running_text(4, None) == "4 running or queued on the workers"


def test_a_system_whose_bundle_cannot_be_read_keeps_its_cells(tmp_path):
    """The demo campaign copied on its own names `../mt/bundle.toml` for `steady`'s online
    run: that line is a problem, and `steady` is still a system of the campaign (its cells
    scored, without an online run). It vanished from every leaderboard."""
    import shutil

    from tests.conftest import REPO

    folder = tmp_path / "campaign"
    shutil.copytree(REPO / "resources" / "demo" / "campaign", folder)
    campaign = load_campaign(folder / "campaign.toml")
    names = [s.name for s in campaign.systems]
    assert names == ["steady", "forgetful", "static", "relapsing"]
    steady = campaign.systems[0]
    assert steady.bundle is None
    assert any("bundle file '../mt/bundle.toml' not found" in str(p)
               for p in campaign.problems), campaign.problems
    assert sum(c.system == 0 for c in campaign.cells) == 13 * 13


def test_damaged_cache_entries_are_named_the_persistence_entry_too(reference_data, tmp_path):
    """Outsider findings: '1 damaged cache entries recomputed' named no file, and a damaged
    persistence entry (.json) was recomputed without a word either way; then, a hashed path
    said not which cell it was. The line now names each damaged entry (a cell's .cell and the
    persistence .json) with what it held, and counts in good English."""
    path = build_wmt_campaign(tmp_path / "campaign", reference_data, [[0, 1, 2], [3, 4, 5]])
    cache = tmp_path / "cache"
    first = _llgui(["campaign", str(path), "--workers", "0"], LLGUI_CACHE_DIR=str(cache))
    assert first.returncode == 0, first.stderr
    cell = sorted(cache.rglob("*.cell"))[0]
    cell.write_bytes(b"not a cache entry")
    (persisted,) = cache.rglob("*.json")
    persisted.write_text(persisted.read_text().replace('"payload"', '"paylode"'))
    again = _llgui(["campaign", str(path), "--workers", "0"], LLGUI_CACHE_DIR=str(cache))
    assert again.returncode == 0, again.stderr
    line = next(x for x in again.stderr.splitlines() if "damaged cache entr" in x)
    assert "2 damaged cache entries recomputed (" in line
    assert str(cell) in line and str(persisted) in line
    # with what each held: the cell (system/model/batch), the persistence figures
    import re

    assert re.search(re.escape(str(cell)) + r" \(cell [\w.-]+/M\d/b\d\)", line), line
    assert f"{persisted} (the systems' persistence figures)" in line
    assert persisted.exists() and cell.exists()   # written anew
    one = _llgui(["campaign", str(path), "--workers", "0"], LLGUI_CACHE_DIR=str(cache))
    assert "damaged cache" not in one.stderr   # the rewritten entries are whole


def test_a_campaign_says_when_its_ter_cuts_cjk_text_at_spaces(reference_data, tmp_path):
    """Outsider finding: `llgui score` on a trg_lang = "zh" bundle warns that TER cuts the
    text at spaces (sacrebleu's default, kept); `llgui campaign` with the same settings
    printed TER over 100 without a word. It now gives the same warning at the settings' line,
    and still scores every cell."""
    path = build_wmt_campaign(tmp_path / "campaign", reference_data, [[0, 1, 2]],
                              metrics=("bleu", "ter"))
    text = path.read_text(encoding="utf-8")
    path.write_text(text + '\n[settings]\ntrg_lang = "zh"\ntokenize = "13a"\n',
                    encoding="utf-8")
    line = 1 + (text + "\n[settings]\n").count("\n")   # the trg_lang line
    campaign = load_campaign(path)
    assert [(w.line, "TER cuts this trg_lang = 'zh' text at spaces only" in w.reason)
            for w in campaign.warnings] == [(line, True)]
    done = _llgui(["campaign", str(path), "--workers", "0"],
                  LLGUI_CACHE_DIR=str(tmp_path / "cache"))
    assert done.returncode == 0, done.stderr
    assert f"campaign.toml:{line}: warning: TER cuts this trg_lang = 'zh'" in done.stderr
    assert "4 cells: 0 from the cache, 4 computed" in done.stderr
