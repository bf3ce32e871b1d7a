"""The background-operation helper: results, failures and progress arrive on the GUI thread."""

from __future__ import annotations

import threading

from kbapp.gui.operations import OperationContext, run_in_background


def test_success_progress_and_cancel_are_delivered_on_the_gui_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    gui = threading.get_ident()
    seen: dict[str, object] = {}
    release = threading.Event()

    def work(ctx: OperationContext) -> str:
        seen["worker"] = threading.get_ident()
        for i in range(1, 101):
            ctx.report(i)  # a hundred reports, coalesced: the GUI gets the latest
        release.wait(10)
        return "cancelled" if ctx.cancelled() else "done"

    def progress(value: object) -> None:
        seen["progress_thread"] = threading.get_ident()
        seen["progress"] = value

    op = run_in_background(
        work, on_success=lambda v: seen.update(result=v, thread=threading.get_ident()), on_progress=progress
    )
    qtbot.waitUntil(lambda: seen.get("progress") == 100, timeout=10_000)
    op.cancel()
    release.set()
    with qtbot.waitSignal(op.done, timeout=10_000):
        pass
    assert seen["worker"] != gui
    assert seen["thread"] == gui and seen["progress_thread"] == gui
    assert seen["result"] == "cancelled"


def test_failure_is_delivered_not_lost(qtbot) -> None:  # type: ignore[no-untyped-def]
    errors: list[BaseException] = []

    def work(_ctx: OperationContext) -> None:
        raise ValueError("boom")

    op = run_in_background(work, on_failure=errors.append)
    qtbot.waitUntil(lambda: op.finished, timeout=10_000)
    assert len(errors) == 1 and str(errors[0]) == "boom"


def test_failure_without_handler_surfaces_in_qt(qtbot) -> None:  # type: ignore[no-untyped-def]
    def work(_ctx: OperationContext) -> None:
        raise RuntimeError("unhandled")

    with qtbot.captureExceptions() as exceptions:
        op = run_in_background(work)
        qtbot.waitUntil(lambda: op.finished, timeout=10_000)
    assert [str(e[1]) for e in exceptions] == ["unhandled"]
