"""Changes to chats: a group's title seen, the bot added to or removed from a group, a group
upgraded to a supergroup, and errors.
"""

from __future__ import annotations

import logging

from telegram import (
    ChatMemberUpdated,
    Update,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.ext import (
    ContextTypes,
)

from bot.base.i18n import tr
from bot.chat.common import (
    answer,
    chat_lang,
    presenter_of,
)
from bot.chat.runtime import runtime
from bot.service.shards import NotHere
from bot.service.tables import Refused
from bot.transport.sender import Content

log = logging.getLogger(__name__)


async def note_chat(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every update from a group: remember its title (the hands name their group)."""
    chat = update.effective_chat
    if (
        chat is not None
        and chat.type != ChatType.PRIVATE
        and "presenter" in runtime(context).extras
    ):
        presenter_of(context).note_title(chat.id, chat.title)


async def on_my_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot was added to a group: a short greeting with how to start (a channel, where
    no game can be played, gets none). It was removed: its table ends (no tally)."""
    rt = runtime(context)
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None:
        return
    status = change.new_chat_member.status
    present = (ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR)
    was = change.old_chat_member.status
    if "presenter" in rt.extras and change.chat.type != ChatType.PRIVATE:
        # an administrator may show a player his hand in the group at any time
        presenter_of(context).note_admin(change.chat.id, status == ChatMemberStatus.ADMINISTRATOR)
    if status in present and was in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        if change.chat.type == ChatType.CHANNEL:
            # no command of a channel's reaches the bot: nothing to tell it there
            log.info("chat %s: added to a channel, where nobody can play", change.chat.id)
        elif change.chat.type != ChatType.PRIVATE:
            lang = await chat_lang(rt, change.chat.id, change.from_user)
            rt.out.post(change.chat.id, Content(tr(lang, "about.greeting")))
        return
    if status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        assert rt.store is not None
        for row in await rt.store.chat_tables(change.chat.id):
            live = await rt.tables.get(row.table_id)
            if live is None:
                continue
            async with live.lock:
                try:
                    await rt.tables.cancel(live)
                except Refused:
                    continue
            await presenter_of(context).removed(live)
            log.info("table %s: ended, the bot left chat %s", live.table_id, change.chat.id)


async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: move its tables and tallies to the new id."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    await runtime(context).out.migrate(message.chat.id, message.migrate_to_chat_id)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log every unhandled error with the update that caused it."""
    if isinstance(context.error, NotHere):
        # its table is held by another process: the update goes there, unanswered here
        log.debug("update %r: %s", update, context.error)
        return
    log.error("error handling update %r", update, exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        await answer(update.callback_query)
