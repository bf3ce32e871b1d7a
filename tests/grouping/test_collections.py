"""Collections as labels: renaming and deleting never touch documents, names are checked with clear
messages, and a watched folder that fed a deleted collection keeps working."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kbapp.library import KnowledgeBase
from kbapp.store.collections import CollectionError
from tests.reliability.conftest import hits
from tests.reliability.corpus import write_good


@pytest.fixture
def kb(tmp_path: Path):  # type: ignore[no-untyped-def]
    with KnowledgeBase(tmp_path / "lib", pack_dir=None, parse_limits=None) as kb:
        yield kb


def test_collections_are_labels_on_documents(kb: KnowledgeBase, tmp_path: Path) -> None:
    docs = [write_good(tmp_path / "docs", i, "txt", 40, random.Random(i)) for i in range(3)]
    kb.import_paths([tmp_path / "docs"])
    ids = {Path(d.path).name: d.id for d in kb.documents()}
    a, b, c = (ids[d.path.name] for d in docs)
    kb.collections.create("Line 1")
    kb.collections.create("  Line   2 ")  # whitespace is collapsed
    assert kb.collections.add("Line 1", [a, b, 999]) == 2  # unknown ids are ignored
    assert kb.collections.add("Line 1", [a]) == 0
    assert kb.collections.add("Line 2", [b, c]) == 2
    assert kb.collections.memberships() == {a: ["Line 1"], b: ["Line 1", "Line 2"], c: ["Line 2"]}

    with pytest.raises(CollectionError, match="already exists"):
        kb.collections.create("Line 1")
    with pytest.raises(CollectionError, match="already exists"):
        kb.collections.rename("Line 1", "Line 2")
    with pytest.raises(CollectionError, match="needs a name"):
        kb.collections.create("   ")
    with pytest.raises(CollectionError, match="no collection named 'Line 9'"):
        kb.collections.add("Line 9", [a])

    kb.collections.rename("Line 1", "Press line")
    assert {
        r.doc_id
        for r in kb.search(
            docs[0].begin, mode="lexical", document_ids=kb.collections.restrict(None, ["Press line"])
        ).results
    } == {a}
    kb.collections.delete("Press line")
    assert len(kb.documents()) == 3  # deleting a collection never deletes documents
    assert hits(kb, docs[0].begin) == {docs[0].path.name}
    assert kb.collections.memberships() == {b: ["Line 2"], c: ["Line 2"]}
    assert kb.collections.remove("Line 2", [b]) == 1
    kb.remove([c])
    assert [(x.name, x.documents) for x in kb.collections.list()] == [("Line 2", 0)]


def test_deleting_a_fed_collection_keeps_the_folder_watched(kb: KnowledgeBase, tmp_path: Path) -> None:
    folder = tmp_path / "pumps"
    doc = write_good(folder, 1, "md", 40, random.Random(1))
    kb.sources.add(folder, collection="Pumps")
    kb.sources.sync()
    kb.collections.delete("Pumps")
    [source] = kb.sources.list()
    assert source.collection is None
    later = write_good(folder, 2, "md", 40, random.Random(2))
    assert kb.sources.sync().ok
    assert hits(kb, doc.begin) == {doc.path.name} and hits(kb, later.begin) == {later.path.name}
    assert kb.collections.list() == []
