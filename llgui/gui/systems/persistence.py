"""The Systems view's columns of what persists (DESIGN.md section 1.9): NFR, relapse rate and
replicate spread, read from the campaign report's `persistence` entry of each system (built
by `llgui.campaign.regressions.add_persistence`; this module only picks the figures)."""
from __future__ import annotations

PERSISTENCE_COLUMNS: list[tuple[str, str, str]] = [
    ("nfr", "NFR %", "negative flip rate, mean over the system's consecutive model-version "
                     "pairs: units (sentences by chrF, reference turns by DER) worse under "
                     "the later version, % of the units (Yan et al. 2021; Xie et al. 2021); "
                     "llgui regressions gives each pair with its interval"),
    ("relapse_rate", "relapse %", "of the corrections of its online run re-tested by a later "
                                  "version, the % whose error came back"),
    ("replicate_sd", "replicate sd", "standard deviation over the replicates (seeds) of the "
                                     "system's group, of its last version's score pooled "
                                     "over the batches (Clark et al. 2011)"),
]


def persistence_cells(system: dict) -> dict:
    """{nfr, relapse_rate, replicate_sd} of one system entry of the campaign report (None
    where the report has none)."""
    entry = system.get("persistence") or {}
    spread = entry.get("replicate_spread") or {}
    return {"nfr": entry.get("nfr"), "relapse_rate": entry.get("relapse_rate"),
            "replicate_sd": spread.get("sd")}
