"""Views of a table beyond the chat's messages: what the presenter tells of every change.

The presenter draws the chat's messages (paced by Telegram's limits) and, at the same
moment, tells the table's other views that the table changed, through
:meth:`TableViews.changed`. Today the only other view is the Mini App's live channel
(:class:`bot.webapp.hub.Hub`); with the Mini App off it is :class:`NoViews`.
"""

from __future__ import annotations

from typing import Protocol

from bot.service.tables import Live

__all__ = ["NoViews", "TableViews"]


class TableViews(Protocol):
    """Where the presenter reports each change of a table (a move, the clock, the lobby,
    the end, a cancel, a rematch), after it is saved."""

    def changed(self, live: Live) -> None:
        """Table ``live`` changed: show its new state (never blocks, never fails)."""


class NoViews:
    """No view beyond the chat."""

    def changed(self, live: Live) -> None:
        """Nothing to show."""
