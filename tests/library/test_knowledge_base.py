"""The façade end to end on real files and a real SQLite library."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kbapp.contract import Outcome
from kbapp.embedding.pack import ModelPack
from kbapp.library import KnowledgeBase


@pytest.fixture
def kb(tmp_path: Path):  # type: ignore[no-untyped-def]
    with KnowledgeBase(tmp_path / "lib") as kb:
        yield kb


def outcomes(report) -> dict[str, Outcome]:  # type: ignore[no-untyped-def]
    return {Path(f.path).name: f.outcome for f in report.files}


def test_import_folder_and_search_mixed_languages(kb: KnowledgeBase, sample_folder: Path) -> None:
    report = kb.import_paths([sample_folder])
    assert report.ok, [f.message for f in report.failed]
    assert set(outcomes(report).values()) == {Outcome.IMPORTED}
    assert len(kb.documents()) == 5

    res = kb.search("曝光时间", mode="lexical")
    assert res.results and res.message is None
    top = res.results[0]
    assert "曝光时间" in top.text
    # The library also holds English manuals, so the bridge looks for "exposure time" too.
    assert sorted({top.text[s:e] for s, e in top.highlights}) == ["Exposure", "Time", "曝光时间"]
    assert [r.citation for r in res.results] == list(range(1, len(res.results) + 1))

    res = kb.search("E5021", mode="lexical")
    assert {Path(r.path).name for r in res.results} >= {"camera_en.md", "camera_zh.txt"}

    res = kb.search("XK-200 trigger mode", mode="lexical")
    assert Path(res.results[0].path).name == "camera_en.md"
    assert res.results[0].heading and "Trigger mode" in res.results[0].heading


def test_traditional_query_finds_simplified_document(kb: KnowledgeBase, sample_folder: Path) -> None:
    kb.import_paths([sample_folder])
    res = kb.search("錯誤碼 曝光時間", mode="lexical")
    assert res.results and Path(res.results[0].path).name.startswith("camera_zh")


def test_gbk_text_is_decoded(kb: KnowledgeBase, sample_folder: Path) -> None:
    kb.import_paths([sample_folder])
    res = kb.search("XK-300 曝光", mode="lexical")
    assert Path(res.results[0].path).name == "camera_zh_gbk.txt"
    assert "曝光时间" in res.results[0].text


def test_pdf_results_carry_physical_pages(kb: KnowledgeBase, sample_folder: Path) -> None:
    kb.import_paths([sample_folder])
    res = kb.search("coupling alignment vibrates", mode="lexical")
    assert (Path(res.results[0].path).name, res.results[0].page) == ("pump.pdf", 2)
    res = kb.search("联轴器", mode="lexical")
    assert (Path(res.results[0].path).name, res.results[0].page) == ("pump_zh.pdf", 2)


def test_nothing_matches_returns_empty_with_message(kb: KnowledgeBase, sample_folder: Path) -> None:
    kb.import_paths([sample_folder])
    res = kb.search("zebra giraffe", mode="lexical")
    assert res.results == []
    assert res.message and "Nothing" in res.message


def test_reimport_unchanged_is_noop_and_changed_replaces(kb: KnowledgeBase, sample_folder: Path) -> None:
    kb.import_paths([sample_folder])
    before = {d.path: d.id for d in kb.documents()}
    again = kb.import_paths([sample_folder])
    assert set(outcomes(again).values()) == {Outcome.UNCHANGED}
    assert {d.path: d.id for d in kb.documents()} == before

    target = sample_folder / "camera_zh.txt"
    target.write_text("新的内容：液压阀 HV-7 的维护周期为六个月。", encoding="utf-8")
    os.utime(target, (1, 1))
    report = kb.import_paths([target])
    assert outcomes(report) == {"camera_zh.txt": Outcome.UPDATED}
    assert kb.search("液压阀", mode="lexical").results
    assert all(Path(r.path).name != "camera_zh.txt" for r in kb.search("触发模式", mode="lexical").results)
    assert kb.verify().ok


def test_duplicate_content_is_not_imported_twice(
    kb: KnowledgeBase, sample_folder: Path, tmp_path: Path
) -> None:
    kb.import_paths([sample_folder])
    copy = tmp_path / "copy of camera.txt"
    copy.write_bytes((sample_folder / "camera_zh.txt").read_bytes())
    report = kb.import_paths([copy])
    assert outcomes(report) == {"copy of camera.txt": Outcome.DUPLICATE}
    assert "same content" in report.files[0].message


def test_bad_file_is_reported_and_library_kept(
    kb: KnowledgeBase, sample_folder: Path, tmp_path: Path
) -> None:
    kb.import_paths([sample_folder])
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.7\n" + os.urandom(2000))
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    report = kb.import_paths([bad, empty])
    assert not report.ok
    messages = {Path(f.path).name: f.message for f in report.files}
    assert messages["broken.pdf"].startswith("broken.pdf:")
    assert "empty" in messages["empty.txt"]
    assert kb.search("曝光时间", mode="lexical").results
    statuses = {Path(d.path).name: d.status for d in kb.documents()}
    assert statuses["broken.pdf"] == "failed" and statuses["camera_zh.txt"] == "ready"
    assert kb.verify().ok


def test_remove_and_filters(kb: KnowledgeBase, sample_folder: Path) -> None:
    kb.import_paths([sample_folder])
    docs = {Path(d.path).name: d.id for d in kb.documents()}
    res = kb.search("E5021", mode="lexical", document_ids=[docs["camera_zh.txt"]])
    assert {Path(r.path).name for r in res.results} == {"camera_zh.txt"}
    assert kb.remove([docs["camera_zh.txt"]]) == 1
    assert all(Path(r.path).name != "camera_zh.txt" for r in kb.search("E5021", mode="lexical").results)
    assert kb.verify().ok


def test_cancel_stops_between_files(kb: KnowledgeBase, sample_folder: Path) -> None:
    seen: list[int] = []
    report = kb.import_paths(
        [sample_folder], progress=lambda p: seen.append(p.done), cancel=lambda: len(seen) >= 2
    )
    assert report.cancelled
    assert len(report.files) == 1
    assert len(kb.documents()) == 1


def test_library_folder_inside_an_imported_folder_is_not_walked(tmp_path: Path, sample_folder: Path) -> None:
    with KnowledgeBase(sample_folder / "lib", pack_dir=None) as kb:
        kb.import_paths([sample_folder])
        report = kb.import_paths([sample_folder])  # now lib/ holds the database and kept copies
        assert report.skipped == 0
        assert {f.outcome for f in report.files} == {Outcome.UNCHANGED}
        # The library's folder itself, or its kept copies, named outright: refused, not walked.
        report = kb.import_paths([sample_folder / "lib", sample_folder / "lib" / "files"])
        assert report.files == [] and report.skipped == 0
        assert [why for _, why in report.problems] == [
            "in the library's own folder (its kept copies); not imported"
        ] * 2


def test_quoted_phrase_ranks_passages_containing_it_first(kb: KnowledgeBase, tmp_path: Path) -> None:
    docs = tmp_path / "manuals"
    docs.mkdir()
    # Many shared question words on one side, the one quoted title on the other.
    kinds = "哪一种类型的资料最常用？说明书、快速指南、维修手册都是常见的资料类型，类型资料的资料很多。"
    (docs / "kinds.txt").write_text(kinds, encoding="utf-8")
    shelf = "2019年到2021年间，工厂整理了一批维修资料：《泵阀图册》、《冷卻規範》。"
    (docs / "shelf.txt").write_text(shelf, encoding="utf-8")
    kb.import_paths([docs])
    plain = kb.search("冷却规范属于哪一种类型的资料", mode="lexical").results
    quoted = kb.search("《冷卻規範》屬於哪一種類型的資料?", mode="lexical").results
    assert Path(plain[0].path).name == "kinds.txt"  # BM25 alone prefers the many common words
    assert [Path(r.path).name for r in quoted] == ["shelf.txt", "kinds.txt"]
    assert quoted[0].score > quoted[1].score  # scores still fall with rank


def test_a_damaged_or_missing_model_pack_is_named_by_the_search(
    tmp_path: Path, sample_folder: Path, default_pack: ModelPack
) -> None:
    """Keyword matches still come back, and the message says what is wrong with the pack; it had
    said "the embedding model is still loading" whatever the reason."""
    damaged = tmp_path / "damaged-pack"
    shutil.copytree(default_pack.path, damaged)
    with (damaged / "model.onnx").open("r+b") as f:
        f.truncate(1000)
    for pack, reason in ((damaged, "sha256 does not match"), (tmp_path / "no-pack", "no model pack")):
        with KnowledgeBase(tmp_path / f"lib-{pack.name}", pack_dir=pack) as kb:
            kb.import_paths([sample_folder])
            res = kb.search("E5021")
            assert res.results and res.message is not None
            assert reason in res.message and "still loading" not in res.message, res.message
