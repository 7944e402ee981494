"""A player's hand in the private chat: /hand. Its buttons (cards, Take, Pass, Transfer,
choices, Refresh) are decided in :mod:`bot.handlers.presses`.
"""

from __future__ import annotations

import logging

from telegram import (
    Update,
)
from telegram.ext import (
    ContextTypes,
)

from bot.handlers.common import (
    presenter_of,
    remember,
    reply,
    say,
    user_lang,
)
from bot.handlers.relayed import playing_tables
from bot.runtime import runtime

log = logging.getLogger(__name__)


async def cmd_hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /hand: send his cards again, at the bottom of the chat."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    await remember(rt, user, started=True)
    tables, elsewhere = await playing_tables(rt, user.id)
    for live in tables:
        presenter_of(context).back(live, user.id)
    if not tables and not elsewhere:
        reply(rt, message, say(await user_lang(rt, user), "no_game"))
