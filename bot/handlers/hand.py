"""A player's hand in the private chat: its buttons (cards, Take, Pass, Transfer, choices,
Refresh) and /hand.
"""

from __future__ import annotations

import logging

from telegram import (
    CallbackQuery,
    Update,
)
from telegram.ext import (
    ContextTypes,
)

from bot import callbacks as cb
from bot import render as r
from bot.handlers.common import (
    answer,
    answer_soon,
    is_stray,
    presenter_of,
    remember,
    reply,
    say,
    user_lang,
)
from bot.i18n import Lang
from bot.presenter import Presenter
from bot.runtime import Runtime, runtime
from bot.store import TableStatus
from bot.tables import Live, Refused
from engine.actions import Action

log = logging.getLogger(__name__)


HAND_KINDS = (
    cb.Tap,
    cb.Select,
    cb.Toggle,
    cb.Play,
    cb.CoverWith,
    cb.Throw,
    cb.Take,
    cb.Pass,
    cb.Transfer,
    cb.ShowTrump,
    cb.SwapTrump,
    cb.PokerSwap,
    cb.Cancel,
    cb.Refresh,
)


async def cmd_hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /hand: send his cards again, at the bottom of the chat."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    await remember(rt, user, started=True)
    tables = rt.tables.playing_at(user.id)
    for live in tables:
        presenter_of(context).back(live, user.id)
    if not tables:
        reply(rt, message, say(await user_lang(rt, user), "no_game"))


async def hand_button(
    context: ContextTypes.DEFAULT_TYPE,
    rt: Runtime,
    presenter: Presenter,
    live: Live,
    query: CallbackQuery,
    decoded: cb.HandCallback,
    lang: Lang,
) -> None:
    user = query.from_user
    async with live.lock:
        seat = live.seat_of(user.id)
        if seat is None:
            await answer(query, say(lang, "not_yours"))
            return
        presenter.looked(live, user.id)
        stray = is_stray(rt, query, presenter.hand_message(live, seat))
        game = live.game
        if stray and game is not None and live.row.status == TableStatus.PLAYING:
            await answer(query, say(lang, "outdated"))
            presenter.redraw_for(live, user.id, fresh=True)
            return
        if game is None or live.row.status != TableStatus.PLAYING:
            finished = live.row.status == TableStatus.FINISHED
            await answer(query, say(lang, "illegal.game_over" if finished else "gone"))
            return
        if decoded.version != live.version:
            raise Refused("outdated")
        view = game.view(seat)
        action: Action | None = None
        if isinstance(decoded, cb.Refresh | cb.Cancel):
            await answer(query)
            presenter.redraw_for(live, user.id)
            return
        if isinstance(decoded, cb.Tap):
            resolved = r.resolve_tap(view, decoded.card)
            if resolved is None:
                raise Refused(f"illegal.{r.tap_refusal(view, decoded.card)}")
            if isinstance(resolved, r.Choice):
                await answer(query)
                presenter.redraw_for(live, user.id, choice=resolved)
                return
            action = resolved
        elif isinstance(decoded, cb.Select):
            await answer(query)
            presenter.redraw_for(live, user.id, selection=frozenset(), purpose=decoded.purpose)
            return
        elif isinstance(decoded, cb.Toggle):
            chosen = set(decoded.selection) ^ {decoded.card}
            await answer(query)
            presenter.redraw_for(
                live, user.id, selection=frozenset(chosen), purpose=decoded.purpose
            )
            return
        elif isinstance(decoded, cb.Play):
            resolved = r.resolve_play(view, decoded.cards) if decoded.suits is None else None
            if isinstance(resolved, r.Choice):
                await answer(query)
                presenter.redraw_for(live, user.id, choice=resolved)
                return
            action = resolved if resolved is not None else r.to_action(decoded, seat)
        else:
            action = r.to_action(decoded, seat)
        if action is None:
            raise Refused("outdated")
        events = await rt.tables.act(live, seat, action, decoded.version)
        answer_soon(context, query)
        await presenter.after_action(live, events, actor=seat)
