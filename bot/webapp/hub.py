"""The live channel's fan-out: the open pages of every table, and a full state for each of
them after every change of its table.

The presenter tells the hub "table T changed" (:meth:`Hub.changed`, the
:class:`bot.service.views.TableViews` interface) at the moment it learns of a change: a press on a
page or in the chat, a computer player's move, the clock, the lobby, the end, a cancel, a
rematch. The hub then builds, from the table's state alone, one ``state`` frame per kind
of viewer (each seat, and the public, in each language) and queues it on every open page
of that table at once: nothing waits for Telegram's pacing of the chat messages.

Because the hub needs nothing but "table T changed" and the table's state, a version of
the bot running in several processes can feed it from whichever process owns the table
(over the bus that routes updates to the owner), with the pages connected anywhere.

Each page has its own outbox, sent in order by one task at a time: states in version
order (a newer state replaces one not sent yet), and during a press of that page, the
answer to it (``ack`` or ``notice``) before the states the press caused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import web

from bot.base.i18n import Lang, pick_lang
from bot.chat.presenter import players_of
from bot.service.tables import Live
from bot.store import TableStatus, TallyRow

from .auth import WebAppUser
from .state import Private, Scene, state_frame

if TYPE_CHECKING:
    from bot.chat.presenter import Presenter
    from bot.chat.runtime import Runtime

__all__ = ["MAX_PAGES", "Hub", "Page", "dumps"]

log = logging.getLogger(__name__)

MAX_PAGES = 3
"""Open pages one user may have at one table; a fourth is refused (too_many)."""


def dumps(frame: dict[str, Any]) -> str:
    """A frame as the text sent on the socket: compact JSON, UTF-8 as it is (orjson; each
    change of a table is a frame to every page that shows it)."""
    return orjson.dumps(frame).decode()


class Page:
    """One open page: its socket, who looks at it, what it is shown, what it waits for."""

    __slots__ = (
        "_held",
        "_holding",
        "_outbox",
        "_task",
        "closed",
        "lang",
        "private",
        "shown",
        "table_id",
        "user",
        "ws",
    )

    def __init__(self, ws: web.WebSocketResponse, table_id: int, user: WebAppUser, lang: Lang):
        self.ws = ws
        self.table_id = table_id
        self.user = user
        self.lang: Lang = lang
        self.private: Private | None = None
        """The choice or selection a tap on this page opened (this page's alone)."""
        self.shown: tuple[object, ...] | None = None
        """What the last state sent showed (version, status, private), to skip repeats."""
        self.closed = False
        self._outbox: deque[tuple[bool, str]] = deque()
        self._task: asyncio.Task[None] | None = None
        self._holding = False
        self._held: str | None = None

    # ---------------------------------------------------------------- sending

    def send(self, text: str, *, state: bool = False) -> None:
        """Queue a frame; a state replaces a state still waiting."""
        if self.closed:
            return
        if state and self._holding:
            self._held = text
            return
        if state:
            for i, (was_state, _) in enumerate(self._outbox):
                if was_state:
                    del self._outbox[i]
                    break
        self._outbox.append((state, text))
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._drain())

    def hold(self) -> None:
        """A press of this page is being handled: states wait for its answer."""
        self._holding = True

    def release(self) -> None:
        """The press is answered: the states it caused follow."""
        self._holding = False
        held, self._held = self._held, None
        if held is not None:
            self.send(held, state=True)

    async def _drain(self) -> None:
        try:
            while self._outbox and not self.closed:
                _, text = self._outbox.popleft()
                await self.ws.send_str(text)
        except (ConnectionError, RuntimeError) as exc:  # the socket went away meanwhile
            log.debug("page of table %s: send failed: %s", self.table_id, exc)
            self._outbox.clear()
        finally:
            self._task = None

    async def flushed(self) -> None:
        """Wait until every queued frame is written."""
        while self._task is not None:
            await asyncio.shield(self._task)

    async def close(self, code: int, frame: dict[str, Any] | None = None) -> None:
        """Send ``frame`` (an error), then close the socket with ``code``."""
        if frame is not None and not self.closed:
            self.send(dumps(frame))
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.flushed(), 5)
        self.closed = True
        with contextlib.suppress(Exception):
            await self.ws.close(code=code)


class Hub:
    """The open pages of every table, and their states (see the module's doc)."""

    def __init__(self, rt: Runtime, presenter: Presenter, *, max_pages: int = MAX_PAGES) -> None:
        self._rt = rt
        self._presenter = presenter
        self.max_pages = max_pages
        self._pages: dict[int, list[Page]] = {}
        self._latest: dict[int, Live] = {}
        self._tallies: dict[int, tuple[tuple[int, bool], tuple[TallyRow, ...]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # ---------------------------------------------------------------- pages

    def pages(self, table_id: int | None = None) -> list[Page]:
        """The open pages of one table, or of all."""
        if table_id is not None:
            return list(self._pages.get(table_id, ()))
        return [page for pages in self._pages.values() for page in pages]

    def attach(self, page: Page) -> bool:
        """Count a page in; False if its user has too many open at that table."""
        pages = self._pages.setdefault(page.table_id, [])
        if sum(1 for p in pages if p.user.id == page.user.id) >= self.max_pages:
            if not pages:
                del self._pages[page.table_id]
            return False
        pages.append(page)
        return True

    def detach(self, page: Page) -> None:
        """A page closed."""
        page.closed = True
        pages = self._pages.get(page.table_id)
        if pages is None:
            return
        with contextlib.suppress(ValueError):
            pages.remove(page)
        if not pages:
            del self._pages[page.table_id]
            live = self._latest.pop(page.table_id, None)
            if live is not None and not any(
                t.row.chat_id == live.row.chat_id for t in self._latest.values()
            ):
                self._tallies.pop(live.row.chat_id, None)

    async def lang_of(self, user: WebAppUser) -> Lang:
        """A page's language: the user's /lang choice, else his Telegram app's (from the
        init data), else the bot's default."""
        assert self._rt.store is not None
        row = await self._rt.store.get_user(user.id)
        stored = row.language if row is not None else None
        if stored is None and user.language_code is None:
            return self._rt.settings.default_language
        return pick_lang(user.language_code, stored)

    async def prepare(self, live: Live) -> None:
        """Load what a table's frames need besides its state (the group's title, its
        tournament, the series) before its first page is shown."""
        if not live.own_chats:
            await self._presenter.title(live.row.chat_id)
            await self._rt.tables.tourney_of(live)  # a sign-up's number of games
        await self._tally(live)

    # ---------------------------------------------------------------- changes

    def changed(self, live: Live) -> None:
        """Table ``live`` changed: every open page of it gets its new state at once (a
        failure here is logged, never the chat's problem)."""
        pages = self._pages.get(live.table_id)
        if not pages:
            return
        try:
            self._latest[live.table_id] = live
            self._show(live, pages, force=False)
            if self._tally_key(live) != self._tallies.get(live.row.chat_id, (None,))[0]:
                self._spawn(self._tally_changed(live))
        except Exception:
            log.exception("table %s: its pages were not told of a change", live.table_id)

    def show(self, page: Page, live: Live) -> None:
        """Send one page the table's current state (a page just opened, or its own choice
        changed)."""
        self._latest.setdefault(live.table_id, live)
        self._show(live, [page], force=True)

    def _scene(self, live: Live) -> Scene:
        tally = self._tallies.get(live.row.chat_id)
        return Scene(
            live=live,
            players=players_of(live.row.seats),
            group_title="" if live.own_chats else self._presenter.known_title(live.row.chat_id),
            tally=tally[1] if tally is not None else None,
            codec=self._rt.codec,
            now=time.time(),
            invitable=(
                self._rt.webapp is not None
                and self._rt.webapp.direct_link(self._rt.bot_username, live.table_id) is not None
            ),
        )

    def _show(self, live: Live, pages: Sequence[Page], *, force: bool) -> None:
        scene = self._scene(live)
        shared: dict[tuple[int | None, Lang], dict[str, Any]] = {}
        for page in list(pages):
            if page.closed:
                continue
            seat = live.seat_of(page.user.id)
            private = page.private
            if private is not None and (private.version != live.version or seat is None):
                private = page.private = None
            shown = (live.version, live.row.status, id(private) if private else None)
            if shown == page.shown and not force:
                continue
            try:
                if private is None:
                    key = (seat, page.lang)
                    frame = shared.get(key)
                    if frame is None:
                        frame = shared[key] = state_frame(scene, seat, page.lang, None)
                else:
                    frame = state_frame(scene, seat, page.lang, private)
            except Exception:  # a view the renderers cannot draw: the chat still works
                log.exception("table %s: no state for a page", live.table_id)
                continue
            page.shown = shown
            you = {"name": page.user.full_name, "seat": seat}
            page.send(dumps({**frame, "you": you}), state=True)

    # ---------------------------------------------------------------- the series

    @staticmethod
    def _tally_key(live: Live) -> tuple[int, bool]:
        return (live.row.game_no, live.row.status == TableStatus.FINISHED)

    async def _tally(self, live: Live) -> None:
        key = self._tally_key(live)
        known = self._tallies.get(live.row.chat_id)
        if known is not None and known[0] == key:
            return
        assert self._rt.store is not None
        rows = await self._rt.store.chat_stats(live.row.chat_id)
        self._tallies[live.row.chat_id] = (key, tuple(rows))

    async def _tally_changed(self, live: Live) -> None:
        """A game ended (or another began): the series is read again and shown."""
        await self._tally(live)
        latest = self._latest.get(live.table_id)
        pages = self._pages.get(live.table_id)
        if latest is not None and pages:
            self._show(latest, pages, force=True)

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---------------------------------------------------------------- shutting down

    async def close(self, code: int) -> None:
        """Close every page (the bot stops: pages reconnect to the next one)."""
        for task in list(self._tasks):
            task.cancel()
        pages = self.pages()
        await asyncio.gather(*(page.close(code) for page in pages), return_exceptions=True)
        self._pages.clear()
        self._latest.clear()
        self._tallies.clear()
