"""/top (a group's best players by rating) and /me (a player's ratings, with a chart of how
they moved, sent as a photo)."""

from __future__ import annotations

import logging
import time

from telegram import CallbackQuery, Message, Update, User
from telegram.constants import ChatType, ParseMode
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot import render as r
from bot.base.i18n import Lang, tr
from bot.chat.chart import ChartLine, Charts, ChartText
from bot.chat.common import (
    answer,
    chat_lang,
    display_name,
    lang_here,
    presenter_of,
    remember,
    reply,
    user_lang,
)
from bot.chat.runtime import Runtime, runtime
from bot.ratings.model import NEWCOMER, OVERALL, VS_COMPUTER, Skill
from bot.render.common import short_name, text_length
from bot.render.ratings import TOP
from bot.service.seasons import season_of
from bot.store import RatingRow, StoreError
from bot.transport.sender import Content

__all__ = ["cmd_me", "cmd_top"]

log = logging.getLogger(__name__)

MAX_CAPTION = 1024
"""Telegram's limit on a photo's caption (after entities parsing)."""
GROUPS_SHOWN = 5
"""Groups whose ratings /me lists in private, most recently played first."""


def charts_of(rt: Runtime) -> Charts | None:
    """The chart worker, if charts are on."""
    found = rt.extras.get("charts")
    return found if isinstance(found, Charts) else None


def _person(message: Message, user: User | None) -> User | None:
    """Who sent a command: None for a message sent as a chat (an anonymous admin posting
    as the group, or a channel)."""
    if message.sender_chat is not None:
        return None
    return user


async def cmd_top(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The group's best players by rating, and the caller's own line below if he is not
    among them."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None or rt.store is None:
        return
    user = _person(message, update.effective_user)
    if chat.type == ChatType.PRIVATE:
        lang = await user_lang(rt, update.effective_user)
        await message.reply_text(tr(lang, "rating.top_private"))
        return
    lang = await chat_lang(rt, chat.id, update.effective_user)
    if user is not None:
        await remember(rt, user)
    text, keyboard = await top_view(rt, chat.id, chat.title or "", lang, "season", user)
    reply(rt, message, text, keyboard=keyboard, html=True)


async def top_view(
    rt: Runtime, chat_id: int, title: str, lang: Lang, view: str, user: User | None
) -> tuple[str, r.Keyboard]:
    """/top's text and its button to the other view: the current season (``season``) or
    the all-time ranking (``all``)."""
    assert rt.store is not None
    if view == "season":
        season = season_of(time.time())
        rows = await rt.store.season(chat_id, season.since, season.until)
        name = r.season_name(lang, season.year, season.month)
        text = r.render_season(rows, lang, name, title)
        return text, r.top_keyboard(lang, rt.codec, season=True)
    board = await rt.store.rating_board(chat_id, TOP)
    me: RatingRow | None = None
    place: int | None = None
    if user is not None:
        me = (await rt.store.ratings_of(chat_id, [user.id])).get(user.id)
        if me is not None and all(row.user_id != user.id for row in board):
            place = await rt.store.rating_place(chat_id, user.id)
    text = r.render_top(board, lang, title, me, place)
    return text, r.top_keyboard(lang, rt.codec, season=False)


async def top_button(rt: Runtime, query: CallbackQuery, view: str, lang: Lang) -> None:
    """/top's button: the message shows the other view (answered exactly once)."""
    message = query.message
    if view not in ("season", "all") or message is None or message.chat.id > 0:
        await answer(query, tr(lang, "cb.malformed"))
        return
    here = await chat_lang(rt, message.chat.id, query.from_user)
    title = getattr(message.chat, "title", None) or ""
    text, keyboard = await top_view(rt, message.chat.id, title, here, view, query.from_user)
    await answer(query)
    rt.out.show(
        ("top", message.chat.id, message.message_id),
        message.chat.id,
        Content(text, keyboard),
        message_id=message.message_id,
    )
    rt.out.retire(("top", message.chat.id, message.message_id))


async def cmd_me(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """His ratings (this group's, overall, against the computer; in private his groups'
    too), the games behind them, how often he was durak, his best and worst partner, his
    achievements with their dates, and a chart of the ratings over time. A chart that
    cannot be drawn or sent leaves the text alone."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None or rt.store is None:
        return
    lang = await lang_here(rt, update, chat)
    user = _person(message, update.effective_user)
    if user is None:
        await message.reply_text(tr(lang, "rating.me_anonymous"))
        return
    await remember(rt, user)
    store = rt.store
    rows = {row.scope: row for row in await store.player_ratings(user.id)}
    presenter = presenter_of(context)
    group = chat.type != ChatType.PRIVATE
    here = None
    groups: list[tuple[str, RatingRow]] = []
    if group:
        mine = rows.get(chat.id)
        place = await store.rating_place(chat.id, user.id) if mine is not None else None
        here = (chat.title or "", mine, place)
    else:
        for row in [row for scope, row in rows.items() if scope < 0][:GROUPS_SHOWN]:
            groups.append((await presenter.title(row.scope), row))
    best, worst = r.best_and_worst(await store.partners(user.id))
    won = await store.tourney_wins(user_id=user.id)
    page = r.MePage(
        name=display_name(user),
        here=here,
        groups=tuple(groups),
        overall=rows.get(OVERALL),
        computer=rows.get(VS_COMPUTER),
        best=best,
        worst=worst,
        tourneys=len([w for w in won if not group or w.chat_id == chat.id]),
        achievements=await store.achievements_of(user.id),
    )
    text = r.render_me(page, lang)
    scopes = (chat.id, OVERALL) if group else (OVERALL, VS_COMPUTER)
    if not any(scope in rows for scope in scopes):
        await message.reply_html(text)  # nothing to draw: no games, or none of these
        return
    titles = {
        chat.id: short_name(chat.title or tr(lang, "rating.some_group"), 30),
        OVERALL: tr(lang, "rating.chart_overall"),
        VS_COMPUTER: tr(lang, "rating.chart_computer"),
    }
    png = await _chart(rt, user.id, scopes, titles, display_name(user), lang)
    if png is not None and await _send_chart(message, png, text):
        return
    await message.reply_html(f"{text}\n\n{tr(lang, 'rating.me_no_chart')}")


async def _chart(
    rt: Runtime,
    user_id: int,
    scopes: tuple[int, ...],
    titles: dict[int, str],
    name: str,
    lang: Lang,
) -> bytes | None:
    """The chart of his ratings in ``scopes``, or None (charts off, or it failed)."""
    charts = charts_of(rt)
    if charts is None or rt.store is None:
        return None
    try:
        history = await rt.store.rating_history(user_id, scopes)
    except StoreError:
        log.exception("user %s: rating history unreadable", user_id)
        return None
    # x: his games counted over the chart's lines, so that a game of the group and the
    # same game in his overall rating fall on one x; each line starts where he started
    number = {seq: i for i, seq in enumerate(sorted({p.seq for p in history}), 1)}
    lines = []
    for scope in scopes:
        points = [(number[p.seq], Skill(p.mu, p.sigma).shown) for p in history if p.scope == scope]
        if points:
            lines.append(ChartLine(titles[scope], ((points[0][0] - 1, NEWCOMER.shown), *points)))
    words = ChartText(
        title=tr(lang, "rating.chart_title", name=short_name(name, 30)),
        x_label=tr(lang, "rating.chart_x"),
        y_label=tr(lang, "rating.chart_y"),
    )
    return await charts.draw(lines, words)


async def _send_chart(message: Message, png: bytes, text: str) -> bool:
    """Answer with the chart, the text as its caption (or after it, if too long); False
    if Telegram refused the photo."""
    fits = text_length(text) <= MAX_CAPTION
    try:
        await message.reply_photo(
            photo=png, caption=text if fits else None, parse_mode=ParseMode.HTML
        )
    except TelegramError as exc:
        log.warning("chat %s: the chart was not sent: %s", message.chat_id, exc)
        return False
    if not fits:
        await message.reply_html(text)
    return True
