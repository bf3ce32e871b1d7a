"""The keyword postings copy: FTS5's BM25 to the last bits, served only while it reflects the library.

The libraries are small (the copy is built from ``MIN_PASSAGES`` passages up; the tests lower it),
but real: imported files, the real FTS5 table, the copy saved beside the library and read back.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kbapp.index import keyword_index
from kbapp.index.keyword_index import DATA_PREFIX, MANIFEST_FILE, KeywordIndex, Served
from kbapp.index.postings import PostingsMismatch, Totals, build
from kbapp.library import KnowledgeBase
from kbapp.search.lexical import lexical_search, term_counter
from kbapp.store import keywords
from kbapp.store.database import write_transaction
from kbapp.store.repair import rebuild_keyword_index
from kbapp.text.terms import Term, query_terms

WORDS = [
    *("pump", "valve", "seal", "bearing", "motor", "fault", "code", "alarm", "reset", "pressure"),
    *("sensor", "cable", "shield", "ground", "exposure", "time", "trigger", "timeout", "overheat"),
    *("voltage", "current", "relay", "fuse", "inlet", "outlet", "filter"),
]
CHINESE = ["曝光时间", "错误码", "传感器过热", "复位按钮", "电源电压", "密封圈", "轴承", "报警"]
CODES = ["E5021", "XK-200", "M3x0.5", "E5022"]


def _write_docs(folder: Path, count: int, seed: int) -> None:
    gen = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        heading = f"# {gen.choice(WORDS).title()} {gen.choice(CHINESE)}"
        paragraphs = []
        for _ in range(gen.randint(1, 4)):
            words = [gen.choice(WORDS) for _ in range(gen.randint(5, 40))]
            words += [*gen.sample(CHINESE, 2), gen.choice(CODES)]
            gen.shuffle(words)
            paragraphs.append(" ".join(words) + ".")
        # A CJK run ending in a middle dot is stored as one term that FTS5 reads as two tokens.
        paragraphs.append("卡希・ 乔治 " * gen.randint(0, 2))
        text = heading + "\n\n" + "\n\n".join(paragraphs) + "\n"
        (folder / f"doc{seed}-{i:03}.md").write_text(text, "utf-8")


@pytest.fixture
def every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyword_index, "MIN_PASSAGES", 0)


@pytest.fixture
def kb(tmp_path: Path, every_size: None):  # type: ignore[no-untyped-def]
    _write_docs(tmp_path / "docs", 60, seed=1)
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        assert kb.intake([tmp_path / "docs"], embed=False).imports[-1].ok  # ends with a refresh
        yield kb


QUESTIONS = [
    "pump valve seal",
    "E5021 sensor overheat",
    "XK-200 cable shield ground",
    "曝光时间 exposure time",
    "传感器过热怎么复位",
    "错误码 E5022",
    "reset",
    "卡希",
    "轴承 bearing fault alarm relay fuse",
    "报 警 E5021 复",  # lone characters: prefix queries
]


def _ranked(kb: KnowledgeBase, terms: list[Term], use_copy: bool, **kw: object) -> list[tuple[int, float]]:
    with kb.engine.connect() as conn:
        served = kb._keywords.current(conn) if use_copy else None
        assert (served is not None) == use_copy
        return lexical_search(conn, terms, 10, served=served, **kw)  # type: ignore[arg-type]


def _same(a: list[tuple[int, float]], b: list[tuple[int, float]]) -> None:
    """The same scores in the same order; the same passages wherever a score is not tied."""
    assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-12, abs=1e-12)
    counts: dict[float, int] = {}
    for _, s in a:
        counts[round(s, 9)] = counts.get(round(s, 9), 0) + 1
    assert {i for i, s in a if counts[round(s, 9)] == 1} == {i for i, s in b if counts[round(s, 9)] == 1}


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_copy_scores_as_fts5_does(kb: KnowledgeBase, question: str) -> None:
    terms = query_terms(question)
    with kb.engine.connect() as conn:
        candidates = [r[0] for r in conn.exec_driver_sql("SELECT id FROM chunks ORDER BY id DESC LIMIT 25")]
    fts = _ranked(kb, terms, use_copy=False, also=candidates)
    assert fts, question
    _same(_ranked(kb, terms, use_copy=True, also=candidates), fts)
    with kb.engine.connect() as conn:  # within some documents only
        docs = [r[0] for r in conn.exec_driver_sql("SELECT id FROM documents ORDER BY id LIMIT 7")]
    _same(
        _ranked(kb, terms, use_copy=True, document_ids=docs),
        _ranked(kb, terms, use_copy=False, document_ids=docs),
    )


def test_terms_keep_their_share_of_bm25_in_the_copy_as_in_fts5(kb: KnowledgeBase) -> None:
    """A translation's terms keep a share of their BM25 (``crossing.Bridged.weights``): each
    passage scores the sum of its terms' BM25, each scaled by its share, from the copy as from
    FTS5."""
    terms = query_terms("pump valve 曝光时间 reset")
    weights = {terms[1].text: 0.5, terms[-1].text: 0.25}
    with kb.engine.connect() as conn:
        alone = [dict(lexical_search(conn, [t], 1000)) for t in terms]
    scores = {
        c: sum(weights.get(t.text, 1.0) * a.get(c, 0.0) for t, a in zip(terms, alone, strict=True))
        for c in set().union(*alone)
    }
    fts = _ranked(kb, terms, use_copy=False, weights=weights)
    assert [s for _, s in fts] == pytest.approx(sorted(scores.values(), reverse=True)[:10], rel=1e-9)
    assert all(scores[c] == pytest.approx(s, rel=1e-9) for c, s in fts)
    _same(_ranked(kb, terms, use_copy=True, weights=weights), fts)


def test_phrases_are_added_from_fts5(kb: KnowledgeBase) -> None:
    """A phrase term (several tokens) is scored by FTS5 and added in."""
    terms = [Term("曝光 光时 时间", 0, 4), Term("pump", 0, 4)]
    _same(_ranked(kb, terms, use_copy=True), _ranked(kb, terms, use_copy=False))


def test_the_copy_scores_prefixes_as_fts5_does(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone Chinese character is a prefix query: every term it begins counts in a passage, and
    its IDF counts the passages holding any of them. The copy scores it without FTS5 (its scoring
    call fails here) while the library is the one it was built from: 复 begins 复位, 电 both 电源 and
    电压 (one passage holds both); 希 is a token of its own only to FTS5 (the term 希・); 鑫 begins
    nothing; a repeated prefix counts twice."""
    prefixes = [Term(c, 0, 1, prefix=True) for c in ("复", "电", "希", "鑫", "报", "报")]
    terms = [*prefixes, Term("pump", 0, 4)]
    fts = _ranked(kb, terms, use_copy=False)
    assert fts and _ranked(kb, prefixes[3:4], use_copy=False) == []

    def unused(*args: object) -> None:
        raise AssertionError("FTS5 was asked to score a prefix")

    monkeypatch.setattr(keywords, "bm25_scores", unused)
    _same(_ranked(kb, terms, use_copy=True), fts)


def test_the_copy_counts_passages_as_fts5_does(kb: KnowledgeBase, tmp_path: Path) -> None:
    """Passages per term from the copy are FTS5's vocabulary's, for every term it holds and for
    texts it holds none of (an unseen word, a phrase); a changed library is counted by FTS5."""
    with kb.engine.connect() as conn:
        texts = [term for term, _ in keywords.vocabulary_counts(conn)] + ["nosuchterm", "曝光 光时", "xk-200"]
        served = kb._keywords.current(conn)
        assert served is not None and served.view.exact
        assert term_counter(conn, served)(texts) == keywords.term_counts(conn, texts)
    _write_docs(tmp_path / "more", 2, seed=3)
    assert kb.intake([tmp_path / "more"], embed=False).imports[-1].ok
    with kb.engine.connect() as conn:
        served = kb._keywords.current(conn)
        assert served is not None and not served.view.exact
        assert term_counter(conn, served)(texts) == keywords.term_counts(conn, texts)


def _served(kb: KnowledgeBase) -> Served | None:
    with kb.engine.connect() as conn:
        return kb._keywords.current(conn)


def _data_file(kb: KnowledgeBase) -> Path:
    [data_file] = kb.data_dir.glob(f"{DATA_PREFIX}*")  # older copies are deleted when a newer one is saved
    return data_file


def test_a_changed_library_is_served_by_the_copy_and_fts5_together(kb: KnowledgeBase, tmp_path: Path) -> None:
    """Passages added since the copy was built are FTS5's, removed ones are masked, and the IDF and
    lengths are the library's now: still FTS5's scores, until a tenth has changed and it is rebuilt."""
    built = _data_file(kb)
    _write_docs(tmp_path / "more", 4, seed=2)
    assert kb.intake([tmp_path / "more"], embed=False).imports[-1].ok
    removed = kb.remove([kb.documents()[0].id])
    assert removed == 1 and _data_file(kb) == built  # fewer than a tenth changed: not rebuilt
    served = _served(kb)
    assert served is not None and not served.view.exact and served.added_after is not None
    for question in QUESTIONS:
        terms = query_terms(question)
        _same(_ranked(kb, terms, use_copy=True), _ranked(kb, terms, use_copy=False))
    _write_docs(tmp_path / "many", 10, seed=4)
    assert kb.intake([tmp_path / "many"], embed=False).imports[-1].ok
    served = _served(kb)
    assert _data_file(kb) != built and served is not None and served.view.exact  # rebuilt


def _chunk_ids(kb: KnowledgeBase) -> set[int]:
    with kb.engine.connect() as conn:
        return {int(r[0]) for r in conn.exec_driver_sql("SELECT id FROM chunks")}


def test_removing_the_newest_passages_gives_their_ids_to_no_other_text(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    """The copy's postings for an id are that passage's: an id given again would be scored as the
    removed text. Ids keep rising past removed ones, and the copy serves on."""
    before = _chunk_ids(kb)
    kb._remove_documents([max(kb.documents(), key=lambda d: d.id).id])
    _write_docs(tmp_path / "again", 1, seed=5)
    assert kb.import_paths([tmp_path / "again"]).ok
    assert min(_chunk_ids(kb) - before) > max(before)
    served = _served(kb)
    assert served is not None and served.added_after is not None
    terms = query_terms("pump valve E5021")
    _same(_ranked(kb, terms, use_copy=True), _ranked(kb, terms, use_copy=False))


def test_a_library_that_reused_ids_is_served_only_as_the_copy_was_built(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    """A library imported into before ids stopped being reused has no record of the largest given:
    a copy of it serves only the library it was built from."""
    with write_transaction(kb.engine) as conn:
        conn.exec_driver_sql("DELETE FROM meta WHERE key = 'chunk_id_floor'")
    older = KeywordIndex(kb.engine, tmp_path / "older")
    (tmp_path / "older").mkdir()
    older.refresh()
    with kb.engine.connect() as conn:
        assert older.current(conn) is not None
    kb._remove_documents([kb.documents()[0].id])
    with kb.engine.connect() as conn:
        assert older.current(conn) is None


def test_keyword_rows_rewritten_in_place_retire_the_copy(kb: KnowledgeBase) -> None:
    with write_transaction(kb.engine) as conn:
        rebuild_keyword_index(conn)  # what a repair does: same ids, the rows written again
    assert _served(kb) is None
    kb.verify(repair=True)  # which ends with a refresh
    assert _served(kb) is not None


def test_a_saved_copy_is_read_by_the_next_process_and_a_damaged_one_is_not(kb: KnowledgeBase) -> None:
    folder = kb.data_dir
    data_file = _data_file(kb)
    assert (folder / MANIFEST_FILE).is_file()
    fresh = KeywordIndex(kb.engine, folder)
    with kb.engine.connect() as conn:
        assert fresh.current(conn) is not None
    data = bytearray(data_file.read_bytes())
    data[len(data) // 2] ^= 0xFF
    data_file.write_bytes(bytes(data))
    damaged = KeywordIndex(kb.engine, folder)
    with kb.engine.connect() as conn:
        assert damaged.current(conn) is None  # checksum: never served
    assert damaged.refresh() is None  # rebuilt and saved again
    with kb.engine.connect() as conn:
        assert KeywordIndex(kb.engine, folder).current(conn) is not None


def test_no_copy_below_its_size(tmp_path: Path) -> None:
    _write_docs(tmp_path / "docs", 3, seed=3)
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        assert kb.intake([tmp_path / "docs"], embed=False).imports[-1].ok
        with kb.engine.connect() as conn:
            assert kb._keywords.current(conn) is None
    assert not list((tmp_path / "lib").glob(f"{DATA_PREFIX}*"))


def test_text_read_otherwise_than_fts5_reads_it_is_refused() -> None:
    """Counts that disagree with the keyword index's (a tokenizer mismatch) build nothing."""
    rows = [(1, "pump valve", ""), (2, "pump", "")]
    with pytest.raises(PostingsMismatch):
        build(iter(rows), [("pump", 2), ("valve", 2)], Totals(2, 3, 2))
    with pytest.raises(PostingsMismatch):
        build(iter(rows), [("pump", 2)], Totals(2, 3, 2))
    assert build(iter(rows), [("pump", 2), ("valve", 1)], Totals(2, 3, 2)).terms == ["pump", "valve"]


def test_a_search_whose_copy_was_replaced_meanwhile_ranks_with_fts5(kb: KnowledgeBase) -> None:
    terms = query_terms("pump valve E5021")
    with kb.engine.connect() as conn:
        served = kb._keywords.current(conn)
        assert served is not None and served.view.postings.stored is not None
        served.view.postings.stored.path.unlink()  # what the next save does to the file this copy reads
        got = lexical_search(conn, terms, 10, served=served)
    assert got == _ranked(kb, terms, use_copy=False)


def test_a_cancelled_rebuild_keeps_no_half_copy(tmp_path: Path, every_size: None) -> None:
    """Closing the window stops a rebuild (minutes at a million passages): nothing is saved, FTS5
    keeps ranking, and the next refresh builds the copy."""
    _write_docs(tmp_path / "docs", 20, seed=5)
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        assert kb.import_paths([tmp_path / "docs"]).ok  # no intake: no copy yet
        asked: list[bool] = []

        def stop() -> bool:
            asked.append(True)
            return True

        assert kb._keywords.refresh(stop) is None
        assert asked and not list((tmp_path / "lib").glob(f"{DATA_PREFIX}*"))
        with kb.engine.connect() as conn:
            assert kb._keywords.current(conn) is None
        kb.refresh_keyword_index()
        with kb.engine.connect() as conn:
            assert kb._keywords.current(conn) is not None
