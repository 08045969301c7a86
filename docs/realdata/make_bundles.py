"""Build real-data bundles from ../shared/reference-data, outside the repository.

    python docs/realdata/make_bundles.py [OUT]      # default OUT: /tmp/realdata

Writes three bundles that the window is looked at on (issue 13):
- OUT/ami/run/bundle.toml: five AMI Mix-Headset test meetings, the VBx output as h_0, and a
  log of its own from `llgui simulate` (diar_clusters system, worst-first oracle);
- OUT/wmt/run/bundle.toml: WMT23 de-en ONLINE-B cut into four documents by line range, with a
  log from `llgui simulate` (mt_memory system, worst-first oracle);
- OUT/wmt-zh/run/bundle.toml: WMT23 en-zh ONLINE-B cut into four documents by line range
  (trg_lang = "zh": costs and diffs per character, issue 23), with a log from `llgui simulate`;
- OUT/det/bundle.toml: real detection scores as target / non-target files (bob.measure nonsep
  and linsep, pyeer exp1 and exp2).
Nothing is copied into the repository: the bundles point at the reference data where it lies.
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


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/realdata")
    simulate(ami_bundle(out), "diar_clusters", os.environ.get("AMI_BUDGET", "22"), out / "ami" / "run",
             "--interactive-ratio", "0.6")  # some meetings active: the system asks `same`
    simulate(wmt_bundle(out), "mt_memory", os.environ.get("WMT_BUDGET", "650"), out / "wmt" / "run")
    simulate(wmt_zh_bundle(out), "mt_memory", os.environ.get("ZH_BUDGET", "1500"),
             out / "wmt-zh" / "run")
    det_bundle(out)
    print(out)


if __name__ == "__main__":
    main()
