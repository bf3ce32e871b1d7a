"""Model packs: a directory holding ``model.onnx``, ``tokenizer.json`` and ``manifest.json``
(and ``tokenizer.common-*.json``, the same tokenizer in less memory: ``covered``).

The manifest says how to drive the model (prefixes, token limit, pooling, special ids) and pins
the sha256 of every other file, so a truncated download or a hand-edited model is refused
with the offending file named instead of producing quietly wrong vectors that would poison an
index built from them.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kbapp.embedding.covered import common_path
from kbapp.embedding.file_stamps import file_hashes
from kbapp.hashing import sha256_file

MANIFEST = "manifest.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
FORMAT = 1
DEFAULT_PACK_NAME = "multilingual-e5-small-q4"
MODEL_DIR_ENV = "KBAPP_MODEL_DIR"


class PackError(Exception):
    """A model pack is missing, malformed, or does not match its manifest."""


@dataclass(frozen=True, slots=True)
class Manifest:
    id: str
    version: int
    dimension: int
    max_tokens: int
    pooling: str
    query_prefix: str
    passage_prefix: str
    bos_id: int
    eos_id: int
    pad_id: int
    licence: str
    sources: list[dict[str, str]]
    files: dict[str, str] = field(default_factory=dict)
    format: int = FORMAT

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, ensure_ascii=False, sort_keys=True) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Manifest:
        try:
            manifest = cls(**data)
        except TypeError as exc:
            raise PackError(f"{MANIFEST}: unexpected or missing fields ({exc})") from None
        if manifest.format != FORMAT:
            raise PackError(f"{MANIFEST}: format {manifest.format} unsupported (expected {FORMAT})")
        if manifest.pooling != "mean":
            raise PackError(f"{MANIFEST}: pooling {manifest.pooling!r} unsupported")
        return manifest


@dataclass(frozen=True, slots=True)
class ModelPack:
    """A verified pack on disk."""

    path: Path
    manifest: Manifest

    @property
    def model_path(self) -> Path:
        return self.path / MODEL_FILE

    @property
    def tokenizer_path(self) -> Path:
        return self.path / TOKENIZER_FILE


def write_manifest(pack_dir: Path, manifest: Manifest) -> Manifest:
    """Hash every file already in ``pack_dir`` into the manifest and write it."""
    files = {p.name: sha256_file(p) for p in sorted(pack_dir.iterdir()) if p.is_file() and p.name != MANIFEST}
    final = Manifest(**{**asdict(manifest), "files": files})
    (pack_dir / MANIFEST).write_text(final.to_json(), encoding="utf-8")
    return final


def load_pack(path: Path) -> ModelPack:
    """Read the manifest and check every listed file against its sha256 (read again only for a file
    changed since it was last hashed: ``file_stamps``)."""
    manifest_path = path / MANIFEST
    try:
        data = json.loads(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PackError(f"{manifest_path}: missing (no model pack at {path})") from None
    except (OSError, ValueError) as exc:
        raise PackError(f"{manifest_path}: unreadable ({exc})") from None
    if not isinstance(data, dict):
        raise PackError(f"{manifest_path}: not a JSON object")
    manifest = Manifest.from_dict(data)
    for required in (MODEL_FILE, TOKENIZER_FILE):
        if required not in manifest.files:
            raise PackError(f"{manifest_path}: does not list {required}")
    small = common_path(path / TOKENIZER_FILE)
    if small.exists() and small.name not in manifest.files:  # it would be used unchecked
        raise PackError(f"{small}: not listed in {MANIFEST} (left from another pack?)")
    for name in manifest.files:
        if not (path / name).is_file():
            raise PackError(f"{path / name}: missing from model pack")
    actual = file_hashes([path / name for name in manifest.files])
    for name, expected in manifest.files.items():
        if actual[path / name] != expected:
            raise PackError(f"{path / name}: sha256 does not match {MANIFEST} (corrupt or modified)")
    return ModelPack(path=path, manifest=manifest)


def default_pack_dir() -> Path:
    """Where the default pack lives: ``$KBAPP_MODEL_DIR``, else beside a frozen app, else the checkout.

    ``KBAPP_MODEL_DIR`` names the pack directory itself (the one holding ``manifest.json``).

    A frozen (PyInstaller) build looks in its bundle (``sys._MEIPASS``) and then beside the
    executable, so the pack can ship inside or next to the app; a source checkout uses
    ``<repo>/models/``.
    """
    override = os.environ.get(MODEL_DIR_ENV)
    if override:
        return Path(override)
    if getattr(sys, "frozen", False):
        roots = [Path(sys.executable).resolve().parent]
        bundle = getattr(sys, "_MEIPASS", None)
        if bundle:
            roots.insert(0, Path(bundle))
        candidates = [root / "models" / DEFAULT_PACK_NAME for root in roots]
        return next((c for c in candidates if (c / MANIFEST).is_file()), candidates[-1])
    return Path(__file__).resolve().parents[2] / "models" / DEFAULT_PACK_NAME
