"""The contract between the core and its front ends: what the GUI may import, and what that costs.

The window imports the GUI modules before it paints; if any of them reaches past the contract
module and the façade, the core's insides (and SQLAlchemy, numpy, FAISS, onnxruntime) load first.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GUI = REPO / "kbapp" / "gui"
ALLOWED = ("kbapp.contract", "kbapp.library", "kbapp.gui")
HEAVY = ("faiss", "onnxruntime", "sqlalchemy", "numpy")


def _kbapp_imports(path: Path) -> set[str]:
    """Every ``kbapp`` module ``path`` imports, at the top, in functions or under TYPE_CHECKING."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "kbapp")
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "kbapp":
            found.add(node.module)
    return found


def test_gui_imports_only_the_contract_the_facade_and_itself() -> None:
    outside = {
        f"{path.relative_to(REPO)}: {module}"
        for path in GUI.rglob("*.py")
        for module in _kbapp_imports(path)
        if not any(module == a or module.startswith(a + ".") for a in ALLOWED)
    }
    assert not outside


def test_contract_imports_only_the_standard_library() -> None:
    tree = ast.parse((REPO / "kbapp" / "contract.py").read_text(encoding="utf-8"))
    roots = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    roots |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert roots <= set(sys.stdlib_module_names) | {"__future__"}


# What ``kbapp gui`` imports before its window is up: the command line, then the window.
BEFORE_WINDOW = ("kbapp.cli.main", "kbapp.gui.main_window")
# ... and must not: the readers and the model, which the library and the import load later.
READERS = ("tokenizers", "pymupdf", "kbapp.ingest", "kbapp.chunking", "kbapp.embedding")


def test_what_the_window_waits_for_loads_none_of_the_heavy_libraries() -> None:
    code = (
        f"import json, sys; import {', '.join(BEFORE_WINDOW)}; "
        f"print(json.dumps([m for m in {HEAVY + READERS!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO, timeout=120
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
