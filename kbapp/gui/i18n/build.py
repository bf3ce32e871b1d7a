"""Refresh the translation sources from the code and compile them.

    .venv/bin/python -m kbapp.gui.i18n.build

pyside6-lupdate adds new strings to ``kbapp_zh_CN.ts`` (translate them in Qt Linguist,
``pyside6-linguist``) and writes English plural forms to ``kbapp_en.ts``; pyside6-lrelease
then compiles both to the ``.qm`` files the app loads. Both tools ship with
PySide6-Essentials, next to the Python executable.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from kbapp.gui.i18n import HERE

GUI = HERE.parent


def _tool(name: str) -> str:
    local = Path(sys.executable).with_name(name)
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: install PySide6-Essentials into this environment")
    return found


def sources() -> list[str]:
    return sorted(str(p) for p in GUI.rglob("*.py") if "i18n" not in p.parts)


def main() -> int:
    lupdate, lrelease = _tool("pyside6-lupdate"), _tool("pyside6-lrelease")
    subprocess.run(
        [lupdate, "-no-obsolete", "-locations", "none", *sources(), "-ts", str(HERE / "kbapp_zh_CN.ts")],
        check=True,
    )
    subprocess.run(
        [
            lupdate,
            "-no-obsolete",
            "-locations",
            "none",
            "-pluralonly",
            *sources(),
            "-ts",
            str(HERE / "kbapp_en.ts"),
        ],
        check=True,
    )
    for ts in sorted(HERE.glob("*.ts")):
        subprocess.run([lrelease, str(ts), "-qm", str(ts.with_suffix(".qm"))], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
