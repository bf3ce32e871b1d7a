"""What one search from the command line costs from a cold process: wall time and peak memory of
``kbapp search`` (keyword and hybrid mode) against Recoll's ``recollq`` on the same files.

Libraries: the bundled sample library (4 documents, English and Chinese: what ``make run`` opens),
the import benchmark's manual (a) (gnuplot's 311-page PDF: the library size the targets are set
for) and its corpus (b) of SciFact abstracts (1,000 with ``--quick``, else 5,183).
Each is imported once with embeddings into a fresh kbapp library and indexed once by
``recollindex`` on a fresh configuration; then every question runs as a new process of each tool,
tools alternating, and the figure is the median over the questions. Peak memory is the child's
maximum resident set (``wait4``), the operating system's own count.

Run:  python -m bench.bench_cli [--quick] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.bench_import import RECOLL_MISSING, _env, _manual_corpus, _scifact_corpus, recoll_config
from bench.installed import as_installed
from bench.report import BASELINE_MISSING

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "resources" / "sample_library"
QUESTIONS = {
    "sample": ["exposure time", "曝光时间怎么设置", "E5021", "XK-200 port", "复位", "pump seal replacement"],
    "scifact": ["protein folding", "vitamin D deficiency", "CTLA-4", "insulin resistance", "tumour growth"],
    "manual": [
        "set terminal png",
        "logarithmic axis scale",
        "fit a function to data",
        "三维曲面怎么画",
        "坐标轴刻度",
    ],
}
MODES = ("lexical", "hybrid")


@dataclass(slots=True)
class Result:
    library: str
    files: int
    wall_s: dict[str, list[float]] = field(default_factory=dict)  # per tool: kbapp-lexical, ..., recollq
    peak_mb: dict[str, list[float]] = field(default_factory=dict)
    recoll_missing: str = ""


def _timed(cmd: list[str], env: dict[str, str], work: Path) -> tuple[float, float, str]:
    """Wall seconds, peak resident MB and standard output of one run of ``cmd``."""
    out_path, err_path = work / "out.txt", work / "err.txt"
    with out_path.open("w") as out, err_path.open("w") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, so Popen must not wait again
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd[:6])} failed ({proc.returncode}): {err_path.read_text()[-1000:]}")
    return elapsed, usage.ru_maxrss / 1024, out_path.read_text(encoding="utf-8")


def _kbapp_library(folder: Path, work: Path) -> Path:
    data = work / "kbapp-library"
    cmd = [sys.executable, "-m", "kbapp.cli.main", "--data-dir", str(data), "import", str(folder)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=_env())
    if out.returncode:
        raise RuntimeError(
            f"kbapp import failed ({out.returncode}): {out.stdout[-1500:]} {out.stderr[-1500:]}"
        )
    return data


def _recoll_index(folder: Path, work: Path) -> Path:
    conf = recoll_config(folder, work)
    out = subprocess.run(
        ["recollindex", "-c", str(conf), "-z"],
        capture_output=True,
        text=True,
        env=dict(os.environ, RECOLL_CONFDIR=str(conf)),
    )
    if out.returncode:
        raise RuntimeError(f"recollindex failed ({out.returncode}): {out.stderr[-1500:]}")
    return conf


def measure(name: str, folder: Path) -> Result:
    result = Result(name, sum(1 for p in folder.iterdir() if p.is_file()))
    have_recoll = shutil.which("recollq") is not None
    if not have_recoll:
        result.recoll_missing = RECOLL_MISSING
    with tempfile.TemporaryDirectory(prefix="kbapp-bench-cli-") as tmp:
        work = Path(tmp)
        data = _kbapp_library(folder, work)
        conf = _recoll_index(folder, work) if have_recoll else None
        runs: list[tuple[str, list[str], dict[str, str]]] = []
        for question in QUESTIONS[name]:
            for mode in MODES:
                cmd = [sys.executable, "-m", "kbapp.cli.main", "--data-dir", str(data), "search", "--json"]
                runs.append((f"kbapp {mode}", [*cmd, "--mode", mode, question], _env()))
            if conf is not None:
                recoll_env = dict(os.environ, RECOLL_CONFDIR=str(conf))
                runs.append(("recollq", ["recollq", "-c", str(conf), "-n", "0-10", question], recoll_env))
        for i, (tool, cmd, env) in enumerate(runs):
            wall, peak, out = _timed(cmd, env, work)
            first = tool.startswith("kbapp") and i < len(MODES)  # the first question must find something
            if first and not json.loads(out.splitlines()[-1]).get("results"):
                raise RuntimeError(f"{tool}: nothing found for {cmd[-1]!r}")
            result.wall_s.setdefault(tool, []).append(wall)
            result.peak_mb.setdefault(tool, []).append(peak)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="SciFact's first 1,000 abstracts instead of all")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args(argv)
    as_installed()
    results = [
        measure("sample", SAMPLE),
        measure("manual", _manual_corpus().folder),
        measure("scifact", _scifact_corpus(args.quick).folder),
    ]
    for r in results:
        for tool in r.wall_s:
            print(
                f"{r.library} ({r.files} files) {tool:<14} median {statistics.median(r.wall_s[tool]):.2f} s, "
                f"{statistics.median(r.peak_mb[tool]):.0f} MB peak",
                flush=True,
            )
        if r.recoll_missing:
            print(f"{r.library}: ERROR: {r.recoll_missing}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    return BASELINE_MISSING if any(r.recoll_missing for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
