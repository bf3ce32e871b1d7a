"""The bridge is parsed once and then looked up in its cache file in the user cache; the file
answers as the parse did, and a damaged one is parsed afresh, never read wrong."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kbapp.store.word_tables import WordTable
from kbapp.text import bridge as bridge_module
from kbapp.text.bridge import bridge, parse

LINES = [
    "復位 复位 [fu4 wei4] /to restore sb or sth to its original position/to reset/reset/",
    "端口 端口 [duan1 kou3] /interface/port/",
    "時間 时间 [shi2 jian1] /time/period/CL:段[duan4]/",
    "擦除 擦除 [ca1 chu2] /to erase/",
]


@pytest.fixture
def small_dictionary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A four-entry dictionary in place of the wheel's, and a fresh user cache."""
    dictionary = tmp_path / "cedict.txt"
    dictionary.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(bridge_module, "dictionary_path", lambda: dictionary)
    bridge_module._load.cache_clear()
    yield tmp_path / "cache" / "kbapp"
    bridge_module._load.cache_clear()  # the next test sees the real dictionary again


def test_the_cache_file_answers_as_the_parse_does(small_dictionary: Path) -> None:
    b = bridge()
    assert b is not None and isinstance(b.to_english, WordTable)
    parsed = parse(LINES)
    assert dict(b.to_english) == dict(parsed.to_english) and len(b.to_english) == len(parsed.to_english)
    assert dict(b.to_chinese) == dict(parsed.to_chinese)
    assert "张" not in b.to_english and b.to_chinese.get("nothing") is None
    assert b.english_for("怎么复位端口") == ["reset", "interface", "port"]
    (cached,) = small_dictionary.glob("bridge-*.sqlite3")
    assert cached.stat().st_size > 0


def test_a_damaged_cache_file_is_parsed_afresh(small_dictionary: Path) -> None:
    bridge()
    (cached,) = small_dictionary.glob("bridge-*.sqlite3")
    data = bytearray(cached.read_bytes())
    data[len(data) // 2 :] = b"\xff" * (len(data) - len(data) // 2)  # the tables' pages overwritten
    cached.write_bytes(bytes(data))
    bridge_module._load.cache_clear()
    b = bridge()
    assert b is not None and b.to_chinese["port"] == ("端口",)
    assert dict(b.to_english) == dict(parse(LINES).to_english)


def test_a_cache_of_another_version_is_removed_once_this_one_is_written(small_dictionary: Path) -> None:
    """Each upgrade that changes the parse writes a new file of about 6 MB; the old ones would stay."""
    small_dictionary.mkdir(parents=True)
    stale = small_dictionary / "bridge-1-1234.sqlite3"
    stale.write_bytes(b"an older version's tables")
    unrelated = small_dictionary / "everyday-pack.npz"
    unrelated.write_bytes(b"another cache")
    assert bridge() is not None
    assert not stale.exists() and unrelated.exists()
    assert len(list(small_dictionary.glob("bridge-*.sqlite3"))) == 1
