"""Campaigns built from the published reference data (WMT23 de-en, VBx AMI), for the tests."""
from __future__ import annotations

from collections.abc import Collection

from pathlib import Path

WMT_SYSTEMS = {"alpha": ("ONLINE-A", "ONLINE-B"), "beta": ("GPT4-5shot", "NLLB_Greedy")}
"""Four WMT23 de-en submissions taken as two model versions of two "systems"."""


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def wmt_segments(reference_data: Path) -> tuple[list[str], dict[str, list[str]]]:
    txt = reference_data / "wmt23-general" / "txt"
    ref = _lines(txt / "references" / "generaltest2023.de-en.ref.refA.en")
    hyps = {name: _lines(txt / "system-outputs" / f"generaltest2023.de-en.hyp.{name}.en")
            for models in WMT_SYSTEMS.values() for name in models}
    return ref, hyps


def build_wmt_campaign(root: Path, reference_data: Path, batches: list[list[int]],
                       metrics=("bleu", "chrf")) -> Path:
    """A campaign in `root`: batch k holds the de-en segments `batches[k]` (0-based), dated
    one month apart; each system's model versions are WMT23 submissions."""
    ref, hyps = wmt_segments(reference_data)
    toml = ["[campaign]", 'name = "wmt23 de-en"', 'task = "mt"',
            "metrics = [" + ", ".join(f'"{m}"' for m in metrics) + "]", ""]
    (root / "ref").mkdir(parents=True, exist_ok=True)
    for b, indices in enumerate(batches):
        (root / "ref" / f"b{b}.en").write_text("\n".join(ref[i] for i in indices) + "\n",
                                               encoding="utf-8")
        toml += ["[[batches]]", f'id = "b{b}"', f'time = "2023-{b + 1:02d}-15"',
                 f'references = ["ref/b{b}.en"]', ""]
    for system, models in WMT_SYSTEMS.items():
        for m, name in enumerate(models):
            folder = root / system / f"M{m}"
            folder.mkdir(parents=True, exist_ok=True)
            for b, indices in enumerate(batches):
                (folder / f"b{b}.en").write_text("\n".join(hyps[name][i] for i in indices)
                                                 + "\n", encoding="utf-8")
        toml += ["[[systems]]", f'name = "{system}"',
                 'models = [{id = "M0", time = "2023-01-01"}, {id = "M1", time = "2023-04-01"}]',
                 f'hypotheses = "{system}/{{model}}/{{batch}}.en"', ""]
    path = root / "campaign.toml"
    path.write_text("\n".join(toml), encoding="utf-8")
    return path


PROTOCOLS = {"forgiving": (0.5, True), "fair": (0.5, False), "full": (0.0, False)}
"""VBx's three scoring protocols as pyannote settings: (collar total width, skip_overlap)."""


def shifted_rttm(source: Path, target: Path, shift: float) -> None:
    """A second "model version": every turn of the VBx output moved by `shift` seconds."""
    out = []
    for line in source.read_text().splitlines():
        f = line.split()
        if f and f[0] == "SPEAKER":
            f[3] = f"{max(0.0, float(f[3]) + shift):.3f}"
        out.append(" ".join(f))
    target.write_text("\n".join(out) + "\n")


def build_vbx_campaign(root: Path, reference_data: Path, protocol: str,
                       meetings: list[str] | None = None,
                       shifted: Collection[str] | None = None) -> Path:
    """The VBx AMI dev set as a campaign: meetings as batches (a day apart), one system with
    the published VBx output (M0) and a shifted copy (M1); settings from `protocol`. With
    `shifted`, M1 is shifted on those meetings only and M0's very file on the others (cells of
    the same content are scored once)."""
    base = reference_data / "vbx-ami-mixheadset"
    if meetings is None:
        meetings = sorted(p.stem for p in (base / "ref" / "dev").glob("*.rttm"))
    collar, skip = PROTOCOLS[protocol]
    toml = ["[campaign]", f'name = "vbx {protocol}"', 'task = "diarization"',
            'metrics = ["der"]', "", "[settings]", f"collar = {collar}",
            f"skip_overlap = {'true' if skip else 'false'}", ""]
    for k, meeting in enumerate(meetings):
        toml += ["[[batches]]", f'id = "{meeting}"', f'time = {k + 1}',
                 f'references = "{base / "ref" / "dev" / meeting}.rttm"', ""]
    for m in ("M0", "M1"):
        (root / "vbx" / m).mkdir(parents=True, exist_ok=True)
    for meeting in meetings:
        source = base / "sys" / "dev" / f"{meeting}.rttm"
        (root / "vbx" / "M0" / f"{meeting}.rttm").write_bytes(source.read_bytes())
        if shifted is None or meeting in shifted:
            shifted_rttm(source, root / "vbx" / "M1" / f"{meeting}.rttm", 0.25)
        else:
            (root / "vbx" / "M1" / f"{meeting}.rttm").write_bytes(source.read_bytes())
    toml += ["[[systems]]", 'name = "vbx"', 'models = [{id = "M0", time = 0}, {id = "M1", '
             f'time = {len(meetings)}}}]', 'hypotheses = "vbx/{model}/{batch}.rttm"', ""]
    path = root / f"campaign-{protocol}.toml"
    path.write_text("\n".join(toml), encoding="utf-8")
    return path


def small_mt_campaign(root: Path) -> Path:
    """2 systems x 2 models x 2 batches of 30 sentences (seeded), BLEU and TER."""
    import random

    rng = random.Random(5)
    words = [f"w{i}" for i in range(300)]
    lines = ["[campaign]", 'name = "heads"', 'task = "mt"', 'metrics = ["bleu", "ter"]', ""]
    (root / "ref").mkdir(parents=True)
    refs = {}
    for b in range(2):
        refs[b] = [" ".join(rng.choice(words) for _ in range(rng.randint(5, 15)))
                   for _ in range(30)]
        (root / "ref" / f"t{b}.txt").write_text("\n".join(refs[b]) + "\n")
        lines += ["[[batches]]", f'id = "t{b}"', f"time = {b * 10 + 5}",
                  f'references = "ref/t{b}.txt"', ""]
    for s in range(2):
        for m in range(2):
            folder = root / f"s{s}" / f"m{m}"
            folder.mkdir(parents=True)
            for b in range(2):
                hyp = [" ".join(w if rng.random() > 0.3 else rng.choice(words)
                                for w in r.split()) for r in refs[b]]
                (folder / f"t{b}.txt").write_text("\n".join(hyp) + "\n")
        lines += ["[[systems]]", f'name = "s{s}"',
                  'models = [{id = "m0", time = 0}, {id = "m1", time = 10}]',
                  f'hypotheses = "s{s}/{{model}}/{{batch}}.txt"', ""]
    path = root / "campaign.toml"
    path.write_text("\n".join(lines))
    return path
