"""What run.json says of a stopped run (protocol.md: "documents lists every document whose h₀
arrived, the cut one with its steps so far"; `partial` only when something was cut or left
undone). The system is llgui's reference learner `mt_memory` as a real subprocess; the stop
is a KeyboardInterrupt (what SIGINT raises) made to land at two moments the outsider hit:
inside the writing of a document's h0, and after every document had ended."""
from __future__ import annotations

import json
import signal
import sys

import pytest

from llgui.io.bundle import load_bundle
from llgui.sim import output
from llgui.sim.driver import Session
from llgui.sim.oracles import make_oracle
from tests.sim.test_partial_runs import _two_documents

FIRST, SECOND = "news-2023-01-09", "news-2023-02-06"


class Interrupted(KeyboardInterrupt):
    signum = signal.SIGINT


def _session(tmp_path):
    path = _two_documents(tmp_path)   # the demo's first two documents, BLEU and chrF only
    path.write_text(path.read_text(encoding="utf-8").replace(
        'metrics = ["bleu", "chrf", "ter"]', 'metrics = ["bleu", "chrf"]'), encoding="utf-8")
    bundle = load_bundle(path)
    command = [sys.executable, "-m", "llgui.systems.mt_memory"]
    return Session(bundle, command, make_oracle("worst-first"), tmp_path / "run",
                   system_name="mt_memory", mode="interactive", budget=10, timeout=60)


def test_a_stop_while_h0_is_written_leaves_no_unlisted_file(tmp_path, monkeypatch):
    real = output.RunWriter.write_bundle

    def write_bundle(self):
        # the second document's h0 is on disk, its entry not yet in bundle.toml: a SIGINT here
        if (self.out / "hyp" / f"{SECOND}.txt").exists():
            raise Interrupted()
        return real(self)

    monkeypatch.setattr(output.RunWriter, "write_bundle", write_bundle)
    session = _session(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        session.run()
    out = tmp_path / "run"
    run = json.loads((out / "run.json").read_text())
    listed = [d["doc"] for d in run["documents"]]
    files = sorted(p.stem for p in (out / "hyp").iterdir())
    assert listed == [FIRST] and files == [FIRST]   # before: hyp/SECOND.txt, listed nowhere
    assert [d.id for d in load_bundle(out / "bundle.toml").documents] == [FIRST]
    assert run["partial"] is True and run["cut_short"] == []
    assert run["exit"] == 130 and f"not run: {SECOND}" in run["error"]


def test_a_stop_after_every_document_ended_is_not_partial(tmp_path, monkeypatch):
    def finish(self):
        raise Interrupted()   # SIGINT as llgui says bye: every document has ended

    monkeypatch.setattr(Session, "finish", finish)
    session = _session(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        session.run()
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert [d["doc"] for d in run["documents"]] == [FIRST, SECOND]
    assert run["exit"] == 130 and run["cut_short"] == []
    assert run["partial"] is False   # before: true, with nothing cut
    assert "after every document had ended" in run["error"]
    # the MSR's error metric, scored though the bundle does not ask for it, is named
    assert "ter" not in run["metrics"] and run["msr_metric"] == "ter"
    assert "msr" in run["documents"][0]["scores"]["ter"]
