"""``kbapp gui``: open the desktop window (the default when the frozen app is started without arguments).

Qt is imported only here, when the window is asked for, so the command line and the core stay
free of it.
"""

from __future__ import annotations

import argparse
import sys


def cmd_gui(args: argparse.Namespace) -> int:
    from kbapp.gui.app import run

    return run(argv=sys.argv[:1], data_dir=args.data_dir, open_paths=args.paths)


def add_gui_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("gui", help="open the desktop window (and import the files given)")
    p.add_argument(
        "paths", nargs="*", help="files or folders to import (what the desktop's 'Open with' passes)"
    )
    p.set_defaults(func=cmd_gui)
