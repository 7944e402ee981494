"""A player's hand in the private chat: /hand. Its buttons (cards, Take, Pass, Transfer,
choices, Refresh) are decided in :mod:`bot.chat.presses`.
"""

from __future__ import annotations

import logging

from telegram import (
    Update,
)
from telegram.ext import (
    ContextTypes,
)

from bot.chat.common import (
    playing_tables,
    presenter_of,
    remember,
    reply,
    say,
    user_lang,
)
from bot.chat.runtime import runtime
from bot.store import TableStatus
from bot.transport.sender import Content

log = logging.getLogger(__name__)


async def cmd_hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /hand: send his cards again, at the bottom of the chat."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    await remember(rt, user, started=True)
    tables, elsewhere = await playing_tables(rt, user.id)
    if tables:
        await presenter_of(context).prefer_private(user.id)
    for live in tables:
        presenter_of(context).back(live, user.id)
    if not tables and not elsewhere:
        reply(rt, message, say(await user_lang(rt, user), "no_game"))


async def cmd_hand_group(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/hand in a group, an ephemeral command (``BotCommand.is_ephemeral``, Bot API 10.2):
    the sender's hand shown to him alone in the group, quoting his command, or why not.
    Nothing is said in public: sent as an ordinary message (an app that knows no
    ephemeral commands), the hand goes to him alone where the bot may (as an
    administrator, or in his private chat), else nowhere."""
    rt = runtime(context)
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    presenter = presenter_of(context)
    command = message.api_kwargs.get("ephemeral_message_id")
    command_id = command if isinstance(command, int) and not isinstance(command, bool) else None
    thread = message.message_thread_id if message.is_topic_message else None
    lang = await user_lang(rt, user)
    live = await rt.tables.open_table(chat.id, thread)
    playing = live is not None and live.row.status == TableStatus.PLAYING
    if live is None or not playing or live.seat_of(user.id) is None:
        reason = "not_seated" if playing else "no_game"
        if command_id is not None:
            await presenter.ingroup.notice(
                chat.id,
                user.id,
                Content(say(lang, reason)),
                command_id=command_id,
                thread_id=thread,
            )
        return
    if command_id is not None:
        presenter.show_in_group(live, user.id, command_id=command_id)
    elif await presenter.bot_is_admin(chat.id):
        presenter.show_in_group(live, user.id)
    elif await presenter.private_ok(user.id):
        presenter.back(live, user.id)
