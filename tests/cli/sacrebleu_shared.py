"""sacrebleu's metric objects for the paired-test comparisons, shared within a test module.

`cached(cls, refs)` is `cls(references=[refs])`, as sacrebleu's own command line builds a metric
for a paired test (`PairedTest(references=None)` then reads the cached references), and it
remembers the statistics the library extracts for each list of hypotheses: sacrebleu's
`_extract_corpus_statistics` depends only on the hypotheses and the cached references, and
every PairedTest (its baseline, each system) and every `corpus_score` calls it again for the
same system. Remembered, each system's statistics are extracted by sacrebleu once per module;
the resampling, the randomisation and every score are still sacrebleu's, in full, each time.
"""
from __future__ import annotations

_HELD: dict[tuple, tuple] = {}


def cached(cls, refs: list[str]):
    """The metric `cls(references=[refs])`, one per (class, refs) while refs lives (held so
    that its id is not reused), its statistics extraction remembered per hypothesis list."""
    key = (cls, id(refs))
    if key not in _HELD:
        metric = cls(references=[refs])
        extract = metric._extract_corpus_statistics
        memo: dict[tuple[str, ...], list] = {}

        def remembered(hypotheses, references):
            if references is not None:      # references given: not the cache's business
                return extract(hypotheses, references)
            hyps = tuple(hypotheses)
            if hyps not in memo:
                memo[hyps] = extract(hyps, None)
            # a copy of the rows: nothing sacrebleu does to them reaches the next caller
            return [list(row) for row in memo[hyps]]

        metric._extract_corpus_statistics = remembered
        _HELD[key] = (refs, metric)
    return _HELD[key][1]
