"""The small tokenizer of the default pack gives exactly the full tokenizer's ids and offsets, and
needs the full vocabulary only for text in scripts it left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from kbapp.embedding.covered import PLACEHOLDER, CoveredTokenizer, common_path, common_tokenizer_json
from kbapp.embedding.pack import ModelPack, PackError, load_pack, write_manifest
from kbapp.embedding.tokens import load_tokenizer

# Each needs the full vocabulary: its pieces were left out of the small one.
OTHER_SCRIPTS = [
    "Проверьте давление масла перед запуском насоса.",  # Russian
    "افصل الطاقة قبل فتح الغطاء",  # Arabic
    "שגיאה בחיישן הטמפרטורה",  # Hebrew
    "ตรวจสอบแรงดันไฟฟ้า",  # Thai
    "전원을 끄고 다시 켜십시오",  # Korean
    "Set ℵ0 to the cardinality",  # ℵ is a letterlike symbol, normalised to Hebrew alef
    f"a placeholder {PLACEHOLDER} in the text",
]
# Covered: Latin, Greek, CJK, symbols, the PDF bullet glyphs, Han characters no piece holds.
COVERED = [
    "苻坚与秈稻、粳稻",  # 苻 and 秈 are <unk> in both vocabularies
    "\uf0b7 Check the seal \uf0a7 replace if worn",  # Symbol-font bullets from PDFs
    "Ω = 4.7 kΩ ± 5 %, μs, Δt ≥ 10 ms → OK ✓",
    "ﬁlter ﬂow (ligatures), Ｅ５０２１ fullwidth, ①②③",
    "Tiếng Việt: Kiểm tra áp suất dầu",
    "日本語のマニュアル：電源を切ってください",
    "E5021 XK-200   several   spaces\tand\ttabs\n\nparagraphs",
]


@pytest.fixture(scope="module")
def full(default_pack: ModelPack) -> Tokenizer:
    tok = Tokenizer.from_file(str(default_pack.tokenizer_path))
    tok.no_padding()
    tok.no_truncation()
    return tok


@pytest.fixture
def covered(default_pack: ModelPack) -> CoveredTokenizer:
    tok = load_tokenizer(default_pack.tokenizer_path)
    assert isinstance(tok, CoveredTokenizer)
    return tok


def _same(a, b) -> bool:
    return (a.ids, a.offsets) == (b.ids, b.offsets)


def test_the_default_pack_carries_a_small_tokenizer_with_ids_in_place(default_pack: ModelPack):
    full = json.loads(default_pack.tokenizer_path.read_text(encoding="utf-8"))["model"]["vocab"]
    small = json.loads(common_path(default_pack.tokenizer_path).read_text(encoding="utf-8"))["model"]["vocab"]
    assert len(small) == len(full)
    kept = [i for i, (piece, _) in enumerate(small) if piece != PLACEHOLDER]
    assert all(small[i] == full[i] for i in kept)
    assert len(kept) < 0.6 * len(full)


def test_covered_text_is_tokenized_exactly_without_the_full_vocabulary(covered, full, mixed_sentences):
    texts = [*mixed_sentences, *COVERED, " ".join(COVERED) * 40]
    for special in (False, True):
        for text in texts:
            assert _same(
                covered.encode(text, add_special_tokens=special),
                full.encode(text, add_special_tokens=special),
            )
        batch = covered.encode_batch(texts, add_special_tokens=special)
        assert all(
            _same(a, b)
            for a, b in zip(batch, full.encode_batch(texts, add_special_tokens=special), strict=True)
        )
    assert not covered.full_loaded


@pytest.mark.parametrize("text", OTHER_SCRIPTS)
def test_other_scripts_are_tokenized_by_the_full_vocabulary(default_pack: ModelPack, full, text):
    covered = load_tokenizer(default_pack.tokenizer_path)
    assert isinstance(covered, CoveredTokenizer)
    assert _same(covered.encode(text), full.encode(text))
    assert covered.full_loaded


def test_a_batch_mixing_scripts_is_answered_in_order(covered, full):
    texts = [COVERED[0], OTHER_SCRIPTS[0], COVERED[2], OTHER_SCRIPTS[4]]
    got = covered.encode_batch(texts, add_special_tokens=False)
    assert all(
        _same(a, b) for a, b in zip(got, full.encode_batch(texts, add_special_tokens=False), strict=True)
    )


def test_a_wordpiece_tokenizer_is_not_shrunk():
    wordpiece = {"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}}
    assert common_tokenizer_json(json.dumps(wordpiece)) is None


def test_a_small_tokenizer_the_manifest_does_not_list_is_refused(default_pack: ModelPack, tmp_path: Path):
    """A leftover small tokenizer would be used unchecked: the pack is refused, naming it."""
    pack = tmp_path / "pack"
    pack.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        (pack / name).symlink_to(default_pack.path / name)
    write_manifest(pack, default_pack.manifest)
    common_path(pack / "tokenizer.json").write_text("{}", encoding="utf-8")
    with pytest.raises(PackError, match=r"tokenizer\.common-.*not listed"):
        load_pack(pack)
