"""The pack of small kept copies: made on the first copy, each name written once, read back whole
by another connection (another process after a crash sees only committed copies)."""

from __future__ import annotations

from pathlib import Path

from kbapp.store.copy_pack import CopyPack


def test_a_pack_is_made_by_its_first_copy_and_names_are_written_once(tmp_path: Path) -> None:
    path = tmp_path / "pack.sqlite3"
    pack = CopyPack(path)
    assert pack.get("a.txt") is None and pack.names() == set() and not pack.contains("a.txt")
    pack.delete_many(["a.txt"])
    assert not path.exists()  # asking does not make one

    pack.put_many([("a.txt", b"first"), ("b.pdf", b"%PDF")])
    pack.put_many([("a.txt", b"other bytes")])  # a name stands for its bytes: never rewritten
    other = CopyPack(path)
    assert other.get("a.txt") == b"first" and other.names() == {"a.txt", "b.pdf"}
    assert other.contains("b.pdf") and not other.contains("c.md")

    other.delete_many(["a.txt", "c.md"])
    assert pack.get("a.txt") is None and pack.names() == {"b.pdf"}
    pack.close()
    other.close()
