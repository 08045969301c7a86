"""Build WMT24 bundles and a campaign (issue 35) from the public WMT24 system outputs,
outside the repository.

    python docs/realdata/make_wmt24.py WMT24_GIT_DIR [OUT]     # default OUT: /tmp/realdata

WMT24_GIT_DIR is a clone (or bare mirror) of github.com/wmt-conference/wmt24-news-systems;
the files are read from its HEAD with `git show`. Writes:
- OUT/wmt24/txt/...: the en-ja and en-hi sources, references, `.docs` files and system
  outputs, as they are in the repository;
- OUT/wmt24-ja-campaign/campaign.toml: every en-ja system of WMT24 (22 systems, 23 model
  versions: IKUN-C is IKUN's earlier version) on five batches cut from the test set by domain
  (news, social in two halves, speech, literary), output-only (no online runs), trg_lang =
  "ja" (BLEU with ja-mecab, as WMT scores Japanese);
- OUT/wmt24-hi/run/bundle.toml: en-hi ONLINE-B on four news documents (the `.docs` file's
  ids), with a log from `llgui simulate` (mt_memory, worst-first oracle);
- OUT/wmt24-ja/bundle.toml: en-ja ONLINE-B on three news documents (for the live session).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

JA_BATCHES = [("news", "2-150", "2024-06-27"), ("social-1", "151-415", "2024-06-27"),
              ("social-2", "416-681", "2024-06-27"), ("speech", "682-792", "2024-06-27"),
              ("literary", "793-998", "2024-06-27")]
# WMT24 had one test set and one submission per system: every batch and every model on one
# (made-up) date, so each version's S_P window [l_1, l_i] holds all five batches; IKUN-C and
# IKUN are two versions of one team's system on that date
VERSIONS = {"IKUN": (("IKUN-C", "2024-06-27"), ("IKUN", "2024-06-27"))}
MODEL_TIME = "2024-06-27"


def git_show(repo: Path, path: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={repo}", "show", f"HEAD:{path}"],
                          check=True, capture_output=True).stdout


def git_ls(repo: Path, folder: str) -> list[str]:
    out = subprocess.run(["git", f"--git-dir={repo}", "ls-tree", "--name-only", "HEAD",
                          folder + "/"], check=True, capture_output=True, text=True).stdout
    return [line.rsplit("/", 1)[1] for line in out.splitlines()]


def extract(repo: Path, out: Path, pair: str) -> Path:
    base = out / "wmt24" / "txt"
    for path in (f"sources/{pair}.txt", f"references/{pair}.refA.txt",
                 f"documents/{pair}.docs"):
        (base / path).parent.mkdir(parents=True, exist_ok=True)
        (base / path).write_bytes(git_show(repo, f"txt/{path}"))
    for name in git_ls(repo, f"txt/system-outputs/{pair}"):
        target = base / "system-outputs" / pair / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(git_show(repo, f"txt/system-outputs/{pair}/{name}"))
    return base


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def ja_campaign(base: Path, out: Path) -> Path:
    refs = base / "references" / "en-ja.refA.txt"
    batches = "".join(f'[[batches]]\nid = "{b}"\ntime = "{t}"\nreferences = ["{refs}"]\n'
                      f'lines = "{lines}"\n\n' for b, lines, t in JA_BATCHES)
    outputs = sorted(p.stem for p in (base / "system-outputs" / "en-ja").glob("*.txt"))
    in_versions = {m for models in VERSIONS.values() for m, _ in models}
    systems = []
    for name in sorted(set(outputs) - in_versions | set(VERSIONS), key=str.lower):
        models = VERSIONS.get(name, ((name, MODEL_TIME),))
        listed = ", ".join(f'{{id = "{m}", time = "{t}"}}' for m, t in models)
        systems.append(f'[[systems]]\nname = "{name}"\nmodels = [{listed}]\n'
                       f'hypotheses = "{base}/system-outputs/en-ja/{{model}}.txt"\n')
    return write(out / "wmt24-ja-campaign" / "campaign.toml",
                 '[campaign]\nname = "WMT24 en-ja"\ntask = "mt"\nmetrics = ["bleu", "chrf"]\n\n'
                 '[settings]\ntrg_lang = "ja"\n\n' + batches + "\n".join(systems))


def news_bundle(base: Path, pair: str, folder: Path, n_docs: int, system: str = "ONLINE-B",
                trg_lang: str | None = None) -> Path:
    docs = base / "documents" / f"{pair}.docs"
    ids: list[str] = []
    for line in docs.read_text(encoding="utf-8").splitlines():
        domain, docid = line.split("\t")
        if domain == "news" and docid not in ids:
            ids.append(docid)
    documents = "".join(
        f'[[documents]]\nid = "{docid}"\ntime = "2024-07-{k + 1:02d}"\n'
        f'source = "{base}/sources/{pair}.txt"\n'
        f'references = ["{base}/references/{pair}.refA.txt"]\n'
        f'hypothesis = "{base}/system-outputs/{pair}/{system}.txt"\n'
        f'docids = "{docs}"\ndocid = "{docid}"\n\n' for k, docid in enumerate(ids[:n_docs]))
    settings = f'[settings]\ntrg_lang = "{trg_lang}"\n\n' if trg_lang else ""
    return write(folder / "bundle.toml", f'[bundle]\ntask = "mt"\nname = "WMT24 {pair} '
                 f'{system}"\nmetrics = ["bleu", "chrf"]\n\n{settings}{documents}')


def simulate(base: Path, budget: str, out: Path) -> None:
    subprocess.run([sys.executable, "-m", "llgui", "simulate", str(base), "--system",
                    f"mt_memory={sys.executable} -m llgui.systems.mt_memory", "--oracle",
                    "worst-first", "--budget", budget, "--seed", "13", "--out", str(out),
                    "--quiet"], check=True)


def main() -> None:
    if len(sys.argv) < 2:
        print("usage: python docs/realdata/make_wmt24.py WMT24_GIT_DIR [OUT]  (a clone of "
              "github.com/wmt-conference/wmt24-news-systems)", file=sys.stderr)
        sys.exit(2)
    repo = Path(sys.argv[1])
    found = subprocess.run(["git", f"--git-dir={repo}", "cat-file", "-e",
                            "HEAD:txt/system-outputs/en-ja"], capture_output=True)
    if found.returncode != 0 and (repo / ".git").exists():   # a clone's folder, not its .git
        repo = repo / ".git"
        found = subprocess.run(["git", f"--git-dir={repo}", "cat-file", "-e",
                                "HEAD:txt/system-outputs/en-ja"], capture_output=True)
    if found.returncode != 0:   # before anything is written
        print(f"make_wmt24.py: {sys.argv[1]} is not a clone of wmt24-news-systems (no "
              "txt/system-outputs/en-ja at its HEAD)", file=sys.stderr)
        sys.exit(2)
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/realdata")
    ja = extract(repo, out, "en-ja")
    extract(repo, out, "en-hi")
    ja_campaign(ja, out)
    news_bundle(ja, "en-ja", out / "wmt24-ja", 3, trg_lang="ja")
    hi = news_bundle(ja, "en-hi", out / "wmt24-hi", 4)
    simulate(hi, "900", out / "wmt24-hi" / "run")
    print(out)


if __name__ == "__main__":
    main()
