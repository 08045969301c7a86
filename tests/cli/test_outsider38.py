"""Findings of a newcomer's first hour (outsider38) on the command line."""
from __future__ import annotations

import pytest

import llgui
from tests.conftest import llgui_in_process

MT = llgui.demo_dir() / "mt" / "bundle.toml"


@pytest.mark.parametrize("metric,side", [("bleu", "above it (higher is better)"),
                                         ("ter", "below it (lower is better)")])
def test_the_replay_footer_says_which_side_of_memorise_only_is_generalisation(metric, side):
    done = llgui_in_process(["replay", str(MT), "--doc", "news-2023-01-09", "--metric", metric])
    assert done.returncode == 0, done.stderr
    footer = next(line for line in done.stdout.splitlines() if line.startswith("S_pen mem ="))
    assert f"S_pen {side} is net generalisation" in footer
