"""llgui.io.bundle.load_bundle: a TOML bundle, everything it names, all problems at their lines."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from llgui.core.cost import CostModel
from llgui.core.errors import LoadError
from llgui.core.metrics import default_metrics
from llgui.core.types import (
    Bundle, DiarDocument, MTDocument, SentenceTarget, Stamp, Turn,
)
from llgui.io.bundle import SACREBLEU_TOKENIZERS, SETTINGS, check_steps, load_bundle
from tests.io.helpers import problems, write

TABLES = ("[bundle], [settings], [cost], [documents], [interactions], [lifelong], [detection], "
          "[classification]")


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """1-based line of the `nth` line of `text` containing `needle` (the test's own locator)."""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return hits[nth - 1]


def step(doc, n, sentence, **extra) -> str:
    return json.dumps({"doc": doc, "step": n, "initiative": "active", "kind": "reference",
                       "target": {"sentence": sentence}, **extra}) + "\n"


MT_TOML = """\
# an MT bundle
[bundle]
task = "mt"
name = "Test bundle"
metrics = ["bleu", "ter"]

[settings]
tokenize = "intl"
lowercase = true

[cost]
window = 2.5

[[documents]]
id = "d1"
time = "2020-01-05"
references = ["ref/d1.de", "ref2/d1.de"]
hypothesis = "hyp/d1.de"
source = "src/d1.en"

[[documents]]
id = "d2"
time = 2020-02-01
references = "ref/d2.de"
hypothesis = "hyp/d2.de"

[interactions]
log = "logs/log.jsonl"

[lifelong]
scores = "lifelong/s.csv"
"""


@pytest.fixture
def mt_dir(tmp_path) -> Path:
    write(tmp_path / "ref/d1.de", "eins\nzwei\ndrei\n")
    write(tmp_path / "ref2/d1.de", "Eins\nZwei\nDrei\n")
    write(tmp_path / "hyp/d1.de", "ein\nzwei\ndrei\n")
    write(tmp_path / "src/d1.en", "one\ntwo\nthree\n")
    write(tmp_path / "ref/d2.de", "vier\nfünf\n")
    write(tmp_path / "hyp/d2.de", "vier\nfunf\n")
    write(tmp_path / "logs/adapted.txt", "eins\nzwei\ndrei\n")
    write(tmp_path / "logs/log.jsonl", step("d1", 1, 1, adapted={"lines": {"1": "eins"}})
          + step("d2", 1, 2) + step("d1", 2, 3, adapted={"path": "adapted.txt"}))
    write(tmp_path / "lifelong/s.csv", "model,model_time,test,test_time,metric,value\n"
                                       "m0,2020-01-01,d1,2020-01-05,bleu,20\n")
    write(tmp_path / "bundle.toml", MT_TOML)
    return tmp_path


def test_mt_bundle(mt_dir):
    path = str(mt_dir / "bundle.toml")
    bundle = load_bundle(path)
    assert isinstance(bundle, Bundle)
    assert (bundle.path, bundle.task, bundle.name) == (path, "mt", "Test bundle")
    assert bundle.metrics == ("bleu", "ter")
    assert dict(bundle.settings) == {"tokenize": "intl", "lowercase": True}
    assert bundle.cost == CostModel(window=2.5)
    d1, d2 = bundle.documents
    assert d1 == MTDocument("d1", Stamp.parse("2020-01-05"), ("ein", "zwei", "drei"),
                            (("eins", "zwei", "drei"), ("Eins", "Zwei", "Drei")),
                            ("one", "two", "three"))
    assert d2.time == Stamp.parse("2020-02-01") and d2.references == (("vier", "fünf"),)
    assert d2.source is None
    assert [(s.doc, s.step, s.line) for s in bundle.steps] == [("d1", 1, 1), ("d2", 1, 2),
                                                               ("d1", 2, 3)]
    assert bundle.steps[2].adapted.path == str(mt_dir / "logs" / "adapted.txt")
    assert bundle.steps[1].target == SentenceTarget(2)
    assert bundle.lifelong.models == ("m0",)
    assert bundle.detection == ()


def test_defaults(tmp_path):
    write(tmp_path / "r", "a\n")
    write(tmp_path / "h", "a\n")
    path = write(tmp_path / "my-eval.toml", '[bundle]\ntask = "mt"\n[[documents]]\nid = "x"\n'
                                           'time = 3\nreferences = ["r"]\nhypothesis = "h"\n')
    bundle = load_bundle(path)
    assert bundle.name == "my-eval"
    assert bundle.metrics == default_metrics("mt")
    assert dict(bundle.settings) == {}
    assert bundle.cost == CostModel()
    assert bundle.steps == () and bundle.lifelong is None
    assert bundle.documents[0].time == Stamp(3.0, "3")


def test_absolute_paths_are_taken_as_they_are(tmp_path):
    ref = write(tmp_path / "elsewhere" / "r", "a\n")
    hyp = write(tmp_path / "elsewhere" / "h", "b\n")
    path = write(tmp_path / "b" / "bundle.toml",
                 f'[bundle]\ntask = "mt"\n[[documents]]\nid = "x"\ntime = 1\n'
                 f'references = [{json.dumps(str(ref))}]\nhypothesis = {json.dumps(str(hyp))}\n')
    assert load_bundle(path).documents[0].hypothesis == ("b",)


# --------------------------------------------------------------------------------------------
# Diarization and detection bundles

DIAR_TOML = """\
[bundle]
task = "diarization"

[settings]
collar = 0.5
skip_overlap = true

[[documents]]
id = "show-1"
time = "2023-03-06"
uri = "SHOW_1"
references = ["ref/shows.rttm"]
hypothesis = "hyp/show1.rttm"
uem = "uem/shows.uem"

[[documents]]
id = "SHOW_2"
time = "2023-03-13"
references = "ref/shows.rttm"
hypothesis = "hyp/all.mdtm"

[interactions]
log = "log.jsonl"
"""


def diar_step(doc, n, kind, target, answer=None, **extra) -> str:
    obj = {"doc": doc, "step": n, "initiative": "active", "kind": kind, "target": target}
    if answer is not None:
        obj["answer"] = answer
    return json.dumps({**obj, **extra}) + "\n"


@pytest.fixture
def diar_dir(tmp_path) -> Path:
    write(tmp_path / "ref/shows.rttm", "SPEAKER SHOW_1 1 0 10 <NA> <NA> A <NA> <NA>\n"
                                       "SPEAKER SHOW_1 1 10 5 <NA> <NA> B <NA> <NA>\n"
                                       "SPEAKER SHOW_2 1 1 4 <NA> <NA> A <NA> <NA>\n")
    write(tmp_path / "hyp/show1.rttm", "SPEAKER SHOW_1 1 0 12 <NA> <NA> s1 <NA> <NA>\n")
    write(tmp_path / "hyp/all.mdtm", "SHOW_1 1 0 3 speaker NA NA x\n")  # nothing for SHOW_2
    write(tmp_path / "uem/shows.uem", "SHOW_1 1 0 20\nSHOW_2 1 0 6\n")
    write(tmp_path / "log.jsonl",
          diar_step("show-1", 1, "same", {"t1": 1, "t2": 4, "doc2": "SHOW_2"}, True)
          + diar_step("show-1", 2, "boundary", {"t": 10}, [9.5, 10.5],
                      adapted={"turns": [[0, 10, "s1"], [10, 15, "s2"]]})
          + diar_step("SHOW_2", 1, "segment", {"start": 0, "end": 5})
          + diar_step("SHOW_2", 2, "name", {"t": 5}, "A", adapted={"path": "ref/shows.rttm"}))
    write(tmp_path / "bundle.toml", DIAR_TOML)
    return tmp_path


def test_diarization_bundle(diar_dir):
    bundle = load_bundle(diar_dir / "bundle.toml")
    assert dict(bundle.settings) == {"collar": 0.5, "skip_overlap": True}
    assert bundle.metrics == ("der", "jer")
    show1, show2 = bundle.documents
    assert show1 == DiarDocument("show-1", Stamp.parse("2023-03-06"), "SHOW_1",
                                 (Turn(0, 10, "A"), Turn(10, 15, "B")), (Turn(0, 12, "s1"),),
                                 ((0.0, 20.0),))
    # no uri: the id is the file field; the MDTM has no SHOW_2 turn: an empty hypothesis
    assert show2 == DiarDocument("SHOW_2", Stamp.parse("2023-03-13"), "SHOW_2",
                                 (Turn(1, 5, "A"),), (), None)
    assert len(bundle.steps) == 4
    assert bundle.steps[3].adapted.turns == (Turn(1, 5, "A"),)  # SHOW_2's turns of that file


def test_detection_bundle(tmp_path):
    write(tmp_path / "det/trials.key", "a x target\nb x nontarget\nc y nontarget\n")
    write(tmp_path / "det/sysA.txt", "a x 1\nb x 0\nc y -1\n")
    write(tmp_path / "det/sysB.txt", "c y 2\nb x 1\na x 3\n")
    path = write(tmp_path / "bundle.toml", '[bundle]\ntask = "detection"\n[detection]\n'
                                           'scores = ["det/sysA.txt", "det/sysB.txt"]\n'
                                           'key = "det/trials.key"\n')
    bundle = load_bundle(path)
    assert bundle.documents == () and bundle.metrics == default_metrics("detection")
    a, b = bundle.detection
    assert (a.name, b.name) == ("sysA", "sysB")
    np.testing.assert_array_equal(b.scores, [2, 1, 3])
    np.testing.assert_array_equal(b.is_target, [False, False, True])


# --------------------------------------------------------------------------------------------
# Problems of the bundle itself


def test_missing_empty_and_not_utf8(tmp_path):
    missing = str(tmp_path / "b.toml")
    assert problems(load_bundle, missing) == [(missing, 0, "file not found")]
    empty = str(write(tmp_path / "e.toml", "\n \n"))
    assert problems(load_bundle, empty) == [(empty, 0, "file is empty")]
    latin = str(write(tmp_path / "l.toml", b'[bundle]\nname = "caf\xe9"\n'))
    assert problems(load_bundle, latin) == [
        (latin, 2, "invalid UTF-8 byte 0xe9 at column 12 (file offset 20)")]


@pytest.mark.parametrize("text, line, reason", [
    ('[bundle]\ntask = "mt"\nname = \n', 3, "not valid TOML: invalid value (column 8)"),
    ('[bundle]\ntask = "mt"\n[bundle]\n', 3, "not valid TOML: cannot declare ('bundle',) "
                                             "twice (column 8)"),
    ('[bundle]\ntask = "mt', 2, "not valid TOML: unterminated string (at the end of the file)"),
    ('[bundle]\ntask = "mt"\ntask = "mt"\n', 3, "not valid TOML: cannot overwrite a value "
                                                "(column 12)"),
])
def test_toml_syntax_errors(tmp_path, text, line, reason):
    path = str(write(tmp_path / "b.toml", text))
    assert problems(load_bundle, path) == [(path, line, reason)]


def test_toml_that_tomllib_rejects_without_a_position(tmp_path):
    path = str(write(tmp_path / "b.toml", "[bundle]\nx = " + "1" * 5000 + "\n"))
    assert problems(load_bundle, path) == [(path, 0, "not valid TOML: an integer has too many "
                                                     "digits")]
    path = str(write(tmp_path / "c.toml", "x = " + "[" * 5000 + "]" * 5000 + "\n"))
    assert problems(load_bundle, path) == [(path, 0, "not valid TOML: values nested too deeply")]


def test_unknown_tables_keys_and_settings(mt_dir):
    text = MT_TOML.replace('[bundle]\n', 'task = "mt"\n[bundle]\nversion = 2\n') \
        .replace('lowercase = true', 'lowercase = "yes"\ncollar = -1\nbeta = 2.5\n'
                                     'smooth_method = "expo"\nword_order = 2\nchrf_word_order = 2') \
        .replace("window = 2.5", "window = 0\nreference_weight = true\nwindw = 3") \
        .replace('metrics = ["bleu", "ter"]', 'metrics = ["bleu", "bleuu", 3, "bleu", "der"]') \
        + "\n[extra]\nx = 1\n"
    path = str(write(mt_dir / "bundle.toml", text))
    known_settings = ", ".join(SETTINGS)
    assert problems(load_bundle, path) == [
        (path, 2, f"key 'task' is outside any table (keys go in one of: {TABLES})"),
        (path, line_of(text, "[extra]"), f"unknown table [extra] (expected: {TABLES})"),
        (path, line_of(text, "version"), "unknown key 'version' in [bundle] (known: task, name, "
                                         "metrics)"),
        (path, line_of(text, "metrics"), "unknown metric 'bleuu' for task mt (known: bleu, "
                                         "chrf, ter, wer)"),
        (path, line_of(text, "metrics"), "metrics[2] must be a metric name, not 3"),
        (path, line_of(text, "metrics"), "metric 'bleu' is listed twice"),
        (path, line_of(text, "metrics"), "unknown metric 'der' for task mt (known: bleu, chrf, "
                                         "ter, wer)"),
        (path, line_of(text, "chrf_word_order"), "unknown key 'chrf_word_order' in [settings]; "
                                                 f"did you mean 'word_order'? (known: "
                                                 f"{known_settings})"),
        (path, line_of(text, "lowercase"), "lowercase must be true or false, not 'yes'"),
        (path, line_of(text, "collar"), "collar must be a number between 0 and 3600, not -1"),
        (path, line_of(text, "beta"), "beta must be an integer between 0 and 100, not 2.5"),
        (path, line_of(text, "smooth_method"), "smooth_method must be one of: none, floor, "
                                               "add-k, exp; not 'expo'"),
        (path, line_of(text, "window = 0"), "cost model: window must be a number > 0 and <= "
                                            "86400, not 0"),
        (path, line_of(text, "reference_weight"), "cost model: reference_weight must be a "
                                                  "number between 0 and 1e+06, not true"),
        (path, line_of(text, "windw"), "cost model: unknown key 'windw' (known: listen_weight, "
                                       "post_edit_weight, reference_weight, use_log_cost, "
                                       "window)"),
    ]


def test_bundle_table_problems(tmp_path):
    path = str(write(tmp_path / "b.toml", "[settings]\ncollar = 1\n"))
    assert problems(load_bundle, path) == [(path, 0, "missing table [bundle]")]
    path = str(write(tmp_path / "c.toml", '[bundle]\nname = 3\n'))
    assert problems(load_bundle, path) == [
        (path, 1, "[bundle] needs task = one of: mt, diarization, detection, classification"),
        (path, 2, "name must be a string, not 3"),
    ]
    path = str(write(tmp_path / "d.toml", '[bundle]\ntask = "asr"\nmetrics = []\n'))
    assert problems(load_bundle, path) == [
        (path, 2, "task must be one of: mt, diarization, detection, classification, not 'asr'"),
        (path, 3, "metrics is empty (leave it out for the default: )"),
    ]
    path = str(write(tmp_path / "e.toml", 'bundle = "mt"\n'))
    assert problems(load_bundle, path) == [
        (path, 1, "bundle must be a table [bundle], not 'mt'"),
    ]


def test_document_problems(mt_dir):
    write(mt_dir / "hyp/short.de", "one line\n")
    write(mt_dir / "ref/bad.de", b"ok\n\xff\nok\n")
    text = MT_TOML.replace('[[documents]]\nid = "d2"\ntime = 2020-02-01', """\
[[documents]]
id = "d1"
time = 7
references = ["ref/d2.de", "ref/none.de", "ref/bad.de"]
hypothesis = "hyp/short.de"
uem = "x.uem"
referenses = ["ref/d2.de"]

[[documents]]
time = 2020-02-03
references = []

[[documents]]
id = ""
time = 12:30:00
hypothesis = ["a", "b"]
references = 5

[[documents]]
id = "d4"
# no time; the references and hypothesis of d2 follow""")
    path = str(write(mt_dir / "bundle.toml", text))
    bad_de = str(mt_dir / "ref/bad.de")
    second = line_of(text, 'id = "d1"', 2)
    assert problems(load_bundle, path) == [
        (path, line_of(text, "uem ="), "key 'uem' is for diarization documents, not mt"),
        (path, line_of(text, "referenses"), "unknown key 'referenses' in [[documents]]; did you "
                                            "mean 'references'? (known: id, time, references, "
                                            "hypothesis, source, lines, docids, docid, partial)"),
        (path, second, f"duplicate document id 'd1' (first at line {line_of(text, 'id = ')})"),
        (path, second + 1, "time 7 is a number, but document 'd1' (line 16) has an ISO date "
                           "(times must not mix numbers and dates)"),
        (path, second + 2, "references file 'ref/none.de' not found"),
        (bad_de, 2, "invalid UTF-8 byte 0xff at column 1 (file offset 3)"),
        (path, second + 2, "references file 'ref/d2.de' has 2 lines but hypothesis file "
                           "'hyp/short.de' has 1"),
        (path, line_of(text, "[[documents]]", 3), "[[documents]] number 3 has no id (expected "
                                                  "id = a unique name)"),
        (path, line_of(text, "references = []"), "references must be a file name or an array of "
                                                 "file names, not an empty array"),
        (path, line_of(text, "[[documents]]", 3), "[[documents]] number 3 has no hypothesis "
                                                  "(expected hypothesis = a file name)"),
        (path, line_of(text, 'id = ""'), "id must be a non-empty string, not ''"),
        (path, line_of(text, "12:30:00"), "time must be a number or an ISO date, not time"),
        (path, line_of(text, "references = 5"), "references must be a file name or an array of "
                                                "file names, not 5"),
        (path, line_of(text, 'hypothesis = ["a", "b"]'), "hypothesis must be one file name, "
                                                         "not an array"),
        (path, line_of(text, "[[documents]]", 5), "[[documents]] number 5 has no time (expected "
                                                  "time = an ISO date or a number)"),
        (str(mt_dir / "logs/log.jsonl"), 2, "document 'd2' is not in the bundle (documents: d1)"),
    ]


def test_reference_on_several_lines_reported_at_its_element(mt_dir):
    text = MT_TOML.replace('references = ["ref/d1.de", "ref2/d1.de"]',
                           'references = [\n  "ref/d1.de",\n  "ref2/missing.de",\n]')
    path = str(write(mt_dir / "bundle.toml", text))
    assert problems(load_bundle, path) == [
        (path, line_of(text, "ref2/missing.de"), "references file 'ref2/missing.de' not found"),
    ]


def test_source_line_count_and_sections(mt_dir):
    write(mt_dir / "src/d1.en", "one\ntwo\n")
    text = MT_TOML.replace('log = "logs/log.jsonl"', 'log = "logs/nope.jsonl"\nlgo = 1') \
        .replace('scores = "lifelong/s.csv"', 'scores = "lifelong"')
    path = str(write(mt_dir / "bundle.toml", text))
    assert problems(load_bundle, path) == [
        (path, line_of(text, "source ="), "source file 'src/d1.en' has 2 lines but hypothesis "
                                          "file 'hyp/d1.de' has 3"),
        (path, line_of(text, "lgo"), "unknown key 'lgo' in [interactions]; did you mean 'log'? (known: log)"),
        (path, line_of(text, "log ="), "log file 'logs/nope.jsonl' not found"),
        (path, line_of(text, "scores ="), "scores file 'lifelong' is not a file (a directory?)"),
    ]


def test_interaction_log_checked_against_documents(mt_dir):
    log = (step("d1", 1, 4) + step("nope", 1, 1) + step("d2", 1, 1, adapted={"lines": {"3": "x"}})
           + step("d1", 2, 1, adapted={"path": "short.txt"}) + step("d2", 2, 0))
    write(mt_dir / "logs/short.txt", "x\n")
    log_path = str(write(mt_dir / "logs/log.jsonl", log))
    path = str(mt_dir / "bundle.toml")
    assert problems(load_bundle, path) == [
        (log_path, 5, "target sentence must be an integer >= 1, not 0"),
    ]
    write(log_path, log.rsplit("\n", 2)[0] + "\n")
    assert problems(load_bundle, path) == [
        (log_path, 1, "target sentence 4 is beyond the last segment of document 'd1' (3 "
                      "segments)"),
        (log_path, 2, "document 'nope' is not in the bundle (documents: d1, d2)"),
        (log_path, 3, "adapted line 3 is beyond the last segment of document 'd2' (2 segments)"),
        (log_path, 4, f"adapted file {str(mt_dir / 'logs/short.txt')!r} has 1 lines but "
                      f"document 'd1' has 3 segments"),
    ]


def test_log_of_the_other_task(mt_dir):
    log_path = str(write(mt_dir / "logs/log.jsonl",
                         diar_step("d1", 1, "name", {"t": 1}, "A")))
    assert problems(load_bundle, mt_dir / "bundle.toml") == [
        (log_path, 1, "kind 'name' is a diarization kind, but the task is mt (expected one "
                      "of: reference, post_edit, prefix)"),
    ]


def test_diarization_problems(diar_dir):
    write(diar_dir / "hyp/broken.rttm", "SPEAKER SHOW_2 1 0 -1 <NA> <NA> x <NA> <NA>\n")
    text = DIAR_TOML.replace('uri = "SHOW_1"', 'uri = "SHOW_9"') \
        .replace('hypothesis = "hyp/all.mdtm"', 'hypothesis = "hyp/broken.rttm"\n'
                                                'uem = "uem/shows.uem"\nsource = "x"') \
        .replace('references = "ref/shows.rttm"', 'references = ["ref/shows.rttm", "r2"]')
    path = str(write(diar_dir / "bundle.toml", text))
    write(diar_dir / "uem/shows.uem", "SHOW_1 1 0 20\n")
    assert problems(load_bundle, path) == [
        (path, line_of(text, "SHOW_9"), "uri 'SHOW_9' is not in references file "
                                        "'ref/shows.rttm' (its file fields: SHOW_1, SHOW_2)"),
        (path, line_of(text, 'uem = "uem/shows.uem"'), "uem file 'uem/shows.uem' has no line "
                                                       "for 'SHOW_9'"),
        (path, line_of(text, "source"), "key 'source' is for mt documents, not diarization"),
        (path, line_of(text, '"r2"'), "a diarization document takes one references file (RTTM "
                                      "or MDTM), not 2"),
        (str(diar_dir / "hyp/broken.rttm"), 1, "duration '-1' is negative"),
        (path, line_of(text, 'uem = "uem/shows.uem"', 2), "uem file 'uem/shows.uem' has no "
                                                          "line for 'SHOW_2'"),
    ]


def test_diarization_log_times_checked(diar_dir):
    log_path = str(write(diar_dir / "log.jsonl",
                         diar_step("show-1", 1, "name", {"t": 20.5}, "A")      # UEM ends at 20
                         + diar_step("show-1", 2, "same", {"t1": 1, "t2": 6, "doc2": "SHOW_2"},
                                     False)                                    # SHOW_2 ends at 5
                         + diar_step("show-1", 3, "same", {"t1": 1, "t2": 2, "doc2": "x"}, True)
                         + diar_step("SHOW_2", 1, "boundary", {"t": 2}, [1, 7])
                         + diar_step("SHOW_2", 2, "segment", {"start": 4, "end": 5.5})))
    assert problems(load_bundle, diar_dir / "bundle.toml") == [
        (log_path, 1, "target t 20.5 s is after the end of document 'show-1' (20 s)"),
        (log_path, 2, "target t2 6 s is after the end of document 'SHOW_2' (5 s)"),
        (log_path, 3, "target doc2 'x' is not in the bundle (documents: show-1, SHOW_2)"),
        (log_path, 4, "answer end 7 s is after the end of document 'SHOW_2' (5 s)"),
        (log_path, 5, "target end 5.5 s is after the end of document 'SHOW_2' (5 s)"),
    ]


def test_detection_problems(tmp_path):
    write(tmp_path / "a/sys.txt", "0.5 target\n0.1 nontarget\n")
    write(tmp_path / "b/sys.txt", "0.5 target\n0.1 nontarget\n")
    write(tmp_path / "bad.txt", "x target\n")
    text = ('[bundle]\ntask = "detection"\n[[documents]]\nid = "x"\n[interactions]\nlog = "l"\n'
            '[detection]\nscores = [\n  "a/sys.txt",\n  "b/sys.txt",\n  "bad.txt",\n'
            '  "none.txt",\n]\n')
    path = str(write(tmp_path / "b.toml", text))
    assert problems(load_bundle, path) == [
        (path, 3, "a detection bundle takes no [[documents]] (its trials are in [detection])"),
        (path, 6, "log file 'l' not found"),
        (path, 10, "scores file 'b/sys.txt' has the same system name 'sys' as 'a/sys.txt' "
                   "(line 9); names come from file stems"),
        (str(tmp_path / "bad.txt"), 1, "score 'x' is not a number"),
        (path, 12, "scores file 'none.txt' not found"),
    ]
    path = str(write(tmp_path / "c.toml", '[bundle]\ntask = "detection"\n'))
    assert problems(load_bundle, path) == [
        (path, 2, "a detection bundle needs [detection] scores = [score files], "
               "or targets = [...] and nontargets = [...]")]
    path = str(write(tmp_path / "d.toml", '[bundle]\ntask = "mt"\n'))
    assert problems(load_bundle, path) == [
        (path, 2, "an mt bundle needs at least one [[documents]] table")]


def test_detection_with_a_broken_key(tmp_path):
    key = str(write(tmp_path / "k", "a x target\n"))
    write(tmp_path / "s1.txt", "a x 1\n")
    write(tmp_path / "s2.txt", "a x 1\na x 2\n")
    path = str(write(tmp_path / "b.toml", '[bundle]\ntask = "detection"\n[detection]\n'
                                          'scores = ["s1.txt", "s2.txt"]\nkey = "k"\n'))
    assert problems(load_bundle, path) == [
        (key, 0, "no non-target trials (a DET curve needs target and non-target trials)"),
        (str(tmp_path / "s2.txt"), 2, "duplicate trial a x (first at line 1)"),
    ]


# --------------------------------------------------------------------------------------------
# Nothing half-built; nothing cached between loads


def test_failed_load_leaves_the_previous_bundle_intact(mt_dir):
    path = mt_dir / "bundle.toml"
    good = load_bundle(path)
    hyp_before = good.documents[0].hypothesis
    write(mt_dir / "hyp/d1.de", "only one line now\n")
    bundle = good
    with pytest.raises(LoadError) as info:
        bundle = load_bundle(path)
    assert bundle is good  # the caller's reference was never replaced by a partial object
    assert good.documents[0].hypothesis == hyp_before
    assert [p.reason for p in info.value.problems][0].startswith("references file 'ref/d1.de' "
                                                                 "has 3 lines")
    write(mt_dir / "hyp/d1.de", "neu\nzwei\ndrei\n")
    again = load_bundle(path)  # the file is read afresh, not from a cache
    assert again.documents[0].hypothesis == ("neu", "zwei", "drei")
    assert good.documents[0].hypothesis == hyp_before


def test_shared_files_read_once_and_problems_reported_once(diar_dir):
    write(diar_dir / "ref/shows.rttm", "SPEAKER SHOW_1 1 0 -1 <NA> <NA> A <NA> <NA>\n")
    path = diar_dir / "bundle.toml"
    assert problems(load_bundle, path) == [
        (str(diar_dir / "ref/shows.rttm"), 1, "duration '-1' is negative")]


def test_check_steps_directly(mt_dir):
    bundle = load_bundle(mt_dir / "bundle.toml")
    assert check_steps(bundle, "log.jsonl") == []
    from dataclasses import replace

    moved = replace(bundle, steps=(replace(bundle.steps[0], target=SentenceTarget(9)),))
    found = check_steps(moved, "log.jsonl")
    assert [(p.file, p.line, p.reason) for p in found] == [
        ("log.jsonl", 1, "target sentence 9 is beyond the last segment of document 'd1' "
                         "(3 segments)")]


def test_tokenizer_list_is_sacrebleus():
    from sacrebleu.metrics.bleu import _TOKENIZERS

    assert sorted(SACREBLEU_TOKENIZERS) == sorted(_TOKENIZERS)


def test_settings_are_library_argument_names():
    import inspect

    from sacrebleu.metrics import BLEU, CHRF, TER

    accepted = set()
    for cls in (BLEU, CHRF, TER):
        accepted |= set(inspect.signature(cls).parameters) - {"references"}
    # pyannote's names, and the detection operating point (det.py's argument names)
    # word_collar is meeteval's tcpwer `collar`, renamed: pyannote's collar (a total width
    # around reference boundaries) already holds the name
    assert set(SETTINGS) - accepted == {"collar", "skip_overlap", "p_target", "c_miss",
                                        "c_fa", "threshold", "word_collar"}


# --------------------------------------------------------------------------------------------
# Published data through a bundle


def test_bundle_over_reference_data(tmp_path, reference_data):
    """A bundle naming the VBx AMI dev files by absolute path, one document per meeting."""
    root = reference_data / "vbx-ami-mixheadset"
    meetings = sorted(p.stem for p in (root / "ref" / "dev").glob("*.rttm"))
    assert len(meetings) == 18
    lines = ['[bundle]\ntask = "diarization"\n[settings]\ncollar = 0.5\nskip_overlap = true\n']
    for i, m in enumerate(meetings):
        lines.append(f'[[documents]]\nid = "{m}"\ntime = {i}\n'
                     f'references = "{root}/ref/dev/{m}.rttm"\n'
                     f'hypothesis = "{root}/sys/dev/{m}.rttm"\nuem = "{root}/uem/dev/{m}.uem"\n')
    bundle = load_bundle(write(tmp_path / "ami.toml", "".join(lines)))
    assert [d.id for d in bundle.documents] == meetings
    for doc in bundle.documents:
        n_ref = sum(1 for line in (root / f"ref/dev/{doc.id}.rttm").read_text().splitlines()
                    if line.startswith("SPEAKER") and float(line.split()[4]) > 0)
        assert len(doc.reference) == n_ref
        assert doc.uem and doc.uem[0][0] == 0.0


# -- issue 28: docids of another kind are not echoed; ranges take ASCII digits only -----------


def test_a_docids_file_of_another_kind_is_not_echoed(tmp_path):
    (tmp_path / "ref.txt").write_text("a\nb\nc\n")
    (tmp_path / "hyp.txt").write_text("a\nb\nc\n")
    (tmp_path / "ids").write_text("root:x:0:0:root:/root:/bin/bash\n"
                                  "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
                                  "secretuser:x:1000:1000::/home/secretuser:/bin/sh\n")
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\n[[documents]]\nid = "d1"\ntime = 1\n'
        'references = ["ref.txt"]\nhypothesis = "hyp.txt"\ndocids = "ids"\n')
    with pytest.raises(LoadError) as caught:
        load_bundle(tmp_path / "bundle.toml")
    text = "\n".join(map(str, caught.value.problems)).replace(str(tmp_path), "")
    assert "d1" in text
    for word in ("root", "daemon", "secretuser", "/bin/sh"):
        assert word not in text, text


@pytest.mark.parametrize("value", ["\u0661-\u0662", "1-\u0663", "\uff11-2"])
def test_a_lines_range_with_non_ascii_digits_is_refused(value):
    from llgui.io.text import parse_line_range

    with pytest.raises(ValueError):
        parse_line_range(value)
