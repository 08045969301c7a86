"""Start the window: `llgui [BUNDLE ... | --demo] [--screenshot PNG]`.

Start-up stays light: Qt and pyqtgraph load here, sacrebleu and pyannote.metrics only when a
job first needs them (on a worker, after the window is painted).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from llgui.gui.demo import demo_bundles, demo_campaign
from llgui.resources import demo_dir


def build_parser(epilog: str | None = None) -> argparse.ArgumentParser:
    """The window's arguments; `epilog` (the headless commands) is printed as written."""
    from llgui._version import __version__

    parser = argparse.ArgumentParser(
        prog="llgui",
        description="Open bundles in the window: step through a lifelong-learning system's\n"
                    "corrections with live penalised scores. The commands below run headless.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"llgui {__version__}")
    parser.add_argument("bundles", nargs="*", type=Path, metavar="BUNDLE",
                        help="bundle files (*.toml) to open; a campaign file (a [campaign] "
                             "table) opens in the Systems tab")
    parser.add_argument("--demo", action="store_true", help="open the bundled demo")
    parser.add_argument("--screenshot", type=Path, metavar="PNG",
                        help="render offscreen once loaded, write the PNG and exit (exit 2 when a "
                             "bundle asked for failed to open, the PNG showing why)")
    parser.add_argument("--doc", metavar="ID", help="select this document")
    parser.add_argument("--step", type=int, metavar="N", help="go to step N of the document")
    parser.add_argument("--tab", choices=(*TABS, "all"),
                        help="show this tab; `all` with --screenshot writes one picture per tab "
                             "(PNG's name + -workbench, -time, -detection, -systems)")
    parser.add_argument("--metric", metavar="M", help="metric of the workbench")
    parser.add_argument("--size", default="1500x950", metavar="WxH",
                        help="window size (default: 1500x950)")
    parser.add_argument("--no-session", action="store_true",
                        help="neither restore nor save the session file")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="accepted as the commands take it; the window prints only errors")
    parser.add_argument("--close-after", type=int, metavar="MS",
                        help="close the window after MS milliseconds, as a user would "
                             "(unattended demos, tests)")
    parser.add_argument("--live", action="store_true",
                        help="open the live session on BUNDLE and start it (Session › Start "
                             "live session…); with --screenshot, render its first question")
    parser.add_argument("--system", metavar="NAME",
                        help="--live: the system (a reference system's name or a command)")
    parser.add_argument("--live-out", type=Path, metavar="DIR",
                        help="--live: the session's folder (default: live-session beside the "
                             "bundle; a scratch folder with --screenshot)")
    return parser


def available_platforms() -> list[str]:
    """The Qt platform plugins installed (offscreen, xcb, wayland, ...), from the plugin
    folders Qt searches, without starting Qt."""
    from PySide6.QtCore import QLibraryInfo

    folders = [Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"]
    for variable, sub in (("QT_QPA_PLATFORM_PLUGIN_PATH", ""), ("QT_PLUGIN_PATH", "platforms")):
        for entry in filter(None, os.environ.get(variable, "").split(os.pathsep)):
            folders.append(Path(entry) / sub)
    names = set()
    for folder in folders:
        try:
            files = list(folder.iterdir())
        except OSError:
            continue
        for file in files:
            if file.suffix in (".so", ".dylib", ".dll"):
                stem = file.name.split(".")[0]
                stem = stem[3:] if stem.startswith("lib") else stem
                names.add(stem[1:] if stem.startswith("q") else stem)
    return sorted(names)


def platform_problem() -> str | None:
    """Why $QT_QPA_PLATFORM names no installed platform plugin (Qt would abort), or None."""
    wanted = os.environ.get("QT_QPA_PLATFORM", "").strip()
    if not wanted:
        return None
    names = [w.split(":", 1)[0].strip() for w in wanted.split(";") if w.strip()]
    installed = available_platforms()
    if not installed or any(n in installed for n in names):
        return None   # nothing to check against, or one of the fallbacks exists
    return (f"QT_QPA_PLATFORM={wanted[:60]!r} names no installed Qt platform plugin "
            f"(installed: {', '.join(installed)})")


NO_DISPLAY = ("no display: neither DISPLAY nor WAYLAND_DISPLAY is set. Run llgui on a desktop, "
              "or render the window to a picture instead: llgui --demo --screenshot demo.png "
              "(python3 dev.py demo --screenshot demo.png in a clone); the headless commands "
              "(llgui score, replay, compare, ...) need no display")
"""Every command it names ends by itself: an offscreen window without --screenshot would not
(it shows nobody anything and waits for a close that never comes)."""
HEADLESS_PLATFORMS = {"offscreen", "minimal"}
"""Qt platforms that show a window to nobody at this machine's screen."""


def invisible_window_problem(args) -> str | None:
    """Why opening the window would run unseen until killed, or None: a platform that shows
    nothing (QT_QPA_PLATFORM=offscreen) with nothing that ends the run (--screenshot,
    --close-after)."""
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(":", 1)[0].strip().lower()
    if platform not in HEADLESS_PLATFORMS or args.screenshot:
        return None
    if args.close_after is not None or os.environ.get("LLGUI_EXIT_AFTER_FIRST_PAINT"):
        return None
    return (f"QT_QPA_PLATFORM={platform} draws the window where nobody sees it, and it would "
            "run until killed: add --screenshot PNG to render it once and exit "
            "(llgui --demo --screenshot demo.png; python3 dev.py demo --screenshot demo.png "
            "in a clone), or unset QT_QPA_PLATFORM on a desktop")
XCB_LIBRARIES = {"xcb-cursor": "libxcb-cursor0", "xkbcommon-x11": "libxkbcommon-x11-0",
                 "xcb-icccm": "libxcb-icccm4", "xcb-keysyms": "libxcb-keysyms1",
                 "xcb-image": "libxcb-image0", "xcb-render-util": "libxcb-render-util0",
                 "xcb-randr": "libxcb-randr0", "xcb-shape": "libxcb-shape0",
                 "EGL": "libegl1", "fontconfig": "libfontconfig1"}
"""The system libraries Qt's xcb platform plugin loads on Linux that a bare machine often
lacks (library name -> Debian/Ubuntu package); Qt aborts when one is missing."""


def _wayland_socket(name: str) -> Path:
    """The socket a Wayland client connects to for WAYLAND_DISPLAY=`name` (an absolute path,
    or a name in $XDG_RUNTIME_DIR, as libwayland-client resolves it)."""
    if os.path.isabs(name):
        return Path(name)
    return Path(os.environ.get("XDG_RUNTIME_DIR", f"/run/user/{os.getuid()}")) / name


def display_problem() -> str | None:
    """On Linux, why Qt could not open a window and would abort (SIGABRT) instead of saying
    so: no display at all, or a library of the xcb plugin missing. None elsewhere, or when
    $QT_QPA_PLATFORM chooses a platform."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM", "").strip():
        return None
    wayland = os.environ.get("WAYLAND_DISPLAY", "").strip()
    if wayland and _wayland_socket(wayland).exists():
        return None
    if not os.environ.get("DISPLAY"):
        if wayland:   # a compositor that is not there: Qt falls back to xcb, and aborts
            return (f"no display: WAYLAND_DISPLAY={wayland[:60]!r} names no running "
                    f"compositor (no socket {_wayland_socket(wayland)}) and DISPLAY is not set. "
                    + NO_DISPLAY.split(". ", 1)[1])
        return NO_DISPLAY
    import ctypes.util

    missing = [package for library, package in XCB_LIBRARIES.items()
               if ctypes.util.find_library(library) is None]
    if missing:
        return ("Qt's xcb platform plugin needs system libraries this machine lacks: "
                f"{' '.join(missing)} (Debian/Ubuntu: apt install {' '.join(missing)})")
    return None


def open_arguments(window, args) -> bool:
    """Open what the command line names: bundles in the workbench, a campaign file (one
    with a [campaign] table, given where a bundle goes) in the Systems tab unless `--tab`
    says otherwise, the demo; else the last session. False when the demo is missing."""
    from llgui.io.campaign import is_campaign_file

    campaigns = [] if args.demo else [p for p in args.bundles if is_campaign_file(p)]
    paths = demo_bundles() if args.demo else [p for p in args.bundles if p not in campaigns]
    if args.demo and not paths:
        return False
    # Load before showing, so the first paint already lists the documents (loaders are
    # fast; scoring waits on workers until the window has painted).
    if paths:
        window.open_bundles(paths, select_doc=args.doc, step=args.step, tab=args.tab,
                            metric=args.metric)
        if args.demo and demo_campaign() is not None:
            window.open_campaign(demo_campaign(), show=args.tab == "systems", defer=True)
    elif not campaigns:
        window.restore_session()
    for campaign in campaigns:
        window.open_campaign(campaign, show=args.tab in (None, "systems"))
        window.show_tab(args.tab or "systems")
    return True


OFFSCREEN_NOTES = ("This plugin does not support propagateSizeHints()",)
"""What Qt's offscreen platform says on every window it renders (three lines per
--screenshot): not a problem, and said to nobody who can act on it."""


def _quiet_offscreen_notes() -> None:
    """Drop Qt's offscreen-platform notes from stderr; every other Qt message goes through."""
    from PySide6.QtCore import qInstallMessageHandler

    previous = None

    def handler(kind, context, message):
        if message in OFFSCREEN_NOTES:
            return
        if previous is not None:
            previous(kind, context, message)
        else:
            sys.stderr.write(message + "\n")

    previous = qInstallMessageHandler(handler)


TABS = ("workbench", "time", "detection", "systems")


def tab_picture(target: Path, tab: str) -> Path:
    """Where `--tab all --screenshot TARGET` writes `tab`'s picture: TARGET's name + -tab."""
    return target.with_name(f"{target.stem}-{tab}{target.suffix or '.png'}")


def _shoot_every_tab(app, window, target: Path, args, width: int, height: int) -> None:
    """One process, every tab: each shown in turn and written once the window has settled
    (the first paint of a tab may start jobs: the Across-time matrix, the Systems table)."""
    pending, codes = list(TABS), []

    def shoot_next() -> None:
        tab = pending.pop(0)
        window.show_tab(tab)

        def save() -> None:
            codes.append(_save(window, tab_picture(target, tab)))
            if pending:
                shoot_next()
                return
            failed = getattr(window, "open_problems", [])
            for problem in failed:
                print(problem, file=sys.stderr)
            for note in picture_notes(window, args, width, height):
                print(f"llgui: {note}", file=sys.stderr)
            window.close()
            app.exit(2 if failed else max(codes))

        window.when_settled(save, timeout_ms=600000)

    window.when_settled(shoot_next, timeout_ms=600000)


LOOSE_FILE_OPTIONS = ("--ref", "--hyp", "--key", "--uem", "--src", "--scores")
"""`llgui score`'s and `det`'s options for plain files, which the window's command line does
not take (File > Open files... does)."""


def _parse_window_arguments(parser: argparse.ArgumentParser, argv) -> argparse.Namespace:
    """argparse's parse with what was meant for an option the window does not know: a
    close one (`--screenshoot`), or, for `score`'s plain-file options, where they go."""
    import difflib

    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    unknown = next((e for e in extra if e.startswith("-")), extra[0])
    name = unknown.split("=", 1)[0]
    known = [o for a in parser._actions for o in a.option_strings]
    if name in LOOSE_FILE_OPTIONS:
        hint = ("; the window opens bundles (BUNDLE.toml), a campaign or a run: open plain "
                "files with File > Open files..., or score them with `llgui score --ref REF "
                "--hyp HYP` (`llgui det SCORES --key KEY` for detection)")
    else:
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close and name.startswith("-") else ""
    parser.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    raise AssertionError("unreachable")   # argparse's error exits


def picture_notes(window, args, width: int, height: int) -> list[str]:
    """What a picture shows other than what was asked: a step past the document's last (or
    before its first) shown as its last (first), a size below the window's smallest drawn at
    that smallest (the picture is not the size asked for)."""
    notes = []
    state = window.state
    if args.step is not None and state.document() is not None:
        last = state.n_steps()
        if not 0 <= args.step <= last:
            shown = min(max(args.step, 0), last)
            notes.append(f"--step {args.step}: {state.selection.doc} has steps 0 to {last}; "
                         f"the picture shows step {shown}")
    size = window.size()
    if (size.width(), size.height()) != (width, height):
        notes.append(f"--size {width}x{height}: the window is at least "
                     f"{window.minimumSizeHint().width()}x{window.minimumSizeHint().height()}; "
                     f"the picture is {size.width()}x{size.height()}")
    return notes


def screenshot_problem(target: Path, every_tab: bool = False) -> str | None:
    """Why `--screenshot TARGET` cannot be written, before any window is built (a picture
    that fails to save at the end ran a window for nothing, and a save that raised in Qt's
    event loop left it running), else None. Its folder is made here if it is missing."""
    targets = [tab_picture(target, tab) for tab in TABS] if every_tab else [target]
    for path in targets:
        if path.exists() and not path.is_file():
            return f"--screenshot {path}: exists and is not a regular file (a folder or a device)"
    from PySide6.QtGui import QImageWriter

    formats = {bytes(f).decode().lower() for f in QImageWriter.supportedImageFormats()}
    suffix = target.suffix.lower().lstrip(".")
    if suffix not in formats and not (every_tab and not suffix):
        return (f"--screenshot {target}: not a picture's name: end it in .png (or "
                f"{', '.join('.' + f for f in sorted(formats & {'jpg', 'bmp', 'webp'}))})")
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"--screenshot {target}: {folder} is a file, not a folder"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"--screenshot {target}: cannot make its folder {target.parent}: {error.strerror}"
    if not os.access(target.parent, os.W_OK):
        return f"--screenshot {target}: its folder {target.parent} is not writable"
    return None


def _save(window, path: Path) -> int:
    """0 when the window's picture was written to `path`, else 2 with the reason said."""
    try:
        saved = window.save_screenshot(path)
    except OSError as error:
        print(f"llgui: --screenshot {path}: {error.strerror or error}", file=sys.stderr)
        return 2
    if not saved:
        print(f"llgui: --screenshot {path}: the picture could not be written (a full disk?)",
              file=sys.stderr)
        return 2
    return 0


def _picture_of_what_was_asked(problem: str, args, argv) -> str:
    """`problem`'s example commands (`--screenshot demo.png` of the demo) made the picture of
    what was asked: the user's own arguments (a bundle, --live, --doc, --step, --tab, --size)
    with --screenshot, so that the command given renders that and still ends."""
    import shlex

    given = [a for a in (sys.argv[1:] if argv is None else argv)]
    kept = [a for a in given if a != "--demo"]
    if not kept:
        return problem
    picture = "demo.png" if args.demo else "out.png"
    llgui = shlex.join(["llgui", *given, "--screenshot", picture])
    dev = shlex.join(["python3", "dev.py", *(["demo", *kept] if args.demo
                                              else ["llgui", *given]),
                      "--screenshot", picture])
    return (problem.replace("llgui --demo --screenshot demo.png", llgui)
            .replace("python3 dev.py demo --screenshot demo.png", dev))


def main(argv: list[str] | None = None) -> int:
    args = _parse_window_arguments(build_parser(), argv)
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from llgui.gui.window.import_check import quicken

    quicken()   # before pyqtgraph and the window's ~400 modules are imported
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    every_tab = args.tab == "all"
    if every_tab:
        if not args.screenshot or args.live:
            print("llgui: --tab all renders every tab to pictures: it needs --screenshot PNG "
                  "(and not --live)", file=sys.stderr)
            return 2
        args.tab = None
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"llgui: --size {args.size!r}: expected WIDTHxHEIGHT, e.g. 1500x950",
              file=sys.stderr)
        return 2
    if args.screenshot:
        problem = screenshot_problem(args.screenshot, every_tab)
        if problem:
            print(f"llgui: {problem}", file=sys.stderr)
            return 2

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    problem = ((platform_problem() or display_problem() or invisible_window_problem(args))
               if QApplication.instance() is None else None)
    if problem:   # Qt would abort (SIGABRT) in the QApplication constructor
        problem = _picture_of_what_was_asked(problem, args, argv)
        print(f"llgui: {problem}", file=sys.stderr)
        return 2
    _quiet_offscreen_notes()
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("llgui")
    app.setOrganizationName("llgui")

    if args.live:
        from llgui.gui.live.headless import run_live

        return run_live(app, args, width, height)
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=not args.no_session and not args.screenshot)
    window.resize(width, height)

    if not open_arguments(window, args):
        print(f"llgui: the demo bundles were not found in {demo_dir()} ($LLGUI_DEMO_DIR)",
              file=sys.stderr)
        return 2
    window.show()
    if args.close_after is not None:
        QTimer.singleShot(max(0, args.close_after), window.close)
    if os.environ.get("LLGUI_EXIT_AFTER_FIRST_PAINT"):
        # benchmarks/gate5: report the first painted window with the bundles loaded, then exit
        import time

        def painted() -> None:
            print(f"llgui-first-paint {time.perf_counter():.6f}", flush=True)
            window.jobs.shutdown(0)
            os._exit(0)

        window.on_first_loaded_paint(painted)
    if args.screenshot and every_tab:
        _shoot_every_tab(app, window, args.screenshot, args, width, height)
    elif args.screenshot:
        target = args.screenshot

        def shoot() -> None:
            code = _save(window, target)
            for note in picture_notes(window, args, width, height):
                print(f"llgui: {note}", file=sys.stderr)
            for error in getattr(window, "job_failures", []):   # a job that failed:
                print(f"llgui: internal error, please report: {error}", file=sys.stderr)
                code = max(code, 1)   # (the picture shows its message, not its numbers)
            failed = getattr(window, "open_problems", [])
            if failed:   # the picture shows the error; the exit says it too
                for problem in failed:
                    print(problem, file=sys.stderr)
                code = 2
            window.close()
            app.exit(code)

        # waits for the metric shown (TER of a long document takes seconds, not minutes)
        window.when_settled(shoot, timeout_ms=600000)
    return app.exec()
