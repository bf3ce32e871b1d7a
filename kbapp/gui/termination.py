"""Closing the window when the system asks the app to stop.

At logout or shutdown the desktop sends SIGTERM (SIGHUP when its terminal goes away, SIGINT on
Ctrl-C in it). Python's default answer is to die on the spot, skipping the window's close: the
window's size and layout were not saved, the import under way was not stopped at a group
boundary, and multiprocessing reported its semaphores leaked. The handler closes the window
instead, the path a user's click takes.

Qt's event loop runs in C++, and Python runs a signal handler only when it next gets control, which
in an idle window may be never. The signal's wakeup byte goes to a socket that a
``QSocketNotifier`` watches, which hands control to Python at once.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable
from types import FrameType

from PySide6.QtCore import QSocketNotifier, QTimer
from PySide6.QtWidgets import QWidget

STOP_SIGNALS = ("SIGTERM", "SIGHUP", "SIGINT")  # those a platform lacks (Windows: SIGHUP) are skipped


def close_on_stop_signals(window: QWidget) -> Callable[[], None]:
    """Close ``window`` when the process gets a stop signal (call from the main thread). Returns
    what puts the previous handlers back, for once the event loop has ended: a signal while the
    library closes must then end the process as before, not ask a gone window to close."""
    wakeup = _Wakeup(window)
    previous_fd = signal.set_wakeup_fd(wakeup.writer.fileno())

    def close(_signum: int, _frame: FrameType | None) -> None:
        QTimer.singleShot(0, window.close)

    previous = {}
    for name in STOP_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, close)

    def restore() -> None:
        signal.set_wakeup_fd(previous_fd)
        for number, handler in previous.items():
            signal.signal(number, handler)

    return restore


class _Wakeup(QSocketNotifier):
    """Watches the socket the signal wakeup bytes are written to; owned by the window."""

    def __init__(self, window: QWidget) -> None:
        self.reader, self.writer = socket.socketpair()
        for end in (self.reader, self.writer):
            end.setblocking(False)
        super().__init__(self.reader.fileno(), QSocketNotifier.Type.Read, window)
        self.activated.connect(self._drain)

    def _drain(self) -> None:
        try:
            while self.reader.recv(64):
                pass
        except OSError:  # nothing more to read
            pass
