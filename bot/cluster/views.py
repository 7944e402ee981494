"""The Mini App's pages when several processes run: a page may be connected to any of them.

The holder of a table tells its own pages of every change at once, as one process does,
and tells the others with one ``NOTIFY`` a moment later (the tables that changed, batched):
a process with a page of such a table that it does not hold reads the table from the store
and shows it there. A tap on a page whose table is held elsewhere is relayed to its holder
through the inbox (:meth:`~bot.cluster.member.Member.ask`), which runs it as its own pages'
taps run and answers; a choice the tap opened comes back with the answer, for that page
alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any, Final

from bot.service.tables import Live
from bot.service.views import TableViews
from bot.store import StoreError

from .member import _CONNECTION_ERRORS, Member

if TYPE_CHECKING:
    from bot.webapp.hub import Hub

__all__ = ["VIEWS_CHANNEL", "SharedViews"]

log = logging.getLogger(__name__)

VIEWS_CHANNEL: Final = "durak_views"
"""Told the tables that changed (``12,40:<tag>``)."""
_MAX_PAYLOAD: Final = 7_000
"""Bytes of one notification at most (PostgreSQL's limit is 8000)."""


class SharedViews:
    """The pages' hub of this process, told of changes of tables held here and elsewhere."""

    def __init__(self, hub: Hub, member: Member) -> None:
        self.hub = hub
        self._member = member
        self._changed: set[int] = set()
        self._telling = False
        self._refreshing: set[int] = set()
        self._again: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        member.listen(VIEWS_CHANNEL, self._told)

    # ------------------------------------------------------------------ TableViews

    def changed(self, live: Live) -> None:
        """A table held here changed: its pages here at once, the others' a moment later."""
        self.hub.changed(live)
        self._changed.add(live.table_id)
        if not self._telling:
            self._telling = True
            self._spawn(self._tell())

    async def _tell(self) -> None:
        await asyncio.sleep(0)  # the changes of this moment, in one notification
        self._telling = False
        tables, self._changed = sorted(self._changed), set()
        store = self._member.store
        tag = store.tag
        chunk: list[str] = []
        for table in [*map(str, tables), None]:
            if table is not None and sum(len(t) + 1 for t in chunk) + len(table) < _MAX_PAYLOAD:
                chunk.append(table)
                continue
            if chunk:
                with contextlib.suppress(StoreError, *_CONNECTION_ERRORS):
                    await store.pool.execute(
                        "SELECT pg_notify($1, $2)", VIEWS_CHANNEL, f"{','.join(chunk)}:{tag}"
                    )
            chunk = [table] if table is not None else []

    # ------------------------------------------------------------------ elsewhere

    def _told(self, conn: object, pid: int, channel: str, payload: str) -> None:
        if self._member.store.told_by_me(payload):
            return
        for text in payload.rpartition(":")[0].split(","):
            if not text.isdigit():
                continue
            table = int(text)
            if not self.hub.pages(table) or self._member.holds_table(table):
                continue
            if table in self._refreshing:
                self._again.add(table)
            else:
                self._refreshing.add(table)
                self._spawn(self._refresh(table))

    async def _refresh(self, table: int) -> None:
        """Show the pages here of a table held elsewhere as the store has it now."""
        try:
            while True:
                self._again.discard(table)
                try:
                    live = await self._member.tables.peek(table)
                except StoreError as exc:
                    log.info("table %s: its pages not refreshed: %s", table, exc)
                    return
                if live is not None:
                    self.hub.changed(live)
                if table not in self._again:
                    return
        finally:
            self._refreshing.discard(table)

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _conforms(views: SharedViews) -> TableViews:
    return views
