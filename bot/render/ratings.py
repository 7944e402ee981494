"""Ratings on screen: /top, /me (its text and the words of its chart), and the ratings and
odds of the seated players in the lobby and a table's first message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.base.i18n import Lang, tr
from bot.ratings.model import PROVISIONAL_GAMES, Skill
from bot.ratings.odds import Odds, SeatRating
from bot.service import callbacks as cb

from .achievements import AchievementLike, me_achievement_lines
from .common import Button, Keyboard, Player, esc, name_of, short_name

__all__ = [
    "MePage",
    "PartnerLike",
    "RatingLike",
    "SeasonLike",
    "lobby_odds_lines",
    "rating_text",
    "render_me",
    "render_season",
    "render_season_over",
    "render_top",
    "season_name",
    "table_odds_lines",
    "top_keyboard",
]

_TEAM_LETTERS = "ABC"
TOP = 10
"""Players a group's /top shows."""


class RatingLike(Protocol):
    """A player's rating in one scope (``bot.store.RatingRow`` fits)."""

    @property
    def user_id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def mu(self) -> float: ...
    @property
    def sigma(self) -> float: ...
    @property
    def games(self) -> int: ...
    @property
    def durak(self) -> int: ...


class SeasonLike(Protocol):
    """A player's season in a group (``bot.store.SeasonRow`` fits)."""

    @property
    def name(self) -> str: ...
    @property
    def games(self) -> int: ...
    @property
    def durak(self) -> int: ...
    @property
    def change(self) -> int: ...


class PartnerLike(Protocol):
    """A team partner's record (``bot.store.PartnerRow`` fits)."""

    @property
    def name(self) -> str: ...
    @property
    def games(self) -> int: ...
    @property
    def won(self) -> int: ...


def rating_text(lang: Lang, rating: int, provisional: bool) -> str:
    """``1523``, or ``1012?`` while provisional."""
    return tr(lang, "rating.provisional", rating=rating) if provisional else str(rating)


def _shown(lang: Lang, row: RatingLike) -> str:
    skill = Skill(row.mu, row.sigma)
    return rating_text(lang, skill.shown, row.games < PROVISIONAL_GAMES)


def _figures(lang: Lang, row: RatingLike) -> dict[str, str]:
    percent = round(100 * row.durak / row.games) if row.games else 0
    return {
        "rating": _shown(lang, row),
        "games": tr(lang, "rating.games", n=row.games),
        "durak": tr(lang, "rating.durak", percent=percent),
    }


def _name(row: RatingLike) -> str:
    return esc(short_name(row.name))


def render_top(
    board: Sequence[RatingLike],
    lang: Lang,
    chat_title: str = "",
    me: RatingLike | None = None,
    my_place: int | None = None,
) -> str:
    """A group's /top: its best players (``board``, best first) with rating, games and
    how often durak, and the caller's own line below if he is not among them."""
    title = (
        tr(lang, "rating.top_title", chat=esc(short_name(chat_title, 40)))
        if chat_title
        else tr(lang, "rating.top_title_plain")
    )
    if not board:
        return "\n".join([title, "", tr(lang, "rating.top_empty")])
    lines = [title, ""]
    mine = me.user_id if me is not None else None
    for place, row in enumerate(board[:TOP], 1):
        key = "rating.top_me" if row.user_id == mine else "rating.top_line"
        lines.append(tr(lang, key, place=place, name=_name(row), **_figures(lang, row)))
    shown_ids = {row.user_id for row in board[:TOP]}
    if me is not None and my_place is not None and me.user_id not in shown_ids:
        if my_place > len(shown_ids) + 1:
            lines.append(tr(lang, "rating.top_gap"))
        lines.append(
            tr(lang, "rating.top_me", place=my_place, name=_name(me), **_figures(lang, me))
        )
    lines += ["", tr(lang, "rating.footer")]
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class MePage:
    """What /me shows besides the chart."""

    name: str
    """The player's name (raw)."""
    here: tuple[str, RatingLike | None, int | None] | None = None
    """In a group: its title, his rating there (None: no counted game yet) and his place."""
    groups: tuple[tuple[str, RatingLike], ...] = ()
    """In private: his groups (title, rating), most recently played first."""
    overall: RatingLike | None = None
    computer: RatingLike | None = None
    best: PartnerLike | None = None
    worst: PartnerLike | None = None
    tourneys: int = 0
    """Tournaments he won (in this group; in private, everywhere)."""
    achievements: Sequence[AchievementLike] | None = None
    """His achievements (None: not shown)."""


def _partner_rank(p: PartnerLike) -> tuple[float, int]:
    return (p.won / p.games if p.games else 0.0, p.games)


def best_and_worst(
    partners: Sequence[PartnerLike],
) -> tuple[PartnerLike | None, PartnerLike | None]:
    """The partner he won most often with, and the one he won least often with (by share
    of games won together, then by games; None where there is nobody, or nobody else)."""
    if not partners:
        return None, None
    ranked = sorted(partners, key=lambda p: (_partner_rank(p), p.name))
    best = ranked[-1]
    worst = ranked[0] if len(ranked) > 1 else None
    return best, worst


def render_me(page: MePage, lang: Lang) -> str:
    """The /me text: his ratings (this group / his groups, overall, against the
    computer), the games behind each and how often he was durak, his best and worst
    partner in team games."""
    name = esc(short_name(page.name))
    rows = [page.overall, page.computer, *(row for _, row in page.groups)]
    here_row = page.here[1] if page.here is not None else None
    earned = (
        ["", *me_achievement_lines(page.achievements, lang)]
        if page.achievements is not None
        else []
    )
    if here_row is None and not any(rows):
        return "\n".join([tr(lang, "rating.me_empty", name=name), *earned])
    lines = [tr(lang, "rating.me_title", name=name), ""]
    if page.here is not None:
        title, row, place = page.here
        chat = esc(short_name(title or tr(lang, "rating.some_group"), 40))
        if row is None:
            lines.append(tr(lang, "rating.me_none_here", chat=chat))
        else:
            lines.append(
                tr(lang, "rating.me_here", chat=chat, place=place or "?", **_figures(lang, row))
            )
    for title, row in page.groups:
        chat = esc(short_name(title or tr(lang, "rating.some_group"), 40))
        lines.append(tr(lang, "rating.me_group", chat=chat, **_figures(lang, row)))
    if page.overall is not None:
        lines.append(tr(lang, "rating.me_overall", **_figures(lang, page.overall)))
    if page.computer is not None:
        lines.append(tr(lang, "rating.me_computer", **_figures(lang, page.computer)))
    if page.tourneys:
        lines.append(tr(lang, "tourney.me_wins", n=page.tourneys))
    for key, partner in (("rating.me_best", page.best), ("rating.me_worst", page.worst)):
        if partner is not None:
            lines.append(
                tr(
                    lang,
                    key,
                    name=esc(short_name(partner.name)),
                    won=partner.won,
                    n=partner.games,
                )
            )
    lines += earned
    lines += ["", tr(lang, "rating.footer")]
    return "\n".join(lines)


def _percent(chance: float) -> int:
    return round(100 * chance)


def _rating(lang: Lang, seat: SeatRating) -> str:
    return rating_text(lang, seat.rating, seat.provisional)


def lobby_odds_lines(
    odds: Odds, players: Sequence[Player], lang: Lang, names: Sequence[str]
) -> list[str]:
    """The lobby's seat lines with each rating and chance not to be the durak (``names``:
    the seat names as the lobby writes them), then the note saying what the figures are,
    and the teams' chances in a team game."""
    lines = [
        tr(
            lang,
            "lobby.seat_rated",
            i=i + 1,
            name=names[i],
            rating=_rating(lang, odds.seats[i]),
            chance=_percent(odds.chances[i]),
        )
        for i in range(min(len(players), len(odds.seats)))
    ]
    if odds.teams is not None:
        teams = ", ".join(
            tr(lang, "lobby.odds_team", team=_TEAM_LETTERS[t % 3], chance=_percent(c))
            for t, c in enumerate(odds.teams)
        )
        lines.append(tr(lang, "lobby.odds_teams", list=teams))
    note = "lobby.odds_note_computer" if odds.against_computer else "lobby.odds_note"
    lines.append(tr(lang, note))
    return lines


def table_odds_lines(
    odds: Odds, players: Sequence[Player], lang: Lang, teams: Sequence[int] | None = None
) -> list[str]:
    """A table's first message: each player's rating and chance not to be the durak, or
    each team's chance not to lose (``teams``: the team of each seat)."""
    lines = [tr(lang, "table.odds_title")]
    if teams is not None and odds.teams is not None:
        for t, chance in enumerate(odds.teams):
            members = ", ".join(
                f"{name_of(players, s)} {_rating(lang, odds.seats[s])}"
                for s in range(len(players))
                if s < len(teams) and teams[s] == t
            )
            lines.append(
                tr(
                    lang,
                    "table.odds_team",
                    team=_TEAM_LETTERS[t % 3],
                    names=members,
                    chance=_percent(chance),
                )
            )
        return lines
    for s in range(min(len(players), len(odds.seats))):
        lines.append(
            tr(
                lang,
                "table.odds_seat",
                name=name_of(players, s),
                rating=_rating(lang, odds.seats[s]),
                chance=_percent(odds.chances[s]),
            )
        )
    return lines


def season_name(lang: Lang, year: int, month: int) -> str:
    """A season's name: its month and year (``December 2026``, ``декабрь 2026``)."""
    return tr(lang, f"season.month.{month}", year=year)


def render_season(
    rows: Sequence[SeasonLike], lang: Lang, season: str, chat_title: str = "", top: int = TOP
) -> str:
    """A group's season on /top: its players by how much their rating moved in it (best
    first), with their games and how often durak."""
    title = (
        tr(lang, "season.title", chat=esc(short_name(chat_title, 40)), season=season)
        if chat_title
        else tr(lang, "season.title_plain", season=season)
    )
    if not rows:
        return "\n".join([title, "", tr(lang, "season.empty")])
    lines = [title, ""]
    for place, row in enumerate(rows[:top], 1):
        lines.append(
            tr(
                lang,
                "season.line",
                place=place,
                name=esc(short_name(row.name)),
                change=f"{row.change:+d}",
                games=tr(lang, "rating.games", n=row.games),
                durak=tr(lang, "season.durak", n=row.durak),
            )
        )
    lines += ["", tr(lang, "season.footer")]
    return "\n".join(lines)


def render_season_over(rows: Sequence[SeasonLike], lang: Lang, season: str) -> str:
    """The line a group reads at the first message of a new month: last season's best."""
    best = rows[: min(3, len(rows))]
    names = ", ".join(f"{esc(short_name(r.name))} ({r.change:+d})" for r in best)
    return tr(lang, "season.over", season=season, names=names)


def top_keyboard(lang: Lang, codec: cb.CallbackCodec, *, season: bool) -> Keyboard:
    """/top's button to the other view: all time from the season, the season from all time."""
    if season:
        return Keyboard.of([[Button.cb(tr(lang, "season.btn.all"), codec, cb.Top("all"))]])
    return Keyboard.of([[Button.cb(tr(lang, "season.btn.season"), codec, cb.Top("season"))]])
