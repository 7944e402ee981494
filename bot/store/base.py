"""The storage interface the bot programs against.

:class:`~bot.store.sqlite.SqliteStore` implements it on a SQLite file, for one process;
:class:`~bot.store.postgres.PostgresStore` on a PostgreSQL database, the same tables and
the same guarantees, the ground for several processes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Protocol

from bot.store.models import (
    DAY,
    UNSET,
    AchievementRow,
    ActionRow,
    ChatRow,
    GameRecord,
    Invitation,
    KeptUpdate,
    NewGame,
    Outcome,
    PartnerRow,
    PlayerGame,
    QuickRound,
    RatingPoint,
    RatingRow,
    Saved,
    SeasonRow,
    Seat,
    StatsOrder,
    TableRow,
    TableStatus,
    TallyRow,
    Tourney,
    TourneyEnded,
    TourneyStatus,
    TourneyWin,
    Unset,
    UserRow,
    Waiting,
)


class Store(Protocol):
    """Chats, users, tables, the action log, the series tallies, the ratings and the inbox
    of updates.

    Writes that change a table's game or lobby are compare-and-set on the table's
    version: a stale version is refused with :class:`~bot.store.errors.StaleVersionError`
    and nothing is written. A write given ``update_id`` (the inbox's update it handles)
    marks that update done in the same transaction.
    """

    async def close(self) -> None:
        """Finish the running write and release the database."""
        ...

    async def get_chat(self, chat_id: int) -> ChatRow | None:
        """The chat's settings, or None."""
        ...

    async def save_chat(self, chat: ChatRow) -> None:
        """Insert or replace the chat's settings."""
        ...

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """Move a group's tables, games and tallies to its new (supergroup) id."""
        ...

    async def leave_topic(self, chat_id: int, thread_id: int) -> None:
        """Move the tables of a deleted forum topic to the group's general chat."""
        ...

    async def get_user(self, user_id: int, *, fresh: bool = False) -> UserRow | None:
        """The user, or None; ``fresh``: as the database holds it now, not as this process
        last knew it (another process may have written it)."""
        ...

    async def get_users(self, user_ids: Iterable[int]) -> dict[int, UserRow]:
        """The known users among ``user_ids``."""
        ...

    async def save_user(self, user: UserRow, *, keep_can_message: bool = False) -> UserRow:
        """Insert or replace the user; the row as stored. ``keep_can_message``: a known
        user's ``can_message`` stays as the database has it (another process may have
        just recorded his /start), only his name and language change."""
        ...

    async def set_can_message(self, user_id: int, can_message: bool) -> None:
        """Record whether the bot can message the user privately."""
        ...

    async def earlier_private_update(self, user_id: int, update_id: int) -> bool:
        """Whether an update of the user's private chat with the bot older than
        ``update_id`` (a message, his /start among them, or his blocking or unblocking the
        bot) is kept in the inbox and not done yet."""
        ...

    async def create_table(
        self,
        chat_id: int,
        *,
        rules: str,
        thread_id: int | None = None,
        creator_id: int | None = None,
        seats: Sequence[Seat] = (),
    ) -> TableRow:
        """Open a lobby."""
        ...

    async def get_table(self, table_id: int) -> TableRow | None:
        """The table, or None."""
        ...

    async def table_chat(self, table_id: int) -> int | None:
        """The chat of a table (None: no such table), read alone."""
        ...

    async def playing_tables_of(self, user_id: int) -> list[tuple[int, int]]:
        """(table id, chat id) of every table where ``user_id`` is seated at a running game."""
        ...

    async def running_tables(self, shards: Collection[int] | None = None) -> list[TableRow]:
        """Every table with a game in progress (in ``shards`` only, if given:
        :func:`~bot.store.models.shard_of` its chat)."""
        ...

    async def chat_tables(
        self,
        chat_id: int,
        statuses: Iterable[TableStatus] = (TableStatus.LOBBY, TableStatus.PLAYING),
    ) -> list[TableRow]:
        """The chat's tables in the given statuses."""
        ...

    async def latest_table(self, chat_id: int, thread_id: int | None) -> int | None:
        """The id of the chat's (or topic's) newest table, whatever its status."""
        ...

    async def update_lobby(
        self,
        table_id: int,
        expected_version: int,
        *,
        seats: Sequence[Seat] | Unset = UNSET,
        rules: str | Unset = UNSET,
        thread_id: int | Unset | None = UNSET,
        creator_id: int | Unset | None = UNSET,
        reopen: bool = False,
    ) -> int:
        """Change seats, rules or the creator (compare-and-set); the new version.
        ``reopen`` turns a finished table back into a lobby (a rematch), with no messages
        of its own yet."""
        ...

    async def start_game(
        self,
        table_id: int,
        expected_version: int,
        *,
        seed: int,
        game: str,
        deadline: float | None = None,
        update_id: int | None = None,
    ) -> TableRow:
        """Start the next game (compare-and-set)."""
        ...

    async def save_action(
        self,
        table_id: int,
        expected_version: int,
        *,
        game: str,
        action: str,
        seat: int | None,
        deadline: float | None = None,
        outcome: Outcome | None = None,
        update_id: int | None = None,
        feats: Sequence[int] | None = None,
    ) -> Saved:
        """New state + log line (+ result, tallies, rating and achievements; ``feats``:
        what the log says of each seat) in one compare-and-set transaction."""
        ...

    async def cancel_table(self, table_id: int, expected_version: int) -> int:
        """Close a lobby or stop a game without a result (compare-and-set)."""
        ...

    async def set_messages(
        self,
        table_id: int,
        *,
        group_message_id: int | Unset | None = UNSET,
        hand_message_ids: Sequence[int | None] | Unset = UNSET,
    ) -> None:
        """Record the table's message ids."""
        ...

    async def set_deadline(self, table_id: int, deadline: float | None) -> None:
        """Set or clear the table's timer."""
        ...

    async def purge_stale_lobbies(self, max_age: float = DAY) -> list[TableRow]:
        """Remove lobbies never started within ``max_age`` seconds; the removed tables."""
        ...

    async def game_log(self, table_id: int, game_no: int) -> list[ActionRow]:
        """A game's actions in order."""
        ...

    async def game_record(self, table_id: int, game_no: int) -> GameRecord | None:
        """A game's seed, rules, seats and outcome."""
        ...

    async def chat_games(self, chat_id: int, *, finished_only: bool = True) -> list[GameRecord]:
        """The chat's games, oldest first."""
        ...

    async def chat_stats(self, chat_id: int, by: StatsOrder = "points") -> list[TallyRow]:
        """The chat's series, sorted."""
        ...

    async def player_tallies(self, user_id: int) -> list[TallyRow]:
        """The user's series in every chat."""
        ...

    async def player_history(self, user_id: int, limit: int = 20) -> list[PlayerGame]:
        """The user's last finished games across chats."""
        ...

    async def ratings_of(self, scope: int, user_ids: Iterable[int]) -> dict[int, RatingRow]:
        """These users' ratings in one scope (a group's chat id, 0 overall, 1 against the
        computer); users with no counted game there are missing."""
        ...

    async def rating_board(self, scope: int, limit: int = 10) -> list[RatingRow]:
        """A scope's best ``limit`` ratings, best first (by ``mu - 3 sigma``)."""
        ...

    async def rating_place(self, scope: int, user_id: int) -> int | None:
        """A user's place on a scope's board (1 is the best), or None."""
        ...

    async def player_ratings(self, user_id: int) -> list[RatingRow]:
        """A user's ratings in every scope."""
        ...

    async def rating_history(self, user_id: int, scopes: Iterable[int]) -> list[RatingPoint]:
        """A user's rating after each of his counted games in these scopes, in order."""
        ...

    async def partners(self, user_id: int) -> list[PartnerRow]:
        """Who sat on a user's team in his counted team games, and how they did."""
        ...

    async def rebuild_ratings(self) -> tuple[int, int]:
        """Rate every finished game again from scratch, in order; (games that counted,
        games finished).
        (Each finished game is rated as its result is saved, in the same transaction.)"""
        ...

    async def achievements_of(self, user_id: int) -> list[AchievementRow]:
        """The achievements a user earned, oldest first."""
        ...

    async def finished_games(
        self, after: tuple[int, int] = (0, 0), limit: int = 1000
    ) -> list[GameRecord]:
        """Finished games by table and number, from just after ``after``: a page."""
        ...

    async def rebuild_achievements(
        self, feats: Mapping[tuple[int, int, int], int] | None = None
    ) -> tuple[int, int]:
        """Give every achievement a game gives again from scratch, in the rating order,
        after writing ``feats`` (by table, game, seat) if given; (players, achievements).
        (Each finished game gives them as its result is saved, in the same transaction.)"""
        ...

    async def award_tournament(
        self, user_ids: Collection[int], at: float, game_id: int | None = None
    ) -> list[int]:
        """Give a tournament's champions its achievement; those who had not had it."""
        ...

    async def get_review(self, table_id: int, game_no: int, user_id: int) -> str | None:
        """The coach's review (JSON, opaque to the store) of a game for one viewer."""
        ...

    async def save_review(
        self, table_id: int, game_no: int, user_id: int, seat: int, review: str
    ) -> None:
        """Keep the coach's review of a game for one viewer (the first one kept wins)."""
        ...

    async def get_state(self, key: str) -> str | None:
        """What the bot keeps about itself under ``key`` (opaque to the store), or None."""
        ...

    async def set_state(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key``, replacing what was kept there."""
        ...

    async def keep_updates(self, updates: Sequence[KeptUpdate]) -> list[int]:
        """Keep updates as they arrive, all in one transaction (before Telegram is told
        they arrived); the ids of those not kept before (a redelivered one is kept once)."""
        ...

    async def pending_updates(self, shards: Collection[int] | None = None) -> list[KeptUpdate]:
        """The kept updates not done yet (of ``shards`` only, if given), in the order
        Telegram numbered them."""
        ...

    async def forward_update(self, update_id: int, shard: int) -> bool:
        """Hand a kept update not done yet to another shard (its table's chat changed since
        it was kept); whether it was."""
        ...

    async def finish_update(self, update_id: int) -> None:
        """An update has been handled."""
        ...

    async def prune_updates(self, max_age: float = DAY) -> int:
        """Forget the updates done more than ``max_age`` seconds ago (Telegram redelivers
        none that old); how many were forgotten."""
        ...

    async def quick_enter(self, waiting: Waiting) -> bool:
        """Put a player in the queue for a quick game; False if he is in it already."""
        ...

    async def quick_waiting(self, user_id: int) -> Waiting | None:
        """The player's place in the queue, or None."""
        ...

    async def quick_leave(self, user_id: int) -> bool:
        """Take the player out of the queue; False if he was not in it."""
        ...

    async def quick_message(self, user_id: int, message_id: int) -> bool:
        """Remember the player's waiting message; False if he is no longer waiting."""
        ...

    async def quick_wait_more(self, user_id: int, offer_at: float) -> bool:
        """He keeps waiting: offered a game against the computer again at ``offer_at``."""
        ...

    async def quick_round(
        self,
        pair: Callable[
            [Sequence[Waiting], Collection[tuple[int, int]], float],
            Iterable[tuple[Waiting, Waiting]],
        ],
        deal: Callable[[Waiting, Waiting], NewGame],
    ) -> QuickRound:
        """One pass over the queue in one transaction: pairs dealt at new private tables,
        lone players offered a game against the computer."""
        ...

    async def block(self, user_id: int, blocked_id: int) -> None:
        """``user_id`` is never paired with ``blocked_id`` again."""
        ...

    async def blocked(self, user_id: int) -> list[int]:
        """Whom ``user_id`` has blocked."""
        ...

    async def invitation(self, inline_message_id: str) -> Invitation | None:
        """The invitation and the table it opened (None: nobody pressed it yet)."""
        ...

    async def invitation_of(self, table_id: int) -> Invitation | None:
        """The invitation that shows a table (None: none does)."""
        ...

    async def open_invitation(
        self, invitation: Invitation, shard: int, rules: str, creator: Seat
    ) -> tuple[Invitation, TableRow]:
        """The private table an invitation shows, opened by its first press (once)."""
        ...

    async def season(self, chat_id: int, since: float, until: float) -> list[SeasonRow]:
        """Each player's season in a group, the one whose rating rose most first."""
        ...

    async def season_to_tell(self, chat_id: int, season: str) -> bool:
        """Whether the group is yet to be told of the season before ``season`` (once)."""
        ...

    async def open_tourney(self, table_id: int, chat_id: int, games: int) -> Tourney:
        """A tournament of ``games`` games at a table (its lobby just opened): signing up."""
        ...

    async def tourney(self, table_id: int) -> Tourney | None:
        """The tournament at a table, if one was ever opened there."""
        ...

    async def set_tourney_games(self, table_id: int, games: int) -> bool:
        """Change the number of games while signing up; False once it started or ended."""
        ...

    async def start_tourney(self, table_id: int, first_game: int) -> bool:
        """Signing up is over: its first game is the table's game ``first_game``."""
        ...

    async def unstart_tourney(self, table_id: int) -> None:
        """Its first game could not be dealt after all: signing up again."""
        ...

    async def tourney_leave(self, table_id: int, player: str) -> Tourney | None:
        """A player left a running tournament: he scores no more."""
        ...

    async def end_tourney(
        self, table_id: int, status: TourneyStatus, champion: Seat | None = None
    ) -> TourneyEnded | None:
        """End a tournament (a champion who is a person is given the tournament's
        achievement in the same transaction): for the one call that ended it, who was
        given the achievement; None if it had ended already."""
        ...

    async def tourney_games(self, tourney: Tourney) -> list[GameRecord]:
        """A tournament's games with a result, in order."""
        ...

    async def tourneys_between(
        self, shards: Collection[int] | None = None, chat_id: int | None = None
    ) -> list[TableRow]:
        """The tables of running tournaments between two games."""
        ...

    async def tourney_wins(
        self, *, chat_id: int | None = None, user_id: int | None = None
    ) -> list[TourneyWin]:
        """The tournaments won (by people and computer players), in ``chat_id`` and by
        ``user_id`` if given, oldest first: who won, where, when."""
        ...
