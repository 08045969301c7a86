"""Japanese and Korean BLEU as WMT scores them, out of the box (issue 35, item 3): sacrebleu's
`ja`/`ko` extras are llgui's dependencies, `llgui score` reports `tok:ja-mecab-…` /
`tok:ko-mecab-…` and equals sacrebleu's own corpus BLEU with that tokenizer; sacrebleu's
repeated "Consider using…" is said once, in llgui's words; a tokenizer that cannot load
leaves BLEU out of a campaign instead of scoring it with 13a."""
from __future__ import annotations

import importlib.metadata
import json
import logging
import sys

import pytest
import sacrebleu

from llgui.cli.main import main
from tests.cli.test_campaign_cli import GOOD
from tests.cli.test_hostile import make_campaign

JA_REFS = ["猫がマットの上に座っていました。", "今日は雨が降っています。", "東京へ行きます。"]
JA_HYPS = ["猫はマットの上に座った。", "今日は雨が降っている。", "東京に行きます。"]
KO_REFS = ["고양이가 매트 위에 앉아 있었다.", "오늘은 비가 온다.", "서울에 갑니다."]
KO_HYPS = ["고양이는 매트 위에 앉았다.", "오늘은 비가 옵니다.", "서울에 갑니다."]


def _bundle(tmp_path, refs, hyps, settings: str, docs: int = 1):
    lines = ["[bundle]", 'task = "mt"', 'name = "wmt"', 'metrics = ["bleu", "chrf"]', "",
             "[settings]", settings, ""]
    for d in range(docs):
        (tmp_path / f"ref{d}.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
        (tmp_path / f"hyp{d}.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
        lines += ["[[documents]]", f'id = "doc{d}"', f'time = "{d + 1}"',
                  f'references = ["ref{d}.txt"]', f'hypothesis = "hyp{d}.txt"', ""]
    path = tmp_path / "bundle.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _score(capsys, path):
    capsys.readouterr()
    code = main(["score", str(path), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def test_the_ja_and_ko_extras_are_dependencies_of_llgui():
    """A clean `pip install llgui` brings MeCab and its dictionaries (sacrebleu[ja,ko])."""
    requires = importlib.metadata.requires("llgui") or []
    sacre = [r for r in requires if r.replace(" ", "").startswith("sacrebleu[")]
    assert sacre and {"ja", "ko"} <= set(sacre[0].split("[")[1].split("]")[0].split(","))


@pytest.mark.parametrize("lang, refs, hyps, tok", [
    ("ja", JA_REFS, JA_HYPS, "ja-mecab"), ("ko", KO_REFS, KO_HYPS, "ko-mecab")])
def test_score_on_a_japanese_or_korean_bundle_is_wmt_bleu(tmp_path, capsys, lang, refs, hyps,
                                                          tok):
    report, _ = _score(capsys, _bundle(tmp_path, refs, hyps, f'trg_lang = "{lang}"'))
    bleu = sacrebleu.BLEU(tokenize=tok)
    expected = bleu.corpus_score(hyps, [refs])
    ours = dict(p.split(":", 1) for p in report["metrics"]["bleu"]["signature"].split("|"))
    theirs = dict(p.split(":", 1) for p in str(bleu.get_signature()).split("|"))
    assert ours["tok"] == theirs["tok"] and ours["tok"].startswith(f"{tok}-")
    assert report["metrics"]["bleu"]["score"] == pytest.approx(expected.score, abs=1e-9)
    # 13a would be another number: the tokenizer matters on this text
    assert sacrebleu.corpus_bleu(hyps, [refs], tokenize="13a").score != \
        pytest.approx(expected.score, abs=0.5)


def test_sacrebleus_advice_is_said_once_in_llguis_words(tmp_path, capsys, caplog):
    path = _bundle(tmp_path, JA_REFS, JA_HYPS, 'trg_lang = "ja"\ntokenize = "13a"', docs=6)
    with caplog.at_level(logging.WARNING, logger="sacrebleu"):
        report, err = _score(capsys, path)
    assert not [r for r in caplog.records if "Consider using" in r.getMessage()]
    assert "Consider using" not in err
    assert err.count("not with WMT's 'ja-mecab'") == 1, err
    assert f"{path}:8: warning:" in err          # the tokenize line


def test_japanese_without_trg_lang_is_said_to_be_13a(tmp_path, capsys):
    path = _bundle(tmp_path, JA_REFS, JA_HYPS, "lowercase = false")
    report, err = _score(capsys, path)
    assert "tok:13a" in json.dumps(report)
    assert err.count("this text is Japanese but the bundle has no trg_lang") == 1, err
    assert "trg_lang = 'ja'" in err


def test_a_campaign_whose_tokenizer_cannot_load_leaves_bleu_out(tmp_path, monkeypatch):
    """MeCab unloadable (a module set to None in sys.modules cannot be imported): the
    campaign is not scored with 13a; BLEU is left out and the problem says so."""
    from llgui.io.campaign import load_campaign

    monkeypatch.setitem(sys.modules, "MeCab", None)
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))
    path = make_campaign(tmp_path, GOOD.replace("[[batches]]", '[settings]\ntrg_lang = "ja"'
                                                               '\n\n[[batches]]', 1))
    campaign = load_campaign(path)
    assert "bleu" not in campaign.metrics and "chrf" in campaign.metrics
    assert campaign.settings.get("trg_lang") == "ja"      # chrF's settings untouched
    said = [str(p) for p in campaign.problems]
    assert any("BLEU is left out" in p and "ja-mecab" in p for p in said), said
    assert any("mecab-python3" in p for p in said), said
