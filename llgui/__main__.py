"""`llgui` entry point: subcommands go to the headless CLI, anything else opens the window.

    llgui [BUNDLE ... | --demo] [--screenshot PNG]      the GUI
    llgui score|replay|lifelong|det ...                   headless (llgui.cli), no Qt imported
"""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from llgui.cli import main as cli

    if argv and argv[0] in cli.SUBCOMMANDS:
        return cli.main(argv)
    if argv and argv[0] in {"-h", "--help"}:
        from llgui.gui.app import build_parser  # argparse only: Qt is not imported here

        build_parser(epilog=cli.commands_help()).print_help()
        return 0
    if argv and argv[0] == "--version":
        from llgui import __version__

        print(f"llgui {__version__}")
        return 0
    # The GUI is imported only here, so the CLI path never loads Qt.
    from llgui.gui.app import main as gui_main

    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main())
