"""A real library file for the store's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from kbapp.store.database import open_engine


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = open_engine(tmp_path / "library.sqlite3")
    yield engine
    engine.dispose()
