"""`mt_memory`: an MT adaptation layer that learns from the human's corrections.

It starts from the bundle's hypothesis (the source when there is none). In active mode it asks
for the reference of the sentence it is least sure of: the one with the most words no
correction has confirmed yet, among the sentences whose reference fits the budget `left`. It
asks llgui the cost of a candidate first (a `quote`, no step spent: the cost depends on the
reference, which it never sees), from the one it is least sure of down, and requests the
first that fits; it stops when none does. So a long sentence over the budget is skipped, not
refused. From every answer or post-edit it adopts the corrected
sentence, aligns it with what it had written (`difflib` on words) and learns the substitutions
of up to `MAX_PHRASE` words; it applies the rules it has learned to the rest of the document
and to every later document (a rule seen with several targets takes the most frequent). It
never reads a reference except the ones it is given. Run as `python -m llgui.systems.mt_memory`.

Below the word on scripts without spaces: a line written mostly in Chinese, Japanese, Thai
(`llgui.core.mt.script.detect_unit`) has whole clauses between its spaces, so a "word" rule
would only ever rewrite the very sentence it came from. There it aligns characters (spaces
kept as characters) and learns substitutions of up to `MAX_PHRASE_CHARS` characters with
one character of context on each side, so a corrected term is rewritten wherever it
recurs. What it cannot learn: reordering, and anything a later sentence writes differently
from the corrected one; then it is the memorise-only line (it only applies the
corrections).
"""
from __future__ import annotations

import sys
from collections import Counter, defaultdict
from difflib import SequenceMatcher

from llgui.sim import protocol as P
from llgui.systems._serve import System, serve

MAX_PHRASE = 3
MAX_PHRASE_CHARS = 8   # characters of a substitution on scripts without spaces


def unspaced(line: str) -> bool:
    """True for a line written mostly in a script without spaces (`detect_unit`)."""
    from llgui.core.mt.script import CHARACTERS, detect_unit

    return detect_unit((line,)) == CHARACTERS


def tokens(line: str) -> list[str]:
    """What a rule is made of: the words of a spaced line, the characters (spaces included,
    so the line reads back whole) of a line written mostly without spaces."""
    return list(line) if unspaced(line) else line.split()


def joined(line: str, parts: list[str]) -> str:
    """`parts` (the `tokens` of `line`, rewritten) as a line again."""
    return "".join(parts) if unspaced(line) else " ".join(parts)


def learn_rules(seen: list[str], corrected: list[str],
                longest: int = MAX_PHRASE) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Substitutions (source phrase -> target phrase) of up to `longest` tokens between two
    versions of a sentence; each source phrase keeps one token of context on each side when
    it has it, so a common word is not rewritten everywhere."""
    rules = []
    matcher = SequenceMatcher(a=seen, b=corrected, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace" or i2 - i1 > longest or j2 - j1 > longest + 1:
            continue
        left = 1 if i1 > 0 and j1 > 0 and seen[i1 - 1] == corrected[j1 - 1] else 0
        right = 1 if i2 < len(seen) and j2 < len(corrected) and seen[i2] == corrected[j2] else 0
        rules.append((tuple(seen[i1 - left:i2 + right]), tuple(corrected[j1 - left:j2 + right])))
    return rules


def apply_rules(words: list[str], rules: dict[tuple[str, ...], tuple[str, ...]]) -> list[str]:
    """Rewrite `words` left to right, longest source phrase first, never re-reading output."""
    if not rules:
        return words
    longest = max(len(k) for k in rules)
    out, i = [], 0
    while i < len(words):
        for size in range(min(longest, len(words) - i), 0, -1):
            target = rules.get(tuple(words[i:i + size]))
            if target is not None:
                out.extend(target)
                i += size
                break
        else:
            out.append(words[i])
            i += 1
    return out


class MTMemory(System):
    name = "mt_memory"
    version = "1"

    def __init__(self) -> None:
        self.counts: dict[tuple[str, ...], Counter] = defaultdict(Counter)
        self.rules: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.confirmed: set[str] = set()

    def document(self, message: P.DocumentStart) -> P.Hypothesis:
        base = message.hypothesis if message.hypothesis is not None else message.source or ()
        self.lines = [joined(line, apply_rules(tokens(line), self.rules)) if self.rules
                      else line for line in base]
        self.fixed: set[int] = set()
        self.asked: set[int] = set()
        self.left = float(message.budget)
        self.costs: dict[int, float] = {}   # sentence -> the cost llgui quoted
        return P.Hypothesis(message.doc, lines=tuple(self.lines))

    def request(self) -> P.Request | P.QuoteRequest | None:
        todo = [i for i in range(len(self.lines)) if i not in self.asked and i not in self.fixed]
        todo.sort(key=self._unsure, reverse=True)
        for i in todo:
            if i not in self.costs:        # what would it cost? (llgui answers, no step spent)
                return P.QuoteRequest("reference", P.SentenceTarget(i + 1))
            if self.costs[i] <= self.left + 1e-9:
                self.asked.add(i)
                return P.Request("reference", P.SentenceTarget(i + 1))
        return None                        # nothing left that fits the budget

    def _unsure(self, i: int) -> tuple:
        """The order of asking: the most words no answer has confirmed, then the longest,
        then the first."""
        words = tokens(self.lines[i])
        return (sum(1 for w in words if w not in self.confirmed), len(words), -i)

    def quoted(self, message: P.Quote) -> None:
        self.costs[message.target.sentence - 1] = float(message.cost)
        self.left = float(message.left)

    def learn(self, message) -> P.AdaptedReply:
        index = message.target.sentence - 1
        self.left = (message.left if message.left is not None
                     else self.left - float(message.cost))
        corrected = message.answer if isinstance(message.answer, str) else ""
        seen = self.lines[index]
        changed = {}
        if corrected != seen:
            changed[index] = corrected
        self.lines[index] = corrected
        self.fixed.add(index)
        self.confirmed.update(tokens(corrected))
        new_rules = {}
        chars = unspaced(seen) or unspaced(corrected)
        seen_tokens = list(seen) if chars else seen.split()
        corrected_tokens = list(corrected) if chars else corrected.split()
        for source, target in learn_rules(seen_tokens, corrected_tokens,
                                          MAX_PHRASE_CHARS if chars else MAX_PHRASE):
            self.counts[source][target] += 1
            best = max(sorted(self.counts[source].items()), key=lambda kv: kv[1])[0]
            if self.rules.get(source) != best:
                self.rules[source] = best
                new_rules[source] = best
        if new_rules:
            for i, line in enumerate(self.lines):
                if i in self.fixed:
                    continue
                words = tokens(line)
                if not any(s[0] in words for s in new_rules):
                    continue
                text = joined(line, apply_rules(words, new_rules))
                if text != line:
                    self.lines[i] = text
                    changed[i] = text
        return P.AdaptedReply(lines={i + 1: t for i, t in changed.items()} or None)


if __name__ == "__main__":
    sys.exit(serve(MTMemory()))
