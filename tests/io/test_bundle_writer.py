"""llgui.io.bundle_writer: a bundle written by `write_bundle` is what `load_bundle` reads back."""
from __future__ import annotations

import json
import tomllib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from llgui.core.cost import CostModel
from llgui.core.types import Adapted, SameTarget, SentenceTarget, Step, Turn
from llgui.io.bundle import load_bundle
from llgui.io.bundle_writer import bundle_toml, toml_value, write_bundle
from llgui.io.interactions import step_line
from llgui.io.rttm import write_rttm
from llgui.io.text import write_segments

AWKWARD = ['plain', 'q"uote', "back\\slash", "tab\tnew\nline", "é ☃", "emoji 😀 𝄞",
           "del\x7f ctl\x01", "", "[x] = y # not a comment"]


@pytest.mark.parametrize("value", AWKWARD + [0, -3, 10**18, 0.1 + 0.2, 1e-300, 5e-324, -0.0,
                                              1e300, True, False, ["a", 1, 0.5, ["n😀"]], []])
def test_toml_value_reads_back_as_written(value):
    assert tomllib.loads(f"v = {toml_value(value)}")["v"] == value


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(st.characters(max_codepoint=0xFFFF, blacklist_categories=("Cs",))))
def test_toml_strings_within_the_bmp_are_json_ascii_text(text):
    """Up to U+FFFF a string is written as json.dumps(ensure_ascii=True) writes it (the bytes
    of every bundle written before characters past U+FFFF were escaped the TOML way)."""
    assert toml_value(text) == json.dumps(text, ensure_ascii=True)
    assert tomllib.loads(f"v = {toml_value(text)}")["v"] == text


def test_toml_value_of_numpy_scalars_and_characters_past_the_bmp():
    assert toml_value(np.float64(0.1) + np.float64(0.2)) == "0.30000000000000004"
    assert toml_value("a😀") == '"a\\U0001f600"'


@pytest.mark.parametrize("value, error", [(float("nan"), ValueError), (float("inf"), ValueError),
                                          ({"a": 1}, TypeError), (None, TypeError),
                                          ("lone \ud800", ValueError)])
def test_toml_value_refuses_what_toml_cannot_hold(value, error):
    with pytest.raises(error):
        toml_value(value)


def test_mt_bundle_written_then_read(tmp_path):
    ids = ["nëws ☃ 1", 'q"uote\\ 😀', "plain"]
    times = ["2023-01-09T08:00:00", "2023-02-06", "2023-03-06T08:00:00.250000+01:00"]
    refs = {ids[0]: ("Ein Satz.", "Zwei ☃."), ids[1]: ("Drei 😀.",), ids[2]: ("Vier.", "")}
    hyps = {ids[0]: ("Ein Satz", "zwei"), ids[1]: ("drei",), ids[2]: ("vier", "fünf")}
    documents = []
    for i, doc in enumerate(ids):
        write_segments(tmp_path / f"ref/{i} ü.txt", refs[doc])
        write_segments(tmp_path / f"hyp/{i} ü.txt", hyps[doc])
        documents.append({"id": doc, "time": times[i],
                          "references": [str(tmp_path / f"ref/{i} ü.txt")],   # absolute
                          "hypothesis": f"hyp/{i} ü.txt"})                      # relative
    steps = [Step(ids[0], 1, "active", "reference", SentenceTarget(2), None, 0.1 + 0.2,
                  Adapted(lines={2: "Zwei ☃."})),
             Step(ids[1], 1, "interactive", "post_edit", SentenceTarget(1), "Drei 😀.", None,
                  None)]
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "run 1.jsonl").write_text(
        "".join(step_line(s) + "\n" for s in steps), encoding="utf-8")
    cost = CostModel(window=0.1 + 0.2, reference_weight=0.1, post_edit_weight=2.5,
                     listen_weight=1e-3, use_log_cost=False)
    settings = {"tokenize": "intl", "lowercase": True, "smooth_value": 0.1 + 0.2,
                "max_ngram_order": 3}
    name = 'Näme "quoted" \\ ☃ 😀\ttab'
    write_bundle(tmp_path / "bundle.toml", task="mt", name=name, metrics=("bleu", "ter"),
                 settings=settings, cost=cost.to_dict(), documents=documents,
                 log="logs/run 1.jsonl", comment="written by a test: ☃ 😀")

    bundle = load_bundle(tmp_path / "bundle.toml")
    assert (bundle.task, bundle.name, bundle.metrics) == ("mt", name, ("bleu", "ter"))
    assert bundle.settings == settings and bundle.settings["smooth_value"] == 0.30000000000000004
    assert bundle.cost == cost and bundle.cost.window == 0.30000000000000004
    assert [d.id for d in bundle.documents] == ids
    assert [d.time.text for d in bundle.documents] == times
    for d in bundle.documents:
        assert d.hypothesis == hyps[d.id] and d.references == (refs[d.id],)
    assert bundle.steps == tuple(steps)


def test_diarization_bundle_written_then_read(tmp_path):
    turns = {"show ☃": (Turn(0.5, 2.25, "spk-1"), Turn(2.25, 6.0, "Ünï😀")),
             "shöw 2": (Turn(0.1, 0.30000000000000004, "<NA>"), Turn(1.0, 4.0, "B"))}
    uris = {"show ☃": "NEWS_1", "shöw 2": "NEWS_é2"}
    reference = tmp_path / "ref" / "all.rttm"
    reference.parent.mkdir()
    reference.write_text("".join(f"SPEAKER {uris[d]} 1 0 5 <NA> <NA> A <NA> <NA>\n"
                                 for d in uris), encoding="utf-8")
    documents = []
    for i, (doc, doc_turns) in enumerate(turns.items()):
        write_rttm(tmp_path / f"hyp/{i}.rttm", uris[doc], doc_turns)
        documents.append({"id": doc, "time": (0.1 + 0.2, 1e5 + 0.1)[i], "uri": uris[doc],
                          "references": [str(reference)], "hypothesis": f"hyp/{i}.rttm"})
    step = Step("shöw 2", 1, "active", "same", SameTarget(0.5, 3.0, "show ☃"), True, 3.0,
                Adapted(turns=(Turn(0.1, 0.30000000000000004, "<NA>"), Turn(1.0, 4.5, "B"))))
    (tmp_path / "log.jsonl").write_text(step_line(step, {"elapsed_s": 0.5}) + "\n",
                                        encoding="utf-8")
    write_bundle(tmp_path / "bundle.toml", task="diarization", name="d", metrics=["der"],
                 settings={"collar": 0.25, "skip_overlap": True},
                 cost=CostModel().to_dict(), documents=documents, log="log.jsonl")

    bundle = load_bundle(tmp_path / "bundle.toml")
    assert bundle.settings == {"collar": 0.25, "skip_overlap": True}
    assert [(d.id, d.uri, d.time.value) for d in bundle.documents] == [
        ("show ☃", "NEWS_1", 0.30000000000000004), ("shöw 2", "NEWS_é2", 100000.1)]
    for d in bundle.documents:
        assert d.hypothesis == turns[d.id]      # these ends survive start + duration
    assert bundle.steps == (step,)


def test_layout_without_settings_or_log():
    text = bundle_toml(task="mt", name="n", metrics=["bleu"], settings={},
                       cost={"window": 3.0}, documents=[{"id": "a", "time": 1}])
    assert text == ('[bundle]\ntask = "mt"\nname = "n"\nmetrics = ["bleu"]\n\n'
                    '[cost]\nwindow = 3.0\n\n[[documents]]\nid = "a"\ntime = 1\n')
