"""Synthetic inputs of growing size for gate 9 and the scale tests (never kept in the repo).

- `mt_bundle(n_sentences, n_steps)`: one MT document of short sentences, a log whose steps
  each give the reference of one sentence and adapt that line (plus, every tenth step, a
  few more lines: the system generalising), built in memory.
- `diar_bundle(hours, n_steps)`: one show with about 1,000 reference turns per hour, a
  hypothesis that shifts boundaries and swaps labels, `boundary` steps whose adapted turn
  list fixes the turns around the step.
- `write_mt_bundle(folder, n_documents, ...)`: a bundle of many small MT documents on disk.

Everything is seeded: the same arguments give the same inputs.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from llgui.core.cost import CostModel
from llgui.core.types import (
    Adapted, Bundle, DiarDocument, MTDocument, PointTarget, SentenceTarget, Stamp, Step, Turn,
)

WORDS = ("the", "a", "house", "cat", "is", "was", "red", "blue", "on", "under", "table",
         "dog", "sees", "big", "small", "old", "new", "man", "woman", "runs", "eats", "city")


def _sentence(rng, n_words: int) -> list[str]:
    return [WORDS[i] for i in rng.integers(0, len(WORDS), n_words)]


def _noisy(rng, words: list[str], rate: float) -> str:
    out = [WORDS[rng.integers(len(WORDS))] if rng.random() < rate else w for w in words]
    return " ".join(out)


def mt_bundle(n_sentences: int, n_steps: int, seed: int = 9, metrics=("bleu",)) -> Bundle:
    rng = np.random.default_rng(seed)
    refs_words = [_sentence(rng, int(rng.integers(4, 9))) for _ in range(n_sentences)]
    refs = tuple(" ".join(w) for w in refs_words)
    hyp = tuple(_noisy(rng, w, 0.3) for w in refs_words)
    doc = MTDocument("doc", Stamp.parse("2024-01-01"), hyp, (refs,))
    targets = rng.choice(n_sentences, size=min(n_steps, n_sentences), replace=False)
    steps = []
    for k, index in enumerate(targets, start=1):
        lines = {int(index) + 1: refs[index]}
        if k % 10 == 0:  # the system generalises to a few other lines
            for other in rng.integers(0, n_sentences, 3):
                lines[int(other) + 1] = _noisy(rng, refs_words[other], 0.15)
        steps.append(Step("doc", k, "active", "reference", SentenceTarget(int(index) + 1),
                          None, None, Adapted(lines=lines), line=k))
    return Bundle(None, "mt", f"synthetic {n_sentences}", tuple(metrics), {}, CostModel(),
                  (doc,), tuple(steps))


def _turns(rng, hours: float, per_hour: int = 1000, speakers: int = 12) -> list[Turn]:
    n = int(hours * per_hour)
    lengths = rng.uniform(1.0, 6.0, n)
    gaps = rng.uniform(0.0, 1.6, n)
    starts = np.cumsum(gaps + lengths) - lengths
    labels = rng.integers(0, speakers, n)
    return [Turn(round(float(s), 3), round(float(s + d), 3), f"spk{lab:02d}")
            for s, d, lab in zip(starts, lengths, labels)]


def diar_bundle(hours: float, n_steps: int, seed: int = 9) -> Bundle:
    rng = np.random.default_rng(seed)
    reference = _turns(rng, hours)
    hypothesis = []
    for t in reference:
        shift = float(rng.normal(0, 0.2))
        label = f"h{t.speaker[3:]}" if rng.random() > 0.1 else f"h{rng.integers(0, 12):02d}"
        start = max(0.0, round(t.start + shift, 3))
        hypothesis.append(Turn(start, max(start + 0.1, round(t.end + shift, 3)), label))
    doc = DiarDocument("show", Stamp.parse("2024-01-01"), "show", tuple(reference),
                       tuple(hypothesis))
    current = list(hypothesis)
    steps = []
    chosen = np.sort(rng.choice(len(reference), size=min(n_steps, len(reference)),
                                replace=False))
    rng.shuffle(chosen)
    mapping = {f"spk{i:02d}": f"h{i:02d}" for i in range(12)}
    for k, index in enumerate(chosen, start=1):
        ref = reference[index]
        t = (ref.start + ref.end) / 2
        # the system fixes the turn under t: takes the reference's bounds and label
        current[index] = Turn(ref.start, ref.end, mapping[ref.speaker])
        steps.append(Step("show", k, "interactive", "boundary", PointTarget(t),
                          (ref.start, ref.end), None, Adapted(turns=tuple(current)), line=k))
    return Bundle(None, "diarization", f"synthetic {hours} h", ("der",), {}, CostModel(),
                  (doc,), tuple(steps))


def write_mt_bundle(folder: Path, n_documents: int, n_sentences: int = 5,
                    steps_per_document: int = 2, seed: int = 9) -> Path:
    """A bundle of `n_documents` small MT documents with a log, written under `folder`."""
    import json

    rng = np.random.default_rng(seed)
    folder = Path(folder)
    (folder / "ref").mkdir(parents=True, exist_ok=True)
    (folder / "hyp").mkdir(exist_ok=True)
    toml = ['[bundle]\ntask = "mt"\nname = "synthetic many"\nmetrics = ["bleu"]\n']
    log = []
    for d in range(n_documents):
        doc = f"d{d:06d}"
        refs_words = [_sentence(rng, int(rng.integers(4, 9))) for _ in range(n_sentences)]
        (folder / "ref" / f"{doc}.txt").write_text(
            "".join(" ".join(w) + "\n" for w in refs_words), encoding="utf-8")
        (folder / "hyp" / f"{doc}.txt").write_text(
            "".join(_noisy(rng, w, 0.3) + "\n" for w in refs_words), encoding="utf-8")
        toml.append(f'[[documents]]\nid = "{doc}"\ntime = {d}\n'
                    f'references = ["ref/{doc}.txt"]\nhypothesis = "hyp/{doc}.txt"\n')
        for k in range(1, steps_per_document + 1):
            sentence = int(rng.integers(1, n_sentences + 1))
            log.append(json.dumps({
                "doc": doc, "step": k, "initiative": "active", "kind": "reference",
                "target": {"sentence": sentence},
                "adapted": {"lines": {str(sentence): " ".join(refs_words[sentence - 1])}}}))
    toml.append('[interactions]\nlog = "log.jsonl"\n')
    (folder / "log.jsonl").write_text("\n".join(log) + "\n", encoding="utf-8")
    path = folder / "bundle.toml"
    path.write_text("\n".join(toml), encoding="utf-8")
    return path
