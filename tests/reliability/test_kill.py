"""Kill test: ``kbapp import`` of a folder of mixed documents, killed with SIGKILL at random moments.

After every kill the library must open, pass ``verify`` (after the automatic rebuild of the vector
index), hold every document the process reported as committed, and hold no partial document:
every document in the library has exactly the passages a clean import gives it, including the
last one (its end sentinel is searchable). The next run resumes the interrupted import; a run
that finishes must leave every document present. Most kills run without the model pack (fast);
some run with the real pack so they land while embedding and saving the vector index.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kbapp.index.dense import DenseIndex
from kbapp.library import KnowledgeBase
from tests.reliability.conftest import PACK, REPO, hits, needs_pack
from tests.reliability.corpus import GoodDoc, write_good

COMMITTED = re.compile(r"^(IMPORTED|UPDATED|UNCHANGED)\s+(\S+):")
RESUMING = re.compile(r"^resuming interrupted import: (\d+) of (\d+) files were done")
NO_PACK = {"KBAPP_MODEL_DIR": "/nonexistent/kbapp-test-no-pack"}


def make_folder(folder: Path, sizes: list[tuple[str, int]], seed: int) -> dict[str, GoodDoc]:
    rnd = random.Random(seed)
    docs = [write_good(folder, i, kind, words, rnd) for i, (kind, words) in enumerate(sizes)]
    return {d.path.name: d for d in docs}


@dataclass
class Run:
    lines: list[str] = field(default_factory=list)
    killed: bool = False
    seconds: float = 0.0
    returncode: int | None = None

    @property
    def phase(self) -> str:
        if any(line.startswith("embedding") for line in self.lines):
            return "embedding"
        return "importing" if self.lines else "starting"


def run_import(
    lib: Path, folder: Path, env: dict[str, str], kill_after: float | None, wait_for: str | None
) -> Run:
    """Run ``kbapp import``; SIGKILL it ``kill_after`` seconds after start (or after a line starting
    with ``wait_for`` appeared), unless it finished first."""
    run = Run()
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kbapp", "--data-dir", str(lib), "import", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        env={**os.environ, **env},
        cwd=REPO,
    )
    seen = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            run.lines.append(line.rstrip("\n"))
            if wait_for is not None and line.startswith(wait_for):
                seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if kill_after is not None:
        if wait_for is not None:  # the line never comes when there is nothing left to do
            deadline = time.monotonic() + 300
            while not seen.wait(0.05) and proc.poll() is None and time.monotonic() < deadline:
                pass
        try:
            proc.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            run.killed = True
    run.returncode = proc.wait(timeout=900)
    reader.join(timeout=30)
    run.seconds = time.monotonic() - started
    return run


def reference_counts(folder: Path, lib: Path, pack: Path | None) -> tuple[dict[str, int], float]:
    """Passages per document from a clean in-process import (what a complete document has)."""
    started = time.monotonic()
    with KnowledgeBase(lib, pack_dir=pack, parse_limits=None) as kb:
        report = kb.import_paths([folder])
        assert report.ok, [f.message for f in report.failed]
        return {Path(f.path).name: f.chunks for f in report.files}, time.monotonic() - started


def check_library(
    lib: Path, docs: dict[str, GoodDoc], counts: dict[str, int], committed: set[str], pack: Path | None
) -> int:
    """Everything a killed run may leave must be consistent; returns the number of stored vectors."""
    with KnowledgeBase(lib, pack_dir=pack, parse_limits=None, autoload_model=False) as kb:
        if pack is not None:  # what opening with the model does: verify the index, rebuild if stale
            manifest = kb.model.pack().manifest  # type: ignore[union-attr]
            DenseIndex(kb.engine, lib, manifest.id, manifest.dimension).open()
        report = kb.verify()
        assert report.ok, report.problems
        assert not [n for n in report.notes if "vector index" in n], report.notes
        stored = {Path(d.path).name: d for d in kb.documents()}
        assert all(d.status == "ready" for d in stored.values()), [d.error for d in stored.values()]
        assert committed <= set(stored), f"reported committed but missing: {committed - set(stored)}"
        for name, record in stored.items():
            assert record.chunk_count == counts[name], f"{name}: partial document"
            assert hits(kb, docs[name].begin) == {name}
            assert hits(kb, docs[name].end) == {name}
        with kb.engine.connect() as conn:
            return int(conn.exec_driver_sql("SELECT count(*) FROM vectors").scalar_one())


def kill_loop(
    tmp_path: Path, docs: dict[str, GoodDoc], folder: Path, kills: int, pack: Path | None, seed: int
) -> Counter[str]:
    env = {"KBAPP_MODEL_DIR": str(pack)} if pack is not None else NO_PACK
    counts, seconds = reference_counts(folder, tmp_path / "reference", pack)
    estimate = seconds + 3.0  # plus the start-up of a fresh process
    rnd = random.Random(seed)
    phases: Counter[str] = Counter()
    round_no, lib = 0, tmp_path / "lib-0"
    vectors = 0
    while sum(phases.values()) < kills:
        wait_for = "embedding" if pack is not None and rnd.random() < 0.5 else None
        delay = rnd.uniform(0.0, 8.0) if wait_for else rnd.uniform(0.3, estimate)
        run = run_import(lib, folder, env, delay, wait_for)
        for line in run.lines:
            if m := RESUMING.match(line):
                done, total = int(m[1]), int(m[2])
                assert done <= total and total % len(docs) == 0, line
        committed = {m[2] for line in run.lines if (m := COMMITTED.match(line))}
        if run.killed:
            phases[run.phase] += 1
        else:
            assert run.returncode == 0, run.lines
            committed = set(docs)
            estimate = max(estimate, run.seconds)
        stored_vectors = check_library(lib, docs, counts, committed, pack)
        assert stored_vectors >= vectors, "committed vectors were lost"
        vectors = stored_vectors
        if not run.killed:  # the folder is complete: start over to keep killing real work
            with KnowledgeBase(lib, pack_dir=pack, parse_limits=None, autoload_model=False) as kb:
                assert kb.interrupted_import() is None
                assert kb.pending_embeddings() == 0
            round_no += 1
            lib, vectors = tmp_path / f"lib-{round_no}", 0
    final = run_import(lib, folder, env, None, None)
    assert final.returncode == 0, final.lines
    check_library(lib, docs, counts, set(docs), pack)
    if pack is not None:
        with KnowledgeBase(lib, pack_dir=pack, parse_limits=None) as kb:
            assert kb.pending_embeddings() == 0
            some = next(iter(docs.values()))
            assert kb.search(some.begin, mode="dense").results
    print(f"\n{sum(phases.values())} kills ({dict(phases)}), {round_no} rounds completed")
    return phases


def keyword_folder(tmp_path: Path) -> tuple[Path, dict[str, GoodDoc]]:
    kinds = ["md", "txt", "pdf", "html", "docx"]
    sizes = [(kinds[i % 5], 150 + 90 * i) for i in range(20)] + [("txt", 30000), ("pdf", 6000), ("md", 12000)]
    folder = tmp_path / "docs"
    return folder, make_folder(folder, sizes, seed=1)


def model_folder(tmp_path: Path) -> tuple[Path, dict[str, GoodDoc]]:
    kinds = ["md", "txt", "pdf", "html", "docx"]
    folder = tmp_path / "docs"
    return folder, make_folder(folder, [(kinds[i % 5], 200 + 150 * i) for i in range(8)], seed=2)


def test_kill_during_import(tmp_path: Path) -> None:
    folder, docs = keyword_folder(tmp_path)
    kill_loop(tmp_path, docs, folder, kills=20, pack=None, seed=11)


@needs_pack
def test_kill_during_embedding(tmp_path: Path) -> None:
    folder, docs = model_folder(tmp_path)
    phases = kill_loop(tmp_path, docs, folder, kills=5, pack=PACK, seed=12)
    assert phases["embedding"] >= 1


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_kill_during_import_many(tmp_path: Path) -> None:
    folder, docs = keyword_folder(tmp_path)
    kill_loop(tmp_path, docs, folder, kills=170, pack=None, seed=21)


@pytest.mark.slow
@pytest.mark.timeout(3600)
@needs_pack
def test_kill_during_embedding_many(tmp_path: Path) -> None:
    folder, docs = model_folder(tmp_path)
    phases = kill_loop(tmp_path, docs, folder, kills=40, pack=PACK, seed=22)
    assert phases["embedding"] >= 10
