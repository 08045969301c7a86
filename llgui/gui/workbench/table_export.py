"""The corrections table as a file (File > Export > Corrections table as CSV / JSON)."""
from __future__ import annotations

from llgui.core.walkthrough import Walkthrough


def write_corrections(walk: Walkthrough, path: str, fmt: str) -> None:
    """The replay's report of `walk` with the table's target and answer columns (what was
    corrected and what was given), as JSON (`fmt` "json") or CSV, written atomically."""
    from llgui.core.reports.commands import replay_report
    from llgui.gui.table_models import describe_answer, describe_target
    from llgui.io.export import corrections_csv, to_json
    from llgui.utils.atomic import write_atomic

    report = replay_report(walk.replay)
    for entry, step in zip(report["steps"], walk.log):
        entry["target"] = describe_target(step)
        entry["answer"] = describe_answer(step, walk.document)
    write_atomic(path, to_json(report) if fmt == "json" else corrections_csv(report))
