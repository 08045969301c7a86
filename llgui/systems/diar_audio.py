"""`diar_audio`: a diarization system that hears the recording and learns from the human.

It reads the document's audio (`audio` in the document message: a WAV file, 16-bit PCM) and
never the bundle's hypothesis:

1. **Speech activity**: log energy per 10 ms frame against a threshold between the
   recording's quiet floor and its loud speech (`VAD_SHARE` of the way up), pauses shorter
   than `bridge` seconds bridged, stretches shorter than `MIN_SPEECH` dropped.
2. **Units**: each stretch of speech cut into equal pieces of at most `UNIT` seconds; a
   unit's embedding is the mean and standard deviation of its frames' MFCCs (20 from 40 mel
   bands, numpy/scipy), standardised over the recording and L2-normalised.
3. **h0**: average-linkage agglomerative clustering of the units (cosine distance, stopped at
   `THRESHOLD`); clusters of less than `MIN_CLUSTER` seconds join their nearest neighbour.
   Labels S01, S02, ... by first appearance.

Learning (every answer re-labels the whole meeting, so a correction reaches turns the human
never heard):

- the units a `name` or `segment` answer covers (most of the unit; overlapped speech seeds no
  one) become **seeds** of the label it gives. A `name` answer speaks in the system's labels
  through the optimal mapping, or names a speaker the system lacks; a `segment` answer speaks
  in the reference's names, each taken as the cluster whose voice its seeds have (within
  `THRESHOLD`), else as the label of ours it covers most;
- **groups**: the h0 clusters after the `same` answers in order: yes merges two clusters, no
  between two units of one cluster splits it by its two pitch modes (`_split`); a cluster
  whose seeds mostly name another of our clusters joins it when their voices are within
  `MERGE_DIST`; inside a cluster the units are re-assigned by k-means among the cluster's
  name and every label seeded inside it (seeds fixed, pitch weighing `FINE_PITCH` more);
- **speech activity**: once `VAD_EVIDENCE` seconds of both speech and silence are known from
  `segment` and `boundary` answers, the threshold and bridged pause that classify them best
  (by `VAD_GAIN` frames at least) are taken and the recording is segmented again (new units
  keep the cluster of the old unit they overlap most);
- what the human said is kept as said: a `segment` answer's turns replace the hypothesis in
  its span, a `boundary` answer's turn is one speaker's.

In active mode it asks, in this order: `same` between the two pitch modes of a cluster when
they lie more than `PITCH_MODES` apart (two close voices merged), `same` between the closest
pairs of clusters (one voice split), then `name` at the units it is least sure of (the
smallest margin between the nearest two centroids). Deterministic: no randomness anywhere.
Needs numpy and scipy only. Run as `python -m llgui.systems.diar_audio`.

Across recordings only its speech-activity threshold carries over (learned from `segment`
and `boundary` answers); every recording is clustered afresh from its own audio, so speaker
identities never carry: there it is the memorise-only line.
"""
from __future__ import annotations

import io
import math
import sys
import wave

import numpy as np

from llgui.io._read import LIBRARY_ERRORS, library_reason
from llgui.sim import protocol as P
from llgui.systems._serve import System, serve

HOP = 0.010               # seconds per frame
WIN = 0.025               # analysis window
N_MELS, N_MFCC = 40, 20
VAD_SHARE = 0.30          # threshold = floor + share * (loud - floor), in dB
BRIDGE = 0.30             # seconds: a shorter pause inside speech is bridged
MIN_SPEECH = 0.20         # seconds: a shorter stretch is not speech
UNIT = 1.5                # seconds: longest unit (embedding window)
THRESHOLD = 0.8           # cosine distance at which clustering stops
FINE_PITCH = 3.0          # pitch's extra weight when voices inside one cluster are told apart
PITCH_MODES = 1.18        # a cluster whose two pitch modes differ by this ratio may be two
SPLIT_BASE = 1000         # cluster numbers of the splits a `same` answer made
MERGE_DIST = 1.0          # a cluster named after another joins it below this distance
MIN_CLUSTER = 4.0         # seconds: a smaller cluster joins its nearest neighbour
VOICED = 0.6             # autocorrelation peak of a voiced frame
PITCH_WEIGHT = 3.0        # the pitch statistics' weight against the 40 MFCC statistics
MAX_BYTES = 1 << 31
BLOCK = 2000              # frames analysed at once       # 2 GiB: the largest audio file read
SHARES = np.round(np.arange(0.10, 0.61, 0.05), 2)
DIM = 2 * N_MFCC + 2
VAD_EVIDENCE = 2.0        # seconds of both speech and silence heard before retuning
VAD_GAIN = 10             # frames the retuned activity must classify better
BRIDGES = (0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8)


# --------------------------------------------------------------------------------------------
# Signal


def read_wav(path: str) -> tuple[np.ndarray, int]:
    """Mono float samples in [-1, 1] and the sample rate of a 16-bit PCM WAV file (a regular
    file of at most `MAX_BYTES`)."""
    from llgui.utils.regular import read_regular

    with wave.open(io.BytesIO(read_regular(path, limit=MAX_BYTES)), "rb") as w:
        if w.getsampwidth() != 2:
            raise ValueError(f"{8 * w.getsampwidth()}-bit samples (16-bit PCM needed)")
        rate, channels = w.getframerate(), w.getnchannels()
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(float)
    if channels > 1:
        data = data.reshape(-1, channels).mean(axis=1)
    return data / 32768.0, rate


def _mel_bank(rate: int, n_fft: int) -> np.ndarray:
    def mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    edges = hz(np.linspace(mel(60.0), mel(min(7600.0, rate / 2)), N_MELS + 2))
    bins = np.fft.rfftfreq(n_fft, 1.0 / rate)
    bank = np.zeros((N_MELS, bins.size))
    for i in range(N_MELS):
        lo, mid, hi = edges[i], edges[i + 1], edges[i + 2]
        bank[i] = np.clip(np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)), 0, None)
    return bank


def features(samples: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(log energy in dB per frame, MFCCs per frame without c0)."""
    from scipy.fft import dct

    hop, win = int(round(HOP * rate)), int(round(WIN * rate))
    n = max(0, 1 + (len(samples) - win) // hop)
    energy, mfcc = np.zeros(n), np.zeros((n, N_MFCC))
    n_fft = 1 << (win - 1).bit_length()
    bank, window = _mel_bank(rate, n_fft).T, np.hamming(win)
    for first in range(0, n, BLOCK):     # in blocks: bounded memory on long recordings
        rows = np.arange(first, min(n, first + BLOCK))
        frames = samples[np.arange(win)[None, :] + hop * rows[:, None]]
        energy[rows] = 10 * np.log10(np.mean(frames ** 2, axis=1) + 1e-10)
        emphasised = np.concatenate([frames[:, :1], frames[:, 1:] - 0.97 * frames[:, :-1]],
                                    axis=1)
        spectrum = np.abs(np.fft.rfft(emphasised * window, n_fft)) ** 2
        logmel = np.log(spectrum @ bank + 1e-10)
        mfcc[rows] = dct(logmel, type=2, norm="ortho", axis=1)[:, 1:N_MFCC + 1]
    return energy, mfcc


def pitch(samples: np.ndarray, rate: int, n: int) -> np.ndarray:
    """log F0 per frame (NaN where unvoiced): the normalised autocorrelation's highest peak
    between 60 and 400 Hz over 40 ms, voiced when it reaches `VOICED`."""
    hop, win = int(round(HOP * rate)), int(round(0.040 * rate))
    lo, hi = int(rate / 400), int(rate / 60)
    n_fft = 1 << (2 * win - 1).bit_length()
    out = np.full(n, np.nan)
    for first in range(0, n, BLOCK):    # in blocks: bounded memory on long recordings
        idx = np.arange(first, min(n, first + BLOCK))
        index = np.arange(win)[None, :] + hop * idx[:, None]
        frames = samples[np.minimum(index, len(samples) - 1)]
        frames = frames - frames.mean(axis=1, keepdims=True)
        spec = np.fft.rfft(frames, n_fft)
        ac = np.fft.irfft(np.abs(spec) ** 2, n_fft)[:, :hi + 1]
        norm = ac[:, lo:hi + 1] / (ac[:, :1] + 1e-10)
        lag = np.argmax(norm, axis=1)
        voiced = norm[np.arange(len(idx)), lag] >= VOICED
        out[idx[voiced]] = np.log(rate / (lag[voiced] + lo))
    return out


def speech_mask(energy: np.ndarray, share: float, bridge: float) -> np.ndarray:
    floor, loud = np.percentile(energy, 5), np.percentile(energy, 95)
    mask = energy > floor + share * (loud - floor)
    runs = _runs(mask)
    for start, end, on in runs:       # bridge short pauses inside speech
        if not on and start > 0 and end < mask.size and (end - start) * HOP < bridge:
            mask[start:end] = True
    for start, end, on in _runs(mask):
        if on and (end - start) * HOP < MIN_SPEECH:
            mask[start:end] = False
    return mask


def _runs(mask: np.ndarray) -> list[tuple[int, int, bool]]:
    if mask.size == 0:
        return []
    change = np.flatnonzero(np.diff(mask.astype(np.int8))) + 1
    bounds = np.concatenate([[0], change, [mask.size]])
    return [(int(a), int(b), bool(mask[a])) for a, b in zip(bounds[:-1], bounds[1:])]


# --------------------------------------------------------------------------------------------
# The system


class DiarAudio(System):
    name = "diar_audio"
    version = "1"

    def __init__(self) -> None:
        self.share, self.bridge = VAD_SHARE, BRIDGE

    # -- the hypothesis ---------------------------------------------------------------------
    def document(self, message: P.DocumentStart) -> P.Hypothesis:
        audio = getattr(message, "audio", None)
        if not audio:
            raise SystemExit("diar_audio: the document message has no audio (the bundle's "
                             "document needs audio = \"FILE.wav\")")
        try:
            samples, rate = read_wav(audio)
        except (wave.Error, *LIBRARY_ERRORS) as error:   # a header that lies: RuntimeError
            raise SystemExit(f"diar_audio: cannot read the audio {audio!r}: "
                             f"{library_reason(error)}") from None
        if len(samples) < rate:
            raise SystemExit(f"diar_audio: the audio {audio!r} is shorter than a second")
        self.energy, mfcc = features(samples, rate)
        self.duration = len(samples) / rate
        mean, std = mfcc.mean(axis=0), mfcc.std(axis=0) + 1e-8
        self.mfcc = (mfcc - mean) / std
        self.f0 = pitch(samples, rate, len(self.energy))
        self.seeds: list[tuple[float, float, str]] = []      # (start, end, label) heard
        self.painted: list[tuple] = []   # (start, end, turns said, fallback labels): kept as said
        self.speech_frames: list[tuple[float, float, bool]] = []
        self.links: list[tuple[bool, float, float]] = []   # `same` answers, in order
        self.asked: set = set()
        self.said_names: set[str] = set()      # speaker names `segment` answers gave
        self.new_names: set[str] = set()       # speakers a `name` answer told us we lack
        self.alias: dict[str, str] = {}
        self._units(first=True)
        self.turns = self._relabel()
        return P.Hypothesis(message.doc, turns=self.turns)

    def _units(self, first: bool = False) -> None:
        """Cut speech into units and embed them; on the first call, cluster them into h0."""
        mask = speech_mask(self.energy, self.share, self.bridge)
        units = []
        for a, b, on in _runs(mask):
            if not on:
                continue
            pieces = max(1, math.ceil((b - a) * HOP / UNIT))
            cuts = np.linspace(a, b, pieces + 1).round().astype(int)
            units += [(int(x), int(y)) for x, y in zip(cuts[:-1], cuts[1:]) if y > x]
        self.frames = units
        self.spans = np.array([(x * HOP, y * HOP + WIN) for x, y in units]).reshape(-1, 2)
        emb = np.array([np.concatenate([self.mfcc[x:y].mean(0), self.mfcc[x:y].std(0),
                                        _pitch_stats(self.f0[x:y])])
                        for x, y in units]).reshape(-1, DIM)
        if first:   # the recording's unit statistics, fixed from then on (a statistic no
            # unit has, e.g. the pitch of a recording without a voiced frame: 0, spread 1)
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)   # all-NaN columns
                fill = np.nanmedian(emb, axis=0) if len(emb) else np.zeros(DIM)
                spread = np.nanstd(emb, axis=0) if len(emb) else np.ones(DIM)
            self.norm = (np.nan_to_num(fill), np.nan_to_num(spread, nan=1.0) + 1e-8)
        self.unit_f0 = emb[:, 2 * N_MFCC]     # median log pitch (NaN: unvoiced)
        emb = np.where(np.isnan(emb), self.norm[0], emb)
        emb = (emb - self.norm[0]) / self.norm[1]
        emb[:, 2 * N_MFCC:] *= PITCH_WEIGHT
        self.emb = emb / (np.linalg.norm(emb, axis=1, keepdims=True) + 1e-10)
        if first:
            self.groups = self._cluster()
            labels = sorted(set(self.groups), key=lambda g: int(np.flatnonzero(self.groups == g)[0]))
            self.h0_names = {g: f"S{i + 1:02d}" for i, g in enumerate(labels)}
            self.h0_centroids = {g: _unit_mean(self.emb[self.groups == g]) for g in labels}
        else:   # new units: the h0 cluster of the old unit they overlap most (else nearest)
            keys = sorted(self.h0_centroids)
            c = np.array([self.h0_centroids[k] for k in keys])
            groups = np.array(keys)[np.argmax(self.emb @ c.T, axis=1)]
            old_spans, old_groups = self.old
            for i, (a, b) in enumerate(self.spans):
                cover = np.minimum(old_spans[:, 1], b) - np.maximum(old_spans[:, 0], a)
                if cover.size and cover.max() > 0:
                    groups[i] = old_groups[int(np.argmax(cover))]
            self.groups = groups

    def _cluster(self) -> np.ndarray:
        from scipy.cluster.hierarchy import fcluster, linkage

        n = len(self.emb)
        if n < 2:
            return np.zeros(n, dtype=int)
        from scipy.spatial.distance import pdist

        # a unit without any feature left (all zeros) has no cosine distance: the farthest
        distances = np.nan_to_num(pdist(self.emb, metric="cosine"), nan=2.0, posinf=2.0)
        tree = linkage(distances, method="average")
        groups = fcluster(tree, t=THRESHOLD, criterion="distance")
        seconds = self.spans[:, 1] - self.spans[:, 0]
        while True:   # small clusters join their nearest neighbour (by centroid)
            keys = sorted(set(groups.tolist()))
            size = {k: seconds[groups == k].sum() for k in keys}
            small = [k for k in keys if size[k] < MIN_CLUSTER]
            if not small or len(keys) < 2:
                return groups
            k = min(small, key=lambda x: (size[x], x))
            c = _unit_mean(self.emb[groups == k])
            others = [o for o in keys if o != k]
            best = max(others, key=lambda o: (float(c @ _unit_mean(self.emb[groups == o])), -o))
            groups[groups == k] = best

    # -- labels -----------------------------------------------------------------------------
    def _at(self, t: float) -> int | None:
        inside = np.flatnonzero((self.spans[:, 0] <= t) & (t < self.spans[:, 1]))
        if inside.size:
            return int(inside[0])
        if not len(self.spans):
            return None
        centre = self.spans.mean(axis=1)
        k = int(np.argmin(np.abs(centre - t)))
        return k if abs(centre[k] - t) < UNIT else None

    def _seed_labels(self, resolve=None) -> dict[int, str]:
        """unit -> the label the human gave it (the latest answer wins), through `resolve`."""
        out: dict[int, str] = {}
        length = self.spans[:, 1] - self.spans[:, 0]
        for start, end, label in self.seeds:
            cover = np.minimum(self.spans[:, 1], end) - np.maximum(self.spans[:, 0], start)
            for k in np.flatnonzero(cover > 0.5 * length):
                out[int(k)] = resolve(label) if resolve else label
        return out

    def _merged_groups(self) -> np.ndarray:
        """The h0 clusters after the `same` answers, in the order given: yes merges the two
        clusters, no between two units of one cluster splits it in two (`_split`), each new
        cluster named after its parent."""
        groups = self.groups.copy()
        for n, (same, t1, t2) in enumerate(self.links):
            a, b = self._at(t1), self._at(t2)
            if a is None or b is None:
                continue
            ga, gb = int(groups[a]), int(groups[b])
            if same and ga != gb:
                keep, gone = sorted((ga, gb))
                groups[groups == gone] = keep
            elif not same and ga == gb:
                members = np.flatnonzero(groups == ga)
                side = self._split(members, a, b)
                new = SPLIT_BASE + n
                groups[members[side == 1]] = new
                self.h0_names.setdefault(new, f"{self.h0_names.get(ga, f'S{ga:02d}')}x{n + 1}")
        return groups

    def _split(self, members: np.ndarray, a: int, b: int) -> np.ndarray:
        """0/1 per member: two voices told apart at units a and b. By pitch (1-D 2-means
        started from theirs) when both are voiced, else by embedding (2-means started from
        them); the units without pitch go to the nearer side's centroid."""
        f0 = self.unit_f0[members]
        voiced = ~np.isnan(f0)
        side = np.zeros(len(members), dtype=int)
        if not np.isnan(self.unit_f0[a]) and not np.isnan(self.unit_f0[b]) \
                and self.unit_f0[a] != self.unit_f0[b]:
            centre = np.array([self.unit_f0[a], self.unit_f0[b]])
            for _ in range(20):
                side[voiced] = np.argmin(np.abs(f0[voiced, None] - centre[None, :]), axis=1)
                side[members == a], side[members == b] = 0, 1
                centre = np.array([f0[voiced & (side == i)].mean() for i in (0, 1)])
            rest = ~voiced
        else:
            rest = np.ones(len(members), dtype=bool)
            side[:] = np.argmax(self.emb[members] @ np.array([self.emb[a], self.emb[b]]).T, axis=1)
        c = np.array([_unit_mean(self.emb[members[(side == i) & ~rest]] if np.any((side == i) & ~rest)
                                 else self.emb[[a, b][i]]) for i in (0, 1)])
        for _ in range(8 if rest.all() else 1):
            side[rest] = np.argmax(self.emb[members[rest]] @ c.T, axis=1)
            side[members == a], side[members == b] = 0, 1
            c = np.array([_unit_mean(self.emb[members[side == i]]) for i in (0, 1)])
        return side

    def _aliases(self, groups: np.ndarray) -> dict[str, str]:
        """A speaker name a `segment` answer gave -> the cluster whose voice it is (the
        nearest centroid within `THRESHOLD`, one name per cluster, most heard names first)."""
        names = {self.h0_names.get(g, f"S{g:02d}") for g in set(groups.tolist())}
        heard = self._seed_labels()
        counts: dict[str, int] = {}
        for k, label in heard.items():
            if label in self.said_names and label not in names and label not in self.new_names:
                counts[label] = counts.get(label, 0) + 1
        keys = sorted(set(groups.tolist()))
        mu = {g: _unit_mean(self.emb[groups == g]) for g in keys}
        out: dict[str, str] = {}
        taken: set[int] = set()
        for label in sorted(counts, key=lambda x: (-counts[x], x)):
            c = _unit_mean(self.emb[[k for k, x in heard.items() if x == label]])
            free = [g for g in keys if g not in taken]
            if not free:
                break
            g = max(free, key=lambda g: (float(c @ mu[g]), -g))
            if 1.0 - float(c @ mu[g]) < THRESHOLD:
                out[label] = self.h0_names.get(g, f"S{g:02d}")
                taken.add(g)
        return out

    def _labels(self) -> list[str]:
        groups = self._merged_groups()
        self.alias = self._aliases(groups)
        seeds = self._seed_labels(lambda x: self.alias.get(x, x))
        keys = sorted(set(groups.tolist()))
        own = {g: self.h0_names.get(g, f"S{g:02d}") for g in keys}
        group_of = {name: g for g, name in own.items()}
        mu = {g: _unit_mean(self.emb[groups == g]) for g in keys}
        by_label: dict[str, list[int]] = {}
        for k, label in sorted(seeds.items()):
            by_label.setdefault(label, []).append(k)
        # a cluster the human names after another of ours (most of its seeds, none for its
        # own name) joins that one when their voices are close enough
        name = dict(own)
        for g in keys:
            inside = [seeds[k] for k in np.flatnonzero(groups == g) if k in seeds]
            if not inside or own[g] in inside:
                continue
            top = max(sorted(set(inside)), key=inside.count)
            h = group_of.get(top)
            if (h is not None and h != g and 2 * inside.count(top) > len(inside)
                    and 1.0 - float(mu[g] @ mu[h]) < MERGE_DIST):
                name[g] = top
        labels = [""] * len(self.emb)
        fine = self.emb.copy()      # inside a cluster, pitch tells close voices apart
        fine[:, 2 * N_MFCC:] *= FINE_PITCH
        fine /= np.linalg.norm(fine, axis=1, keepdims=True) + 1e-10
        for g in keys:
            members = np.flatnonzero(groups == g)
            free = [k for k in members if k not in seeds]
            cents = {name[g]: _unit_mean(fine[free] if free else fine[members])}
            for label in sorted({seeds[k] for k in members if k in seeds} - {name[g]}):
                cents[label] = _unit_mean(fine[by_label[label]])
            names = list(cents)
            c = np.array([cents[x] for x in names])
            fixed = np.array([names.index(seeds[k]) if k in seeds else -1 for k in members])
            assign = np.argmax(fine[members] @ c.T, axis=1)
            for _ in range(8):      # k-means inside the cluster, the seeds fixed
                assign = np.where(fixed >= 0, fixed, assign)
                for i in range(len(names)):
                    if np.any(assign == i):
                        c[i] = _unit_mean(fine[members[assign == i]])
                assign = np.argmax(fine[members] @ c.T, axis=1)
            assign = np.where(fixed >= 0, fixed, assign)
            for j, k in enumerate(members):
                labels[k] = seeds.get(int(k), names[assign[j]])
        return labels

    def _relabel(self) -> tuple:
        labels = self._labels()
        turns: list[list] = []
        for (start, end), label in zip(self.spans.tolist(), labels):
            if turns and turns[-1][2] == label and start - turns[-1][1] < self.bridge + WIN:
                turns[-1][1] = max(turns[-1][1], end)
            else:
                turns.append([start, end, label])
        known = set(labels)
        for start, end, said, fallback in self.painted:   # what the human said, kept as said
            out = []
            for s, e, spk in turns:
                if e <= start or s >= end:
                    out.append([s, e, spk])
                    continue
                if s < start:
                    out.append([s, start, spk])
                if e > end:
                    out.append([end, e, spk])
            turns = out + [[s, e, self.alias.get(spk) or (spk if spk in known else None)
                            or fallback.get(spk, spk)] for s, e, spk in said]
        turns.sort()
        return tuple((round(s, 3), round(e, 3), spk) for s, e, spk in turns if e - s > 1e-3)

    # -- active mode ------------------------------------------------------------------------
    def request(self):
        labels = self._labels()
        groups = self._merged_groups()
        keys = sorted(set(groups.tolist()))
        seconds = self.spans[:, 1] - self.spans[:, 0]
        # 1. a large cluster whose two halves sound apart: is it one speaker?
        for g in sorted(keys, key=lambda g: -seconds[groups == g].sum()):
            members = np.flatnonzero(groups == g)
            if len(members) < 6:
                continue
            a, b = self._halves(members)
            if a is None:
                continue
            key = ("split", self.h0_names.get(g, f"S{g:02d}"))
            if key in self.asked:
                continue
            self.asked.add(key)
            return P.Request("same", P.SameTarget(round(float(self.spans[a].mean()), 3),
                                                  round(float(self.spans[b].mean()), 3)))
        # 2. the closest pairs of clusters: one speaker split in two?
        pairs = []
        cents = {g: _unit_mean(self.emb[groups == g]) for g in keys}
        for i, g in enumerate(keys):
            for h in keys[i + 1:]:
                pairs.append((-float(cents[g] @ cents[h]), g, h))
        names = {g: self.h0_names.get(g, f"S{g:02d}") for g in keys}
        apart = set()
        for same, t1, t2 in self.links:
            a, b = self._at(t1), self._at(t2)
            if not same and a is not None and b is not None:
                apart.add(frozenset((int(groups[a]), int(groups[b]))))
        for _, g, h in sorted(pairs)[:3]:
            key = ("pair", frozenset((names[g], names[h])))
            if key in self.asked or frozenset((g, h)) in apart:
                continue
            a, b = self._medoid(np.flatnonzero(groups == g)), self._medoid(np.flatnonzero(groups == h))
            self.asked.add(key)
            return P.Request("same", P.SameTarget(round(float(self.spans[a].mean()), 3),
                                                  round(float(self.spans[b].mean()), 3)))
        # 3. who speaks where it is least sure
        seeds = self._seed_labels()
        names = sorted(set(labels))
        c = np.array([_unit_mean(self.emb[[k for k, x in enumerate(labels) if x == n]])
                      for n in names])
        sims = np.sort(self.emb @ c.T, axis=1)
        margin = sims[:, -1] - (sims[:, -2] if len(names) > 1 else 0.0)
        for k in np.argsort(margin, kind="stable"):
            t = round(float(self.spans[k].mean()), 3)
            if int(k) in seeds or ("name", t) in self.asked or seconds[k] < 0.5:
                continue
            self.asked.add(("name", t))
            return P.Request("name", P.PointTarget(t))
        return None

    def _medoid(self, members: np.ndarray) -> int:
        mu = _unit_mean(self.emb[members])
        longest = self.spans[members, 1] - self.spans[members, 0]
        score = self.emb[members] @ mu + 0.01 * longest   # central, and long enough to hear
        return int(members[int(np.argmax(score))])

    def _halves(self, members: np.ndarray):
        """Medoids of the two pitch modes of `members` (1-D 2-means of the units' median
        pitch) when they lie more than `PITCH_MODES` apart, else (None, None): two voices
        the clustering merged."""
        f0 = self.unit_f0[members]
        voiced = ~np.isnan(f0)
        if voiced.sum() < 6:
            return None, None
        values, kept = f0[voiced], members[voiced]
        centre = np.percentile(values, [25, 75])
        for _ in range(20):
            side = np.argmin(np.abs(values[:, None] - centre[None, :]), axis=1)
            if min(np.sum(side == 0), np.sum(side == 1)) == 0:
                return None, None
            centre = np.array([values[side == i].mean() for i in (0, 1)])
        if min(np.sum(side == 0), np.sum(side == 1)) < 3 or \
                abs(centre[1] - centre[0]) < math.log(PITCH_MODES):
            return None, None
        return self._medoid(kept[side == 0]), self._medoid(kept[side == 1])

    # -- learning ---------------------------------------------------------------------------
    def learn(self, message):
        kind, target, answer = message.kind, message.target, message.answer
        vad_changed = False
        if kind == "same" and isinstance(answer, bool) and getattr(target, "doc2", None) is None:
            self.links.append((answer, target.t1, target.t2))
        elif kind == "name" and isinstance(answer, str):
            k = self._at(target.t)
            if answer == "non-speech":
                self.painted.append((target.t - 0.25, target.t + 0.25, [], {}))
            elif k is not None:
                s, e = self.spans[k]
                self.seeds.append((float(s), float(e), answer))
                if answer not in {x[2] for x in self.turns}:
                    self.new_names.add(answer)
        elif kind == "segment" and isinstance(answer, (list, tuple)):
            start, end = target.start, target.end
            said = [[float(s), float(e), str(who)] for s, e, who in answer if e > s]
            self.painted.append((start, end, said, self._fallback(said)))
            self.seeds += _alone(said)
            self.said_names.update(who for _, _, who in said)
            self.speech_frames.append((start, end, False))
            self.speech_frames += [(s, e, True) for s, e, _ in said]
            vad_changed = True
        elif kind == "boundary" and isinstance(answer, (list, tuple)) and len(answer) == 2:
            s, e = float(answer[0]), float(answer[1])
            k = self._at(target.t)
            if k is not None and e > s:
                label = self._labels()[k]
                self.painted.append((s, e, [[s, e, label]], {}))
                self.speech_frames.append((s, e, True))
                vad_changed = True
        if vad_changed and self._learn_vad():
            self.old = (self.spans, self.groups)
            self._units()
        self.turns = self._relabel()
        return P.AdaptedReply(turns=self.turns)

    def _fallback(self, said: list) -> dict[str, str]:
        """Our label for each speaker a `segment` answer names, until its voice is known: the
        label of ours that covers most of its turns (or the nearest turn within 2 s), one
        per speaker, the longest-speaking first."""
        spoken: dict[str, float] = {}
        for s, e, who in said:
            spoken[who] = spoken.get(who, 0.0) + e - s
        out: dict[str, str] = {}
        for who in sorted(spoken, key=lambda w: (-spoken[w], w)):
            used = set(out.values())
            cover: dict[str, float] = {}
            near: dict[str, float] = {}
            for s, e, w in said:
                if w != who:
                    continue
                for a, b, label in self.turns:
                    if label in used:
                        continue
                    overlap = min(b, e) - max(a, s)
                    if overlap > 0:
                        cover[label] = cover.get(label, 0.0) + overlap
                    gap = max(a - e, s - b, 0.0)
                    if gap < 2.0:
                        near[label] = min(near.get(label, gap), gap)
            if cover:
                out[who] = max(sorted(cover), key=cover.get)
            elif near:
                out[who] = min(sorted(near), key=near.get)
        return out

    def _learn_vad(self) -> bool:
        """Choose the threshold share and bridged pause that classify the frames the human
        labelled best (speech inside said turns, silence elsewhere in a segment's span)."""
        label = np.full(self.energy.size, -1, dtype=np.int8)
        for start, end, speech in self.speech_frames:   # speech wins over silence
            a, b = int(start / HOP), int(math.ceil(end / HOP))
            if not speech:
                view = label[a:b]
                view[view < 0] = 0
        for start, end, speech in self.speech_frames:
            if speech:
                label[int(start / HOP):int(math.ceil(end / HOP))] = 1
        known = label >= 0
        if min((label == 1).sum(), (label == 0).sum()) * HOP < VAD_EVIDENCE:
            return False
        current = speech_mask(self.energy, self.share, self.bridge)
        floor = int(np.sum(current[known] != (label[known] == 1))) - VAD_GAIN
        best = None
        for share in SHARES:
            for bridge in BRIDGES:
                mask = speech_mask(self.energy, float(share), bridge)
                errors = int(np.sum(mask[known] != (label[known] == 1)))
                key = (errors, abs(share - VAD_SHARE) + abs(bridge - BRIDGE))
                if errors <= floor and (best is None or key < best[0]):
                    best = (key, float(share), bridge)
        if best is None:
            return False
        _, share, bridge = best
        if (share, bridge) == (self.share, self.bridge):
            return False
        self.share, self.bridge = share, bridge
        return True


def _alone(turns: list) -> list[tuple[float, float, str]]:
    """The parts of `turns` where their speaker speaks alone (overlapped speech seeds no one)."""
    out = []
    for i, (s, e, who) in enumerate(turns):
        pieces = [(s, e)]
        for j, (s2, e2, _) in enumerate(turns):
            if j == i:
                continue
            pieces = [p for a, b in pieces for p in ((a, min(b, s2)), (max(a, e2), b)) if p[1] > p[0]]
        out += [(a, b, who) for a, b in pieces]
    return out


def _pitch_stats(f0: np.ndarray) -> np.ndarray:
    voiced = f0[~np.isnan(f0)]
    if voiced.size < 5:
        return np.array([np.nan, np.nan])
    return np.array([np.median(voiced), np.percentile(voiced, 75) - np.percentile(voiced, 25)])


def _unit_mean(x: np.ndarray) -> np.ndarray:
    m = np.asarray(x).reshape(-1, DIM).mean(axis=0)
    return m / (np.linalg.norm(m) + 1e-10)


if __name__ == "__main__":
    sys.exit(serve(DiarAudio()))
