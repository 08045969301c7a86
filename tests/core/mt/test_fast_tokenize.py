"""`llgui.core.mt.fast_tokenize` against sacrebleu's own `TokenizerRegexp`: the same string for
every line (WMT text from the demo and, where present, the reference data; random strings
over the characters its four substitutions look at), and BLEU metrics built by `make_metric`
carry it for the 13a and zh tokenizers only."""
from __future__ import annotations

import random
import re

import pytest
from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

from llgui.core.mt import fast_tokenize
from llgui.core.mt.stats import make_metric
from tests.conftest import DEMO, reference_data_dir

ORIGINAL = TokenizerRegexp()


def sacrebleus(line: str) -> str:
    return TokenizerRegexp.__call__.__wrapped__(ORIGINAL, line)   # past its lru_cache


def test_equal_to_sacrebleu_on_wmt_text():
    fast = fast_tokenize.FastRegexp(ORIGINAL)
    lines = [line for path in sorted((DEMO / "mt").rglob("*.*")) if path.suffix != ".toml"
             for line in path.read_text(encoding="utf-8", errors="replace").splitlines()]
    wmt = reference_data_dir() / "wmt23-general" / "txt" / "system-outputs"
    for path in sorted(wmt.glob("generaltest2023.de-en.hyp.*.en"))[:3]:
        lines += path.read_text(encoding="utf-8").splitlines()
    assert len(lines) > 200
    for line in lines:
        padded = f" {line} "   # as Tokenizer13a hands it over
        assert fast(padded) == sacrebleus(padded), line


def test_equal_to_sacrebleu_on_random_strings():
    """Every character the substitutions test (the punctuation class, digits, periods,
    commas, dashes) next to letters and several kinds of white space."""
    fast = fast_tokenize.FastRegexp(ORIGINAL)
    alphabet = " \t\n.,-0123456789ab!\"#$%&'()*+/:;<=>?@[\\]^_`{|}~é\u3000\xa0中"
    rng = random.Random(37)
    for _ in range(20000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        assert fast(line) == sacrebleus(line), repr(line)


@pytest.mark.parametrize("tokenize, fast", [("13a", True), ("zh", True), ("intl", False),
                                            ("char", False), ("none", False)])
def test_bleu_metrics_carry_it_where_sacrebleu_uses_the_regexp(tokenize, fast):
    metric = make_metric("bleu", {"tokenize": tokenize})
    post = getattr(metric._library.tokenizer, "_post_tokenizer", None)
    assert isinstance(post, fast_tokenize.FastRegexp) is fast


def test_another_first_rule_is_left_alone():
    class Other(TokenizerRegexp):
        def __init__(self):
            super().__init__()
            self._re = [(re.compile(r"([!?])"), r" \1 ")] + self._re[1:]

    class Holder:
        _post_tokenizer = Other()

    holder = Holder()
    fast_tokenize.speed_up(holder)
    assert type(holder._post_tokenizer) is Other


def test_every_other_substitution_of_sacrebleu_has_its_needed_characters():
    """The skip of a substitution on a line without its characters applies to all three of
    sacrebleu's (the random strings above hold the lines equal with and without them)."""
    fast = fast_tokenize.FastRegexp(ORIGINAL)
    assert [needs for _, _, needs in fast._rest] == [".,", ".,", "-"]
