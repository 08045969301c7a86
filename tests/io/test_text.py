"""llgui.io.text.load_segments: one segment per line, UTF-8, every problem at its line."""
from __future__ import annotations

import pytest

from llgui.io.text import load_segments
from tests.io.helpers import problems, write


# --------------------------------------------------------------------------------------------
# Good input


@pytest.mark.parametrize("content, segments", [
    ("a b\nc d\n", ("a b", "c d")),
    ("a b\nc d", ("a b", "c d")),                 # no final newline
    ("a b\r\nc d\r\n", ("a b", "c d")),           # CRLF
    ("a\n\nb\n", ("a", "", "b")),                 # an empty segment in the middle is kept
    ("a\n\n", ("a", "")),                         # a second final newline is an empty segment
    ("\n", ("",)),                                # one empty segment
    ("  spaced  \n\tx\n", ("  spaced  ", "\tx")), # nothing stripped but the line ending
    ("\ufeffHallo\nWelt\n", ("\ufeffHallo", "Welt")),  # the BOM of line 1 is kept
    ("über\n日本語\n", ("über", "日本語")),
])
def test_segments(tmp_path, content, segments):
    path = write(tmp_path / "x.de", content)
    assert load_segments(path) == segments
    assert load_segments(str(path)) == segments


# --------------------------------------------------------------------------------------------
# Malformed input: the full list of problems, with file, line and reason


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.de")
    assert problems(load_segments, path) == [(path, 0, "file not found")]


def test_directory(tmp_path):
    assert problems(load_segments, str(tmp_path)) == [(str(tmp_path), 0, "is a directory, not a file")]


def test_empty_file(tmp_path):
    path = str(write(tmp_path / "ref.de", b""))
    assert problems(load_segments, path) == [(path, 0, "file is empty")]


def test_invalid_utf8_on_several_lines(tmp_path):
    # line 2: a Latin-1 "ü" (0xfc) at byte 3 (offset 3 + 2); line 4: a truncated 3-byte
    # sequence at byte 1 (offset 3 + 6 + 3)
    content = b"ok\nGr\xfc\xdfe\nok\n\xe2\x82\nok\n"
    path = str(write(tmp_path / "hyp.de", content))
    assert problems(load_segments, path) == [
        (path, 2, "invalid UTF-8 byte 0xfc at column 3 (file offset 5)"),
        (path, 4, "invalid UTF-8 bytes 0xe2 0x82 at column 1 (file offset 12)"),
    ]


def test_nul_character(tmp_path):
    path = str(write(tmp_path / "hyp.de", "fine\nbad\x00here\n"))
    assert problems(load_segments, path) == [(path, 2, "contains a NUL character at column 4")]


def test_other_line_breaks_each_reported(tmp_path):
    content = "one\rtwo\nfine\nthree\u2028four\nfive\u2029\nsix\x85seven\nform\x0cfeed\n"
    path = str(write(tmp_path / "hyp.de", content))
    assert problems(load_segments, path) == [
        (path, 1, "contains a carriage return (\\r) not followed by \\n at column 4; "
                  "a segment must be one line"),
        (path, 3, "contains U+2028 LINE SEPARATOR (a line break for some tools) at column 6; "
                  "a segment must be one line"),
        (path, 4, "contains U+2029 PARAGRAPH SEPARATOR (a line break for some tools) at "
                  "column 5; a segment must be one line"),
        (path, 5, "contains U+0085 NEXT LINE (a line break for some tools) at column 4; "
                  "a segment must be one line"),
        (path, 6, "contains a form feed (U+000C, a line break for some tools) at column 5; "
                  "a segment must be one line"),
    ]


def test_all_kinds_of_problems_collected_in_line_order(tmp_path):
    content = b"\xff\nx\x00\nok\na\xe2\x80\xa8b\n"
    path = str(write(tmp_path / "hyp.de", content))
    assert problems(load_segments, path) == [
        (path, 1, "invalid UTF-8 byte 0xff at column 1 (file offset 0)"),
        (path, 2, "contains a NUL character at column 2"),
        (path, 4, "contains U+2028 LINE SEPARATOR (a line break for some tools) at column 2; "
                  "a segment must be one line"),
    ]


# --------------------------------------------------------------------------------------------
# Published data


def test_wmt17_files_segment_counts(reference_data, expected):
    folder = reference_data / "sacrebleu-wmt17" / "derived_txt"
    n = expected["mt"]["wmt17_newstest2017_en-de"]["segments"]
    for path in sorted(folder.iterdir()):
        segments = load_segments(path)
        raw = path.read_bytes()
        assert len(segments) == raw.count(b"\n") == n, path.name
        assert segments == tuple(raw.decode("utf-8").split("\n")[:-1]), path.name


def test_wmt17_bom_is_kept_so_bleu_matches(reference_data, expected):
    """online-A begins with U+FEFF; sacrebleu's table was computed with it kept."""
    import sacrebleu

    case = expected["mt"]["wmt17_newstest2017_en-de"]
    system = next(s for s in case["systems"] if "online-A" in s["system_file"])
    hyp = load_segments(reference_data / system["system_file"])
    ref = load_segments(reference_data / case["reference"])
    assert hyp[0].startswith("\ufeff")
    bleu = sacrebleu.corpus_bleu(list(hyp), [list(ref)]).score
    assert bleu == pytest.approx(system["computed_here_sacrebleu_2.6.0"]["BLEU_13a"], abs=1e-9)
    assert round(bleu, 2) == system["published"]["BLEU_mteval-v13a"]


# --------------------------------------------------------------------------------------------
# The writer: what write_segments writes, load_segments reads back

from llgui.io.text import write_segments  # noqa: E402


@pytest.mark.parametrize("segments", [
    ("one",),
    ("",),                                             # one empty segment
    ("\ufeffBOM kept", "", "  spaces kept  ", "tab\tin", "é ☃ 😀", "", ""),
])
def test_segments_written_then_read(tmp_path, segments):
    path = tmp_path / "h.txt"
    write_segments(path, segments)
    assert load_segments(path) == segments


@pytest.mark.parametrize("ref_lines, line", [(3, 4), (6, 4), (4, 0)])
def test_loose_files_of_other_lengths_name_the_line_where_they_part(tmp_path, ref_lines, line):
    """A hypothesis (4 lines) of another length than its reference is named, the file to
    fix (outsider helper-55), at its first line without a reference line (a shorter
    reference of 3: line 4), or at its last line, where it ends too early (outsider
    helper-53: `FILE: has 41 lines...`, no line)."""
    from llgui.core.errors import LoadError
    from llgui.io.loose import bundle_from_files

    hyp = tmp_path / "hyp.txt"
    hyp.write_text("".join(f"h{i}\n" for i in range(4)), encoding="utf-8")
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(f"r{i}\n" for i in range(ref_lines)), encoding="utf-8")
    if ref_lines == 4:
        assert len(bundle_from_files([ref], hyp, task="mt").documents) == 1
        return
    with pytest.raises(LoadError) as caught:
        bundle_from_files([ref], hyp, task="mt")
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == (str(hyp), line)
    assert problem.reason == f"has 4 lines but the reference {ref} has {ref_lines}"


def test_a_loose_hypothesis_ending_in_blank_lines_is_said_so(tmp_path):
    from llgui.core.errors import LoadError
    from llgui.io.loose import bundle_from_files

    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a\nb\n\n\n", encoding="utf-8")   # two blank lines at the end
    ref = tmp_path / "ref.txt"
    ref.write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(LoadError) as caught:
        bundle_from_files([ref], hyp, task="mt")
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == (str(hyp), 3)
    assert problem.reason == (f"has 4 lines but the reference {ref} has 2 (its last 2 lines "
                              "are empty: a blank line at the end of the file?)")
