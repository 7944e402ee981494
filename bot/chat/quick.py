"""Quick games in the private chat: /quick and its "⚡" buttons, the waiting message, the
pass over the queue every second, and what a private table's players press besides their
cards (a quick reaction; after a game, Block).

The queue and how it pairs are :mod:`bot.service.quick`; a dealt game is a private table,
drawn by the presenter in each player's chat like a game against the computer. Each
player's waiting message is the slot ``("quick", user)``: edited in place while he waits
(the offer of the computer after ``DURAK_QUICK_WAIT`` seconds alone), and to say whom he
was paired with once he is dealt a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from telegram import CallbackQuery, User

from bot import render as r
from bot.base.i18n import Lang, pick_lang, tr
from bot.chat.common import answer, held_shard, private_table_of, remember
from bot.chat.presenter import Presenter
from bot.chat.runtime import Runtime
from bot.render.common import short_name
from bot.service import callbacks as cb
from bot.service.quick import Dealt, QuickGames, Round, quick_rules
from bot.service.reactions import EMOJI
from bot.store import StoreUnavailable, TableStatus, Waiting, is_private_chat
from bot.transport.sender import Content

__all__ = ["ROUND_EVERY", "QuickDesk", "quick_desk"]

log = logging.getLogger(__name__)

ROUND_EVERY = 1.0
"""Seconds between two passes over the queue (a player who comes is paired at once; the
passes widen the skills accepted, and offer the computer to whoever waits alone)."""


def _key(user_id: int) -> tuple[str, int]:
    return ("quick", user_id)


class QuickDesk:
    """The quick games of one running bot."""

    def __init__(self, rt: Runtime, presenter: Presenter) -> None:
        assert rt.store is not None
        self._rt = rt
        self._presenter = presenter
        self.games = QuickGames(
            rt.store,
            rt.tables,
            rules=lambda: rt.settings.default_rules,
            wait=rt.settings.quick_wait,
            shard_for=lambda users: held_shard(rt, users),
        )
        self._lock = asyncio.Lock()
        """One pass, entry or exit at a time in this process (the store orders them
        between processes): a waiting message is never drawn after its game was dealt."""
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ the passes

    def start(self) -> None:
        """Pass over the queue every :data:`ROUND_EVERY` seconds until :meth:`close`."""
        self._task = asyncio.get_running_loop().create_task(self._passes(), name="quick passes")

    async def close(self) -> None:
        """Stop the passes (one under way finishes: a table it deals is drawn)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _passes(self) -> None:
        while True:
            await asyncio.sleep(ROUND_EVERY)
            try:
                await asyncio.shield(self.round())
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:
                # the database is away (a restart, a failover): the next pass tries again
                log.info("quick: the queue waits for the database: %s", exc)
            except Exception:
                log.exception("quick: a pass over the queue failed")

    async def round(self) -> Round:
        """One pass: the pairs dealt are drawn, the lone players offered the computer."""
        cluster = self._rt.cluster
        if cluster is not None and not cluster.shards:
            return Round()  # nowhere to open a table: another process passes
        async with self._lock:
            return await self._pass()

    async def _pass(self) -> Round:
        """One pass over the queue (under the lock), its tables and offers drawn."""
        done = await self.games.round()
        for dealt in done.dealt:
            self._dealt(dealt)
        for waiting in done.offered:
            self._looking(waiting.user_id, pick_lang(waiting.lang), waiting, alone=True)
        return done

    def _dealt(self, dealt: Dealt) -> None:
        live = dealt.live
        for me in dealt.players:
            other = next(p for p in dealt.players if p.user_id != me.user_id)
            lang = pick_lang(me.lang)
            self._rt.out.show(
                _key(me.user_id),
                me.user_id,
                Content.of(r.render_found(lang, other.name)),
                message_id=me.message_id,
            )
            self._rt.out.retire(_key(me.user_id))
        self._presenter.game_started(live)

    def _looking(self, user_id: int, lang: Lang, waiting: Waiting | None, *, alone: bool) -> None:
        """Draw his waiting message (Cancel; ``alone``: the computer, or more waiting)."""
        rules = quick_rules(self._rt.settings.default_rules)
        screen = r.render_looking(lang, rules, self._rt.codec, alone=alone)
        store = self._rt.store
        assert store is not None

        async def sent(message_id: int | None) -> None:
            if message_id is not None:
                await store.quick_message(user_id, message_id)

        self._rt.out.show(
            _key(user_id),
            user_id,
            Content.of(screen),
            message_id=waiting.message_id if waiting is not None else None,
            on_sent=sent,
        )

    # ------------------------------------------------------------------ entering, leaving

    async def enter(self, user: User, lang: Lang) -> str | None:
        """/quick or "⚡": join the queue and pass over it at once. What to tell him in a
        toast, if anything (his waiting message, or his game, says the rest)."""
        playing = await private_table_of(self._rt, user.id)
        if playing is not None and playing.row.status == TableStatus.PLAYING:
            self._presenter.back(playing, user.id)
            return tr(lang, "quick.alert.playing")
        known = await remember(self._rt, user, started=True)
        async with self._lock:
            entered = await self.games.enter(user.id, known.name, lang)
            if not entered:
                waiting = await self.games.waiting(user.id)
                if waiting is not None:
                    # his waiting message again, at the bottom of the chat
                    self._rt.out.forget(_key(user.id))
                    self._looking(user.id, lang, None, alone=waiting.offered)
                return tr(lang, "quick.alert.already")
            done = await self._pass()
            if any(p.user_id == user.id for d in done.dealt for p in d.players):
                return None
            self._rt.out.forget(_key(user.id))  # a new search: a new message
            self._looking(user.id, lang, None, alone=False)
        return None

    async def button(self, query: CallbackQuery, action: str, lang: Lang) -> None:
        """A button of the waiting message (or "⚡" anywhere): answered exactly once."""
        user = query.from_user
        if action == "go":
            await answer(query, await self.enter(user, lang))
            return
        if action not in ("cancel", "computer", "wait"):
            await answer(query, tr(lang, "cb.malformed"))
            return
        async with self._lock:
            if action == "wait":
                if await self.games.wait_more(user.id):
                    self._looking(user.id, lang, None, alone=False)
                    await answer(query, tr(lang, "quick.alert.waiting_on"))
                    return
                left = False
            else:
                left = await self.games.leave(user.id)
            if left:
                key = "quick.cancelled" if action == "cancel" else "quick.to_computer"
                self._rt.out.show(_key(user.id), user.id, Content(tr(lang, key)))
                self._rt.out.retire(_key(user.id))
        if not left:
            playing = await private_table_of(self._rt, user.id)
            gone = playing is not None and playing.row.status == TableStatus.PLAYING
            await answer(
                query, tr(lang, "quick.alert.too_late" if gone else "quick.alert.not_waiting")
            )
            return
        await answer(query)
        if action == "computer":
            from bot.chat.handlers.solo import open_solo

            await open_solo(self._rt, self._presenter, user, lang)

    # ------------------------------------------------------------------ at the table

    async def react(self, query: CallbackQuery, decoded: cb.React, lang: Lang) -> None:
        """A quick reaction: shown to the other players; one every few seconds."""
        live = await self._rt.tables.get(decoded.table)
        if live is None or not live.private:
            await answer(query, tr(lang, "cb.no_table"))
            return
        seat = live.seat_of(query.from_user.id)
        if seat is None:
            await answer(query, tr(lang, "quick.alert.not_player"), alert=True)
            return
        if live.row.status != TableStatus.PLAYING or live.game is None:
            await answer(query, tr(lang, "err.game_over"))
            return
        if not 0 <= decoded.emoji < len(EMOJI):
            await answer(query, tr(lang, "cb.malformed"))
            return
        if self._presenter.reactions.too_soon(live.table_id, seat) > 0:
            await answer(query, tr(lang, "quick.alert.react_soon"))
            return
        name = query.from_user.first_name or live.row.seats[seat].name
        self._presenter.react(live, seat, name, EMOJI[decoded.emoji])
        await answer(query)

    async def block(self, query: CallbackQuery, decoded: cb.Block, lang: Lang) -> None:
        """After a private table's game: never be paired with that player again."""
        store = self._rt.store
        assert store is not None
        record = await store.game_record(decoded.table, decoded.game)
        if record is None or not is_private_chat(record.chat_id):
            await answer(query, tr(lang, "cb.no_table"))
            return
        seats = record.seats
        me = next((i for i, s in enumerate(seats) if s.user_id == query.from_user.id), None)
        if me is None:
            await answer(query, tr(lang, "quick.alert.not_player"), alert=True)
            return
        if not 0 <= decoded.seat < len(seats) or seats[decoded.seat].user_id is None:
            await answer(query, tr(lang, "cb.malformed"))
            return
        if decoded.seat == me:
            await answer(query, tr(lang, "quick.alert.block_self"))
            return
        other = seats[decoded.seat]
        assert other.user_id is not None
        await store.block(query.from_user.id, other.user_id)
        log.info("quick: %s blocked %s", query.from_user.id, other.user_id)
        name = short_name(other.name)
        await answer(query, tr(lang, "quick.alert.blocked", name=name), alert=True)


def quick_desk(rt: Runtime) -> QuickDesk:
    """The running bot's quick games."""
    found = rt.extras["quick"]
    assert isinstance(found, QuickDesk)
    return found
