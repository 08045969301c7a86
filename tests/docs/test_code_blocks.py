"""Every command the README and docs/ show runs as written, with the output they show.

The convention the documents follow (docs/developing.md, "Writing the docs"):

- a ```sh block is commands, one a line (`# comments` are dropped): each must exit 0;
- a ```console block is `$ command` lines each followed by the output it prints: the printed
  lines must be those shown, from the top, up to a line `...`;
- a ```python block runs as a script from the repository's root (stdin empty) and must exit 0;
- a plain ``` block is a synopsis (BUNDLE, ID ...) or a listing: not run;
- `<!-- not run: why -->` on the line before a block leaves it out, saying why (the two set-up
  commands, a recipe for a cluster of several machines).

`llgui ...` and `python3 dev.py llgui ...` run this checkout's llgui (a headless command through
its entry point in this process, the window in a process of its own); a command that opens the
window renders it offscreen once loaded (`--screenshot`) instead of waiting for a user;
`/tmp/` becomes a fresh folder per block, and `$(llgui --demo-dir)` the demo's folder, as the
shell would make it.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?ms)^(?:<!-- not run: (?P<why>[^>]*?) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)^```")


def blocks(language: str):
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            if match.group("lang") != language or match.group("why"):
                continue
            line = text.count("\n", 0, match.start()) + 1
            yield pytest.param(match.group("body"), id=f"{document.relative_to(REPO)}:{line}")


def command_line(text: str, tmp: Path, png: Path) -> list[str]:
    """The argv a documented command stands for, run against this checkout."""
    from llgui.resources import demo_dir

    # /tmp/ in a documented command is a scratch file: it becomes the test's own folder. That
    # happens before the demo's path goes in, which may itself lie under /tmp/ (a clone in the
    # system's temporary folder) and must stay as it is.
    text = text.replace("/tmp/", f"{tmp}/")
    text = text.replace("$(llgui --demo-dir)", str(demo_dir()))   # what the shell would do
    words = shlex.split(text)
    if words[:3] == ["python3", "dev.py", "llgui"]:
        words = ["llgui", *words[3:]]
    assert words[0] == "llgui", f"a documented command that is not llgui's: {text!r}"
    argv = [sys.executable, "-m", "llgui", *words[1:]]
    from llgui.cli.main import SUBCOMMANDS

    rest = words[1:]
    if not rest or (rest[0] not in SUBCOMMANDS and rest[0] not in {"--demo-dir", "--version",
                                                                   "--help", "-h"}):
        argv += ["--no-session", "--screenshot", str(png)]   # the window: render, then exit
    return argv


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """The cell and statistics cache of every block, as a user's is of every command they run:
    the demo campaign's cells, scored by the first block that needs them, are read by the
    later ones (five blocks scored them again, ~1.5 s of CPU each, in a fresh cache of their
    own). Never the user's cache."""
    return tmp_path_factory.mktemp("cache")


def run(text: str, tmp: Path, cache: Path) -> subprocess.CompletedProcess:
    settings = dict(QT_QPA_PLATFORM="offscreen", LLGUI_CACHE_DIR=str(cache),
                    PYQTGRAPH_QT_LIB="PySide6", COLUMNS="200")
    argv = command_line(text, tmp, tmp / "window.png")
    if argv[3:4] and argv[3] in _subcommands():
        return _in_process(argv[3:], settings)
    env = dict(os.environ, **settings)
    env.pop("LLGUI_DEMO_DIR", None)
    return subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)


def _subcommands() -> set[str]:
    from llgui.cli.main import SUBCOMMANDS

    return set(SUBCOMMANDS)


def _in_process(args: list[str], settings: dict) -> subprocess.CompletedProcess:
    """`python -m llgui ARGS` for a headless command (score, replay, simulate ...): llgui's
    entry point (llgui.__main__.main) called in this process, from the repository's root, with
    the same environment and an empty standard input. What a block checks is what the
    command prints and its exit, not its interpreter (a second one cost ~0.4 s of CPU of
    imports a command); the window's commands still run as processes of their own."""
    import contextlib
    import io

    from llgui.__main__ import main

    printed, said = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, open(os.devnull, encoding="utf-8") as empty:
        patch.chdir(REPO)
        patch.delenv("LLGUI_DEMO_DIR", raising=False)
        for name, value in settings.items():
            patch.setenv(name, value)
        patch.setattr(sys, "stdin", empty)
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(said):
            try:
                code = main(list(args))
            except SystemExit as stop:   # argparse's exits, as the interpreter would end
                code = stop.code if isinstance(stop.code, int) else (stop.code is not None)
    return subprocess.CompletedProcess(["llgui", *args], int(code), printed.getvalue(),
                                       said.getvalue())


def commands(body: str) -> list[str]:
    lines = []
    for raw in body.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line:
            lines.append(line)
    return lines


SUCCEEDED: set[str] = set()
"""The commands that ran, as written, and exited 0. A block that ends in one of them takes its
exit from there instead of running it again (nothing after it in the block reads what it
wrote): docs/window.md shows the headless live window of docs/live.md, ~2.3 s of CPU a run.
The blocks of this module run on one worker (tests/conftest.py); run alone, a block runs
every command it shows."""


RUN_ELSEWHERE = {
    "llgui resources/demo/mt/bundle.toml --live --system mt_memory --live-out /tmp/live "
    "--size 1366x768 --screenshot /tmp/live.png":
        "tests/gui/test_app.py::"
        "test_live_opens_the_live_session_headless_and_renders_its_first_question",
}
"""Documented commands that another test runs as this module would (`command_line`, from the
repository's root), checking more than their exit: the picture's size and the session folder
of the headless live window of docs/live.md and docs/window.md (~2.3 s of CPU a run). They
are not run a second time here."""


@pytest.mark.parametrize("body", list(blocks("sh")))
def test_sh_block_runs(body, tmp_path, cache):
    texts = commands(body)
    for k, text in enumerate(texts):
        if text in RUN_ELSEWHERE or (k == len(texts) - 1 and text in SUCCEEDED):
            continue
        done = run(text, tmp_path, cache)
        assert done.returncode == 0, f"{text}\n{done.stderr[-3000:]}"
        SUCCEEDED.add(text)


@pytest.mark.parametrize("body", list(blocks("console")))
def test_console_block_prints_what_it_shows(body, tmp_path, cache):
    sessions = re.split(r"(?m)^\$ ", body)[1:]
    assert sessions, "a console block shows at least one `$ command`"
    for session in sessions:
        text, *shown = session.rstrip("\n").split("\n")
        done = run(text, tmp_path, cache)
        assert done.returncode == 0, f"{text}\n{done.stderr[-3000:]}"
        printed = [line.rstrip() for line in done.stdout.splitlines()]
        expected = [line.rstrip() for line in shown]
        if "..." in expected:
            expected = expected[:expected.index("...")]
            printed = printed[:len(expected)]
        assert printed == expected, f"{text}\nprinted:\n" + "\n".join(printed)


@pytest.mark.parametrize("body", list(blocks("python")))
def test_python_block_runs(body, cache):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", LLGUI_CACHE_DIR=str(cache),
               PYQTGRAPH_QT_LIB="PySide6")
    env.pop("LLGUI_DEMO_DIR", None)
    done = subprocess.run([sys.executable, "-c", body], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_commands_run_elsewhere_are_documented_and_their_tests_exist():
    """Each command left to another test is shown in a sh block, and that test exists (it runs
    the command through `command_line`, as here)."""
    import importlib

    shown = {text for block in blocks("sh") for text in commands(block.values[0])}
    for text, test in RUN_ELSEWHERE.items():
        assert text in shown, text
        path, name = test.split("::")
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        assert callable(getattr(module, name, None)), test
        assert "command_line" in getattr(module, name).__code__.co_names, test


def test_every_runnable_block_is_found():
    """The convention holds: documents show commands in sh/console blocks (a block in
    another language would silently escape this test)."""
    languages = set()
    for document in DOCUMENTS:
        languages |= {m.group("lang") for m in BLOCK.finditer(document.read_text("utf-8"))}
    assert languages <= {"", "sh", "console", "toml", "json", "python", "jsonc"}, languages
    assert list(blocks("sh")) and list(blocks("console"))


def test_a_clone_under_the_temporary_folder_keeps_its_demo_path(monkeypatch, tmp_path):
    """/tmp/ of a documented command becomes the test's folder, but the demo's own path is left
    alone even when the clone lives under /tmp/ (three README blocks failed there)."""
    monkeypatch.setenv("LLGUI_DEMO_DIR", "/tmp/clone/resources/demo")
    argv = command_line('llgui score "$(llgui --demo-dir)/mt/bundle.toml" --format json '
                        '> /tmp/out.json', tmp_path, tmp_path / "w.png")
    assert "/tmp/clone/resources/demo/mt/bundle.toml" in argv
    assert f"{tmp_path}/out.json" in argv
