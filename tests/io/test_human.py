"""Human-score files (llgui.io.human, issue 32): each layout read as published, and bad input
named `FILE:LINE: reason` (exit 2 through `compare --human`)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from llgui.core.errors import LoadError
from llgui.io.human import read_human_scores

DATA = Path(__file__).resolve().parents[1] / "data" / "wmt_human"


def test_wmt23_results_block_raw_means():
    scores = read_human_scores(DATA / "WMT23.results.deu-eng.txt", "deu-eng")
    assert scores.systems["GPT4-5shot"] == pytest.approx(90.31237721021611)
    assert scores.systems["NLLB_Greedy"] == pytest.approx(77.90537000654878)
    assert len(scores.systems) == 14 and scores.segments is None


def test_esa_annotations_segment_level():
    scores = read_human_scores(DATA / "esa_generalMT2024.eng-zho.excerpt.csv")
    assert sorted(scores.systems) == ["GPT-4", "IOL-Research", "Llama3-70B", "ONLINE-B"]
    assert scores.pair == "eng-zho" and len(scores.segment_ids) == 40
    assert all(np.isfinite(v).all() for v in scores.segments.values())


def test_mt_metrics_eval_files(tmp_path):
    sys_file = tmp_path / "de-en.esa.sys.score"
    sys_file.write_text("A\t71.5\nB\t69\n")
    assert dict(read_human_scores(sys_file).systems) == {"A": 71.5, "B": 69.0}
    seg_file = tmp_path / "de-en.esa.seg.score"
    seg_file.write_text("A\t70\nA\tNone\nA\t80\nB\t60\nB\t65\nB\tNone\n")
    scores = read_human_scores(seg_file)
    assert scores.systems == {"A": 75.0, "B": 62.5}
    assert np.isnan(scores.segments["A"][1])


@pytest.mark.parametrize("text,line,reason", [
    ("A\t71.5\nB\tgood\n", 2, "is not a number"),
    ("A\t71.5\nB\tinf\n", 2, "out of range"),
    ("u,A,1,TGT,eng,deu,70,d1,False,s,e\nu,B,1,TGT,eng,deu,170,d1,False,s,e\n", 2,
     "out of range"),
    ("u,A,1,TGT,eng,deu,70,d1,False,s,e\nu,B,1,TGT,eng,zho,70,d1,False,s,e\n", 1,
     "several language pairs"),
    ("u,A,1,TGT,eng\n", 1, "5 fields"),
])
def test_bad_input_is_file_and_line(tmp_path, text, line, reason):
    path = tmp_path / "human.txt"
    path.write_text(text)
    with pytest.raises(LoadError) as error:
        read_human_scores(path)
    (problem,) = error.value.problems
    assert (problem.file, problem.line) == (str(path), line) and reason in problem.reason


def test_a_campaigns_bad_human_file_is_a_problem_at_its_line(reference_data, tmp_path, capsys):
    from llgui.cli.main import main
    from tests.cli.test_compare_all_pairs import write_campaign

    bad = tmp_path / "human.tsv"
    bad.write_text("ONLINE-B\t80\nONLINE-W\t-\n")
    path, _, _ = write_campaign(tmp_path / "c", reference_data, ("ONLINE-B", "ONLINE-W"),
                                extra=f'\n[human]\nscores = "{bad}"\n')
    assert main(["compare", str(path), "--all-pairs", "--samples", "20"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2: score '-' is not a number" in err and "Traceback" not in err
    assert main(["compare", str(path), "--all-pairs", "--samples", "20", "--cells",
                 "--human", str(bad)]) == 2
