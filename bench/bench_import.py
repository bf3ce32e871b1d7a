"""How long until a folder is keyword-searchable: ``kbapp import --no-embed`` against Recoll's
``recollindex -z``, the desktop search tool users already have, on the same files in the same run.

Corpora: (a) one 200+ page English manual (``gnuplot.pdf`` from Debian's ``gnuplot-doc``),
(b) the SciFact development set's 5,183 short text files, (c) 500 mixed documents (PDF, DOCX,
HTML, Markdown; 125 each) generated from the manual's pages into the git-ignored cache. Every run
starts from nothing — a fresh kbapp library folder, a fresh Recoll configuration folder with only
``topdirs`` set — and both tools run as separate processes, alternating, so load from other work
hits both alike; the figure is the median. Time stops when the tool exits (both have committed
their index then); a keyword query checks afterwards that the files really are searchable.

Run:  python -m bench.bench_import [--quick] [--runs 3] [--json OUT]
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
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.installed import as_installed
from bench.report import BASELINE_MISSING, TARGET_MISSED

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache"
MANUAL = Path("/usr/share/doc/gnuplot/gnuplot.pdf")
SCIFACT = Path(os.environ.get("KBAPP_EVAL_DIR", "/work/shared/eval")) / "scifact_train_en" / "docs"
MIXED_KINDS = ("pdf", "docx", "html", "md")
RECOLL_MISSING = "Recoll not installed: `apt-get install recoll` (as root) or your distribution's package"


@dataclass(slots=True)
class Corpus:
    key: str
    label: str
    folder: Path  # what both tools are pointed at
    files: int
    megabytes: float
    probe: str  # a word every run must find afterwards
    kbapp_target: float  # kbapp must be at least this many times Recoll's speed


@dataclass(slots=True)
class Result:
    key: str
    label: str
    files: int
    megabytes: float
    kbapp_s: list[float]
    recoll_s: list[float]
    kbapp_target: float
    recoll_missing: str = ""


def _size(folder: Path) -> tuple[int, float]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files) / 2**20


def _manual_corpus() -> Corpus:
    if not MANUAL.is_file():
        raise FileNotFoundError(f"{MANUAL} missing: `apt-get install gnuplot-doc` (Debian main)")
    folder = CACHE / "import" / "manual"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / MANUAL.name
    if not target.exists():
        shutil.copyfile(MANUAL, target)
    n, mb = _size(folder)
    return Corpus("a", "one 311-page English manual (gnuplot.pdf)", folder, n, mb, "splot", 1.0)


def _scifact_corpus(quick: bool) -> Corpus:
    if not SCIFACT.is_dir():
        raise FileNotFoundError(f"{SCIFACT} missing (the SciFact development set)")
    folder = SCIFACT
    label = "5,183 short English text files (SciFact)"
    if quick:  # a fixed subset, copied once into the git-ignored cache (CC BY-NC: never committed)
        folder = CACHE / "import" / "scifact1000"
        if not folder.exists():
            folder.mkdir(parents=True)
            for p in sorted(SCIFACT.glob("*.txt"))[:1000]:
                shutil.copyfile(p, folder / p.name)
        label = "1,000 of SciFact's short English text files"
    n, mb = _size(folder)
    return Corpus("b", label, folder, n, mb, "protein", 2.0)


def _write_mixed(folder: Path, count: int) -> None:
    """``count`` documents, a quarter of each kind, each holding two pages of the manual's text."""
    import docx
    import pymupdf

    with pymupdf.open(MANUAL) as pdf:
        pages = [p.get_text() for p in pdf]
    tmp = folder.with_name(folder.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for i in range(count):
        kind = MIXED_KINDS[i % len(MIXED_KINDS)]
        text = pages[(2 * i) % len(pages)] + "\n" + pages[(2 * i + 1) % len(pages)]
        paras = [p.strip() for p in text.split("\n") if p.strip()]
        title = f"Document {i}: {paras[0] if paras else 'untitled'}"
        path = tmp / f"doc{i:04d}.{kind}"
        if kind == "md":
            path.write_text(f"# {title}\n\n" + "\n\n".join(paras) + "\n", encoding="utf-8")
        elif kind == "html":
            body = "".join(f"<p>{_escape(p)}</p>\n" for p in paras)
            path.write_text(
                f"<!doctype html><html><head><meta charset='utf-8'><title>{_escape(title)}</title></head>"
                f"<body><h1>{_escape(title)}</h1>\n{body}</body></html>\n",
                encoding="utf-8",
            )
        elif kind == "docx":
            d = docx.Document()
            d.add_heading(title, level=1)
            for p in paras:
                d.add_paragraph(p)
            d.save(str(path))
        else:
            with pymupdf.open() as out:
                lines = [title, "", *paras]
                for start in range(0, len(lines), 50):
                    page = out.new_page()
                    page.insert_text((50, 60), "\n".join(lines[start : start + 50]), fontsize=9)
                out.save(path)
    tmp.rename(folder)


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _mixed_corpus(quick: bool) -> Corpus:
    count = 100 if quick else 500
    folder = CACHE / "import" / f"mixed{count}"
    if not folder.exists():
        _write_mixed(folder, count)
    n, mb = _size(folder)
    return Corpus("c", f"{n} mixed documents (PDF/DOCX/HTML/MD, a quarter each)", folder, n, mb, "splot", 1.0)


def corpora(quick: bool) -> list[Corpus]:
    return [_manual_corpus(), _scifact_corpus(quick), _mixed_corpus(quick)]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_kbapp(corpus: Corpus, work: Path) -> float:
    data = work / "kbapp-library"
    shutil.rmtree(data, ignore_errors=True)
    cmd = [sys.executable, "-m", "kbapp.cli.main", "--data-dir", str(data)]
    started = time.perf_counter()
    out = subprocess.run(
        [*cmd, "import", "--no-embed", str(corpus.folder)], capture_output=True, text=True, env=_env()
    )
    elapsed = time.perf_counter() - started
    if out.returncode:
        problems = [line for line in out.stdout.splitlines() if not line.startswith("IMPORTED")]
        raise RuntimeError(f"kbapp import failed ({out.returncode}): {problems[-20:]} {out.stderr[-2000:]}")
    found = subprocess.run(
        [*cmd, "search", "--mode", "lexical", "--json", corpus.probe],
        capture_output=True,
        text=True,
        env=_env(),
    )
    if found.returncode or not json.loads(found.stdout.splitlines()[-1]).get("results"):
        raise RuntimeError(
            f"kbapp: nothing found for {corpus.probe!r} after the import: {found.stderr[-500:]}"
        )
    shutil.rmtree(data)
    return elapsed


def recoll_config(folder: Path, work: Path) -> Path:
    """A fresh Recoll configuration folder in ``work`` indexing ``folder`` and nothing else."""
    conf = work / "recoll-config"
    shutil.rmtree(conf, ignore_errors=True)
    conf.mkdir()
    (conf / "recoll.conf").write_text(f"topdirs = {folder}\n", encoding="utf-8")
    return conf


def run_recoll(corpus: Corpus, work: Path) -> float:
    conf = recoll_config(corpus.folder, work)
    env = dict(os.environ, RECOLL_CONFDIR=str(conf))
    started = time.perf_counter()
    out = subprocess.run(["recollindex", "-c", str(conf), "-z"], capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if out.returncode:
        raise RuntimeError(f"recollindex failed ({out.returncode}): {out.stderr[-2000:]}")
    found = subprocess.run(
        ["recollq", "-c", str(conf), "-n", "0-5", corpus.probe], capture_output=True, text=True, env=env
    )
    if found.returncode or "results" not in found.stdout:
        raise RuntimeError(
            f"recoll: nothing found for {corpus.probe!r}: {found.stdout[-500:]}{found.stderr[-500:]}"
        )
    missing = conf / "missing"
    if missing.exists() and missing.read_text().strip():
        raise RuntimeError(f"recoll lacks helpers, so it skipped files: {missing.read_text().strip()}")
    shutil.rmtree(conf)
    return elapsed


def measure(corpus: Corpus, runs: int) -> Result:
    result = Result(corpus.key, corpus.label, corpus.files, corpus.megabytes, [], [], corpus.kbapp_target)
    have_recoll = shutil.which("recollindex") is not None
    if not have_recoll:
        result.recoll_missing = RECOLL_MISSING
    with tempfile.TemporaryDirectory(prefix="kbapp-bench-import-") as tmp:
        work = Path(tmp)
        for i in range(runs):
            # Alternate which goes first, so neither always meets a warm or a cold page cache.
            order = [run_kbapp, run_recoll] if i % 2 == 0 else [run_recoll, run_kbapp]
            for run in order:
                if run is run_recoll:
                    if have_recoll:
                        result.recoll_s.append(run_recoll(corpus, work))
                else:
                    result.kbapp_s.append(run_kbapp(corpus, work))
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller corpora (b: 1,000 files, c: 100 files)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=["a", "b", "c"], action="append", help="run only these corpora")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args(argv)
    as_installed()
    results = []
    print(f"{'corpus':<58}{'kbapp s':>9}{'Recoll s':>10}{'speed vs Recoll':>17}{'target':>8}")
    for corpus in corpora(args.quick):
        if args.only and corpus.key not in args.only:
            continue
        r = measure(corpus, args.runs)
        results.append(r)
        k = statistics.median(r.kbapp_s)
        if r.recoll_s:
            rc = statistics.median(r.recoll_s)
            print(
                f"({r.key}) {r.label:<54}{k:9.2f}{rc:10.2f}{rc / k:16.2f}×{r.kbapp_target:7.1f}×", flush=True
            )
        else:
            print(f"({r.key}) {r.label:<54}{k:9.2f}   ERROR: {r.recoll_missing}", flush=True)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    ok = all(
        r.recoll_s and statistics.median(r.recoll_s) / statistics.median(r.kbapp_s) >= r.kbapp_target
        for r in results
    )
    if any(r.recoll_missing for r in results):
        return BASELINE_MISSING
    return 0 if ok else TARGET_MISSED


if __name__ == "__main__":
    sys.exit(main())
