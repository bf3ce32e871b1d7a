"""One helper for all background work: run a plain function on a worker thread.

Following Anki's pattern, the GUI thread never waits on the library: the function gets an
``OperationContext`` to report progress and to poll for cancellation, and its return value
(or exception) comes back through callbacks that run on the GUI thread. Progress is
coalesced — a worker reporting thousands of times a second costs the GUI one update per
event-loop turn — so a busy import cannot flood the event queue.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, ClassVar

from PySide6.QtCore import QObject, QRunnable, Qt, QThread, QThreadPool, Signal, Slot

from kbapp.gui.qt_compat import emit

_pool: QThreadPool | None = None


def _thread_pool() -> QThreadPool:
    """A pool of its own: a search must not queue behind an import and a model load on 2 cores."""
    global _pool
    if _pool is None:
        _pool = QThreadPool()
        _pool.setMaxThreadCount(max(4, QThreadPool.globalInstance().maxThreadCount()))
    return _pool


class OperationContext:
    """What the background function may touch: progress reporting and the cancel flag."""

    def __init__(self, operation: Operation) -> None:
        self._operation = operation

    def report(self, value: Any) -> None:
        """Publish progress; only the latest value is delivered if the GUI is behind."""
        self._operation._publish(value)

    def cancelled(self) -> bool:
        return self._operation._cancel.is_set()


_BACKGROUND_NICE = 5
_lowered: set[int] = set()


def _lower_priority() -> None:
    """Run background work below the GUI thread, so a busy machine (an embedding that uses
    every core) still leaves the event loop its turn. Threads a worker starts (ONNX Runtime's)
    inherit it. Once per pool thread: an unprivileged process cannot raise it back."""
    ident = threading.get_native_id()
    if ident in _lowered:
        return
    _lowered.add(ident)
    QThread.currentThread().setPriority(QThread.Priority.LowPriority)  # Windows, macOS
    if sys.platform.startswith("linux"):  # where niceness is per thread and Qt's priority is a no-op
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, ident, os.getpriority(os.PRIO_PROCESS, ident) + _BACKGROUND_NICE)


class _Runner(QRunnable):
    def __init__(self, operation: Operation) -> None:
        super().__init__()
        self._operation = operation

    def run(self) -> None:
        _lower_priority()
        op = self._operation
        try:
            value = op._fn(OperationContext(op))
        except BaseException as err:  # delivered to on_failure, never lost in a worker
            outcome: tuple[bool, Any] = (False, err)
        else:
            outcome = (True, value)
        # If the window was closed while this ran, the operation's QObject is gone and there is
        # nobody left to tell: that is not an error.
        with contextlib.suppress(RuntimeError):
            emit(op._finished, *outcome)


class Operation(QObject):
    """A function running on a worker thread, with GUI-thread callbacks.

    ``on_success(value)``, ``on_failure(exception)`` and ``on_progress(value)`` always run on
    the GUI thread (the signals below are queued to this object, which lives there). The
    ``done`` signal fires after either callback, for code that waits on completion (tests,
    job queues).
    """

    done = Signal()
    _progress = Signal()
    _finished = Signal(bool, object)

    _running: ClassVar[set[Operation]] = set()  # keeps Python wrappers alive until the worker is done

    def __init__(
        self,
        fn: Callable[[OperationContext], Any],
        *,
        on_success: Callable[[Any], None] | None = None,
        on_failure: Callable[[BaseException], None] | None = None,
        on_progress: Callable[[Any], None] | None = None,
    ) -> None:
        super().__init__()
        self._fn = fn
        self._on_success = on_success
        self._on_failure = on_failure
        self._on_progress = on_progress
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._latest: Any = None
        self._pending = False
        self.finished = False
        self._progress.connect(self._deliver_progress, Qt.ConnectionType.QueuedConnection)
        self._finished.connect(self._deliver_result, Qt.ConnectionType.QueuedConnection)

    def start(self) -> Operation:
        Operation._running.add(self)
        _thread_pool().start(_Runner(self))
        return self

    def cancel(self) -> None:
        """Ask the function to stop; it decides when (it polls ``context.cancelled()``)."""
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def _publish(self, value: Any) -> None:
        with self._lock:
            self._latest = value
            if self._pending:
                return
            self._pending = True
        emit(self._progress)

    @Slot()
    def _deliver_progress(self) -> None:
        with self._lock:
            value, self._pending = self._latest, False
        if self._on_progress is not None and not self.finished:
            self._on_progress(value)

    @Slot(bool, object)
    def _deliver_result(self, ok: bool, value: Any) -> None:
        self.finished = True
        Operation._running.discard(self)
        try:
            if ok and self._on_success is not None:
                self._on_success(value)
            elif not ok:
                if self._on_failure is None:
                    raise value
                self._on_failure(value)
        finally:
            emit(self.done)


def run_in_background(
    fn: Callable[[OperationContext], Any],
    *,
    on_success: Callable[[Any], None] | None = None,
    on_failure: Callable[[BaseException], None] | None = None,
    on_progress: Callable[[Any], None] | None = None,
) -> Operation:
    """Start ``fn(context)`` on a worker thread; see ``Operation`` for the callbacks."""
    return Operation(fn, on_success=on_success, on_failure=on_failure, on_progress=on_progress).start()


def wait_for_all(timeout_ms: int = 30_000) -> bool:
    """Block until every worker has returned (used when closing the window)."""
    return _thread_pool().waitForDone(timeout_ms)
