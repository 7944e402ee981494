"""Every inline button arrives here: decoded, checked, and handed to the lobby, the hand or
the language picker; refused presses are answered with the reason.
"""

from __future__ import annotations

import logging

from telegram import (
    Update,
)
from telegram.ext import (
    ContextTypes,
)

from bot import callbacks as cb
from bot.handlers.commands import (
    set_lang,
)
from bot.handlers.common import (
    READ_THIS,
    answer,
    presenter_of,
    refusal_text,
    say,
    user_lang,
)
from bot.handlers.hand import HAND_KINDS, hand_button
from bot.handlers.lobby import table_button
from bot.handlers.replay import replay_button
from bot.runtime import runtime
from bot.tables import Refused

log = logging.getLogger(__name__)


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every inline button: decode, check, act, answer exactly once."""
    rt = runtime(context)
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    lang = await user_lang(rt, user)
    try:
        decoded = rt.codec.decode(query.data)
    except cb.BadCallback:
        await answer(query, say(lang, "malformed"))
        return
    if isinstance(decoded, cb.SetLang):
        await set_lang(context, rt, update, query, decoded.lang)
        return
    if isinstance(decoded, cb.ReplayOpen | cb.ReplayStep):
        try:
            await replay_button(context, rt, query, decoded, lang)
        except Refused as exc:
            await answer(query, refusal_text(lang, exc), alert=exc.reason in READ_THIS)
        return
    live = await rt.tables.get(decoded.table)
    if live is None:
        await answer(query, say(lang, "gone"))
        return
    presenter = presenter_of(context)
    try:
        if isinstance(decoded, HAND_KINDS):
            await hand_button(context, rt, presenter, live, query, decoded, lang)
        else:
            await table_button(context, rt, presenter, live, query, decoded, lang)
    except Refused as exc:
        # routine refusals are a short toast; an alert only where there is more to read
        await answer(query, refusal_text(lang, exc), alert=exc.reason in READ_THIS)
        if exc.reason == "outdated":
            presenter.redraw_for(live, user.id)
