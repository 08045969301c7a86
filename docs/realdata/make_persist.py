"""Real-data campaigns for the views of what persists (issue 33), outside the repository.

    python docs/realdata/make_persist.py [OUT]      # default OUT: /tmp/realdata

- OUT/persist-wmt/campaign.toml: WMT23 de-en, three batches of 50 segments; two systems, each
  with three replicates ("seeds") whose two model versions are real submissions taken as
  consecutive versions (alpha: NLLB_Greedy -> ONLINE-A, NLLB_MBR_BLEU -> ONLINE-B,
  AIRC -> ONLINE-W; beta: ONLINE-G -> GPT4-5shot, ONLINE-M -> ONLINE-Y,
  Lan-BridgeMT -> ZengHuiMT);
- OUT/persist-ami/campaign.toml: the AMI meetings ES2011a-d (one series: the same four
  speakers) as batches; one system, the published VBx output (M0) then the output of
  diar_clusters after `llgui simulate` (allies oracle) taught it on the series (M1: each
  meeting's final hypothesis), with that run as its online run (its relapses).
Nothing is copied into the repository: references point at the reference data where it lies.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

REF = Path(os.environ.get("LLGUI_REFERENCE_DATA", Path(__file__).resolve().parents[3]
                          / "shared" / "reference-data")).resolve()
REPLICATES = {"alpha": [("NLLB_Greedy", "ONLINE-A"), ("NLLB_MBR_BLEU", "ONLINE-B"),
                        ("AIRC", "ONLINE-W")],
              "beta": [("ONLINE-G", "GPT4-5shot"), ("ONLINE-M", "ONLINE-Y"),
                       ("Lan-BridgeMT", "ZengHuiMT")]}
BATCHES = [(0, 50), (50, 100), (100, 150)]
MEETINGS = ["ES2011a", "ES2011b", "ES2011c", "ES2011d"]


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def make_wmt(out: Path) -> Path:
    txt = REF / "wmt23-general" / "txt"
    ref = _lines(txt / "references" / "generaltest2023.de-en.ref.refA.en")
    root = out / "persist-wmt"
    (root / "ref").mkdir(parents=True, exist_ok=True)
    toml = ["[campaign]", 'name = "WMT23 de-en: submissions as model versions, 3 seeds"',
            'task = "mt"', 'metrics = ["chrf", "bleu"]', ""]
    for b, (lo, hi) in enumerate(BATCHES):
        (root / "ref" / f"b{b}.en").write_text("\n".join(ref[lo:hi]) + "\n", encoding="utf-8")
        toml += ["[[batches]]", f'id = "2023-0{b + 6}"', f'time = "2023-0{b + 6}-15"',
                 f'references = ["ref/b{b}.en"]', ""]
    for system, seeds in REPLICATES.items():
        for k, versions in enumerate(seeds):
            for m, name in enumerate(versions):
                hyp = _lines(txt / "system-outputs" / f"generaltest2023.de-en.hyp.{name}.en")
                folder = root / system / f"seed{k + 1}" / f"M{m}"
                folder.mkdir(parents=True, exist_ok=True)
                for b, (lo, hi) in enumerate(BATCHES):
                    (folder / f"2023-0{b + 6}.en").write_text("\n".join(hyp[lo:hi]) + "\n",
                                                              encoding="utf-8")
        toml += ["[[systems]]", f'name = "{system}"',
                 'models = [{id = "M0", time = "2023-06-01"}, {id = "M1", time = "2023-08-01"}]',
                 'replicates = ["seed1", "seed2", "seed3"]',
                 f'hypotheses = "{system}/{{replicate}}/{{model}}/{{batch}}.en"', ""]
    path = root / "campaign.toml"
    path.write_text("\n".join(toml), encoding="utf-8")
    return path


def make_ami(out: Path) -> Path:
    base = REF / "vbx-ami-mixheadset"
    root = out / "persist-ami"
    root.mkdir(parents=True, exist_ok=True)
    bundle = ["[bundle]", 'task = "diarization"', 'name = "AMI ES2011a-d"', "",
              "[settings]", "collar = 0.5", ""]
    for k, meeting in enumerate(MEETINGS):
        bundle += ["[[documents]]", f'id = "{meeting}"', f'time = "2005-11-0{k + 1}"',
                   f'references = ["{base / "ref" / "dev" / meeting}.rttm"]',
                   f'hypothesis = "{base / "sys" / "dev" / meeting}.rttm"',
                   f'uem = "{base / "uem" / "dev" / meeting}.uem"', ""]
    (root / "bundle.toml").write_text("\n".join(bundle), encoding="utf-8")
    run = root / "run"
    subprocess.run([sys.executable, "-m", "llgui", "simulate", str(root / "bundle.toml"),
                    "--system", "diar_clusters", "--oracle", "allies", "--seed", "1",
                    "--out", str(run)], check=True, stdout=subprocess.DEVNULL)
    # M1: each meeting's final hypothesis after the run (the last adapted turn list)
    final = {m: None for m in MEETINGS}
    for line in (run / "logs" / "system.jsonl").read_text().splitlines():
        step = json.loads(line)
        if step.get("adapted", {}).get("turns") is not None:
            final[step["doc"]] = step["adapted"]["turns"]
    for m in ("M0", "M1"):
        (root / "vbx" / m).mkdir(parents=True, exist_ok=True)
    for meeting in MEETINGS:
        source = base / "sys" / "dev" / f"{meeting}.rttm"
        (root / "vbx" / "M0" / f"{meeting}.rttm").write_bytes(source.read_bytes())
        turns = final[meeting]
        text = source.read_text() if turns is None else "".join(
            f"SPEAKER {meeting} 1 {s:.3f} {e - s:.3f} <NA> <NA> {spk} <NA> <NA>\n"
            for s, e, spk in turns if e > s)
        (root / "vbx" / "M1" / f"{meeting}.rttm").write_text(text)
    toml = ["[campaign]", 'name = "AMI ES2011a-d: VBx, then diar_clusters taught"',
            'task = "diarization"', 'metrics = ["der"]', "", "[settings]", "collar = 0.5", ""]
    for k, meeting in enumerate(MEETINGS):
        toml += ["[[batches]]", f'id = "{meeting}"', f'time = "2005-11-0{k + 1}"',
                 f'references = "{base / "ref" / "dev" / meeting}.rttm"',
                 f'uem = "{base / "uem" / "dev" / meeting}.uem"', ""]
    toml += ["[[systems]]", 'name = "diar_clusters"',
             'models = [{id = "M0", time = "2005-10-31"}, {id = "M1", time = "2005-11-05"}]',
             'hypotheses = "vbx/{model}/{batch}.rttm"', 'bundle = "run/bundle.toml"', ""]
    path = root / "campaign.toml"
    path.write_text("\n".join(toml), encoding="utf-8")
    return path


if __name__ == "__main__":
    gone = [name for name in ("wmt23-general", "vbx-ami-mixheadset") if not (REF / name).is_dir()]
    if gone:   # before anything is written
        print(f"make_persist.py: {REF} lacks {', '.join(gone)}: set LLGUI_REFERENCE_DATA to "
              "the reference data's folder", file=sys.stderr)
        sys.exit(2)
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/realdata")
    print(make_wmt(out))
    print(make_ami(out))
