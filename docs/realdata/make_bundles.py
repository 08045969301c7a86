"""Build real-data bundles from the public reference data ($LLGUI_REFERENCE_DATA), outside the repository.

    python docs/realdata/make_bundles.py [OUT]      # default OUT: /tmp/realdata

Writes three bundles that the window is looked at on (issue 13):
- OUT/ami/run/bundle.toml: five AMI Mix-Headset test meetings, the VBx output as h_0, and a
  log of its own from `llgui simulate` (diar_clusters system, worst-first oracle);
- OUT/wmt/run/bundle.toml: WMT23 de-en ONLINE-B cut into four documents by line range, with a
  log from `llgui simulate` (mt_memory system, worst-first oracle);
- OUT/wmt-zh/run/bundle.toml: WMT23 en-zh ONLINE-B cut into four documents by line range
  (trg_lang = "zh": costs and diffs per character, issue 23), with a log from `llgui simulate`;
- OUT/ami-dev/run/bundle.toml: four AMI Mix-Headset dev meetings and an 89-minute recording
  made by joining IB4010 and IB4011 (the second shifted by the first's UEM end, its clusters
  renamed so that the two halves' clusters stay apart), with a log from `llgui simulate`
  (issue 23: long meetings; the window was never tuned to these);
- OUT/wmt-zh-nllb/run/bundle.toml: the same four documents translated by NLLB_Greedy, with a
  log of its own: two systems on the same documents;
- OUT/wmt-zh-campaign/campaign.toml: a campaign on those four batches, two systems of two
  model versions each (online: ONLINE-A then ONLINE-B; nllb: NLLB_Greedy then
  NLLB_MBR_BLEU), with the two runs above as their online runs;
- OUT/det/bundle.toml: real detection scores as target / non-target files (bob.measure nonsep
  and linsep, pyeer exp1 and exp2).
Nothing is copied into the repository: the bundles point at the reference data where it lies
(the joined recording's RTTM and UEM are written under OUT). `ONLY=ami-dev` builds only the
AMI dev bundle (two seconds instead of minutes).
"""
import os
import subprocess
import sys
from pathlib import Path

REF = Path(os.environ.get("LLGUI_REFERENCE_DATA", Path(__file__).resolve().parents[3]
                          / "shared" / "reference-data")).resolve()
AMI = ["ES2004a", "IS1009a", "TS3003a", "ES2004b", "EN2002a"]
# Processing dates spread over months and a new year, so the date axes have something to say.
AMI_DATES = ["2005-11-07", "2005-12-12", "2006-01-16", "2006-02-20", "2006-03-27"]
AMI_DEV = ["ES2011a", "IS1008b", "TS3004c", "IB4002"]
AMI_JOINED = ("IB4010", "IB4011")
WMT_RANGES = ["1-130", "131-260", "261-400", "401-549"]
WMT_DATES = ["2023-06-05", "2023-07-03", "2023-08-07", "2023-09-04"]
ZH_RANGES = ["1-37", "38-90", "91-160", "161-240"]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def ami_bundle(out: Path) -> Path:
    d = REF / "vbx-ami-mixheadset"
    docs = []
    for meeting, date in zip(AMI, AMI_DATES):
        docs.append(f'''[[documents]]
id = "{meeting}"
time = "{date}"
references = ["{d}/ref/test/{meeting}.rttm"]
hypothesis = "{d}/sys/test/{meeting}.rttm"
uem = "{d}/uem/test/{meeting}.uem"
''')
    return write(out / "ami" / "base.toml", f'''[bundle]
task = "diarization"
name = "AMI test (VBx)"
metrics = ["der", "jer"]

[settings]
collar = 0.5

''' + "\n".join(docs))


def joined_meeting(out: Path, first: str, second: str) -> tuple[Path, Path, Path]:
    """(reference, hypothesis, uem) of one recording made of two meetings, the second shifted
    by the first's UEM end; the second meeting's clusters are renamed (b<label>) since the
    system clustered the two separately. The reference speakers keep their names: the same
    four people speak in both meetings."""
    d = REF / "vbx-ami-mixheadset"
    offset = float((d / "uem" / "dev" / f"{first}.uem").read_text().split()[3])
    end = offset + float((d / "uem" / "dev" / f"{second}.uem").read_text().split()[3])
    name = f"{first}+{second}"
    paths = []
    for kind in ("ref", "sys"):
        rows = []
        for meeting, shift in ((first, 0.0), (second, offset)):
            for line in (d / kind / "dev" / f"{meeting}.rttm").read_text().splitlines():
                f = line.split()
                if len(f) < 8:
                    continue
                label = f[7] if kind == "ref" or shift == 0.0 else f"b{f[7]}"
                rows.append(f"SPEAKER {name} 1 {float(f[3]) + shift:.3f} {f[4]} <NA> <NA> "
                            f"{label} <NA> <NA>")
        paths.append(write(out / "ami-dev" / "joined" / f"{kind}.rttm", "\n".join(rows) + "\n"))
    paths.append(write(out / "ami-dev" / "joined" / "all.uem", f"{name} 1 0.000 {end:.3f}\n"))
    return tuple(paths)


def ami_dev_bundle(out: Path) -> Path:
    d = REF / "vbx-ami-mixheadset"
    docs = []
    for meeting, date in zip(AMI_DEV, AMI_DATES):
        docs.append(f'''[[documents]]
id = "{meeting}"
time = "{date}"
references = ["{d}/ref/dev/{meeting}.rttm"]
hypothesis = "{d}/sys/dev/{meeting}.rttm"
uem = "{d}/uem/dev/{meeting}.uem"
''')
    ref, hyp, uem = joined_meeting(out, *AMI_JOINED)
    docs.append(f'''[[documents]]
id = "{'+'.join(AMI_JOINED)}"
time = "{AMI_DATES[-1]}"
references = ["{ref}"]
hypothesis = "{hyp}"
uem = "{uem}"
''')
    return write(out / "ami-dev" / "base.toml", f'''[bundle]
task = "diarization"
name = "AMI dev (VBx) and an 89-minute recording"
metrics = ["der", "jer"]

[settings]
collar = 0.5

''' + "\n".join(docs))


def wmt_bundle(out: Path) -> Path:
    d = REF / "wmt23-general" / "txt"
    docs = []
    for i, (lines, date) in enumerate(zip(WMT_RANGES, WMT_DATES), 1):
        docs.append(f'''[[documents]]
id = "wmt23-de-en-{i}"
time = "{date}"
references = ["{d}/references/generaltest2023.de-en.ref.refA.en"]
hypothesis = "{d}/system-outputs/generaltest2023.de-en.hyp.ONLINE-B.en"
source = "{d}/sources/generaltest2023.de-en.src.de"
lines = "{lines}"
''')
    return write(out / "wmt" / "base.toml", '''[bundle]
task = "mt"
name = "WMT23 de-en (ONLINE-B)"
metrics = ["bleu", "chrf", "ter"]

''' + "\n".join(docs))


def wmt_zh_bundle(out: Path) -> Path:
    d = REF / "wmt23-general" / "txt"
    docs = []
    for i, (lines, date) in enumerate(zip(ZH_RANGES, WMT_DATES), 1):
        docs.append(f'''[[documents]]
id = "wmt23-en-zh-{i}"
time = "{date}"
references = ["{d}/references/generaltest2023.en-zh.ref.refA.zh"]
hypothesis = "{d}/system-outputs/generaltest2023.en-zh.hyp.ONLINE-B.zh"
source = "{d}/sources/generaltest2023.en-zh.src.en"
lines = "{lines}"
''')
    return write(out / "wmt-zh" / "base.toml", '''[bundle]
task = "mt"
name = "WMT23 en-zh (ONLINE-B)"
metrics = ["bleu", "chrf", "ter"]

[settings]
trg_lang = "zh"

''' + "\n".join(docs))


def wmt_zh_second_system(out: Path, system: str = "NLLB_Greedy") -> Path:
    """The zh bundle with another system's output: two systems on the same documents."""
    text = (out / "wmt-zh" / "base.toml").read_text(encoding="utf-8")
    return write(out / "wmt-zh-nllb" / "base.toml", text.replace("ONLINE-B", system))


ZH_MODELS = {"online": (("ONLINE-A", "2023-05-01"), ("ONLINE-B", "2023-08-01")),
             "nllb": (("NLLB_Greedy", "2023-05-01"), ("NLLB_MBR_BLEU", "2023-08-01"))}


def wmt_zh_campaign(out: Path) -> Path:
    """Four batches (the zh documents' lines of the whole test set), two systems of two model
    versions each (whole system outputs, cut by the batches' lines), the two simulated runs as
    their online runs."""
    d = REF / "wmt23-general" / "txt"
    folder = out / "wmt-zh-campaign"
    batches = []
    for i, (lines, date) in enumerate(zip(ZH_RANGES, WMT_DATES), 1):
        batches.append(f'[[batches]]\nid = "b{i}"\ntime = "{date}"\n'
                       f'references = ["{d}/references/generaltest2023.en-zh.ref.refA.zh"]\n'
                       f'lines = "{lines}"\n')
    systems = []
    for (name, models), run in zip(ZH_MODELS.items(), ("wmt-zh", "wmt-zh-nllb")):
        listed = ", ".join(f'{{id = "{m}", time = "{t}"}}' for m, t in models)
        systems.append(f'[[systems]]\nname = "{name}"\nmodels = [{listed}]\n'
                       f'hypotheses = "{d}/system-outputs/generaltest2023.en-zh.hyp.{{model}}.zh"\n'
                       f'bundle = "{out / run / "run" / "bundle.toml"}"\n')
    return write(folder / "campaign.toml", '[campaign]\nname = "WMT23 en-zh dry run"\n'
                 'task = "mt"\n\n[settings]\ntrg_lang = "zh"\n\n' + "\n".join(batches)
                 + "\n" + "\n".join(systems))


def det_bundle(out: Path) -> Path:
    b, p = REF / "bob-measure", REF / "pyeer" / "non_hist"
    tar = [b / "derived_nonsep-positives.txt", b / "derived_linsep-positives.txt",
           p / "exp1_true.txt", p / "exp2_true.txt"]
    non = [b / "derived_nonsep-negatives.txt", b / "derived_linsep-negatives.txt",
           p / "exp1_false.txt", p / "exp2_false.txt"]
    names = ["bob-nonsep", "bob-linsep", "pyeer-exp1", "pyeer-exp2"]
    q = lambda xs: "[" + ", ".join(f'"{x}"' for x in xs) + "]"
    return write(out / "det" / "bundle.toml", f'''[bundle]
task = "detection"
name = "bob.measure and pyeer scores"

[detection]
targets = {q(tar)}
nontargets = {q(non)}
names = {q(names)}
''')


def simulate(base: Path, system: str, budget: str, out: Path, *extra: str) -> None:
    cmd = [*extra, sys.executable, "-m", "llgui", "simulate", str(base), "--system",
           f"{system}={sys.executable} -m llgui.systems.{system}", "--oracle", "worst-first",
           "--budget", budget, "--seed", "13", "--out", str(out), "--quiet"]
    cmd = cmd[len(extra):] + list(extra)
    subprocess.run(cmd, check=True)


NEEDED = ("vbx-ami-mixheadset", "wmt23-general", "bob-measure", "pyeer")
"""The reference data's folders the bundles point at."""


def missing_reference_data() -> str | None:
    """Why the bundles cannot be built (nothing is written then), or None."""
    if not REF.is_dir():
        return (f"the reference data is not at {REF}: set LLGUI_REFERENCE_DATA to its folder "
                "(the one holding vbx-ami-mixheadset/, wmt23-general/, ...)")
    gone = [name for name in NEEDED if not (REF / name).is_dir()]
    if gone:
        return (f"{REF} lacks {', '.join(gone)}: set LLGUI_REFERENCE_DATA to the reference "
                "data's folder")
    return None


def main() -> None:
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        # (`--help` was taken for OUT: a folder named "--help" was made, then a traceback)
        print(__doc__.strip().splitlines()[0] + "\n\nusage: python docs/realdata/"
              "make_bundles.py [OUT]      # default OUT: /tmp/realdata",
              file=sys.stderr if sys.argv[1] not in ("-h", "--help") else sys.stdout)
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    problem = missing_reference_data()
    if problem:   # before anything is written: no half-made bundle is left behind
        print(f"make_bundles.py: {problem}", file=sys.stderr)
        sys.exit(2)
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/realdata")
    if os.environ.get("ONLY") == "ami-dev":
        simulate(ami_dev_bundle(out), "diar_clusters", os.environ.get("AMI_BUDGET", "22"),
                 out / "ami-dev" / "run", "--interactive-ratio", "0.6")
        print(out)
        return
    simulate(ami_bundle(out), "diar_clusters", os.environ.get("AMI_BUDGET", "22"), out / "ami" / "run",
             "--interactive-ratio", "0.6")  # some meetings active: the system asks `same`
    simulate(ami_dev_bundle(out), "diar_clusters", os.environ.get("AMI_BUDGET", "22"),
             out / "ami-dev" / "run", "--interactive-ratio", "0.6")
    simulate(wmt_bundle(out), "mt_memory", os.environ.get("WMT_BUDGET", "650"), out / "wmt" / "run")
    simulate(wmt_zh_bundle(out), "mt_memory", os.environ.get("ZH_BUDGET", "1500"),
             out / "wmt-zh" / "run")
    simulate(wmt_zh_second_system(out), "mt_memory", os.environ.get("ZH_BUDGET", "1500"),
             out / "wmt-zh-nllb" / "run")
    wmt_zh_campaign(out)
    det_bundle(out)
    print(out)


if __name__ == "__main__":
    main()
