"""A system with a single model version may leave `{model}` out of `hypotheses` (an online
MT service's one output file): the path is that version's output, cut by each batch's
`lines`. A message about a long path keeps its end (the file name), not its beginning."""
from __future__ import annotations

import sacrebleu

from llgui.campaign.run import run_campaign
from llgui.io.campaign import load_campaign

REF = ["the cat sat on the mat", "a dog barked loudly", "it rained all day",
       "we went home early", "the sun came out", "birds sang in the trees"]
HYP = ["the cat sat on a mat", "a dog barked", "it rained the whole day",
       "we went home", "the sun came out", "birds sang in trees"]


def _campaign(tmp_path, hypotheses: str, models: str) -> str:
    (tmp_path / "ref.txt").write_text("".join(r + "\n" for r in REF), encoding="utf-8")
    deep = tmp_path / ("a-rather-long-folder-name-" * 3) / "outputs"
    deep.mkdir(parents=True, exist_ok=True)
    (deep / "hyp.ONLINE-A.en").write_text("".join(h + "\n" for h in HYP), encoding="utf-8")
    text = "\n".join([
        "[campaign]", 'name = "one"', 'task = "mt"', 'metrics = ["bleu"]', "",
        "[[batches]]", 'id = "b1"', "time = 1", 'references = ["ref.txt"]', 'lines = "1-3"', "",
        "[[batches]]", 'id = "b2"', "time = 2", 'references = ["ref.txt"]', 'lines = "4-6"', "",
        "[[systems]]", 'name = "online-a"', f"models = {models}",
        f'hypotheses = "{hypotheses.replace("DEEP", deep.as_posix())}"', ""])
    path = tmp_path / "campaign.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_one_version_needs_no_model_field_and_its_file_is_cut_by_lines(tmp_path):
    campaign = load_campaign(_campaign(tmp_path, "DEEP/hyp.ONLINE-A.en",
                                       '[{id = "M0", time = 0}]'))
    assert campaign.problems == ()
    assert len(campaign.cells) == 2 and campaign.gaps == ()
    report = run_campaign(campaign, workers=0, use_cache=False).report
    cells = {c["batch"]: c["scores"]["bleu"] for c in report["systems"][0]["cells"]}
    for batch, (a, b) in (("b1", (0, 3)), ("b2", (3, 6))):
        expected = sacrebleu.corpus_bleu(HYP[a:b], [REF[a:b]]).score
        assert abs(cells[batch] - expected) < 1e-9


def test_two_versions_still_need_model_and_the_message_keeps_the_file_name(tmp_path):
    campaign = load_campaign(_campaign(tmp_path, "DEEP/hyp.ONLINE-A.en",
                                       '[{id = "M0", time = 0}, {id = "M1", time = 1}]'))
    reasons = [p.reason for p in campaign.problems]
    assert len(reasons) == 1 and "has no {model}" in reasons[0], reasons
    assert "outputs/hyp.ONLINE-A.en'" in reasons[0]
    assert campaign.cells == ()
