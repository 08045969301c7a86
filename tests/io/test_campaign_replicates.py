"""The campaign file's `replicates` (issue 33): expanded into one system per replicate, and
every misuse a problem at its line."""
from __future__ import annotations

from llgui.io.campaign import load_campaign

HEAD = """[campaign]
task = "mt"
metrics = ["chrf"]

[[batches]]
id = "b0"
time = 0
references = ["ref.en"]

[[systems]]
name = "alpha"
models = [{id = "M0", time = 0}]
"""


def _load(tmp_path, system: str):
    (tmp_path / "ref.en").write_text("a b c\n")
    for rep in ("s1", "s2"):
        (tmp_path / rep).mkdir(exist_ok=True)
        (tmp_path / rep / "M0-b0.en").write_text("a b d\n")
    path = tmp_path / "campaign.toml"
    path.write_text(HEAD + system)
    return load_campaign(path)


def test_replicates_expand_into_named_runs(tmp_path):
    campaign = _load(tmp_path, 'replicates = ["s1", "s2"]\n'
                               'hypotheses = "{replicate}/{model}-{batch}.en"\n')
    assert campaign.problems == ()
    assert [(s.name, s.replicate_of, s.replicate) for s in campaign.systems] == \
        [("alpha@s1", "alpha", "s1"), ("alpha@s2", "alpha", "s2")]
    assert [c.hypothesis for c in campaign.cells] == [
        str(tmp_path / "s1" / "M0-b0.en"), str(tmp_path / "s2" / "M0-b0.en")]


def test_replicates_without_the_field_is_a_problem_at_its_line(tmp_path):
    campaign = _load(tmp_path, 'replicates = ["s1", "s2"]\nhypotheses = "s1/{model}-{batch}.en"\n')
    assert [(p.line, "has no {replicate}" in p.reason) for p in campaign.problems] == [(14, True)]


def test_the_field_without_replicates_is_a_problem(tmp_path):
    campaign = _load(tmp_path, 'hypotheses = "{replicate}/{model}-{batch}.en"\n')
    assert len(campaign.problems) == 1 and campaign.problems[0].line == 13
    assert "{replicate} needs replicates" in campaign.problems[0].reason


def test_bad_replicate_ids(tmp_path):
    campaign = _load(tmp_path, 'replicates = ["s1", "s1", "../x"]\n'
                               'hypotheses = "{replicate}/{model}-{batch}.en"\n')
    reasons = sorted(p.reason for p in campaign.problems)
    assert any("duplicate replicate id 's1'" in r for r in reasons)
    assert any("replicate id must be" in r for r in reasons)
    assert campaign.systems == ()
