"""Searches from another thread while an import and an embedding run are in progress: always a
consistent library (a document is visible whole or not at all), and never waiting for the whole
import or embedding run: searches complete while each of them is in progress. (How long a search
takes under load is a benchmark's business, ``bench/bench_search.py``, not a test's.)"""

from __future__ import annotations

import random
import threading
from pathlib import Path

from kbapp.library import KnowledgeBase
from tests.reliability.conftest import PACK
from tests.reliability.corpus import write_good


def test_searches_stay_consistent_and_fast_during_import_and_embedding(tmp_path: Path) -> None:
    rnd = random.Random(8)
    kinds = ["md", "txt", "pdf", "html", "docx"]
    docs = [write_good(tmp_path / "docs", i, kinds[i % 5], 200 + 60 * i, rnd) for i in range(12)]
    pack = PACK if (PACK / "manifest.json").is_file() else None
    modes = ["lexical", "hybrid", "dense"] if pack else ["lexical"]
    phase = ["import"]  # what is running: searches are counted by the phase they began and ended in
    completed: dict[str, int] = {"import": 0, "embed": 0}
    seen: list[tuple[int, int]] = []  # (document id, passages it had when a search returned it)
    torn: list[str] = []
    failed: list[BaseException] = []  # an exception in the thread would only be a warning
    stop = threading.Event()
    with KnowledgeBase(tmp_path / "lib", pack_dir=pack) as kb:
        kb.load_model()

        def search_loop() -> None:
            try:
                searches()
            except BaseException as exc:
                failed.append(exc)

        def searches() -> None:
            n = 0
            while not stop.is_set():
                doc = rnd.choice(docs)
                began = phase[0]
                response = kb.search(doc.begin, mode=modes[n % len(modes)])
                if phase[0] == began and began in completed:
                    completed[began] += 1
                n += 1
                with kb.engine.connect() as conn:
                    for r in response.results:
                        count = conn.exec_driver_sql(
                            "SELECT count(*) FROM chunks WHERE document_id = ?", (r.doc_id,)
                        ).scalar_one()
                        seen.append((r.doc_id, count))
                found_begin = doc.path.name in {
                    Path(r.path).name for r in kb.search(doc.begin, mode="lexical").results
                }
                found_end = doc.path.name in {
                    Path(r.path).name for r in kb.search(doc.end, mode="lexical").results
                }
                if found_begin and not found_end:
                    torn.append(doc.path.name)

        searcher = threading.Thread(target=search_loop)
        searcher.start()
        try:
            report = kb.import_paths([tmp_path / "docs"])
            phase[0] = "embed"
            kb.embed_pending()
        finally:
            phase[0] = "done"
            stop.set()
            searcher.join()
        assert not failed, f"a search failed during the import: {failed[0]!r}"
        assert report.ok
        final = {f.doc_id: f.chunks for f in report.files}
        assert not torn, f"first passage visible without the last: {torn}"
        assert all(count == final[doc_id] for doc_id, count in seen), "a search saw a partial document"
        assert kb.pending_embeddings() == 0
    # A search that waited for the import (or the embedding) to finish would end in the next phase.
    assert completed["import"] >= 2 and completed["embed"] >= 2, completed
