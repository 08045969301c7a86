"""Relapses of a real run (issue 33, acceptance 2): the reference learner diar_clusters driven
by `llgui simulate` (allies oracle) over the AMI meetings ES2011a-d, whose four speakers
recur. Every relapse row equals an independent computation written here with pyannote.core:
the reference speaker at each `name` step's time, and in every later meeting the label of h_0
covering most of that speaker's speech (`Annotation.crop(...).chart()`)."""
from __future__ import annotations

import json

import pytest

from llgui.cli.main import main

MEETINGS = ["ES2011a", "ES2011b", "ES2011c", "ES2011d"]


@pytest.fixture(scope="module")
def run(reference_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("es2011")
    base = reference_data / "vbx-ami-mixheadset"
    lines = ["[bundle]", 'task = "diarization"', "", "[settings]", "collar = 0.5", ""]
    for k, m in enumerate(MEETINGS):
        lines += ["[[documents]]", f'id = "{m}"', f"time = {k}",
                  f'references = ["{base / "ref" / "dev" / m}.rttm"]',
                  f'hypothesis = "{base / "sys" / "dev" / m}.rttm"',
                  f'uem = "{base / "uem" / "dev" / m}.uem"', ""]
    (root / "bundle.toml").write_text("\n".join(lines))
    assert main(["simulate", str(root / "bundle.toml"), "--system", "diar_clusters",
                 "--oracle", "allies", "--seed", "1", "--out", str(root / "run")]) == 0
    return root / "run", base


def _annotation(path, uri):
    from pyannote.core import Annotation, Segment

    a = Annotation(uri=uri)
    for k, line in enumerate(path.read_text().splitlines()):
        f = line.split()
        if f and f[0] == "SPEAKER" and f[1] == uri:
            a[Segment(float(f[3]), float(f[3]) + float(f[4])), k] = f[7]
    return a


def test_relapse_rows_equal_pyannote(run, capsys):
    from pyannote.core import Segment

    out, base = run
    capsys.readouterr()
    assert main(["regressions", str(out / "bundle.toml"), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    refs = {m: _annotation(base / "ref" / "dev" / f"{m}.rttm", m) for m in MEETINGS}
    hyps = {m: _annotation(out / "hyp" / f"{m}.rttm", m) for m in MEETINGS}
    expected = []
    seen = {m: [(s.start, s.end, lab) for s, _, lab in hyps[m].itertracks(yield_label=True)]
            for m in MEETINGS}    # h_{n-1}: h_0, then each step's adapted turn list

    def at(turns, t):
        here = [x for x in turns if x[0] <= t < x[1]]
        return max(here, key=lambda x: x[1] - x[0])[2] if here else None

    for line in (out / "logs" / "system.jsonl").read_text().splitlines():
        step = json.loads(line)
        before = at(seen[step["doc"]], step["target"].get("t", -1.0))
        if step.get("adapted", {}).get("turns") is not None:
            seen[step["doc"]] = [tuple(x) for x in step["adapted"]["turns"]]
        if step["kind"] != "name":
            continue
        t = step["target"]["t"]
        here = [(seg, lab) for seg, _, lab in refs[step["doc"]].itertracks(yield_label=True)
                if seg.start <= t < seg.end]
        if not here or before == step["answer"]:   # silence, or no error fixed
            continue
        speaker = max(here, key=lambda x: x[0].duration)[1]
        for later in MEETINGS[MEETINGS.index(step["doc"]) + 1:]:
            if speaker not in refs[later].labels():
                continue
            speech = refs[later].label_timeline(speaker)
            chart = hyps[later].crop(speech, mode="intersection").chart()
            output = chart[0][0] if chart else None
            expected.append((f"{step['doc']}#{step['step']}", speaker, later, step["answer"],
                             output, "kept" if output == step["answer"] else "relapsed"))
    rows = [(r["correction"], r["unit"], r["retest"], r["taught"], r["output"], r["outcome"])
            for r in report["rows"]]
    assert len(rows) > 10 and rows == expected
    (section,) = report["relapses"]
    relapsed = {c for c, *_, outcome in expected if outcome == "relapsed"}
    assert section["retested"] == len({c for c, *_ in expected})
    assert section["relapsed"] == len(relapsed)
