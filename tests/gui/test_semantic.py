"""With the real model pack: the model loads in the background, new documents are keyword-
searchable at once, and once embedded a question finds passages by meaning."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from kbapp.contract import ModelState
from kbapp.embedding import default_pack_dir
from tests.gui.conftest import WAIT_MS, drop_paths, screenshot, search

PACK = default_pack_dir()


@pytest.mark.skipif(
    not (PACK / "manifest.json").is_file(),
    reason=f"no model pack at {PACK} (build it with: kbapp model build)",
)
def test_semantic_result_arrives_after_embedding(qtbot, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window(pack_dir=PACK)
    assert window.jobs.model_state == ModelState.READY
    assert window.status.model_label.text() == "Semantic search ready"
    with qtbot.waitSignal(window.jobs.embeddingFinished, timeout=WAIT_MS) as embedded:
        with qtbot.waitSignal(window.jobs.importFinished, timeout=WAIT_MS) as imported:
            drop_paths(window, [manuals / "camera_en.md", manuals / "pump.pdf"])
        assert imported.args[0].ok
        # Keyword-searchable before the vectors exist, and the status bar says what is pending.
        assert window.status.pending_label.isVisible()
        assert "waiting for semantic indexing" in window.status.pending_label.text()
    assert embedded.args == [True]
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=WAIT_MS)
    assert not window.status.pending_label.isVisible()

    search(qtbot, window, "the picture looks too dark")
    top = window.results_area.response.results[0]
    assert Path(top.path).name == "camera_en.md"
    assert "dense_rank" in top.why and top.why["similarity"] >= 0.8
    tooltip = window.results_area.results_view.model().index(0).data(Qt.ItemDataRole.ToolTipRole)
    assert "Semantic match: rank 1" in tooltip

    # A question the manuals do not answer: "nothing relevant", and the nearest passages on request.
    search(qtbot, window, "who won the football world cup final")
    area = window.results_area
    assert area.response.results == [] and area.response.closest
    assert area.stack.currentWidget() is area.message_page
    assert window.preview.result is None
    screenshot(window, "09-nothing-relevant")
    area.message_page.action.click()
    assert area.stack.currentWidget() is area.results_view
    assert area.info.isVisible() and "closest passages" in area.info.text()
    assert window.preview.result == area.response.closest[0]
    qtbot.waitUntil(lambda: window.preview.shown_doc == area.response.closest[0].doc_id, timeout=WAIT_MS)
    screenshot(window, "10-closest-passages-on-request")
