"""`llgui det BUNDLE` (docs/detection.md: "as `llgui det BUNDLE` and `compare` do"): an
outsider's `llgui det resources/demo/detection/bundle.toml` was read as a score file and
refused ("not a file of 'score label' lines"). A detection bundle is now read as `score` and
`compare` read it: its systems' score files and key, at its `[settings]` operating point."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from llgui.cli.main import main
from tests.conftest import REPO

DEMO = REPO / "resources" / "demo"


def _det(capsys, *argv) -> tuple[int, str, str]:
    code = main(["det", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name, dcf", [("detection-lifelong", "0.5,1,1"),
                                       ("detection", "0.01,1,1")])
def test_det_of_a_bundle_equals_det_of_its_files_at_its_operating_point(capsys, name, dcf):
    """The same systems, trials and numbers as `det` on the files the bundle names, with
    --dcf its [settings] (the lifelong demo's p_target 0.5; the other's default 0.01)."""
    import tomllib

    folder = DEMO / name
    bundle = tomllib.loads((folder / "bundle.toml").read_text(encoding="utf-8"))
    scores = [folder / s for s in bundle["detection"]["scores"]]
    key = bundle["detection"].get("key")
    code, out, err = _det(capsys, folder / "bundle.toml", "--format", "json")
    assert code == 0, err
    files = [*scores, *(["--key", folder / key] if key else [])]
    code_files, out_files, err_files = _det(capsys, *files, "--dcf", dcf, "--format", "json")
    assert code_files == 0, err_files
    got, want = json.loads(out), json.loads(out_files)
    assert [s["name"] for s in got["systems"]] == [p.stem for p in scores]
    assert got == want
    wanted = [float(v) for v in dcf.split(",")]
    assert all(s["dcf"] == pytest.approx(wanted) for s in got["systems"])


def test_an_explicit_dcf_overrides_the_bundles(capsys):
    code, out, _ = _det(capsys, DEMO / "detection-lifelong" / "bundle.toml", "--dcf",
                        "0.01,1,1", "--format", "json")
    assert code == 0
    assert all(s["dcf"] == pytest.approx([0.01, 1, 1]) for s in json.loads(out)["systems"])


def test_a_bundle_of_another_task_or_with_a_key_is_refused_with_its_reason(capsys):
    code, _, err = _det(capsys, DEMO / "mt" / "bundle.toml")
    assert code == 2 and "is not a detection bundle" in err
    code, _, err = _det(capsys, DEMO / "detection" / "bundle.toml", "--key",
                        DEMO / "detection-lifelong" / "scores" / "trials.key")
    assert code == 2 and "--key is for score files" in err


def test_det_bundle_as_a_process_prints_the_table():
    """The documented command itself, in its own process (exit code and table)."""
    done = subprocess.run([sys.executable, "-m", "llgui", "det",
                           str(DEMO / "detection" / "bundle.toml")], capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split()[:2] == ["system", "targets"]
    assert {line.split()[0] for line in done.stdout.splitlines()[2:5]} == {"sysA", "sysB",
                                                                          "sysB-adapted"}
