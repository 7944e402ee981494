"""Every inline button arrives here: decoded, checked, and handed to the table's buttons
(:mod:`bot.chat.presses`, shared with the Mini App's pages), the replays or the language
picker; refused presses are answered with the reason.
"""

from __future__ import annotations

import logging

from telegram import CallbackQuery, Update
from telegram.error import TelegramError
from telegram.ext import (
    ContextTypes,
)

from bot.base.i18n import Lang, tr
from bot.chat.common import (
    READ_THIS,
    answer,
    answer_soon,
    is_stray,
    presenter_of,
    refusal_text,
    say,
    user_lang,
)
from bot.chat.handlers.commands import (
    set_lang,
)
from bot.chat.handlers.ratings import top_button
from bot.chat.invites import invite_desk
from bot.chat.presenter import Presenter
from bot.chat.presses import Outcome, Presser, run_press
from bot.chat.quick import quick_desk
from bot.chat.replays import replay_button
from bot.chat.runtime import Runtime, runtime
from bot.service import callbacks as cb
from bot.service.tables import Live, Refused
from bot.store import TableStatus

log = logging.getLogger(__name__)


def ephemeral_id(query: CallbackQuery) -> int | None:
    """The in-group hand a press came from: its message's ``ephemeral_message_id`` (Bot
    API 10.2; the message's own ``message_id`` is 0). PTB 22.8 keeps that field among the
    message's ``api_kwargs``. None for a press on an ordinary message."""
    message = query.message
    found = message.api_kwargs.get("ephemeral_message_id") if message is not None else None
    return found if isinstance(found, int) and not isinstance(found, bool) else None


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
    if isinstance(decoded, cb.Top):
        await top_button(rt, query, decoded.view, lang)
        return
    if isinstance(decoded, cb.Invite):
        await invite_desk(rt).press(query, decoded, lang)
        return
    if isinstance(decoded, cb.Quick | cb.React | cb.Block):
        desk = quick_desk(rt)
        if isinstance(decoded, cb.Quick):
            await desk.button(query, decoded.action, lang)
        elif isinstance(decoded, cb.React):
            await desk.react(query, decoded, lang)
        else:
            await desk.block(query, decoded, lang)
        return
    presenter = presenter_of(context)
    if isinstance(decoded, cb.MyCards):
        await my_cards(rt, presenter, query, decoded, lang)
        return
    in_group = ephemeral_id(query)
    if isinstance(decoded, cb.Place):
        await hand_place(rt, presenter, query, decoded, lang, in_group)
        return
    if in_group is not None:
        # a press on his in-group hand: that message is his hand, and the press itself
        # lets a new one be sent while it lasts (the one pressed may be gone by then)
        pressed = await rt.tables.get(getattr(decoded, "table", -1))
        if pressed is not None and pressed.seat_of(user.id) is not None:
            presenter.pressed_in_group(pressed, user.id, query.id, in_group)

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
                in_group=in_group is not None,
            )

    try:
        await run_press(
            rt,
            presenter,
            Presser(user, lang, context.bot),
            decoded,
            answered,
            # an in-group hand is one message per player, edited in place: no copies
            stray=None if in_group is not None else lambda shown: is_stray(rt, query, shown),
        )
    except Refused as exc:
        # routine refusals are a short toast; an alert only where there is more to read
        await answer(query, refusal_text(lang, exc), alert=exc.reason in READ_THIS)
        if exc.reason == "outdated":
            live = await rt.tables.get(decoded.table)
            if live is not None:
                presenter.redraw_for(live, user.id, in_group=in_group is not None)


async def my_cards(
    rt: Runtime, presenter: Presenter, query: CallbackQuery, decoded: cb.MyCards, lang: Lang
) -> None:
    """ "My cards" on the group's table: the presser's hand in the group, shown to him alone,
    sent with this press (he is there: he just pressed). Anyone else is told he is not
    seated; a finished or gone table says so."""
    live = await rt.tables.get(decoded.table)
    if live is None or live.game is None:
        await answer(query, say(lang, "gone"))
        return
    if live.seat_of(query.from_user.id) is None:
        await answer(query, say(lang, "not_seated"), alert=True)
        return
    if live.row.status != TableStatus.PLAYING:
        await answer(query, say(lang, "illegal.game_over"))
        return
    presenter.show_in_group(live, query.from_user.id, query_id=query.id)
    await answer(query)


async def hand_place(
    rt: Runtime,
    presenter: Presenter,
    query: CallbackQuery,
    decoded: cb.Place,
    lang: Lang,
    in_group: int | None,
) -> None:
    """A button of the in-group hand that chooses where the presser's hand shows."""
    live = await rt.tables.get(decoded.table)
    if live is None or live.game is None or live.row.status != TableStatus.PLAYING:
        await answer(query, say(lang, "gone"))
        return
    try:
        async with live.lock:
            await presenter.set_place(live, query.from_user.id, decoded.place, query.id, in_group)
    except Refused as exc:
        await answer(query, refusal_text(lang, exc))
        return
    await answer(query, tr(lang, f"hand.place.{decoded.place}"))
