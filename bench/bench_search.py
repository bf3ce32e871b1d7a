"""Hybrid query latency (p50/p95, query embedding included) and resident memory at 10k, 100k and 1M
passages, with exact brute-force numpy search over the same vectors as the baseline beside it.

Libraries are synthetic but built through the real schema: Zipf-distributed words (plus some
Chinese) in the FTS5 index and clustered unit vectors (as real embeddings are) in SQLite, so
the searcher, the keyword index, the vector index and the model run exactly as in the app.

This process builds each library and its vector index (timed: the index build is what a user
waits for when the saved index is missing or outdated). A fresh child process then opens it as
the app would — loads the model and the saved index — runs the queries and reports latency and
resident memory as JSON, so the memory is the app's and not the builder's leftovers. For the
approximate (IVF) kind it also reports recall@10 of the index against exact numpy search, for
the benchmark queries' own vectors and for vectors drawn like the library's (perturbed stored
vectors); for the exact kind both are 1 by construction.

Building the 1M library takes several minutes; pass sizes to run fewer.

Run:  python -m bench.bench_search [--sizes 10000 100000 1000000] [--queries 200] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil

from kbapp.embedding import default_pack_dir, load_pack
from kbapp.index.dense import DenseIndex
from kbapp.library import KnowledgeBase
from kbapp.search.semantic import SemanticRetriever
from kbapp.store.database import write_transaction
from kbapp.text.terms import index_terms

TARGETS_P95_MS = {100_000: 60.0, 1_000_000: 250.0}
VOCAB = [f"w{i}" for i in range(30_000)] + ["曝光时间", "触发模式", "错误码", "图像", "电压", "传感器"]
ZIPF = np.cumsum(1 / np.arange(1, len(VOCAB) + 1))
TERMS = [index_terms(w) for w in VOCAB]
BATCH = 50_000
CENTRES = 256
BRUTE_QUERIES = 50


def _texts(gen: np.random.Generator, n: int) -> tuple[list[str], list[str]]:
    """``n`` passages of 60 Zipf-distributed words, and their FTS5 terms.

    ``index_terms`` reads a text token by token and the words are space-separated tokens, so each
    word's terms are computed once (at 1M passages calling it per passage would take most of the
    build); the first passage is checked against the real thing in case that ever changes.
    """
    words = np.searchsorted(ZIPF, gen.random((n, 60)) * ZIPF[-1])
    texts = [" ".join(VOCAB[w] for w in row) for row in words.tolist()]
    terms = [" ".join(TERMS[w] for w in row) for row in words.tolist()]
    assert terms[0] == index_terms(texts[0]), "index_terms no longer works word by word"
    return texts, terms


def _vectors(gen: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    vecs = centres[gen.integers(0, len(centres), n)] + 0.6 * gen.standard_normal(
        (n, centres.shape[1]), dtype=np.float32
    )
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs.astype(np.float16)


def build_library(folder: Path, n: int, dimension: int, pack_id: str, seed: int = 7) -> None:
    gen = np.random.default_rng(seed)
    centres = gen.standard_normal((CENTRES, dimension)).astype(np.float32)
    with KnowledgeBase(folder, pack_dir=None) as kb, write_transaction(kb.engine) as conn:
        docs = max(1, n // 200)
        conn.exec_driver_sql(
            "INSERT INTO documents(id, path, content_hash, title, doc_type, page_count, size, mtime, "
            "imported_at, status, warnings) VALUES (?, ?, ?, ?, 'pdf', 200, 0, 0, 0, 'ready', '')",
            [(d + 1, f"/synthetic/doc{d}.pdf", f"h{d}", f"Synthetic manual {d}") for d in range(docs)],
        )
        conn.exec_driver_sql(
            "INSERT INTO pages(document_id, page_index, number, text) VALUES (?, ?, ?, '')",
            [(d + 1, p, p + 1) for d in range(docs) for p in range(200)],
        )
        for start in range(0, n, BATCH):
            ids = range(start + 1, min(n, start + BATCH) + 1)
            texts, terms = _texts(gen, len(ids))
            conn.exec_driver_sql(
                "INSERT INTO chunks(id, document_id, ord, page_start, char_start, page_end, char_end, "
                "heading, kind, prefix, text, tokens) VALUES (?, ?, ?, ?, 0, ?, ?, '', 'text', '', ?, 60)",
                [
                    (i, (i - 1) // 200 + 1, (i - 1) % 200, (i - 1) % 200, (i - 1) % 200, len(t), t)
                    for i, t in zip(ids, texts, strict=True)
                ],
            )
            conn.exec_driver_sql(
                "INSERT INTO chunk_fts(rowid, body, context) VALUES (?, ?, '')",
                list(zip(ids, terms, strict=True)),
            )
            vecs = _vectors(gen, centres, len(ids))
            conn.exec_driver_sql(
                "INSERT INTO vectors(chunk_id, pack_id, vector) VALUES (?, ?, ?)",
                [(i, pack_id, v.tobytes()) for i, v in zip(ids, vecs, strict=True)],
            )


def build_index(folder: Path, dimension: int, pack_id: str) -> None:
    """Build and save the vector index as the app does when none is saved (no model needed)."""
    with KnowledgeBase(folder, pack_dir=None) as kb:
        problem = DenseIndex(kb.engine, kb.data_dir, pack_id, dimension).rebuild()
    if problem is not None:
        raise RuntimeError(problem)


def percentiles(xs: list[float]) -> tuple[float, float]:
    xs = sorted(xs)
    return statistics.median(xs), xs[min(len(xs) - 1, int(len(xs) * 0.95))]


def exact_top10(matrix: np.ndarray, ids: np.ndarray, queries: np.ndarray) -> list[list[int]]:
    """Brute-force top 10 ids per query, a block of queries per matrix product."""
    out = []
    for start in range(0, len(queries), 50):
        scores = matrix @ queries[start : start + 50].T
        top = np.argpartition(-scores, 10, axis=0)[:10]
        for column in range(scores.shape[1]):
            rows = top[:, column]
            out.append(ids[rows[np.argsort(-scores[rows, column])]].tolist())
    return out


def recall_at_10(found: list[list[int]], exact: list[list[int]]) -> float:
    return float(np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(found, exact, strict=True)]))


def stored_vectors(kb: KnowledgeBase) -> tuple[np.ndarray, np.ndarray]:
    """Chunk ids and their vectors (float32, as numpy multiplies them), in id order."""
    with kb.engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT chunk_id, vector FROM vectors ORDER BY chunk_id").all()
    ids = np.array([r[0] for r in rows], np.int64)
    return ids, np.frombuffer(b"".join(r[1] for r in rows), np.float16).reshape(len(ids), -1).astype(
        np.float32
    )


def brute_force_ms(semantic: SemanticRetriever, matrix: np.ndarray, texts: list[str]) -> list[float]:
    """The baseline: exact numpy search over the same vectors, query embedding included."""
    took = []
    for text in texts[:BRUTE_QUERIES]:
        started = time.perf_counter()
        np.argpartition(-(matrix @ semantic.embed(text)), 10)[:10]
        took.append((time.perf_counter() - started) * 1000)
    return took


def recalls(
    semantic: SemanticRetriever, matrix: np.ndarray, ids: np.ndarray, texts: list[str]
) -> dict[str, float]:
    """recall@10 of the index against exact search, for the query texts' vectors and for vectors
    drawn like the library's (stored ones, perturbed)."""
    gen = np.random.default_rng(3)
    near = matrix[gen.integers(0, len(ids), len(texts))]
    near = near + 0.05 * gen.standard_normal(near.shape, dtype=np.float32)
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    out = {}
    for name, vecs in (
        ("recall_queries", np.array([semantic.embed(t) for t in texts])),
        ("recall_near", near),
    ):
        found = [[i for i, _ in semantic.index.search(q, 10)] for q in vecs]
        out[name] = recall_at_10(found, exact_top10(matrix, ids, vecs))
    return out


def measure(folder: Path, queries: int) -> dict[str, float | str]:
    """In the child: open the library as the app does, then time queries and take the memory."""
    rng = random.Random(1)
    texts = [" ".join(rng.choices(VOCAB[:3000], k=4)) for _ in range(queries)]
    with KnowledgeBase(folder) as kb:
        started = time.perf_counter()
        kb.load_model()
        open_s = time.perf_counter() - started
        semantic = kb._searcher.semantic
        assert semantic is not None
        kb.search("warm up", mode="hybrid")
        hybrid = [kb.search(t, k=10, mode="hybrid").took_ms for t in texts]
        rss = psutil.Process().memory_info().rss / 2**20  # before the baseline's matrix is loaded
        ids, matrix = stored_vectors(kb)
        brute = brute_force_ms(semantic, matrix, texts)
        result = {"kind": semantic.index.kind, "rss": rss, "open": open_s} | recalls(
            semantic, matrix, ids, texts
        )
    p50, p95 = percentiles(hybrid)
    b50, b95 = percentiles(brute)
    return result | {"p50": p50, "p95": p95, "b50": b50, "b95": b95}


def run(n: int, queries: int, workdir: Path) -> dict[str, float | str]:
    folder = workdir / f"lib{n}"
    manifest = load_pack(default_pack_dir()).manifest  # the model itself loads only in the measuring child
    started = time.perf_counter()
    build_library(folder, n, manifest.dimension, manifest.id)
    built = time.perf_counter()
    build_index(folder, manifest.dimension, manifest.id)
    indexed = time.perf_counter()
    child = subprocess.run(
        [sys.executable, __file__, "--measure", str(folder), "--queries", str(queries)],
        capture_output=True,
        text=True,
    )
    shutil.rmtree(folder)  # a 1M library takes ~3 GB
    if child.returncode:
        raise RuntimeError(f"the measuring process failed:\n{child.stderr}")
    result = json.loads(child.stdout.strip().splitlines()[-1])
    return {"n": n, "build": built - started, "index": indexed - built, **result}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json", type=Path, help="write the results here")
    ap.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child's job: one built library
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.queries)))
        return
    print(
        f"{'passages':>9} {'kind':>5} {'hybrid p50':>11} {'p95':>7} {'target':>7} {'brute p50':>10} "
        f"{'p95':>7} {'recall q':>8} {'near':>6} {'RSS MB':>7} {'open s':>7} {'build s':>8} {'index s':>8} "
        f"{'load':>5}"
    )
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            r = run(n, args.queries, Path(tmp))
            results.append(r)
            target = TARGETS_P95_MS.get(n)
            print(
                f"{n:>9} {r['kind']:>5} {r['p50']:11.1f} {r['p95']:7.1f} {target or '-':>7} {r['b50']:10.1f} "
                f"{r['b95']:7.1f} {r['recall_queries']:8.3f} {r['recall_near']:6.3f} {r['rss']:7.0f} "
                f"{r['open']:7.1f} {r['build']:8.0f} {r['index']:8.1f} {os.getloadavg()[0]:5.1f}",
                flush=True,
            )
            if args.json:
                args.json.write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main()
