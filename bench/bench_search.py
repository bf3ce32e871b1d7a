"""Hybrid query latency (p50/p95, query embedding included) and resident memory at 10k, 100k and 1M
passages, with exact brute-force numpy search over the same vectors as the baseline beside it.

Libraries are synthetic but built through the real schema: Zipf-distributed words (plus some
Chinese) in the FTS5 index and clustered unit vectors (as real embeddings are) in SQLite, so
the searcher, the keyword index, the vector index and the model run exactly as in the app.
Building the 1M library takes a while; pass sizes to run fewer.

Run:  .venv/bin/python bench/bench_search.py [--sizes 10000 100000 1000000] [--queries 200]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil

from kbapp.embedding import default_pack_dir, load_pack
from kbapp.index.dense import encode_vector
from kbapp.library import KnowledgeBase
from kbapp.store.database import write_transaction
from kbapp.text.terms import index_terms

TARGETS_P95_MS = {100_000: 60.0, 1_000_000: 250.0}
VOCAB = [f"w{i}" for i in range(30_000)] + ["曝光时间", "触发模式", "错误码", "图像", "电压", "传感器"]


def _text(rng: random.Random) -> str:
    words = rng.choices(VOCAB, weights=[1 / (i + 1) for i in range(len(VOCAB))], k=60)
    return " ".join(words)


def build_library(folder: Path, n: int, dimension: int, pack_id: str, seed: int = 7) -> None:
    rng = random.Random(seed)
    gen = np.random.default_rng(seed)
    centres = gen.standard_normal((256, dimension)).astype(np.float32)
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
        for start in range(0, n, 20_000):
            ids = range(start + 1, min(n, start + 20_000) + 1)
            texts = [_text(rng) for _ in ids]
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
                [(i, index_terms(t)) for i, t in zip(ids, texts, strict=True)],
            )
            vecs = centres[gen.integers(0, len(centres), len(ids))] + 0.6 * gen.standard_normal(
                (len(ids), dimension), dtype=np.float32
            )
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            conn.exec_driver_sql(
                "INSERT INTO vectors(chunk_id, pack_id, vector) VALUES (?, ?, ?)",
                [(i, pack_id, encode_vector(v)) for i, v in zip(ids, vecs, strict=True)],
            )


def percentiles(xs: list[float]) -> tuple[float, float]:
    xs = sorted(xs)
    return statistics.median(xs), xs[min(len(xs) - 1, int(len(xs) * 0.95))]


def run(n: int, queries: int, workdir: Path) -> dict[str, float]:
    folder = workdir / f"lib{n}"
    manifest = load_pack(default_pack_dir()).manifest  # the model itself loads only in the measured library
    build_library(folder, n, manifest.dimension, manifest.id)
    gc.collect()
    rng = random.Random(1)
    texts = [" ".join(rng.choices(VOCAB[:3000], k=4)) for _ in range(queries)]
    with KnowledgeBase(folder) as kb:
        started = time.perf_counter()
        kb.load_model()
        open_s = time.perf_counter() - started
        encoder = kb.model.encoder()
        assert encoder is not None
        kb.search("warm up", mode="hybrid")
        hybrid = [kb.search(t, k=10, mode="hybrid").took_ms for t in texts]
        rss = psutil.Process().memory_info().rss / 2**20
        # Baseline: exact brute force over the same vectors with numpy (query embedding included).
        with kb.engine.connect() as conn:
            blob = b"".join(
                r[0] for r in conn.exec_driver_sql("SELECT vector FROM vectors ORDER BY chunk_id")
            )
        matrix = np.frombuffer(blob, np.float16).reshape(-1, manifest.dimension).astype(np.float32)
        brute = []
        for t in texts[:50]:
            t0 = time.perf_counter()
            q = encoder.embed_query(t)
            np.argpartition(-(matrix @ q), 10)[:10]
            brute.append((time.perf_counter() - t0) * 1000)
    p50, p95 = percentiles(hybrid)
    b50, b95 = percentiles(brute)
    return {"n": n, "p50": p50, "p95": p95, "b50": b50, "b95": b95, "rss": rss, "open": open_s}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    print(
        f"{'passages':>9} {'hybrid p50':>11} {'p95':>7} {'target':>7} {'brute p50':>10} {'p95':>7} "
        f"{'RSS MB':>7} {'open s':>7}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            r = run(n, args.queries, Path(tmp))
            target = TARGETS_P95_MS.get(n)
            print(
                f"{n:>9} {r['p50']:11.1f} {r['p95']:7.1f} {target or '-':>7} {r['b50']:10.1f} "
                f"{r['b95']:7.1f} {r['rss']:7.0f} {r['open']:7.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
