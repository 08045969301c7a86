"""`llgui score`/`replay` with the statistics cache: --no-cache, the same report warm or cold,
and progress on stderr only (a bar on a terminal, nothing when piped)."""
from __future__ import annotations

import io
import json

import pytest

from llgui.cli import progress as cli_progress
from llgui.cli.main import main as cli_main
from llgui.core.mt import stats_cache
from tests.conftest import DEMO

MT = DEMO / "mt" / "bundle.toml"


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(folder))
    stats_cache.forget()
    stats_cache.configure(enabled=None)
    stats_cache.counts.clear()
    yield folder
    stats_cache.configure(enabled=None)
    stats_cache.forget()


def call(capsys, *args):
    code = cli_main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_score_cold_and_warm_give_the_same_report(cache, capsys):
    code, cold, err = call(capsys, "score", MT, "--metric", "ter", "--format", "json")
    assert code == 0 and err == ""  # piped (not a terminal): no progress output at all
    computed = stats_cache.counts["computed"]
    assert computed > 0 and any(cache.rglob("*.pack"))

    stats_cache.forget()  # as a new process would: only the files remain
    stats_cache.counts.clear()
    code, warm, _ = call(capsys, "score", MT, "--metric", "ter", "--format", "json")
    assert code == 0 and json.loads(warm) == json.loads(cold)
    assert stats_cache.counts.get("computed", 0) == 0



def test_replay_accepts_no_cache(cache, capsys):
    code, out, err = call(capsys, "replay", MT, "--doc", "news-2023-01-09", "--metric", "ter",
                          "--no-cache", "--format", "json")
    assert code == 0 and err == ""
    assert json.loads(out)["metric"] == "ter"
    assert not any(cache.rglob("*.pack"))  # --no-cache writes nothing
    assert stats_cache.counts.get("hit", 0) == 0 and stats_cache.counts["computed"] > 0


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only(cache, monkeypatch, capsys):
    from llgui.core.mt.stats import make_metric
    from llgui.core.mt.track import MTTrack
    from llgui.io.bundle import load_bundle

    monkeypatch.setattr(cli_progress, "DELAY_S", 0.0)  # no need to wait a second here
    document = load_bundle(MT).documents[0]
    terminal = _Terminal()
    with cli_progress.scoring_progress("llgui score", stream=terminal):
        MTTrack(document, make_metric("chrf"))
    shown = terminal.getvalue()
    assert "llgui score" in shown and f"/{document.n_segments} [" in shown
    assert capsys.readouterr().out == ""  # never on stdout

    piped = io.StringIO()
    stats_cache.configure(enabled=False)
    with cli_progress.scoring_progress("llgui score", stream=piped):
        MTTrack(document, make_metric("chrf"))
    assert piped.getvalue() == ""
