"""A detection bundle's operating point is read as the DCF needs it: 0 < p_target < 1,
c_miss and c_fa > 0. p_target = 0 or 1 and a cost of 0 passed the reader, and `llgui score`
(which now scores a detection bundle's log at its operating point) ended in a traceback,
exit 1."""
from __future__ import annotations

import pytest

from llgui.cli.main import main
from tests.conftest import DEMO

LIFELONG = DEMO / "detection-lifelong" / "bundle.toml"


@pytest.mark.parametrize("setting,shown", [
    ("p_target = 0", "p_target must be a number > 0 and < 1, not 0"),
    ("p_target = 1", "p_target must be a number > 0 and < 1, not 1"),
    ("c_miss = 0", "c_miss must be a number > 0 and <= 1e+09, not 0"),
])
def test_an_operating_point_the_dcf_cannot_have_is_named(tmp_path, capsys, setting, shown):
    text = LIFELONG.read_text(encoding="utf-8")
    assert "p_target = 0.5" in text
    import shutil

    folder = tmp_path / "bundle"
    shutil.copytree(LIFELONG.parent, folder)
    path = folder / "bundle.toml"
    path.write_text(text.replace("p_target = 0.5", setting), encoding="utf-8")
    for command in (["score", str(path)], ["replay", str(path), "--doc", "static"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        line = text.splitlines().index("p_target = 0.5") + 1
        assert f"{path}:{line}: {shown}" in err and "Traceback" not in err
