"""Issue 36 (gate 8): a simulated document's statistics and tracks are frozen out of the
garbage collector once the document is set up, so the collector's full passes (which walked
them inside a step: the gate's worst steps) no longer see them; what a step makes is still
collected, and the steps' scores are those of `llgui replay` of the log written."""
from __future__ import annotations

import gc
import sys

from llgui.io.bundle import load_bundle
from llgui.sim.driver import Session
from llgui.sim.oracles import make_oracle
from tests.conftest import REPO

DIAR_BUNDLE = REPO / "resources" / "demo" / "diarization" / "bundle.toml"


def _tracked(obj) -> bool:
    """True when `obj` is in one of the collector's generations (not frozen)."""
    return any(o is obj for g in range(3) for o in gc.get_objects(generation=g))


def test_the_document_is_frozen_out_of_the_collector_and_steps_still_collect(tmp_path):
    bundle = load_bundle(DIAR_BUNDLE)
    session = Session(bundle, [sys.executable, "-m", "llgui.systems.diar_clusters"],
                      make_oracle("worst-first"), tmp_path / "out", budget=30.0,
                      timeout=120.0)
    gc.unfreeze()
    try:
        session.start()
        session.begin_document(0)
        scores = session._doc_state.scores
        track = next(iter(scores.tracks.values()))
        assert gc.is_tracked(track) and not _tracked(track)   # frozen
        assert gc.get_freeze_count() > 0
        # a step's own objects are not frozen: a cycle made now is collected
        cycle = []
        cycle.append(cycle)
        assert _tracked(cycle)
        records = []
        while (record := session.next_step()) is not None:
            records.append(record)
        assert records
        session.end_document()
        session.finish()
    finally:
        session.close()
        gc.unfreeze()
