"""The per-segment statistics cache: what is rescored, damaged files, concurrent writers.

Each test has its own cache folder ($LLGUI_CACHE_DIR in a temporary directory) and forgets
the in-memory indexes before and after, so nothing leaks between tests or into the user's
cache. Expected statistics come from the metrics computed without the cache.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from llgui.core.mt import stats_cache
from llgui.core.mt.stats import make_metric
from llgui.core.mt.track import MTTrack
from llgui.core.types import MTDocument, Stamp

from tests.conftest import REPO  # noqa: E402
REFS = ["the cat sat on the mat .", "a dog , barking !", "Wörter und Zeichen : « ja » .",
        "one two three four five six", "中文 字 。", "it 's 3.5 or 1,000 &amp; more"]
HYPS = ["the cat is on the mat", "a dog barking", "Wörter , Zeichen ja",
        "six five four three two one", "中文 。", "it is 3.5 or 1,000 & more"]
METRICS = ("bleu", "chrf", "ter", "wer")


@pytest.fixture()
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(folder))
    monkeypatch.delenv("LLGUI_NO_CACHE", raising=False)
    stats_cache.forget()
    stats_cache.configure(enabled=None)
    stats_cache.counts.clear()
    yield folder
    stats_cache.forget()


def document(hyps=HYPS) -> MTDocument:
    return MTDocument(id="d", time=Stamp.parse(0), hypothesis=tuple(hyps),
                      references=(tuple(REFS),))


def uncached(name: str, hyps) -> np.ndarray:
    metric = make_metric(name)
    return np.array([metric.segment_stats(h, metric.reference_info([r]))
                     for h, r in zip(hyps, REFS)])


def packs(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.pack"))


@pytest.mark.parametrize("name", METRICS)
def test_second_opening_rescores_nothing_and_one_changed_line_one_segment(cache, name):
    first = MTTrack(document(), make_metric(name))
    assert stats_cache.counts == {"computed": len(HYPS)}
    np.testing.assert_array_equal(first.stats, uncached(name, HYPS))
    assert packs(cache)

    stats_cache.forget()  # a new process: only the files remain
    stats_cache.counts.clear()
    again = MTTrack(document(), make_metric(name))
    assert stats_cache.counts == {"hit": len(HYPS)}
    np.testing.assert_array_equal(again.stats, first.stats)
    assert again.metric.signature == first.metric.signature  # nrefs counted from the cache

    changed = list(HYPS)
    changed[2] = "Wörter und Zeichen"
    stats_cache.counts.clear()
    third = MTTrack(document(changed), make_metric(name))
    assert stats_cache.counts == {"hit": len(HYPS) - 1, "computed": 1}
    np.testing.assert_array_equal(third.stats, uncached(name, changed))


@pytest.mark.parametrize("chunk", [1, 4, 1000])
def test_a_pack_read_back_in_chunks_gives_every_row(cache, monkeypatch, chunk):
    """A pack joins the in-memory index INDEX_CHUNK rows at a time (one join of a
    100,000-row pack held the interpreter 35 ms): chunks that split the pack, or not, lose
    no row and mix none up."""
    MTTrack(document(), make_metric("chrf"))
    stats_cache.forget()   # a new process: only the pack on disk
    stats_cache.counts.clear()
    monkeypatch.setattr(stats_cache, "INDEX_CHUNK", chunk)
    again = MTTrack(document(), make_metric("chrf"))
    assert stats_cache.counts == {"hit": len(HYPS)}
    np.testing.assert_array_equal(again.stats, uncached("chrf", HYPS))


def test_settings_and_references_are_part_of_the_key(cache):
    MTTrack(document(), make_metric("ter"))
    stats_cache.counts.clear()
    MTTrack(document(), make_metric("ter", {"case_sensitive": True}))
    assert stats_cache.counts == {"computed": len(HYPS)}
    assert (stats_cache.segment_key("a", ["b"]) != stats_cache.segment_key("a", ["b", None])
            != stats_cache.segment_key("a b", []))


def test_a_damaged_pack_is_ignored_and_rewritten(cache):
    MTTrack(document(), make_metric("bleu"))
    (pack,) = packs(cache)
    data = bytearray(pack.read_bytes())
    data[40] ^= 0xFF  # one flipped byte inside a key
    pack.write_bytes(bytes(data))
    (pack.parent / "truncated.pack").write_bytes(b"LLGUISC1\x00")
    stats_cache.forget()
    stats_cache.counts.clear()
    track = MTTrack(document(), make_metric("bleu"))
    assert stats_cache.counts == {"computed": len(HYPS)}
    np.testing.assert_array_equal(track.stats, uncached("bleu", HYPS))
    assert not (pack.parent / "truncated.pack").exists()
    (rewritten,) = packs(cache)
    keys, rows = stats_cache.decode_pack(rewritten.read_bytes(), track.metric.n_stats)
    assert len(keys) == len(HYPS)


def test_no_cache_writes_nothing(cache):
    stats_cache.configure(enabled=False)
    try:
        MTTrack(document(), make_metric("chrf"))
    finally:
        stats_cache.configure(enabled=None)
    assert stats_cache.counts == {"computed": len(HYPS)}
    assert not cache.exists() or not packs(cache)


def test_size_limit_evicts_oldest_packs(cache, monkeypatch):
    MTTrack(document(), make_metric("bleu"))
    first = packs(cache)
    os.utime(first[0], (1, 1))  # written long ago
    size = first[0].stat().st_size
    monkeypatch.setenv("LLGUI_CACHE_MAX_MB", str(1.5 * size / 1e6))
    MTTrack(document(), make_metric("chrf"))
    left = packs(cache)
    assert first[0] not in left and len(left) == 1


def test_steps_reuse_the_cache(cache):
    from llgui.core.types import Adapted, SentenceTarget, Step

    step = Step(doc="d", step=1, initiative="active", kind="reference",
                target=SentenceTarget(2), adapted=Adapted(lines={"2": REFS[1], "4": "one two"}))
    track = MTTrack(document(), make_metric("ter"))
    s_adapt = track.advance(step).score
    stats_cache.flush()
    stats_cache.forget()
    stats_cache.counts.clear()
    again = MTTrack(document(), make_metric("ter"))
    assert again.advance(step).score == s_adapt
    assert stats_cache.counts == {"hit": len(HYPS) + 2}


_WORKER = textwrap.dedent("""
    import sys
    from llgui.core.mt import stats_cache
    from llgui.core.mt.stats import make_metric
    from llgui.core.mt.track import MTTrack
    from llgui.core.types import MTDocument, Stamp
    refs = [f"reference {i} with some words {i % 7}" for i in range(400)]
    hyps = [f"hypothesis {i} with words {i % 5} {sys.argv[1]}" if i % 2 else refs[i]
            for i in range(400)]
    doc = MTDocument(id="d", time=Stamp.parse(0), hypothesis=tuple(hyps),
                     references=(tuple(refs),))
    for name in ("bleu", "chrf"):
        MTTrack(doc, make_metric(name))
    print(stats_cache.counts.get("computed", 0))
""")


def test_two_processes_writing_at_once_leave_a_sound_cache(cache):
    env = {**os.environ, "PYTHONPATH": str(REPO), "LLGUI_CACHE_DIR": str(cache)}
    # the same text in both (the same packs) and a different one: every kind of collision
    runs = [subprocess.Popen([sys.executable, "-c", _WORKER, tag], env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for tag in ("x", "x", "y")]
    outs = [r.communicate(timeout=120) for r in runs]
    assert [r.returncode for r in runs] == [0, 0, 0], [o[1][-2000:] for o in outs]
    assert packs(cache)
    for pack in packs(cache):  # every file whole and valid (BLEU: 10 statistics, chrF: 18)
        data = pack.read_bytes()
        n_stats = int.from_bytes(data[8:12], "little")
        assert n_stats in (10, 18)
        stats_cache.decode_pack(data, n_stats)
    # a fourth process finds everything
    done = subprocess.run([sys.executable, "-c", _WORKER, "x"], env=env, text=True,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "0"


def test_a_segments_key_is_the_digest_of_its_json_text():
    """`segment_key` writes the JSON text itself (json's own string encoder): the same bytes
    as json.dumps, so the keys of caches already on disk stay valid. Quotes, backslashes,
    control characters, other scripts, a lone surrogate, None and empty references."""
    import hashlib
    import json
    import random

    from llgui.core.mt.stats_cache import _KEY, segment_key

    def expected(h, refs):
        text = json.dumps([h, list(refs)], ensure_ascii=False)
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=_KEY).digest()

    alphabet = ['a', ' ', '"', '\\', '\n', '\t', '\x00', '\x1f', '\x7f', 'é', 'न्दी', '日本',
                '😀', '\ud800', '\u2028', '/']
    rng = random.Random(3)
    for _ in range(500):
        word = lambda: "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))  # noqa: E731
        refs = [None if rng.random() < 0.2 else word() for _ in range(rng.randint(0, 3))]
        h = word()
        assert segment_key(h, refs) == expected(h, refs)
        assert segment_key(h, tuple(refs)) == expected(h, refs)
