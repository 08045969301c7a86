"""Interactive-predictive MT (IPMT): the prefix interaction and its effort measures.

In IPMT (Barrachina et al., "Statistical approaches to computer-assisted translation",
Computational Linguistics 35(1), 2009) the expert reads the system's translation of a
sentence from the left, validates the longest correct prefix, types the next word (or
character) and the system completes the rest of the sentence; this repeats until the
sentence is right and the expert accepts it. A log step of kind `prefix` is one such
exchange: its target is the sentence, its answer a `PrefixAnswer` (the validated prefix and
what was typed after it; nothing typed is the final acceptance) and its adapted line the
completed sentence, `prefix + typed + completion`.

Effort (Barrachina 2009, section 5.1), over the sentences the expert accepted, in percent:

- WSR, word-stroke ratio: words typed / reference words (word-level interaction);
- KSR, key-stroke ratio: characters typed / reference characters (at word level a typed
  word is its characters plus the space after it, where the reference goes on, so typing
  every word of a single-spaced reference is 100 %);
- MAR, mouse-action ratio: mouse actions / reference characters, the mouse actions being the
  pointer movements (to the first error, when it is not where the expert stopped typing)
  plus one per sentence, the acceptance;
- KSMR: (keystrokes + mouse actions) / reference characters = KSR + MAR.

Reference characters count every character of the first reference's sentence, spaces
included (what the expert would type without a system); reference words are its
whitespace-separated words. `next_prefix` is the prefix oracle (the longest common prefix
with the reference, then the next reference word or character); `prefix_versions` the
corrected and impaired versions of a prefix step for the penalised score (DESIGN.md 1.2: the
typed text right, or replaced by as many characters that match nothing, the reference's rest
masked both ways).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

WORD, CHARACTER = "word", "character"
PREFIX_UNITS = (WORD, CHARACTER)
NOTHING = "\ue000"
# re's \s on str is Py_UNICODE_ISSPACE, str.isspace's own test: the same white space
_NOT_SPACE = re.compile(r"\S")
"""A private-use character: no reference holds it, so an impaired typed text matches nothing."""


@dataclass(frozen=True)
class PrefixAnswer:
    """What the expert did in one prefix step: validated `prefix` (text) and typed `typed`
    after it, in `unit`s (one word, or one character). `typed == ""` is the acceptance: the
    sentence is `prefix`, finished."""

    prefix: str
    typed: str
    unit: str = WORD

    @property
    def accept(self) -> bool:
        return self.typed == ""

    @property
    def written(self) -> str:
        """The start of the sentence the expert has fixed: prefix + typed."""
        return self.prefix + self.typed

    def to_json(self) -> dict:
        out = {"prefix": self.prefix, "typed": self.typed}
        if self.unit != WORD:
            out["unit"] = self.unit
        return out


def completed(answer: PrefixAnswer, completion: str) -> str:
    """The sentence after a prefix step: the prefix, what was typed, the system's completion
    (an acceptance keeps the prefix alone)."""
    return answer.prefix if answer.accept else answer.written + completion


def next_prefix(line: str, reference: str, unit: str = WORD) -> PrefixAnswer:
    """The prefix oracle: the longest common prefix of `line` with `reference` (in words, or
    characters), then the next reference word (character); the acceptance of the reference
    when the line starts with all of it."""
    if unit == CHARACTER:
        k = 0
        for a, b in zip(line, reference):
            if a != b:
                break
            k += 1
        if k == len(reference):
            return PrefixAnswer(reference, "", unit)
        return PrefixAnswer(reference[:k], reference[k], unit)
    words, ref = line.split(), reference.split()
    k = 0
    for a, b in zip(words, ref):
        if a != b:
            break
        k += 1
    if k == len(ref):
        return PrefixAnswer(" ".join(ref), "", unit)
    return PrefixAnswer(" ".join(ref[:k]) + (" " if k else ""), ref[k], unit)


def prefix_fixed(line: str, answer: PrefixAnswer) -> str:
    """`line` with its start replaced by what the expert fixed (prefix + typed; the unit the
    typed one replaces dropped), the rest of the line kept: what a system that only keeps the
    typed text would show (the workbench's corrected line, the memorise-only chain). Not the
    penalty's version (`prefix_versions`)."""
    if answer.accept:
        return answer.prefix
    if answer.unit == CHARACTER:
        return answer.written + line[len(answer.prefix) + 1:]
    words = line.split()
    k = len(answer.prefix.split())
    return " ".join(answer.prefix.split() + answer.typed.split() + words[k + 1:])


def masked(text: str) -> str:
    """`text` with every character but white space replaced by `NOTHING`: as many words
    and characters, none of which matches a reference."""
    return _NOT_SPACE.sub(NOTHING, text)


@lru_cache(maxsize=1024)   # a step asks for both versions once per metric
def prefix_versions(reference: str, answer: PrefixAnswer) -> tuple[str, str]:
    """(corrected, impaired) versions of a sentence for a prefix step, made from the step and
    the sentence's `reference` alone (not from the system's text): the corrected one is what
    the expert has fixed (prefix + typed) followed by the rest of the reference masked
    (`masked`: same words and characters, matching nothing); the impaired one is the prefix
    followed by the masked reference from the typed unit on. Their difference is what the
    typed unit is worth after the prefix, the sentence kept at the reference's length. At word
    level the rest is the reference's words after as many words as prefix + typed; at character
    level its characters after as many characters. A typed character inside a word leaves the
    word wrong both ways (BLEU charges nothing for it, chrF its character n-grams); the step that
    types the word's last character is charged the word. For an expert who types every unit, the
    impaired version of a step is the corrected one of the step before, so the penalties of a
    sentence add up to the sentence made right from nothing. An acceptance is its prefix both
    ways (nothing typed, no penalty)."""
    if answer.accept:
        return answer.prefix, answer.prefix
    if answer.unit == CHARACTER:
        # masking is character by character: the rest's mask is a slice of the reference's
        rest = _masked_reference(reference)[len(answer.prefix) + len(answer.typed):]
        return answer.written + rest, answer.prefix + masked(answer.typed) + rest
    words = reference.split()
    k = len(answer.prefix.split())
    rest = words[k + len(answer.typed.split()):]
    tail = (" " + masked(" ".join(rest))) if rest else ""
    return (answer.written + tail, answer.prefix + masked(answer.typed) + tail)


@lru_cache(maxsize=64)
def _masked_reference(reference: str) -> str:
    return masked(reference)


# --------------------------------------------------------------------------------------------
# Effort


@dataclass(frozen=True)
class IpmtEffort:
    """Effort of the prefix steps of a run or log (Barrachina et al. 2009, section 5.1), over
    the `sentences` the expert accepted."""

    sentences: int
    steps: int
    reference_words: int
    reference_chars: int
    word_strokes: int
    keystrokes: int
    mouse_actions: int
    unit: str              # "word", "character" or "mixed"
    open_sentences: int = 0   # sentences with prefix steps but no acceptance (not counted)

    # the ratios in percent, as Barrachina et al. report them

    @property
    def wsr(self) -> float | None:
        """100 x words typed / reference words (word-level interaction only)."""
        if self.unit != WORD or not self.reference_words:
            return None
        return 100.0 * self.word_strokes / self.reference_words

    @property
    def ksr(self) -> float | None:
        """100 x characters typed / reference characters."""
        return 100.0 * self.keystrokes / self.reference_chars if self.reference_chars else None

    @property
    def mar(self) -> float | None:
        """100 x mouse actions / reference characters."""
        return 100.0 * self.mouse_actions / self.reference_chars if self.reference_chars else None

    @property
    def ksmr(self) -> float | None:
        """100 x (keystrokes + mouse actions) / reference characters."""
        if not self.reference_chars:
            return None
        return 100.0 * (self.keystrokes + self.mouse_actions) / self.reference_chars

    def to_json(self) -> dict:
        return {"wsr": self.wsr, "ksr": self.ksr, "mar": self.mar, "ksmr": self.ksmr,
                "unit": self.unit, "sentences": self.sentences,
                "open_sentences": self.open_sentences, "steps": self.steps,
                "word_strokes": self.word_strokes, "keystrokes": self.keystrokes,
                "mouse_actions": self.mouse_actions, "reference_words": self.reference_words,
                "reference_chars": self.reference_chars}


def _moved(prefix: str, written: str, unit: str) -> bool:
    """A pointer movement: the validated prefix reaches past what the expert had written so
    far in the sentence, counted in words at word level (the space before the next word is
    the completion's, not a position to point at), in characters at character level."""
    if unit == WORD:
        return len(prefix.split()) != len(written.split())
    return len(prefix) != len(written)


def ipmt_effort(steps: Iterable, references: Mapping[str, Sequence[str]]) -> IpmtEffort | None:
    """WSR, KSR, MAR and KSMR of the `prefix` steps among `steps` (log order); `references`
    maps a document id to its first reference's sentences. None when there is no prefix
    step. A sentence counts once the expert accepted it; its later steps (none, from the
    oracle) are ignored."""
    written: dict[tuple[str, int], str] = {}
    counts = {"words": 0, "keys": 0, "mouse": 0, "steps": 0}
    accepted: set[tuple[str, int]] = set()
    pending: dict[tuple[str, int], list[int]] = {}
    units: set[str] = set()
    ref_words = ref_chars = 0
    for step in steps:
        if step.kind != "prefix" or not isinstance(step.answer, PrefixAnswer):
            continue
        key = (step.doc, step.target.sentence)
        if key in accepted:
            continue
        answer = step.answer
        units.add(answer.unit)
        tally = pending.setdefault(key, [0, 0, 0, 0])   # words, keys, mouse, steps
        tally[3] += 1
        if answer.accept:
            tally[2] += 1    # the acceptance
            accepted.add(key)
            reference = references[step.doc][step.target.sentence - 1]
            ref_words += len(reference.split())
            ref_chars += len(reference)
            for name, value in zip(("words", "keys", "mouse", "steps"), pending.pop(key)):
                counts[name] += value
            continue
        if _moved(answer.prefix, written.get(key, ""), answer.unit):
            tally[2] += 1
        tally[0] += 1 if answer.unit == WORD else 0
        tally[1] += len(answer.typed)
        if answer.unit == WORD:   # the space after a typed word, where the reference goes on
            reference = references[step.doc][step.target.sentence - 1]
            tally[1] += len(answer.written.split()) < len(reference.split())
        written[key] = answer.written
    if not units:
        return None
    unit = units.pop() if len(units) == 1 else "mixed"
    return IpmtEffort(len(accepted), counts["steps"], ref_words, ref_chars, counts["words"],
                      counts["keys"], counts["mouse"], unit, len(pending))


def bundle_effort(bundle, steps: Iterable | None = None) -> IpmtEffort | None:
    """`ipmt_effort` of a bundle's log (or of `steps`) against its first references."""
    references = {d.id: d.references[0] for d in bundle.documents
                  if getattr(d, "references", None)}
    return ipmt_effort(bundle.steps if steps is None else steps, references)


IPMT_COLUMNS = (("wsr", "WSR"), ("ksr", "KSR"), ("mar", "MAR"), ("ksmr", "KSMR"))
"""The effort measures as reports show them: key in `IpmtEffort.to_json`, column title."""


def add_ipmt(report: dict, bundle) -> None:
    """A `score` report's IPMT effort, when the bundle's log has prefix steps: `ipmt` over
    the bundle and each document's `ipmt` (in place; keys added, none renamed)."""
    if bundle.task != "mt" or not any(s.kind == "prefix" for s in bundle.steps):
        return
    references = {d.id: d.references[0] for d in bundle.documents}
    for entry in report["documents"]:
        effort = ipmt_effort(bundle.steps_of(entry["id"]), references)
        if effort is not None:
            entry["ipmt"] = effort.to_json()
    total = ipmt_effort(bundle.steps, references)
    if total is not None:
        report["ipmt"] = total.to_json()
