"""Quick reactions at private tables: players who share no chat (strangers paired for a
quick game) say something without free text — one emoji of a fixed row, shown to the
others as "<name>: <emoji>" in their table message for a while. One every
:data:`MIN_GAP` seconds per player: a second one sooner is refused, so nobody can flood
the others' chats (each shown reaction edits their messages).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

__all__ = ["EMOJI", "MIN_GAP", "SHOWN_FOR", "Reactions"]

EMOJI: Final = ("👍", "😂", "😮", "😢", "😡", "🤝")
"""The row of reactions, each a single emoji (callback data names one by its index)."""
MIN_GAP: Final = 3.0
"""Seconds between two reactions of one player."""
SHOWN_FOR: Final = 60.0
"""Seconds a reaction stays in the others' table messages (until a later one replaces it,
or the table moves on past this)."""


class Reactions:
    """The latest reaction of each seat of each private table, in memory (a reaction is
    of the moment: it is not kept across a restart)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._latest: dict[int, dict[int, tuple[str, str, float]]] = {}

    def too_soon(self, table_id: int, seat: int) -> float:
        """Seconds the seat must still wait before its next reaction (0: it may now)."""
        found = self._latest.get(table_id, {}).get(seat)
        if found is None:
            return 0.0
        return max(0.0, found[2] + MIN_GAP - self._clock())

    def add(self, table_id: int, seat: int, name: str, emoji: str) -> None:
        """The seat's player (by his first name) reacted now."""
        self._latest.setdefault(table_id, {})[seat] = (name, emoji, self._clock())

    def shown_to(self, table_id: int, seat: int) -> tuple[tuple[str, str], ...]:
        """What ``seat`` sees: each other seat's latest reaction of the last
        :data:`SHOWN_FOR` seconds, as (first name, emoji), by seat."""
        now = self._clock()
        found = self._latest.get(table_id, {})
        return tuple(
            (name, emoji)
            for other, (name, emoji, at) in sorted(found.items())
            if other != seat and now - at <= SHOWN_FOR
        )

    def forget(self, table_id: int) -> None:
        """The table's game ended."""
        self._latest.pop(table_id, None)
