"""The group's table message: trump, stock, seats and roles, the bout, whose move, events.

Built from :class:`engine.PublicView` only, so no card of anyone's hand can show. The
turn-up is named while it lies under the stock; once drawn only its suit is shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.base.i18n import Lang, tr
from bot.ratings.odds import Odds
from bot.service.callbacks import MyCards
from engine import PublicView, Rules

from .common import (
    Button,
    Keyboard,
    Player,
    Screen,
    TableContext,
    card_text,
    esc,
    live_clock,
    name_of,
    short_name,
    suit_text,
)
from .events import event_lines
from .limits import fits
from .ratings import table_odds_lines
from .rules_text import game_title

__all__ = ["ROLE_ICONS", "render_table", "role_words", "turn_line"]

ROLE_ICONS = {
    "attacker": "⚔️",
    "defender": "🛡",
    "thrower": "▫️",
    "partner": "▫️",
    "out": "🏁",
    "idle": "▫️",
}
_TEAM_LETTERS = "ABC"


def title_line(lang: Lang, rules: Rules | None, group: str = "") -> str:
    """``🃏 <b>Podkidnoy</b>``, after the group's title (raw; escaped here) if given."""
    game = game_title(rules, lang) if rules is not None else tr(lang, "table.title")
    if group:
        return tr(lang, "table.title_group", group=esc(short_name(group, 40)), game=game)
    return tr(lang, "table.title_game", game=game)


def trump_line(view: PublicView, lang: Lang) -> str:
    """``Trump 7♥ · Stock 12 · Discard 8``."""
    if view.trump is None:
        trump = tr(lang, "table.no_trump")
    elif view.trump_card is not None and view.stock_size > 0:
        trump = tr(lang, "table.trump", card=card_text(view.trump_card))
    else:
        trump = tr(lang, "table.trump", card=suit_text(view.trump))
    stock = (
        tr(lang, "table.stock", n=view.stock_size)
        if view.stock_size
        else tr(lang, "table.stock_empty")
    )
    return " · ".join((trump, stock, tr(lang, "table.discard", n=view.discard_size)))


def seat_lines(
    view: PublicView, players: Sequence[Player], lang: Lang, me: int | None = None
) -> list[str]:
    """One line per seat: role icon, name, cards held, role in words, marks."""
    lines = []
    for seat in range(view.players):
        role = view.roles[seat]
        name = name_of(players, seat)
        if seat == me:
            name = tr(lang, "table.me", name=name)
        if role in ("attacker", "defender"):
            name = f"<b>{name}</b>"
        parts = [f"{ROLE_ICONS.get(role, '▫️')} {name}"]
        if role != "out":
            parts.append(tr(lang, "card.count", n=view.hand_sizes[seat]))
        parts += role_words(view, seat, lang)
        lines.append(" · ".join(parts))
    return lines


def role_words(view: PublicView, seat: int, lang: Lang) -> list[str]:
    """What a seat's line says of its role: out (and its place), attacking, defending,
    taking, may throw in, passed, its team."""
    role = view.roles[seat]
    words = []
    if role == "out":
        place = view.finish_order.index(seat) + 1 if seat in view.finish_order else 0
        words.append(tr(lang, "role.out", place=place))
    else:
        if view.phase != "over" and role in ("attacker", "defender", "thrower", "partner"):
            word = tr(lang, f"role.{role}")
            if role == "defender" and view.taking:
                word = tr(lang, "role.taking")
            words.append(word)
        if seat in view.passed and role != "defender":
            words.append(tr(lang, "role.passed"))
    if view.teams is not None:
        words.append(tr(lang, "table.team", team=_TEAM_LETTERS[view.teams[seat] % 3]))
    return words


def bout_lines(view: PublicView, lang: Lang) -> list[str]:
    """The bout's cards as attack → cover pairs (``?`` for an open attack card)."""
    if view.phase == "over":
        return []
    if not view.table:
        return [tr(lang, "table.empty")] if view.phase == "lead" else []
    lines = [tr(lang, "table.on_table", n=len(view.table), cap=view.bout_cap)]
    declared = dict(view.declared)
    for attack, cover in view.table:
        if cover is None:
            lines.append(f"<b>{card_text(attack, declared)}</b> → ?")
        else:
            lines.append(f"{card_text(attack, declared)} → {card_text(cover, declared)}")
    return lines


def turn_line(
    view: PublicView,
    players: Sequence[Player],
    lang: Lang,
    seconds: float | None,
    deadline: float | None = None,
) -> str:
    """Whose move it is, with the time left."""
    if view.phase == "over":
        return tr(lang, "table.over")
    names = ", ".join(name_of(players, s) for s in view.to_act if s != view.defender)
    if view.phase == "lead":
        text = tr(lang, "table.turn.lead", name=name_of(players, view.attacker))
    elif view.taking:
        text = tr(lang, "table.turn.taking", name=name_of(players, view.defender))
        if names:
            text = tr(lang, "table.turn.and_throw", first=text, names=names)
    elif view.defender in view.waiting_on:
        text = tr(lang, "table.turn.defend", name=name_of(players, view.defender))
        if names:
            text = tr(lang, "table.turn.and_throw", first=text, names=names)
    elif names:
        text = tr(lang, "table.turn.throw", names=names)
    else:
        text = tr(lang, "table.turn.nobody")
    if seconds is not None and view.to_act:
        text = tr(lang, "table.turn.time", text=text, time=live_clock(lang, seconds, deadline))
    return text


def fit(sections: list[list[str]], events: list[str], header: str, footer: str) -> str:
    """Join sections with blank lines, dropping the oldest events until it fits."""
    events = list(events)
    while True:
        parts = ["\n".join(s) for s in sections if s]
        if events:
            parts.append("\n".join([header, *(f"• {e}" for e in events)]))
        if footer:
            parts.append(footer)
        text = "\n\n".join(parts)
        if fits(text) or not events:
            return text
        events.pop(0)


def render_table(
    view: PublicView,
    players: Sequence[Player],
    lang: Lang,
    ctx: TableContext,
    *,
    rules: Rules | None = None,
    events_shown: int = 5,
    odds: Odds | None = None,
) -> Screen:
    """The group's table message (HTML), headed by the game's name if ``rules`` are given;
    with ``odds`` (its first message, at the deal), each player's rating and chance not
    to be the durak; a button opens the private chat if ``ctx.bot_username`` is known."""
    head = [title_line(lang, rules), trump_line(view, lang)]
    sections = [head, seat_lines(view, players, lang)]
    if odds is not None:
        sections.append(table_odds_lines(odds, players, lang, view.teams))
    sections.append(bout_lines(view, lang))
    sections.append([turn_line(view, players, lang, ctx.seconds_left, ctx.deadline)])
    events = event_lines(ctx.events, players, lang, view.trump, limit=events_shown)
    text = fit(sections, events, tr(lang, "table.recent"), "")
    keyboard = None
    if view.phase != "over":
        # every player gets his hand here, shown to him alone (an ephemeral message)
        row = [
            Button.cb(tr(lang, "table.btn.my_cards"), ctx.codec, MyCards(ctx.table_id, ctx.version))
        ]
        if ctx.open_url:
            row.append(Button.link(tr(lang, "table.btn.open_app"), ctx.open_url))
        keyboard = Keyboard.of([row]) if row else None
    return Screen(text, keyboard)
