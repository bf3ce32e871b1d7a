"""Watched folders with the real model: a move keeps the document's vectors, a change or deletion
leaves no orphan vector, and the FAISS cache holds exactly the library's vectors after each sync."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from kbapp.embedding import default_pack_dir
from kbapp.library import KnowledgeBase
from tests.reliability.corpus import GoodDoc, write_good
from tests.sources.conftest import assert_mirrors

needs_pack = pytest.mark.skipif(
    not (default_pack_dir() / "manifest.json").is_file(), reason="no model pack (set KBAPP_MODEL_DIR)"
)


def vectors(kb: KnowledgeBase) -> dict[int, bytes]:
    with kb.engine.connect() as conn:
        return {r[0]: r[1] for r in conn.exec_driver_sql("SELECT chunk_id, vector FROM vectors")}


def cached_ids(kb: KnowledgeBase) -> set[int]:
    dense = kb._vectors.dense
    assert dense is not None
    return set(dense._index.ids().tolist())


@needs_pack
def test_vectors_follow_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    rnd = random.Random(3)
    docs = {str(d.path): d for d in (write_good(root, i, ["md", "txt"][i % 2], 80, rnd) for i in range(6))}
    with KnowledgeBase(tmp_path / "lib", parse_limits=None) as kb:
        kb.sources.add(root)
        kb.sources.sync()
        kb.embed_pending()
        before = vectors(kb)
        assert before and cached_ids(kb) == set(before)

        moved, deleted, changed = sorted(docs)[:3]
        target = str(root / "sub" / "moved.md")
        os.makedirs(root / "sub")
        os.rename(moved, target)
        docs[target] = GoodDoc(Path(target), docs[moved].begin, docs[moved].end)
        del docs[moved]
        os.unlink(deleted)
        del docs[deleted]
        Path(changed).write_text("Manual\n\nzqvecbegin new words here\n\nzqvecend\n", encoding="utf-8")
        docs[changed] = GoodDoc(Path(changed), "zqvecbegin", "zqvecend")
        kb.sources.sync()
        kb.embed_pending()

        after = vectors(kb)
        with kb.engine.connect() as conn:
            moved_chunks = [
                r[0]
                for r in conn.exec_driver_sql(
                    "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ?",
                    (target,),
                )
            ]
        assert moved_chunks and all(after[c] == before[c] for c in moved_chunks)  # kept, not recomputed
        assert kb.pending_embeddings() == 0
        assert cached_ids(kb) == set(after)
        with kb.engine.connect() as conn:
            text = conn.exec_driver_sql(
                "SELECT text FROM chunks WHERE id = ?", (moved_chunks[0],)
            ).scalar_one()
        hits = kb.search(text[:300], mode="dense", k=3).results  # its own words: found by its kept vector
        assert hits and hits[0].path == target
        assert_mirrors(kb, root, docs)
