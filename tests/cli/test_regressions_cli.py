"""`llgui regressions` on bad input: exit 2 with the reason, before any scoring; the CSV's rows
are the JSON's."""
from __future__ import annotations

import csv
import io
import json

from llgui.cli.main import main
from llgui.resources import demo_dir

BUNDLE = demo_dir() / "campaign" / "relapsing" / "online" / "bundle.toml"


def test_bad_input_exits_2(tmp_path, capsys):
    assert main(["regressions", str(tmp_path / "nope.toml")]) == 2
    assert main(["regressions", str(demo_dir() / "campaign" / "campaign.toml"),
                 "--metric", "der"]) == 2
    assert "not a unit score of this campaign" in capsys.readouterr().err
    for bad in ("nan", "-1", "inf"):
        try:
            code = main(["regressions", str(BUNDLE), "--tolerance", bad])
        except SystemExit as exit_:
            code = exit_.code
        assert code == 2


def test_csv_rows_are_the_json_rows(capsys):
    assert main(["regressions", str(BUNDLE), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert main(["regressions", str(BUNDLE), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["correction"], r["retest"], r["outcome"]) for r in rows] == \
        [(r["correction"], r["retest"], r["outcome"]) for r in report["rows"]]
    assert {r["kind"] for r in rows} == {"relapse"}
