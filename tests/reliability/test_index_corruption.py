"""Corruption matrix of the vector index cache and its manifest: every kind of damage is detected on
open and the index rebuilt from SQLite, with dense results equal to those before the damage."""

from __future__ import annotations

import json
import random
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from kbapp.index.dense import DenseIndex, encode_vector
from kbapp.index.vector_index import INDEX_FILE, MANIFEST_FILE
from kbapp.library import KnowledgeBase
from kbapp.store.database import write_transaction
from tests.conftest import CAMERA_EN, CAMERA_ZH
from tests.reliability.conftest import PACK, needs_pack

PACK_ID = "test-pack"
DIM = 16
QUERIES = np.random.default_rng(5).normal(size=(6, DIM)).astype(np.float32)


def make_library(root: Path, docs: int, seed: int) -> KnowledgeBase:
    """A library whose passages carry random unit vectors of ``PACK_ID`` (no model needed)."""
    folder = root / "docs"
    folder.mkdir(parents=True)
    rnd = random.Random(seed)
    for n in range(docs):
        paragraphs = [" ".join(rnd.choice(CAMERA_EN.split()) for _ in range(80)) for _ in range(6)]
        (folder / f"d{n}.txt").write_text(f"Doc {n}\n\n" + "\n\n".join(paragraphs), encoding="utf-8")
    kb = KnowledgeBase(root / "lib", pack_dir=None, parse_limits=None)
    assert kb.import_paths([folder]).ok
    add_vectors(kb, seed)
    return kb


def add_vectors(kb: KnowledgeBase, seed: int) -> None:
    rng = np.random.default_rng(seed)
    with write_transaction(kb.engine) as conn:
        ids = [
            r[0]
            for r in conn.exec_driver_sql(
                "SELECT id FROM chunks WHERE id NOT IN (SELECT chunk_id FROM vectors)"
            )
        ]
        vecs = rng.normal(size=(len(ids), DIM))
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        conn.exec_driver_sql(
            "INSERT INTO vectors(chunk_id, pack_id, vector) VALUES (?, ?, ?)",
            [(i, PACK_ID, encode_vector(v)) for i, v in zip(ids, vecs, strict=True)],
        )


def results(dense: DenseIndex) -> list[list[tuple[int, float]]]:
    return [[(i, round(s, 4)) for i, s in dense.search(q, 10)] for q in QUERIES]


def truncate_at(fraction: float) -> Callable[[Path], None]:
    def damage(lib: Path) -> None:
        data = (lib / INDEX_FILE).read_bytes()
        (lib / INDEX_FILE).write_bytes(data[: int(len(data) * fraction)])

    return damage


def flip_bytes(seed: int) -> Callable[[Path], None]:
    def damage(lib: Path) -> None:
        rnd = random.Random(seed)
        data = bytearray((lib / INDEX_FILE).read_bytes())
        for _ in range(rnd.randint(1, 8)):
            pos = rnd.randrange(len(data))
            data[pos] ^= rnd.randrange(1, 256)
        (lib / INDEX_FILE).write_bytes(bytes(data))

    return damage


def zero_fill(name: str) -> Callable[[Path], None]:
    return lambda lib: (lib / name).write_bytes(bytes((lib / name).stat().st_size))


def delete(*names: str) -> Callable[[Path], None]:
    def damage(lib: Path) -> None:
        for name in names:
            (lib / name).unlink()

    return damage


def copy_from(other: Path, *names: str) -> Callable[[Path], None]:
    def damage(lib: Path) -> None:
        for name in names:
            shutil.copyfile(other / name, lib / name)

    return damage


def manifest_edit(key: str, value: object) -> Callable[[Path], None]:
    def damage(lib: Path) -> None:
        data = json.loads((lib / MANIFEST_FILE).read_text())
        data[key] = value
        (lib / MANIFEST_FILE).write_text(json.dumps(data))

    return damage


def manifest_bytes(make: Callable[[bytes], bytes]) -> Callable[[Path], None]:
    return lambda lib: (lib / MANIFEST_FILE).write_bytes(make((lib / MANIFEST_FILE).read_bytes()))


DAMAGE: dict[str, Callable[[Path], None]] = {
    **{f"index truncated at {f:.1%}": truncate_at(f) for f in (0.0, 0.001, 0.25, 0.5, 0.9, 0.999)},
    **{f"index bytes flipped #{s}": flip_bytes(s) for s in range(6)},
    "index zero-filled": zero_fill(INDEX_FILE),
    "index deleted": delete(INDEX_FILE),
    "index replaced by garbage": lambda lib: (lib / INDEX_FILE).write_bytes(random.Random(1).randbytes(5000)),
    "manifest deleted": delete(MANIFEST_FILE),
    "manifest zero-filled": zero_fill(MANIFEST_FILE),
    "manifest truncated": manifest_bytes(lambda b: b[: len(b) // 2]),
    "manifest empty": manifest_bytes(lambda b: b""),
    "manifest garbage": manifest_bytes(lambda b: random.Random(2).randbytes(len(b))),
    "manifest count changed": manifest_edit("count", 3),
    "manifest generation changed": manifest_edit("generation", 10**6),
    "manifest of another pack": manifest_edit("pack_id", "other-pack"),
    "manifest of another dimension": manifest_edit("dimension", DIM * 2),
    "manifest checksum changed": manifest_edit("sha256", "0" * 64),
    "manifest of an unknown format": manifest_edit("format", 99),
    "both deleted": delete(INDEX_FILE, MANIFEST_FILE),
}


@pytest.fixture(scope="module")
def other_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A valid saved index and manifest of another library."""
    root = tmp_path_factory.mktemp("other")
    with make_library(root, docs=4, seed=99) as kb:
        DenseIndex(kb.engine, kb.data_dir, PACK_ID, DIM).open()
    return root / "lib"


def test_corruption_matrix(tmp_path: Path, other_library: Path) -> None:
    cases = dict(DAMAGE)
    cases["replaced by another library's index and manifest"] = copy_from(
        other_library, INDEX_FILE, MANIFEST_FILE
    )
    cases["index replaced by another library's index"] = copy_from(other_library, INDEX_FILE)
    with make_library(tmp_path, docs=8, seed=1) as kb:
        lib = kb.data_dir
        built = DenseIndex(kb.engine, lib, PACK_ID, DIM)
        assert built.open() is not None  # nothing saved yet: built from SQLite
        before = results(built)
        assert DenseIndex(kb.engine, lib, PACK_ID, DIM).open() is None  # the saved index is trusted
        detected = []
        for name, damage in cases.items():
            damage(lib)
            dense = DenseIndex(kb.engine, lib, PACK_ID, DIM)
            reason = dense.open()
            assert reason is not None, f"{name}: not detected"
            assert results(dense) == before, f"{name}: results differ after the rebuild"
            assert DenseIndex(kb.engine, lib, PACK_ID, DIM).open() is None, f"{name}: rebuild not saved"
            detected.append(f"{name}: {reason}")
    assert len(detected) == len(cases) >= 25
    print(f"\n{len(detected)} of {len(cases)} damage cases detected and rebuilt:", *detected, sep="\n  ")


def test_index_of_an_older_generation_is_rebuilt(tmp_path: Path) -> None:
    """Save, change the library, restore the old index and manifest: stale, hence rebuilt."""
    with make_library(tmp_path, docs=5, seed=2) as kb:
        lib = kb.data_dir
        DenseIndex(kb.engine, lib, PACK_ID, DIM).open()
        old = {n: (lib / n).read_bytes() for n in (INDEX_FILE, MANIFEST_FILE)}
        extra = tmp_path / "more"
        extra.mkdir()
        (extra / "new.txt").write_text("New\n\n" + CAMERA_ZH, encoding="utf-8")
        assert kb.import_paths([extra]).ok
        add_vectors(kb, 7)
        kb.remove([kb.documents()[0].id])
        current = DenseIndex(kb.engine, lib, PACK_ID, DIM)
        assert current.open() is not None
        after_change = results(current)
        for name, data in old.items():
            (lib / name).write_bytes(data)
        dense = DenseIndex(kb.engine, lib, PACK_ID, DIM)
        reason = dense.open()
        assert reason is not None and "generation" in reason
        assert results(dense) == after_change


@needs_pack
def test_damaged_index_is_rebuilt_on_open_with_one_notice(tmp_path: Path, sample_folder: Path) -> None:
    queries = ["exposure time too dark", "水泵振动", "error code E5021"]
    with KnowledgeBase(tmp_path / "lib", pack_dir=PACK) as kb:
        assert kb.import_paths([sample_folder]).ok
        kb.embed_pending()
        before = [[(r.doc_id, r.text) for r in kb.search(q, mode="dense").results] for q in queries]
    index = tmp_path / "lib" / INDEX_FILE
    index.write_bytes(index.read_bytes()[:1000])
    with KnowledgeBase(tmp_path / "lib", pack_dir=PACK) as kb:
        after = [[(r.doc_id, r.text) for r in kb.search(q, mode="dense").results] for q in queries]
        assert after == before
        assert len(kb.notices) == 1 and kb.notices[0].startswith("The vector index was rebuilt"), kb.notices


@needs_pack
def test_keyword_search_answers_while_the_index_is_rebuilt(
    tmp_path: Path, sample_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with KnowledgeBase(tmp_path / "lib", pack_dir=PACK) as kb:
        assert kb.import_paths([sample_folder]).ok
        kb.embed_pending()
    (tmp_path / "lib" / MANIFEST_FILE).unlink()
    slow_open = DenseIndex.open

    def open_slowly(self: DenseIndex) -> str | None:
        time.sleep(3)
        return slow_open(self)

    monkeypatch.setattr(DenseIndex, "open", open_slowly)
    with KnowledgeBase(tmp_path / "lib", pack_dir=PACK, autoload_model=False) as kb:
        kb.model.encoder()  # loading the tokenizer holds the GIL for seconds: not what is tested here
        loader = threading.Thread(target=kb.load_model)
        loader.start()
        time.sleep(0.5)
        started = time.monotonic()
        response = kb.search("曝光时间", mode="hybrid")
        assert time.monotonic() - started < 2
        assert response.results and response.message and "keyword" in response.message
        loader.join()
        assert kb.search("曝光时间", mode="hybrid").message is None
