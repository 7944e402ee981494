"""/quick in the private chat: a game of two with whoever else is looking (the queue and its
buttons are :mod:`bot.chat.quick`)."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from bot.chat.common import reply, user_lang
from bot.chat.quick import quick_desk
from bot.chat.runtime import runtime


async def cmd_quick(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /quick: join the queue for a quick game (dealt at once if someone waits)."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(rt, user)
    said = await quick_desk(rt).enter(user, lang)
    if said is not None:
        reply(rt, message, said)
