"""Rows the store reads and writes: small frozen values, no database types leak out.

The store treats the game state, the rules and each action as opaque JSON text: it never
imports the engine. The table service turns them into engine objects and back
(``Game.from_json`` / ``game.to_json()``, ``Rules.model_validate_json`` /
``rules.model_dump_json()``, ``action_from_dict`` / ``json.dumps(action.to_dict())``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any, Final, Literal, Protocol

from bot.ratings.model import PRIVATE_TABLES


class Unset(Enum):
    """The type of :data:`UNSET`."""

    UNSET = 0


UNSET: Final = Unset.UNSET
"""Default of optional keyword arguments: leave the field as it is."""

StatsOrder = Literal["points", "durak", "games", "recent"]
"""How a chat's series is sorted: points or times durak (most first), games, or recency."""

DAY: Final = 86_400.0
"""Seconds in a day: how long a lobby nobody started is kept."""

SHARDS: Final = 64
"""Tables fall into this many shards, by their chat, and one process at a time holds each
(several processes on PostgreSQL; a single process holds them all). Never change it on a
database that processes share."""


def shard_of(chat_id: int) -> int:
    """The shard of a chat, and of every table in it: the group's for a group's tables, the
    player's private chat for his games against the computer."""
    return chat_id % SHARDS


def private_chat(table_id: int, shard: int) -> int:
    """The chat id of private table ``table_id`` (a table with no group: each player sees it
    in his private chat), in ``shard``: below every Telegram chat's id
    (:data:`~bot.ratings.model.PRIVATE_TABLES`), one per table, so that the table keeps the
    shard it was opened in (the process that opens it holds that shard)."""
    if not 0 <= shard < SHARDS:
        raise ValueError(f"no such shard: {shard}")
    return PRIVATE_TABLES - table_id * SHARDS - (-shard) % SHARDS


def is_private_chat(chat_id: int) -> bool:
    """Whether ``chat_id`` names a private table (:func:`private_chat`)."""
    return chat_id <= PRIVATE_TABLES


def shard_sql(column: str) -> str:
    """:func:`shard_of` in SQL, for SQLite and PostgreSQL alike (whose ``%`` keeps the
    dividend's sign)."""
    return f"(({column} % {SHARDS}) + {SHARDS}) % {SHARDS}"


class TableStatus(StrEnum):
    """Where a table is in its life."""

    LOBBY = "lobby"
    """Open for players; no game running."""
    PLAYING = "playing"
    """A game is running; it is loaded at start-up."""
    FINISHED = "finished"
    """The last game ended with a result (a rematch starts a new game at the same table)."""
    CANCELLED = "cancelled"
    """Closed by its creator or an admin; no result, no tally."""


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat at a table: a Telegram user, or a named computer player (``ai`` set)."""

    user_id: int | None
    name: str
    ai: str | None = None

    def __post_init__(self) -> None:
        if (self.user_id is None) == (self.ai is None):
            raise ValueError("a seat is either a user (user_id) or a computer player (ai)")

    @property
    def player(self) -> str:
        """The key the series tallies use: ``u:<user id>`` or ``ai:<name>``."""
        return f"u:{self.user_id}" if self.user_id is not None else f"ai:{self.name}"

    @classmethod
    def human(cls, user_id: int, name: str) -> Seat:
        """A seat for a Telegram user."""
        return cls(user_id=user_id, name=name)

    @classmethod
    def computer(cls, name: str, ai: str) -> Seat:
        """A seat for a computer player of kind ``ai`` shown as ``name``."""
        return cls(user_id=None, name=name, ai=ai)


def seats_to_json(seats: Sequence[Seat]) -> str:
    """Encode seats as the JSON list of objects kept in the database."""
    return json.dumps(
        [{"user_id": s.user_id, "name": s.name, "ai": s.ai} for s in seats],
        ensure_ascii=False,
        separators=(",", ":"),
    )


def seats_from_json(text: str) -> tuple[Seat, ...]:
    """Decode seats written by :func:`seats_to_json`."""
    items: list[dict[str, Any]] = json.loads(text)
    return tuple(Seat(d["user_id"], d["name"], d.get("ai")) for d in items)


@dataclass(frozen=True, slots=True)
class ChatRow:
    """A group (or private chat) the bot works in, and its settings."""

    chat_id: int
    language: str | None = None
    default_rules: str | None = None
    """Rules JSON new lobbies start from, or None for the bot's default."""
    thread_id: int | None = None
    """The forum topic the bot last worked in, if the group is a forum."""


@dataclass(frozen=True, slots=True)
class UserRow:
    """A Telegram user the bot has seen."""

    user_id: int
    name: str
    language: str | None = None
    can_message: bool = False
    """Whether the user started a private chat with the bot (hands can be sent)."""


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table: its lobby, its current game and where its messages are."""

    table_id: int
    chat_id: int
    thread_id: int | None
    status: TableStatus
    creator_id: int | None
    seats: tuple[Seat, ...]
    rules: str
    """Rules JSON (opaque to the store)."""
    game_no: int
    """1 for the table's first game, 2 for a rematch, ...; 0 while no game has started."""
    seed: int | None
    """Seed of the current game: with the action log it replays the game."""
    game: str | None
    """Game state JSON of the current (or last) game; None before the first game."""
    version: int
    """Bumped by every compare-and-set write; callback buttons carry it."""
    moves: int
    """Actions logged in the current game (the last action's sequence number)."""
    group_message_id: int | None
    hand_message_ids: tuple[int | None, ...]
    """The private hand message of each seat, by seat index."""
    deadline: float | None
    """Unix time at which the table's timer fires, or None."""
    created_at: float
    updated_at: float


@dataclass(frozen=True, slots=True)
class Saved:
    """What a successful action save wrote."""

    version: int
    """The table's new version."""
    seq: int
    """The action's sequence number within its game (1, 2, ...)."""
    earned: tuple[tuple[int, str], ...] = ()
    """The achievements the game's end gave: ``(user id, code)`` of each."""


@dataclass(frozen=True, slots=True)
class AchievementRow:
    """An achievement a player earned."""

    code: str
    earned_at: float
    game_id: int | None
    """The game that gave it: its place in the rating order (None: a tournament's)."""


@dataclass(frozen=True, slots=True)
class KeptUpdate:
    """An update from Telegram as the inbox keeps it until it is handled."""

    update_id: int
    body: str
    """The update's JSON as Telegram sent it (opaque to the store)."""
    shard: int = 0
    """The shard of the table or chat it is for: its holder handles it."""


@dataclass(frozen=True, slots=True)
class ActionRow:
    """One line of the append-only action log."""

    table_id: int
    game_no: int
    seq: int
    seat: int | None
    action: str
    """Action JSON (opaque to the store)."""
    at: float


class ResultLike(Protocol):
    """What :meth:`Outcome.from_result` reads from the engine's ``Result``."""

    @property
    def durak(self) -> int | None: ...
    @property
    def durak_team(self) -> tuple[int, ...] | None: ...
    @property
    def draw(self) -> bool: ...
    @property
    def pogony(self) -> bool: ...
    @property
    def finish_order(self) -> tuple[int, ...]: ...
    @property
    def points(self) -> tuple[int, ...]: ...


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended, as the series tallies count it."""

    durak_seats: tuple[int, ...]
    """The durak's seat, or every seat of the losing team; empty for a draw."""
    draw: bool
    pogony: bool
    """The durak got pogony (counted for each seat in ``durak_seats``)."""
    points: tuple[int, ...]
    """Points per seat (win 2, draw 1, loss 0)."""
    finish_order: tuple[int, ...] = ()

    @classmethod
    def from_result(cls, result: ResultLike) -> Outcome:
        """Build from the engine's ``Result``."""
        if result.durak_team:
            durak_seats = tuple(result.durak_team)
        elif result.durak is not None:
            durak_seats = (result.durak,)
        else:
            durak_seats = ()
        return cls(
            durak_seats=durak_seats,
            draw=bool(result.draw),
            pogony=bool(result.pogony),
            points=tuple(result.points),
            finish_order=tuple(result.finish_order),
        )

    def to_json(self) -> str:
        """The JSON kept with the finished game."""
        return json.dumps(
            {
                "durak_seats": list(self.durak_seats),
                "draw": self.draw,
                "pogony": self.pogony,
                "points": list(self.points),
                "finish_order": list(self.finish_order),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> Outcome:
        """Decode :meth:`to_json`."""
        d: dict[str, Any] = json.loads(text)
        return cls(
            durak_seats=tuple(d["durak_seats"]),
            draw=d["draw"],
            pogony=d["pogony"],
            points=tuple(d["points"]),
            finish_order=tuple(d["finish_order"]),
        )


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game played at a table: enough to replay it with the action log."""

    table_id: int
    game_no: int
    chat_id: int
    seed: int
    rules: str
    seats: tuple[Seat, ...]
    started_at: float
    finished_at: float | None
    outcome: Outcome | None
    final_game: str | None
    """The game state JSON at the end (None while running or if cancelled)."""


@dataclass(frozen=True, slots=True)
class TallyRow:
    """A player's series in one chat."""

    chat_id: int
    player: str
    """``u:<user id>`` or ``ai:<name>``, as :attr:`Seat.player`."""
    user_id: int | None
    name: str
    games: int
    durak: int
    pogony: int
    draws: int
    points: int
    last_played: float | None


@dataclass(frozen=True, slots=True)
class PlayerGame:
    """One finished game in a player's history."""

    chat_id: int
    table_id: int
    game_no: int
    seat: int
    players: int
    durak: bool
    pogony: bool
    draw: bool
    points: int
    finished_at: float


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A player's rating in one scope: a group (its chat id), overall (0) or against the
    computer (1); see :mod:`bot.ratings.model`."""

    scope: int
    user_id: int
    name: str
    """His name now (as last seen), else as he sat at his last counted game."""
    mu: float
    sigma: float
    games: int
    """Counted games behind the rating."""
    durak: int
    """Of those, the games he (or his team) lost."""
    updated_at: float


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A player's rating in one scope after one counted game."""

    scope: int
    seq: int
    """The game's place in the rating order (the same game has the same in every scope)."""
    at: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class PartnerRow:
    """Another player who sat on a user's team in counted team games."""

    user_id: int
    name: str
    games: int
    """Counted team games they played on one team."""
    won: int
    """Of those, the games their team did not lose."""


@dataclass(frozen=True, slots=True)
class Waiting:
    """A player in the queue for a quick game."""

    user_id: int
    name: str
    lang: str
    rating: float
    """His overall skill (``mu``) when he came: players of close skill are paired first."""
    since: float
    """When he came (Unix time): the longer he waits, the wider the skills he accepts."""
    offer_at: float
    """When he is offered a game against the computer (if still alone)."""
    offered: bool
    message_id: int | None
    """His waiting message in his private chat (None until it is sent)."""
    last_opponent: int | None
    """Whom he played his last quick game against."""


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game to deal at once at a new private table: what :meth:`Store.quick_round` saves
    for a pair it takes out of the queue."""

    rules: str
    seats: tuple[Seat, ...]
    seed: int
    game: str
    deadline: float | None
    shard: int
    """The shard the table is opened in: one the opening process holds."""


@dataclass(frozen=True, slots=True)
class QuickRound:
    """What one pass over the queue did: the tables it dealt (each with the two players
    taken out of the queue, in seat order) and the players it now offers a game against the
    computer."""

    dealt: tuple[tuple[TableRow, tuple[Waiting, ...]], ...] = ()
    offered: tuple[Waiting, ...] = ()


@dataclass(frozen=True, slots=True)
class Invitation:
    """An invitation posted through inline mode, and the private table its first press
    opened: the message is known by ``inline_message_id`` alone."""

    inline_message_id: str
    table_id: int
    lang: str
    """The language it is drawn in (its inviter's)."""
    game: str
    size: int
    """The players it invites (the game starts when that many are seated)."""
    inviter: int


@dataclass(frozen=True, slots=True)
class SeasonRow:
    """A player's season in a group: his games there in it, how often durak, and his group
    rating as shown at its start (or a newcomer's) and at its end."""

    user_id: int
    name: str
    games: int
    durak: int
    before: int
    after: int

    @property
    def change(self) -> int:
        """How much his shown rating moved in the season."""
        return self.after - self.before


class TourneyStatus(StrEnum):
    """Where a tournament is in its life."""

    OPEN = "open"
    """Signing up: its table is a lobby."""
    RUNNING = "running"
    """Started: its games follow one another at its table."""
    DONE = "done"
    """Over: every game played, or ended early (fewer than two players left)."""
    CANCELLED = "cancelled"
    """Stopped by /cancel: the games played stay, nobody is champion."""


@dataclass(frozen=True, slots=True)
class Tourney:
    """A tournament at a table: ``games`` games there, one after another, scored by the
    order players go out. Its standings come from its games' stored results (the table's
    games ``first_game`` .. ``first_game + games - 1``)."""

    table_id: int
    chat_id: int
    games: int
    status: TourneyStatus
    first_game: int
    """The table's game number of its first game (0 before it started)."""
    gone: tuple[str, ...]
    """The players (``u:<id>``, ``ai:<name>``) who left it: they score nothing more."""
    champion: str | None
    """The winner's player key, once it is over (None: not over, cancelled, or no games)."""
    champion_user: int | None
    champion_name: str | None
    created_at: float
    finished_at: float | None

    @property
    def last_game(self) -> int:
        """The table's game number of its last game."""
        return self.first_game + self.games - 1


@dataclass(frozen=True, slots=True)
class TourneyEnded:
    """A tournament just ended, by the call that returns this."""

    awarded: tuple[int, ...] = ()
    """The champions (people) who earned the tournament's achievement in that transaction:
    those who had not had it before. Only this call knows: the end message shows it
    once."""


@dataclass(frozen=True, slots=True)
class TourneyWin:
    """A tournament won: by ``player`` in ``chat_id`` at ``at`` (its table ``table_id``)."""

    chat_id: int
    table_id: int
    user_id: int | None
    """The champion's user id; None: a computer player won it."""
    name: str
    at: float
    player: str = ""
    """The champion's key, as the series tallies have it: ``u:<id>`` or ``ai:<name>``."""
