"""When the Documents panel is shown: it lists the open bundles' documents, so on the tabs of
a campaign (Systems, Across time) with no bundle open it is an empty column taking a fifth of
a 1366-px window (the Systems tab's significance columns were pushed off-screen behind a
scrollbar by it). There it is hidden; it comes back with the first bundle, or on the other
tabs, unless the user closed it (View › Documents panel)."""
from __future__ import annotations

CAMPAIGN_TABS = ("systems", "time")


def documents_dock_wanted(rows: int, tab: str | None, closed_by_user: bool,
                          bundles_open: bool = False) -> bool:
    """Is the Documents panel shown, with `rows` documents listed, `tab` current (workbench,
    time, detection, systems), bundles open or not, and the user's own choice? Empty, it is
    shown only where nothing is open yet outside a campaign's tabs (where documents will
    appear): a bundle of detection scores only has no documents to list."""
    if closed_by_user:
        return False
    return rows > 0 or (tab not in CAMPAIGN_TABS and not bundles_open)


def fit_documents_dock(window) -> None:
    """Show or hide `window`'s Documents panel as `documents_dock_wanted` says."""
    tabs = {window.systems_view: "systems", window.time_tab: "time"}
    tab = tabs.get(window.tabs.currentWidget())
    wanted = documents_dock_wanted(window.documents_model.rowCount(), tab,
                                   window._documents_closed, bool(window.state.bundles))
    if window.documents_dock.isVisibleTo(window) != wanted:
        window.documents_dock.setVisible(wanted)
