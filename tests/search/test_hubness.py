"""With the real model pack: a passage that sits near every question (a list of part numbers)
is read as such, so it cannot make an unrelated question look answered."""

from __future__ import annotations

from pathlib import Path

from kbapp.embedding.pack import ModelPack
from kbapp.library import KnowledgeBase
from kbapp.text.script import Script


def test_a_part_number_list_pulls_harder_than_prose(tmp_path: Path, default_pack: ModelPack) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    parts = "\n".join(
        ", ".join(f"{family}{n:03d}{suffix}" for n in range(start, start + 8) for suffix in ("A", "B"))
        for family, start in (("16F", 610), ("18F", 240), ("16LF", 150), ("12F", 500))
    )
    (docs / "parts.txt").write_text(f"Supported devices\n\n{parts}\n", "utf-8")
    (docs / "coolant.txt").write_text(
        "Coolant service\n\nDrain the coolant loop before replacing the pump seal. Refill with the "
        "specified glycol mixture, bleed the air at the top valve and check for leaks after ten minutes "
        "of running at idle.\n",
        "utf-8",
    )
    with KnowledgeBase(tmp_path / "lib", pack_dir=default_pack.path) as kb:
        assert kb.import_paths([docs]).ok
        kb.embed_pending()
        kb.search("coolant", k=1)  # loads the model and opens the vector index
        semantic = kb._searcher.semantic  # the retriever the relevance decision asks
        ids = {Path(d.path).name: d.id for d in kb.documents()}
        with kb.engine.connect() as conn:
            rows = conn.exec_driver_sql("SELECT id, document_id FROM chunks").all()
        pull = semantic.hubness({chunk: Script.LATIN for chunk, _ in rows})
    by_doc = {doc: max(pull[c] for c, d in rows if d == doc) for doc in ids.values()}
    assert by_doc[ids["parts.txt"]] > by_doc[ids["coolant.txt"]] + 0.01, by_doc
