"""Office container files built byte by byte for tests (no Office, no extra dependency)."""

from __future__ import annotations

import struct

OLE2_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # legacy Office / encrypted OOXML container
FREE, END_OF_CHAIN, FAT_SECTOR, NO_ENTRY = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


def ole2_file(streams: dict[str, bytes], major_version: int = 3) -> bytes:
    """A minimal valid OLE2 compound file ([MS-CFB]) holding ``streams``, as Office writes them.

    Each stream is padded to the 4096-byte mini-stream cutoff so it lives in regular sectors; one FAT
    sector and a flat directory (the root's child, then a chain of right siblings) are enough.
    """
    shift = {3: 9, 4: 12}[major_version]
    sector = 1 << shift
    names = ["Root Entry", *streams]
    directory_sectors = -(-len(names) * 128 // sector)
    fat = [FAT_SECTOR, *range(2, directory_sectors + 1), END_OF_CHAIN]
    entries, data = [], b""
    for index, name in enumerate(names):
        raw = name.encode("utf-16-le") + b"\0\0"
        start, size = END_OF_CHAIN, 0
        if index:
            content = streams[name].ljust(4096, b"\0")
            start, size, count = len(fat), len(content), -(-len(content) // sector)
            fat += [*range(start + 1, start + count), END_OF_CHAIN]
            data += content.ljust(count * sector, b"\0")
        child = 1 if index == 0 and len(names) > 1 else NO_ENTRY
        right = index + 1 if 0 < index < len(names) - 1 else NO_ENTRY
        kind = 5 if index == 0 else 2
        entry = struct.pack("<64sHBBIII36xIQ", raw, len(raw), kind, 1, NO_ENTRY, right, child, start, size)
        entries.append(entry)
    assert len(fat) <= sector // 4
    header = struct.pack(
        "<8s16xHHHHH6xIIIIIIIII109I",
        *(OLE2_SIGNATURE, 0x3E, major_version, 0xFFFE, shift, 6),
        *(directory_sectors if major_version == 4 else 0, 1, 1, 0, 4096, END_OF_CHAIN, 0, END_OF_CHAIN, 0),
        *(0, *[FREE] * 108),
    )
    fat_sector = struct.pack(f"<{sector // 4}I", *fat, *[FREE] * (sector // 4 - len(fat)))
    directory = b"".join(entries).ljust(directory_sectors * sector, b"\0")
    return header.ljust(sector, b"\0") + fat_sector + directory + data
