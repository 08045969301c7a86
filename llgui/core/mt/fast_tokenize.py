"""sacrebleu's `TokenizerRegexp` (the last step of its `13a` and `zh` tokenizers, BLEU's
default), the same string out, in half the time on Python 3.11.

Its first substitution puts a space on each side of every character of an ASCII punctuation
class, the space included (`([\\{-\\~\\[-\\` -\\&\\(-\\+\\:-\\@\\/])` -> `' \\1 '`). On Python
3.11 a replacement holding a group reference calls a Python function per match, and every
space of a sentence is one: half of the tokenizer's time on a WMT sentence. Here that step is
one `str.replace` per character of the class the line holds, the space first (the others'
replacements add spaces that the single pass of the regular expression would not widen
again); its three other substitutions (periods, commas and dashes beside digits) are
sacrebleu's own compiled patterns, run as it runs them on a line holding a character they
need (`_NEEDS`), and the spaces are then squeezed as it squeezes them. The characters of the class are read from sacrebleu's own pattern; a
sacrebleu whose first substitution is another keeps its own tokenizer (`speed_up`).
tests/core/mt/test_fast_tokenize.py holds the two equal on WMT text and random strings.
"""
from __future__ import annotations

_PUNCTUATION = r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"

_NEEDS = {r"([^0-9])([\.,])": ".,", r"([\.,])([^0-9])": ".,", r"([0-9])(-)": "-"}
"""sacrebleu's three other substitutions, each with the characters one of which every match
holds: a line without them is left as it is, and the substitution (a scan of the line, 5 us)
is skipped. A pattern not listed here always runs."""


class FastRegexp:
    """Drop-in for a `sacrebleu.tokenizers.tokenizer_re.TokenizerRegexp` instance."""

    def __init__(self, original) -> None:
        pattern, _ = original._re[0]
        # the class holds ASCII ranges only: its members are the ASCII characters it matches
        members = [chr(c) for c in range(0x80) if pattern.fullmatch(chr(c))]
        self._spaced = [(c, f" {c} ") for c in members if c != " "]
        self._widen_spaces = " " in members
        self._rest = [(pattern, replacement, _NEEDS.get(pattern.pattern))
                      for pattern, replacement in original._re[1:]]
        self._original = original

    def signature(self) -> str:
        return self._original.signature()

    def __call__(self, line: str) -> str:
        if self._widen_spaces:
            line = line.replace(" ", "   ")
        for char, spaced in self._spaced:
            if char in line:
                line = line.replace(char, spaced)
        for pattern, replacement, needs in self._rest:
            if needs is None or _holds_one_of(line, needs):
                line = pattern.sub(replacement, line)
        return " ".join(line.split())


def _holds_one_of(line: str, chars: str) -> bool:
    for char in chars:  # a loop, not any() over a generator: a third of the time
        if char in line:
            return True
    return False


def speed_up(tokenizer) -> None:
    """Give a sacrebleu tokenizer whose last step is the stock `TokenizerRegexp` (13a, zh)
    the faster equal one; any other is left as it is."""
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    post = getattr(tokenizer, "_post_tokenizer", None)
    if type(post) is not TokenizerRegexp:
        return
    rules = getattr(post, "_re", None)
    if not rules or rules[0][0].pattern != _PUNCTUATION or rules[0][1] != r" \1 ":
        return
    tokenizer._post_tokenizer = FastRegexp(post)
