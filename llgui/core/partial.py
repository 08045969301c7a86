"""Runs stopped before their end: documents cut short (issue 32).

A run of `llgui simulate` (or a live session) that ends by a signal or a failure leaves the
document it was in with its h0 and fewer steps than it would have had. Its S_pen is then
close to S_base because the steps that would have been charged never happened, so a run
stopped early would score better than the same run finished. Such a document is *cut
short*: the run's bundle marks it (`partial = true` in its `[[documents]]` table, read as
`Bundle.partial`) and so does run.json (`"partial": true` in its entry, `"cut_short"`).

Every report shows a cut-short document's own scores, marked, and leaves it out of the
aggregates (pooled, means, MSR) by default, saying so: "1 of 2 documents cut short, left
out". `--include-partial` (API: `include_partial=True`) counts it. `compare` treats a cut
document as it treats a missing one: the systems are compared on the documents every one of
them completed.
"""
from __future__ import annotations

from typing import Sequence


def partial_note(n_cut: int, n_documents: int, left_out: bool) -> str | None:
    """"1 of 2 documents cut short, left out" (or "..., included"); None when none is."""
    if n_cut <= 0:
        return None
    noun = "document" if n_documents == 1 else "documents"
    return f"{n_cut} of {n_documents} {noun} cut short, {'left out' if left_out else 'included'}"


def partial_entry(partial: Sequence[str], n_documents: int, left_out: bool) -> dict | None:
    """The reports' JSON of the cut-short documents: {"documents", "left_out", "note"}."""
    if not partial:
        return None
    return {"documents": list(partial), "left_out": bool(left_out),
            "note": partial_note(len(partial), n_documents, left_out)}
