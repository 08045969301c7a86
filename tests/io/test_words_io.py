"""llgui.io.seglst and llgui.io.nist_words: word transcripts in SegLST JSON, STM and CTM, each
read back as meeteval reads it; bad input reported as FILE:LINE: reason."""
from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, strategies as st

from llgui.core.types import Word
from llgui.io.nist_words import load_ctm, load_stm, load_words, write_ctm, write_stm
from llgui.io.seglst import load_seglst, write_seglst
from tests.io.helpers import FUZZ, problems, write

meeteval = pytest.importorskip("meeteval")


def flat(words):
    return [(w.word, w.speaker, round(w.start, 9), round(w.end, 9)) for w in words]


def meeteval_words(path):
    """meeteval's own reading of the file, split into words with its character_based timing."""
    import json
    from pathlib import Path

    from meeteval.io import STM, SegLST
    from meeteval.wer.wer.time_constrained import get_pseudo_word_level_timings

    if Path(path).suffix == ".stm":
        seglst = STM.load(path, parse_float=float).to_seglst()
    else:   # meeteval's own SegLST.load needs simplejson, which it does not install
        seglst = SegLST(json.loads(Path(path).read_text()))
    words = get_pseudo_word_level_timings(seglst, "character_based")
    out = {}
    for s in words:
        if s["words"]:
            out.setdefault(s["session_id"], []).append(
                (s["words"], s["speaker"], round(float(s["start_time"]), 9),
                 round(float(s["end_time"]), 9)))
    return {k: sorted(v, key=lambda x: (x[2],)) for k, v in out.items()}


def test_seglst_read_as_meeteval_reads_it(tmp_path):
    path = write(tmp_path / "ref.seglst.json",
                 '[{"session_id": "m1", "speaker": "A", "words": "hello there", '
                 '"start_time": 1.0, "end_time": 2.0, "extra": 1},\n'
                 ' {"session_id": "m1", "speaker": "B", "words": "yes", "start_time": 1.5, '
                 '"end_time": 1.75},\n'
                 ' {"session_id": "m2", "speaker": "A", "words": "", "start_time": 0, '
                 '"end_time": 1},\n'
                 ' {"session_id": "m2", "speaker": "A", "words": "ok", "start_time": 3, '
                 '"end_time": 4}]\n')
    words = load_seglst(path)
    assert list(words) == ["m1", "m2"]
    # ordered by (start, segment, word): "there" (segment 1) before "yes" (segment 2)
    assert flat(words["m1"]) == [("hello", "A", 1.0, 1.5), ("there", "A", 1.5, 2.0),
                                 ("yes", "B", 1.5, 1.75)]
    theirs = meeteval_words(path)
    assert sorted(flat(words["m1"])) == sorted(theirs["m1"])
    assert flat(words["m2"]) == [("ok", "A", 3.0, 4.0)]


def test_stm_and_ctm_read_as_meeteval_reads_them(tmp_path):
    stm = write(tmp_path / "ref.stm", "m1 1 A 0.5 1.6 good morning\n"
                                      "m1 1 B 2 3 hi\nm1 1 A 4 4.5\n")
    words = load_stm(stm)["m1"]
    # 11 characters over 1.1 s: "good" takes 4 of them
    assert flat(words) == [("good", "A", 0.5, 0.9), ("morning", "A", 0.9, 1.6),
                           ("hi", "B", 2.0, 3.0)]
    assert sorted(flat(words)) == sorted(meeteval_words(stm)["m1"])
    ctm = write(tmp_path / "spk1.ctm", "m1 1 0.5 0.25 hello 0.9\nm1 1 1.0 0.5 world\n")
    assert flat(load_ctm(ctm)["m1"]) == [("hello", "spk1", 0.5, 0.75),
                                         ("world", "spk1", 1.0, 1.5)]
    assert load_words(ctm) == load_ctm(ctm)


@pytest.mark.parametrize("content,line,reason", [
    ('{"a": 1}', 1, "JSON array"),
    ('[\n{"session_id": "m", "speaker": "A", "words": "x", "start_time": 0}\n]', 2,
     "has no end_time"),
    ('[\n1,\n{"session_id": "m", "speaker": "A", "words": "x", "start_time": 0, '
     '"end_time": NaN}]', 2, "must be an object"),
    ('[{"session_id": "m", "speaker": "A", "words": "x", "start_time": 0,\n'
     '"end_time": NaN}]', 1, "end_time nan is not a finite number"),
    ('[{"session_id": "m", "speaker": "A", "words": "x", "start_time": 2, "end_time": 1}]', 1,
     "before start_time"),
    ('[{"session_id": "m", "speaker": "", "words": "x", "start_time": 0, "end_time": 1}]', 1,
     "speaker must be a non-empty string"),
    ('[{"session_id": "m", "speaker": "A", "words": 3, "start_time": 0, "end_time": 1}]', 1,
     "words must be a string"),
    ('[{"session_id": "m", "speaker": "A", "words": "x", "start_time": 0, "end_time": 1e99}]',
     1, "between 0 and"),
    ('[{"session_id": "m", "speaker": "A", "words": "x", "start_time": true, '
     '"end_time": 1}]', 1, "start_time must be a number"),
    ('[\n{"session_id": "m",\n "speaker": "A" "words": "x"}]', 3, "invalid JSON"),
    ('[{"session_id": "m", "speaker": "A", "words": "x", "start_time": ' + "9" * 5000
     + ', "end_time": 1}]', 1, "invalid JSON (an integer has too many digits)"),
    ('[]', 0, "no words"),
])
def test_seglst_bad_input(tmp_path, content, line, reason):
    path = write(tmp_path / "w.json", content)
    found = problems(load_seglst, path)
    assert any(ln == line and reason in text for _, ln, text in found), found


@pytest.mark.parametrize("content,line,reason", [
    ("m 1 A 0 1 a\nm 1 A 0\n", 2, "expected at least 5 fields"),
    ("m 1 A x 1 a\n", 1, "start 'x' is not a number"),
    ("m 1 A 0 inf a\n", 1, "end 'inf' is not a finite number"),
    ("m 1 A 2 1 a\n", 1, "is before start"),
    ("m 1 A -1 1 a\n", 1, "between 0 and"),
])
def test_stm_bad_input(tmp_path, content, line, reason):
    found = problems(load_stm, write(tmp_path / "w.stm", content))
    assert any(ln == line and reason in text for _, ln, text in found), found


@pytest.mark.parametrize("content,line,reason", [
    ("m 1 0 1\n", 1, "expected 5 or 6 fields"),
    ("m 1 0 nan a\n", 1, "duration 'nan' is not a finite number"),
    ("m 1 0 1 a\nm 1 0 1 a b c\n", 2, "expected 5 or 6 fields"),
])
def test_ctm_bad_input(tmp_path, content, line, reason):
    found = problems(load_ctm, write(tmp_path / "w.ctm", content))
    assert any(ln == line and reason in text for _, ln, text in found), found


def test_files_that_are_not_regular_or_too_large(tmp_path):
    assert problems(load_seglst, tmp_path / "missing.json")[0][1:] == (0, "file not found")
    assert problems(load_stm, tmp_path)[0][1] == 0
    fifo = tmp_path / "fifo.stm"
    os.mkfifo(fifo)
    assert "not a regular file" in problems(load_stm, fifo)[0][2]   # never blocks
    assert "invalid UTF-8" in problems(load_stm, write(tmp_path / "b.stm", b"m 1 A 0 1 \xff\n"))[0][2]


words_strategy = st.lists(st.tuples(
    st.integers(0, 10 ** 6).map(lambda n: n / 1000), st.integers(0, 5000).map(lambda n: n / 1000),
    st.sampled_from(["a", "bb", "ccc", "é"]), st.sampled_from(["A", "B"])), max_size=30)


@pytest.fixture()
def no_fsync(monkeypatch):
    """The writers' fsync (a file and its folder flushed to the disk: durability after a power
    cut, `llgui.utils.atomic.write_atomic`) skipped for the test: what is checked is what they
    write, read back. Each of the three writes of an example fsyncs twice; with the suite's
    other writes in flight an fsync waited ~3 ms (cProfile: 1,794 of them, 5.4 s of a 15 s
    run of this module), on an idle disk a tenth of that."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


@FUZZ
@given(items=words_strategy)
def test_writers_round_trip(tmp_path_factory, no_fsync, items):
    words = tuple(sorted((Word(s, s + d, w, spk, (s, i, 0)) for i, (s, d, w, spk)
                          in enumerate(items)), key=lambda w: w.order))
    root = tmp_path_factory.mktemp("rt")
    if not words:
        return
    write_seglst(root / "w.json", "m", words)
    write_stm(root / "w.stm", "m", words)
    assert flat(load_seglst(root / "w.json")["m"]) == flat(words)
    assert flat(load_stm(root / "w.stm")["m"]) == flat(words)
    write_ctm(root / "A.ctm", "m", [w for w in words if w.speaker == "A"])
    if any(w.speaker == "A" for w in words):
        assert flat(load_ctm(root / "A.ctm")["m"]) == flat(w for w in words if w.speaker == "A")


@FUZZ
@given(data=st.binary(max_size=200))
def test_any_bytes_load_or_raise_load_error(tmp_path_factory, data):
    from llgui.core.errors import LoadError

    root = tmp_path_factory.mktemp("fz")
    for name, load in (("x.json", load_seglst), ("x.stm", load_stm), ("x.ctm", load_ctm)):
        path = write(root / name, data)
        try:
            load(path)
        except LoadError:
            pass


# --------------------------------------------------------------------------------------------
# Bundles


def _bundle(tmp_path, extra="", settings="", metrics='["der", "cpwer"]'):
    write(tmp_path / "ref.rttm", "SPEAKER m 1 0 5 <NA> <NA> A <NA> <NA>\n"
                                 "SPEAKER m 1 5 5 <NA> <NA> B <NA> <NA>\n")
    write(tmp_path / "hyp.rttm", "SPEAKER m 1 0 7 <NA> <NA> x <NA> <NA>\n"
                                 "SPEAKER m 1 7 3 <NA> <NA> y <NA> <NA>\n")
    write(tmp_path / "ref.stm", "m 1 A 1 2 hello\nm 1 B 6 7 world\n")
    write(tmp_path / "hyp.seglst.json", '[{"session_id": "m", "speaker": "x", "words": '
                                        '"hello world", "start_time": 1, "end_time": 7}]')
    return write(tmp_path / "bundle.toml",
                 f'[bundle]\ntask = "diarization"\nmetrics = {metrics}\n[settings]\n'
                 f'{settings}\n[[documents]]\nid = "d"\ntime = 0\nuri = "m"\n'
                 f'references = "ref.rttm"\nhypothesis = "hyp.rttm"\n{extra}')


def test_bundle_words_and_hypothesis_words(tmp_path):
    from llgui.io.bundle import load_bundle

    path = _bundle(tmp_path, 'words = "ref.stm"\nhypothesis_words = "hyp.seglst.json"\n')
    doc = load_bundle(path).documents[0]
    assert [(w.word, w.speaker) for w in doc.words] == [("hello", "A"), ("world", "B")]
    assert [(w.word, w.speaker) for w in doc.hypothesis_words] == [("hello", "x"),
                                                                   ("world", "x")]
    doc = load_bundle(_bundle(tmp_path, 'words = "ref.stm"\n')).documents[0]
    assert doc.hypothesis_words is None


@pytest.mark.parametrize("extra,settings,metrics,line,reason", [
    ('words = "ref.stm"\n', "", '["tcpwer"]', 3, "needs [settings] word_collar"),
    ('', "", '["cpwer"]', 3, "needs reference words"),
    ('hypothesis_words = "hyp.seglst.json"\n', "", '["der"]', 12, "needs the reference words"),
    ('words = "nope.json"\n', "", '["der"]', 12, "not found"),
    ('words = ["ref.stm", "hyp.seglst.json"]\n', "", '["der"]', 12, "CTM files"),
    ('', "", '["der"]', 0, ""),   # (built below: a words file without the uri)
    ('words = "ref.stm"\n', "word_collar = -1\n", '["der"]', 5, "word_collar"),
])
def test_bundle_word_problems(tmp_path, extra, settings, metrics, line, reason):
    from llgui.io.bundle import load_bundle

    if line == 0:   # a words file without the document's uri
        write(tmp_path / "other.json", '[{"session_id": "z", "speaker": "A", "words": "a", '
                                       '"start_time": 0, "end_time": 1}]')
        path = _bundle(tmp_path, 'words = "other.json"\n', settings, metrics)
        found = problems(load_bundle, path)
        assert any(ln == 12 and "no word for 'm'" in text and "sessions: z" in text
                   for _, ln, text in found), found
        return
    found = problems(load_bundle, _bundle(tmp_path, extra, settings, metrics))
    assert any(ln == line and reason in text for _, ln, text in found), found


def test_campaign_refuses_word_metrics(tmp_path):
    """A campaign's documents are turn files: a word metric is refused at its line."""
    from llgui.core.errors import LoadError
    from llgui.io.campaign import load_campaign

    path = write(tmp_path / "campaign.toml",
                 '[campaign]\ntask = "diarization"\nmetrics = ["der", "cpwer"]\n')
    try:
        found = load_campaign(path)
    except LoadError as error:
        reasons = [(p.line, p.reason) for p in error.problems]
    else:
        reasons = [(p.line, p.reason) for p in getattr(found, "problems", ())]
    assert any(line == 3 and "metric cpwer scores words" in reason
               for line, reason in reasons), reasons


@pytest.mark.parametrize("name", ["w.json", "w.stm", "w.ctm"])
def test_only_the_session_asked_for_is_made_into_words(tmp_path, monkeypatch, name):
    """Issue 38.5: a word file holds every session of a data set; a document reads its own.
    Every segment is checked, but only the asked session's segments become words."""
    import llgui.io.seglst as seglst
    from llgui.core.types import Word

    words = [Word(float(k), k + 0.5, f"w{k}", "A", (float(k), k, 0)) for k in range(6)]
    path = tmp_path / name
    if name.endswith(".json"):
        segments = [{"session_id": f"s{k % 3}", "speaker": "A", "words": w.word,
                     "start_time": w.start, "end_time": w.end} for k, w in enumerate(words)]
        path.write_text(json.dumps(segments, indent=1))
    elif name.endswith(".stm"):
        path.write_text("".join(f"s{k % 3} 1 A {w.start} {w.end} {w.word}\n"
                                for k, w in enumerate(words)))
    else:
        path.write_text("".join(f"s{k % 3} 1 {w.start} 0.5 {w.word}\n"
                                for k, w in enumerate(words)))
    split = []
    original = seglst.split_segment
    monkeypatch.setattr(seglst, "split_segment",
                        lambda *a: split.append(a[2]) or original(*a))
    loaded = load_words(path)
    assert list(loaded) == ["s0", "s1", "s2"] and split == []
    assert [w.word for w in loaded["s1"]] == ["w1", "w4"]
    assert split == ["w1", "w4"]   # the other sessions' segments were never split


def test_a_problem_deep_in_a_long_seglst_file_is_at_its_line(tmp_path):
    """The line of each segment is counted forward from the previous one (linear time);
    a problem far into the file is still named at its own line."""
    segments = [{"session_id": "m", "speaker": "A", "words": "a b", "start_time": k,
                 "end_time": k + 1} for k in range(3000)]
    segments[2500]["end_time"] = -1
    path = tmp_path / "w.json"
    path.write_text("[\n" + ",\n".join(json.dumps(s, indent=1) for s in segments) + "\n]\n")
    found = problems(load_seglst, path)
    line = 1 + 1 + 2500 * 7   # '[' then 7 lines per segment
    assert [(p[1], p[2]) for p in found] == [
        (line, "segment 2501: end_time must be a number between 0 and 1e+09 s, not -1")]
