"""[[batches]] with `lines` / `docids`: whole system files cut by each batch's selection.

The WMT23 de-en test set (all 549 lines) in batches by `lines`, with each submission's whole
output file as a model version's hypotheses, gives the same report, byte for byte, as the same
campaign with the files cut beforehand; the selection's checks are the bundle's.
"""
from __future__ import annotations

import json

import pytest

from llgui.campaign.run import run_campaign
from llgui.io.campaign import load_campaign
from llgui.io.campaign_export import to_json
from tests.campaign.helpers import WMT_SYSTEMS, build_wmt_campaign, wmt_segments

RANGES = [(1, 120), (121, 260), (261, 400), (401, 549)]   # 1-based, inclusive


def _with_lines(root, reference_data, metrics=("bleu", "chrf")) -> str:
    """The campaign of `build_wmt_campaign` written with whole files and `lines`."""
    txt = reference_data / "wmt23-general" / "txt"
    reference = txt / "references" / "generaltest2023.de-en.ref.refA.en"
    toml = ["[campaign]", 'name = "wmt23 de-en"', 'task = "mt"',
            "metrics = [" + ", ".join(f'"{m}"' for m in metrics) + "]", ""]
    for b, (first, last) in enumerate(RANGES):
        toml += ["[[batches]]", f'id = "b{b}"', f'time = "2023-{b + 1:02d}-15"',
                 f'references = ["{reference}"]', f'lines = "{first}-{last}"', ""]
    for system, models in WMT_SYSTEMS.items():
        for m, name in enumerate(models):
            whole = txt / "system-outputs" / f"generaltest2023.de-en.hyp.{name}.en"
            (root / "whole" / system).mkdir(parents=True, exist_ok=True)
            (root / "whole" / system / f"M{m}.en").write_bytes(whole.read_bytes())
        toml += ["[[systems]]", f'name = "{system}"',
                 'models = [{id = "M0", time = "2023-01-01"}, {id = "M1", time = "2023-04-01"}]',
                 f'hypotheses = "whole/{system}/{{model}}.en"', ""]
    return "\n".join(toml)


def test_batches_by_lines_equal_cut_files_byte_for_byte(reference_data, tmp_path):
    ref, _ = wmt_segments(reference_data)
    assert len(ref) == RANGES[-1][1]
    path = build_wmt_campaign(tmp_path, reference_data,
                              [list(range(a - 1, b)) for a, b in RANGES])
    cut = to_json(run_campaign(load_campaign(path), workers=0, use_cache=False).report)
    path.write_text(_with_lines(tmp_path, reference_data), encoding="utf-8")  # the same path
    campaign = load_campaign(path)
    assert campaign.problems == () and len(campaign.cells) == 16
    assert campaign.batches[1].rows == tuple(range(120, 260))
    whole = to_json(run_campaign(campaign, workers=0, use_cache=False).report)
    assert whole == cut
    assert not json.loads(whole)["partial"]


def _campaign(tmp_path, batch: str, hypotheses: str = "sys/{model}.txt") -> str:
    (tmp_path / "ref.txt").write_text("".join(f"r{i}\n" for i in range(10)))
    (tmp_path / "ids.txt").write_text("d1\n" * 4 + "d2\n" * 6)
    (tmp_path / "sys").mkdir(exist_ok=True)
    (tmp_path / "sys" / "M0.txt").write_text("".join(f"h{i}\n" for i in range(10)))
    (tmp_path / "sys" / "M1.txt").write_text("h\n" * 3)   # too short for every selection
    path = tmp_path / "c.toml"
    path.write_text(f'[campaign]\ntask = "mt"\nmetrics = ["bleu"]\n[[batches]]\n{batch}\n'
                    f'[[systems]]\nname = "s"\nmodels = [{{id = "M0", time = 1}}, '
                    f'{{id = "M1", time = 2}}]\nhypotheses = "{hypotheses}"\n')
    return path


def test_docids_select_a_document_and_a_short_file_is_a_named_problem(tmp_path):
    path = _campaign(tmp_path, 'id = "d2"\ntime = 1\nreferences = "ref.txt"\n'
                               'docids = "ids.txt"')
    campaign = load_campaign(path)
    assert campaign.problems == ()
    assert campaign.batches[0].rows == (4, 5, 6, 7, 8, 9)
    run = run_campaign(campaign, workers=0, use_cache=False)
    (problem,) = run.scores.problems
    assert problem.file.endswith("M1.txt")
    assert problem.reason == ("hypothesis file has 3 lines but docids file 'ids.txt' has 10 "
                              "(one document id per line of the test set) (batch 'd2')")
    assert [c["model"] for c in run.report["systems"][0]["cells"]] == ["M0"]


@pytest.mark.parametrize("batch, reason", [
    ('id = "b"\ntime = 1\nreferences = "ref.txt"\nlines = "3-12"',
     "references file 'ref.txt' has 10 lines; lines = \"3-12\" needs at least 12"),
    ('id = "b"\ntime = 1\nreferences = "ref.txt"\nlines = "5-2"',
     "lines '5-2': the last line comes before the first"),
    ('id = "b"\ntime = 1\nreferences = "ref.txt"\nlines = "1-2"\ndocids = "ids.txt"',
     "give either lines or docids (+ docid), not both"),
    ('id = "b"\ntime = 1\nreferences = "ref.txt"\ndocids = "ids.txt"',
     "document id 'b' is not in docids file 'ids.txt' (its 2 ids: d1, d2)"),
    ('id = "b"\ntime = 1\nreferences = "ref.txt"',
     "hypotheses 'sys/{model}.txt' has no {batch}: a whole system file is cut by each "
     "batch's lines or docids, and batch 'b' has neither"),
])
def test_selection_checks_are_the_bundles(tmp_path, batch, reason):
    campaign = load_campaign(_campaign(tmp_path, batch))
    assert any(reason in p.reason for p in campaign.problems), campaign.problems
    assert campaign.cells == ()


def test_a_whole_output_longer_than_its_references_is_a_named_problem(tmp_path):
    """A system output with a line too many (here at the top: every segment shifted by one)
    was cut by the batch's range and scored without a word (outsider helper-49); it is now a
    problem naming the file, the lengths and the batch, and its cell is not scored. An output
    as long as its references is scored."""
    path = _campaign(tmp_path, 'id = "b"\ntime = 1\nreferences = "ref.txt"\nlines = "2-6"')
    (tmp_path / "sys" / "M1.txt").write_text("extra\n" + "".join(f"h{i}\n" for i in range(10)))
    run = run_campaign(load_campaign(path), workers=0, use_cache=False)
    (problem,) = run.scores.problems
    assert problem.file.endswith("M1.txt")
    assert problem.line == 11   # the first line without a reference line
    assert problem.reason == ("hypothesis file has 11 lines but its references have 10: "
                              "lines = \"2-6\" takes the same lines of both, and a line too "
                              "many shifts every segment after it (batch 'b')")
    assert [c["model"] for c in run.report["systems"][0]["cells"]] == ["M0"]


@pytest.mark.parametrize("lines, says", [
    # a line missing after the range: the range itself fits (outsider helper-51: a line
    # missing in the middle left the ranges before it scored on shifted lines, unnamed)
    ([f"h{i}" for i in range(10) if i != 8], "has 9 lines but its references have 10: "
     "lines = \"2-6\" takes the same lines of both, and a line too few shifts every "
     "segment after it (batch 'b')"),
    ([f"h{i}" for i in range(10)] + [""], "has 11 lines but its references have 10: "
     "lines = \"2-6\" takes the same lines of both, and a line too many shifts every "
     "segment after it (its last line is empty: a blank line at the end of the file?) "
     "(batch 'b')"),
])
def test_an_output_of_another_length_than_its_references_is_named(tmp_path, lines, says):
    path = _campaign(tmp_path, 'id = "b"\ntime = 1\nreferences = "ref.txt"\nlines = "2-6"')
    (tmp_path / "sys" / "M1.txt").write_text("".join(f"{x}\n" for x in lines))
    run = run_campaign(load_campaign(path), workers=0, use_cache=False)
    (problem,) = run.scores.problems
    assert problem.file.endswith("M1.txt") and problem.reason == "hypothesis file " + says
    # the line named: the first without a reference line, or the last of a short file
    assert problem.line == (11 if len(lines) > 10 else len(lines))


def test_the_progress_line_says_how_many_cells_were_not_scored(tmp_path, capsys, monkeypatch):
    """A run whose cells all ended printed `2/2 cells (100 %)` when one of them gave no
    score (outsider helper-49: `72/72 (100 %)` with 0 computed); the line now says so."""
    from llgui.cli.main import main

    monkeypatch.setenv("LLGUI_PROGRESS_EVERY", "0")   # a line at every cell
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))
    path = _campaign(tmp_path, 'id = "b"\ntime = 1\nreferences = "ref.txt"\nlines = "2-6"')
    assert main(["campaign", str(path), "--workers", "0"]) == 2   # M1's file is too short
    lines = [x for x in capsys.readouterr().err.splitlines() if "/2 cells (" in x]
    assert lines[-1].startswith("llgui campaign: 2/2 cells (100 %), 1 not scored"), lines
    assert not any("not scored" in x for x in lines if "0/2" in x)


def test_a_file_of_just_the_batchs_lines_is_said_so(tmp_path):
    """A batch's own lines saved to a file of their own, where `lines` cuts the whole test
    set's output (outsider helper-55: 5 lines against 10 read "a line too few shifts every
    segment after it"): the count of lines apart, and what the file seems to be."""
    hint = ("it has just the lines the selection takes: the file should hold the whole test "
            "set, which the selection cuts (batch 'b')")
    for lines, reason in (
            ("1-5", "has 5 lines but its references have 10: lines = \"1-5\" takes the same "
                    "lines of both, and 5 lines too few shift every segment after them; "),
            ("2-6", "has 5 lines; lines = \"2-6\" needs at least 6; ")):
        path = _campaign(tmp_path, f'id = "b"\ntime = 1\nreferences = "ref.txt"\n'
                                   f'lines = "{lines}"')
        (tmp_path / "sys" / "M1.txt").write_text("".join(f"h{i}\n" for i in range(5)))
        run = run_campaign(load_campaign(path), workers=0, use_cache=False)
        (problem,) = run.scores.problems
        assert problem.file.endswith("M1.txt") and problem.line == 5   # where it ends
        assert problem.reason == "hypothesis file " + reason + hint
