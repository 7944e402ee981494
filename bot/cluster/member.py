"""This process as one of several on one database: what it holds, and how it takes, keeps
and gives back its part.

Every :data:`~bot.cluster.leases.BEAT` the member renews its heartbeat and its leases
(:class:`~bot.cluster.leases.Leases`) and applies what the beat found:

* a shard gained: its running tables are loaded (as start-up loads them, restricted to
  the shard), their messages adopted and drawn again, their clocks and computer players
  set again; then its updates are handled here: those kept from now on at once, and those
  waiting in the store (kept by another process, or before a crash);
* a shard lost (taken over after the lease ran out, or held under a new epoch): at once,
  its updates are no longer handled here and its tables leave memory, their clocks and
  pending redraws cancelled;
* shards to give back (a newcomer is below its share): no new update of them is taken,
  those running finish (a few seconds at most), their tables are let go, then the leases
  are given back and the others told;
* polling gained or lost: PTB's updater is started or stopped (polling mode only).

One process polls at a time. Each ``getUpdates`` may wait at Telegram only as long as
polling's lease surely lasts (:meth:`Member.poll_window`): a long poll sent just before
the lease runs out asks for a shorter wait, and none is sent once it has run out. A process
that takes polling over from one whose lease ran out (killed, or cut off from the
database) waits a little longer still before its first poll. So the long poll of the one
before has ended at Telegram when the next one's begins; otherwise Telegram would end one
of them with 409 Conflict, and both might have been handed updates.

If the database cannot be reached, nothing is renewed: once the leases would have run
out, everything is let go here and polling stops (another process may take them
meanwhile), and they are taken again when the database is back. Every write is fenced by
the table's version besides, so a holder that lost its lease without knowing can never
apply a move twice; and a table is drawn only by the holder of its shard
(:meth:`Member.holds_chat`, asked before each drawing).

A process killed may have saved a move and not yet answered its button's callback query.
Whoever takes its shards over answers again the presses it marked done in its last
seconds (Telegram accepts the first answer to a query and refuses any other, so a press
already answered stays answered once).

Wake-ups come from PostgreSQL's ``LISTEN``: updates kept for a shard held here, a member
joining or leaving, rows written by others, tables moved; a look every second catches any
notification lost while the listening connection was down.

On SIGTERM (:meth:`Member.leave`): polling stops and is given back first, then the
updates in hand finish, and every lease is given back at once; the others take over
within a beat, told.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dtm
import json
import logging
import time
import uuid
from collections.abc import Callable, Collection, Coroutine
from typing import TYPE_CHECKING, Any, Final

import asyncpg
from telegram.error import Conflict, TelegramError
from telegram.ext import Application

from bot.cluster.leases import BEAT, MEMBERS_CHANNEL, POLLER, TTL, Beat, Leases
from bot.cluster.pace import SharedBudgets
from bot.cluster.routing import Router
from bot.service.inbox import Inbox
from bot.store import StoreError, shard_of
from bot.store.postgres import INBOX_CHANNEL, ROWS_CHANNEL, TABLES_CHANNEL, PostgresStore
from bot.transport.pacing import pacing_of

if TYPE_CHECKING:
    from bot.chat.presenter import Presenter
    from bot.chat.runtime import Runtime
    from bot.service.tables import TableService

__all__ = ["DRAIN", "Member"]

log = logging.getLogger(__name__)

AnyApp = Application[Any, Any, Any, Any, Any, Any]

DRAIN: Final = 5.0
"""Seconds the updates in hand of shards being given back may take to finish."""
LOOK: Final = 1.0
"""Seconds between two looks at the store for updates of the shards held here."""
MARGIN: Final = 0.5
"""Seconds before a lease runs out (by this process's own clock, from the start of the beat
that renewed it) at which this process stops counting on it."""
POLL_TIMEOUT: Final = 10
"""Seconds of each long poll (``getUpdates``), as long as polling's lease lasts."""
POLL_LATENCY: Final = 0.25
"""Seconds a long poll is kept short of the end of polling's lease: the time its request
and its end take to travel."""
POLL_GRACE: Final = 0.5
"""Seconds a process that took polling over from one whose lease ran out waits past that
lease's end before it polls."""
ANSWER_SLACK: Final = 1.0
"""Seconds before the last renewal of a process gone without giving its shards back from
which the presses it marked done are answered again by whoever takes them over: the answer
to a move saved that long before the renewal had been sent by then."""
ASK_TIMEOUT: Final = 15.0
"""Seconds a process waits for another's answer (longer than a takeover takes)."""
REPLIES_CHANNEL: Final = "durak_replies"
"""Told the answers to what one process asked another (``<reply id> <json>``)."""

Listener = Callable[[Any, int, str, str], None]
"""A notification's callback: (connection, server pid, channel, payload)."""


class Member:
    """This process's heartbeat, shards and polling, on the database of ``store``."""

    def __init__(
        self,
        rt: Runtime,
        app: AnyApp,
        store: PostgresStore,
        *,
        poll: bool,
        beat: float = BEAT,
        ttl: float = TTL,
    ) -> None:
        self.member_id = uuid.uuid4().hex
        self._rt = rt
        self._app = app
        self._store = store
        self._beat_every = beat
        self._ttl = ttl
        self._wants_poll = poll
        self.leases = Leases(store.pool, self.member_id, ttl=ttl)
        self.router = Router(rt.codec, store)
        self.budgets = SharedBudgets(store.pool, pacing_of(rt.settings))
        self._held: dict[int, int] = {}
        """The shards whose lease this process holds (shard -> epoch): their tables are its."""
        self._ready: set[int] = set()
        """Held shards whose tables are loaded: their updates are handled here."""
        self._loading: set[int] = set()
        self._leaving: set[int] = set()
        """Held shards being given back: their tables finish what is in hand, and go."""
        self._giving = False
        self._poller_epoch: int | None = None
        self._poll_from = 0.0
        """When (this process's clock) it may poll, once it holds polling's lease."""
        self._renewed = asyncio.Event()
        """Set at every beat that renewed the leases."""
        self._lapsed: dict[int, float] = {}
        """Shards taken from a process gone without giving them back, not loaded yet ->
        when its lease ran out (database time)."""
        self._lease_polls = False
        self._may_poll = False
        self._steering = asyncio.Lock()
        self._valid_until = 0.0
        self._next_beat = beat
        self._members = 0
        self._beat_wake = asyncio.Event()
        self._look_wake = asyncio.Event()
        self._listener: asyncpg.Connection | None = None
        self._connecting = False
        self._closing = False
        self._left = False
        self._failing = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []
        self._listeners: dict[str, Listener] = {}
        self._asked: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._pruned = 0.0
        self.taken_over = 0
        """Running tables taken over so far (for the logs and the tests)."""

    # ------------------------------------------------------------------ what is held

    def holds_chat(self, chat_id: int) -> bool:
        """Whether this process holds the chat's shard, so its tables."""
        return shard_of(chat_id) in self._held

    def ready(self, shard: int) -> bool:
        """Whether the updates of ``shard`` are handled here."""
        return shard in self._ready

    def holds_table(self, table_id: int) -> bool:
        """Whether a table is held here and in memory (its changes are seen here first)."""
        return self._rt.tables.cached(table_id) is not None

    @property
    def store(self) -> PostgresStore:
        """The database the members share."""
        return self._store

    @property
    def tables(self) -> TableService:
        """This process's table service."""
        return self._rt.tables

    @property
    def shards(self) -> list[int]:
        """The shards held now."""
        return sorted(self._held)

    @property
    def polls(self) -> bool:
        """Whether this process asks Telegram for the updates now."""
        updater = self._app.updater
        return updater is not None and updater.running

    @property
    def inbox(self) -> Inbox:
        inbox = self._rt.inbox
        assert inbox is not None, "the member starts once the inbox is open"
        return inbox

    @property
    def presenter(self) -> Presenter:
        from bot.chat.presenter import Presenter

        found = self._rt.extras["presenter"]
        assert isinstance(found, Presenter)
        return found

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Join, take a first share of the shards and load their tables, then beat on."""
        await self.leases.join()
        await self._connect()
        await self._beat()
        if self._loading:
            await self._settled()
        self._loops = [
            asyncio.get_running_loop().create_task(self._beats(), name="cluster beats"),
            asyncio.get_running_loop().create_task(self._looks(), name="cluster looks"),
        ]
        log.info(
            "cluster: member %s of %d, holding %d shards%s",
            self.member_id[:8],
            self._members,
            len(self._held),
            ", polling" if self._lease_polls and self._wants_poll else "",
        )

    def take_polling(self) -> None:
        """The application runs: poll whenever this process holds polling's lease."""
        self._may_poll = True
        request = self._rt.updates_request
        if request is not None:
            request.window = self.poll_window
        self._spawn(self._steer_polling())

    async def leave(self) -> None:
        """Stop: polling first, then the updates in hand finish, then every lease is given
        back at once, and the others told."""
        if self._left:
            return
        self._left = self._closing = True
        for task in self._loops:
            task.cancel()
        for task in self._loops:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        async with self._steering:
            updater = self._app.updater
            if self._may_poll and updater is not None and updater.running:
                request = self._rt.updates_request
                if request is not None:
                    request.keep = None  # see _steer_polling
                await updater.stop()
        if self._poller_epoch is not None:
            with contextlib.suppress(StoreError):
                await self.leases.release({POLLER: self._poller_epoch})
        shards = set(self._held)
        self._ready.clear()
        self.inbox.let_go(shards)
        await self.inbox.drain(shards, DRAIN)
        await self._quiet(shards)
        under_way = self._let_go(shards)
        if under_way:
            await asyncio.wait(under_way, timeout=DRAIN)
        try:
            await self.leases.leave()
            log.info("cluster: left, every lease given back")
        except StoreError as exc:
            log.warning("cluster: left; the leases run out in %.0f s (%s)", self._ttl, exc)
        for task in list(self._tasks):
            task.cancel()
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.close()

    async def _settled(self, timeout: float = 300.0) -> None:
        deadline = time.monotonic() + timeout
        while self._loading and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_log_failure)

    # ------------------------------------------------------------------ beats

    async def _beats(self) -> None:
        while not self._closing:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._beat_wake.wait(), self._next_beat)
            self._beat_wake.clear()
            if self._closing:
                return
            await self._beat()

    async def _beat(self) -> None:
        started = time.monotonic()
        self._next_beat = self._beat_every
        if self._listener is None or self._listener.is_closed():
            self._spawn(self._connect())
        limit = max(MARGIN, self._valid_until - started) if self._held else 2 * self._ttl
        try:
            beat = await asyncio.wait_for(self.leases.beat(poll=self._wants_poll), limit)
        except (StoreError, TimeoutError) as exc:
            if not self._failing:
                log.warning("cluster: cannot renew the leases: %s", exc or "no answer in time")
                self._failing = True
            now = time.monotonic()
            if now >= self._valid_until and self._held:
                log.warning("cluster: the leases ran out; every table held here is let go")
                self._let_go(set(self._held))
            # Polling stops with its lease: once the database is back, another process may
            # take it (no long poll of this one waits at Telegram by then: poll_window)
            if now >= self._valid_until and self._poller_epoch is not None:
                log.warning("cluster: polling's lease ran out; this process stops polling")
                self._poller_epoch = None
                self._set_polling(False)
            self._next_beat = min(self._beat_every, 0.5)
            return
        if self._failing:
            log.info("cluster: the leases are renewed again")
            self._failing = False
        self._valid_until = started + self._ttl - MARGIN
        self._apply(beat, started)
        self._renewed.set()
        if beat.next_expiry is not None:
            # take a lease over the moment it runs out, not up to a beat later
            due = beat.next_expiry - beat.now + 0.05
            if 0 < due < self._next_beat:
                self._next_beat = due
        if beat.polls and time.monotonic() - self._pruned > 60:
            self._pruned = time.monotonic()
            self._spawn(self.budgets.prune())

    def _apply(self, beat: Beat, started: float) -> None:
        self._members = beat.members
        after = beat.shards
        lost = {s for s, e in self._held.items() if after.get(s) != e}
        if lost:
            log.info("cluster: shards %s no longer held here (run out, taken over)", _span(lost))
            self._let_go(lost)
        gained = {s: e for s, e in after.items() if self._held.get(s) != e}
        self._held.update(gained)
        for shard in gained:
            self._lapsed.pop(shard, None)
        self._lapsed.update(beat.lapsed)
        waiting = set(self._held) - self._ready - self._loading - self._leaving
        if waiting:
            self._loading |= waiting
            self._spawn(self._load(waiting))
        poller = beat.held.get(POLLER)
        if poller is not None and poller != self._poller_epoch:
            wait = 0.0
            if beat.poller_lapsed is not None:
                # the poller before may have a long poll waiting at Telegram until its
                # lease's end (database time; the beat began at ``started`` here)
                wait = beat.poller_lapsed + POLL_GRACE - beat.now
            self._poll_from = started + max(0.0, wait)
        self._poller_epoch = poller
        self._set_polling(beat.polls)
        if beat.extras and not self._giving:
            self._giving = True
            self._spawn(self._give_back(beat.extras))

    # ------------------------------------------------------------------ shards

    async def _load(self, shards: set[int]) -> None:
        """Take over the running tables of ``shards`` (already marked loading)."""
        rt = self._rt
        epochs = {s: self._held[s] for s in shards if s in self._held}
        began = time.monotonic()
        try:
            rows = await self._store.running_tables(list(epochs))
            lives = rt.tables.adopt_running(
                [
                    r
                    for r in rows
                    if self._held.get(shard_of(r.chat_id)) == epochs.get(shard_of(r.chat_id))
                ]
            )
        except StoreError as exc:
            log.warning("cluster: shards %s not loaded (%s): tried again", _span(shards), exc)
            self._loading -= shards
            return
        still = {s for s, e in epochs.items() if self._held.get(s) == e}
        presenter = self.presenter
        taken = []
        for live in lives:
            if shard_of(live.row.chat_id) not in still:
                rt.tables.forget(live.table_id)
                continue
            self.router.note(live.table_id, live.row.chat_id)
            # what the process before spent of its chats' budgets just now, the database
            # knows: every chat's budget is shared (bot.cluster.pace)
            presenter.adopt_messages(live)
            taken.append(live)
        lapsed = {s: self._lapsed.pop(s) for s in still if s in self._lapsed}
        if lapsed:
            # before their updates are handled here: those done by then are the last
            # holder's
            await self._answer_again(set(lapsed), min(lapsed.values()))
        # The tables take presses at once. Meanwhile, a table at a time under its lock,
        # each game's recent moves are rebuilt from its log (replayed from the deal: the
        # costly part) and the table is drawn again (what the process before left undrawn).
        self._loading -= shards
        self._ready |= {s for s in still if self._held.get(s) == epochs[s]}
        self._look_wake.set()
        started = time.monotonic()
        loaded = started - began
        for live in taken:
            shard = shard_of(live.row.chat_id)
            if self._held.get(shard) != epochs[shard] or shard in self._leaving:
                continue  # let go again meanwhile, or being given back
            try:
                async with live.lock:
                    await rt.tables.recall(live, again=True)
                    await presenter.redraw(live, [])
            except StoreError as exc:
                log.warning("table %s: not drawn again after the takeover: %s", live.table_id, exc)
        # the tournaments of these shards between two games: dealt here now
        await presenter.tourneys.resume({s for s in still if self._held.get(s) == epochs[s]})
        self.taken_over += len(taken)
        log.info(
            "cluster: shards %s taken, %d running tables (loaded in %.2f s, drawn again in %.2f s)",
            _span(still),
            len(taken),
            loaded,
            time.monotonic() - started,
        )

    async def _answer_again(self, shards: set[int], ran_out: float) -> None:
        """Answer again the presses of ``shards`` that their last holder, gone without
        giving them back (its lease ran out at ``ran_out``), marked done in its last
        seconds: it may have saved a move and died before its answer arrived. Telegram
        refuses a second answer to a query, so one answered already stays as it was."""
        since = ran_out - self._ttl - ANSWER_SLACK
        try:
            rows = await self._store.pool.fetch(
                "SELECT body FROM inbox WHERE done_at >= $1 AND update_id > 0 "
                "AND shard = ANY($2::int[])",
                since,
                sorted(shards),
            )
        except _CONNECTION_ERRORS as exc:
            log.warning(
                "cluster: the presses of shards %s not answered again: %s", _span(shards), exc
            )
            return
        queries = []
        for (body,) in rows:
            if '"callback_query"' not in body:
                continue
            try:
                query = json.loads(body)["callback_query"]
                queries.append(str(query["id"]))
            except (ValueError, KeyError, TypeError):
                continue
        if queries:
            self._spawn(self._answer(queries))

    async def _answer(self, queries: list[str]) -> None:
        bot = self._app.bot
        found = await asyncio.gather(
            *(bot.answer_callback_query(q) for q in queries), return_exceptions=True
        )
        answered = sum(1 for f in found if f is True)
        log.info(
            "cluster: %d presses answered again, %d of them unanswered until now",
            len(queries),
            answered,
        )

    def _let_go(self, shards: Collection[int]) -> list[asyncio.Task[None]]:
        """Stop holding ``shards`` here, at once: their updates and tables. The sends
        already under way are not called back: those finishing them are returned."""
        shards = set(shards)
        under_way: list[asyncio.Task[None]] = []
        if not shards:
            return under_way
        for shard in shards:
            self._held.pop(shard, None)
            self._ready.discard(shard)
        self.inbox.let_go(shards)
        presenter = self.presenter
        for live in self._rt.tables.loaded():
            if shard_of(live.row.chat_id) in shards:
                under_way += presenter.drop(live)
        return under_way

    async def _quiet(self, shards: Collection[int], timeout: float = DRAIN) -> None:
        """Wait for the changes under way at the tables of ``shards`` (a clock, a computer
        player), at most ``timeout`` seconds."""
        for live in self._rt.tables.loaded():
            if shard_of(live.row.chat_id) not in shards:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(live.lock.acquire(), timeout)
                live.lock.release()

    async def _give_back(self, leases: dict[int, int]) -> None:
        shards = {s for s, e in leases.items() if self._held.get(s) == e}
        self._leaving |= shards
        try:
            self._ready -= shards
            self.inbox.let_go(shards)
            await self.inbox.drain(shards, DRAIN)
            await self._quiet(shards)
            still = {s: e for s, e in leases.items() if s in shards and self._held.get(s) == e}
            under_way = self._let_go(still)
            if under_way:
                # a message sent now lands before the next holder draws the table, and its
                # place is kept where the next holder reads it
                await asyncio.wait(under_way, timeout=DRAIN)
            await self.leases.release(still)
            log.info("cluster: shards %s given back", _span(still))
        except StoreError as exc:
            log.warning("cluster: shards not given back (%s): their leases run out", exc)
        finally:
            self._leaving -= shards
            self._giving = False

    async def tables_moved(self, chat_id: int) -> None:
        """Running tables moved to ``chat_id`` (a group became a supergroup): the holder of
        its shard is told to take them."""
        with contextlib.suppress(StoreError, *_CONNECTION_ERRORS):
            await self._store.pool.execute(
                "SELECT pg_notify($1, $2)", TABLES_CHANNEL, str(shard_of(chat_id))
            )

    # ------------------------------------------------------------------ polling

    async def poll_window(self, wanted: int) -> int | None:
        """How long the next ``getUpdates`` may wait at Telegram, ``wanted`` seconds at
        most: never past the end of polling's lease as this process counts it, nor begun
        before a poller whose lease ran out may have stopped waiting there. Waits until the
        lease allows a long poll of a second at least (the next beat renews it). A call that
        waits for nothing (``wanted`` 0: PTB's last one as polling stops, which tells
        Telegram what arrived) is made only while the lease lasts: else None, not made."""
        while True:
            now = time.monotonic()
            held = self._poller_epoch is not None and now >= self._poll_from
            left = self._valid_until - now - POLL_LATENCY
            if wanted <= 0:
                return 0 if held and left > 0 else None
            if held and left >= 1:
                return min(wanted, int(left))
            self._renewed.clear()
            wait = 1.0
            if self._poller_epoch is not None and now < self._poll_from:
                wait = self._poll_from - now
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._renewed.wait(), max(0.01, wait))

    def _set_polling(self, polls: bool) -> None:
        if polls != self._lease_polls:
            self._lease_polls = polls
            if self._may_poll:
                self._spawn(self._steer_polling())

    async def _steer_polling(self) -> None:
        async with self._steering:
            updater = self._app.updater
            if updater is None:
                return
            want = self._lease_polls and not self._closing
            if want and not updater.running:
                from bot.transport.webhook import ALLOWED_UPDATES

                await updater.start_polling(
                    timeout=dtm.timedelta(seconds=POLL_TIMEOUT),
                    allowed_updates=ALLOWED_UPDATES,
                    error_callback=_polling_failed,
                )
                log.info("cluster: this process asks Telegram for the updates now")
            elif not want and updater.running:
                # PTB's last getUpdates on stopping confirms what was kept and drops what
                # it returns: nothing of that is confirmed to Telegram, so nothing is kept
                request = self._rt.updates_request
                keep = request.keep if request is not None else None
                if request is not None:
                    request.keep = None
                try:
                    await updater.stop()
                finally:
                    if request is not None:
                        request.keep = keep
                log.info("cluster: this process no longer asks Telegram for the updates")

    # ------------------------------------------------------------------ the store's updates

    async def _looks(self) -> None:
        while not self._closing:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._look_wake.wait(), LOOK)
            self._look_wake.clear()
            if self._closing or not self._ready:
                continue
            try:
                found = await self.inbox.pending(self._app.bot, sorted(self._ready))
            except StoreError:
                continue
            for update in found:
                await self._app.update_queue.put(update)

    # ------------------------------------------------------------------ listening

    async def _connect(self) -> None:
        if self._connecting:
            return
        self._connecting = True
        try:
            conn = await self._store.connection()
            await conn.add_listener(INBOX_CHANNEL, self._on_inbox)
            await conn.add_listener(MEMBERS_CHANNEL, self._on_members)
            await conn.add_listener(ROWS_CHANNEL, self._on_rows)
            await conn.add_listener(TABLES_CHANNEL, self._on_tables)
            await conn.add_listener(REPLIES_CHANNEL, self._on_replies)
            for channel, callback in self._listeners.items():
                await conn.add_listener(channel, callback)
            self._listener = conn
            self._look_wake.set()  # what was told while nobody listened
        except _CONNECTION_ERRORS as exc:
            log.info("cluster: not listening yet (%s): looking every %.0f s", exc, LOOK)
        finally:
            self._connecting = False

    def _on_inbox(self, conn: object, pid: int, channel: str, payload: str) -> None:
        if self._store.told_by_me(payload):
            return  # kept here: those of a shard held here are handled here already
        shards = payload.rpartition(":")[0].split(",")
        if any(s.isdigit() and int(s) in self._ready for s in shards):
            self._look_wake.set()

    def _on_members(self, conn: object, pid: int, channel: str, payload: str) -> None:
        self._beat_wake.set()

    def _on_rows(self, conn: object, pid: int, channel: str, payload: str) -> None:
        self._store.row_changed(payload)
        kind, _, rest = payload.partition(":")
        chat = rest.partition(":")[0]
        if kind == "c" and chat.lstrip("-").isdigit():
            self.router.chat_moved(int(chat))

    def listen(self, channel: str, callback: Listener) -> None:
        """Have ``callback`` told of every notification on ``channel`` from now on."""
        self._listeners[channel] = callback
        conn = self._listener
        if conn is not None and not conn.is_closed():
            self._spawn(conn.add_listener(channel, callback))

    async def ask(
        self, kind: str, table: int, shard: int, *, timeout: float = ASK_TIMEOUT, **data: Any
    ) -> dict[str, Any] | None:
        """Ask the holder of ``table`` (of ``shard``) to do ``kind`` with ``data``, through the
        inbox, and wait for its answer (:meth:`answer`); None if none came in time (the
        request stays kept: its holder may still carry it out)."""
        reply = uuid.uuid4().hex
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._asked[reply] = future
        try:
            await self.inbox.relay(kind, table, shard, reply=reply, **data)
            return await asyncio.wait_for(future, timeout)
        except (TimeoutError, StoreError) as exc:
            log.info("cluster: %s at table %s got no answer: %s", kind, table, exc or "in time")
            return None
        finally:
            self._asked.pop(reply, None)

    async def answer(self, reply: object, content: dict[str, Any]) -> None:
        """Answer what another process asked (:meth:`ask`) under ``reply``."""
        if not isinstance(reply, str):
            return
        payload = f"{reply} {json.dumps(content, ensure_ascii=False, separators=(',', ':'))}"
        with contextlib.suppress(StoreError, *_CONNECTION_ERRORS):
            await self._store.pool.execute("SELECT pg_notify($1, $2)", REPLIES_CHANNEL, payload)

    def _on_replies(self, conn: object, pid: int, channel: str, payload: str) -> None:
        reply, _, body = payload.partition(" ")
        future = self._asked.get(reply)
        if future is not None and not future.done():
            try:
                future.set_result(json.loads(body))
            except ValueError:
                log.warning("cluster: an answer unreadable: %.200r", body)

    def _on_tables(self, conn: object, pid: int, channel: str, payload: str) -> None:
        if payload.isdigit() and int(payload) in self._ready:
            shard = int(payload)
            self._loading.add(shard)
            self._ready.discard(shard)
            self._spawn(self._load({shard}))


_CONNECTION_ERRORS: Final[tuple[type[BaseException], ...]] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
)


def _polling_failed(exc: TelegramError) -> None:
    if isinstance(exc, Conflict):
        # another process polled a moment longer (polling changed hands): tried again
        log.info("cluster: polling: %s", exc)
    else:
        log.warning("cluster: polling failed: %s", exc)


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("cluster: %s failed", task.get_name(), exc_info=task.exception())


def _span(shards: Collection[int]) -> str:
    """Shards as a short text: ``0-31`` or ``3, 17``."""
    found = sorted(shards)
    if len(found) > 2 and found == list(range(found[0], found[-1] + 1)):
        return f"{found[0]}-{found[-1]}"
    return ", ".join(map(str, found))
