"""MT view: the document's segments at one step, with word differences highlighted.

Columns: segment number, reference, the hypothesis the human saw (h_{n-1}; words absent from
the reference in red), and the system's hypothesis after the step (h_n; words it changed in
bold, still-wrong words in red). The corrected segment is marked in yellow; segments the
system changed by itself are marked as generalisation, green when closer to the reference,
red when further (word edits, `llgui.core.textdiff.change_effect`).
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QTextBrowser, QVBoxLayout, QWidget

from llgui.core.textdiff import change_effect, mark_changes, mark_errors
from llgui.core.walkthrough import Walkthrough

CORRECTED_BG = "#fff3b0"
BETTER_BG = "#d9f2dc"
WORSE_BG = "#f8d7d7"
NEUTRAL_BG = "#e8eef7"
ERROR_FG = "#b3261e"


class MTView(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.only_changed = QCheckBox("only corrected and changed segments")
        self.only_changed.toggled.connect(self._render)
        self.summary = QLabel("")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        legend = QLabel(
            f"<span style='background:{CORRECTED_BG}'>&nbsp;corrected by the human&nbsp;</span> "
            f"<span style='background:{BETTER_BG}'>&nbsp;changed by the system: better&nbsp;</span> "
            f"<span style='background:{WORSE_BG}'>&nbsp;changed: worse&nbsp;</span> "
            f"<span style='background:{NEUTRAL_BG}'>&nbsp;changed: neither&nbsp;</span> "
            f"<span style='color:{ERROR_FG}'>red</span> = not in the reference, "
            "<b>bold</b> = changed by the step")
        legend.setTextFormat(Qt.TextFormat.RichText)
        legend.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.only_changed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.browser, 1)
        layout.addWidget(legend)
        self._walk: Walkthrough | None = None
        self._step = 0
        self.rows: list[dict] = []   # what is shown, for tests: {"segment", "mark", ...}

    def show_step(self, walk: Walkthrough, step: int) -> None:
        self._walk, self._step = walk, step
        self._render()

    def _render(self) -> None:
        walk = self._walk
        if walk is None:
            self.browser.clear()
            return
        doc = walk.document
        step = self._step
        view = walk.steps[step - 1] if step > 0 else None
        seen = view.seen if view else walk.base
        adapted = view.adapted if view else walk.base
        corrected = set(view.corrected_segments) if view else set()
        changed = set(view.changed_segments) if view else set()
        rows, self.rows = [], []
        better = worse = 0
        for i in range(doc.n_segments):
            reference = doc.references[0][i]
            if i in corrected:
                mark = "corrected"
            elif i in changed:
                effect = change_effect(seen[i], adapted[i], reference)
                mark = {1: "better", -1: "worse", 0: "changed"}[effect]
                better += effect > 0
                worse += effect < 0
            else:
                mark = ""
            self.rows.append({"segment": i + 1, "mark": mark})
            if self.only_changed.isChecked() and not mark:
                continue
            rows.append(self._row(i, reference, seen[i], adapted[i], mark, step))
        if view is None:
            self.summary.setText(f"<b>{html.escape(doc.id)}</b>: {doc.n_segments} segments, "
                                 "the system's first hypothesis (step 0)")
        else:
            self.summary.setText(
                f"<b>{html.escape(doc.id)}</b> step {step}: segment "
                f"{', '.join(str(c + 1) for c in sorted(corrected))} corrected; the system "
                f"changed {len(changed)} other segment(s) by itself: "
                f"<span style='color:#006b3c'>{better} better</span>, "
                f"<span style='color:{ERROR_FG}'>{worse} worse</span>")
        header = ("<tr><th>#</th><th>reference</th><th>hypothesis the human saw (h<sub>n−1</sub>)"
                  "</th><th>system after the step (h<sub>n</sub>)</th></tr>") if step else (
                  "<tr><th>#</th><th>reference</th><th>system hypothesis (h<sub>0</sub>)</th>"
                  "<th></th></tr>")
        self.browser.setHtml(
            "<html><body style='font-size:10pt'><table cellspacing='0' cellpadding='4' "
            "width='100%' style='border-collapse:collapse'>" + header + "".join(rows)
            + "</table></body></html>")
        if corrected:
            # after the new text is laid out, or the scroll position is computed on the old one
            anchor = f"seg{min(corrected) + 1}"
            QTimer.singleShot(0, lambda: self.browser.scrollToAnchor(anchor))

    def _row(self, i: int, reference: str, seen: str, adapted: str, mark: str, step: int) -> str:
        background = {"corrected": CORRECTED_BG, "better": BETTER_BG, "worse": WORSE_BG,
                      "changed": NEUTRAL_BG}.get(mark, "")
        style = f" style='background:{background}'" if background else ""
        seen_html = _words(mark_errors(seen, reference), errors=True)
        if step:
            changed = {w_i for w_i, (_, c) in enumerate(mark_changes(adapted, seen)) if c}
            adapted_html = _words(mark_errors(adapted, reference), errors=True, bold=changed)
        else:
            adapted_html = ""
        label = {"corrected": "corrected", "better": "generalised ✓",
                 "worse": "generalised ✗", "changed": "changed"}.get(mark, "")
        number = f"<a name='seg{i + 1}'></a>{i + 1}" + (f"<br><small>{label}</small>" if label else "")
        return (f"<tr{style}><td valign='top' align='right'>{number}</td>"
                f"<td valign='top'>{html.escape(reference)}</td>"
                f"<td valign='top'>{seen_html}</td><td valign='top'>{adapted_html}</td></tr>")


def _words(marked: list[tuple[str, bool]], errors: bool, bold: set[int] = frozenset()) -> str:
    out = []
    for n, (word, ok) in enumerate(marked):
        text = html.escape(word)
        if errors and not ok:
            text = f"<span style='color:{ERROR_FG}'>{text}</span>"
        if n in bold:
            text = f"<b>{text}</b>"
        out.append(text)
    return " ".join(out)
