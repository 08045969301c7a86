"""An interactive-predictive MT system written as a new user would: from docs/protocol.md
alone ("Interactive-predictive MT (protocol 1.2)"), importing nothing of llgui.

It says "minor": 2 in its hello, starts from the bundle's hypothesis, and completes each
prefix from its own sentence: at word level it looks for the typed word a little further on
in its sentence (it had missed words) and otherwise takes the typed word as replacing its
word there; at character level it finishes the word begun with its own word at that place
when that word starts with it. It learns nothing. Run: python3 ipmt_external_system.py
"""
import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def complete_word(mine, written, typed):
    n = len(written.split())              # words the expert has fixed, the typed one last
    j = n - 1
    for k in range(n - 1, min(len(mine), n + 2)):
        if mine[k] == typed:              # the typed word is mine, a little further on
            j = k
            break
    rest = mine[j + 1:]
    return (" " + " ".join(rest)) if rest else ""


def complete_character(mine, written):
    words = written.split()
    partial = "" if written.endswith(" ") else words[-1]
    n = len(words) - (1 if partial else 0)
    if not partial:
        return " ".join(mine[n:])
    head = mine[n][len(partial):] if n < len(mine) and mine[n].startswith(partial) else ""
    rest = mine[n + 1:]
    return head + ((" " + " ".join(rest)) if rest else "")


lines = []
for raw in sys.stdin:
    if not raw.strip():
        continue
    message = json.loads(raw)
    kind = message["type"]
    if kind == "hello":
        send({"type": "hello", "name": "external-ipmt", "version": "0.1", "minor": 2})
    elif kind == "document":
        lines = list(message.get("hypothesis") or message.get("source") or [])
        send({"type": "hypothesis", "doc": message["doc"], "step": 0, "lines": lines})
    elif kind == "prefix":
        i = message["target"]["sentence"] - 1
        if message["accept"]:
            lines[i] = message["prefix"]
            completion = ""
        else:
            written = message["prefix"] + message["typed"]
            mine = lines[i].split()
            if message["unit"] == "word":
                completion = complete_word(mine, written, message["typed"])
            else:
                completion = complete_character(mine, written)
            lines[i] = written + completion
        send({"type": "completion", "doc": message["doc"], "step": message["step"],
              "completion": completion})
    elif kind in ("answer", "correction"):
        number = message["target"]["sentence"]
        lines[number - 1] = message["answer"]
        send({"type": "adapted", "step": message["step"],
              "lines": {str(number): message["answer"]}})
    elif kind == "bye":
        break
