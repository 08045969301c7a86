"""Past the problem list's limit, a campaign table with a problem is still refused: 1,000
systems with one wrong template gave 250 refused and 750 scored, because "did this table add a
problem?" was asked of a list that had stopped growing."""
from __future__ import annotations

from llgui.io.campaign import load_campaign


def test_every_bad_system_is_refused_past_the_limit_and_the_rest_is_counted(tmp_path):
    (tmp_path / "ref.txt").write_text("a b c\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("a b d\n", encoding="utf-8")
    lines = ['[campaign]', 'name = "big"', 'task = "mt"', '', '[[batches]]', 'id = "b1"',
             'time = 1', 'references = ["ref.txt"]', '']
    for i in range(600):
        lines += ['[[systems]]', f'name = "s{i}"', 'models = [{id = "M0", time = 0}, {id = "M1", time = 1}]',
                  'hypotheses = "hyp.txt"', '']   # no {model}, no {batch}: two problems each
    path = tmp_path / "campaign.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    campaign = load_campaign(path)
    assert campaign.cells == () and campaign.systems == ()
    assert campaign.problems[-1].reason == "... and 700 more problems"
    assert sum("has no {model}" in p.reason for p in campaign.problems) == 250
