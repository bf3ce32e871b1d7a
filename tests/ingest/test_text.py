"""Plain-text reader and the decoding rules behind it."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

import pytest

from kbapp.ingest import IngestError, IngestErrorKind, parse_file
from kbapp.ingest.decoding import decode_text

CHINESE = "设备维护手册\n\n检查泵的密封圈，必要时更换。\n压力表读数应在正常范围内。"
TRADITIONAL = "設備維護手冊\n\n檢查幫浦的密封圈，必要時更換。\n壓力錶讀數應在正常範圍內。"
FRENCH = (
    "Manuel d'entretien\n\nVérifiez le joint de la pompe et remplacez-le si nécessaire. "
    "La pression affichée doit rester dans la plage prévue par le fabricant. Répétez l'opération "
    "après chaque période de fonctionnement prolongée à température élevée."
)


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_title_line_paragraphs_and_offsets(tmp_path: Path, well_formed, block_list) -> None:
    text = "Pump Manual\r\n\r\nFirst paragraph line one.\r\nline two.\r\n\r\n\r\nSecond paragraph.\r\n"
    document = parse_file(write(tmp_path, "pump.txt", text.encode()))
    well_formed(document)
    assert document.title == "Pump Manual"
    assert document.doc_type == "text"
    assert [page.number for page in document.pages] == [None]
    assert block_list(document) == [
        ("heading", 1, "Pump Manual"),
        ("text", 0, "First paragraph line one.\nline two."),
        ("text", 0, "Second paragraph."),
    ]


def test_without_title_line_the_stem_is_the_title(tmp_path: Path, block_list) -> None:
    long_first = "This first paragraph is a long sentence that goes on " * 3
    document = parse_file(write(tmp_path, "notes.txt", f"{long_first}\n\nMore.".encode()))
    assert document.title == "notes"
    assert [kind for kind, _, _ in block_list(document)] == ["text", "text"]


def test_a_long_title_line_heading_a_longer_paragraph_is_the_title(tmp_path: Path) -> None:
    title = (
        "Structural Homeostasis: Compensatory Adjustments of Dendritic Arbor Geometry "
        "in Response to Variations of Synaptic Input"
    )
    body = "As the nervous system develops, there is an inherent variability in the connections. " * 3
    document = parse_file(write(tmp_path, "10009203.txt", f"{title}\n\n{body}".encode()))
    assert len(title) > 100
    assert document.title == title


def test_a_long_opening_sentence_before_a_shorter_paragraph_stays_text(tmp_path: Path) -> None:
    opening = "This note collects what we learned while replacing the servo drive on line three last spring."
    opening += " It is long."
    document = parse_file(write(tmp_path, "servo.txt", f"{opening}\n\nCheck the fuse first.".encode()))
    assert len(opening) > 100
    assert document.title == "servo"


def test_very_long_single_line_is_one_block(tmp_path: Path, well_formed) -> None:
    line = "word " * 50_000
    document = parse_file(write(tmp_path, "long.txt", line.encode()))
    well_formed(document)
    assert len(document.pages[0].blocks) == 1


@pytest.mark.parametrize(
    ("encoding", "prefix"),
    [
        ("utf-8", b""),
        ("utf-8", b"\xef\xbb\xbf"),
        ("utf-16-le", b"\xff\xfe"),
        ("utf-16-be", b"\xfe\xff"),
        ("utf-32-le", b"\xff\xfe\x00\x00"),
        ("gbk", b""),
        ("gb18030", b""),
    ],
)
def test_chinese_in_common_encodings(tmp_path: Path, encoding: str, prefix: bytes) -> None:
    document = parse_file(write(tmp_path, "zh.txt", prefix + CHINESE.encode(encoding)))
    assert document.title == "设备维护手册"
    assert "检查泵的密封圈，必要时更换。" in document.pages[0].text
    assert "\ufeff" not in document.pages[0].text


def test_big5_is_not_mistaken_for_gbk(tmp_path: Path) -> None:
    document = parse_file(write(tmp_path, "tw.txt", TRADITIONAL.encode("big5")))
    assert "檢查幫浦的密封圈" in document.pages[0].text


def test_utf16_without_bom_is_recognised(tmp_path: Path) -> None:
    document = parse_file(write(tmp_path, "w.txt", "Valve check list\n\nOpen valve A.".encode("utf-16-le")))
    assert document.title == "Valve check list"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(
    "text",
    [
        CHINESE,
        TRADITIONAL,
        "标题\n\n检查泵的密封圈。",  # short, and without ASCII no NUL byte at all
        "泵维护 Pump service\n\n压力 0.6 MPa，温度 ≤ 80 ℃；每 500 h 更换密封圈（型号 SK-10）。",
    ],
    ids=["simplified", "traditional", "short", "mixed"],
)
def test_chinese_utf16_without_bom_is_recognised(tmp_path: Path, text: str, codec: str) -> None:
    """Windows tools write UTF-16 without a BOM; Chinese code units rarely contain a zero byte."""
    data = text.encode(codec)
    decoded = decode_text(data, Path("zh.txt"))
    assert decoded.text == text
    assert decoded.encoding == codec
    document = parse_file(write(tmp_path, "zh.txt", data))
    assert document.pages[0].text.replace("\n", "") == text.replace("\n", "")


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (b"Test text: even length", "utf-8"),  # ASCII read as UTF-16-LE is Han ("整瑳...")
        (CHINESE.encode("utf-8"), "utf-8"),
        (CHINESE.encode("gbk"), "gb18030"),
        ("设备维护".encode("gbk"), "gb18030"),  # level-1 Hanzi only: Hangul when read as UTF-16-BE
        (TRADITIONAL.encode("big5"), "big5"),
    ],
    ids=["ascii", "utf-8", "gbk", "gbk-level-1", "big5"],
)
def test_even_length_text_is_not_mistaken_for_utf16(data: bytes, encoding: str) -> None:
    data = data if len(data) % 2 == 0 else data + b"\n"  # UTF-16 always has an even length
    assert decode_text(data, Path("a.txt")).encoding == encoding


@pytest.mark.parametrize(
    "data",
    [
        random.Random(5).randbytes(4096),
        bytes(range(256)) * 16,
        b"\x00\x01" * 2000,
        zlib.compress(CHINESE.encode("utf-16-le") * 50),
    ],
    ids=["random", "all-bytes", "controls-as-utf16", "compressed-utf16"],
)
def test_binary_data_is_still_refused(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(IngestError) as caught:
        parse_file(write(tmp_path, "blob.txt", data[: len(data) & ~1]))
    assert caught.value.kind is IngestErrorKind.UNSUPPORTED


def test_latin1_text_is_detected(tmp_path: Path) -> None:
    document = parse_file(write(tmp_path, "fr.txt", FRENCH.encode("cp1252")))
    assert "Vérifiez le joint" in document.pages[0].text


def test_stray_invalid_byte_in_utf8_is_dropped_with_a_warning(tmp_path: Path) -> None:
    data = ("检查泵的密封圈。" * 20).encode() + b"\xff" + b" end of file"
    document = parse_file(write(tmp_path, "mostly.txt", data))
    assert "\ufffd" not in document.pages[0].text
    assert document.pages[0].text.endswith("end of file")
    assert document.warnings == ["dropped 1 byte(s) that are not valid UTF-8"]


def test_undecodable_bytes_are_refused(tmp_path: Path) -> None:
    data = bytes([0x80, 0x81, 0xFE, 0x41, 0xFF, 0x98, 0x9D, 0xC3, 0x28, 0xA0, 0xA1]) * 30
    with pytest.raises(IngestError) as caught:
        parse_file(write(tmp_path, "x.txt", data))
    assert caught.value.kind is IngestErrorKind.UNSUPPORTED
    assert str(caught.value) == "x.txt: cannot determine the text encoding"


def test_binary_data_named_txt_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IngestError) as caught:
        parse_file(write(tmp_path, "x.txt", bytes(range(256)) * 4))
    assert caught.value.kind is IngestErrorKind.UNSUPPORTED
    assert str(caught.value) == "x.txt: binary data, not text"


def test_truncated_utf16_is_corrupt(tmp_path: Path) -> None:
    data = b"\xff\xfe" + "Pump".encode("utf-16-le") + b"\x41"
    with pytest.raises(IngestError) as caught:
        parse_file(write(tmp_path, "odd.txt", data))
    assert caught.value.kind is IngestErrorKind.CORRUPT


@pytest.mark.parametrize(
    ("data", "message"), [(b"", "file is empty"), (b" \n\t\r\n ", "no text (only whitespace)")]
)
def test_empty_files(tmp_path: Path, data: bytes, message: str) -> None:
    with pytest.raises(IngestError) as caught:
        parse_file(write(tmp_path, "empty.txt", data))
    assert caught.value.kind is IngestErrorKind.EMPTY
    assert str(caught.value) == f"empty.txt: {message}"


def test_control_characters_never_reach_the_text(tmp_path: Path) -> None:
    document = parse_file(write(tmp_path, "c.txt", b"Line one\x0cLine two\x1b[0m done\x7f"))
    text = document.pages[0].text
    assert text == "Line one\nLine two[0m done"


def test_decode_text_reports_encoding() -> None:
    assert decode_text("中文内容测试".encode("gbk"), Path("a.txt")).encoding == "gb18030"
    assert decode_text(b"plain ascii", Path("a.txt")).encoding == "utf-8"
