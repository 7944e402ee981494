"""The end of a game (durak, pogony, draw, team lost, timeout, surrender), the series tally,
the rematch button, and /stats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.base.i18n import Lang, tr
from bot.service import callbacks as cb
from engine import Result

from .achievements import earned_lines
from .common import (
    MAX_TEXT,
    Button,
    Keyboard,
    Player,
    Screen,
    esc,
    name_of,
    short_name,
)
from .limits import fit_lines, visible_length
from .tourney import TourneyView, tourney_lines

__all__ = [
    "EndContext",
    "TallyLike",
    "render_cancelled",
    "render_end",
    "render_stats",
    "tally_lines",
]

_MEDALS = ("🥇", "🥈", "🥉")


class TallyLike(Protocol):
    """A player's series in a chat (``bot.store`` ``TallyRow`` fits)."""

    @property
    def chat_id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def games(self) -> int: ...
    @property
    def durak(self) -> int: ...
    @property
    def pogony(self) -> int: ...
    @property
    def draws(self) -> int: ...
    @property
    def points(self) -> int: ...
    @property
    def player(self) -> str: ...


@dataclass(frozen=True, slots=True)
class EndContext:
    """What the end-of-game message needs besides the result."""

    table_id: int
    version: int
    tally: Sequence[TallyLike] = ()
    """The group's series after this game (any order)."""
    games: int | None = None
    """Games in the series so far (shown in the tally's title), if known."""
    surrendered: int | None = None
    """The seat that gave up, if the game ended so."""
    game_no: int = 0
    """The game's number at its table (its replay's button); 0: no replay button."""
    solo: bool = False
    """A game against the computer: the button plays again at once."""
    private_seat: int | None = None
    """A private table's end, as this seat's player sees it in his chat: a new quick game
    instead of a rematch, and (``blocks``) a button to block each of the other players."""
    blocks: bool = True
    tourney: TourneyView | None = None
    """The game was one of a tournament's: its standings take the series tally's place,
    and a rematch is offered only once it is over."""
    earned: Sequence[tuple[int, Sequence[str]]] = ()
    """The achievements the game just gave: ``(seat, codes)`` of each player."""
    codec: cb.CallbackCodec = field(default_factory=cb.CallbackCodec)


def _ranked(rows: Sequence[TallyLike]) -> list[TallyLike]:
    return sorted(rows, key=lambda r: (-r.points, r.durak, -r.games, r.name.casefold()))


def _figures(lang: Lang, points: int, games: int, durak: int, pogony: int, draws: int) -> str:
    parts = [
        tr(lang, "tally.points", n=points),
        tr(lang, "tally.games", n=games),
        tr(lang, "tally.durak", n=durak),
    ]
    if pogony:
        parts.append(tr(lang, "tally.pogony", n=pogony))
    if draws:
        parts.append(tr(lang, "tally.draws", n=draws))
    return " · ".join(parts)


def tally_lines(
    rows: Sequence[TallyLike],
    lang: Lang,
    limit: int = 20,
    budget: int = MAX_TEXT,
    wins: Mapping[str, int] | None = None,
) -> list[str]:
    """One line per player, best first: points, games, times durak (pogony), draws, and
    the tournaments he won (``wins``, by player key); at most ``limit`` of them and no more
    than ``budget`` units take, then "and N more"."""
    lines = []
    for i, row in enumerate(_ranked(rows)):
        place = _MEDALS[i] if i < len(_MEDALS) else f"{i + 1}."
        stats = _figures(lang, row.points, row.games, row.durak, row.pogony, row.draws)
        won = wins.get(row.player, 0) if wins else 0
        if won:
            stats += " · " + tr(lang, "tourney.wins", n=won)
        name = esc(short_name(row.name))
        lines.append(tr(lang, "tally.line", place=place, name=name, stats=stats))
    return fit_lines(lines, budget, lambda n: tr(lang, "tally.more", n=n), shown=limit)


MAX_GROUPS = 20
"""Groups a player's own /stats lists one by one (the most recently played); his totals
count them all."""


def render_player_stats(
    rows: Sequence[TallyLike], titles: Mapping[int, str], lang: Lang, solo: int | None = None
) -> str:
    """A player's /stats in private: his record in each group (by its title), most
    recently played first, and his totals; his games against the computer (the series
    kept in chat ``solo``, his private chat) come apart, after the groups."""
    lines = [tr(lang, "stats.title_mine"), ""]
    alone = [row for row in rows if row.chat_id == solo]
    rows = [row for row in rows if row.chat_id != solo]
    if not rows and not alone:
        return "\n".join([*lines, tr(lang, "stats.mine_empty")])
    groups = []
    for row in rows:
        title = titles.get(row.chat_id) or tr(lang, "stats.some_group")
        stats = _figures(lang, row.points, row.games, row.durak, row.pogony, row.draws)
        groups.append(tr(lang, "stats.mine_line", chat=esc(short_name(title, 40)), stats=stats))
    rest: list[str] = []
    if not rows:
        rest.append(tr(lang, "stats.no_groups"))
    if len(rows) > 1:
        total = _figures(
            lang,
            sum(r.points for r in rows),
            sum(r.games for r in rows),
            sum(r.durak for r in rows),
            sum(r.pogony for r in rows),
            sum(r.draws for r in rows),
        )
        rest += ["", tr(lang, "stats.mine_total", stats=total)]
    for row in alone:
        stats = _figures(lang, row.points, row.games, row.durak, row.pogony, row.draws)
        rest += ["", tr(lang, "stats.solo_line", stats=stats)]
    rest += ["", tr(lang, "stats.footer")]
    budget = MAX_TEXT - visible_length("\n".join([*lines, *rest])) - 1
    shown = fit_lines(groups, budget, lambda n: tr(lang, "stats.mine_more", n=n), MAX_GROUPS)
    return "\n".join([*lines, *shown, *rest])


def _names(players: Sequence[Player], seats: Sequence[int], lang: Lang) -> str:
    return tr(lang, "end.and").join(name_of(players, s) for s in seats)


def render_end(result: Result, players: Sequence[Player], lang: Lang, ctx: EndContext) -> Screen:
    """The group message that ends a game, with the series tally and a rematch button."""
    lines = [tr(lang, "end.title")]
    if ctx.surrendered is not None:
        lines.append(tr(lang, "end.surrender", name=name_of(players, ctx.surrendered)))
    if result.timed_out is not None:
        lines.append(tr(lang, "end.timeout", name=name_of(players, result.timed_out)))
    if result.draw or result.durak is None:
        lines.append(tr(lang, "end.draw"))
    elif result.durak_team is not None:
        key = "end.team_lost_pogony" if result.pogony else "end.team_lost"
        lines.append(tr(lang, key, names=_names(players, result.durak_team, lang)))
    else:
        key = "end.durak_pogony" if result.pogony else "end.durak"
        lines.append(tr(lang, key, name=name_of(players, result.durak)))
    if result.finish_order:
        order = ", ".join(
            tr(lang, "end.place", place=i, name=name_of(players, s))
            for i, s in enumerate(result.finish_order, 1)
        )
        lines.append(tr(lang, "end.finish_order", list=order))
    winners = [s for s, p in enumerate(result.points) if p == 2]
    if winners and not result.draw:
        lines.append(tr(lang, "end.winners", names=_names(players, winners, lang)))
    lines += earned_lines(ctx.earned, players, lang)
    if ctx.tourney is not None:
        lines.append("")
        budget = MAX_TEXT - visible_length("\n".join(lines)) - 1
        lines += tourney_lines(ctx.tourney, lang, budget)
    elif ctx.tally:
        title = tr(lang, "tally.title_games", n=ctx.games) if ctx.games else tr(lang, "tally.title")
        lines += ["", title]
        budget = MAX_TEXT - visible_length("\n".join(lines)) - 1
        lines += tally_lines(ctx.tally, lang, budget=budget)
    text = "\n".join(lines)
    if ctx.private_seat is not None:
        return Screen(text, _private_end_keyboard(players, lang, ctx, ctx.private_seat))
    again = tr(lang, "end.btn.play_again" if ctx.solo else "end.btn.rematch")
    row = [Button.cb(again, ctx.codec, cb.Rematch(ctx.table_id, ctx.version))]
    if ctx.tourney is not None and not ctx.tourney.over:
        row = []  # the tournament's next game is dealt by itself
    if ctx.game_no:
        replay = cb.ReplayOpen(ctx.table_id, ctx.game_no)
        row.append(Button.cb(tr(lang, "end.btn.replay"), ctx.codec, replay))
    return Screen(text, Keyboard.of([row]) if row else None)


def _private_end_keyboard(
    players: Sequence[Player], lang: Lang, ctx: EndContext, seat: int
) -> Keyboard:
    row = [Button.cb(tr(lang, "quick.btn.again"), ctx.codec, cb.Quick("go"))]
    if ctx.game_no:
        replay = cb.ReplayOpen(ctx.table_id, ctx.game_no)
        row.append(Button.cb(tr(lang, "end.btn.replay"), ctx.codec, replay))
    rows = [row]
    for other, player in enumerate(players):
        if other != seat and not player.is_ai and ctx.game_no and ctx.blocks:
            label = tr(lang, "quick.btn.block", name=short_name(player.name, 16))
            rows.append([Button.cb(label, ctx.codec, cb.Block(ctx.table_id, ctx.game_no, other))])
    return Keyboard.of(rows)


def render_cancelled(lang: Lang, by: str | None = None, *, lobby: bool = False) -> str:
    """The group message when a game, or a ``lobby`` before any game, is cancelled
    (``by`` a raw name, if known)."""
    key = "end.lobby_cancelled" if lobby else "end.cancelled"
    if by:
        return tr(lang, f"{key}_by", name=esc(short_name(by)))
    return tr(lang, key)


def render_stats(
    rows: Sequence[TallyLike],
    lang: Lang,
    chat_title: str = "",
    wins: Mapping[str, int] | None = None,
) -> str:
    """The /stats text: the chat's series, best first, with the tournaments each player
    won there (``wins``, by player key)."""
    title = (
        tr(lang, "stats.title_chat", chat=esc(short_name(chat_title, 40)))
        if chat_title
        else tr(lang, "stats.title")
    )
    if not rows:
        return "\n".join([title, "", tr(lang, "stats.empty")])
    footer = tr(lang, "stats.footer")
    budget = MAX_TEXT - visible_length(f"{title}\n\n\n{footer}") - 1
    shown = tally_lines(rows, lang, limit=30, budget=budget, wins=wins)
    return "\n".join([title, "", *shown, "", footer])
