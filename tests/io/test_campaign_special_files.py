"""A campaign's hypothesis path that exists but is not a regular file (a FIFO, a folder, a
link to nothing) is a problem at its system's `hypotheses` line, its cell left out: it was
counted as a missing output ("1 missing (no hypothesis file)", exit 0), and a FIFO is never
opened (its reader would wait for a writer)."""
from __future__ import annotations

import os

import pytest

from llgui.io.campaign import load_campaign
from tests.conftest import llgui_in_process

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need POSIX")


def _campaign(root):
    (root / "ref.txt").write_text("the cat sat\nhello world\n", encoding="utf-8")
    toml = ['[campaign]', 'task = "mt"', 'metrics = ["bleu"]', '',
            '[[batches]]', 'id = "b0"', 'time = 0', 'references = "ref.txt"', '']
    for name in ("ok", "fifo", "folder", "dangling", "absent"):
        (root / name).mkdir()
        toml += ['[[systems]]', f'name = "{name}"', 'models = [{id = "M0", time = 0}]',
                 f'hypotheses = "{name}/{{model}}-{{batch}}.txt"', '']
    (root / "ok" / "M0-b0.txt").write_text("the cat sat\nhello world\n", encoding="utf-8")
    os.mkfifo(root / "fifo" / "M0-b0.txt")
    (root / "folder" / "M0-b0.txt").mkdir()
    os.symlink(root / "nowhere.txt", root / "dangling" / "M0-b0.txt")
    path = root / "campaign.toml"
    path.write_text("\n".join(toml), encoding="utf-8")
    return path


def test_an_output_that_is_not_a_regular_file_is_a_problem_not_a_gap(tmp_path):
    path = _campaign(tmp_path)
    campaign = load_campaign(path)
    assert [campaign.systems[c.system].name for c in campaign.cells] == ["ok"]
    assert [campaign.systems[c.system].name for c in campaign.gaps] == ["absent"]
    said = {p.line: p.reason for p in campaign.problems}
    lines = path.read_text().splitlines()
    where = {name: lines.index(f'hypotheses = "{name}/{{model}}-{{batch}}.txt"') + 1
             for name in ("fifo", "folder", "dangling")}
    assert said == {
        where["fifo"]: "hypotheses 'fifo/M0-b0.txt' is not a regular file (a FIFO); only "
                       "regular files are read: cell fifo/M0/b0 left out",
        where["folder"]: "hypotheses 'folder/M0-b0.txt' is a directory, not a file: cell "
                         "folder/M0/b0 left out",
        where["dangling"]: "hypotheses 'dangling/M0-b0.txt' is a link to nothing: cell "
                           "dangling/M0/b0 left out"}


def test_the_command_names_them_and_exits_2_without_waiting_on_the_fifo(tmp_path):
    path = _campaign(tmp_path)
    done = llgui_in_process(["campaign", str(path), "--workers", "0"],
                            LLGUI_CACHE_DIR=str(tmp_path / "cache"))
    assert done.returncode == 2
    # the three cells left out are counted beside the missing one (outsider helper-59:
    # "11/11 cells" and nothing about the 12th until the problem at the end)
    assert ("1 cell: 0 from the cache, 1 computed; 1 missing (no hypothesis file); 3 left "
            "out (problems below)") in done.stderr
    assert f"{path}:" in done.stderr and "(a FIFO)" in done.stderr
    assert "Traceback" not in done.stderr
