"""Runs of one input bundle are told apart by their system, then by system and oracle."""
from __future__ import annotations

import json
from types import SimpleNamespace

from llgui.io.run_names import distinct_names


def _run(folder, system, oracle):
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"system": {"name": system},
                                                 "oracle": oracle}), encoding="utf-8")
    return SimpleNamespace(name="ami (simulated)", path=folder / "bundle.toml")


def test_one_system_under_two_oracles_is_named_with_its_oracle(tmp_path):
    bundles = [_run(tmp_path / "mine" / "allies", "mine", "allies"),
               _run(tmp_path / "mine" / "worst-first", "mine", "worst-first"),
               _run(tmp_path / "static" / "allies", "static", "allies")]
    assert distinct_names(bundles) == ["mine (allies)", "mine (worst-first)", "static"]


def test_the_same_system_and_oracle_twice_falls_back_to_the_paths(tmp_path):
    bundles = [_run(tmp_path / "a", "mine", "allies"), _run(tmp_path / "b", "mine", "allies")]
    assert distinct_names(bundles) == [str(tmp_path / "a" / "bundle.toml"),
                                       str(tmp_path / "b" / "bundle.toml")]
