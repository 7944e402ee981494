"""Telegram handlers, split by what the user is doing; find a handler from what he pressed:

* ``lobby`` — the group's table before a game: /newgame, /leave, /cancel, Join, Leave,
  Settings and their pages, computer players, Start, Rematch;
* ``hand`` — the private hand: card buttons, Take, Pass, Transfer, choices, /hand;
* ``solo`` — a game against the computer in private: /play, its setup, /leave, /cancel;
* ``replay`` — replays and the coach: 🎞 Replay, the step buttons, /replay;
* ``commands`` — /stats, /rules, /help, /lang and its picker, /start;
* ``ratings`` — /top, /me and its chart;
* ``chats`` — the bot added or removed, a group upgraded, errors;
* ``relayed`` — what another process asks of a table held here (several processes);
* ``buttons`` — where every inline button arrives and is dispatched;
* ``lifecycle`` — start-up, shut-down, command menus, the lobby purge;
* ``common`` — what they share (refusals, rights, answering a press, languages).

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
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.handlers.buttons import on_button
from bot.handlers.chats import note_chat, on_error, on_migrate, on_my_member
from bot.handlers.commands import (
    cmd_as_channel,
    cmd_group_only,
    cmd_help,
    cmd_lang,
    cmd_private_only,
    cmd_rules,
    cmd_start,
    cmd_stats,
)
from bot.handlers.hand import cmd_hand, cmd_hand_group
from bot.handlers.lifecycle import order_key, post_init, post_shutdown, post_stop
from bot.handlers.lobby import cmd_cancel, cmd_leave, cmd_newgame
from bot.handlers.ratings import cmd_me, cmd_top
from bot.handlers.relayed import on_relayed
from bot.handlers.replay import cmd_replay
from bot.handlers.solo import cmd_play, cmd_solo_stop
from bot.inbox import Relayed
from bot.runtime import Runtime

__all__ = ["install", "post_init", "post_shutdown", "post_stop"]

PERSONAL = ("newgame", "leave", "cancel", "lang")
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
    # commands that act for a person come from one, not on behalf of a channel
    by_channel = group & filters.SenderChat.CHANNEL
    app.add_handler(CommandHandler(PERSONAL, cmd_as_channel, filters=by_channel))
    app.add_handler(CommandHandler("newgame", cmd_newgame, filters=group))
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
    app.add_handler(CommandHandler("replay", cmd_replay, filters=private))
    app.add_handler(CommandHandler(["leave", "cancel"], cmd_solo_stop, filters=private))
    app.add_handler(CommandHandler("newgame", cmd_group_only, filters=private))
    app.add_handler(CommandHandler(["play", "replay"], cmd_private_only, filters=group))
    app.add_handler(ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_handler(TypeHandler(Relayed, on_relayed))
    app.add_error_handler(on_error)
    rt.order.set_key(lambda update: order_key(rt, update))
