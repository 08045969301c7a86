"""`llgui` entry point: subcommands go to the headless CLI, anything else opens the window.

    llgui [BUNDLE ... | --demo] [--screenshot PNG]      the GUI
    llgui --demo-dir                                    where the packaged demo lies
    llgui score|replay|lifelong|det ...                   headless (llgui.cli), no Qt imported
"""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from llgui.cli import main as cli

    if argv and argv[0] in cli.SUBCOMMANDS:
        return cli.main(argv)
    if argv and argv[0] in {"-q", "--quiet"}:
        if len(argv) > 1 and argv[1] in cli.SUBCOMMANDS:
            return cli.main(argv)   # `llgui -q score B`: the commands' global option
        argv = argv[1:]   # the window prints only its errors anyway: -q changes nothing there
    if argv and argv[0] in {"-h", "--help"}:
        from llgui.gui.app import build_parser  # argparse only: Qt is not imported here

        build_parser(epilog=cli.commands_help()).print_help()
        return 0
    if argv and argv[0] == "--demo-dir":
        # Where the packaged demo lies, for commands on it after a pip install:
        # llgui score "$(llgui --demo-dir)/mt/bundle.toml"
        from llgui.resources import demo_dir

        print(demo_dir())
        return 0
    if argv and (argv[0] == "--version" or "--version" in argv and "--" not in argv):
        from llgui._version import __version__

        print(f"llgui {__version__}")
        return 0
    problem = _unopenable(argv, cli.SUBCOMMANDS)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    # The GUI is imported only here, so the CLI path never loads Qt.
    from llgui.gui.app import main as gui_main

    return gui_main(argv)


def _unopenable(argv: list[str], commands) -> str | None:
    """What is wrong with the window's command line before any window opens (exit 2): a
    first word that is neither a command nor a file (`llgui scor x.toml`: did you mean
    `score`?), or a bundle that does not exist or is not a regular file."""
    import difflib
    from pathlib import Path

    if argv and not argv[0].startswith("-") and not Path(argv[0]).exists() \
            and Path(argv[0]).suffix == "":
        close = difflib.get_close_matches(argv[0], commands, n=1, cutoff=0.6)
        hint = (f"; did you mean 'llgui {close[0]}'?" if close
                else f" (commands: {', '.join(commands)}; a bundle is a .toml file)")
        return f"llgui: {argv[0]!r} is neither a command nor a file{hint}"
    from llgui.gui.app import build_parser   # argparse only: Qt is not imported here

    import contextlib
    import io

    try:   # (quiet: the GUI's parse says it, once; it was printed twice, usage and all)
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            args, extra = build_parser().parse_known_args(argv)
    except SystemExit:
        return None   # argparse's own message and exit code follow in the GUI's parse
    if any(word.startswith("-") for word in extra):
        return None   # an unknown option (its value read as a bundle): the GUI's parse says
    for path in args.bundles:
        if not path.exists():   # (as `llgui score`: the file probably meant)
            from llgui.utils.names import meant_file

            close = meant_file(path)
            hint = f"; did you mean {str(close)!r}?" if close is not None else ""
            return f"llgui: {path}: no such file{hint}"
        if not path.is_file():
            return f"llgui: {path}: not a regular file (a bundle is a .toml file)"
    return None


if __name__ == "__main__":
    sys.exit(main())
