"""README's Commands table and docs/cli.md's synopsis name every command of `llgui` (issue 37:
`llgui regressions` was in `llgui --help` and docs/cli.md but not in the README's table)."""
from __future__ import annotations

import re
from pathlib import Path

from llgui.cli.main import SUBCOMMANDS

REPO = Path(__file__).resolve().parents[2]


def test_every_command_has_a_row_in_the_readme_and_a_synopsis_in_cli_md():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("\n## Commands\n"):]
    table = table[:table.index("\n\n", table.index("\n|"))]
    rows = set(re.findall(r"^\| `llgui (\w+)` \|", table, flags=re.MULTILINE))
    cli = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    synopsis = set(re.findall(r"^llgui (\w+) ", cli, flags=re.MULTILINE))
    assert "regressions" in SUBCOMMANDS
    assert set(SUBCOMMANDS) - rows == set(), "commands without a row in README's Commands table"
    assert set(SUBCOMMANDS) - synopsis == set(), "commands without a synopsis in docs/cli.md"
