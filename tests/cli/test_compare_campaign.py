"""`llgui compare CAMPAIGN`: the online runs of a campaign's systems, each named by its system,
compared exactly as the same runs given as bundles."""
from __future__ import annotations

import json
import shutil

from llgui.cli.main import main
from tests.conftest import DEMO


def _system_run(folder, name, drop_steps: bool):
    """A copy of the demo MT bundle as one system's online run (without its log: the system
    that never adapts; with it: the demo's adaptive one)."""
    shutil.copytree(DEMO / "mt", folder)
    text = (folder / "bundle.toml").read_text(encoding="utf-8")
    text = text.replace('name = "Demo: lifelong MT, Ulvi to Darem (synthetic)"',
                        f'name = "{name}-run"')
    if drop_steps:
        text = text.replace("[interactions]", "").replace('log = "logs/system.jsonl"', "")
    (folder / "bundle.toml").write_text(text, encoding="utf-8")
    return folder / "bundle.toml"


def _campaign(tmp_path, runs):
    ref = sorted((DEMO / "mt" / "ref").iterdir())[0]
    lines = ['[campaign]', 'name = "two online runs"', 'task = "mt"', 'metrics = ["bleu"]', "",
             "[[batches]]", 'id = "b1"', 'time = "2023-01-15"', f'references = ["{ref}"]', ""]
    for name, bundle in runs.items():
        lines += ["[[systems]]", f'name = "{name}"', 'models = [{id = "M0", time = "2023-01-01"}]',
                  f'hypotheses = "{name}/{{model}}/{{batch}}.drm"', f'bundle = "{bundle}"', ""]
    path = tmp_path / "campaign.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_compare_over_a_campaign_equals_compare_over_its_bundles(tmp_path, capsys):
    runs = {"static": _system_run(tmp_path / "static", "static", drop_steps=True),
            "adaptive": _system_run(tmp_path / "adaptive", "adaptive", drop_steps=False)}
    campaign = _campaign(tmp_path, runs)
    options = ["--test", "bs", "--samples", "200", "--seed", "7", "--unit", "document",
               "--metric", "bleu", "--format", "json"]
    assert main(["compare", str(campaign), "--baseline", "static", *options]) == 0
    by_campaign = json.loads(capsys.readouterr().out)
    assert main(["compare", str(runs["static"]), str(runs["adaptive"]),
                 "--baseline", "static-run", *options]) == 0
    by_bundles = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in by_campaign["systems"]] == ["static", "adaptive"]
    assert [s["name"] for s in by_bundles["systems"]] == ["static-run", "adaptive-run"]
    for ours, theirs in zip(by_campaign["systems"], by_bundles["systems"]):
        assert ours["metrics"] == theirs["metrics"]
    assert by_campaign["signature"] == by_bundles["signature"]


def test_a_campaign_of_one_output_only_system_has_nothing_to_compare(tmp_path, capsys):
    """Without online runs a campaign's scored outputs are compared (issue 32); with one
    system there is no pair."""
    ref = sorted((DEMO / "mt" / "ref").iterdir())[0]
    path = tmp_path / "campaign.toml"
    path.write_text('[campaign]\ntask = "mt"\n\n[[batches]]\nid = "b1"\ntime = 1\n'
                    f'references = ["{ref}"]\n\n[[systems]]\nname = "a"\n'
                    'models = [{id = "M0", time = 1}]\nhypotheses = "a/{model}/{batch}.drm"\n',
                    encoding="utf-8")
    assert main(["compare", str(path), "--baseline", "a"]) == 2
    assert "the campaign has 1 system; a comparison needs two" in capsys.readouterr().err
