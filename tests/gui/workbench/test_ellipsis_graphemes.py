"""gui2, item 5: the "…" of a cut MT cell never covers half a glyph: its box starts where a
grapheme cluster starts (UAX #29), in Hindi (conjuncts, combining vowel signs, visarga) and
Japanese, at 1366x768."""
from __future__ import annotations

import html

from PySide6.QtCore import QPointF, Qt, QTextBoundaryFinder
from PySide6.QtGui import QTextDocument

from tests.gui.conftest import settle, shown_window

HINDI = ("भारतीय रिज़र्व बैंक ने ऋण ः की दरों में परिवर्तन किया और क्षेत्रीय ग्रामीण बैंकों को "
         "अतिरिक्त पूँजी देने की घोषणा की, जिससे किसानों को सस्ता ऋण मिलेगा")
JAPANESE = ("日本銀行は金融政策決定会合で短期金利の誘導目標を据え置くことを決め、有識者は"
            "物価の先行きについて慎重な見方を示した。市場では円安が進み、輸出企業の株価が上昇した")


def _boundaries_x(doc: QTextDocument, y: float) -> list[float]:
    """The x of every grapheme boundary on the line of `doc` at height `y`."""
    layout = doc.documentLayout()
    position = layout.hitTest(QPointF(1, y), Qt.HitTestAccuracy.FuzzyHit)
    block = doc.findBlock(position)
    text_layout = block.layout()
    line = text_layout.lineForTextPosition(position - block.position())
    finder = QTextBoundaryFinder(QTextBoundaryFinder.BoundaryType.Grapheme, block.text())
    xs = []
    for offset in range(line.textStart(), line.textStart() + line.textLength() + 1):
        finder.setPosition(offset)
        if finder.isAtBoundary():
            value = line.cursorToX(offset)
            xs.append(float(value[0] if isinstance(value, tuple) else value)
                      + text_layout.position().x())
    return xs


def test_the_ellipsis_of_a_cut_cell_starts_at_a_grapheme(qtbot, tmp_path):
    from llgui.gui.workbench.mt_view import HTML_ROLE

    for lang, line in (("hi", HINDI), ("ja", JAPANESE)):
        (tmp_path / f"ref.{lang}").write_text("\n".join([line] * 6) + "\n", encoding="utf-8")
        (tmp_path / f"hyp.{lang}").write_text("\n".join([line[::-1][:40] + line] * 6) + "\n",
                                              encoding="utf-8")
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nname = "hi-ja"\nmetrics = ["chrf"]\n\n'
        + "".join(f'[[documents]]\nid = "{lang}"\ntime = {k}\nreferences = ["ref.{lang}"]\n'
                  f'hypothesis = "hyp.{lang}"\n\n' for k, lang in ((1, "hi"), (2, "ja"))),
        encoding="utf-8")
    window = shown_window(qtbot, 1366, 768)
    try:
        checked = 0
        for doc_id in ("hi", "ja"):
            assert window.open_bundles([str(tmp_path / "bundle.toml")], select_doc=doc_id) \
                if doc_id == "hi" else (window.state.select(0, doc_id) or True)
            settle(qtbot, window)
            qtbot.wait(100)
            view = window.workbench.mt_view
            table, model, delegate = view.table, view.model, view.delegate
            delegate.cut.clear()            # the marks of this paint only
            table.viewport().repaint()
            for (row, column), box in list(delegate.cut.items()):
                index = model.index(row, column)
                cell = table.visualRect(index)
                if not table.viewport().rect().contains(cell):
                    continue                    # painted whole only on screen
                text = index.data(HTML_ROLE) or html.escape(str(index.data() or ""))
                doc = next((d for (t, w, h), (d, _s, _w) in delegate._docs.items()
                            if t == text and w == cell.width()), None)
                if doc is None:
                    continue
                left = box.left() - cell.left()
                y = box.center().y() - cell.top()
                xs = _boundaries_x(doc, y)
                assert min(abs(left - x) for x in xs) < 0.75, (doc_id, row, left, xs)
                checked += 1
        assert checked >= 4
    finally:
        window.jobs.shutdown(2000)


def test_the_reading_pane_shows_a_segment_whole_at_1366(qtbot, tmp_path):
    """The reading pane under the table showed the top half of its third line at 1366x768:
    it grows to its text (up to under half the split), so a Hindi segment reads whole with
    nothing left to scroll."""
    (tmp_path / "ref.hi").write_text("\n".join([HINDI] * 6) + "\n", encoding="utf-8")
    (tmp_path / "hyp.hi").write_text("\n".join([HINDI[:60]] * 6) + "\n", encoding="utf-8")
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nname = "hi"\nmetrics = ["chrf"]\n\n[[documents]]\nid = "hi"\n'
        'time = 1\nreferences = ["ref.hi"]\nhypothesis = "hyp.hi"\n', encoding="utf-8")
    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles([str(tmp_path / "bundle.toml")])
        settle(qtbot, window)
        view = window.workbench.mt_view
        view.table.setCurrentIndex(view.model.index(2, 1))
        qtbot.wait(100)
        pane = view.reading
        assert "segment 3" in pane.toPlainText()
        assert pane.verticalScrollBar().maximum() == 0, (
            pane.document().size().height(), pane.viewport().height())
    finally:
        window.jobs.shutdown(2000)
