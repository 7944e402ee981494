"""Invitations into any chat, through inline mode: ``@bot`` typed in any chat offers a few
invitations; the one chosen is posted there and is the lobby (Join, Leave, Start), then
the public table, then the end with a rematch, edited in place (:meth:`Presenter.draw_face`).

Telegram tells the bot nothing when a result is chosen (unless inline feedback is switched
on, which it is not by default), so the buttons carry what the invitation is (the game,
for how many, who invites, in which language) and its first press opens the private table
it shows, known from then on by the message's ``inline_message_id``. The game runs as a
private table: each player's cards in his private chat. Someone who never started the bot
is taken to it by the answer to his Join (a ``t.me/<bot>?start=`` link) and seated once he
presses Start there.
"""

from __future__ import annotations

import asyncio
import logging

from telegram import Bot, CallbackQuery, Update, User
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes

from bot import render as r
from bot.base.i18n import Lang, is_lang, pick_lang, tr
from bot.chat.common import (
    answer,
    held_shard,
    reachable,
    refusal_text,
    remember,
    user_lang,
)
from bot.chat.presenter import Presenter
from bot.chat.runtime import Runtime, runtime
from bot.service import callbacks as cb
from bot.service.quick import quick_rules
from bot.service.tables import Live, Refused
from bot.store import Invitation, Seat, TableStatus, is_private_chat
from bot.transport.request import call
from engine import Rules

__all__ = [
    "INLINE_CACHE",
    "InviteDesk",
    "invite_desk",
    "invite_rules",
    "on_guest_message",
    "on_inline_query",
]

log = logging.getLogger(__name__)

INLINE_CACHE = 60
"""Seconds Telegram may serve an answer to an inline query again, to the same user only
(the results carry his id and name: ``is_personal``)."""


def invite_rules(default: Rules, game: str, size: int) -> Rules:
    """An invitation's rules: the operator's default rules for ``game``, with a move clock
    always on and every thrower passing himself (as a quick game's)."""
    rules = quick_rules(default)
    preset = Rules.preset(game).model_dump(include={"game"})
    chosen = rules.model_copy(update=preset)
    chosen.check_players(size)
    return chosen


def _wanted(text: str, lang: Lang) -> tuple[str, int]:
    """The game and the number of players a mention names (the first of each found)."""
    words = text.casefold()
    game = next(
        (
            g
            for g in reversed(r.INVITE_GAMES)
            if g[:6] in words or tr(lang, f"opt.game.v.{g}").casefold()[:6] in words
        ),
        r.INVITE_GAMES[0],
    )
    size = next((n for n in r.INVITE_SIZES if str(n) in words.split()), r.INVITE_SIZES[0])
    return game, size


def invite_desk(rt: Runtime) -> InviteDesk:
    """The running bot's invitations."""
    found = rt.extras["invites"]
    assert isinstance(found, InviteDesk)
    return found


async def on_inline_query(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``@bot`` typed in any chat: the invitations on offer."""
    await invite_desk(runtime(context)).offer(update)


async def on_guest_message(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot mentioned as a guest in a chat it is not in: an invitation posted there."""
    await invite_desk(runtime(context)).guest(update)


class InviteDesk:
    """The invitations of one running bot."""

    def __init__(self, rt: Runtime, presenter: Presenter, bot: Bot) -> None:
        self._rt = rt
        self._presenter = presenter
        self._bot = bot
        self._opening = asyncio.Lock()
        """One first press opens one table (the store orders processes)."""

    # ------------------------------------------------------------------ the offer

    async def offer(self, update: Update) -> None:
        """Answer an inline query with one invitation per game and table size (the games
        the query names, if it names one), each in the inviter's language."""
        query = update.inline_query
        if query is None:
            return
        user = query.from_user
        await remember(self._rt, user)
        lang = await user_lang(self._rt, user)
        wanted = query.query.casefold().strip()
        games = [
            g
            for g in r.INVITE_GAMES
            if not wanted or wanted in tr(lang, f"opt.game.v.{g}").casefold() or wanted in g
        ] or list(r.INVITE_GAMES)
        results = [
            self._article(lang, game, size, user) for game in games for size in r.INVITE_SIZES
        ]
        params = {
            "inline_query_id": query.id,
            "results": results,
            "cache_time": INLINE_CACHE,
            "is_personal": True,
        }
        try:
            await call(self._bot, "answerInlineQuery", params, result=False)
        except BadRequest as exc:
            # answered too late (after a restart, say): the user has moved on
            log.info("inline query %s not answered: %s", query.id, exc)

    def _article(self, lang: Lang, game: str, size: int, user: User) -> dict[str, object]:
        """The inline result of one invitation: ``game`` for ``size``, from ``user``."""
        rules = invite_rules(self._rt.settings.default_rules, game, size)
        spec = r.InviteSpec(game, size, user.id, lang, user.full_name, self._rt.codec)
        title, description = r.invite_result(lang, rules, spec)
        screen = r.render_invitation(lang, rules, spec, [user.full_name])
        assert screen.keyboard is not None
        return {
            "type": "article",
            "id": f"{game}-{size}",
            "title": title,
            "description": description,
            "input_message_content": {
                "message_text": screen.text,
                "parse_mode": "HTML",
                "link_preview_options": {"is_disabled": True},
            },
            "reply_markup": r.reply_markup(screen.keyboard),
        }

    async def guest(self, update: Update) -> None:
        """The bot mentioned in a chat it is not in (guest mode, Bot API 10.0): it posts one
        invitation there itself — the game and the number of players the mention names
        ("@bot perevodnoy 3"), podkidnoy for two by default. The invitation is an inline
        message like any other, and plays the same."""
        message = update.guest_message
        query_id = message.guest_query_id if message is not None else None
        user = message.from_user if message is not None else None
        if message is None or query_id is None or user is None:
            return
        await remember(self._rt, user)
        lang = await user_lang(self._rt, user)
        game, size = _wanted(message.text or message.caption or "", lang)
        params = {"guest_query_id": query_id, "result": self._article(lang, game, size, user)}
        try:
            await call(self._bot, "answerGuestQuery", params, result=False)
        except BadRequest as exc:
            log.info("guest query %s not answered: %s", query_id, exc)

    # ------------------------------------------------------------------ the buttons

    async def press(self, query: CallbackQuery, decoded: cb.Invite, lang: Lang) -> None:
        """A button of an invitation: answered exactly once."""
        inline_id = query.inline_message_id
        if (
            inline_id is None
            or decoded.game not in r.INVITE_GAMES
            or decoded.size not in r.INVITE_SIZES
            or not is_lang(decoded.lang)
            or decoded.action not in ("join", "leave", "start", "again", "ai")
        ):
            await answer(query, tr(lang, "cb.malformed"))
            return
        try:
            said, url = await self._press(query, decoded, lang, inline_id)
        except Refused as exc:
            await answer(query, refusal_text(lang, exc), alert=exc.reason == "too_few_players")
            return
        if url is not None:
            try:
                await query.answer(url=url)
            except TelegramError:
                await answer(query, tr(lang, "lobby.alert.need_private"), alert=True)
            return
        await answer(query, said)

    async def _press(
        self, query: CallbackQuery, decoded: cb.Invite, lang: Lang, inline_id: str
    ) -> tuple[str | None, str | None]:
        store = self._rt.store
        assert store is not None
        user = query.from_user
        found = await store.invitation(inline_id)
        if found is None:
            if decoded.action not in ("join", "start", "ai"):
                raise Refused("not_seated")
            found, live = await self._open(inline_id, decoded, user)
        else:
            got = await self._rt.tables.get(found.table_id)
            if got is None:
                raise Refused("gone")
            live = got
        async with live.lock:
            return await self._act(live, found, user, decoded.action, lang)

    async def _open(
        self, inline_id: str, decoded: cb.Invite, presser: User
    ) -> tuple[Invitation, Live]:
        """The first press of an invitation: its table, its inviter seated."""
        store = self._rt.store
        assert store is not None
        inviter = await store.get_user(decoded.inviter)
        if inviter is None:
            raise Refused("gone")  # the invitation names someone this bot never saw
        try:
            rules = invite_rules(self._rt.settings.default_rules, decoded.game, decoded.size)
        except ValueError:
            raise Refused("outdated") from None
        wanted = Invitation(inline_id, 0, decoded.lang, decoded.game, decoded.size, decoded.inviter)
        async with self._opening:
            invitation, row = await store.open_invitation(
                wanted,
                held_shard(self._rt, [presser.id, decoded.inviter]),
                rules.model_dump_json(),
                Seat.human(inviter.user_id, inviter.name),
            )
        self._presenter.note_invitation(invitation)
        # opened in a shard held here (or, pressed twice at once, maybe another's)
        self._rt.tables.check_held(row.chat_id, row.table_id)
        live = self._rt.tables.cached(row.table_id) or self._rt.tables.adopt(row)
        log.info("table %s: opened by an invitation of %s", row.table_id, decoded.inviter)
        return invitation, live

    async def _act(
        self, live: Live, invitation: Invitation, user: User, action: str, lang: Lang
    ) -> tuple[str | None, str | None]:
        """Join, Leave, Start or Rematch at an invitation's table (under its lock): what to
        tell the presser, or a link to open."""
        tables = self._rt.tables
        status = live.row.status
        seated = live.seat_of(user.id) is not None
        if action == "join":
            if seated:
                if status == TableStatus.PLAYING:
                    self._presenter.back(live, user.id)
                return tr(lang, "lobby.alert.already_seated"), None
            if status != TableStatus.LOBBY:
                return tr(lang, "invite.alert.running"), None
            known = await reachable(self._rt, user, await remember(self._rt, user))
            if not known.can_message:
                # he never started the bot: his Start there seats him (cmd_start)
                link = r.join_link(self._rt.bot_username, live.table_id, self._rt.codec)
                return None, link
            return await self.seat(live, invitation, user.id, known.name, lang), None
        if action == "leave":
            if not seated:
                raise Refused("not_seated")
            if status != TableStatus.LOBBY:
                return tr(lang, "invite.alert.running"), None
            await tables.leave_lobby(live, user.id)
            await self._presenter.redraw(live, [])
            return tr(lang, "invite.alert.left"), None
        if action == "ai":
            # a computer player in a free seat: the inviter (the lobby's creator) decides
            if status != TableStatus.LOBBY:
                return tr(lang, "invite.alert.running"), None
            if user.id != live.row.creator_id:
                return tr(lang, "invite.alert.only_inviter_ai"), None
            if len(live.row.seats) >= invitation.size:
                raise Refused("table_full", max=invitation.size)
            number = 1 + sum(1 for seat in live.row.seats if seat.ai is not None)
            name = tr(pick_lang(invitation.lang), "ai.name", n=number)
            await tables.join(live, Seat.computer(name, "normal"))
            if len(live.row.seats) >= invitation.size:
                await self._start(live, lang)
            else:
                await self._presenter.redraw(live, [])
            return tr(lang, "invite.alert.computer_added"), None
        if action == "start":
            if status == TableStatus.PLAYING:
                return tr(lang, "invite.alert.running"), None
            if status != TableStatus.LOBBY:
                raise Refused("outdated")
            if not seated:
                raise Refused("not_seated")
            full = len(live.row.seats) >= invitation.size
            if user.id != live.row.creator_id and not full:
                return tr(lang, "invite.alert.only_inviter"), None
            await self._start(live, lang)
            return None, None
        # again: a rematch, everyone seated again; whoever asked starts it
        if not seated:
            raise Refused("not_seated")
        if status == TableStatus.LOBBY:
            return tr(lang, "invite.alert.rematch_seated"), None
        if status != TableStatus.FINISHED:
            return tr(lang, "invite.alert.running"), None
        await tables.reopen(live, user.id)
        self._presenter.rematch(live)
        return tr(lang, "invite.alert.rematch_seated"), None

    async def seat(
        self, live: Live, invitation: Invitation, user_id: int, name: str, lang: Lang
    ) -> str:
        """Seat a player who may be written to (under the table's lock); the game starts
        once every seat the invitation offers is taken."""
        if await self._elsewhere(user_id, live):
            return tr(lang, "invite.alert.elsewhere")
        if len(live.row.seats) >= invitation.size:
            raise Refused("table_full", max=invitation.size)
        await self._rt.tables.join(live, Seat.human(user_id, name))
        self._presenter.note_private(user_id, True)
        if len(live.row.seats) >= invitation.size:
            await self._start(live, lang)
        else:
            await self._presenter.redraw(live, [])
        return tr(lang, "invite.alert.joined")

    async def _start(self, live: Live, lang: Lang) -> None:
        problem = r.lobby_problem(live.rules, len(live.row.seats), lang)
        if problem is not None:
            raise Refused("too_few_players", problem=problem)
        await self._rt.tables.start(live)
        self._presenter.game_started(live)

    async def _elsewhere(self, user_id: int, live: Live) -> bool:
        """Whether he plays at another private table now, or waits for a quick game."""
        store = self._rt.store
        assert store is not None
        if await store.quick_waiting(user_id) is not None:
            return True
        return any(
            is_private_chat(chat) and table != live.table_id
            for table, chat in await store.playing_tables_of(user_id)
        )

    async def started_bot(self, live: Live, user: User, lang: Lang) -> str:
        """He followed an invitation's link and pressed Start in the bot's chat: seated,
        if the table still waits for players. What to tell him."""
        invitation = await self._presenter.invitation(live)
        if invitation is None:
            return tr(lang, "invite.alert.gone")
        known = await remember(self._rt, user, started=True)
        async with live.lock:
            if live.seat_of(user.id) is not None:
                return tr(lang, "lobby.alert.already_seated")
            if live.row.status != TableStatus.LOBBY:
                return tr(lang, "invite.alert.running")
            try:
                return await self.seat(live, invitation, user.id, known.name, lang)
            except Refused as exc:
                return refusal_text(lang, exc)
