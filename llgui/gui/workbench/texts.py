"""The workbench's words: what the empty page says, the notes on a bundle's text, the
aggregates' interval cell. Kept apart from `llgui.gui.workbench.tab`, which shows them."""
from __future__ import annotations

from llgui.core.significance.resample import MIN_UNITS

OPEN_A_BUNDLE = ("Open a bundle (File › Open bundle…, Ctrl+O) or the demo "
                 "(File › Open the demo).")


def empty_text(bundles) -> str:
    """What the empty workbench says: open something, or why what is open has no document to
    step through (a detection bundle of score files only: issue 23 item 19)."""
    if not bundles:
        return OPEN_A_BUNDLE
    if not any(b.documents for b in bundles):
        names = ", ".join(b.name or "a bundle" for b in bundles)
        return (f"{names}: detection scores only, no documents with an interaction log to "
                "step through here.\nTheir DET curves, EER and DCFs are in the Detection tab.")
    return "Choose a document in the Documents panel (View › Documents panel)."


def script_notes(bundle, metric: str) -> list[str]:
    """What the MT view says about a bundle's text: the fonts (`llgui.gui.fonts`, checked
    once per bundle) and, under TER, sacrebleu's Asian support left off for CJK."""
    from llgui.core.mt.script import ter_script_note
    from llgui.gui.fonts import check_bundle

    notes = [check_bundle(bundle)[0].message]
    if metric == "ter":
        notes.append(ter_script_note(bundle.settings))
    return [n for n in notes if n]


def interval_cell(estimate) -> str:
    """The workbench's interval cell: [lo, hi] beside the pooled score (the percentile
    interval, issue 21), grey "too few units (n)" when the bootstrap has too few documents."""
    if estimate.low is None:
        return "–"
    if estimate.n_units is not None and estimate.n_units < 2:   # [x, x]: nothing resampled
        return ("<span style='color:#8a8a8a' title='one document: a bootstrap over documents "
                "has nothing to resample'>one document: no interval</span>")
    text = f"[{estimate.low:.2f}, {estimate.high:.2f}]"
    if estimate.too_few:
        return (f"<span style='color:#8a8a8a' title='only {estimate.n_units} documents: the "
                f"bootstrap is not trusted below {MIN_UNITS}'>too few units "
                f"({estimate.n_units}) {text}</span>")
    return text
