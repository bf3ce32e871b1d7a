"""A pack file is hashed again exactly when it may have changed since it was hashed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kbapp.embedding import file_stamps
from kbapp.embedding.file_stamps import STAMPS_FILE, file_hashes
from kbapp.hashing import sha256_file


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "kbapp" / STAMPS_FILE


def _counting_hashes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    read: list[Path] = []

    def counted(path: Path) -> str:
        read.append(path)
        return sha256_file(path)

    monkeypatch.setattr(file_stamps, "sha256_file", counted)
    return read


def test_an_unchanged_file_is_not_read_again(tmp_path, cache, monkeypatch):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"weights" * 1000)
    read = _counting_hashes(monkeypatch)
    first = file_hashes([model])
    second = file_hashes([model])
    assert first == second == {model: sha256_file(model)}
    assert read == [model]
    assert cache.is_file()


def test_a_same_size_edit_with_its_time_set_back_is_read_again(tmp_path, cache, monkeypatch):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"A" * 4096)
    before = model.stat()
    file_hashes([model])
    model.write_bytes(b"B" * 4096)  # same size, and the modification time put back as it was
    os.utime(model, ns=(before.st_atime_ns, before.st_mtime_ns))
    read = _counting_hashes(monkeypatch)
    assert file_hashes([model]) == {model: sha256_file(model)}
    assert read == [model]


def test_a_replaced_file_is_read_again(tmp_path, cache):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"old")
    file_hashes([model])
    replacement = tmp_path / "new.onnx"
    replacement.write_bytes(b"new")
    os.replace(replacement, model)
    assert file_hashes([model]) == {model: sha256_file(model)}


@pytest.mark.parametrize("damage", [b"{not json", b"[1, 2]", b'{"x": "y"}'])
def test_a_damaged_stamps_file_costs_only_the_hashing(tmp_path, cache, damage):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"weights")
    cache.parent.mkdir(parents=True)
    cache.write_bytes(damage)
    assert file_hashes([model]) == {model: sha256_file(model)}
    assert json.loads(cache.read_text())[str(model.resolve())][-1] == sha256_file(model)


def test_an_unwritable_cache_costs_only_the_hashing(tmp_path, monkeypatch):
    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    model = tmp_path / "model.onnx"
    model.write_bytes(b"weights")
    assert file_hashes([model]) == file_hashes([model]) == {model: sha256_file(model)}


def test_stamps_of_files_gone_are_dropped(tmp_path, cache):
    gone, kept = tmp_path / "gone.onnx", tmp_path / "kept.onnx"
    gone.write_bytes(b"1")
    kept.write_bytes(b"2")
    file_hashes([gone])
    gone.unlink()
    file_hashes([kept])
    assert list(json.loads(cache.read_text())) == [str(kept.resolve())]
