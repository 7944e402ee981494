"""Every inline button arrives here: decoded, checked, and handed to the table's buttons
(:mod:`bot.handlers.presses`, shared with the Mini App's pages), the replays or the language
picker; refused presses are answered with the reason.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError
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
    answer_soon,
    is_stray,
    presenter_of,
    refusal_text,
    say,
    user_lang,
)
from bot.handlers.presses import Outcome, Presser, run_press
from bot.handlers.replay import replay_button
from bot.runtime import runtime
from bot.tables import Live, Refused

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
    presenter = presenter_of(context)

    async def answered(live: Live, outcome: Outcome) -> None:
        """The chat's answer: a toast (a link to open), and the hand drawn again when the
        press opened a choice or a selection."""
        if outcome.url is not None:
            try:
                await query.answer(url=outcome.url)
            except TelegramError:
                await answer(query, say(lang, "open_private"), alert=True)
        elif outcome.applied:
            if outcome.text is None:
                answer_soon(context, query)
            else:
                await answer(query, outcome.text)
        else:
            await answer(query, outcome.text)
        if outcome.show:
            presenter.redraw_for(
                live,
                user.id,
                choice=outcome.choice,
                selection=outcome.selection,
                purpose=outcome.purpose,
                fresh=outcome.fresh,
            )

    try:
        await run_press(
            rt,
            presenter,
            Presser(user, lang, context.bot),
            decoded,
            answered,
            stray=lambda shown: is_stray(rt, query, shown),
        )
    except Refused as exc:
        # routine refusals are a short toast; an alert only where there is more to read
        await answer(query, refusal_text(lang, exc), alert=exc.reason in READ_THIS)
        if exc.reason == "outdated":
            live = await rt.tables.get(decoded.table)
            if live is not None:
                presenter.redraw_for(live, user.id)
