"""Where a library lives: ``--data-dir``, else ``KBAPP_DATA_DIR``, else the user's data dir."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("KBAPP_DATA_DIR")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("kbapp", appauthor=False))
