"""Frozen vs. unfrozen kbapp, side by side: start-up times and size on disk.

    .venv/bin/python packaging/measure.py [--frozen dist/kbapp/kbapp] [--unfrozen .venv/bin/kbapp]

Times are the median of ``--runs`` runs after one warm-up run (so both read from the page
cache): ``kbapp --help``; ``kbapp search`` (hybrid: loads the model) on a library holding the
sample library; and ``kbapp gui`` with KBAPP_GUI_SMOKE_TEST=1, which reports when the window was
shown and when it had listed the library (seconds since the process started) and then exits; the
unfrozen app runs the same entry script with the virtualenv's Python. Sizes: the bundle folder,
the .deb and the tarball in dist/, against the virtualenv plus the model pack that the unfrozen
app runs from.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRY = ROOT / "packaging" / "pyinstaller" / "kbapp_entry.py"
SAMPLES = ROOT / "resources" / "sample_library"


def timed(cmd: list[str], env: dict[str, str], runs: int) -> dict[str, float]:
    """Median wall time of ``runs`` runs (after a warm-up), plus the medians of any timings the
    command reports as a JSON line (the GUI's ``shown_s``/``listed_s``); a failing command aborts."""
    samples: dict[str, list[float]] = {}
    for i in range(runs + 1):
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, check=False)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr.decode(errors='replace')[-2000:]}")
        if i:
            samples.setdefault("wall", []).append(wall)
            lines = proc.stdout.decode(errors="replace").strip().splitlines()
            report = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
            for key in ("shown_s", "listed_s"):
                if key in report:
                    samples.setdefault(key, []).append(float(report[key]))
    return {key: statistics.median(values) for key, values in samples.items()}


def size_mb(path: Path) -> float | None:
    if path.is_file():
        return path.stat().st_size / 1e6
    if path.is_dir():
        return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frozen", type=Path, default=ROOT / "dist" / "kbapp" / "kbapp")
    parser.add_argument("--unfrozen", type=Path, default=ROOT / ".venv" / "bin" / "kbapp")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    python = args.unfrozen.parent / "python"
    with tempfile.TemporaryDirectory(prefix="kbapp-measure-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KBAPP_")}
        env.update(QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(Path(tmp) / "config"))
        data = ["--data-dir", str(Path(tmp) / "library")]
        subprocess.run(
            [str(args.unfrozen), *data, "import", str(SAMPLES)], env=env, check=True, capture_output=True
        )
        gui_env = {**env, "KBAPP_GUI_SMOKE_TEST": "1"}
        commands = {
            "kbapp --help": ([str(args.frozen), "--help"], [str(args.unfrozen), "--help"], env),
            "kbapp search (hybrid)": (
                [str(args.frozen), *data, "search", "曝光时间 exposure"],
                [str(args.unfrozen), *data, "search", "曝光时间 exposure"],
                env,
            ),
            "kbapp gui": (
                [str(args.frozen), *data, "gui"],
                [str(python), str(ENTRY), *data, "gui"],
                gui_env,
            ),
        }
        labels = {"wall": "start to exit", "shown_s": "window shown", "listed_s": "library listed"}
        print(f"{'seconds, median of ' + str(args.runs):46}{'frozen':>10}{'unfrozen':>10}")
        for label, (frozen, unfrozen, cmd_env) in commands.items():
            f, u = timed(frozen, cmd_env, args.runs), timed(unfrozen, cmd_env, args.runs)
            for key in ("shown_s", "listed_s", "wall"):
                if key in f and key in u:
                    print(f"{label + ': ' + labels[key]:46}{f[key]:>10.2f}{u[key]:>10.2f}")
    dist = args.frozen.resolve().parent.parent
    venv = args.unfrozen.resolve().parent.parent
    print(f"\n{'size on disk, MB':46}{'frozen':>10}{'unfrozen':>10}")
    unfrozen_total = (size_mb(venv) or 0) + (size_mb(ROOT / "models") or 0)
    print(
        f"{'app folder / virtualenv + model pack':46}{size_mb(args.frozen.resolve().parent) or 0:>10.0f}"
        f"{unfrozen_total:>10.0f}"
    )
    for package in sorted(dist.glob("kbapp*.deb")) + sorted(dist.glob("kbapp-*.tar.gz")):
        print(f"{package.name:46}{size_mb(package) or 0:>10.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
