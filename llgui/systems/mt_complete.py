"""`mt_complete`: an interactive-predictive MT system (protocol 1.2, the prefix interaction).

It is `mt_memory` (llgui.systems.mt_memory: it starts from the bundle's hypothesis and learns
word and phrase substitutions from every sentence the expert finishes) that also completes
prefixes. Given the expert's validated prefix and typed word (or characters), it aligns them
with its own sentence and offers the rest of it: the words after the typed one where its
sentence has that word a little further on (it had missed words), else after the word the
typed one replaced; a word begun (character-level) is completed from its sentence, else from
the words the expert has written before. Every rule it learned is applied to what it offers.
When the expert accepts a sentence it learns from it as from a post-edit, and rewrites the
rest of the document and later documents with what it learned. Run as
`python -m llgui.systems.mt_complete`.
"""
from __future__ import annotations

import sys
from difflib import SequenceMatcher

from llgui.sim import protocol as P
from llgui.sim.prefix import Completion, PrefixMessage
from llgui.systems._serve import serve
from llgui.systems.mt_memory import MTMemory, apply_rules

LOOK_AHEAD = 3
"""How far past the expert's position a typed word is looked for in the system's sentence."""


def _alike(a: str, b: str) -> bool:
    """Two spellings of one word (a wrong form the typed word replaces)."""
    return SequenceMatcher(a=a.lower(), b=b.lower(), autojunk=False).ratio() >= 0.5


def offer(sentence: list[str], written: str, vocabulary: set[str]) -> str:
    """The completion of `written` (prefix + typed) from `sentence` (the system's words)."""
    words = written.split()
    partial = "" if not written or written[-1].isspace() else (words.pop() if words else "")
    k = len(words)
    if partial:
        for j in range(k, min(len(sentence), k + LOOK_AHEAD)):
            if sentence[j].startswith(partial):
                rest = sentence[j + 1:]
                head = sentence[j][len(partial):]
                return head + (" " + " ".join(rest) if rest else "")
        known = sorted((w for w in vocabulary if w.startswith(partial) and w != partial),
                       key=lambda w: (len(w), w))
        head = known[0][len(partial):] if known else ""
        # the word begun replaces the system's word there (the typed word of a word-level
        # step is complete: then the candidates above match it whole and nothing is added)
        rest = sentence[k + 1:]
        return head + (" " + " ".join(rest) if rest else "")
    rest = sentence[k:]
    return " ".join(rest)


class MTComplete(MTMemory):
    name = "mt_complete"
    version = "1"
    minor = 2

    def document(self, message: P.DocumentStart) -> P.Hypothesis:
        self.seen: dict[int, str] = {}
        return super().document(message)

    def complete(self, message: PrefixMessage) -> Completion:
        index = message.target.sentence - 1
        self.seen.setdefault(index, self.lines[index])   # the sentence before the expert
        if message.accept:
            final = message.prefix
            self.lines[index] = self.seen[index]          # learn from what it had written
            learned = self.learn(P.Correction("post_edit", message.target, final, 0.0))
            others = {k: v for k, v in (learned.lines or {}).items() if k != index + 1}
            return Completion("", others or None)
        sentence = apply_rules(self.lines[index].split(), self.rules)
        written = message.prefix + message.typed
        if message.unit == "word" and not written.endswith(" "):
            written_words = written.split()
            k = len(written_words) - 1
            typed = written_words[-1] if written_words else ""
            j = next((j for j in range(k, min(len(sentence), k + LOOK_AHEAD))
                      if sentence[j] == typed), None)
            if j is None:   # a word it missed (kept its own), or one it got wrong (replaced)
                replaced = k < len(sentence) and _alike(sentence[k], typed)
                j = k if replaced else k - 1
            rest = sentence[j + 1:]
            completion = " " + " ".join(rest) if rest else ""
        else:
            completion = offer(sentence, written, self.confirmed)
        self.lines[index] = written + completion
        return Completion(completion)


if __name__ == "__main__":
    sys.exit(serve(MTComplete()))
