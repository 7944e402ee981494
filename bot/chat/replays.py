"""Replays and the coach: the 🎞 Replay button of an end message, /replay in private, and
the ⏮ ◀ ▶ ⏭ buttons of a replay message.

A replay opens in the presser's private chat, for anyone who sat at that table; its step
buttons carry the table, the game and the step, so any replay message works for ever and
after a restart. The coach's review of the viewer's moves is made once in the background;
replay messages opened meanwhile are drawn again when it is ready.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Hashable

from telegram import CallbackQuery, Update, User
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot import render as r
from bot.base.i18n import Lang, tr
from bot.chat.common import answer, remember, reply, say, user_lang
from bot.chat.presenter import Presenter, players_of
from bot.chat.runtime import Runtime, runtime
from bot.ratings.model import is_group_chat
from bot.service import callbacks as cb
from bot.service.coach import Coach
from bot.service.replay import Replay, ReplayError, load_replay
from bot.service.tables import Refused
from bot.store import is_private_chat
from bot.transport.sender import Content, Priority
from engine.ai.coach import Review

__all__ = ["ReplayDesk", "cmd_replay", "replay_button", "send_replay"]

log = logging.getLogger(__name__)


class ReplayDesk:
    """Draws replay frames and redraws the messages that wait for the coach."""

    CACHED = 64
    """Replays kept rebuilt (a finished game never changes): the ones being stepped."""

    def __init__(self, rt: Runtime, presenter: Presenter, coach: Coach | None) -> None:
        self._rt = rt
        self._presenter = presenter
        self.coach = coach
        self._replays: OrderedDict[tuple[int, int], Replay] = OrderedDict()
        self._waiting: dict[tuple[int, int, int], dict[tuple[int, int], int]] = {}
        """Replay messages waiting for a review, by (table, game, viewer): their steps."""
        self._tasks: set[asyncio.Task[None]] = set()

    async def replay(self, table_id: int, game_no: int) -> Replay:
        """A finished game, rebuilt and checked once, then kept while it is being watched;
        :class:`Refused` if it cannot be replayed."""
        key = (table_id, game_no)
        found = self._replays.get(key)
        if found is not None:
            self._replays.move_to_end(key)
            return found
        assert self._rt.store is not None
        try:
            found = await load_replay(self._rt.store, table_id, game_no)
        except ReplayError as exc:
            raise Refused(exc.reason) from None
        self._replays[key] = found
        while len(self._replays) > self.CACHED:
            self._replays.popitem(last=False)
        return found

    async def _note(self, replay: Replay, user_id: int, seat: int) -> r.CoachNote:
        coach = self.coach
        if coach is None or not coach.enabled:
            return r.CoachNote("off")
        record = replay.record
        kept = await coach.stored(record.table_id, record.game_no, user_id)
        if kept is not None:
            return _note_of(kept)
        key = (record.table_id, record.game_no, user_id)
        if coach.failed(*key):
            return r.CoachNote("off")
        if not coach.running(*key):
            future = coach.request(replay, user_id, seat)
            task = asyncio.ensure_future(self._reviewed(replay, user_id, seat, future))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return r.CoachNote("working")

    async def _reviewed(
        self, replay: Replay, user_id: int, seat: int, future: asyncio.Future[Review | None]
    ) -> None:
        """Once the review is made, draw again every replay message that waited for it."""
        try:
            found = await future
        except asyncio.CancelledError:
            found = None
        key = (replay.record.table_id, replay.record.game_no, user_id)
        waiting = self._waiting.pop(key, {})
        note = _note_of(found) if found is not None else r.CoachNote("off")
        for (chat, message), step in waiting.items():
            await self._redraw(replay, user_id, seat, chat, message, step, note)

    async def _redraw(
        self,
        replay: Replay,
        user_id: int,
        seat: int,
        chat: int,
        message: int,
        step: int,
        note: r.CoachNote,
    ) -> None:
        lang = await self._presenter.user_lang(user_id)
        screen = await self.screen(replay, seat, step, lang, note)
        self.show(chat, message, screen)

    async def screen(
        self, replay: Replay, seat: int | None, step: int, lang: Lang, note: r.CoachNote
    ) -> r.Screen:
        """The replay message at ``step`` for the viewer at ``seat``."""
        record = replay.record
        step = max(0, min(step, replay.total))
        game, events = replay.at(step)
        # a group's title; what a table with no group is; none against the computer
        if is_group_chat(record.chat_id):
            title = await self._presenter.title(record.chat_id)
        else:
            title = tr(lang, "private.where") if is_private_chat(record.chat_id) else ""
        frame = r.ReplayFrame(
            table_id=record.table_id,
            game_no=record.game_no,
            step=step,
            total=replay.total,
            public=game.public_view(),
            hands=tuple(game.view(s).hand for s in range(len(record.seats))),
            events=tuple(events),
            group_title=title,
            viewer=seat,
            coach=note,
            codec=self._rt.codec,
        )
        return r.render_replay(frame, players_of(record.seats), lang, replay.rules)

    async def frame(
        self, replay: Replay, user_id: int, seat: int, step: int, lang: Lang
    ) -> tuple[r.Screen, r.CoachNote]:
        """The screen at ``step`` with what the coach says now (starting the review if it
        has not been made)."""
        note = await self._note(replay, user_id, seat)
        return await self.screen(replay, seat, step, lang, note), note

    def wait_for_coach(
        self, replay: Replay, user_id: int, seat: int, chat: int, message: int, step: int
    ) -> None:
        """Draw this replay message again when the coach's review is ready (at once if it
        became ready while the message was being sent)."""
        key = (replay.record.table_id, replay.record.game_no, user_id)
        if self.coach is not None and self.coach.running(*key):
            self._waiting.setdefault(key, {})[(chat, message)] = step
            return
        task = asyncio.ensure_future(self._redraw_kept(replay, user_id, seat, chat, message, step))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _redraw_kept(
        self, replay: Replay, user_id: int, seat: int, chat: int, message: int, step: int
    ) -> None:
        note = await self._note(replay, user_id, seat)
        if note.state != "working":
            await self._redraw(replay, user_id, seat, chat, message, step, note)

    def show(self, chat: int, message: int, screen: r.Screen) -> None:
        """Edit a replay message (paced with the chat's other messages)."""
        key: Hashable = ("replay", chat, message)
        out = self._rt.out
        out.show(key, chat, Content.of(screen), message_id=message, priority=Priority.OWN)
        out.retire(key)


def _note_of(review: Review) -> r.CoachNote:
    return r.CoachNote("ready", review.marks, review.decisions)


def desk_of(rt: Runtime) -> ReplayDesk:
    """The runtime's replay desk."""
    found = rt.extras["replays"]
    assert isinstance(found, ReplayDesk)
    return found


async def _load(rt: Runtime, table: int, game: int, user: User) -> tuple[Replay, int]:
    replay = await desk_of(rt).replay(table, game)
    seat = replay.seat_of(user.id)
    if seat is None:
        raise Refused("replay_not_yours")
    return replay, seat


async def open_replay(rt: Runtime, user: User, replay: Replay, seat: int, lang: Lang) -> bool:
    """Post the replay's first frame in the user's private chat; False if it could not be
    sent (he never started the bot, or blocked it)."""
    desk = desk_of(rt)
    screen, note = await desk.frame(replay, user.id, seat, 0, lang)
    sent = await rt.out.post(user.id, Content.of(screen))
    if sent is None:
        return False
    if note.state == "working":
        desk.wait_for_coach(replay, user.id, seat, user.id, sent, 0)
    log.info(
        "table %s game %s: replay opened by %s",
        replay.record.table_id,
        replay.record.game_no,
        user.id,
    )
    return True


async def send_replay(rt: Runtime, user: User, table: int, game: int, lang: Lang) -> bool:
    """🎞 Replay: the replay of ``game`` of ``table`` in the user's private chat
    (:class:`Refused` if he did not sit at that table); False if it cannot be sent there
    (he never started the bot, or blocked it)."""
    known = await remember(rt, user)
    replay, seat = await _load(rt, table, game, user)
    return known.can_message and await open_replay(rt, user, replay, seat, lang)


async def replay_button(
    context: ContextTypes.DEFAULT_TYPE,
    rt: Runtime,
    query: CallbackQuery,
    decoded: cb.ReplayCallback,
    lang: Lang,
) -> None:
    """🎞 Replay, and the step buttons of a replay message."""
    user = query.from_user
    if isinstance(decoded, cb.ReplayOpen):
        in_private = query.message is not None and query.message.chat.id == user.id
        if await send_replay(rt, user, decoded.table, decoded.game, lang):
            await answer(query, None if in_private else say(lang, "replay_sent"))
            return
        # he never started the bot, or blocked it: the link opens the bot, /start the replay
        link = r.replay_link(rt.bot_username, decoded.table, decoded.game, rt.codec)
        try:
            await query.answer(url=link)
        except TelegramError:
            raise Refused("open_private") from None
        return
    message = query.message
    if message is None or message.chat.id != user.id:
        raise Refused("malformed")  # replay messages live in private chats only
    replay, seat = await _load(rt, decoded.table, decoded.game, user)
    step = max(0, min(decoded.step, replay.total))
    desk = desk_of(rt)
    screen, note = await desk.frame(replay, user.id, seat, step, lang)
    desk.show(message.chat.id, message.message_id, screen)
    if note.state == "working":
        desk.wait_for_coach(replay, user.id, seat, message.chat.id, message.message_id, step)
    await answer(query, say(lang, "replay_end") if step == replay.total else None)


async def replay_from_link(rt: Runtime, user: User, payload: str, lang: Lang) -> bool:
    """/start with a replay link's payload: open that replay; False if the payload is not
    a replay link."""
    try:
        table, game = rt.codec.parse_replay_payload(payload)
    except cb.BadCallback:
        return False
    try:
        await open_replay(rt, user, *await _load(rt, table, game, user), lang)
    except Refused as exc:
        rt.out.post(user.id, Content(say(lang, exc.reason)))
    return True


async def cmd_replay(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /replay: the replay of his last finished game (in a group or alone)."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or rt.store is None:
        return
    await remember(rt, user, started=True)
    lang = await user_lang(rt, user)
    history = await rt.store.player_history(user.id, limit=1)
    if not history:
        reply(rt, message, say(lang, "replay_none"))
        return
    last = history[0]
    try:
        await open_replay(rt, user, *await _load(rt, last.table_id, last.game_no, user), lang)
    except Refused as exc:
        reply(rt, message, say(lang, exc.reason))
