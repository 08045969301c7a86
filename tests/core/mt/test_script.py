"""Scripts written without spaces (issue 23, items 2-4): the diff marks characters, costs
count characters and say so, TER without sacrebleu's Asian support is reported."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llgui.core.cost import CostModel
from llgui.core.mt.script import (
    CHARACTERS, WORDS, count_units, detect_unit, distinct_characters, language_unit,
    spaced_tokens, ter_script_note, unit_of, units,
)
from llgui.core.mt.stats import make_metric
from llgui.core.mt.textdiff import change_effect, edits, mark_errors, marked
from llgui.core.mt.track import MTTrack
from llgui.core.penalty import replay, replay_bundle
from llgui.core.reports.commands import replay_report, score_report
from llgui.core.types import MTDocument, SentenceTarget, Stamp, Step

ZH_REF = "这是一个测试。"
ZH_HYP = "这是一个测试."


# -- the unit --------------------------------------------------------------------------------

@pytest.mark.parametrize("lang, unit", [("zh", CHARACTERS), ("zh-CN", CHARACTERS),
                                        ("ja", CHARACTERS), ("th", CHARACTERS),
                                        ("ko", WORDS), ("en", WORDS), ("de", WORDS),
                                        (None, None), ("", None)])
def test_trg_lang_decides_the_unit(lang, unit):
    assert language_unit(lang) == unit


def test_without_trg_lang_the_text_decides():
    assert detect_unit([ZH_REF, "IDirect3D::CreateViewport() 将返回 IDirect3DViewport3"]) \
        == CHARACTERS
    assert detect_unit(["ภาษาไทยเขียนติดกัน"]) == CHARACTERS
    assert detect_unit(["the cat sat on the mat", "一"]) == WORDS
    assert detect_unit(["한국어는 띄어쓰기를 합니다"]) == WORDS   # Korean has spaces
    assert detect_unit([]) == WORDS
    # trg_lang wins over the text
    assert unit_of({"trg_lang": "en"}, [ZH_REF]) == WORDS
    assert unit_of({}, [ZH_REF]) == CHARACTERS


def test_character_units_skip_spaces_and_keep_combining_marks():
    assert units("ดี มาก", CHARACTERS) == ["ดี", "ม", "า", "ก"]   # the vowel sign stays on ด
    assert count_units(ZH_REF, CHARACTERS) == 7
    assert count_units(ZH_REF, WORDS) == 1
    assert count_units("用 GPT-4", CHARACTERS) == 6


# -- item 2: the diff ------------------------------------------------------------------------

def test_a_full_stop_marks_one_character_not_the_segment():
    # per word (the old rule) the whole segment is one red token
    assert mark_errors(ZH_HYP, ZH_REF) == [(ZH_HYP, False)]
    pieces = marked(ZH_HYP, ZH_REF, unit=CHARACTERS)
    assert [p.text for p in pieces] == list(ZH_HYP)
    assert [p.text for p in pieces if p.wrong] == ["."]
    assert all(p.space == "" for p in pieces)   # no space put between Chinese characters


def test_latin_runs_inside_chinese_stay_whole_and_keep_their_spaces():
    text = "调用了 vtable 结尾的一个函数。"
    tokens = spaced_tokens(text, CHARACTERS)
    assert ("vtable", " ") in tokens
    assert "".join(t + s for t, s in tokens) == text
    pieces = marked(text, "调用了 vtable 末尾的函数。", unit=CHARACTERS)
    assert [p.text for p in pieces if p.wrong] == ["结", "一", "个"]


def test_a_post_edit_is_bold_only_where_it_changed():
    seen = "绝地武士的破解版本崩溃了"
    adapted = "绝地武士的破解版崩溃了"
    pieces = marked(adapted, adapted, seen, unit=CHARACTERS)
    assert not any(p.changed for p in pieces)            # a deletion changes no kept character
    pieces = marked("绝地武士的破解版坏了", adapted, seen, unit=CHARACTERS)
    assert [p.text for p in pieces if p.changed] == ["坏"]
    # words elsewhere: unchanged behaviour
    words = marked("a big red house", "a red house", "a red house")
    assert [p.text for p in words if p.changed] == ["big"]
    assert [p.space for p in words] == [" ", " ", " ", ""]


def test_change_effect_per_character():
    ref = "这是一个测试。"
    assert change_effect("这是测验.", "这是一个测试.", ref, CHARACTERS) == 1
    # per word both are one wrong word: no difference seen
    assert change_effect("这是测验.", "这是一个测试.", ref, WORDS) == 0
    assert edits(ZH_HYP, ZH_REF, CHARACTERS) == 1


# -- item 3: costs ---------------------------------------------------------------------------

def _zh_doc() -> MTDocument:
    refs = ["绝地武士的破解版崩溃了，因为它调用了结尾的一个函数。", "这是一个测试。"]
    hyps = ["绝地武士的破解版本崩溃了，因为它正在调用末尾的函数。", "这是一个测试."]
    return MTDocument("zh", Stamp.parse("1"), tuple(hyps), (tuple(refs),))


def _step(n, kind, sentence, answer=None) -> Step:
    return Step(doc="zh", step=n, initiative="active", kind=kind,
                target=SentenceTarget(sentence), answer=answer)


def test_a_chinese_reference_costs_its_characters():
    doc = _zh_doc()
    track = MTTrack(doc, make_metric("bleu"))            # no trg_lang: the text decides
    assert track.cost_unit == CHARACTERS
    reference = doc.references[0][0]
    assert len(reference.split()) == 1                   # the old rule: 1 "word"
    assert track.cost(_step(1, "reference", 1), CostModel()) == len(reference) == 26
    post = _step(2, "post_edit", 2, answer="这是一个测试。")
    assert track.cost(post, CostModel(post_edit_weight=2.0)) == 2.0   # one character edit
    words = MTTrack(doc, make_metric("bleu"), unit=WORDS)
    assert words.cost(_step(1, "reference", 1), CostModel()) == 1
    with pytest.raises(ValueError):
        MTTrack(doc, make_metric("bleu"), unit="syllables")


def test_the_unit_is_in_the_replay_and_its_json():
    doc = _zh_doc()
    result = replay(MTTrack(doc, make_metric("chrf")), [_step(1, "reference", 1)],
                    doc="zh")
    assert result.cost_unit == CHARACTERS
    report = replay_report(result)
    assert report["cost_unit"] == "characters"
    assert report["steps"][0]["cost"] == 26
    assert json.loads(json.dumps(report))["cost_unit"] == "characters"


def _bundle_files(tmp: Path, trg_lang: str | None, extra: str = "") -> Path:
    doc = _zh_doc()
    (tmp / "ref.zh").write_text("\n".join(doc.references[0]) + "\n", encoding="utf-8")
    (tmp / "hyp.zh").write_text("\n".join(doc.hypothesis) + "\n", encoding="utf-8")
    (tmp / "log.jsonl").write_text(
        '{"doc": "zh", "step": 1, "initiative": "active", "kind": "reference", '
        '"target": {"sentence": 1}}\n', encoding="utf-8")
    settings = f'trg_lang = "{trg_lang}"\n' if trg_lang else ""
    path = tmp / "bundle.toml"
    path.write_text(f'''[bundle]
task = "mt"
metrics = ["bleu", "ter"]

[settings]
{settings}{extra}
[[documents]]
id = "zh"
time = "1"
references = ["ref.zh"]
hypothesis = "hyp.zh"

[interactions]
log = "log.jsonl"
''', encoding="utf-8")
    return path


@pytest.mark.parametrize("trg_lang, unit, cost", [("zh", "characters", 26),
                                                   (None, "characters", 26),
                                                   ("en", "words", 1)])
def test_bundle_costs_follow_the_script(tmp_path, trg_lang, unit, cost):
    from llgui.io.bundle import load_bundle

    bundle = load_bundle(_bundle_files(tmp_path, trg_lang))
    result = replay_bundle(bundle, "bleu")
    assert result.cost_unit == unit
    assert result.replays[0].steps[0].cost == cost
    report = score_report(bundle, ("bleu",))
    assert report["documents"][0]["penalised"]["bleu"]["cost_unit"] == unit


# -- item 4: TER without Asian support --------------------------------------------------------

def test_ter_note_only_for_cjk_without_asian_support():
    assert ter_script_note({"trg_lang": "zh"}) is not None
    assert "asian_support" in ter_script_note({"trg_lang": "ja", "normalized": True})
    assert ter_script_note({"trg_lang": "zh", "asian_support": True,
                            "normalized": True}) is None
    assert ter_script_note({"trg_lang": "de"}) is None
    assert ter_script_note({}) is None


def test_bundle_warns_at_the_trg_lang_line_and_keeps_sacrebleus_numbers(tmp_path):
    from sacrebleu.metrics import TER

    from llgui.core.scoring import score_bundle
    from llgui.io.bundle import load_bundle

    path = _bundle_files(tmp_path, "zh")
    bundle = load_bundle(path)
    notes = [w for w in bundle.warnings if "asian_support" in w.reason]
    assert len(notes) == 1
    line = path.read_text(encoding="utf-8").splitlines().index('trg_lang = "zh"') + 1
    assert notes[0].line == line
    ter = score_bundle(bundle, ("ter",))[0]
    doc = _zh_doc()
    assert ter.pooled == pytest.approx(
        TER().corpus_score(list(doc.hypothesis), [list(doc.references[0])]).score, abs=1e-9)
    supported = load_bundle(_bundle_files(tmp_path, "zh",
                                          "asian_support = true\nnormalized = true\n"))
    assert not [w for w in supported.warnings if "asian_support" in w.reason]
    assert not [w for w in load_bundle(_bundle_files(tmp_path, "de")).warnings
                if "asian_support" in w.reason]


def test_distinct_characters():
    assert distinct_characters(["abc", "中文 a", "ภา"]) == {"中", "文", "ภ", "า"}


# -- real data -------------------------------------------------------------------------------

def test_wmt23_en_zh_units(reference_data):
    txt = reference_data / "wmt23-general" / "txt"
    refs = (txt / "references" / "generaltest2023.en-zh.ref.refA.zh").read_text(
        encoding="utf-8").splitlines()
    hyps = (txt / "system-outputs" / "generaltest2023.en-zh.hyp.ONLINE-B.zh").read_text(
        encoding="utf-8").splitlines()
    assert detect_unit(refs) == CHARACTERS
    # the case: long references that whitespace splitting counts as 1 or 2 words
    long_few = [r for r in refs if len(r.split()) <= 2 and len(r.replace(" ", "")) > 30]
    assert long_few
    assert all(count_units(r, CHARACTERS) > 30 for r in long_few)
    # per character, a real hypothesis is mostly not red (per word it is nearly all red)
    ok_chars = ok_words = total_chars = total_words = 0
    for h, r in zip(hyps[:200], refs[:200]):
        chars = marked(h, r, unit=CHARACTERS)
        ok_chars += sum(not p.wrong for p in chars)
        total_chars += len(chars)
        words = mark_errors(h, r)
        ok_words += sum(ok for _, ok in words)
        total_words += len(words)
    assert ok_chars / total_chars > 0.6
    assert ok_words / total_words < 0.3


def test_a_bundles_unit_is_decided_once_per_documents_object(monkeypatch):
    """Every track of a bundle asks its unit: the text is sampled once per documents object
    (sampling 50,000 characters per track made a 1,000-document bundle's scoring 18 s)."""
    from llgui.core.mt import script

    calls = []
    real = script.detect_unit
    monkeypatch.setattr(script, "detect_unit", lambda texts: calls.append(1) or real(texts))

    class Doc:
        def __init__(self, text):
            self.references = [[text]]

    documents = (Doc("这是一个测试。"), Doc("另一个句子。"))
    assert script.bundle_unit({}, documents) == "characters"
    assert script.bundle_unit({}, documents) == "characters"
    assert len(calls) == 1
    other = (Doc("plain English words here"),)
    assert script.bundle_unit({}, other) == "words"
    assert script.bundle_unit({"trg_lang": "zh"}, other) == "characters"   # the setting decides
    assert len(calls) == 2
