"""A tournament's words: its part of the lobby (the number of games, chosen with buttons),
the standings after each game (joined to the game's end message), the champion, an early
end or a stop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.base.i18n import Lang, tr
from bot.service import callbacks as cb
from bot.service.tourneys import TOURNEY_GAMES, Standing

from .achievements import earned_line
from .common import MAX_TEXT, Button, esc, short_name
from .limits import fit_lines

__all__ = [
    "TourneyView",
    "points_text",
    "render_tourney_stop",
    "standings_lines",
    "tourney_games_row",
    "tourney_lobby_lines",
]

_MEDALS = ("🥇", "🥈", "🥉")


@dataclass(frozen=True, slots=True)
class TourneyView:
    """What a game's end says of its tournament."""

    standings: Sequence[Standing]
    played: int
    """Games played so far."""
    total: int
    """Games in the tournament."""
    over: bool = False
    champion: str | None = None
    """The champion's name (raw), once it is over."""
    early: str | None = None
    """Why it ended before its last game: ``players``, ``rules`` or ``people``."""
    earned: Sequence[tuple[str, Sequence[str]]] = ()
    """Achievements its end just gave to players the message names by no seat (raw name,
    codes): the champion's, when no game's end shows them (the tournament ended between
    two games, or he no longer sat at the table)."""


def points_text(halves: int, lang: Lang) -> str:
    """Points kept in halves, in words: "3 points", "1½ points", "½ point"."""
    whole, half = divmod(halves, 2)
    if not half:
        return tr(lang, "tally.points", n=whole)
    if not whole:
        return tr(lang, "tourney.points_half")
    return tr(lang, "tourney.points_frac", n=f"{whole}½")


def standings_lines(rows: Sequence[Standing], lang: Lang, budget: int = MAX_TEXT) -> list[str]:
    """One line per player, best first: place, name, points, games (times durak, left)."""
    lines = []
    for row in rows:
        place = _MEDALS[row.place - 1] if row.place <= len(_MEDALS) else f"{row.place}."
        extra = ""
        if row.durak:
            extra += " · " + tr(lang, "tally.durak", n=row.durak)
        if row.gone:
            extra += tr(lang, "tourney.left")
        lines.append(
            tr(
                lang,
                "tourney.line",
                place=place,
                name=esc(short_name(row.name)),
                points=points_text(row.halves, lang),
                games=tr(lang, "tally.games", n=row.games),
                extra=extra,
            )
        )
    return fit_lines(lines, budget, lambda n: tr(lang, "tally.more", n=n), shown=20)


def tourney_lines(view: TourneyView, lang: Lang, budget: int = MAX_TEXT) -> list[str]:
    """The tournament's part of a game's end message."""
    if view.over:
        title = tr(lang, "tourney.final", games=tr(lang, "tourney.games", n=view.played))
    else:
        title = tr(lang, "tourney.standings", played=view.played, total=view.total)
    tail: list[str] = []
    if view.early is not None:
        tail.append(tr(lang, f"tourney.early_{view.early}"))
    if view.over and view.champion:
        tail.append(tr(lang, "tourney.champion", name=esc(short_name(view.champion))))
        for name, codes in view.earned:
            line = earned_line(esc(short_name(name)), codes, lang)
            if line is not None:
                tail.append(line)
    elif not view.over:
        tail.append(tr(lang, "tourney.next"))
    room = budget - sum(len(line) + 1 for line in (title, *tail)) - 2
    return [title, *standings_lines(view.standings, lang, room), *([""] if tail else []), *tail]


def render_tourney_stop(view: TourneyView, lang: Lang) -> str:
    """The group message when a tournament was stopped (/cancel) or ended between two
    games (too few players left): what was played, the standings so far, the champion if
    it ended rather than was stopped (its last game over, its end not yet told: a restart
    came between the two)."""
    if view.early is None and view.champion is None:
        key = "tourney.cancelled" if view.played else "tourney.cancelled_none"
        head = [tr(lang, key, played=view.played, total=view.total)]
        if not view.standings:
            return head[0]
        return "\n".join([*head, "", *tourney_lines(view, lang, MAX_TEXT - len(head[0]) - 2)])
    return "\n".join(tourney_lines(view, lang))


def tourney_lobby_lines(games: int, lang: Lang) -> list[str]:
    """The lobby's tournament lines: its title with the number of games, how it scores."""
    return [
        tr(lang, "tourney.title", games=tr(lang, "tourney.games", n=games)),
        tr(lang, "tourney.scoring"),
        tr(lang, "tourney.choose"),
    ]


def tourney_games_row(
    games: int, table: int, version: int, lang: Lang, codec: cb.CallbackCodec
) -> tuple[Button, ...]:
    """The buttons choosing the number of games, the chosen one marked."""
    return tuple(
        Button.cb(
            tr(lang, "tourney.btn.chosen" if n == games else "tourney.btn.games", n=n),
            codec,
            cb.TourneyGames(table, version, n),
        )
        for n in TOURNEY_GAMES
    )
