"""Commands that show or choose something: /stats, /rules, /help, /lang (and its picker),
/start, and group commands sent in private.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from telegram import (
    CallbackQuery,
    Update,
)
from telegram.constants import ChatType
from telegram.ext import (
    ContextTypes,
)

from bot import render as r
from bot.base.i18n import pick_lang, tr
from bot.chat.common import (
    anonymous_admin,
    answer,
    chat_lang,
    default_rules,
    is_admin,
    lang_here,
    playing_tables,
    presenter_of,
    remember,
    reply,
    say,
    user_lang,
)
from bot.chat.invites import invite_desk
from bot.chat.replays import replay_from_link
from bot.chat.runtime import Runtime, runtime
from bot.ratings.model import PRIVATE_TABLES, is_group_chat
from bot.service import callbacks as cb
from bot.service.tables import Refused
from bot.store import ChatRow, Seat, TableStatus, TallyRow, is_private_chat
from bot.transport.sender import Content

log = logging.getLogger(__name__)


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The group's series: games, times durak, pogony, draws, points."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None or rt.store is None:
        return
    if chat.type == ChatType.PRIVATE:
        lang = await user_lang(rt, update.effective_user)
        rows = quick_games_as_one(await rt.store.player_tallies(chat.id))
        presenter = presenter_of(context)
        # his private chat's series is his games against the computer: it has no title;
        # his quick games are one line of their own
        titles = {
            row.chat_id: await presenter.title(row.chat_id)
            for row in rows
            if is_group_chat(row.chat_id)
        }
        titles[PRIVATE_TABLES] = tr(lang, "stats.quick_games")
        reply(rt, message, r.render_player_stats(rows, titles, lang, solo=chat.id), html=True)
        return
    lang = await chat_lang(rt, chat.id, update.effective_user)
    rows = await rt.store.chat_stats(chat.id)
    # a computer champion's wins on its line, as its games and times durak are
    wins = Counter(won.player for won in await rt.store.tourney_wins(chat_id=chat.id))
    reply(rt, message, r.render_stats(rows, lang, chat.title or "", wins), html=True)


def quick_games_as_one(rows: Sequence[TallyRow]) -> list[TallyRow]:
    """A player's tallies with those of his private tables (each quick game's table keeps
    its own series) summed into one, under :data:`PRIVATE_TABLES`."""
    private = [row for row in rows if is_private_chat(row.chat_id)]
    rest = [row for row in rows if not is_private_chat(row.chat_id)]
    if not private:
        return rest
    latest = max(private, key=lambda row: row.last_played or 0.0)
    merged = replace(
        latest,
        chat_id=PRIVATE_TABLES,
        games=sum(row.games for row in private),
        durak=sum(row.durak for row in private),
        pogony=sum(row.pogony for row in private),
        draws=sum(row.draws for row in private),
        points=sum(row.points for row in private),
    )
    return sorted([*rest, merged], key=lambda row: row.last_played or 0.0, reverse=True)


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The rules of the open table (or the group's default) in words."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    if chat.type == ChatType.PRIVATE:
        # the rules of his game against the computer, if one is open; else the defaults
        lang = await user_lang(rt, update.effective_user)
        live = await rt.tables.open_table(chat.id, None)
        rules = live.rules if live is not None else rt.settings.default_rules
        reply(rt, message, r.render_rules(rules, lang), html=True)
        return
    lang = await chat_lang(rt, chat.id, update.effective_user)
    thread = message.message_thread_id if message.is_topic_message else None
    live = await rt.tables.open_table(chat.id, thread)
    rules = live.rules if live is not None else await default_rules(rt, chat.id)
    reply(rt, message, r.render_rules(rules, lang), html=True)


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """How to play with the bot."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    private = chat.type == ChatType.PRIVATE
    lang = await lang_here(rt, update, chat)
    reply(rt, message, r.render_help(lang, "private" if private else "group"), html=True)


async def cmd_lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Choose the language (of the group, or of the user in private)."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    lang = await lang_here(rt, update, chat)
    if chat.type != ChatType.PRIVATE and not await may_set_group_lang(context, chat.id, update):
        reply(rt, message, tr(lang, "lang.not_allowed"))
        return
    picker = r.render_lang_picker(lang, rt.codec)
    reply(rt, message, picker.text, keyboard=picker.keyboard, html=True)


async def may_set_group_lang(
    context: ContextTypes.DEFAULT_TYPE, chat_id: int, update: Update
) -> bool:
    """A group's language is chosen by an admin (anonymous ones too), the bot's
    operators, or the creator of the table open there."""
    rt = runtime(context)
    user = update.effective_user
    message = update.effective_message
    if message is not None and message.sender_chat is not None:
        return anonymous_admin(message, chat_id)  # posted as this group, or as another
    if user is None:
        return False
    if user.id in rt.settings.admin_ids:
        return True
    assert rt.store is not None
    if any(row.creator_id == user.id for row in await rt.store.chat_tables(chat_id)):
        return True
    return await is_admin(context.bot, chat_id, user.id)


async def set_lang(
    context: ContextTypes.DEFAULT_TYPE, rt: Runtime, update: Update, query: CallbackQuery, lang: str
) -> None:
    assert rt.store is not None
    message = query.message
    chat_id = message.chat.id if message is not None else query.from_user.id
    if chat_id > 0:
        await remember(rt, query.from_user, language=lang)
    else:
        if not await may_set_group_lang(context, chat_id, update):
            here = await chat_lang(rt, chat_id, query.from_user)
            await answer(query, tr(here, "lang.not_allowed"))
            return
        row = await rt.store.get_chat(chat_id)
        await rt.store.save_chat(
            ChatRow(
                chat_id, lang, row.default_rules if row else None, row.thread_id if row else None
            )
        )
    chosen = pick_lang(lang)
    await answer(query, tr(chosen, "lang.set", name=tr(chosen, f"lang.name.{chosen}")))
    if message is not None:
        # the picker now marks the language chosen, and speaks it
        key = ("lang", chat_id, message.message_id)
        screen = r.render_lang_picker(chosen, rt.codec)
        rt.out.show(key, chat_id, Content.of(screen), message_id=message.message_id)
        rt.out.retire(key)


async def cmd_private_only(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/play and /replay sent in a group: they work in the private chat, which the button
    opens."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    lang = await chat_lang(rt, chat.id, update.effective_user)
    keyboard = None
    if rt.bot_username:
        link = r.Button.link(tr(lang, "lobby.btn.open_bot"), f"https://t.me/{rt.bot_username}")
        keyboard = r.Keyboard.of([[link]])
    reply(rt, message, say(lang, "private_only"), keyboard=keyboard)


async def cmd_group_only(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Group commands sent in private: say where they belong."""
    rt = runtime(context)
    if update.effective_message is not None:
        lang = await user_lang(rt, update.effective_user)
        reply(rt, update.effective_message, say(lang, "group_only"))


async def cmd_as_channel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A command that acts for a person, posted on behalf of a channel: refused, asking
    for it as himself (a channel's post forwarded to its discussion group is let be)."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None or message.is_automatic_forward:
        return
    reply(rt, message, say(await chat_lang(rt, chat.id), "as_channel"))


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /start: remember that we may write; with a join payload, seat the user."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    known = await remember(rt, user, started=True)
    lang = await user_lang(rt, user)
    if context.args and await replay_from_link(rt, user, context.args[0], lang):
        return
    if context.args:
        try:
            table_id = rt.codec.parse_join_payload(context.args[0])
        except cb.BadCallback:
            table_id = None
        if table_id is not None:
            live = await rt.tables.get(table_id)
            if live is not None and live.seat_of(user.id) is not None:
                if live.row.status == TableStatus.PLAYING:
                    presenter_of(context).back(live, user.id)  # back from a blocked chat
                else:
                    reply(rt, message, say(lang, "already_seated"))
                return
            if live is not None and live.private:
                # an invitation's table, from its Join: seated now that he started the bot
                said = await invite_desk(rt).started_bot(live, user, lang)
                reply(rt, message, said)
                return
            if live is not None:
                async with live.lock:
                    try:
                        await rt.tables.join(live, Seat.human(user.id, known.name))
                    except Refused as exc:
                        reply(rt, message, say(lang, exc.reason, **exc.params))
                        if exc.reason != "already_seated":
                            return
                await presenter_of(context).redraw(live, [])
                reply(rt, message, say(lang, "joined"))
                return
    for live in (await playing_tables(rt, user.id))[0]:
        presenter_of(context).back(live, user.id)  # his cards, if a game waited for him
    welcome = r.render_start(lang, rt.bot_username, rt.codec)
    reply(rt, message, welcome.text, keyboard=welcome.keyboard, html=True)
