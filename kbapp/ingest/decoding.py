"""Turning the bytes of a text-like file into ``str`` without ever guessing silently.

Field engineers' notes come from Chinese Windows machines (GBK/GB18030), Taiwanese ones (Big5),
Notepad (UTF-16 with BOM), Windows tools that write UTF-16 without a BOM, and everything else. The
order is: BOM; UTF-16 without BOM recognised by its NUL pattern (mostly-ASCII text has a NUL in
every other byte); a binary check (other NULs or many control bytes), except that data which
reads as Chinese in UTF-16 is accepted first; strict UTF-8; GB18030 and Big5 when the result reads
like Chinese; UTF-16 that reads as Chinese; then charset-normalizer with a confidence bar.

Chinese UTF-16 has almost no NUL bytes (only ASCII and line breaks produce them), so its NUL
pattern proves nothing. It is recognised by decoding strictly as UTF-16-LE and -BE and keeping the
one byte order whose text is plausible: every character printable and of the scripts these files
are written in (Han, kana, Latin, their punctuation and full-width forms), and nearly all Han
characters common ones. Other bytes read as UTF-16 give rare Han, Hangul, Yi, private-use or
unassigned characters. It is tried only after strict UTF-8, because ASCII read as UTF-16-LE is
Han ("Bush hid the facts"), and after GB18030/Big5, whose checks already refuse UTF-16 bytes.

A decode that would need replacement characters is refused rather than indexed as mojibake; the
single tolerated repair is a handful of stray bytes in otherwise valid UTF-8, which is dropped and
reported as a warning.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from charset_normalizer import from_bytes

from kbapp.ingest.document import IngestErrorKind
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.textnorm import is_cjk

BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xff\xfe", "utf-16-le"),
)
_SAMPLE = 64 * 1024
_CONTROL_BYTES = bytes([*range(0x01, 0x09), *range(0x0E, 0x1B), 0x1C, 0x1D, 0x1E, 0x1F])
_CONTROL_CHARS = re.compile("[\x01-\x08\x0e-\x1a\x1c-\x1f]")  # the characters of _CONTROL_BYTES
_MAX_CHAOS = 0.2
# Lead bytes of punctuation/full-width forms plus the frequent Hanzi: GB2312 rows A1-A3 and B0-F7,
# Big5 rows A1-A3 and the level-1 block A4-C6. Kana, Greek and box-drawing rows are left out because
# that is what Big5 bytes turn into when misread as GBK.
_GB2312_COMMON = frozenset(range(0xA1, 0xA4)) | frozenset(range(0xB0, 0xF8))
_BIG5_COMMON = frozenset(range(0xA1, 0xC7))
# Characters BOM-less UTF-16 text from these users decodes to: whitespace, Latin with Greek (units,
# symbols), punctuation and technical symbols, CJK punctuation, kana, bopomofo, CJK compatibility
# (units such as ㎜), Han (BMP and supplementary planes), CJK compatibility and full-width forms.
_UTF16_PLAUSIBLE = re.compile(
    "[\t\n\r\f\x20-\x7e\xa0-\u024f\u0370-\u03ff\u2000-\u2bff\u3000-\u312f\u3200-\u4dbf"
    "\u4e00-\u9fff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003ffff]"
)
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003ffff]")
_UNPRINTABLE_CATEGORIES = frozenset({"Cc", "Cn", "Co", "Cs"})
_MIN_COMMON_HAN = 0.9


@dataclass(slots=True)
class Decoded:
    """Decoded text plus the encoding used and anything the user should know about the decode."""

    text: str
    encoding: str
    warnings: list[str] = field(default_factory=list)


def bom_encoding(data: bytes) -> tuple[str, int] | None:
    """Return (codec, BOM length) when ``data`` starts with a byte-order mark."""
    for bom, codec in BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    return None


def decode_text(data: bytes, path: Path) -> Decoded:
    """Decode a text file, raising ``IngestError`` when the bytes are binary or undecidable."""
    bom = bom_encoding(data)
    if bom is not None:
        return _decode_with_bom(data, path, *bom)
    utf16 = _utf16_without_bom(data)
    if utf16 is not None:
        return utf16
    if looks_binary(data):
        # Chinese UTF-16 has NULs (ASCII, line breaks) and control bytes (U+3000-U+301F) too.
        utf16 = _chinese_utf16(data)
        if utf16 is not None:
            return utf16
        raise ingest_error(IngestErrorKind.UNSUPPORTED, path, "binary data, not text")
    utf8 = _strict(data, "utf-8")
    if utf8 is not None:
        return Decoded(utf8, "utf-8")
    for guess in (_chinese_gb, _chinese_big5, _chinese_utf16, _mostly_utf8, _detected):
        decoded = guess(data)
        if decoded is not None:
            return decoded
    raise ingest_error(IngestErrorKind.UNSUPPORTED, path, "cannot determine the text encoding")


def decode_declared(data: bytes, encoding: str | None, path: Path) -> Decoded:
    """Decode with an encoding the file itself declares (HTML meta, XML prolog), else detect.

    Declared Chinese legacy charsets are widened to GB18030/CP950, and Latin-1 to CP1252, the way
    browsers do, because producers routinely label GBK text as "gb2312".
    """
    codec = _browser_codec(encoding) if encoding else None
    if bom_encoding(data) is None and codec is not None:
        text = _strict(data, codec)
        if text is not None:
            return Decoded(text, codec)
    return decode_text(data, path)


def looks_binary(data: bytes) -> bool:
    """NUL bytes or a noticeable share of control bytes mean this is not a text file."""
    sample = data[:_SAMPLE]
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))  # counted in C
    return controls > max(1, len(sample) // 100)


def _decode_with_bom(data: bytes, path: Path, codec: str, bom_length: int) -> Decoded:
    text = _strict(data[bom_length:], codec)
    if text is None:
        raise ingest_error(
            IngestErrorKind.CORRUPT, path, f"invalid {codec.upper()} text (file is damaged or truncated)"
        )
    return Decoded(text, codec)


def _strict(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def _utf16_without_bom(data: bytes) -> Decoded | None:
    """Recognise BOM-less UTF-16 by its NUL pattern: ASCII text has a NUL in every other byte."""
    sample = data[: _SAMPLE & ~1]
    if len(sample) < 4 or len(data) % 2:
        return None
    even_nuls = sample[0::2].count(0) / (len(sample) // 2)
    odd_nuls = sample[1::2].count(0) / (len(sample) // 2)
    if odd_nuls > 0.3 and even_nuls < 0.05:
        codec = "utf-16-le"
    elif even_nuls > 0.3 and odd_nuls < 0.05:
        codec = "utf-16-be"
    else:
        return None
    text = _strict(data, codec)
    if text is None or _binary_text(text):
        return None  # NULs or control characters in UTF-16 clothing: binary data
    return Decoded(text, codec)


def _binary_text(text: str) -> bool:
    """``looks_binary`` for decoded text: a NUL or a noticeable share of control characters."""
    sample = text[: _SAMPLE // 2]
    controls = len(_CONTROL_CHARS.findall(sample))
    return "\x00" in sample or controls > max(1, len(sample) // 100)


def _chinese_utf16(data: bytes) -> Decoded | None:
    """BOM-less UTF-16 holding Chinese: the one byte order whose strict decode reads as Chinese.

    If both byte orders looked plausible the bytes would be ambiguous, and guessing is not allowed.
    """
    if len(data) < 4 or len(data) % 2:
        return None
    found = [
        Decoded(text, codec)
        for codec in ("utf-16-le", "utf-16-be")
        if (text := _strict(data, codec)) is not None and _plausible_utf16_text(text)
    ]
    return found[0] if len(found) == 1 else None


def _plausible_utf16_text(text: str) -> bool:
    """Every character printable and in a plausible script; nearly all Han characters common ones."""
    for char in set(text):
        if _UTF16_PLAUSIBLE.match(char) is None:
            return False
        if unicodedata.category(char) in _UNPRINTABLE_CATEGORIES and char not in "\t\n\r\f":
            return False
    han = Counter(_HAN.findall(text[:20_000]))
    total = han.total()
    if total < 2:
        return False
    common = sum(count for char, count in han.items() if _common_han(char))
    return common >= _MIN_COMMON_HAN * total


def _common_han(char: str) -> bool:
    """In GB2312 (simplified, levels 1 and 2) or Big5 level 1 (common traditional)."""
    for codec, common_lead_bytes in (("gb2312", _GB2312_COMMON), ("cp950", _BIG5_COMMON)):
        try:
            encoded = char.encode(codec)
        except UnicodeEncodeError:
            continue
        if len(encoded) == 2 and encoded[0] in common_lead_bytes:
            return True
    return False


def _chinese_gb(data: bytes) -> Decoded | None:
    """GB18030 (superset of GBK/GB2312), accepted only if the characters are common Simplified ones.

    Big5 and Shift-JIS bytes also decode as GBK without error; what gives them away is that the
    result is full of rare characters outside GB2312, which real Chinese text almost never uses.
    """
    text = _strict(data, "gb18030")
    if text is None or not _reads_as_chinese(text, "gb2312", _GB2312_COMMON):
        return None
    return Decoded(text, "gb18030")


def _chinese_big5(data: bytes) -> Decoded | None:
    """Big5/CP950 (Traditional Chinese), accepted when most characters are level-1 common ones."""
    text = _strict(data, "cp950")
    if text is None or not _reads_as_chinese(text, "cp950", _BIG5_COMMON):
        return None
    return Decoded(text, "big5")


def _reads_as_chinese(text: str, codec: str, common_lead_bytes: frozenset[int]) -> bool:
    """Mostly ASCII + CJK, and at least 90 % of the Han characters are in the common range."""
    sample = text[:20_000]
    non_ascii = [char for char in sample if ord(char) > 0x7F]
    cjk = [char for char in non_ascii if is_cjk(char)]
    if len(cjk) < 2 or len(cjk) < 0.9 * len(non_ascii):
        return False
    common = 0
    for char in cjk:
        try:
            encoded = char.encode(codec)
        except UnicodeEncodeError:
            continue
        if len(encoded) == 2 and encoded[0] in common_lead_bytes:
            common += 1
    return common >= 0.9 * len(cjk)


def _mostly_utf8(data: bytes) -> Decoded | None:
    """Valid UTF-8 except a few stray bytes (a Latin-1 byte pasted in, a truncated last character).

    Dropping them loses almost nothing, while refusing the file or decoding it as CP1252 would turn
    every real multibyte character into mojibake. The drop is reported, never silent.
    """
    text = data.decode("utf-8", errors="ignore")
    dropped = len(data) - len(text.encode("utf-8"))
    multibyte = len(text) - len(text.encode("ascii", errors="ignore"))
    if dropped == 0 or multibyte < 10 * dropped or dropped > max(3, len(data) // 1000):
        return None
    return Decoded(text, "utf-8", [f"dropped {dropped} byte(s) that are not valid UTF-8"])


def _detected(data: bytes) -> Decoded | None:
    """Last resort: charset-normalizer, trusted only when its best guess is coherent and strict."""
    best = from_bytes(data).best()
    if best is None or best.chaos > _MAX_CHAOS:
        return None
    text = _strict(data, best.encoding)
    return Decoded(text, best.encoding) if text is not None else None


def _browser_codec(label: str) -> str | None:
    label = label.strip().lower()
    widened = {
        "gb2312": "gb18030",
        "gbk": "gb18030",
        "x-gbk": "gb18030",
        "big5": "cp950",
        "iso-8859-1": "cp1252",
        "latin1": "cp1252",
        "ascii": "cp1252",
        "us-ascii": "cp1252",
    }
    codec = widened.get(label, label)
    try:
        "".encode(codec)
    except LookupError:
        return None
    return codec
