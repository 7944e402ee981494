"""The garbage collector's full passes kept short (standard library only).

CPython's collector walks every object it tracks in each full pass (the oldest
generation): with 500 tables and a thousand Mini App pages that is about 100 ms of CPU in
one piece, every few seconds while play goes on, and the event loop waits for it — every
table, page and chat hand. On a machine whose cores other work shares, the pass is cut
into time slices and the wait grows to 0.3-1 s. Nearly all of those passes find no
garbage at all: what lives that long (tables, pages, connections) stays alive, and what
dies is freed at once by reference counting.

So after each full pass the survivors are frozen (:func:`gc.freeze`): the next passes
walk only what came since, a small part of the heap. Garbage cycles made later of frozen
objects (a closed page's connection, say) would be missed, so every
:data:`REWALK_SECONDS` the next full pass first unfreezes everything and walks the whole
heap once, as the collector always did.
"""

from __future__ import annotations

import gc
import time
from typing import Any, Final

__all__ = ["REWALK_SECONDS", "FullPasses", "keep_full_passes_short"]

OLDEST: Final = len(gc.get_threshold()) - 1
"""The generation whose passes are the full ones."""
REWALK_SECONDS: Final = 600.0
"""How often a full pass walks everything again (frozen objects included)."""


class FullPasses:
    """A :data:`gc.callbacks` entry: freezes the survivors of each full pass, and unfreezes
    them at the start of the first full pass ``rewalk`` seconds after the last whole walk."""

    __slots__ = ("_clock", "_walked", "rewalk", "whole_walks")

    def __init__(self, rewalk: float = REWALK_SECONDS, clock: Any = time.monotonic) -> None:
        self.rewalk = rewalk
        self._clock = clock
        self._walked = clock()
        self.whole_walks = 0
        """Full passes that walked everything (for the tests)."""

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != OLDEST:
            return
        if phase == "start":
            now = self._clock()
            if now - self._walked >= self.rewalk:
                gc.unfreeze()  # this pass walks the whole heap
                self._walked = now
                self.whole_walks += 1
        elif phase == "stop":
            gc.freeze()


def keep_full_passes_short(rewalk: float = REWALK_SECONDS) -> FullPasses:
    """Install :class:`FullPasses` for this process (once: the bot's main process)."""
    for callback in gc.callbacks:
        if isinstance(callback, FullPasses):
            return callback
    passes = FullPasses(rewalk)
    gc.callbacks.append(passes)
    return passes
