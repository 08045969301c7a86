"""llgui.io.rttm: RTTM, MDTM and UEM loaders."""
from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from llgui.core.types import Turn
from llgui.io.rttm import load_mdtm, load_rttm, load_turns, load_uem
from tests.io.helpers import problems, write

RTTM_FIELDS = "SPEAKER file chan onset dur <NA> <NA> speaker <NA> <NA>"


# --------------------------------------------------------------------------------------------
# RTTM, good input


def test_rttm_turns_sorted_per_file_other_types_and_comments_skipped(tmp_path):
    path = write(tmp_path / "x.rttm", "\ufeff"  # an editor's BOM is ignored
                 ";; a NIST comment\n"
                 "SPKR-INFO f1 1 <NA> <NA> <NA> unknown A <NA>\n"
                 "SPEAKER f1 1 5.0 1.5 <NA> <NA> B <NA> <NA>\n"
                 "\n"
                 "SPEAKER f2 1  0.25\t2 <NA> <NA> A <NA> <NA>\r\n"   # any whitespace, CRLF
                 "LEXEME f1 1 1.0 0.4 hello lex A <NA>\n"
                 "SPEAKER f1 1 1.0 2.0 <NA> <NA> A <NA>\n"          # 9 fields
                 "NON-LEX f1 1 4 1 {breath breath A <NA>\n")
    turns = load_rttm(path)
    assert list(turns) == ["f1", "f2"]  # files in order of first appearance
    assert turns["f1"] == (Turn(1.0, 3.0, "A"), Turn(5.0, 6.5, "B"))
    assert turns["f2"] == (Turn(0.25, 2.25, "A"),)


def test_rttm_zero_duration_turns_skipped_but_file_kept(tmp_path):
    path = write(tmp_path / "x.rttm", "SPEAKER f1 1 1.0 0 <NA> <NA> A <NA> <NA>\n"
                                      "SPEAKER f2 1 1.0 0.0 <NA> <NA> A <NA> <NA>\n"
                                      "SPEAKER f2 1 2.0 1.0 <NA> <NA> A <NA> <NA>\n")
    assert load_rttm(path) == {"f1": (), "f2": (Turn(2.0, 3.0, "A"),)}


def test_load_turns_picks_by_extension(tmp_path):
    mdtm = write(tmp_path / "x.MDTM", "f1 1 0.5 1.0 speaker NA adult_male spk1\n")
    rttm = write(tmp_path / "x.txt", "SPEAKER f1 1 0.5 1.0 <NA> <NA> spk1 <NA> <NA>\n")
    assert load_turns(mdtm) == load_turns(rttm) == {"f1": (Turn(0.5, 1.5, "spk1"),)}


# --------------------------------------------------------------------------------------------
# RTTM, malformed


def test_rttm_wrong_field_counts(tmp_path):
    path = str(write(tmp_path / "sys.rttm",
                     "SPEAKER f1 1 0 1 <NA> <NA> A <NA> <NA>\n"
                     "SPEAKER f1 1 0 1 <NA> <NA> A\n"
                     "SPEAKER f1 1 0 1 <NA> <NA> A <NA> <NA> extra\n"))
    assert problems(load_rttm, path) == [
        (path, 2, f"expected 10 fields ({RTTM_FIELDS}), got 8"),
        (path, 3, f"expected 10 fields ({RTTM_FIELDS}), got 11"),
    ]


def test_rttm_bad_onsets_and_durations(tmp_path):
    path = str(write(tmp_path / "sys.rttm",
                     "SPEAKER f1 1 abc 1 <NA> <NA> A <NA> <NA>\n"
                     "SPEAKER f1 1 nan 1 <NA> <NA> A <NA> <NA>\n"
                     "SPEAKER f1 1 -2 1 <NA> <NA> A <NA> <NA>\n"
                     "SPEAKER f1 1 0 1 <NA> <NA> A <NA> <NA>\n"
                     "SPEAKER f1 1 0 -1.5 <NA> <NA> A <NA> <NA>\n"
                     "SPEAKER f1 1 0 inf <NA> <NA> A <NA> <NA>\n"
                     "SPEAKER f1 1 0 1,5 <NA> <NA> A <NA> <NA>\n"
                     "SPEAKER f1 1 x y <NA> <NA> A <NA> <NA>\n"))
    assert problems(load_rttm, path) == [
        (path, 1, "onset 'abc' is not a number"),
        (path, 2, "onset 'nan' is not a finite number"),
        (path, 3, "onset '-2' is negative"),
        (path, 5, "duration '-1.5' is negative"),
        (path, 6, "duration 'inf' is not a finite number"),
        (path, 7, "duration '1,5' is not a number"),
        (path, 8, "onset 'x' is not a number"),
        (path, 8, "duration 'y' is not a number"),
    ]


def test_rttm_unknown_line_type(tmp_path):
    path = str(write(tmp_path / "sys.rttm",
                     "SPEKER f1 1 0 1 <NA> <NA> A <NA> <NA>\n"
                     "SPEAKER f1 1 0 1 <NA> <NA> A <NA> <NA>\n"
                     "speaker f1 1 0 1 <NA> <NA> A <NA> <NA>\n"))
    others = ("SEGMENT, NOSCORE, NO_RT_METADATA, LEXEME, NON-LEX, NON-SPEECH, FILLER, EDIT, IP, "
              "SU, CB, A/P, SPKR-INFO")
    assert problems(load_rttm, path) == [
        (path, 1, f"unknown line type 'SPEKER' (expected SPEAKER, or another RTTM type, which "
                  f"is skipped: {others})"),
        (path, 3, f"unknown line type 'speaker' (expected SPEAKER, or another RTTM type, which "
                  f"is skipped: {others})"),
    ]


@pytest.mark.parametrize("content", [b"", b";; only a comment\n\n",
                                     b"SPKR-INFO f1 1 <NA> <NA> <NA> unknown A <NA>\n"])
def test_rttm_without_speaker_lines(tmp_path, content):
    path = str(write(tmp_path / "sys.rttm", content))
    assert problems(load_rttm, path) == [(path, 0, "no SPEAKER turns")]


def test_rttm_missing_file_and_bad_utf8(tmp_path):
    missing = str(tmp_path / "nope.rttm")
    assert problems(load_rttm, missing) == [(missing, 0, "file not found")]
    prefix = b"SPEAKER f1 1 0 1 <NA> <NA> Andr"  # 31 bytes, then a Latin-1 "e acute"
    path = str(write(tmp_path / "sys.rttm", prefix + b"\xe9 <NA> <NA>\n"
                                            b"SPEAKER f1 1 0 -1 <NA> <NA> A <NA> <NA>\n"))
    assert len(prefix) == 31
    assert problems(load_rttm, path) == [
        (path, 1, "invalid UTF-8 byte 0xe9 at column 32 (file offset 31)"),
        (path, 2, "duration '-1' is negative"),
    ]


# --------------------------------------------------------------------------------------------
# MDTM


def test_mdtm_good(tmp_path):
    path = write(tmp_path / "x.mdtm", ";; comment\n"
                                      "show1 1 10.5 2.5 speaker NA adult_male S2\n"
                                      "show1 1 0.0 3.0 SPEAKER 0.9 female S1\n"
                                      "show2 1 1.0 0 speaker NA unknown S1\n")
    assert load_mdtm(path) == {"show1": (Turn(0.0, 3.0, "S1"), Turn(10.5, 13.0, "S2")),
                               "show2": ()}


def test_mdtm_malformed(tmp_path):
    path = str(write(tmp_path / "x.mdtm", "show1 1 10.5 2.5 speaker NA adult_male\n"
                                          "show1 1 10.5 2.5 non-speech NA NA music\n"
                                          "show1 1 -1 -2 speaker NA NA S1\n"
                                          "show1 1 1 2 speaker NA NA S1\n"))
    fields = "file chan onset dur speaker conf gender label"
    assert problems(load_mdtm, path) == [
        (path, 1, f"expected 8 fields ({fields}), got 7"),
        (path, 2, "type 'non-speech' is not 'speaker' (field 5)"),
        (path, 3, "onset '-1' is negative"),
        (path, 3, "duration '-2' is negative"),
    ]


def test_mdtm_empty(tmp_path):
    path = str(write(tmp_path / "x.mdtm", b"\n"))
    assert problems(load_mdtm, path) == [(path, 0, "no speaker turns")]


# --------------------------------------------------------------------------------------------
# UEM


def test_uem_sorted_and_merged(tmp_path):
    path = write(tmp_path / "x.uem", "; comment\n"
                                     "f1 1 20 30\n"
                                     "f1 1 0 10\n"
                                     "f1 1 5 12\n"      # overlaps [0, 10]
                                     "f1 1 30 31.5\n"   # touches [20, 30]
                                     "f2 1 4.5 13.24")  # no final newline
    assert load_uem(path) == {"f1": ((0.0, 12.0), (20.0, 31.5)), "f2": ((4.5, 13.24),)}


def test_uem_malformed(tmp_path):
    path = str(write(tmp_path / "x.uem", "f1 1 0\n"
                                         "f1 1 5 5\n"
                                         "f1 1 -1 3\n"
                                         "f1 1 0 end\n"
                                         "f1 1 10 2\n"
                                         "f1 1 0 10\n"))
    assert problems(load_uem, path) == [
        (path, 1, "expected 4 fields (file chan start end), got 3"),
        (path, 2, "end '5' is not after start '5'"),
        (path, 3, "start '-1' is negative"),
        (path, 4, "end 'end' is not a number"),
        (path, 5, "end '2' is not after start '10'"),
    ]


def test_uem_empty(tmp_path):
    path = str(write(tmp_path / "x.uem", b";; nothing\n"))
    assert problems(load_uem, path) == [(path, 0, "no UEM segments")]


# --------------------------------------------------------------------------------------------
# Published data


def _speaker_lines(path):
    """(uri, onset, duration, speaker) of every SPEAKER line, read naively for the check."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if fields and fields[0] == "SPEAKER":
            rows.append((fields[1], float(fields[3]), float(fields[4]), fields[7]))
    return rows


def _rttm_files(root):
    files = sorted(root.glob("**/*.rttm")) + sorted((root / "dover-lap").iterdir())
    files += sorted((root / "sctk-sastt").glob("*.rttm.filt"))
    return files


def test_every_reference_rttm_turn_count_matches_its_speaker_lines(reference_data):
    files = _rttm_files(reference_data)
    assert len(files) > 70
    for path in files:
        rows = _speaker_lines(path)
        turns = load_rttm(path)
        expected = Counter(uri for uri, _, duration, _ in rows if duration > 0)
        assert {uri: len(t) for uri, t in turns.items() if t} == dict(expected), path
        assert set(turns) == {uri for uri, *_ in rows}, path
        total = defaultdict(float)
        for uri, _, duration, _ in rows:
            total[uri] += duration
        for uri, ts in turns.items():
            assert sum(t.duration for t in ts) == pytest.approx(total[uri], abs=1e-6), path


def test_rttm_equals_pyannote_database_loader(reference_data):
    """pyannote.database.util.load_rttm (the reference library's reader) gives the same turns."""
    from pyannote.database.util import load_rttm as pyannote_load_rttm

    for name in ["dscore/ref.rttm", "dscore/sys.rttm", "spyder/readme-example/derived_ref.rttm",
                 "pyannote-metrics/derived_reference_with_overlap.rttm",
                 "vbx-example/ref/ES2005a.rttm", "dover-lap/ref_rttm_test"]:
        ours = load_rttm(reference_data / name)
        theirs = pyannote_load_rttm(str(reference_data / name))
        assert set(ours) == set(theirs), name
        for uri, annotation in theirs.items():
            expected = sorted((s.start, s.end, label)
                              for s, _, label in annotation.itertracks(yield_label=True))
            got = [(t.start, t.end, t.speaker) for t in ours[uri]]
            assert len(got) == len(expected), (name, uri)
            for a, b in zip(got, expected):
                assert a[2] == b[2] and a[0] == pytest.approx(b[0], abs=1e-9) \
                    and a[1] == pytest.approx(b[1], abs=1e-9), (name, uri, a, b)


def test_sctk_rttm_with_other_line_types(reference_data):
    path = reference_data / "sctk-sastt" / "sastt-case1.ref.rttm"
    kinds = Counter(line.split()[0] for line in path.read_text().splitlines() if line.strip())
    assert kinds["LEXEME"] and kinds["SPKR-INFO"] and kinds["NON-LEX"]  # the point of the file
    turns = load_rttm(path)
    assert sum(map(len, turns.values())) == kinds["SPEAKER"]
    assert turns["VT_20051027-1400"][0] == Turn(100.0, 105.8, "Ref1")


def test_reference_uems(reference_data):
    from pyannote.database.util import load_uem as pyannote_load_uem

    assert load_uem(reference_data / "spyder" / "ref.uem") == {
        "FILE1": ((0.0, 15.0), (25.0, 30.4)), "FILE2": ((4.5, 13.24),)}
    # a comment line and no final newline
    assert load_uem(reference_data / "dscore" / "test_load.uem") == {
        "FILE1": ((0.0, 15.0), (25.0, 30.4)), "FILE2": ((4.5, 13.24),)}
    uems = sorted((reference_data / "vbx-ami-mixheadset" / "uem").glob("*/*.uem"))
    assert len(uems) == 34
    for path in uems:
        ours = load_uem(path)
        theirs = pyannote_load_uem(str(path))
        assert {uri: tuple((s.start, s.end) for s in timeline) for uri, timeline in
                theirs.items()} == ours


# --------------------------------------------------------------------------------------------
# The writer: what write_rttm writes, load_rttm reads back

from hypothesis import given, settings, strategies as st  # noqa: E402

from llgui.io.rttm import format_rttm, write_rttm  # noqa: E402

# Labels and file names as they come: anything without whitespace (RTTM's field separator)
_LABEL = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda s: s.split() == [s])
_SECONDS = st.one_of(st.floats(0, 1e5, allow_nan=False), st.integers(0, 10**5).map(float),
                     st.sampled_from([0.1, 0.2, 0.1 + 0.2, 1e-7, 5e-324, 1234.5678901234567]))


def _read_back(turns) -> tuple[Turn, ...]:
    """What load_rttm gives for `turns`: RTTM stores the duration, so an end comes back as
    start + (end - start) (not always the end's last bit); turns left empty are skipped."""
    back = [Turn(t.start, t.start + (t.end - t.start), t.speaker) for t in turns]
    return tuple(sorted(t for t in back if t.end > t.start))


def test_rttm_written_then_read_awkward_labels_and_floats(tmp_path):
    turns = [Turn(0.1, 0.1 + 0.2, "spk-1"), Turn(0.2, 0.30000000000000004, "Ünï☃😀"),
             Turn(1e-7, 2.5, "<NA>"), Turn(3.0, 1e5 + 0.1, "0.5"), Turn(7.0, 9.0, ";x"),
             Turn(2.5, 2.75, "SPEAKER"), Turn(1234.5678901234567, 1300.1, 'q"\\')]
    path = tmp_path / "h.rttm"
    write_rttm(path, "NEWS_2023-é", turns)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("SPEAKER NEWS_2023-é 1 0.1 0.20000000000000004 <NA> <NA> spk-1 "
                           "<NA> <NA>\n")
    assert text == format_rttm("NEWS_2023-é", turns)
    assert load_rttm(path) == {"NEWS_2023-é": _read_back(turns)}
    # the end's last bit, which RTTM cannot keep: 2.28 + (6.54 - 2.28) is not 6.54
    write_rttm(path, "f", [Turn(2.28, 6.54, "A")])
    assert load_rttm(path) == {"f": (Turn(2.28, 6.539999999999999, "A"),)}


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(uri=_LABEL, raw=st.lists(st.tuples(_SECONDS, _SECONDS, _LABEL), min_size=1,
                                max_size=8))
def test_rttm_round_trip_fuzzed(tmp_path_factory, uri, raw):
    turns = [Turn(min(a, b), max(a, b), spk) for a, b, spk in raw]
    path = tmp_path_factory.mktemp("rttm") / "h.rttm"
    write_rttm(path, uri, turns)
    assert load_rttm(path) == {uri: _read_back(turns)}
