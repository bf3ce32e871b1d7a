"""``kbapp gui``: open the desktop window (the default when the frozen app is started without arguments).

Qt is imported only here, when the window is asked for, so the command line and the core stay
free of it.
"""

from __future__ import annotations

import argparse


def cmd_gui(args: argparse.Namespace) -> int:
    from kbapp.gui.app import run

    return run(data_dir=args.data_dir)


def add_gui_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("gui", help="open the desktop window")
    p.set_defaults(func=cmd_gui)
