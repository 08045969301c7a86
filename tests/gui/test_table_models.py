"""The Qt table models pass pytest-qt's model tester, empty and filled."""
from __future__ import annotations

from llgui.core.walkthrough import walk
from llgui.gui.table_models import CorrectionsModel, DocumentsModel
from llgui.io.bundle import load_bundle
from tests.conftest import DEMO


def test_corrections_model_passes_the_model_tester(qtmodeltester):
    bundle = load_bundle(DEMO / "mt" / "bundle.toml")
    doc = bundle.documents[0]
    model = CorrectionsModel()
    qtmodeltester.check(model)           # empty
    result = walk(doc, bundle.steps_of(doc.id), "bleu", bundle.settings, bundle.cost)
    model.set_walkthrough(result)
    qtmodeltester.check(model)
    assert model.rowCount() == 1 + len(bundle.steps_of(doc.id))
    assert model.index(0, model.COLUMNS.index("kind")).data() == "base"
    last = len(result.steps)
    assert model.index(last, model.COLUMNS.index("S_pen")).data() == f"{result.replay.s_pen:.2f}"


def test_documents_model_passes_the_model_tester(qtmodeltester):
    from llgui.core.penalty import replay_bundle

    bundles = [load_bundle(DEMO / "mt" / "bundle.toml"),
               load_bundle(DEMO / "diarization" / "bundle.toml")]
    model = DocumentsModel()
    qtmodeltester.check(model)
    model.set_bundles(bundles)
    qtmodeltester.check(model)
    result = replay_bundle(bundles[1], "der")
    model.set_result(1, result)
    qtmodeltester.check(model)
    row = model.row_of(1, result.replays[0].doc)
    assert model.index(row, model.COLUMNS.index("S_pen")).data() == f"{result.replays[0].s_pen:.2f}"
    assert model.rowCount() == sum(len(b.documents) for b in bundles)
