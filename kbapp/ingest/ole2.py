"""The names inside an OLE2 compound file, to tell legacy Office files from encrypted new ones.

Word/Excel/PowerPoint 97–2003 files and password-protected Office 2007+ files (an
"EncryptedPackage" stream next to the encryption parameters) share one container and so the same
first eight bytes; only the names in the container's directory tell a renamed ``.doc`` from a
password-protected ``.docx``. This reads just the header, the sector allocation table and the
directory sectors (no stream content), so no OLE2 library is needed. A malformed container raises
``Ole2Error``: guessing what a broken one held is how a ``.doc`` used to be called "encrypted".
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

# signature, CLSID, minor/major version, byte order, sector shift, mini sector shift, reserved,
# directory sector count, FAT sector count, first directory sector, transaction signature, mini
# stream cutoff, first mini FAT sector, mini FAT sector count, first DIFAT sector, DIFAT sector count
_HEADER = struct.Struct("<8s16sHHHHH6sIIIIIIIII")
_HEADER_SIZE = 512
_HEADER_DIFAT_ENTRIES = 109
_BYTE_ORDER = 0xFFFE
_SECTOR_SHIFTS = {3: 9, 4: 12}  # major version -> sector size 512 / 4096
_MAX_REGULAR_SECTOR = 0xFFFFFFFA
_FREE_SECTOR = 0xFFFFFFFF
_DIRECTORY_ENTRY = 128
_STORAGE, _STREAM, _ROOT = 1, 2, 5


class Ole2Error(ValueError):
    """The file starts like an OLE2 compound file but its structure is broken or cut off."""


def entry_names(path: Path) -> frozenset[str]:
    """Names of the streams and storages in the compound file ``path`` (OSError passes through)."""
    with path.open("rb") as handle:
        file_size = handle.seek(0, os.SEEK_END)
        header = _read_at(handle, 0, _HEADER_SIZE)
        shift, fat_sector_count, first_directory, first_difat = _parse_header(header)
        sector_size = 1 << shift
        # Sector n starts at (n + 1) * sector_size; some writers do not pad the last one.
        max_sectors = max(0, -(-(file_size - sector_size) // sector_size))
        if fat_sector_count > max_sectors:
            raise Ole2Error(f"{fat_sector_count} FAT sectors in a file of {max_sectors} sectors")
        fat_sectors = _fat_sector_ids(handle, header, shift, fat_sector_count, first_difat, max_sectors)
        fat = b"".join(_read_sector(handle, shift, sector) for sector in fat_sectors)
        table = struct.unpack(f"<{len(fat) // 4}I", fat)
        names: set[str] = set()
        for sector in _chain(table, first_directory, max_sectors):
            names.update(_names_in(_read_sector(handle, shift, sector)))
    if not names:
        raise Ole2Error("empty directory")
    return frozenset(names)


def _parse_header(header: bytes) -> tuple[int, int, int, int]:
    """Sector shift, FAT sector count, first directory sector and first DIFAT sector."""
    fields = _HEADER.unpack_from(header)
    signature, major, byte_order, shift = fields[0], fields[3], fields[4], fields[5]
    if signature != SIGNATURE or byte_order != _BYTE_ORDER or _SECTOR_SHIFTS.get(major) != shift:
        raise Ole2Error("not an OLE2 header")
    return shift, fields[9], fields[10], fields[15]


def _fat_sector_ids(
    handle: BinaryIO, header: bytes, shift: int, count: int, first_difat: int, max_sectors: int
) -> list[int]:
    """Where the FAT lives: 109 ids in the header, the rest in a chain of DIFAT sectors."""
    ids = [
        sector
        for sector in struct.unpack_from(f"<{_HEADER_DIFAT_ENTRIES}I", header, _HEADER.size)
        if sector != _FREE_SECTOR
    ][:count]
    per_sector = (1 << shift) // 4 - 1  # the last entry points to the next DIFAT sector
    difat, seen = first_difat, set()
    while len(ids) < count:
        if difat >= max_sectors or difat in seen:
            raise Ole2Error("broken DIFAT chain")
        seen.add(difat)
        entries = struct.unpack(f"<{per_sector + 1}I", _read_sector(handle, shift, difat))
        ids.extend(sector for sector in entries[:per_sector] if sector != _FREE_SECTOR)
        difat = entries[per_sector]
    ids = ids[:count]
    if len(ids) < count or any(sector >= max_sectors for sector in ids):
        raise Ole2Error("FAT sector out of range")
    return ids


def _chain(table: tuple[int, ...], start: int, max_sectors: int) -> Iterator[int]:
    """Sector ids of the chain starting at ``start``; loops and dangling links are errors."""
    sector, seen = start, set()
    while sector < _MAX_REGULAR_SECTOR:
        if sector >= min(max_sectors, len(table)) or sector in seen:
            raise Ole2Error("broken sector chain")
        seen.add(sector)
        yield sector
        sector = table[sector]
    if not seen:
        raise Ole2Error("no directory")


def _names_in(sector: bytes) -> Iterator[str]:
    """Names of the allocated entries in one directory sector (free entries have type 0)."""
    for offset in range(0, len(sector), _DIRECTORY_ENTRY):
        entry = sector[offset : offset + _DIRECTORY_ENTRY]
        name_length, entry_type = struct.unpack_from("<HB", entry, 64)
        if entry_type not in (_STORAGE, _STREAM, _ROOT) or not 2 <= name_length <= 64 or name_length % 2:
            continue
        try:
            yield entry[: name_length - 2].decode("utf-16-le")
        except UnicodeDecodeError:
            continue


def _read_sector(handle: BinaryIO, shift: int, sector: int) -> bytes:
    """One sector; an unpadded last sector is completed with zeros (free directory entries)."""
    handle.seek((sector + 1) << shift)
    data = handle.read(1 << shift)
    if not data:
        raise Ole2Error("file is cut off")
    return data.ljust(1 << shift, b"\0")


def _read_at(handle: BinaryIO, offset: int, size: int) -> bytes:
    handle.seek(offset)
    data = handle.read(size)
    if len(data) != size:
        raise Ole2Error("file is cut off")
    return data
