"""Generate the llgui demo bundles: synthetic MT, diarization, lifelong scores, detection trials.

Everything here is invented (a small made-up language pair, fictional radio shows, simulated
detection scores), so the project ships no third-party text or audio annotation. The output is a
pure function of the seeds below: only `random.Random` with fixed seeds, integer milliseconds for
diarization times, fixed float formats, "\\n" line endings, UTF-8, and JSON written in a fixed key
order. Running the script twice gives the same bytes.

Usage::

    python resources/demo/make_demo.py [OUT_DIR]     # default: this script's folder

Layout written into OUT_DIR (one bundle per task):

- mt/bundle.toml: 4 documents of an invented language pair (Ulvi -> Darem), references, the
  system hypothesis, the source, an interaction log (`reference` and `post_edit` steps with
  adapted hypotheses), and a lifelong BLEU table (13 model versions x 13 test times);
- diarization/bundle.toml: 5 weekly news shows (10-20 min), a shared reference RTTM and UEM,
  per-show hypothesis RTTMs, a log of `same`/`boundary`/`name`/`segment` steps with adapted
  turn lists, and a lifelong DER table;
- detection/bundle.toml: 3 systems x 25,000 trials with a NIST/Kaldi style key;
- detection-lifelong/bundle.toml: 2 systems x 1,200 trials and a log of `label` steps: one
  system adapts to the labels (per-speaker calibration) and generalises, one ignores them.

The meeting with audio (meeting/) has a generator of its own, meeting/make_meeting.py (it needs
espeak-ng); this script leaves that folder alone.

What each document demonstrates (tests/test_demo.py checks the MT claims with sacrebleu):

- MT `news-2023-01-09`: the system generalises strongly (learns word order and lexicon from each
  correction): penalised BLEU ends above its base BLEU;
- MT `news-2023-02-06`: the system ignores corrections (no adapted hypothesis, or only the
  corrected sentence memorised): penalised BLEU ends below its base BLEU;
- MT `news-2023-03-06` learns lexicon entries only (post-edit synonyms make some sentences worse),
  `news-2023-04-03` learns word-order rules only;
- diarization `show-2023-03-06` and `show-2023-03-27` generalise (a `same` answer merges a split
  speaker everywhere, a `boundary` answer corrects a systematic boundary delay, a `segment`
  answer removes every music false alarm), `show-2023-03-13` ignores all feedback, the others
  only fix what they were shown.
"""
from __future__ import annotations

import json
import math
import random
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

SEED = 20240617
"""Master seed; every part derives its own `random.Random` from it with a fixed string."""


def _rng(part: str) -> random.Random:
    # A str seed goes through SHA-512 in random.seed (version 2): stable across runs and
    # platforms, unlike hash().
    return random.Random(f"llgui-demo:{SEED}:{part}")


# ============================================================================================
# Output helpers


class Files:
    """The generated files, as relative POSIX path -> text, written in one go at the end."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}

    def add(self, path: str, text: str) -> None:
        if path in self.texts:
            raise ValueError(f"generated twice: {path}")
        self.texts[path] = text

    def add_lines(self, path: str, lines: Iterable[str]) -> None:
        self.add(path, "".join(line + "\n" for line in lines))

    def write(self, out: Path) -> list[Path]:
        written = []
        for rel in sorted(self.texts):
            target = out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.texts[rel].encode("utf-8"))
            written.append(target)
        return written


def _json(obj: object) -> str:
    """One JSON line: keys in the order the dicts were built, no ASCII escaping of text."""
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


def _toml_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a TOML basic string for the texts we write


def _toml_list(items: Iterable[str]) -> str:
    return "[" + ", ".join(_toml_str(i) for i in items) + "]"


def _seconds(ms: int) -> float:
    """Milliseconds as seconds for JSON (exact decimal: ms / 1000 has a short repr)."""
    return ms / 1000


def _fmt_ms(ms: int, decimals: int = 3) -> str:
    """Milliseconds as seconds text with 2 or 3 decimals, without float rounding."""
    if ms < 0:
        raise ValueError(ms)
    text = f"{ms // 1000}.{ms % 1000:03d}"
    if decimals == 2:
        if ms % 10:
            raise ValueError(f"{ms} ms does not fit 2 decimals")
        text = text[:-1]
    return text


def _add_months(year: int, month: int, k: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + k
    return index // 12, index % 12 + 1


COST_DEFAULTS = """[cost]                           # the cost model, defaults written out
window = 3.0                     # seconds listened around a same/name point, around a boundary turn
reference_weight = 1.0           # per reference word (MT `reference`)
post_edit_weight = 1.0           # per word edit (MT `post_edit`)
listen_weight = 1.0              # per second listened (diarization)
use_log_cost = true              # a cost stated in the log wins over the model
"""


# ============================================================================================
# MT: an invented language pair
#
# Ulvi (source) is verb-final with post-nominal adjectives and determiners, postpositions, a
# question particle and reason clauses first. Darem (target) is SVO with determiner-adjective-
# noun order, prepositions, a fronted question word and a comma after a fronted time word.


@dataclass(frozen=True)
class Entry:
    """One lexicon entry: a stable key (category:number), the two word forms."""

    key: str
    cat: str
    src: str
    tgt: str


LEX_SIZES = (
    ("noun", 90, 2, 3), ("verb", 45, 2, 3), ("adj", 40, 2, 3), ("adv", 12, 2, 3),
    ("time", 8, 2, 3), ("prep", 6, 1, 1), ("pron", 6, 1, 1),
)
"""(category, entries, min syllables, max syllables) of the generated lexicon."""

SRC_ONSETS = "b d g k l m n p r s t v z".split()
SRC_VOWELS = "a e i o u".split()
SRC_CODAS = ["", "", "", "n", "l"]
TGT_ONSETS = "b br d dr f g gr h j k kr m n p pl r s sk st t tr v w".split()
TGT_VOWELS = "a e i o u y ei ou".split()
TGT_CODAS = ["", "", "n", "r", "s", "k", "t", "m"]


def _word(rng: random.Random, onsets, vowels, codas, n_syll: int) -> str:
    parts = [rng.choice(onsets) + rng.choice(vowels) for _ in range(n_syll)]
    return "".join(parts) + rng.choice(codas)


@dataclass
class Lexicon:
    entries: dict[str, Entry]
    by_cat: dict[str, list[str]]
    synonyms: dict[str, str]
    """key -> a second target word a post-editor may prefer (not the reference's choice)."""


def make_lexicon() -> Lexicon:
    rng = _rng("lexicon")
    used: set[str] = set()

    def fresh(onsets, vowels, codas, lo, hi) -> str:
        while True:
            w = _word(rng, onsets, vowels, codas, rng.randint(lo, hi))
            if w not in used and len(w) >= 2:
                used.add(w)
                return w

    entries: dict[str, Entry] = {}
    by_cat: dict[str, list[str]] = {}

    def add(cat: str, src: str, tgt: str) -> None:
        key = f"{cat}:{len(by_cat.setdefault(cat, [])):02d}"
        entries[key] = Entry(key, cat, src, tgt)
        by_cat[cat].append(key)

    # Function words: fixed, short, easy to read in the demo.
    for cat, pairs in (
        ("det", [("na", "ot"), ("ki", "ym")]),             # definite, indefinite
        ("conj", [("ve", "ond"), ("su", "bat")]),          # and, but
        ("because", [("tesa", "forr")]),
        ("q", [("ko", "hwe")]),                            # question particle -> question word
    ):
        for src, tgt in pairs:
            used.update((src, tgt))
            add(cat, src, tgt)
    for cat, n, lo, hi in LEX_SIZES:
        for _ in range(n):
            add(cat, fresh(SRC_ONSETS, SRC_VOWELS, SRC_CODAS, lo, hi),
                fresh(TGT_ONSETS, TGT_VOWELS, TGT_CODAS, lo, hi))
    for _ in range(10):  # names are the same in both languages
        name = fresh(TGT_ONSETS, SRC_VOWELS, ["", "n", "l", "r"], 2, 3).capitalize()
        add("name", name, name)
    synonyms: dict[str, str] = {}
    for cat in ("noun", "verb", "adj"):
        for key in by_cat[cat]:
            if rng.random() < 0.3:
                synonyms[key] = fresh(TGT_ONSETS, TGT_VOWELS, TGT_CODAS, 2, 3)
    return Lexicon(entries, by_cat, synonyms)


NP = tuple  # ("np", noun, adj | None, det) | ("name", key) | ("pron", key)


@dataclass(frozen=True)
class Clause:
    subj: NP
    verb: str
    obj: NP | None = None
    pp: tuple[str, NP] | None = None
    adv: str | None = None
    time: str | None = None


@dataclass(frozen=True)
class Sentence:
    """A sentence's structure; `drops` are the words this system happens to lose here."""

    kind: str  # simple | coord | because | question
    clauses: tuple[Clause, ...]
    conj: str | None = None
    drops: tuple[str, ...] = ()

    def keys(self) -> list[str]:
        """Every lexicon key used, in a fixed order (duplicates kept)."""
        out: list[str] = []

        def np_keys(np: NP) -> None:
            if np[0] == "np":
                out.extend(k for k in np[1:] if k)
            else:
                out.append(np[1])

        for c in self.clauses:
            if c.time:
                out.append(c.time)
            np_keys(c.subj)
            out.append(c.verb)
            if c.obj:
                np_keys(c.obj)
            if c.pp:
                out.append(c.pp[0])
                np_keys(c.pp[1])
            if c.adv:
                out.append(c.adv)
        if self.conj:
            out.append(self.conj)
        return out

    def has_adj(self) -> bool:
        nps = [np for c in self.clauses for np in (c.subj, c.obj, c.pp[1] if c.pp else None)]
        return any(np and np[0] == "np" and np[2] for np in nps)

    def has_time(self) -> bool:
        return any(c.time for c in self.clauses)


@dataclass(frozen=True)
class Rules:
    """Darem word-order and punctuation rules; the correct grammar has them all True."""

    adj_first: bool = True   # determiner adjective noun (Ulvi: noun adjective determiner)
    sub_svo: bool = True     # SVO inside a reason clause (Ulvi: verb-final)
    time_comma: bool = True  # comma after a fronted time word (Ulvi: none)


CORRECT_RULES = Rules()


def _detok(tokens: list[str]) -> str:
    out: list[str] = []
    for tok in tokens:
        if tok in (",", ".", "?") and out:
            out[-1] += tok
        else:
            out.append(tok)
    if out:
        out[0] = out[0][:1].upper() + out[0][1:]
    return " ".join(out)


def render_target(sent: Sentence, tr: Callable[[str], str], rules: Rules,
                  drops: tuple[str, ...] = ()) -> list[str]:
    """Darem tokens (punctuation separate) of `sent`, words given by `tr(key)`."""

    def np_(np: NP, role: str) -> list[str]:
        if np[0] != "np":
            return [tr(np[1])]
        _, noun, adj, det = np
        out = [] if (role == "obj" and "obj_det" in drops) else [tr(det)]
        if adj:
            out += [tr(adj), tr(noun)] if rules.adj_first else [tr(noun), tr(adj)]
        else:
            out.append(tr(noun))
        return out

    def clause(c: Clause, sub: bool = False) -> list[str]:
        out: list[str] = []
        if c.time:
            out.append(tr(c.time))
            if rules.time_comma:
                out.append(",")
        subj, verb = np_(c.subj, "subj"), [tr(c.verb)]
        obj = np_(c.obj, "obj") if c.obj else []
        pp = [tr(c.pp[0])] + np_(c.pp[1], "pp") if c.pp else []
        adv = [tr(c.adv)] if c.adv and "adv" not in drops else []
        if sub and not rules.sub_svo:
            return out + subj + obj + pp + adv + verb
        return out + subj + verb + obj + pp + adv

    first = sent.clauses[0]
    if sent.kind == "simple":
        return clause(first) + ["."]
    if sent.kind == "question":
        return [tr("q:00")] + clause(first) + ["?"]
    if sent.kind == "coord":
        return clause(first) + [",", tr(sent.conj)] + clause(sent.clauses[1]) + ["."]
    # because: main clause, then the reason
    return clause(first) + [tr("because:00")] + clause(sent.clauses[1], sub=True) + ["."]


def render_source(sent: Sentence, lex: Lexicon) -> list[str]:
    """Ulvi tokens of `sent` (always correct: the source is what the author wrote)."""
    src = lambda k: lex.entries[k].src  # noqa: E731

    def np_(np: NP) -> list[str]:
        if np[0] != "np":
            return [src(np[1])]
        _, noun, adj, det = np
        return [src(noun)] + ([src(adj)] if adj else []) + [src(det)]

    def clause(c: Clause) -> list[str]:
        out = [src(c.time)] if c.time else []
        out += np_(c.subj)
        if c.obj:
            out += np_(c.obj)
        if c.pp:
            out += np_(c.pp[1]) + [src(c.pp[0])]
        if c.adv:
            out.append(src(c.adv))
        return out + [src(c.verb)]

    first = sent.clauses[0]
    if sent.kind == "simple":
        return clause(first) + ["."]
    if sent.kind == "question":
        return clause(first) + [src("q:00"), "?"]
    if sent.kind == "coord":
        return clause(first) + [",", src(sent.conj)] + clause(sent.clauses[1]) + ["."]
    return clause(sent.clauses[1]) + [src("because:00"), ","] + clause(first) + ["."]


class Picker:
    """Samples lexicon keys with a document-specific Zipf law, so words recur in a document."""

    def __init__(self, lex: Lexicon, rng: random.Random):
        self.rng = rng
        self.tables: dict[str, tuple[list[str], list[float]]] = {}
        for cat, keys in lex.by_cat.items():
            order = list(keys)
            rng.shuffle(order)
            self.tables[cat] = (order, [1.0 / (rank + 1) ** 1.1 for rank in range(len(order))])

    def __call__(self, cat: str) -> str:
        keys, weights = self.tables[cat]
        return self.rng.choices(keys, weights)[0]


def _gen_np(rng: random.Random, pick: Picker, role: str) -> NP:
    r = rng.random()
    if role == "subj" and r < 0.2:
        return ("pron", pick("pron"))
    if r < 0.35 and role != "pp":
        return ("name", pick("name"))
    adj = pick("adj") if rng.random() < 0.4 else None
    det = "det:00" if rng.random() < 0.65 else "det:01"
    return ("np", pick("noun"), adj, det)


def _gen_clause(rng: random.Random, pick: Picker, main: bool) -> Clause:
    return Clause(
        subj=_gen_np(rng, pick, "subj"),
        verb=pick("verb"),
        obj=_gen_np(rng, pick, "obj") if rng.random() < 0.75 else None,
        pp=(pick("prep"), _gen_np(rng, pick, "pp")) if rng.random() < 0.4 else None,
        adv=pick("adv") if rng.random() < 0.3 else None,
        time=pick("time") if main and rng.random() < 0.25 else None,
    )


def gen_sentence(rng: random.Random, pick: Picker) -> Sentence:
    """One sentence of 8-25 Darem tokens (punctuation included)."""
    while True:
        r = rng.random()
        kind = "simple" if r < 0.45 else "coord" if r < 0.7 else "because" if r < 0.85 else "question"
        clauses = [_gen_clause(rng, pick, main=True)]
        conj = None
        if kind in ("coord", "because"):
            clauses.append(_gen_clause(rng, pick, main=kind == "coord"))
        if kind == "coord":
            conj = "conj:00" if rng.random() < 0.7 else "conj:01"
        sent = Sentence(kind, tuple(clauses), conj)
        n = len(render_target(sent, lambda k: "w", CORRECT_RULES))
        if 8 <= n <= 25:
            return sent


@dataclass
class MTModel:
    """The demo's translation system: a lexicon, word-order rules and a translation memory."""

    lex: dict[str, str | None]          # key -> target word, None = unknown (source copied)
    rules: Rules
    memory: dict[int, str] = field(default_factory=dict)  # segment index -> corrected text

    def copy(self) -> "MTModel":
        return MTModel(dict(self.lex), self.rules, dict(self.memory))

    def translate(self, index: int, sent: Sentence, lexicon: Lexicon) -> str:
        if index in self.memory:
            return self.memory[index]

        def tr(key: str) -> str:
            word = self.lex[key]
            return lexicon.entries[key].src if word is None else word

        return _detok(render_target(sent, tr, self.rules, sent.drops))


def make_base_model(lex: Lexicon) -> MTModel:
    """The system before any correction: wrong and unknown lexicon entries, Ulvi word order."""
    rng = _rng("mt-model")
    table: dict[str, str | None] = {}
    for key, entry in lex.entries.items():
        table[key] = entry.tgt
        if entry.cat in ("noun", "verb", "adj", "adv"):
            r = rng.random()
            if r < 0.14:
                others = [k for k in lex.by_cat[entry.cat] if k != key]
                table[key] = lex.entries[rng.choice(others)].tgt
            elif r < 0.23:
                table[key] = None
    table["det:01"] = lex.entries["det:00"].tgt     # "a" translated as "the"
    table["conj:01"] = lex.entries["conj:00"].tgt   # "but" translated as "and"
    table[lex.by_cat["prep"][2]] = lex.entries[lex.by_cat["prep"][4]].tgt
    for key in lex.by_cat["time"][:2]:
        table[key] = None
    return MTModel(table, Rules(adj_first=False, sub_svo=False, time_comma=False))


@dataclass(frozen=True)
class MTDocSpec:
    id: str
    time: str
    n_sentences: int
    n_steps: int
    mode: str          # strong | none | lexical | rules
    path_steps: tuple[int, ...]  # steps whose adapted hypothesis is written as a full file


MT_DOCS = (
    MTDocSpec("news-2023-01-09", "2023-01-09T08:00:00", 80, 10, "strong", (4,)),
    MTDocSpec("news-2023-02-06", "2023-02-06T08:00:00", 75, 11, "none", ()),
    MTDocSpec("news-2023-03-06", "2023-03-06T08:00:00", 64, 14, "lexical", (6, 11)),
    MTDocSpec("news-2023-04-03", "2023-04-03T08:30:00", 58, 11, "rules", (9,)),
)


def _edit_distance(a: list[str], b: list[str]) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def _unknown_count(model: MTModel, sent: Sentence) -> int:
    return sum(1 for k in sent.keys() if model.lex[k] is None)


def make_mt(files: Files) -> None:
    lex = make_lexicon()
    base = make_base_model(lex)
    log_lines: list[str] = []
    doc_blocks: list[str] = []
    for spec in MT_DOCS:
        rng = _rng(f"mt-doc:{spec.id}")
        pick = Picker(lex, rng)
        sents: list[Sentence] = []
        for i in range(spec.n_sentences):
            s = gen_sentence(rng, pick)
            drop_rng = _rng(f"mt-drop:{spec.id}:{i}")
            drops = []
            if any(c.adv for c in s.clauses) and drop_rng.random() < 0.35:
                drops.append("adv")
            if drop_rng.random() < 0.12:
                drops.append("obj_det")
            sents.append(Sentence(s.kind, s.clauses, s.conj, tuple(drops)))
        correct = lambda k: lex.entries[k].tgt  # noqa: E731
        refs = [_detok(render_target(s, correct, CORRECT_RULES)) for s in sents]
        srcs = [_detok(render_source(s, lex)) for s in sents]
        model = base.copy()
        hyp = [model.translate(i, s, lex) for i, s in enumerate(sents)]
        stem = spec.id
        files.add_lines(f"mt/ref/{stem}.drm", refs)
        files.add_lines(f"mt/src/{stem}.ulv", srcs)
        files.add_lines(f"mt/hyp/{stem}.drm", hyp)
        doc_blocks.append(
            "[[documents]]\n"
            f"id = {_toml_str(spec.id)}\n"
            f"time = {_toml_str(spec.time)}\n"
            f"references = {_toml_list([f'ref/{stem}.drm'])}\n"
            f"hypothesis = {_toml_str(f'hyp/{stem}.drm')}\n"
            f"source = {_toml_str(f'src/{stem}.ulv')}\n"
        )
        log_lines += _mt_steps(spec, rng, lex, sents, refs, model, hyp, files)

    files.add_lines("mt/logs/system.jsonl", log_lines)
    files.add(
        "mt/bundle.toml",
        "# llgui demo: synthetic MT (Ulvi -> Darem). Generated by ../make_demo.py; do not edit.\n"
        "[bundle]\n"
        'task = "mt"\n'
        'name = "Demo: lifelong MT, Ulvi to Darem (synthetic)"\n'
        'metrics = ["bleu", "chrf", "ter"]\n\n'
        + COST_DEFAULTS + "\n"
        + "\n".join(doc_blocks) + "\n"
        "[interactions]\n"
        'log = "logs/system.jsonl"\n\n'
        "[lifelong]\n"
        'scores = "lifelong/system.csv"\n'
    )
    files.add_lines("mt/lifelong/system.csv", lifelong_rows("bleu", higher_is_better=True))


def _mt_steps(spec: MTDocSpec, rng: random.Random, lex: Lexicon, sents: list[Sentence],
              refs: list[str], model: MTModel, hyp: list[str], files: Files) -> list[str]:
    """Simulate the human and the adapting system on one document; return the log lines."""
    lines: list[str] = []
    corrected: set[int] = set()
    for step in range(1, spec.n_steps + 1):
        initiative = "active" if rng.random() < 0.5 else "interactive"
        kind = "post_edit" if rng.random() < 0.4 else "reference"
        wrong = [i for i in range(len(sents)) if hyp[i] != refs[i] and i not in corrected]
        if initiative == "active":
            # The system asks about the sentence it knows least (most unknown words).
            index = max(wrong, key=lambda i: (_unknown_count(model, sents[i]), -i))
        else:
            index = rng.choice(wrong)
        corrected.add(index)
        sent = sents[index]
        overrides: dict[str, str] = {}
        if kind == "post_edit":
            # The post-editor fixes the hypothesis but sometimes prefers a synonym to the
            # reference's word: close to the reference, not always identical.
            candidates = [k for k in dict.fromkeys(sent.keys()) if k in lex.synonyms]
            if candidates and rng.random() < 0.85:
                key = rng.choice(candidates)
                overrides[key] = lex.synonyms[key]
            answer = _detok(render_target(
                sent, lambda k: overrides.get(k, lex.entries[k].tgt), CORRECT_RULES))
        else:
            answer = refs[index]

        cost = None
        if rng.random() < 0.5:
            cost = float(len(answer.split()) if kind == "reference"
                         else _edit_distance(hyp[index].split(), answer.split()))

        learns = spec.mode != "none" or step in (3, 7)
        if learns:
            model.memory[index] = answer
        if spec.mode in ("strong", "lexical"):
            for key in sent.keys():
                model.lex[key] = overrides.get(key, lex.entries[key].tgt)
        if spec.mode in ("strong", "rules"):
            # One word-order rule per correction at most (the first one the sentence shows
            # that the system lacks), so the learning curve climbs in visible steps.
            shown = {"adj_first": sent.has_adj(), "time_comma": sent.has_time(),
                     "sub_svo": sent.kind == "because"}
            for rule in ("adj_first", "time_comma", "sub_svo"):
                if shown[rule] and not getattr(model.rules, rule):
                    model.rules = replace(model.rules, **{rule: True})
                    break
        new = [model.translate(i, s, lex) for i, s in enumerate(sents)]
        changed = [i for i in range(len(sents)) if new[i] != hyp[i]]

        record: dict[str, object] = {
            "doc": spec.id, "step": step, "initiative": initiative, "kind": kind,
            "target": {"sentence": index + 1},
        }
        if kind == "post_edit":
            record["answer"] = answer
        if cost is not None:
            record["cost"] = cost
        if changed:
            if step in spec.path_steps:
                rel = f"adapted/{spec.id}-step{step}.drm"
                files.add_lines(f"mt/logs/{rel}", new)
                record["adapted"] = {"path": rel}
            else:
                record["adapted"] = {"lines": {str(i + 1): new[i] for i in changed}}
        lines.append(_json(record))
        hyp = new
    return lines


# ============================================================================================
# Lifelong score tables


LIFELONG_START = (2023, 1)
N_VERSIONS = 13


def lifelong_rows(metric: str, higher_is_better: bool) -> list[str]:
    """Long-format CSV lines: 13 monthly model versions x 13 monthly tests over the same year.

    Model M_i and test j share the date of month i = j (the 1st): M_i has processed the data of
    its own month, and every test time falls inside some window [l_1, l_i] of the policy.

    s(M_i, t_j) is high near the diagonal (recent data), decays for tests far in the past
    (forgetting), is lower on future tests (drift), and improves slowly with i (trend).
    BLEU in points; DER in percent (lower is better, so the shape is mirrored).
    """
    rng = _rng(f"lifelong:{metric}")
    difficulty = [rng.uniform(-2.0, 2.0) for _ in range(N_VERSIONS)]
    rows = ["model,model_time,test,test_time,metric,value,value_pen"]
    for i in range(N_VERSIONS):
        y, m = _add_months(*LIFELONG_START, i)
        model, model_time = f"M{i:02d}", f"{y:04d}-{m:02d}-01"
        for j in range(N_VERSIONS):
            ty, tm = _add_months(*LIFELONG_START, j)
            test, test_time = f"news-{ty:04d}-{tm:02d}", f"{ty:04d}-{tm:02d}-01"
            if j <= i:
                age = i - j
                quality = 7.0 * math.exp(-age / 1.5) - 0.55 * age
            else:
                quality = -1.2 * (j - i) - 1.0
            quality += 0.45 * i + difficulty[j] + rng.gauss(0.0, 0.35)
            penalty = rng.uniform(0.5, 1.8)
            if higher_is_better:
                value = 30.0 + quality
                value_pen = value - penalty
            else:
                value = max(4.0, 24.0 - 0.8 * quality)
                value_pen = value + 0.8 * penalty
            rows.append(f"{model},{model_time},{test},{test_time},{metric},"
                        f"{value:.2f},{value_pen:.2f}")
    return rows


# ============================================================================================
# Diarization: fictional weekly radio news shows


@dataclass(frozen=True)
class ShowSpec:
    id: str
    uri: str
    minutes: float
    anchors: tuple[str, ...]
    reporters: tuple[str, ...]
    guests: tuple[str, ...]
    mode: str  # strong | ignore | partial


SHOWS = (
    ShowSpec("show-2023-03-06", "NEWS_20230306", 14.0, ("Anna_Keller", "Bruno_Diaz"),
             ("Dev_Patel",), ("Elif_Sahin", "Farid_Benali"), "strong"),
    ShowSpec("show-2023-03-13", "NEWS_20230313", 12.0, ("Anna_Keller", "Bruno_Diaz"),
             ("Chloe_Martin",), ("Greta_Lind", "Hugo_Moreau", "Ines_Duarte"), "ignore"),
    ShowSpec("show-2023-03-20", "NEWS_20230320", 16.5, ("Anna_Keller",),
             ("Chloe_Martin",), ("Jonas_Weber", "Kiri_Tane", "Lena_Novak", "Marco_Rossi"),
             "partial"),
    ShowSpec("show-2023-03-27", "NEWS_20230327", 11.0, ("Anna_Keller", "Bruno_Diaz"),
             ("Dev_Patel",), ("Nadia_Haddad",), "strong"),
    ShowSpec("show-2023-04-03", "NEWS_20230403", 18.5, ("Anna_Keller", "Bruno_Diaz"),
             ("Chloe_Martin", "Dev_Patel"), ("Oskar_Berg", "Priya_Nair", "Rosa_Blanco"),
             "partial"),
)

SYS_START_DELAY = 350   # ms: the system's turns start late ...
SYS_END_DELAY = 500     # ms: ... and end late (a systematic boundary bias to learn)


@dataclass(frozen=True)
class RefTurn:
    start: int  # ms
    end: int
    speaker: str
    backchannel: bool = False


def _ms(rng: random.Random, lo: float, hi: float) -> int:
    """A random duration in [lo, hi] seconds, as milliseconds on a 10 ms grid."""
    return rng.randint(round(lo * 100), round(hi * 100)) * 10


def build_show(spec: ShowSpec) -> tuple[list[RefTurn], int, int]:
    """Reference turns of one show (ms), the UEM end (ms) and the ad-break time (ms)."""
    rng = _rng(f"show:{spec.id}")
    turns: list[RefTurn] = []
    t = _ms(rng, 1.5, 4.0)  # opening jingle
    target = round(spec.minutes * 60_000)
    lead = spec.anchors[0]

    def speak(spk: str, lo: float, hi: float, other: str | None = None,
              overlap_p: float = 0.18) -> None:
        nonlocal t
        dur = _ms(rng, max(1.0, lo), min(30.0, hi))
        start, end = t, t + dur
        turns.append(RefTurn(start, end, spk))
        if other and dur > 8000 and rng.random() < 0.3:  # a short "mm-hm" inside a long turn
            b_start = start + _ms(rng, 2.0, dur / 1000 - 2.5)
            turns.append(RefTurn(b_start, b_start + _ms(rng, 0.5, 1.2), other, True))
        r = rng.random()
        if r < overlap_p:
            t = max(start + 500, end - _ms(rng, 0.3, 1.5))
        elif r < 0.93:
            t = end + _ms(rng, 0.1, 1.2)
        else:
            t = end + _ms(rng, 1.5, 2.5)

    def jingle() -> None:
        nonlocal t
        t += _ms(rng, 4.0, 7.0)

    speak(lead, 10, 22)
    for co in spec.anchors[1:]:
        speak(co, 5, 12, lead)
    guests = list(spec.guests)
    reporters = list(spec.reporters)
    ad_break = 0
    block = 0
    pending = list(guests)  # every guest gets an interview of their own
    while t < target - 45_000:
        if ad_break == 0 and t > 0.5 * target:
            jingle()
            ad_break = t
            speak(lead, 4, 9)
        anchor = spec.anchors[block % len(spec.anchors)] if rng.random() < 0.5 else lead
        choice = block % 3
        block += 1
        if choice == 0 and reporters:
            rep = reporters[block % len(reporters)]
            speak(anchor, 4, 10)
            for _ in range(rng.randint(2, 4)):
                speak(rep, 12, 30, anchor, overlap_p=0.05)
        elif choice == 1 and len(guests) >= 2 and not pending and rng.random() < 0.6:
            g1, g2 = rng.sample(guests, 2)
            speak(anchor, 4, 12)
            for _ in range(rng.randint(8, 14)):
                who = rng.choice((g1, g2, g1, g2, anchor))
                speak(who, 2, 20, anchor if who != anchor else g1, overlap_p=0.3)
        else:
            guest = pending.pop(0) if pending else rng.choice(guests)
            for _ in range(rng.randint(5, 9)):
                speak(anchor, 3, 12, guest)
                speak(guest, 5, 28, anchor)
        if rng.random() < 0.3:
            jingle()
    speak(lead, 8, 15)
    if not ad_break or pending:
        raise AssertionError(f"{spec.id}: no ad break, or guests {pending} never spoke")
    end = max(tr.end for tr in turns) + _ms(rng, 1.5, 3.0)
    return sorted(turns, key=lambda tr: (tr.start, tr.end, tr.speaker)), end, ad_break


@dataclass(frozen=True)
class ShowNoise:
    """What the system gets wrong in a show, fixed once so adaptation changes only its cause."""

    jitter: tuple[tuple[int, int], ...]   # per reference turn: (start, end) noise in ms
    missed: tuple[bool, ...]              # per reference turn
    music: tuple[tuple[int, int], ...]    # false-alarm spans (ms) inside long silences
    split: str                            # speaker split in two clusters after the ad break
    merged: tuple[str, str]               # two speakers given one cluster


@dataclass
class DiarState:
    """The adapting system's knowledge about one show."""

    start_delay: int = SYS_START_DELAY
    end_delay: int = SYS_END_DELAY
    split_fixed: bool = False
    merge_fixed: bool = False
    music_fixed: bool = False
    music_removed: tuple[int, ...] = ()        # indices of single music spans removed
    exact: tuple[int, ...] = ()                # reference turns whose boundaries were given
    names: tuple[tuple[str, str], ...] = ()    # (cluster, name) renamings


def _speech_gaps(turns: list[RefTurn], end: int) -> list[tuple[int, int]]:
    gaps, cursor = [], 0
    for tr in sorted(turns, key=lambda x: x.start):
        if tr.start > cursor:
            gaps.append((cursor, tr.start))
        cursor = max(cursor, tr.end)
    if end > cursor:
        gaps.append((cursor, end))
    return gaps


def make_noise(spec: ShowSpec, turns: list[RefTurn], end: int) -> ShowNoise:
    rng = _rng(f"show-noise:{spec.id}")
    jitter = tuple((rng.randint(-15, 15) * 10, rng.randint(-15, 15) * 10) for _ in turns)
    missed = tuple(tr.end - tr.start < 1500 and rng.random() < 0.6 for tr in turns)
    music = tuple((a + 300, b - 300) for a, b in _speech_gaps(turns, end)
                  if b - a >= 3000 and rng.random() < 0.75)
    return ShowNoise(jitter, missed, music, split=spec.anchors[0],
                     merged=(spec.guests[0], spec.reporters[0]))


def _clusters(turns: list[RefTurn], noise: ShowNoise) -> dict[str, str]:
    order = list(dict.fromkeys(tr.speaker for tr in turns))
    labels = {spk: f"S{n + 1:02d}" for n, spk in enumerate(order)}
    labels["<split>"] = f"S{len(order) + 1:02d}"
    return labels


def render_hypothesis(turns: list[RefTurn], ad_break: int, noise: ShowNoise,
                      state: DiarState) -> list[tuple[int, int, str]]:
    """The system's turns (ms, non-overlapping, sorted) for its current state."""
    labels = _clusters(turns, noise)
    rename = dict(state.names)
    raw: list[tuple[int, int, str]] = []
    for n, tr in enumerate(turns):
        if noise.missed[n] and n not in state.exact:
            continue
        spk = tr.speaker
        if spk == noise.merged[1] and not state.merge_fixed:
            spk = noise.merged[0]
        label = labels[spk]
        if tr.speaker == noise.split and tr.start >= ad_break and not state.split_fixed:
            label = labels["<split>"]
        if n in state.exact:
            start, end = tr.start, tr.end
        else:
            js, je = noise.jitter[n]
            start = max(0, tr.start + state.start_delay + js)
            end = tr.end + state.end_delay + je
        raw.append((start, end, label))
    for k, (a, b) in enumerate(noise.music):
        if state.music_fixed or k in state.music_removed:
            continue
        before = [h for h in raw if h[1] <= a + 1000]
        raw.append((a, b, before[-1][2] if before else labels[noise.split]))
    raw.sort()
    flat: list[list] = []
    for start, end, label in raw:  # one speaker at a time: a later turn cuts an earlier one
        if flat and start < flat[-1][1]:
            flat[-1][1] = start
            if flat[-1][1] - flat[-1][0] < 200:
                flat.pop()
        if flat and flat[-1][2] == label and start - flat[-1][1] < 250:
            flat[-1][1] = max(flat[-1][1], end)
            continue
        flat.append([start, end, label])
    return [(a, b, rename.get(lab, lab)) for a, b, lab in flat if b - a >= 200]


def _mid(tr: RefTurn) -> int:
    return (tr.start + tr.end) // 20 * 10


def _alone(turns: list[RefTurn], n: int) -> bool:
    """Reference turn n is at least 3 s long and nobody else speaks at its middle."""
    tr = turns[n]
    t = _mid(tr)
    return tr.end - tr.start >= 3000 and not any(
        o.start <= t < o.end for k, o in enumerate(turns) if k != n)


def _label_at(hyp: list[tuple[int, int, str]], t: int) -> str | None:
    for a, b, lab in hyp:
        if a <= t < b:
            return lab
    return None


def make_diarization(files: Files) -> None:
    ref_lines: list[str] = []
    uem_lines: list[str] = []
    log_lines: list[str] = []
    doc_blocks: list[str] = []
    previous: tuple[ShowSpec, list[RefTurn]] | None = None
    for spec in SHOWS:
        turns, end, ad_break = build_show(spec)
        minutes = end / 60_000
        if not 10.0 <= minutes <= 20.0:
            raise AssertionError(f"{spec.id}: {minutes:.1f} min")
        noise = make_noise(spec, turns, end)
        for tr in turns:
            ref_lines.append(f"SPEAKER {spec.uri} 1 {_fmt_ms(tr.start, 2)} "
                             f"{_fmt_ms(tr.end - tr.start, 2)} <NA> <NA> {tr.speaker} <NA> <NA>")
        uem_lines.append(f"{spec.uri} 1 {_fmt_ms(0)} {_fmt_ms(end)}")
        state = DiarState()
        hyp = render_hypothesis(turns, ad_break, noise, state)
        files.add_lines(f"diarization/hyp/{spec.uri}.rttm", _rttm(spec.uri, hyp))
        doc_blocks.append(
            "[[documents]]\n"
            f"id = {_toml_str(spec.id)}\n"
            f"time = {_toml_str(spec.id[5:])}\n"
            f"uri = {_toml_str(spec.uri)}\n"
            'references = ["ref/shows.rttm"]\n'
            f"hypothesis = {_toml_str(f'hyp/{spec.uri}.rttm')}\n"
            'uem = "uem/shows.uem"\n'
        )
        log_lines += _diar_steps(spec, turns, ad_break, noise, hyp, previous)
        previous = (spec, turns)

    files.add_lines("diarization/ref/shows.rttm", ref_lines)
    files.add_lines("diarization/uem/shows.uem", uem_lines)
    files.add_lines("diarization/logs/system.jsonl", log_lines)
    files.add_lines("diarization/lifelong/system.csv", lifelong_rows("der", higher_is_better=False))
    files.add(
        "diarization/bundle.toml",
        "# llgui demo: synthetic radio news diarization. Generated by ../make_demo.py; do not edit.\n"
        "[bundle]\n"
        'task = "diarization"\n'
        'name = "Demo: lifelong diarization of weekly news shows (synthetic)"\n'
        'metrics = ["der", "jer"]\n\n'
        "[settings]\n"
        "collar = 0.0\n"
        "skip_overlap = false\n\n"
        + COST_DEFAULTS + "\n"
        + "\n".join(doc_blocks) + "\n"
        "[interactions]\n"
        'log = "logs/system.jsonl"\n\n'
        "[lifelong]\n"
        'scores = "lifelong/system.csv"\n'
    )


def _rttm(uri: str, hyp: list[tuple[int, int, str]]) -> list[str]:
    return [f"SPEAKER {uri} 1 {_fmt_ms(a)} {_fmt_ms(b - a)} <NA> <NA> {lab} <NA> <NA>"
            for a, b, lab in hyp]


def _diar_steps(spec: ShowSpec, turns: list[RefTurn], ad_break: int, noise: ShowNoise,
                hyp: list[tuple[int, int, str]],
                previous: tuple[ShowSpec, list[RefTurn]] | None) -> list[str]:
    """Simulate the human's answers and the system's reactions on one show; log lines."""
    rng = _rng(f"show-steps:{spec.id}")
    alone = [n for n in range(len(turns)) if _alone(turns, n) and not noise.missed[n]]

    def turn_of(speaker: str, after: int = 0, before: int = 10**12) -> int:
        cands = [n for n in alone if turns[n].speaker == speaker
                 and after <= turns[n].start and turns[n].end <= before]
        return rng.choice(cands)

    plan: list[str] = ["same_split", "boundary", "same_merge", "same_plain", "boundary"]
    if noise.music:
        plan.append("segment")
    if previous is not None:
        plan.append("same_doc2")
    if spec.mode != "ignore":
        plan.append("name")
    plan.append("boundary")
    head, tail = plan[:2], plan[2:]
    rng.shuffle(tail)
    plan = head + tail

    state = DiarState()
    lines: list[str] = []
    used: set[int] = set()
    for step, what in enumerate(plan, 1):
        target: dict[str, object]
        answer: object = None
        cost: float | None = None
        kind = what.split("_")[0]
        initiative = "active" if kind == "same" else "interactive"
        if rng.random() < 0.25:
            initiative = "interactive" if initiative == "active" else "active"
        if kind == "segment":   # only ever a correction (docs/protocol.md): never asked
            initiative = "interactive"
        learn = spec.mode
        if what == "same_split":
            a = turn_of(noise.split, before=ad_break)
            b = turn_of(noise.split, after=ad_break)
            target, answer = {"t1": _mid(turns[a]), "t2": _mid(turns[b])}, True
            if learn in ("strong", "partial"):
                state.split_fixed = True
        elif what == "same_merge":
            a = turn_of(noise.merged[0])
            b = turn_of(noise.merged[1])
            target, answer = {"t1": _mid(turns[a]), "t2": _mid(turns[b])}, False
            if learn == "strong":
                state.merge_fixed = True
        elif what == "same_plain":
            # A question whose answer the system already had right: nothing to learn.
            a = turn_of(spec.anchors[0])
            b = turn_of(spec.guests[-1])
            target, answer = {"t1": _mid(turns[a]), "t2": _mid(turns[b])}, False
        elif what == "same_doc2":
            prev_spec, prev_turns = previous
            a = turn_of(spec.anchors[0])
            cands = [n for n in range(len(prev_turns)) if _alone(prev_turns, n)
                     and prev_turns[n].speaker == spec.anchors[0]]
            b = rng.choice(cands)
            target = {"t1": _mid(turns[a]), "t2": _mid(prev_turns[b]), "doc2": prev_spec.id}
            answer = True
        elif what == "boundary":
            n = rng.choice([k for k in alone if k not in used])
            used.add(n)
            tr = turns[n]
            target, answer = {"t": _mid(tr)}, [tr.start, tr.end]
            cost = (tr.end - tr.start) / 1000 + 6.0
            if learn in ("strong", "partial"):
                state.exact = tuple(sorted(set(state.exact) | {n}))
            if learn == "strong":
                # The answer shows the system's delay at this turn; it corrects all its
                # boundaries by that amount (noise included: generalisation is imperfect).
                js, je = noise.jitter[n]
                state.start_delay -= state.start_delay + js
                state.end_delay -= state.end_delay + je
        elif what == "segment":
            k = rng.randrange(len(noise.music))
            a, b = noise.music[k]
            target = {"start": max(0, a - 1300), "end": b + 1300}
            cost = (b - a + 2600) / 1000
            if learn == "strong":
                state.music_fixed = True
            elif learn == "partial":
                state.music_removed = tuple(sorted(set(state.music_removed) | {k}))
        elif what == "name":
            a = turn_of(spec.anchors[0], before=ad_break)
            target, answer = {"t": _mid(turns[a])}, spec.anchors[0]
            label = _label_at(hyp, _mid(turns[a]))
            if learn == "strong" and label is not None:
                state.names = state.names + ((label, spec.anchors[0]),)
        else:
            raise AssertionError(what)
        if kind == "same" and rng.random() < 0.5:
            cost = 6.0
        target = {k: _seconds(v) if isinstance(v, int) else v for k, v in target.items()}
        if isinstance(answer, list):
            answer = [_seconds(x) for x in answer]
        record: dict[str, object] = {
            "doc": spec.id, "step": step, "initiative": initiative, "kind": kind,
            "target": target,
        }
        if answer is not None:
            record["answer"] = answer
        if cost is not None and rng.random() < 0.6:
            record["cost"] = round(cost, 3)
        if learn != "ignore":
            new = render_hypothesis(turns, ad_break, noise, state)
            if new != hyp:
                record["adapted"] = {"turns": [[_seconds(a), _seconds(b), lab]
                                               for a, b, lab in new]}
                hyp = new
        lines.append(_json(record))
    return lines


# ============================================================================================
# Detection: simulated speaker-verification trials


N_TRIALS = 25_000
DET_SYSTEMS = (
    # name, target mean, target sd, non-target mean, non-target sd, share of sysB's latent
    ("sysA", 2.2, 2.6, -3.2, 2.0, 0.0),
    ("sysB", 3.8, 3.1, -5.8, 3.1, 1.0),
    ("sysB-adapted", 6.5, 3.6, -6.5, 3.6, 0.8),
)
"""Scores are log-likelihood-ratios of Gaussian classes. sysB-adapted is calibrated (equal
variances s^2 with means +-s^2/2, so its actual DCF is close to its minimum); sysB is the same
kind of system shifted by -1 (miscalibrated); sysA has unequal variances (a DET line of another
slope) and is roughly calibrated. sysB-adapted shares most of its noise with sysB (the same
system after adaptation); sysA is independent. EERs are about 12 %, 6 % and 3.6 %."""


def make_detection(files: Files) -> None:
    rng = _rng("detection")
    n_enroll, n_test = 600, 4000
    owner = [rng.randrange(n_enroll) for _ in range(n_test)]  # speaker of each test segment
    by_speaker: dict[int, list[int]] = {}
    for t, s in enumerate(owner):
        by_speaker.setdefault(s, []).append(t)
    trials: list[tuple[int, int, bool]] = []
    seen: set[tuple[int, int]] = set()
    while len(trials) < N_TRIALS:
        enroll = rng.randrange(n_enroll)
        if rng.random() < 0.07 and by_speaker.get(enroll):
            test, is_target = rng.choice(by_speaker[enroll]), True
        else:
            test = rng.randrange(n_test)
            is_target = owner[test] == enroll
        if (enroll, test) in seen:
            continue
        seen.add((enroll, test))
        trials.append((enroll, test, is_target))
    names = [(f"e{e:04d}", f"t{t:05d}") for e, t, _ in trials]
    files.add_lines("detection/scores/trials.key",
                    (f"{e} {t} {'target' if y else 'nontarget'}"
                     for (e, t), (_, _, y) in zip(names, trials)))
    latent = [rng.gauss(0.0, 1.0) for _ in trials]
    for name, mt, st, mn, sn, share in DET_SYSTEMS:
        srng = _rng(f"detection:{name}")
        lines = []
        for (e, t), (_, _, y), z in zip(names, trials, latent):
            own = srng.gauss(0.0, 1.0)
            noise = share * z + math.sqrt(1.0 - share * share) * own
            score = mt + st * noise if y else mn + sn * noise
            lines.append(f"{e} {t} {score:.3f}")
        files.add_lines(f"detection/scores/{name}.txt", lines)
    files.add(
        "detection/bundle.toml",
        "# llgui demo: simulated speaker-verification trials. Generated by ../make_demo.py; do not edit.\n"
        "[bundle]\n"
        'task = "detection"\n'
        'name = "Demo: detection, three systems on one trial list (synthetic)"\n'
        'metrics = ["eer", "min_dcf", "act_dcf"]\n\n'
        "[detection]\n"
        "scores = " + _toml_list(f"scores/{s[0]}.txt" for s in DET_SYSTEMS) + "\n"
        'key = "scores/trials.key"\n'
    )


# ============================================================================================
# Campaign: three systems x 13 model versions x 13 monthly test batches (DESIGN.md 3b)

CAMPAIGN_SYSTEMS = (
    # name, base error rate, how much it learns by the last version, how fast it forgets
    ("steady", 0.34, 0.20, 0.00),    # learns every month, keeps what it learned
    ("forgetful", 0.30, 0.22, 0.30),  # learns fast, forgets old topics as it goes
    ("static", 0.24, 0.00, 0.00),    # a good model that never changes
)
CAMPAIGN_MONTHS = 13
CAMPAIGN_SENTENCES = 5


def make_campaign(files: Files) -> None:
    """Small files on purpose (5 short sentences a batch): the campaign shows the Systems view and
    the S_P overlay, not scoring speed. Each month brings new words (a topic) that a model
    knows only once it has learned that month; the error rate of model i on batch j follows
    its system's learning and forgetting."""
    rng = _rng("campaign")
    common = [_word(rng, TGT_ONSETS, TGT_VOWELS, TGT_CODAS, rng.randint(1, 3)) for _ in range(150)]
    topics = [[_word(rng, TGT_ONSETS, TGT_VOWELS, TGT_CODAS, 2) + "o" for _ in range(12)]
              for _ in range(CAMPAIGN_MONTHS)]
    start = LIFELONG_START
    lines = ["# llgui demo campaign: three synthetic systems. Generated by ../make_demo.py; "
             "do not edit.",
             "[campaign]", 'name = "Demo campaign: three systems over a year (synthetic)"',
             'task = "mt"', 'metrics = ["bleu", "chrf", "ter"]', ""]
    refs: list[list[list[str]]] = []
    for j in range(CAMPAIGN_MONTHS):
        y, m = _add_months(*start, j)
        batch = []
        for _ in range(CAMPAIGN_SENTENCES):
            words = [rng.choice(topics[j]) if rng.random() < 0.3 else rng.choice(common)
                     for _ in range(rng.randint(4, 9))]
            batch.append(words)
        refs.append(batch)
        files.add_lines(f"campaign/ref/{y}-{m:02d}.drm", (" ".join(w) for w in batch))
        lines += ["[[batches]]", f'id = "{y}-{m:02d}"', f'time = "{y}-{m:02d}-15"',
                  f'references = "ref/{y}-{m:02d}.drm"', ""]
    for name, base, learn, forget in CAMPAIGN_SYSTEMS:
        srng = _rng(f"campaign:{name}")
        models = []
        for i in range(CAMPAIGN_MONTHS):
            y, m = _add_months(*start, i)
            models.append(f'{{id = "M{i:02d}", time = "{y}-{m:02d}-28"}}')
            for j in range(CAMPAIGN_MONTHS):
                by, bm = _add_months(*start, j)
                rate = base - learn * i / (CAMPAIGN_MONTHS - 1)
                rate += forget * max(0, i - j) / (CAMPAIGN_MONTHS - 1)
                out = []
                for words in refs[j]:
                    hyp = []
                    for w in words:
                        unknown = w in topics[j] and j > i  # a topic the model has not met
                        if unknown or srng.random() < rate:
                            hyp.append(srng.choice(common))
                        else:
                            hyp.append(w)
                    out.append(" ".join(hyp))
                files.add_lines(f"campaign/{name}/M{i:02d}/{by}-{bm:02d}.drm", out)
        lines += ["[[systems]]", f'name = "{name}"', "models = [",
                  *(f"  {entry}," for entry in models), "]",
                  f'hypotheses = "{name}/{{model}}/{{batch}}.drm"']
        if name == "steady":
            lines.append('bundle = "../mt/bundle.toml"  # its online run: the MT demo bundle')
        if name == "static":
            lines.append('bundle = "static/online/bundle.toml"  # the MT demo documents, '
                         'no corrections')
        lines.append("")
    files.add("campaign/campaign.toml", "\n".join(lines))
    _static_online_run(files)


def _static_online_run(files: Files) -> None:
    """`campaign/static/online/`: the online run of `static` on the MT demo's documents, so
    the Systems view has two online runs to test against each other. A better first model
    (a third of the segments are right from the start) that never learns: no interaction log.
    References and sources are the MT demo's own files."""
    rng = _rng("campaign:static:online")
    mt = files.texts["mt/bundle.toml"]
    head, _, _ = mt.partition("[interactions]")
    head = head.replace('name = "Demo: lifelong MT, Ulvi to Darem (synthetic)"',
                        'name = "static: online run on the MT demo documents (synthetic)"')
    head = head.replace("Generated by ../make_demo.py", "Generated by ../../../make_demo.py")
    head = head.replace('"ref/', '"../../../mt/ref/').replace('"src/', '"../../../mt/src/')
    files.add("campaign/static/online/bundle.toml", head.rstrip("\n") + "\n")
    for path in sorted(files.texts):
        if path.startswith("mt/hyp/"):
            doc = path[len("mt/hyp/"):]
            hyps = files.texts[path].splitlines()
            refs = files.texts[f"mt/ref/{doc}"].splitlines()
            files.add_lines(f"campaign/static/online/hyp/{doc}",
                            (r if rng.random() < 1 / 3 else h for h, r in zip(hyps, refs)))
# Detection as a lifelong task: label corrections, an adapting and a static system


LL_SPEAKERS, LL_TARGETS, LL_NONTARGETS = 40, 6, 24
LL_STEPS, LL_ITEMS = 8, 5
"""40 enrolled speakers x (6 target + 24 non-target trials) = 1,200 trials; 8 label steps of
5 trials each."""


def make_detection_lifelong(files: Files) -> None:
    """`detection-lifelong/`: one trial list, two systems with the same first scores.

    Scores are log-likelihood ratios (targets around +2, non-targets around -2) plus a bias
    per enrolled speaker (the system is miscalibrated for some speakers). At each step the
    system `adaptive` asks for the labels of 5 trials of the speaker it is least sure of; it
    estimates that speaker's bias from the answers and removes it from every trial of the
    speaker (the labelled ones and the others: it generalises). `static` is asked the same
    questions and never changes. Adapted scores are inline (`adapted.scores`, the speaker's
    30 trials), except steps 4 and 8, whose adapted hypothesis is a whole score file.
    """
    rng = _rng("detection-lifelong")
    trials: list[tuple[str, str, bool]] = []
    bias: dict[str, float] = {}
    for e in range(LL_SPEAKERS):
        enroll = f"spk{e + 1:02d}"
        bias[enroll] = rng.choice((0.0, 0.0, -1.0, 1.0)) * rng.uniform(2.0, 4.0)
        labels = [True] * LL_TARGETS + [False] * LL_NONTARGETS
        rng.shuffle(labels)
        for k, y in enumerate(labels):
            trials.append((enroll, f"seg{e + 1:02d}{k + 1:02d}", y))
    llr = [round(rng.gauss(2.0, 1.6) if y else rng.gauss(-2.0, 1.6), 2) for _, _, y in trials]
    first = [round(s + bias[e], 2) for s, (e, _, _) in zip(llr, trials)]
    ids = [f"{e} {t}" for e, t, _ in trials]
    files.add_lines("detection-lifelong/scores/trials.key",
                    (f"{e} {t} {'target' if y else 'nontarget'}" for e, t, y in trials))

    def score_lines(scores: list[float]) -> list[str]:
        return [f"{e} {t} {s:.2f}" for (e, t, _), s in zip(trials, scores)]

    for name in ("adaptive", "static"):
        files.add_lines(f"detection-lifelong/scores/{name}.txt", score_lines(first))
    # The system asks about the speaker whose mean score is furthest from the mean over all
    # trials (the one it is least sure it is calibrated for).
    def unsure(scores: list[float], done: set[str]) -> str:
        total: dict[str, float] = {}
        for (e, _, _), s in zip(trials, scores):
            total[e] = total.get(e, 0.0) + s
        overall = sum(scores) / len(scores)
        per = LL_TARGETS + LL_NONTARGETS
        return max((e for e in total if e not in done),
                   key=lambda e: (round(abs(total[e] / per - overall), 6), e))

    current = list(first)
    done: set[str] = set()
    lines: list[str] = []
    for step in range(1, LL_STEPS + 1):
        enroll = unsure(current, done)
        done.add(enroll)
        mine = [i for i, (e, _, _) in enumerate(trials) if e == enroll]
        asked = sorted(mine, key=lambda i: (abs(current[i]), i))[:LL_ITEMS]
        # bias estimate: the labelled trials' mean offset from their class's mean (+-2)
        offset = sum(current[i] - (2.0 if trials[i][2] else -2.0) for i in asked) / LL_ITEMS
        for i in mine:
            current[i] = round(current[i] - offset, 2)
        target = {"items": [ids[i] for i in asked]}
        answer = ["target" if trials[i][2] else "nontarget" for i in asked]
        if step % 4 == 0:
            path = f"logs/adapted/adaptive-step{step}.txt"
            files.add_lines(f"detection-lifelong/{path}", score_lines(current))
            adapted: dict = {"path": path.removeprefix("logs/")}
        else:
            adapted = {"scores": {ids[i]: current[i] for i in mine}}
        for name in ("adaptive", "static"):
            record = {"doc": name, "step": step, "initiative": "active", "kind": "label",
                      "target": target, "answer": answer}
            if name == "adaptive":
                record["adapted"] = adapted
            lines.append(_json(record))
    files.add_lines("detection-lifelong/logs/system.jsonl", lines)
    files.add(
        "detection-lifelong/bundle.toml",
        "# llgui demo: detection as a lifelong task (synthetic). Generated by ../make_demo.py; "
        "do not edit.\n"
        "[bundle]\n"
        'task = "detection"\n'
        'name = "Demo: detection with label corrections, an adapting and a static system"\n'
        'metrics = ["err", "min_dcf", "act_dcf"]\n\n'
        "[settings]\n"
        "# the operating point: P_target 0.5, equal costs (Bayes threshold 0 on the LLRs)\n"
        "p_target = 0.5\n\n"
        "[detection]\n"
        'scores = ["scores/adaptive.txt", "scores/static.txt"]\n'
        'key = "scores/trials.key"\n\n'
        "[interactions]\n"
        'log = "logs/system.jsonl"\n'
    )


# ============================================================================================


# What persists (issue 33): a system whose updates regress on some units, and that forgets
# a corrected sentence some documents after it was taught


RELAPSE_KEEP = 2
"""Documents after the one it was corrected in during which `relapsing` still translates the
first recurring sentence as it was told; after them it relapses to its old error."""
RELAPSE_DOCS = 6
REGRESSIONS = {4: (0, 2), 8: (1,), 11: (3, 4)}
"""Model version -> the sentences (0-based, of every batch) it truncates: its regressions,
undone by the next version."""


def make_persistence(files: Files) -> None:
    """A fourth demo campaign system, `relapsing`: every model version outputs what `steady`'s
    last version does, except the versions of `REGRESSIONS`, which drop the second half of some
    sentences of every batch (negative flips, undone by the next version); and an online run
    of its own, `campaign/relapsing/online/` (a bundle beside the campaign, not named by it:
    the campaign's online runs share their documents): six short documents in which two sentences recur. The first
    is corrected (`reference`) in the first document and translated as told for
    `RELAPSE_KEEP` documents, then wrong again (a relapse in each later document); the
    second, corrected in the second document, stays right (kept)."""
    last = f"M{CAMPAIGN_MONTHS - 1:02d}"
    batches = sorted(p for p in files.texts if p.startswith(f"campaign/steady/{last}/"))
    models = []
    for i in range(CAMPAIGN_MONTHS):
        y, m = _add_months(*LIFELONG_START, i)
        models.append(f'{{id = "M{i:02d}", time = "{y}-{m:02d}-28"}}')
        for path in batches:
            out = []
            for k, line in enumerate(files.texts[path].splitlines()):
                words = line.split()
                out.append(" ".join(words[:max(1, len(words) // 2)])
                           if k in REGRESSIONS.get(i, ()) else line)
            files.add_lines(f"campaign/relapsing/M{i:02d}/{path.rsplit('/', 1)[1]}", out)
    text = files.texts["campaign/campaign.toml"]   # now four systems
    files.texts["campaign/campaign.toml"] = text.replace(
        "three synthetic systems", "four synthetic systems").replace(
        "three systems over a year", "four systems over a year")
    files.texts["campaign/campaign.toml"] += "\n".join([
        "", "[[systems]]", 'name = "relapsing"', "models = [",
        *(f"  {entry}," for entry in models), "]",
        'hypotheses = "relapsing/{model}/{batch}.drm"',
        # its online run (relapsing/online/bundle.toml, the relapses) is not named here: a
        # campaign's online runs share their documents (the Systems view's paired test)
        ""])
    rng = _rng("campaign:relapsing:online")

    def sentence(n: int) -> tuple[str, str]:
        src = " ".join(_word(rng, SRC_ONSETS, SRC_VOWELS, SRC_CODAS, rng.randint(1, 3))
                       for _ in range(n))
        ref = " ".join(_word(rng, TGT_ONSETS, TGT_VOWELS, TGT_CODAS, rng.randint(1, 3))
                       for _ in range(n))
        return src, ref

    def garble(ref: str) -> str:
        words = ref.split()
        return " ".join(words[:1] + [_word(rng, TGT_ONSETS, TGT_VOWELS, TGT_CODAS, 2)
                                     for _ in words[1:]])

    recurring = [sentence(7), sentence(6)]
    wrong = [garble(ref) for _, ref in recurring]
    lines = ["# llgui demo: the online run of `relapsing` (synthetic). Generated by "
             "../../../make_demo.py; do not edit.", "[bundle]", 'task = "mt"',
             'name = "relapsing: forgets a correction after 2 documents (synthetic)"',
             'metrics = ["bleu", "chrf", "ter"]', ""]
    log = []
    for d in range(RELAPSE_DOCS):
        doc = f"talk-{d + 1}"
        rows = [sentence(rng.randint(4, 8)) for _ in range(3)]
        hyps = [garble(ref) if rng.random() < 0.5 else ref for _, ref in rows]
        rows.insert(0, recurring[0])
        # the first recurring sentence: wrong, corrected in talk-1, right for RELAPSE_KEEP
        # documents, then wrong again
        hyps.insert(0, recurring[0][1] if 1 <= d <= RELAPSE_KEEP else wrong[0])
        if d >= 1:   # the second: corrected in talk-2, right ever after
            rows.append(recurring[1])
            hyps.append(recurring[1][1] if d >= 2 else wrong[1])
        folder = "campaign/relapsing/online"
        files.add_lines(f"{folder}/src/{doc}.ulv", (src for src, _ in rows))
        files.add_lines(f"{folder}/ref/{doc}.drm", (ref for _, ref in rows))
        files.add_lines(f"{folder}/hyp/{doc}.drm", hyps)
        lines += ["[[documents]]", f'id = "{doc}"', f'time = "2023-{d + 2:02d}-01"',
                  f'references = ["ref/{doc}.drm"]', f'hypothesis = "hyp/{doc}.drm"',
                  f'source = "src/{doc}.ulv"', ""]
        if d in (0, 1):
            i = 1 if d == 0 else len(rows)
            ref = rows[i - 1][1]
            log.append(_json({"doc": doc, "step": 1, "initiative": "interactive",
                              "kind": "reference", "target": {"sentence": i},
                              "cost": float(len(ref.split())),
                              "adapted": {"lines": {str(i): ref}}}))
    lines += ["[interactions]", 'log = "logs/relapsing.jsonl"', ""]
    files.add("campaign/relapsing/online/bundle.toml", "\n".join(lines))
    files.add_lines("campaign/relapsing/online/logs/relapsing.jsonl", log)


def build_demo() -> dict[str, str]:
    """Every demo file as relative path -> text (pure: same output on every call)."""
    files = Files()
    make_mt(files)
    make_diarization(files)
    make_detection(files)
    make_campaign(files)
    make_detection_lifelong(files)
    make_persistence(files)   # issue 33: regressions and a relapse to show
    return dict(files.texts)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0].startswith("-")):
        print("usage: make_demo.py [OUT_DIR]   (default OUT_DIR: the script's folder)",
              file=sys.stderr)
        return 2
    out = Path(args[0]) if args else Path(__file__).resolve().parent
    files = Files()
    files.texts = build_demo()
    written = files.write(out)
    total = sum(p.stat().st_size for p in written)
    print(f"wrote {len(written)} files, {total / 1e6:.2f} MB, into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
