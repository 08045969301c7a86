"""Make the demo meeting: four synthetic voices (espeak-ng) around a table, with real audio.

Writes into this folder (or OUT_DIR):

- `meeting.wav`: 16 kHz mono 16-bit PCM, about 3.5 minutes;
- `meeting.rttm`: the exact reference, one line per stretch of speech (a speaker's words with
  no pause of `PAUSE_SPLIT` seconds or more between them), times from the synthesis;
- `meeting.words.json`: every word with its speaker and times, in meeteval's SegLST format (a
  JSON list of {"session_id", "speaker", "start_time", "end_time", "words"}, one word each);
- `meeting.json`: what made them (espeak-ng's version, the voices, numpy and scipy versions)
  and the SHA-256 of each file.

The voices are espeak-ng voice + variant + pitch + speed; each utterance is synthesised whole
through libespeak-ng (ctypes), whose word events give where each word starts; a word ends at
its last sample above `SILENCE_DB` below the utterance's peak before the next word starts.
The utterances are placed on the meeting's timeline by the script below: turn-taking with
pauses, a few interruptions (the next speaker starts before the previous one ends) and
backchannels over someone else's turn. Two of the male voices are close on purpose (same
base voice and variant, pitches 20 apart), as colleagues' voices can be: a system that hears may confuse
them, and a correction can teach it the difference.

Usage: python resources/demo/meeting/make_meeting.py [OUT_DIR]

Needs libespeak-ng (Debian: `apt-get install espeak-ng`), numpy and scipy. espeak-ng gives the
same samples for the same version and voice data, so the files are reproducible where its
version is the one `meeting.json` records; numpy's legacy RandomState (a stable stream) makes
the faint background noise.
"""
from __future__ import annotations

import ctypes
import hashlib
import io
import json
import random
import re
import sys
import wave
from bisect import bisect_right
from pathlib import Path

import numpy as np
from scipy.signal import resample_poly

SESSION = "meeting"
RATE = 16_000
PAUSE_SPLIT = 0.4          # seconds: a pause this long between a speaker's words ends a turn
SILENCE_DB = 38.0          # a word's samples count as sound above peak - SILENCE_DB
NOISE_RMS = 24.0           # faint background noise (int16 units; about -62 dBFS)
SEED = 20261126

VOICES = {
    # name: (espeak-ng voice+variant, pitch 0-99, words per minute)
    "ana": ("en-us+f2", 62, 165),
    "ben": ("en-us+m3", 38, 150),
    "cleo": ("en-gb-x-rp+f4", 78, 175),
    "dan": ("en-us+m3", 58, 160),     # close to ben: same voice, pitch 20 higher
}

# (speaker, text, placement): placement is how the utterance starts relative to the one
# before it: "next" (after a pause), "cut" (interrupts: starts before the previous ends),
# "over" (a backchannel inside the previous utterance), "long" (after a long pause).
SCRIPT = [
    ("ana", "Okay, let's get started. Thanks everyone for coming. Today we need to decide on "
            "the release date and the budget for the pilot.", "next"),
    ("ben", "Sounds good. I sent the numbers around yesterday, did everyone get them?", "next"),
    ("cleo", "Yes, I have them here.", "next"),
    ("dan", "I got them too, but the second table looked strange to me.", "next"),
    ("ben", "Right, the second table has the costs per site, not per month.", "next"),
    ("ana", "Mm-hmm.", "over"),
    ("dan", "Ah, that explains it. Then the total is fine.", "next"),
    ("ana", "Good. So, the release date. Cleo, where are we with testing?", "next"),
    ("cleo", "We finished the first round last week. Most of the problems were small, but two "
             "of them need a real fix before we can ship anything.", "next"),
    ("ben", "Which two?", "cut"),
    ("cleo", "The export crashes on very long files, and the login page is slow on old "
             "phones.", "next"),
    ("dan", "The export one is mine. I think I can fix it in three or four days.", "next"),
    ("ana", "And the login page?", "next"),
    ("cleo", "That needs someone from the web team. I asked them on Monday.", "next"),
    ("ben", "Yeah.", "over"),
    ("ana", "Okay. Let's say two weeks for both, to be safe.", "next"),
    ("dan", "Two weeks is fine with me.", "next"),
    ("ben", "Wait, two weeks moves us past the end of the quarter. That changes the budget.",
     "long"),
    ("ana", "How much does it change?", "next"),
    ("ben", "Not much in money, but the pilot sites want to start in March. If we slip, they "
            "might wait until summer.", "next"),
    ("cleo", "We could ship to one site first and the others later.", "cut"),
    ("dan", "Right.", "over"),
    ("ana", "I like that. Ben, which site is the most ready?", "next"),
    ("ben", "The north office. They have the new phones already, so the login problem does "
            "not even touch them.", "next"),
    ("dan", "And their files are short, so the export bug will not hit them either.", "next"),
    ("cleo", "Then the north office can start on the first of March.", "next"),
    ("ana", "Great. Let's write that down. North office first, the other sites two weeks "
            "later.", "next"),
    ("ben", "I will update the budget tonight and send it again tomorrow morning.", "long"),
    ("cleo", "Could you also add a line for the extra testing?", "next"),
    ("ben", "Sure, how many days?", "next"),
    ("cleo", "Five days, maybe six.", "next"),
    ("ben", "Okay.", "over"),
    ("dan", "I can help with the testing after the export fix is done.", "next"),
    ("ana", "Thanks, Dan. One more thing before we finish. The training for the pilot users.",
     "next"),
    ("cleo", "I have slides from last year. They need new screenshots, but the rest is still "
             "good.", "next"),
    ("dan", "Are we doing it in person or online?", "cut"),
    ("ana", "Online for the other sites, in person for the north office, since they start "
            "first.", "next"),
    ("ben", "That works for the budget. Travel for one site is cheap.", "next"),
    ("ana", "Yeah.", "over"),
    ("cleo", "Then I will book a room for the last week of February.", "next"),
    ("ana", "Perfect. So, to sum up. The release moves two weeks, the north office starts "
            "first, Ben sends the new budget, Dan fixes the export, and Cleo prepares the "
            "training.", "long"),
    ("dan", "Sounds right.", "next"),
    ("ben", "Agreed.", "next"),
    ("cleo", "Thanks everyone.", "cut"),
    ("ana", "Thank you all. Same time next week.", "next"),
]


# --------------------------------------------------------------------------------------------
# espeak-ng through its C library: samples and word events


class _Event(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("unique_identifier", ctypes.c_uint),
                ("text_position", ctypes.c_int), ("length", ctypes.c_int),
                ("audio_position", ctypes.c_int), ("sample", ctypes.c_int),
                ("user_data", ctypes.c_void_p), ("id", ctypes.c_char * 8)]


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int,
                             ctypes.POINTER(_Event))
_WORD = 1                  # espeakEVENT_WORD
_SYNCHRONOUS = 2           # AUDIO_OUTPUT_SYNCHRONOUS
_RATE, _PITCH = 1, 3       # espeakRATE, espeakPITCH
_CHARS_UTF8, _POS_CHARACTER = 1, 1


class Espeak:
    def __init__(self) -> None:
        try:
            self.lib = ctypes.CDLL("libespeak-ng.so.1")
        except OSError:
            sys.exit("make_meeting.py: libespeak-ng not found (Debian: apt-get install espeak-ng)")
        self.rate = self.lib.espeak_Initialize(_SYNCHRONOUS, 0, None, 0)
        if self.rate <= 0:
            sys.exit("make_meeting.py: espeak-ng failed to start")
        self.lib.espeak_Info.restype = ctypes.c_char_p
        self.version = self.lib.espeak_Info(None).decode()
        self._samples: list[int] = []
        self._words: list[tuple[int, int, int]] = []
        self._callback = _CALLBACK(self._collect)      # kept alive as long as the library
        self.lib.espeak_SetSynthCallback(self._callback)

    def _collect(self, wav, n, events) -> int:
        if wav and n > 0:
            self._samples.extend(wav[:n])
        i = 0
        while events[i].type != 0:
            e = events[i]
            if e.type == _WORD:
                self._words.append((e.text_position, e.length, e.sample))
            i += 1
        return 0

    def say(self, text: str, voice: str, pitch: int, speed: int):
        """(int16 samples at self.rate, [(word, first sample)])"""
        if self.lib.espeak_SetVoiceByName(voice.encode()) != 0:
            sys.exit(f"make_meeting.py: espeak-ng has no voice {voice!r}")
        self.lib.espeak_SetParameter(_RATE, speed, 0)
        self.lib.espeak_SetParameter(_PITCH, pitch, 0)
        self._samples, self._words = [], []
        raw = text.encode("utf-8")
        self.lib.espeak_Synth(raw, len(raw) + 1, 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None)
        self.lib.espeak_Synchronize()
        # a word event's position is right but its length is not always (it stops at an
        # apostrophe), and a short word may share the event of the one before ("on the"):
        # each event takes the text's white-space tokens from its position to the next event's
        tokens = [(m.start(), m.group()) for m in re.finditer(r"\S+", text)]
        starts = [t[0] for t in tokens]
        found = []
        for position, _, sample in self._words:
            at = len(raw[:position - 1].decode("utf-8", errors="ignore"))
            k = bisect_right(starts, at) - 1
            if k >= 0 and (not found or k > found[-1][0]):
                found.append((k, sample))
        words = []
        for (k, sample), after in zip(found, found[1:] + [(len(tokens), None)]):
            group = [re.sub(r"^[^\w']+|[^\w']+$", "", tok) for _, tok in tokens[k:after[0]]]
            group = [w for w in group if w]
            if group:
                words.append((group, sample))
        return np.array(self._samples, dtype=np.int16), words


# --------------------------------------------------------------------------------------------
# Words and turns


def _loud(samples: np.ndarray, rate: int) -> np.ndarray:
    """Per 5 ms frame: is it above peak - SILENCE_DB?"""
    hop = rate // 200
    n = len(samples) // hop
    frames = samples[:n * hop].astype(float).reshape(n, hop)
    energy = 10 * np.log10(np.mean(frames ** 2, axis=1) + 1e-9)
    return energy > energy.max() - SILENCE_DB


def word_spans(samples: np.ndarray, words, rate: int) -> list[tuple[str, int, int]]:
    """(word, first sample, end sample) trimmed to the word's sound; the words of one event
    share its span in proportion to their letters."""
    loud = _loud(samples, rate)
    hop = rate // 200
    out = []
    for i, (group, start) in enumerate(words):
        stop = words[i + 1][1] if i + 1 < len(words) else len(samples)
        a, b = start // hop, max(start // hop + 1, stop // hop)
        idx = np.flatnonzero(loud[a:b])
        if idx.size == 0:
            continue          # a word with no sound of its own (rare): left out
        first, end = (a + idx[0]) * hop, (a + idx[-1] + 1) * hop
        letters = np.cumsum([0] + [len(w) for w in group])
        cuts = [first + (end - first) * int(c) // int(letters[-1]) for c in letters]
        out += [(w, cuts[j], cuts[j + 1]) for j, w in enumerate(group)]
    return out


def place(rng: random.Random, lengths: list[float]) -> list[float]:
    """Start times (seconds) of the script's utterances."""
    starts, previous_start, previous_end = [], 0.0, 1.2
    for (speaker, text, how), length in zip(SCRIPT, lengths):
        if how == "next":
            start = previous_end + rng.uniform(0.35, 1.1)
        elif how == "long":
            start = previous_end + rng.uniform(2.2, 3.2)
        elif how == "cut":
            start = previous_end - rng.uniform(0.5, 1.0)
        else:  # "over": a backchannel inside the previous utterance, which keeps the floor
            start = previous_start + rng.uniform(0.35, 0.65) * (previous_end - previous_start)
        start = round(start, 3)
        starts.append(start)
        if how != "over":
            previous_start, previous_end = start, start + length
        else:
            previous_end = max(previous_end, start + length)
    return starts


def build() -> dict[str, bytes]:
    engine = Espeak()
    rng = random.Random(f"llgui-meeting:{SEED}")
    utterances = []
    for speaker, text, _ in SCRIPT:
        voice, pitch, speed = VOICES[speaker]
        samples, words = engine.say(text, voice, pitch, speed)
        spans = word_spans(samples, words, engine.rate)
        first, last = spans[0][1], spans[-1][2]
        utterances.append((speaker, samples[first:last], [(w, a - first, b - first)
                                                          for w, a, b in spans]))
    starts = place(rng, [len(u[1]) / engine.rate for u in utterances])

    words_out, turns = [], []
    total = max(s + len(u[1]) / engine.rate for s, u in zip(starts, utterances)) + 1.5
    mix = np.zeros(int(round(total * RATE)) + RATE, dtype=float)
    for start, (speaker, samples, spans) in zip(starts, utterances):
        audio = resample_poly(samples.astype(float), RATE, engine.rate)
        at = int(round(start * RATE))
        mix[at:at + len(audio)] += audio
        turn = None
        for word, a, b in spans:
            t0 = round(start + a / engine.rate, 3)
            t1 = round(start + b / engine.rate, 3)
            words_out.append({"session_id": SESSION, "speaker": speaker, "start_time": t0,
                              "end_time": t1, "words": word})
            if turn is not None and t0 - turn[1] < PAUSE_SPLIT:
                turn[1] = t1
            else:
                turn = [t0, t1, speaker]
                turns.append(turn)
    mix = mix[:int(round(total * RATE))]
    noise = np.random.RandomState(SEED).normal(0.0, NOISE_RMS, size=mix.size)
    peak = np.max(np.abs(mix))
    pcm = np.clip(np.round(mix * (0.7 * 32767 / peak) + noise), -32768, 32767).astype("<i2")

    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())
    turns.sort(key=lambda t: (t[0], t[1], t[2]))
    rttm = "".join(f"SPEAKER {SESSION} 1 {s:.3f} {e - s:.3f} <NA> <NA> {spk} <NA> <NA>\n"
                   for s, e, spk in turns)
    words_out.sort(key=lambda w: (w["start_time"], w["speaker"]))
    files = {
        "meeting.wav": buffer.getvalue(),
        "meeting.rttm": rttm.encode(),
        "meeting.words.json": ("[\n" + ",\n".join(json.dumps(w) for w in words_out)
                               + "\n]\n").encode(),
    }
    import scipy

    about = {
        "made_by": "resources/demo/meeting/make_meeting.py",
        "tool": f"espeak-ng {engine.version} (libespeak-ng, ctypes)",
        "espeak_ng": engine.version,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "sample_rate": RATE,
        "duration_s": round(len(pcm) / RATE, 3),
        "voices": {k: {"voice": v, "pitch": p, "speed_wpm": s}
                   for k, (v, p, s) in VOICES.items()},
        "turn_split_pause_s": PAUSE_SPLIT,
        "seed": SEED,
        "sha256": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
    }
    files["meeting.json"] = (json.dumps(about, indent=2) + "\n").encode()
    return files


def main(argv: list[str]) -> int:
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: make_meeting.py [OUT_DIR]", file=sys.stderr)
        return 2
    out = Path(argv[0]) if argv else Path(__file__).resolve().parent
    out.mkdir(parents=True, exist_ok=True)
    files = build()
    for name, data in files.items():
        (out / name).write_bytes(data)
    print(f"wrote {', '.join(files)} into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
