"""The garbage collector's full passes made rare (standard library only).

CPython's collector walks every object it tracks in each full pass (the oldest
generation): with 500 tables and a thousand Mini App pages that is about 100 ms of CPU in
one piece, every two or three seconds while play goes on, and the event loop waits for it
— every table, page and chat hand. On a machine whose cores other work shares, a pass is
cut into time slices and the wait grows to 0.3-1 s. A full pass comes after ten of the
middle generation's, and anything that lives longer than a few tens of milliseconds (a
state waiting for its player, a request in flight) reaches the oldest generation; yet
nearly all those passes find no garbage at all: what lives long stays alive, and what
dies is freed at once by reference counting.

So the collector makes no full passes of its own here: the young generations are
collected (their passes are short, and find the garbage cycles of the moment), and a thread
of ours makes one full pass every :data:`FULL_PASS_SECONDS`, for the rare cycles that
outlived the young passes (a closed page's connection, say).

The youngest generation is collected after :data:`YOUNG` new objects instead of 700: at
300 moves a second the middle generation's passes, each walking the survivors of ten young
ones, took half the collector's time at 700 (0.65 s of CPU in a 30-second run at 500
tables, 2.5% of the bot's) and a fifth of it at 10,000 (0.14 s); the young passes cost the
same either way (they walk what lives on, however often they come).
"""

from __future__ import annotations

import gc
import threading
from typing import Final

__all__ = ["FULL_PASS_SECONDS", "NEVER", "YOUNG", "FullPasses", "make_full_passes_rare"]

FULL_PASS_SECONDS: Final = 600.0
"""How often a full pass is made."""
YOUNG: Final = 10_000
"""New objects (less those freed) after which the youngest generation is collected."""
NEVER: Final = 1 << 30
"""The oldest generation's threshold that the collector never reaches by itself (it
counts the middle generation's passes since the last full one)."""


class FullPasses(threading.Thread):
    """The thread that makes a full pass every ``every`` seconds, until :meth:`stop`."""

    def __init__(self, every: float) -> None:
        super().__init__(name="durak-full-gc", daemon=True)
        self.every = every
        self._stopped = threading.Event()

    def run(self) -> None:
        while not self._stopped.wait(self.every):
            gc.collect()

    def stop(self) -> None:
        """No more passes (the tests')."""
        self._stopped.set()


_started: FullPasses | None = None


def make_full_passes_rare(every: float = FULL_PASS_SECONDS) -> FullPasses:
    """Turn the collector's own full passes off and make one every ``every`` seconds
    instead, from a daemon thread (once per process: the bot's main process); the youngest
    generation is collected every :data:`YOUNG` objects."""
    global _started
    if _started is not None and _started.is_alive():
        return _started
    _, middle, _ = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, NEVER)
    _started = FullPasses(every)
    _started.start()
    return _started
