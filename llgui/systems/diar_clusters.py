"""`diar_clusters`: a diarization system that learns from the human which clusters are whom.

It starts from the bundle's turns. In active mode it asks `same` between the longest turns of
two of its clusters (the largest clusters first, each pair once), merges the two clusters when
told they are the same speaker and keeps them apart otherwise; then it asks `name` in its
shortest turns and relabels them as told; then `boundary` just before
its speaker changes (next to its shortest turns first, the least sure ones) and moves the turn
there to the boundaries it is told.
Corrections the human volunteers are applied as told: a `segment` replaces the turns inside it
(a speaker the human names there keeps the label it had, or takes the cluster that covered
most of it), a `name` relabels the turn at that time, a `boundary` moves a turn.

What it learns, and where: within a recording, everything above. Across recordings, only
when told the bundle's speaker labels are global (the same label is the same person in
every recording, as a system with a speaker registry writes them):

    python -m llgui.systems.diar_clusters                    labels per recording (default)
    python -m llgui.systems.diar_clusters --global-speakers  labels global

With `--global-speakers`, merges carry to later shows (two labels found to be one speaker
are merged from the start whenever they appear again), and so do the names it has been
given. By default each recording starts afresh from the bundle's turns: its h0 is the
bundle's hypothesis, since on per-recording labels (VoxConverse's, AMI's, most RTTM
corpora's "spk00", "1", ...) a merge of "1" and "2" in one meeting says nothing of another
meeting's "1" and "2", and carrying it there would degrade that meeting's h0 (by about 7
DER points on VoxConverse). Across recordings it is then the memorise-only line: no
learning carries over.
"""
from __future__ import annotations

import sys

from llgui.sim import protocol as P
from llgui.systems._serve import System, serve

SHORT = 3.0  # seconds: who speaks in a turn shorter than this is worth a question
NUDGE = 0.25  # seconds: a boundary question is asked this far before a speaker change


def _find(parent: dict, label: str) -> str:
    while parent.get(label, label) != label:
        label = parent[label]
    return label


class DiarClusters(System):
    name = "diar_clusters"
    version = "1"

    def __init__(self, global_speakers: bool = False) -> None:
        self.global_speakers = global_speakers
        self.merged: dict[str, str] = {}      # label -> the label it was merged into
        self.named: dict[str, str] = {}       # the human's speaker -> our label

    # -- the hypothesis ---------------------------------------------------------------------
    def document(self, message: P.DocumentStart) -> P.Hypothesis:
        if not self.global_speakers:   # labels per recording: nothing learned carries over
            self.merged, self.named = {}, {}
        self.turns = sorted([s, e, _find(self.merged, spk)] for s, e, spk in (message.hypothesis or ()))
        self.asked_pairs: set[frozenset] = set()
        self.apart: set[frozenset] = set()
        self.asked_points: set[int] = set()
        self.pending: tuple | None = None
        return P.Hypothesis(message.doc, turns=self._out())

    def _out(self):
        return tuple((s, e, spk) for s, e, spk in self.turns if e > s)

    def _clusters(self) -> list[tuple[str, float, list]]:
        """(label, total seconds, its longest turn), largest first."""
        total: dict[str, float] = {}
        longest: dict[str, list] = {}
        for turn in self.turns:
            s, e, spk = turn
            total[spk] = total.get(spk, 0.0) + (e - s)
            if spk not in longest or e - s > longest[spk][1] - longest[spk][0]:
                longest[spk] = turn
        return sorted(((k, v, longest[k]) for k, v in total.items()), key=lambda x: (-x[1], x[0]))

    # -- active mode ------------------------------------------------------------------------
    def request(self):
        clusters = self._clusters()
        for i, (a, _, ta) in enumerate(clusters):
            for b, _, tb in clusters[i + 1:]:
                pair = frozenset((a, b))
                if pair in self.asked_pairs or pair in self.apart:
                    continue
                self.asked_pairs.add(pair)
                self.pending = ("same", a, b)
                return P.Request("same", P.SameTarget(0.5 * (ta[0] + ta[1]), 0.5 * (tb[0] + tb[1])))
        # then who speaks in its shortest turns (the least sure ones)
        for s, e, _ in sorted(self.turns, key=lambda x: (x[1] - x[0], x[0])):
            if e - s >= SHORT:
                break
            key = ("name", round(0.5 * (s + e) * 1000))
            if key in self.asked_points:
                continue
            self.asked_points.add(key)
            return P.Request("name", P.PointTarget(0.5 * (s + e)))
        # then the speaker changes it is least sure of: those next to its shortest turns;
        # the question is asked just before the change, inside the earlier turn
        changes = []
        for (s1, e1, a), (s2, e2, b) in zip(self.turns, self.turns[1:]):
            if a != b and e1 - s1 > 2 * NUDGE:
                changes.append((min(e1 - s1, e2 - s2), e1 - NUDGE))
        for _, t in sorted(changes):
            key = round(t * 1000)
            if key in self.asked_points:
                continue
            self.asked_points.add(key)
            self.pending = ("boundary",)
            return P.Request("boundary", P.PointTarget(t))
        return None

    # -- learning ---------------------------------------------------------------------------
    def learn(self, message):
        kind, target, answer = message.kind, message.target, message.answer
        if kind == "same":
            a, b = self._label_at(target.t1), self._label_at(target.t2)
            if a is not None and b is not None and a != b:
                if answer is True:
                    self._merge(a, b)
                else:
                    self.apart.add(frozenset((a, b)))
        elif kind == "boundary" and isinstance(answer, list) and len(answer) == 2:
            label = self._label_at(target.t)
            if label is not None:
                self._paint(float(answer[0]), float(answer[1]), [(answer[0], answer[1], label)])
        elif kind == "name" and isinstance(answer, str):
            self._relabel_at(target.t, answer)
        elif kind == "segment" and isinstance(answer, list):
            start, end = target.start, target.end
            painted = []
            for s, e, who in answer:
                label = self.named.get(who) or self._majority(s, e) or f"spk-{who}"
                self.named.setdefault(who, label)
                painted.append((s, e, label))
            self._paint(start, end, painted)
        return P.AdaptedReply(turns=self._out())

    def _label_at(self, t: float):
        best = None
        for s, e, spk in self.turns:
            if s <= t < e and (best is None or e - s > best[1] - best[0]):
                best = (s, e, spk)
        return best[2] if best else None

    def _majority(self, start: float, end: float):
        cover: dict[str, float] = {}
        for s, e, spk in self.turns:
            overlap = min(e, end) - max(s, start)
            if overlap > 0:
                cover[spk] = cover.get(spk, 0.0) + overlap
        return max(sorted(cover), key=cover.get) if cover else None

    def _merge(self, keep: str, gone: str) -> None:
        keep, gone = sorted((keep, gone))
        self.merged[gone] = keep
        for turn in self.turns:
            if turn[2] == gone:
                turn[2] = keep

    def _relabel_at(self, t: float, label: str) -> None:
        for turn in self.turns:
            if turn[0] <= t < turn[1]:
                turn[2] = label

    def _paint(self, start: float, end: float, turns) -> None:
        """Replace everything inside [start, end] by `turns`."""
        out = []
        for s, e, spk in self.turns:
            if e <= start or s >= end:
                out.append([s, e, spk])
                continue
            if s < start:
                out.append([s, start, spk])
            if e > end:
                out.append([end, e, spk])
        out += [[float(s), float(e), spk] for s, e, spk in turns if e > s]
        self.turns = sorted(out)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m llgui.systems.diar_clusters",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--global-speakers", action="store_true",
                        help="the bundle's speaker labels are global (one label, one person "
                             "in every recording): carry merges and names to later "
                             "recordings (default: labels per recording, nothing carries)")
    args = parser.parse_args(argv)
    return serve(DiarClusters(global_speakers=args.global_speakers))


if __name__ == "__main__":
    sys.exit(main())
