"""Short names that tell systems apart: what differs between their names (issue 23, item 15).

Two runs of one test set are usually named alike ("WMT23 en-zh (ONLINE-B) (simulated)",
"WMT23 en-zh (NLLB_Greedy) (simulated)"); a narrow column needs only "ONLINE-B" and
"NLLB_Greedy". Qt-free.
"""
from __future__ import annotations

from os.path import commonprefix
from typing import Sequence

_WORD = str.isalnum


def short_names(names: Sequence[str]) -> list[str]:
    """Each name without the prefix and suffix all names share (cut at a word boundary,
    with the brackets and separators around them); a name left empty, or equal to another,
    keeps its whole form. One name: itself."""
    names = [str(n) for n in names]
    if len(names) < 2:
        return list(names)
    prefix = commonprefix(names)
    suffix = commonprefix([n[::-1] for n in names])[::-1]
    # back off to a word boundary: never cut "NLLB_Greedy" / "NLLB_MBR" to "Greedy" / "MBR"
    while prefix and any(len(n) > len(prefix) and _WORD(n[len(prefix)]) and _WORD(prefix[-1])
                         for n in names):
        prefix = prefix[:-1]
    while suffix and any(len(n) > len(suffix) and _WORD(n[-len(suffix) - 1]) and _WORD(suffix[0])
                         for n in names):
        suffix = suffix[1:]
    out = []
    for n in names:
        end = len(n) - len(suffix)
        core = n[len(prefix):end] if end > len(prefix) else ""
        out.append(core.strip(" ()[]{}-_·,:/|") or n)
    if len(set(out)) < len(out):
        return list(names)
    return out


def model_label(name: str, width: int = 10) -> str:
    """A model version's own id where a plot has room for a few characters: the id itself
    (M0, v2, 2023-06) up to `width` characters, else its start and end around an ellipsis.
    (The policy plot said "tests of M₃" for the third model of a table whose ids were
    M0-M2: it numbered from 1 instead of naming the model.)"""
    text = str(name)
    if len(text) <= width:
        return text
    keep = width - 1
    return text[:(keep + 1) // 2] + "…" + text[len(text) - keep // 2:]
