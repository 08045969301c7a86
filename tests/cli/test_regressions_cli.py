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


def test_top_limits_the_tables_listed_units_per_version_pair(capsys):
    """--top had limited only the JSON's summary: the table printed every row (575 on the
    outsider's campaign). Now each version pair lists at most N units, then '… K more'."""
    campaign = demo_dir() / "campaign" / "campaign.toml"
    assert main(["regressions", str(campaign), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    per_pair = {}
    for r in report["rows"]:
        if r["kind"] == "flip":
            key = (r["system"], f"{r['before']}->{r['after']}")
            per_pair[key] = per_pair.get(key, 0) + 1
    assert max(per_pair.values()) > 3
    assert main(["regressions", str(campaign), "--top", "3"]) == 0
    table = capsys.readouterr().out.splitlines()
    listed, more = {}, {}
    for line in table:
        cells = line.split()
        if len(cells) > 2 and cells[0] == "flip":
            listed[(cells[1], cells[2])] = listed.get((cells[1], cells[2]), 0) + 1
        elif cells[:1] == ["…"]:
            more[(cells[1], cells[2])] = int(cells[3])
    flips = {k: n for k, n in per_pair.items()}
    assert listed == {k: min(n, 3) for k, n in flips.items()}
    assert more == {k: n - 3 for k, n in flips.items() if n > 3}
