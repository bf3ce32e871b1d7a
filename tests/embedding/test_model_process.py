"""The model in its own process (what a window uses): the same answers as in-process, the
tokenizer never built in the caller's process, a killed process replaced, a failed load said."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from kbapp.contract import Cancelled
from kbapp.embedding import budget, tokens
from kbapp.embedding.encoder import Encoder
from kbapp.embedding.handle import ModelHandle
from kbapp.embedding.model_process import PASSAGES, ModelProcess, RemoteCounter, RemoteEncoder
from kbapp.embedding.pack import ModelPack
from kbapp.embedding.tokens import load_tokenizer
from kbapp.library import KnowledgeBase


@pytest.fixture
def remote(default_pack: ModelPack):  # type: ignore[no-untyped-def]
    process = ModelProcess(default_pack)
    yield process
    process.stop()


def test_remote_answers_match_the_in_process_encoder(
    remote: ModelProcess, default_pack: ModelPack, encoder: Encoder, mixed_sentences: list[str]
) -> None:
    far = RemoteEncoder(remote, default_pack)
    near_counts = budget.counter_for(load_tokenizer(default_pack.tokenizer_path))
    counter = RemoteCounter(remote)
    assert (far.pack_id, far.dimension) == (encoder.pack_id, encoder.dimension)
    # More than one batch of passages, and a text longer than one model window.
    texts = [*mixed_sentences * 3, " ".join(mixed_sentences) * 4]
    done: list[int] = []
    vectors = far.embed_passages(texts, progress=lambda n, _total: done.append(n))
    np.testing.assert_allclose(vectors, encoder.embed_passages(texts), atol=1e-6)
    assert done[-1] == len(texts) and len(done) > 1
    before_cancel: list[int] = []
    with pytest.raises(Cancelled):
        far.embed_passages(
            texts, cancel=lambda: bool(before_cancel), progress=lambda n, _t: before_cancel.append(n)
        )
    assert before_cancel and before_cancel[-1] < len(texts)  # stopped a batch or two after asked
    np.testing.assert_allclose(far.embed_query("曝光时间"), encoder.embed_query("曝光时间"), atol=1e-6)
    pair = ["曝光时间", "exposure time"]
    np.testing.assert_allclose(far.embed_queries(pair), encoder.embed_queries(pair), atol=1e-6)
    for text in mixed_sentences:
        assert far.word_boundaries(text) == encoder.word_boundaries(text)
        assert counter(text) == counter(text) == near_counts(text)
        assert counter.offsets(text) == near_counts.offsets(text)  # type: ignore[attr-defined]
    assert counter.offsets_many(mixed_sentences) == [near_counts.offsets(t) for t in mixed_sentences]  # type: ignore[attr-defined]


def test_a_search_query_does_not_wait_for_the_passages_being_embedded(
    remote: ModelProcess, default_pack: ModelPack, mixed_sentences: list[str]
) -> None:
    far = RemoteEncoder(remote, default_pack)
    far.embed_query("loaded")
    full_windows = [" ".join(mixed_sentences)] * 64
    embedded = threading.Event()
    worker = threading.Thread(target=lambda: (far.embed_passages(full_windows), embedded.set()))
    worker.start()
    while not remote._locks[PASSAGES].locked():  # the first batch has been sent
        pass
    far.embed_query("E5021 sensor overheat")
    assert not embedded.is_set()  # answered while those passages were being embedded
    worker.join()
    assert embedded.is_set()


def test_a_killed_model_process_is_replaced(remote: ModelProcess, default_pack: ModelPack) -> None:
    far = RemoteEncoder(remote, default_pack)
    before = far.embed_query("E5021 sensor overheat")
    proc = remote._proc
    assert proc is not None
    proc.kill()
    proc.join()
    np.testing.assert_allclose(far.embed_query("E5021 sensor overheat"), before, atol=1e-6)
    assert remote._proc is not None and remote._proc.pid != proc.pid


def test_a_model_that_will_not_load_is_reported_once(default_pack: ModelPack, tmp_path: Path) -> None:
    pack_dir = tmp_path / "pack"
    shutil.copytree(default_pack.path, pack_dir)
    model = ModelHandle(pack_dir, own_process=True)
    assert model.available  # verified here; the file is damaged before the process loads it
    (pack_dir / default_pack.model_path.name).write_bytes(b"not a model")
    assert model.encoder() is None
    assert model.problem is not None and "could not be loaded" in model.problem
    assert model.encoder() is None  # not retried at every search
    model.close()


def test_a_library_with_the_model_process_never_builds_the_tokenizer_here(
    tmp_path: Path, default_pack: ModelPack, sample_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window's library: import, embed and search without the 280 MB vocabulary in this process
    (building it is what froze the window for most of a second)."""
    with KnowledgeBase(tmp_path / "near", pack_dir=default_pack.path, parse_limits=None) as near:
        near.import_paths([sample_folder])
        near.embed_pending()
        expected = [(r.chunk_ids, r.score) for r in near.search("曝光时间 Exposure Time").results]
        near_chunks = [(r.id, r.chunk_count) for r in near.documents()]

    def refuse(_path: Path) -> None:
        raise AssertionError("the tokenizer was built in the window's process")

    monkeypatch.setattr(tokens, "load_tokenizer", refuse)
    with KnowledgeBase(
        tmp_path / "far", pack_dir=default_pack.path, parse_limits=None, model_process=True
    ) as far:
        assert far.load_model()
        far.import_paths([sample_folder])
        assert far.embed_pending() > 0
        got = [(r.chunk_ids, r.score) for r in far.search("曝光时间 Exposure Time").results]
        assert [(r.id, r.chunk_count) for r in far.documents()] == near_chunks
    assert got and [c for c, _ in got] == [c for c, _ in expected]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], atol=1e-5)


def test_the_pack_is_answered_while_the_model_loads(default_pack: ModelPack) -> None:
    """The window asks whether there is a model (to show its state) while the model loads."""
    model = ModelHandle(default_pack.path, own_process=True)
    assert model.available
    loaded = threading.Event()
    loader = threading.Thread(target=lambda: (model.encoder(), loaded.set()))
    loader.start()
    while loader.is_alive() and (model._process is None or model._process._proc is None):
        pass  # until the model's process has been started and is loading
    assert model.available and model.tokenizer_path() == default_pack.tokenizer_path
    assert not loaded.is_set()  # answered before the load finished
    loader.join()
    assert loaded.is_set() and model.encoder() is not None
    model.close()
