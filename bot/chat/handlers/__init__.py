"""Telegram handlers, split by what the user is doing; find a handler from what he pressed:

* ``lobby`` — the group's table before a game: /newgame, /tournament, /leave, /cancel (its
  buttons, Join, Leave, Settings and their pages, computer players, the number of a
  tournament's games, Start, Rematch, are decided in :mod:`bot.chat.presses`);
* ``hand`` — the private hand: /hand (its buttons are decided in :mod:`bot.chat.presses`);
* ``solo`` — a game against the computer in private: /play, /leave, /cancel (and /leave at
  a private table);
* ``quick`` — /quick: a game of two with whoever else is looking (the queue, its buttons
  and the private table's reactions and blocks are :mod:`bot.chat.quick`);
* ``commands`` — /stats, /rules, /help, /lang and its picker, /start;
* ``ratings`` — /top, /me and its chart;
* ``chats`` — the bot added or removed, a group upgraded, errors;
* :mod:`bot.chat.invites` — ``@bot`` in any chat: the invitations offered, and their
  buttons (Join, Leave, Start, Rematch);
* ``buttons`` — where every inline button arrives and is dispatched: a table's buttons
  to :mod:`bot.chat.presses`, replays to :mod:`bot.chat.replays` (which holds /replay);
* this package — :func:`install` registers them all; :func:`order_key` keeps the updates
  of one table in order.

What they share is :mod:`bot.chat.common`; start-up and shut-down are :mod:`bot.lifecycle`;
what another process asks of a table held here is :mod:`bot.cluster.relayed`.

Each handler decodes what arrived, asks the table service to change the table (under the
table's lock), answers the user, and has the presenter redraw what changed. Every callback
query is answered exactly once, also when it is refused.
"""

from __future__ import annotations

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.chat.handlers.buttons import on_button
from bot.chat.handlers.chats import note_chat, on_error, on_migrate, on_my_member
from bot.chat.handlers.commands import (
    cmd_as_channel,
    cmd_group_only,
    cmd_help,
    cmd_lang,
    cmd_private_only,
    cmd_rules,
    cmd_start,
    cmd_stats,
)
from bot.chat.handlers.hand import cmd_hand, cmd_hand_group
from bot.chat.handlers.lobby import cmd_cancel, cmd_leave, cmd_newgame, cmd_tournament
from bot.chat.handlers.quick import cmd_quick
from bot.chat.handlers.ratings import cmd_me, cmd_top
from bot.chat.handlers.solo import cmd_play, cmd_solo_stop
from bot.chat.invites import on_guest_message, on_inline_query
from bot.chat.replays import cmd_replay
from bot.chat.runtime import Runtime
from bot.service import callbacks as cb
from bot.service.inbox import Relayed
from bot.transport.ordering import default_key

__all__ = ["install", "order_key"]

PERSONAL = ("newgame", "tournament", "leave", "cancel", "lang")
"""Group commands that act for the person who sends them (seat him, check his rights)."""


def install(app: Application, rt: Runtime) -> None:  # type: ignore[type-arg]
    """Register every handler."""
    group = filters.ChatType.GROUPS
    private = filters.ChatType.PRIVATE
    app.add_handler(TypeHandler(Update, note_chat), group=-1)
    # a press first: it is most of the updates, and no command handler takes one (a
    # CommandHandler looks at any update's message, a pressed button's too, and so would
    # each be asked in vain on every press)
    app.add_handler(CallbackQueryHandler(on_button))
    app.add_handler(InlineQueryHandler(on_inline_query))
    app.add_handler(MessageHandler(filters.UpdateType.GUEST_MESSAGE, on_guest_message))
    # commands that act for a person come from one, not on behalf of a channel
    by_channel = group & filters.SenderChat.CHANNEL
    app.add_handler(CommandHandler(PERSONAL, cmd_as_channel, filters=by_channel))
    app.add_handler(CommandHandler("newgame", cmd_newgame, filters=group))
    app.add_handler(CommandHandler("tournament", cmd_tournament, filters=group))
    app.add_handler(CommandHandler("leave", cmd_leave, filters=group))
    app.add_handler(CommandHandler("cancel", cmd_cancel, filters=group))
    app.add_handler(CommandHandler("stats", cmd_stats))
    app.add_handler(CommandHandler("top", cmd_top))
    app.add_handler(CommandHandler("me", cmd_me))
    app.add_handler(CommandHandler("rules", cmd_rules))
    app.add_handler(CommandHandler("help", cmd_help))
    app.add_handler(CommandHandler("lang", cmd_lang))
    app.add_handler(CommandHandler("start", cmd_start, filters=private))
    app.add_handler(CommandHandler("hand", cmd_hand, filters=private))
    app.add_handler(CommandHandler("hand", cmd_hand_group, filters=group))
    app.add_handler(CommandHandler("play", cmd_play, filters=private))
    app.add_handler(CommandHandler("quick", cmd_quick, filters=private))
    app.add_handler(CommandHandler("replay", cmd_replay, filters=private))
    app.add_handler(CommandHandler(["leave", "cancel"], cmd_solo_stop, filters=private))
    app.add_handler(CommandHandler(["newgame", "tournament"], cmd_group_only, filters=private))
    app.add_handler(CommandHandler(["play", "replay", "quick"], cmd_private_only, filters=group))
    app.add_handler(ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_error_handler(on_error)
    rt.order.set_key(lambda update: order_key(rt, update))


def order_key(rt: Runtime, update: object) -> object:
    """Updates of one table run in order: a button names its table; anything else is keyed
    by its chat."""
    if isinstance(update, Relayed):
        return ("table", update.table)
    if isinstance(update, Update) and update.callback_query is not None:
        try:
            decoded = rt.codec.decode(update.callback_query.data)
        except cb.BadCallback:
            return None
        if isinstance(decoded, cb.ReplayOpen | cb.ReplayStep):
            # a finished game's replay never waits behind the moves of its table's next game
            return ("replay", update.callback_query.from_user.id)
        table = getattr(decoded, "table", None)
        if isinstance(table, int):
            return ("table", table)
    return default_key(update)
