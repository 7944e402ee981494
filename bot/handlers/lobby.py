"""The group's table before and between games: /newgame, /leave, /cancel, and the lobby's
buttons (Join, Leave, Settings and their pages, computer players, Start, Rematch).
"""

from __future__ import annotations

import logging

from telegram import (
    CallbackQuery,
    Update,
)
from telegram.error import TelegramError
from telegram.ext import (
    ContextTypes,
)

from bot import callbacks as cb
from bot import render as r
from bot.handlers.common import (
    anonymous_admin,
    answer,
    chat_lang,
    default_rules,
    display_name,
    group_table,
    is_stray,
    may_manage,
    presenter_of,
    remember,
    reply,
    say,
    set_option,
)
from bot.handlers.solo import solo_button
from bot.i18n import Lang, tr
from bot.presenter import AI_LEVELS, Presenter
from bot.runtime import Runtime, runtime
from bot.sender import Content
from bot.store import ChatRow, Seat, TableStatus
from bot.tables import Live, Refused

log = logging.getLogger(__name__)


async def cmd_newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Open a lobby in this group or topic (or point to the one that is open)."""
    rt = runtime(context)
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    thread = message.message_thread_id if message.is_topic_message else None
    lang = await chat_lang(rt, chat.id, user)
    presenter = presenter_of(context)
    async with rt.tables.lock(-chat.id):
        live = await rt.tables.open_table(chat.id, thread)
        if live is not None:
            presenter.repost(live)
            return
        rules = await default_rules(rt, chat.id)
        chat_row = await rt.store.get_chat(chat.id) if rt.store else None
        if chat_row is None and rt.store is not None:
            await rt.store.save_chat(ChatRow(chat.id, lang, None, thread))
        # posted as the group (an anonymous admin): nobody to seat; the admins run it
        known = None if anonymous_admin(message, chat.id) else await remember(rt, user)
        creator = Seat.human(user.id, known.name) if known is not None else None
        live = await rt.tables.create(chat.id, thread, creator, rules)
        if known is not None and not known.can_message:
            await rt.tables.leave_lobby(live, user.id)
            rt.out.post(
                chat.id,
                Content.of(
                    r.render_need_private(
                        lang, rt.bot_username, live.table_id, known.name, rt.codec
                    )
                ),
                thread_id=thread,
            )
    await presenter.redraw(live, [])


async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Leave the lobby; during a game, surrender (he is durak)."""
    rt = runtime(context)
    found = await group_table(update, context)
    if found is None:
        return
    message, user, lang, live = found
    async with live.lock:
        try:
            if live.row.status == TableStatus.PLAYING:
                events = await rt.tables.resign(live, user.id)
                await presenter_of(context).after_action(live, events, surrendered_by=user.id)
                return
            await rt.tables.leave_lobby(live, user.id)
        except Refused as exc:
            reply(rt, message, say(lang, exc.reason, **exc.params))
            return
    await presenter_of(context).redraw(live, [])


async def cmd_cancel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Abort the lobby or game with no tally (the creator or an admin)."""
    rt = runtime(context)
    found = await group_table(update, context)
    if found is None:
        return
    message, user, lang, live = found
    anonymous = anonymous_admin(message, live.row.chat_id)
    if not await may_manage(context, live, user.id, message):
        reply(rt, message, say(lang, "not_allowed"))
        return
    async with live.lock:
        lobby = live.row.status == TableStatus.LOBBY
        try:
            await rt.tables.cancel(live)
        except Refused as exc:
            reply(rt, message, say(lang, exc.reason, **exc.params))
            return
    by = None if anonymous else display_name(user)
    await presenter_of(context).cancelled(live, by, lobby=lobby)


async def table_button(
    context: ContextTypes.DEFAULT_TYPE,
    rt: Runtime,
    presenter: Presenter,
    live: Live,
    query: CallbackQuery,
    decoded: cb.Callback,
    lang: Lang,
) -> None:
    user = query.from_user
    group_lang = lang if live.solo else await chat_lang(rt, live.row.chat_id)
    async with live.lock:
        if live.solo and user.id != live.row.creator_id:
            raise Refused("solo_only")  # a game against the computer is its player's alone
        if not isinstance(decoded, cb.Rematch) and is_stray(rt, query, live.row.group_message_id):
            raise Refused("outdated")
        if live.solo:
            if not await solo_button(context, rt, presenter, live, query, decoded, lang):
                return
        elif isinstance(decoded, cb.SoloSetup):
            raise Refused("outdated")
        elif isinstance(decoded, cb.Join):
            known = await remember(rt, user)
            if not known.can_message:
                link = r.join_link(rt.bot_username, live.table_id, rt.codec)
                try:
                    await query.answer(url=link)
                except TelegramError:
                    await answer(query, say(lang, "open_private"), alert=True)
                return
            if live.row.status == TableStatus.PLAYING and live.seat_of(user.id) is None:
                # an old Join during a game: tell him in private where to watch it
                await answer(query, say(lang, "game_running"))
                title = query.message.chat.title if query.message is not None else None
                text = tr(lang, "lobby.running_dm", group=r.esc(title or ""))
                rt.out.post(user.id, Content(text))
                return
            await rt.tables.join(live, Seat.human(user.id, known.name), decoded.version)
            await answer(query, say(lang, "joined"))
        elif isinstance(decoded, cb.Leave):
            await rt.tables.leave_lobby(live, user.id, decoded.version)
            await answer(query, say(lang, "left"))
        elif isinstance(decoded, cb.Rematch):
            # anyone who sat at the table (or an admin) opens a lobby with the same seats;
            # one open table per group: only from the newest end, only with none open
            seated = live.seat_of(user.id) is not None
            if not seated and not await may_manage(context, live, user.id):
                raise Refused("not_allowed")
            open_now = await rt.tables.open_table(live.row.chat_id, live.row.thread_id)
            if open_now is not None:
                presenter.repost(open_now)
                raise Refused("table_open")
            latest = await rt.tables.latest(live.row.chat_id, live.row.thread_id)
            if latest != live.table_id:
                raise Refused("rematch_old")
            await rt.tables.reopen(live, user.id, decoded.version)
            await answer(query)
            presenter.rematch(live)
            return
        elif isinstance(decoded, cb.Start):
            if not await may_manage(context, live, user.id):
                raise Refused("not_allowed")
            problem = r.lobby_problem(live.rules, len(live.row.seats), lang)
            if problem is not None:
                raise Refused("too_few_players", problem=problem)
            await rt.tables.start(live, decoded.version)
            await answer(query)
            presenter.game_started(live)
            return
        elif isinstance(decoded, cb.Settings | cb.Option | cb.Lobby | cb.AiMenu):
            if decoded.version != live.version:
                raise Refused("outdated")
            if not isinstance(decoded, cb.Lobby) and not await may_manage(context, live, user.id):
                raise Refused("not_allowed")
            await answer(query)
            presenter.show_lobby_page(live, decoded, group_lang)
            return
        elif isinstance(decoded, cb.SetOption):
            if not await may_manage(context, live, user.id):
                raise Refused("not_allowed")
            await set_option(rt, presenter, live, query, decoded, group_lang)
            return
        elif isinstance(decoded, cb.AddAi):
            if not await may_manage(context, live, user.id):
                raise Refused("not_allowed")
            if not 0 <= decoded.level < len(AI_LEVELS):
                raise Refused("outdated")
            number = 1 + sum(1 for seat in live.row.seats if seat.ai is not None)
            name = tr(group_lang, "ai.name", n=number)
            computer = Seat.computer(name, AI_LEVELS[decoded.level])
            await rt.tables.join(live, computer, decoded.version)
            await answer(query, tr(lang, "lobby.alert.ai_added", name=name))
        elif isinstance(decoded, cb.Kick):
            if not await may_manage(context, live, user.id):
                raise Refused("not_allowed")
            await rt.tables.remove_seat(live, decoded.seat, decoded.version)
            await answer(query)
        else:
            raise Refused("outdated")
    await presenter.redraw(live, [])
