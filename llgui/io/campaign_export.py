"""Writing a campaign report: JSON, a readable table, CSV, and the per-system lifelong tables.

`write_campaign(report, out)` writes `out/campaign.json` (the report, `"partial": true` when
anything was wrong) and `out/lifelong/<system>.csv` per system, in the long format of
DESIGN.md section 3 that `llgui.io.lifelong.load_lifelong` (and so the GUI and `llgui
lifelong`) reads. Every file is written atomically.

A lifelong file is named after its system as it reads (`lifelong_stem`): a name of ASCII
letters, digits, `_ - . @` (a replicate's `alpha@s1`) is kept, since every OS takes it; any
other character becomes `_` (`alpha/s1` -> `alpha_s1`), a name Windows reserves (`CON`, `nul`,
`COM1`...) or ending in `.` gets a `_`, and only when two systems would share a file (also
ignoring case, as Windows' and macOS's file systems do) the later one gets `_2`, `_3`...
campaign.json's `"lifelong_files"` maps every system's name to its file.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping

from llgui.utils.atomic import write_atomic
from llgui.utils.names import safe_name as _safe_name, shown
from llgui.core.reports.campaign import ONLINE_FIGURES, POLICY_NAMES, leaderboard_rows
from llgui.core.metrics import display_name
from llgui.io.export import clean, fmt, render_table, to_csv, to_json

LIFELONG_HEADER = ("model", "model_time", "test", "test_time", "metric", "value")


def lifelong_csv(system: Mapping) -> str:
    """One system's cells in the lifelong long format (missing cells have no row)."""
    rows = []
    for cell in system["cells"]:
        for metric, value in cell["scores"].items():
            if value is None or value != value:  # NaN: the cell failed for this metric
                continue
            rows.append((cell["model"], cell["model_time"], cell["batch"], cell["batch_time"],
                         metric, float(value)))
    return to_csv(LIFELONG_HEADER, rows)


def safe_name(name: str) -> str:
    """A system name as a file name: injective, bounded, never leaving lifelong/
    (`llgui.utils.names.safe_name`)."""
    return _safe_name(name, "system")


_READABLE = re.compile(r"[A-Za-z0-9_\-@][A-Za-z0-9_.\-@]*", re.ASCII)
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
             *(f"lpt{i}" for i in range(10))}
MAX_STEM = 100


def lifelong_stem(name: str) -> str:
    """A system name as a readable file stem, safe on every OS (see the module docstring);
    not injective by itself: `lifelong_files` adds a suffix on a collision."""
    if _READABLE.fullmatch(name) and len(name) <= MAX_STEM:
        stem = name
    else:
        stem = re.sub(r"[^A-Za-z0-9_.@\-]+", "_", name, flags=re.ASCII).lstrip(".")
        stem = stem[:MAX_STEM] or "system"
    if stem.endswith(".") or stem.split(".")[0].lower() in _RESERVED:
        stem += "_"
    return stem


def lifelong_files(names) -> dict[str, str]:
    """Each system name -> its file under the report's folder, `lifelong/STEM.csv`: the
    readable stem, with `_2`, `_3`... only where an earlier system (in report order) already
    took it, case ignored."""
    out, used = {}, set()
    for name in names:
        base = lifelong_stem(name)
        stem, k = base, 1
        while stem.casefold() in used:
            k += 1
            stem = f"{base}_{k}"
        used.add(stem.casefold())
        out[name] = f"lifelong/{stem}.csv"
    return out


def write_campaign(report: Mapping, out: str | Path, progress=None) -> list[Path]:
    """Write the JSON report and the lifelong CSVs into `out`; returns the files written.
    `progress(fraction)` hears how far it is (each file is written atomically, with an fsync:
    about 10 ms a system on a laptop's disk)."""
    out = Path(out)
    written = []
    files = lifelong_files(system["name"] for system in report["systems"])
    n = len(report["systems"])
    for k, system in enumerate(report["systems"]):
        if progress is not None:
            progress(k / (n + 1))
        path = out / files[system["name"]]
        write_atomic(path, lifelong_csv(system))
        written.append(path)
    path = out / "campaign.json"
    write_atomic(path, to_json({**report, "lifelong_files": files}))
    written.append(path)
    return written


def campaign_csv(report: Mapping) -> str:
    """Every cell of every system, one row per metric (long format, with the system)."""
    rows = []
    for system in report["systems"]:
        for cell in system["cells"]:
            for metric, value in cell["scores"].items():
                rows.append((system["name"], cell["model"], cell["model_time"], cell["batch"],
                             cell["batch_time"], metric, value))
    return to_csv(("system",) + LIFELONG_HEADER, rows)


def counted(n: int, noun: str) -> str:
    """"1 system", "2 systems", "2 batches"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}{'es' if noun.endswith('ch') else 's'}"


def campaign_table(report: Mapping) -> str:
    """The leaderboard of each metric, and what was wrong or missing."""
    n_cells = sum(len(s["cells"]) for s in report["systems"])
    out = [f"{shown(report['campaign'])} ({report['task']}, "
           f"{counted(len(report['systems']), 'system')}, "
           f"{counted(len(report['batches']), 'batch')}, {counted(n_cells, 'cell')} scored"
           + (f", {len(report['gaps'])} missing" if report["gaps"] else "") + ")"
           + ("  PARTIAL" if report["partial"] else ""), ""]
    header = ["system", "S_base", "S_adapt", "S_pen", "MSR"] + [f"S_P {p}" for p in
                                                                 POLICY_NAMES]
    for metric in report["metrics"]:
        rows = [[r["system"] + (" (cut short)" if r.get("partial") else "")]
                + [fmt(clean(r.get(k))) for k in ONLINE_FIGURES]
                + [_s_p_cell(r, p) for p in POLICY_NAMES]
                for r in leaderboard_rows(report, metric)]
        out.append(f"{display_name(metric)}: {report['signatures'].get(metric, '')}")
        out.append(render_table(header, rows))
    out.append("S_base, S_adapt, S_pen, MSR: the online run, pooled over its documents; "
               "S_P: mean over model versions of the policy-weighted score (presets A, B, C), "
               "(k/n): over k of the system's n versions; the others have no scored cell in "
               "their window (no batch tested then, or its cells missing or not scored).")
    for metric in report["metrics"][:1]:
        for r in leaderboard_rows(report, metric):
            if r.get("partial"):
                out.append(shown(f"cut short: {r['system']}'s online run stopped before its "
                                 f"end: {r['partial']}"))
    if report.get("persistence"):   # what persists (DESIGN.md 1.9): llgui regressions for more
        rows = [[s["name"], fmt(clean(s["persistence"].get("nfr"))),
                 fmt(clean(s["persistence"].get("relapse_rate"))),
                 fmt(clean((s["persistence"].get("replicate_spread") or {}).get("sd")))]
                for s in report["systems"] if s.get("persistence") is not None]
        out.append(f"What persists ({report['persistence']['signature']}): NFR, mean over "
                   f"consecutive versions, %; relapse rate of the online run, %; replicate sd")
        out.append(render_table(["system", "NFR %", "relapse %", "replicate sd"], rows))
    for gap in report["gaps"][:20]:
        out.append(shown(f"missing: {gap['system']}/{gap['model']}/{gap['batch']} "
                         f"({gap['hypothesis']})"))
    if len(report["gaps"]) > 20:
        out.append(f"... and {len(report['gaps']) - 20} more missing cells")
    return "\n".join(out) + "\n"


def _s_p_cell(row: Mapping, policy: str) -> str:
    """S_P with the versions it averages when some are missing: `54.19 (2/3)`, or
    `no window (0/3)` when no version's window holds a batch (issue 21)."""
    versions, of = row.get(f"s_p_{policy}_versions"), row.get("n_versions")
    value = fmt(clean(row.get(f"s_p_{policy}")))
    if versions is None or of is None or versions == of:
        return value
    if versions == 0:
        return f"no window (0/{of})"
    return f"{value} ({versions}/{of})"


__all__ = ["campaign_csv", "campaign_table", "lifelong_csv", "lifelong_files", "lifelong_stem",
           "write_campaign", "to_json"]
