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


def collection_html(result, bundle, policy, policy_name: str, intervals=None
                    ) -> tuple[str, dict]:
    """The workbench's aggregates of a bundle (pooled, mean, policy-weighted S_base, S_adapt,
    S_pen; `result` a `penalty.BundleReplay`), with their intervals (`intervals`: estimates,
    signature) or an ellipsis while they are computed, and the interactive-predictive MT
    effort of the bundle's prefix steps. Returns the HTML and the intervals shown."""
    import html

    from llgui.core.metrics import display_name

    interval_row = "<tr><td>95 % CI [lo, hi]</td>" + "<td align='right'>…</td>" * 3 + "</tr>"
    shown = {}
    if intervals is not None:
        estimates, signature = intervals
        shown = dict(estimates)
        interval_row = (f"<tr><td title='{signature}'>95 % CI [lo, hi]</td>" + "".join(
            f"<td align='right'>{interval_cell(estimates[m])}</td>"
            for m in ("s_base", "s_adapt", "s_pen")) + "</tr>")

    def f(v: float) -> str:
        return "–" if v != v else f"{v:.2f}"   # NaN: no weight in the window

    rows = "".join(
        f"<tr><td>{label}</td><td align='right'>{f(a)}</td><td align='right'>{f(b)}</td>"
        f"<td align='right'>{f(c)}</td></tr>"
        for label, (a, b, c) in result.aggregates(policy)) + interval_row
    name = display_name(result.metric)
    # which system (issue 23 item 15): two bundles on the same documents look alike
    system = html.escape(bundle.name or "") if bundle is not None else ""
    counted = len(result.counted)   # documents cut short are left out (issue 32)
    cut = result.partial_note
    text = ((f"<b>{name}, {counted} of {len(result.replays)} documents</b>" if cut else
             f"<b>{name}, the one document</b>" if len(result.replays) == 1 else
             f"<b>{name}, all {len(result.replays)} documents</b>")
            + (f" of <b>{system}</b>" if system else "") + "<table cellspacing='4'>"
            "<tr><th></th><th>S_base</th><th>S_adapt</th><th>S_pen</th></tr>" + rows
            + "</table>" + effort_html(bundle)
            + "<small>pooled: statistics summed over documents (corpus "
              "score / duration-weighted); mean: unweighted mean of per-document scores; "
              f"policy-weighted: policy {policy_name} over document times; "
              "95 % CI: percentile interval of the pooled scores around the pooled "
              f"score above, {counted} document{'s' if counted != 1 else ''} resampled "
              "(bs:1000|seed:12345|unit:document); 'too few units' below "
              f"{MIN_UNITS} documents."
            + (f" <b>{cut}</b>: the run stopped in it before its end." if cut else "")
            + "</small>")
    return text, shown


def effort_html(bundle) -> str:
    """Interactive-predictive MT: the bundle's WSR, KSR, MAR, KSMR beside the S_pen above
    (`llgui.core.mt.ipmt`, over the log's prefix steps), when its log has any."""
    import html

    if bundle is None or bundle.task != "mt" or not any(
            s.kind == "prefix" for s in bundle.steps):
        return ""
    from llgui.core.mt.ipmt import bundle_effort
    from llgui.io.export import ipmt_text

    effort = bundle_effort(bundle)
    return "" if effort is None else f"<b>{html.escape(ipmt_text(effort.to_json()))}</b><br>"
