"""The store's logic, written once for both databases: :class:`SqlStore`.

Every query and every transaction of the :class:`~bot.store.base.Store` interface is here,
in the SQL SQLite and PostgreSQL share, with ``?`` placeholders; a transaction of several
statements is a body (:mod:`bot.store.steps`) that the database's driver runs. What a
database says differently comes from its :class:`~bot.store.dialect.Dialect`. A backend
(:class:`~bot.store.sqlite.SqliteStore`, :class:`~bot.store.postgres.PostgresStore`)
subclasses :class:`SqlStore` with its dialect and four ways to reach its database:
:meth:`SqlStore._fetch` (one read), :meth:`SqlStore._write_one` (one write statement, a
transaction of its own), :meth:`SqlStore._write` (a body in one transaction, committed
before it returns, whole even if its caller is cancelled) and :meth:`SqlStore._tell`
(what other processes are told in a transaction; nothing on SQLite).

Writes that change a table's game or lobby are compare-and-set on the table's version.
The hot path, saving an action, is one statement: a compare-and-set ``UPDATE`` of the
table row whose ``log_action`` trigger appends the log line and whose ``inbox_done``
trigger marks the update it handles done.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any, ClassVar, Final, Generic, Self, TypeVar

from bot.ratings.model import NEWCOMER, OVERALL, PRIVATE_TABLES, VS_COMPUTER, Skill, shown
from bot.store import achievements, ratings
from bot.store.dialect import Dialect
from bot.store.errors import StaleVersionError, StoreError, TableNotFoundError, WrongStatusError
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
    private_chat,
    seats_from_json,
    seats_to_json,
    shard_sql,
)
from bot.store.steps import Body, Fetch, Many, Step, each

T = TypeVar("T")

log = logging.getLogger(__name__)


_TABLE_COLUMNS: Final = (
    "table_id, chat_id, thread_id, status, creator_id, seats, rules, game_no, seed, game, "
    "version, moves, group_message_id, hand_message_ids, deadline, created_at, updated_at"
)
_TABLE_COLUMNS_T: Final = ", ".join(f"t.{c.strip()}" for c in _TABLE_COLUMNS.split(","))
_TOURNEY_COLUMNS: Final = (
    "table_id, chat_id, games, status, first_game, gone, champion, champion_user, "
    "champion_name, created_at, finished_at"
)
_GAME_COLUMNS: Final = (
    "table_id, game_no, chat_id, seed, rules, seats, started_at, finished_at, outcome, final_game"
)
_TALLY_COLUMNS: Final = (
    "t.chat_id, t.player, t.user_id, coalesce(u.name, t.name), t.games, t.durak, t.pogony, "
    "t.draws, t.points, t.last_played"
)
_RATING_COLUMNS: Final = (
    "r.scope, r.user_id, coalesce(u.name, r.name), r.mu, r.sigma, r.games, r.durak, r.updated_at"
)
_BOARD_ORDER: Final = "(r.mu - 3 * r.sigma) DESC, r.games DESC, r.user_id"
"""A board: the conservative estimate first (see ``bot.ratings.model.Skill.ordinal``)."""
_STATS_ORDER: Final[dict[str, str]] = {
    "points": "t.points DESC, t.durak ASC, t.games DESC, t.player{bytewise}",
    "durak": "t.durak DESC, t.pogony DESC, t.games DESC, t.player{bytewise}",
    "games": "t.games DESC, t.points DESC, t.player{bytewise}",
    "recent": "t.last_played DESC NULLS LAST, t.player{bytewise}",
}
"""Both databases sort NULL last and a player's key by its bytes, as told."""


def _table_row(r: Sequence[Any]) -> TableRow:
    return TableRow(
        table_id=r[0],
        chat_id=r[1],
        thread_id=r[2],
        status=TableStatus(r[3]),
        creator_id=r[4],
        seats=seats_from_json(r[5]),
        rules=r[6],
        game_no=r[7],
        seed=r[8],
        game=r[9],
        version=r[10],
        moves=r[11],
        group_message_id=r[12],
        hand_message_ids=tuple(json.loads(r[13])),
        deadline=r[14],
        created_at=r[15],
        updated_at=r[16],
    )


def _tourney(r: Sequence[Any]) -> Tourney:
    return Tourney(
        table_id=int(r[0]),
        chat_id=int(r[1]),
        games=int(r[2]),
        status=TourneyStatus(r[3]),
        first_game=int(r[4]),
        gone=tuple(json.loads(r[5])),
        champion=r[6],
        champion_user=None if r[7] is None else int(r[7]),
        champion_name=r[8],
        created_at=float(r[9]),
        finished_at=None if r[10] is None else float(r[10]),
    )


def _game_record(r: Sequence[Any]) -> GameRecord:
    return GameRecord(
        table_id=r[0],
        game_no=r[1],
        chat_id=r[2],
        seed=r[3],
        rules=r[4],
        seats=seats_from_json(r[5]),
        started_at=r[6],
        finished_at=r[7],
        outcome=None if r[8] is None else Outcome.from_json(r[8]),
        final_game=r[9],
    )


def _rating_row(r: Sequence[Any]) -> RatingRow:
    return RatingRow(*r)  # _RATING_COLUMNS are its fields, in order


def _tally_row(r: Sequence[Any]) -> TallyRow:
    return TallyRow(*r)  # _TALLY_COLUMNS are its fields, in order


R = TypeVar("R")


class _RowCache(Generic[R]):
    """The chat and user rows most recently read or written, so that drawing every move
    does not ask the database for languages it already knows.

    Every write of these rows by this store updates the cache. A read that started before
    a write (``generation`` changed meanwhile) is not cached, so an older row never
    overwrites a newer one. (Several processes on PostgreSQL tell each other what they
    wrote: :meth:`bot.store.postgres.PostgresStore.row_changed`.)
    """

    __slots__ = ("_rows", "generation", "size")

    def __init__(self, size: int = 20_000) -> None:
        self._rows: OrderedDict[int, R | None] = OrderedDict()
        self.generation = 0
        self.size = size

    def get(self, key: int) -> tuple[bool, R | None]:
        """(True, row) when the row (or its absence) is known."""
        rows = self._rows
        if key not in rows:
            return False, None
        rows.move_to_end(key)
        return True, rows[key]

    def put(self, key: int, row: R | None, generation: int) -> None:
        """Remember a row read when the cache was at ``generation``."""
        if generation == self.generation:
            self._keep(key, row)

    def wrote(self, key: int, row: R) -> None:
        """A row was written: it is what the database holds now."""
        self.generation += 1
        self._keep(key, row)

    def _keep(self, key: int, row: R | None) -> None:
        self._rows[key] = row
        self._rows.move_to_end(key)
        if len(self._rows) > self.size:
            self._rows.popitem(last=False)

    def drop(self, key: int) -> None:
        """A row changed in a way the cache does not mirror: read it again next time."""
        self.generation += 1
        self._rows.pop(key, None)


def _marks(n: int) -> str:
    """``n`` placeholders, for ``IN (...)``."""
    return ",".join("?" * n)


def _among(column: str, values: Collection[int] | None) -> tuple[str | None, tuple[int, ...]]:
    """The condition (`` AND column IN (...)``, none for None) and its parameters that keep
    the rows whose ``column`` is among ``values``; None if no row can be."""
    if values is None:
        return "", ()
    wanted = tuple(sorted(set(values)))
    return (f" AND {column} IN ({_marks(len(wanted))})" if wanted else None), wanted


def _why(
    rows: Sequence[Any], table_id: int, expected: int, wanted: tuple[TableStatus, ...]
) -> StoreError:
    """Why a compare-and-set update matched no row, from the table's version and status."""
    if not rows:
        return TableNotFoundError(table_id)
    version, status = rows[0]
    if version != expected:
        return StaleVersionError(table_id, expected, version)
    return WrongStatusError(table_id, status, tuple(s.value for s in wanted))


_VERSION_AND_STATUS: Final = "SELECT version, status FROM tables WHERE table_id = ?"


def _refused(table_id: int, expected: int, wanted: tuple[TableStatus, ...]) -> Body[StoreError]:
    """Inside a transaction: why its compare-and-set update matched no row."""
    rows = yield Fetch(_VERSION_AND_STATUS, (table_id,))
    return _why(rows, table_id, expected, wanted)


class SqlStore:
    """Everything the bot keeps, over a backend's four ways to its database."""

    dialect: ClassVar[Dialect]

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._closed = False
        self._chats: _RowCache[ChatRow] = _RowCache()
        self._users: _RowCache[UserRow] = _RowCache()

    async def close(self) -> None:
        """Finish the running writes and release the database. Idempotent."""
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # ------------------------------------------------------------------ the backend's part

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the store is closed")

    async def _fetch(
        self, sql: str, params: Sequence[Any] = (), *, long: bool = False
    ) -> list[Any]:
        """One read. ``long``: it may return many rows."""
        raise NotImplementedError

    async def _write_one(
        self,
        sql: str,
        params: Sequence[Any] = (),
        *,
        told: str | None = None,
        returning: str | None = None,
    ) -> list[Any]:
        """One write statement, a transaction of its own; with ``returning`` (the columns
        of a ``RETURNING`` clause) its rows. ``told``: the chat (``c:<id>``) or user
        (``u:<id>``) row it writes, which other processes are told of."""
        raise NotImplementedError

    async def _write(self, body: Callable[[], Body[T]], *, long: bool = False) -> T:
        """Run the body ``body()`` makes in one transaction, committed before this returns,
        run to its end (or rolled back whole) even if the caller is cancelled. ``long``:
        it may take a while (it rates many games, or writes many rows)."""
        raise NotImplementedError

    def _tell(self, *rows: str) -> list[Step]:
        """Statements telling other processes, when the transaction commits, that these
        chat and user rows changed."""
        return []

    async def _cas_one(
        self,
        sql: str,
        params: Sequence[Any],
        table_id: int,
        expected: int,
        wanted: tuple[TableStatus, ...],
    ) -> Any:
        """Run a single-statement compare-and-set ``UPDATE … RETURNING``; its first row,
        or the reason it matched nothing, raised."""
        rows = await self._write_one(sql, params)
        if not rows:
            found = await self._fetch(_VERSION_AND_STATUS, (table_id,))
            raise _why(found, table_id, expected, wanted)
        return rows[0]

    # ------------------------------------------------------------------ chats and users

    async def get_chat(self, chat_id: int) -> ChatRow | None:
        """The chat's settings, or None if the bot never saved any."""
        found, row = self._chats.get(chat_id)
        if found:
            return row
        generation = self._chats.generation
        rows = await self._fetch(
            "SELECT chat_id, language, default_rules, thread_id FROM chats WHERE chat_id = ?",
            (chat_id,),
        )
        row = ChatRow(*rows[0]) if rows else None
        self._chats.put(chat_id, row, generation)
        return row

    async def save_chat(self, chat: ChatRow) -> None:
        """Insert or replace the chat's settings."""
        await self._write_one(
            "INSERT INTO chats (chat_id, language, default_rules, thread_id, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (chat_id) DO UPDATE SET "
            "language = excluded.language, default_rules = excluded.default_rules, "
            "thread_id = excluded.thread_id, updated_at = excluded.updated_at",
            (chat.chat_id, chat.language, chat.default_rules, chat.thread_id, self._clock()),
            told=f"c:{chat.chat_id}",
        )
        self._chats.wrote(chat.chat_id, chat)

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """Move everything of a group to its new id (a group upgraded to a supergroup).

        Tables, games and history follow; tallies are added to any the new id already
        has; the new id's own settings win over the old ones. One transaction.
        """
        if old_chat_id == new_chat_id:
            return
        now = self._clock()
        old, new = old_chat_id, new_chat_id

        d = self.dialect

        def body() -> Body[None]:
            yield Fetch(
                "INSERT INTO chats (chat_id, language, default_rules, thread_id, updated_at) "
                "SELECT ?, language, default_rules, thread_id, ? FROM chats WHERE chat_id = ? "
                "ON CONFLICT (chat_id) DO UPDATE SET "
                "language = coalesce(chats.language, excluded.language), "
                "default_rules = coalesce(chats.default_rules, excluded.default_rules), "
                "thread_id = coalesce(chats.thread_id, excluded.thread_id), "
                "updated_at = excluded.updated_at",
                (new, now, old),
            )
            yield Fetch("DELETE FROM chats WHERE chat_id = ?", (old,))
            # the old group's messages stay there: a table is drawn anew in the supergroup
            yield Fetch(
                "UPDATE tables SET chat_id = ?, group_message_id = NULL, thread_id = NULL "
                "WHERE chat_id = ?",
                (new, old),
            )
            for table in ("games", "game_players", "tournaments"):
                yield Fetch(f"UPDATE {table} SET chat_id = ? WHERE chat_id = ?", (new, old))
            yield Fetch(
                "INSERT INTO tallies (chat_id, player, user_id, name, games, durak, pogony, "
                "draws, points, last_played) "
                "SELECT ?, player, user_id, name, games, durak, pogony, draws, points, "
                "last_played FROM tallies WHERE chat_id = ? "
                "ON CONFLICT (chat_id, player) DO UPDATE SET "
                "games = tallies.games + excluded.games, "
                "durak = tallies.durak + excluded.durak, "
                "pogony = tallies.pogony + excluded.pogony, "
                "draws = tallies.draws + excluded.draws, "
                "points = tallies.points + excluded.points, "
                f"last_played = {d.greatest('tallies.last_played', 'excluded.last_played')}",
                (new, old),
            )
            yield Fetch("DELETE FROM tallies WHERE chat_id = ?", (old,))
            # the group's ratings follow its games: rated again under the new id, in order
            yield from each(d.hold_ratings)
            yield Fetch("DELETE FROM ratings WHERE scope = ?", (old,))
            yield Fetch("DELETE FROM rating_history WHERE scope = ?", (old,))
            yield from ratings.rebuild(d, chat_id=new)
            yield from each(self._tell(f"c:{old}", f"c:{new}"))

        try:
            await self._write(body, long=True)
        finally:
            self._chats.drop(old)
            self._chats.drop(new)

    async def leave_topic(self, chat_id: int, thread_id: int) -> None:
        """Move the tables of a deleted forum topic to the group's general chat, for good:
        their messages there are gone with the topic (bookkeeping, not versioned)."""
        await self._write_one(
            "UPDATE tables SET thread_id = NULL, group_message_id = NULL, updated_at = ? "
            "WHERE chat_id = ? AND thread_id = ?",
            (self._clock(), chat_id, thread_id),
        )

    async def get_user(self, user_id: int, *, fresh: bool = False) -> UserRow | None:
        """The user, or None if never seen; ``fresh``: read from the database."""
        found, row = self._users.get(user_id)
        if found and not fresh:
            return row
        generation = self._users.generation
        rows = await self._fetch(
            "SELECT user_id, name, language, can_message FROM users WHERE user_id = ?",
            (user_id,),
        )
        row = UserRow(rows[0][0], rows[0][1], rows[0][2], bool(rows[0][3])) if rows else None
        self._users.put(user_id, row, generation)
        return row

    async def get_users(self, user_ids: Iterable[int]) -> dict[int, UserRow]:
        """The known users among ``user_ids``, by id."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        rows = await self._fetch(
            "SELECT user_id, name, language, can_message FROM users "
            f"WHERE user_id IN ({_marks(len(ids))})",
            ids,
        )
        return {r[0]: UserRow(r[0], r[1], r[2], bool(r[3])) for r in rows}

    async def save_user(self, user: UserRow, *, keep_can_message: bool = False) -> UserRow:
        """Insert or replace the user; the row as stored. ``keep_can_message``: a known
        user's ``can_message`` is left as it is."""
        can = "users.can_message" if keep_can_message else "excluded.can_message"
        rows = await self._write_one(
            "INSERT INTO users (user_id, name, language, can_message, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
            "name = excluded.name, language = excluded.language, "
            f"can_message = {can}, updated_at = excluded.updated_at",
            (user.user_id, user.name, user.language, int(user.can_message), self._clock()),
            told=f"u:{user.user_id}",
            returning="can_message",
        )
        stored = replace(user, can_message=bool(rows[0][0])) if rows else user
        self._users.wrote(user.user_id, stored)
        return stored

    async def set_can_message(self, user_id: int, can_message: bool) -> None:
        """Record whether the bot may message the user (e.g. after /start, or a 403)."""
        try:
            rows = await self._write_one(
                "UPDATE users SET can_message = ?, updated_at = ? WHERE user_id = ?",
                (int(can_message), self._clock(), user_id),
                told=f"u:{user_id}",
                returning="user_id",
            )
        finally:
            self._users.drop(user_id)
        if not rows:
            raise StoreError(f"user {user_id} is unknown; save_user first")

    # ------------------------------------------------------------------ tables

    async def create_table(
        self,
        chat_id: int,
        *,
        rules: str,
        thread_id: int | None = None,
        creator_id: int | None = None,
        seats: Sequence[Seat] = (),
    ) -> TableRow:
        """Open a lobby (version 0) and return it with its new id."""
        now = self._clock()
        rows = await self._write_one(
            "INSERT INTO tables (chat_id, thread_id, status, creator_id, seats, rules, "
            "created_at, updated_at) VALUES (?, ?, 'lobby', ?, ?, ?, ?, ?) "
            f"RETURNING {_TABLE_COLUMNS}",
            (chat_id, thread_id, creator_id, seats_to_json(seats), rules, now, now),
        )
        return _table_row(rows[0])

    async def get_table(self, table_id: int) -> TableRow | None:
        """The table, or None."""
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS} FROM tables WHERE table_id = ?", (table_id,)
        )
        return _table_row(rows[0]) if rows else None

    async def table_chat(self, table_id: int) -> int | None:
        """The chat of a table (None: no such table), read alone."""
        rows = await self._fetch("SELECT chat_id FROM tables WHERE table_id = ?", (table_id,))
        return int(rows[0][0]) if rows else None

    async def playing_tables_of(self, user_id: int) -> list[tuple[int, int]]:
        """(table id, chat id) of every table where ``user_id`` is seated at a running game,
        by table id."""
        rows = await self._fetch(
            "SELECT table_id, chat_id FROM tables WHERE status = 'playing' AND seats LIKE ? "
            "ORDER BY table_id",
            (f'%"user_id":{int(user_id)},%',),
        )
        return [(int(r[0]), int(r[1])) for r in rows]

    async def running_tables(self, shards: Collection[int] | None = None) -> list[TableRow]:
        """Every table with a game in progress (in ``shards`` only, if given), by id: what
        start-up loads."""
        where, params = _among(shard_sql("chat_id"), shards)
        if where is None:
            return []
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS} FROM tables WHERE status = 'playing'{where} "
            "ORDER BY table_id",
            params,
            long=True,
        )
        return [_table_row(r) for r in rows]

    async def chat_tables(
        self,
        chat_id: int,
        statuses: Iterable[TableStatus] = (TableStatus.LOBBY, TableStatus.PLAYING),
    ) -> list[TableRow]:
        """The chat's tables in the given statuses (default: open lobbies and games), by id."""
        wanted = [TableStatus(s).value for s in statuses]
        if not wanted:
            return []
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS} FROM tables WHERE chat_id = ? "
            f"AND status IN ({_marks(len(wanted))}) "
            "ORDER BY table_id",
            (chat_id, *wanted),
        )
        return [_table_row(r) for r in rows]

    async def latest_table(self, chat_id: int, thread_id: int | None) -> int | None:
        """The id of the chat's (or topic's) newest table, whatever its status."""
        rows = await self._fetch(
            "SELECT max(table_id) FROM tables "
            f"WHERE chat_id = ? AND thread_id {self.dialect.same} ?",
            (chat_id, thread_id),
        )
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

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
        """Change a lobby's (or a finished table's) seats, rules or creator, compare-and-set;
        ``reopen`` turns a finished table back into a lobby (a rematch).

        Returns the new version; raises :class:`StaleVersionError` if the table is not
        at ``expected_version``.
        """
        sets = ["version = version + 1", "updated_at = ?"]
        params: list[Any] = [self._clock()]
        if not isinstance(seats, Unset):
            sets.append("seats = ?")
            params.append(seats_to_json(seats))
        if not isinstance(rules, Unset):
            sets.append("rules = ?")
            params.append(rules)
        if not isinstance(thread_id, Unset):
            sets.append("thread_id = ?")
            params.append(thread_id)
        if not isinstance(creator_id, Unset):
            sets.append("creator_id = ?")
            params.append(creator_id)
        if reopen:
            # a rematch: a lobby again, drawn in a new message below the last game's end
            sets += ["status = 'lobby'", "group_message_id = NULL", "hand_message_ids = '[]'"]
        row = await self._cas_one(
            f"UPDATE tables SET {', '.join(sets)} WHERE table_id = ? AND version = ? "
            "AND status IN ('lobby', 'finished') RETURNING version",
            (*params, table_id, expected_version),
            table_id,
            expected_version,
            (TableStatus.LOBBY, TableStatus.FINISHED),
        )
        return int(row[0])

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
        """Start the table's next game from a lobby or a finished table, compare-and-set.

        Records the game (its seed, rules and seats, so that it can be replayed) and
        returns the table, now ``playing`` with ``game_no`` one higher and no moves.
        ``update_id``: the update it handles, done in the same transaction.
        """
        now = self._clock()

        def body() -> Body[TableRow]:
            return (
                yield from _start_body(
                    table_id, expected_version, seed, game, deadline, update_id, now
                )
            )

        return await self._write(body)

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
        """Save one applied action: the new state and its log line, in one transaction.

        Compare-and-set: the table must be ``playing`` at ``expected_version``, else
        nothing is written and :class:`StaleVersionError` (or :class:`WrongStatusError`,
        :class:`TableNotFoundError`) is raised. ``deadline`` replaces the table's timer.
        With an ``outcome`` the game ends in the same transaction: the table becomes
        ``finished``, the game's result and final state are kept, and every seat's series
        tally is counted — so a finished game is never without its tally, nor counted
        twice. ``update_id``: the update the action comes from, done in the same
        transaction (the ``inbox_done`` trigger), so that it is never applied twice.
        ``feats``: what the game's log says of each seat (:mod:`bot.ratings.achievements`),
        kept with the result; the achievements the end gave are in :attr:`Saved.earned`.
        """
        now = self._clock()
        wanted = (TableStatus.PLAYING,)
        if outcome is None:
            # The hot path: one statement; the log_action trigger appends the log line.
            row = await self._cas_one(
                "UPDATE tables SET game = ?, version = version + 1, moves = moves + 1, "
                "last_seat = ?, last_action = ?, deadline = ?, updated_at = ?, last_update = ? "
                "WHERE table_id = ? AND version = ? AND status = 'playing' "
                "RETURNING version, moves",
                (game, seat, action, deadline, now, update_id, table_id, expected_version),
                table_id,
                expected_version,
                wanted,
            )
            return Saved(row[0], row[1])

        done = outcome

        def finish() -> Body[Saved]:
            rows = yield Fetch(
                "UPDATE tables SET game = ?, version = version + 1, moves = moves + 1, "
                "last_seat = ?, last_action = ?, status = 'finished', deadline = NULL, "
                "updated_at = ?, last_update = ? "
                "WHERE table_id = ? AND version = ? AND status = 'playing' "
                "RETURNING version, moves, game_no, chat_id, seats",
                (game, seat, action, now, update_id, table_id, expected_version),
            )
            if not rows:
                raise (yield from _refused(table_id, expected_version, wanted))
            version, seq, game_no, chat_id, seats_json = rows[0]
            earned = yield from self._count_result(
                table_id, game_no, chat_id, seats_from_json(seats_json), done, game, now, feats
            )
            return Saved(version, seq, tuple(earned))

        return await self._write(finish)

    def _count_result(
        self,
        table_id: int,
        game_no: int,
        chat_id: int,
        seats: tuple[Seat, ...],
        outcome: Outcome,
        final_game: str,
        now: float,
        feats: Sequence[int] | None = None,
    ) -> Body[list[tuple[int, str]]]:
        """Inside a finishing transaction: keep the result, each seat's line of history
        (with its ``feats``), add the game to each seat's series tally, rate it and give
        the achievements it earns; those ``(user id, code)``."""
        _check_outcome(outcome, len(seats))
        if feats is not None and len(feats) != len(seats):
            raise ValueError(f"feats for {len(feats)} seats at a table of {len(seats)}")
        yield Fetch(
            "UPDATE games SET finished_at = ?, outcome = ?, final_game = ? "
            "WHERE table_id = ? AND game_no = ?",
            (now, outcome.to_json(), final_game, table_id, game_no),
        )
        lines = []
        for i, s in enumerate(seats):
            lost = i in outcome.durak_seats
            counts = (int(lost), int(lost and outcome.pogony), int(outcome.draw), outcome.points[i])
            lines.append((i, s, counts))
        yield Many(
            "INSERT INTO game_players (table_id, game_no, seat, chat_id, player, user_id, "
            "players, durak, pogony, draw, points, finished_at, feats) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    table_id,
                    game_no,
                    i,
                    chat_id,
                    s.player,
                    s.user_id,
                    len(seats),
                    *counts,
                    now,
                    feats[i] if feats is not None else 0,
                )
                for i, s, counts in lines
            ],
        )
        yield Many(
            "INSERT INTO tallies (chat_id, player, user_id, name, games, durak, pogony, "
            "draws, points, last_played) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?) "
            "ON CONFLICT (chat_id, player) DO UPDATE SET "
            "user_id = excluded.user_id, name = excluded.name, games = tallies.games + 1, "
            "durak = tallies.durak + excluded.durak, "
            "pogony = tallies.pogony + excluded.pogony, "
            "draws = tallies.draws + excluded.draws, "
            "points = tallies.points + excluded.points, "
            # never back in time, whatever order two ending games are written in
            f"last_played = {self.dialect.greatest('tallies.last_played', 'excluded.last_played')}",
            [(chat_id, s.player, s.user_id, s.name, *counts, now) for _, s, counts in lines],
        )
        # The ratings move in the same transaction. A failure there must not cost the game
        # its result: the rating is rolled back alone, and --rebuild puts it right.
        yield Fetch("SAVEPOINT rating")
        try:
            yield from ratings.rate_game(self.dialect, table_id, game_no)
        except Exception:
            log.exception("table %s: game %s could not be rated", table_id, game_no)
            yield Fetch("ROLLBACK TO SAVEPOINT rating")
        yield Fetch("RELEASE SAVEPOINT rating")
        # The achievements likewise: a failure costs the game nothing else, and
        # --achievements puts it right.
        earned: list[tuple[int, str]] = []
        yield Fetch("SAVEPOINT achievements")
        try:
            earned = yield from achievements.award_game(self.dialect, table_id, game_no)
        except Exception:
            log.exception("table %s: game %s gave no achievements", table_id, game_no)
            earned = []
            yield Fetch("ROLLBACK TO SAVEPOINT achievements")
        yield Fetch("RELEASE SAVEPOINT achievements")
        return earned

    async def cancel_table(self, table_id: int, expected_version: int) -> int:
        """Close a lobby or stop a running game without a result; compare-and-set.

        No tally is counted. Returns the new version.
        """
        now = self._clock()
        wanted = (TableStatus.LOBBY, TableStatus.PLAYING)

        def body() -> Body[int]:
            rows = yield Fetch(
                "UPDATE tables SET status = 'cancelled', version = version + 1, "
                "deadline = NULL, updated_at = ? "
                "WHERE table_id = ? AND version = ? AND status IN ('lobby', 'playing') "
                "RETURNING version, game_no, game",
                (now, table_id, expected_version),
            )
            if not rows:
                raise (yield from _refused(table_id, expected_version, wanted))
            version, game_no, game = rows[0]
            yield Fetch(
                "UPDATE games SET finished_at = ?, final_game = ? "
                "WHERE table_id = ? AND game_no = ? AND finished_at IS NULL",
                (now, game, table_id, game_no),
            )
            return int(version)

        return await self._write(body)

    async def set_messages(
        self,
        table_id: int,
        *,
        group_message_id: int | Unset | None = UNSET,
        hand_message_ids: Sequence[int | None] | Unset = UNSET,
    ) -> None:
        """Record the table's group message and the hand message of each seat.

        Not versioned: message ids are bookkeeping, not game state.
        """
        sets = ["updated_at = ?"]
        params: list[Any] = [self._clock()]
        if not isinstance(group_message_id, Unset):
            sets.append("group_message_id = ?")
            params.append(group_message_id)
        if not isinstance(hand_message_ids, Unset):
            sets.append("hand_message_ids = ?")
            params.append(json.dumps(list(hand_message_ids)))
        await self._update_unversioned(table_id, sets, params)

    async def set_deadline(self, table_id: int, deadline: float | None) -> None:
        """Set (or clear, with None) the table's timer. Not versioned."""
        await self._update_unversioned(
            table_id, ["deadline = ?", "updated_at = ?"], [deadline, self._clock()]
        )

    async def _update_unversioned(self, table_id: int, sets: list[str], params: list[Any]) -> None:
        rows = await self._write_one(
            f"UPDATE tables SET {', '.join(sets)} WHERE table_id = ? RETURNING table_id",
            (*params, table_id),
        )
        if not rows:
            raise TableNotFoundError(table_id)

    async def purge_stale_lobbies(self, max_age: float = DAY) -> list[TableRow]:
        """Remove lobbies opened more than ``max_age`` seconds ago and never started (a
        rematch lobby left that long is closed, its table finished again).

        Returns the removed tables (so their lobby messages can be edited).
        """
        cutoff = self._clock() - max_age

        def body() -> Body[list[Any]]:
            removed = yield Fetch(
                "DELETE FROM tables WHERE status = 'lobby' AND game_no = 0 "
                f"AND created_at < ? RETURNING {_TABLE_COLUMNS}",
                (cutoff,),
            )
            # a rematch lobby nobody started: the table keeps its games, finished again
            closed = yield Fetch(
                "UPDATE tables SET status = 'finished', version = version + 1 "
                "WHERE status = 'lobby' AND game_no > 0 AND updated_at < ? "
                f"RETURNING {_TABLE_COLUMNS}",
                (cutoff,),
            )
            return [*removed, *closed]

        rows = await self._write(body, long=True)
        return sorted((_table_row(r) for r in rows), key=lambda t: t.table_id)

    # ------------------------------------------------------------------ games and history

    async def game_log(self, table_id: int, game_no: int) -> list[ActionRow]:
        """The game's actions in order (sequence 1, 2, ...)."""
        rows = await self._fetch(
            "SELECT table_id, game_no, seq, seat, action, at FROM actions "
            "WHERE table_id = ? AND game_no = ? ORDER BY seq",
            (table_id, game_no),
        )
        return [ActionRow(*r) for r in rows]

    async def game_record(self, table_id: int, game_no: int) -> GameRecord | None:
        """One game of a table: seed, rules, seats and (once over) outcome and final state."""
        rows = await self._fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE table_id = ? AND game_no = ?",
            (table_id, game_no),
        )
        return _game_record(rows[0]) if rows else None

    async def chat_games(self, chat_id: int, *, finished_only: bool = True) -> list[GameRecord]:
        """The chat's games (by default only those with a result), oldest first."""
        where = " AND outcome IS NOT NULL" if finished_only else ""
        rows = await self._fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE chat_id = ?{where} "
            "ORDER BY started_at, table_id, game_no",
            (chat_id,),
            long=True,
        )
        return [_game_record(r) for r in rows]

    async def chat_stats(self, chat_id: int, by: StatsOrder = "points") -> list[TallyRow]:
        """The chat's series, one row per player, sorted ``by`` points (most first),
        durak (most first), games or recent play."""
        order = _STATS_ORDER[by].format(bytewise=self.dialect.bytewise)
        rows = await self._fetch(
            f"SELECT {_TALLY_COLUMNS} FROM tallies AS t LEFT JOIN users AS u "
            f"ON u.user_id = t.user_id WHERE t.chat_id = ? ORDER BY {order}",
            (chat_id,),
        )
        return [_tally_row(r) for r in rows]

    async def player_tallies(self, user_id: int) -> list[TallyRow]:
        """The user's series in every chat, most recently played first."""
        rows = await self._fetch(
            f"SELECT {_TALLY_COLUMNS} FROM tallies AS t LEFT JOIN users AS u "
            "ON u.user_id = t.user_id WHERE t.player = ? "
            "ORDER BY t.last_played DESC NULLS LAST, t.chat_id",
            (f"u:{user_id}",),
        )
        return [_tally_row(r) for r in rows]

    async def player_history(self, user_id: int, limit: int = 20) -> list[PlayerGame]:
        """The user's last ``limit`` finished games across all chats, newest first."""
        rows = await self._fetch(
            "SELECT chat_id, table_id, game_no, seat, players, durak, pogony, draw, points, "
            "finished_at FROM game_players WHERE user_id = ? "
            "ORDER BY finished_at DESC, table_id DESC, game_no DESC LIMIT ?",
            (user_id, limit),
        )
        return [
            PlayerGame(r[0], r[1], r[2], r[3], r[4], bool(r[5]), bool(r[6]), bool(r[7]), r[8], r[9])
            for r in rows
        ]

    # ------------------------------------------------------------------ ratings

    async def ratings_of(self, scope: int, user_ids: Iterable[int]) -> dict[int, RatingRow]:
        """The ratings of these users in one scope (a group's chat id, 0 overall, 1
        against the computer), by user id; users with no counted game there are missing."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        rows = await self._fetch(
            f"SELECT {_RATING_COLUMNS} FROM ratings AS r LEFT JOIN users AS u "
            f"ON u.user_id = r.user_id WHERE r.scope = ? AND r.user_id IN ({_marks(len(ids))})",
            (scope, *ids),
        )
        return {row.user_id: row for row in map(_rating_row, rows)}

    async def rating_board(self, scope: int, limit: int = 10) -> list[RatingRow]:
        """The best ``limit`` ratings of a scope, best first."""
        rows = await self._fetch(
            f"SELECT {_RATING_COLUMNS} FROM ratings AS r LEFT JOIN users AS u "
            f"ON u.user_id = r.user_id WHERE r.scope = ? ORDER BY {_BOARD_ORDER} LIMIT ?",
            (scope, limit),
        )
        return [_rating_row(r) for r in rows]

    async def rating_place(self, scope: int, user_id: int) -> int | None:
        """A user's place on a scope's board (1 is the best), or None if he has no rating
        there."""
        rows = await self._fetch(
            "SELECT 1 + (SELECT count(*) FROM ratings AS o WHERE o.scope = r.scope AND ("
            "(o.mu - 3 * o.sigma) > (r.mu - 3 * r.sigma) OR ((o.mu - 3 * o.sigma) = "
            "(r.mu - 3 * r.sigma) AND (o.games > r.games OR (o.games = r.games AND "
            "o.user_id < r.user_id))))) FROM ratings AS r WHERE r.scope = ? AND r.user_id = ?",
            (scope, user_id),
        )
        return int(rows[0][0]) if rows else None

    async def player_ratings(self, user_id: int) -> list[RatingRow]:
        """A user's ratings in every scope, most recently moved first."""
        rows = await self._fetch(
            f"SELECT {_RATING_COLUMNS} FROM ratings AS r LEFT JOIN users AS u "
            "ON u.user_id = r.user_id WHERE r.user_id = ? ORDER BY r.updated_at DESC, r.scope",
            (user_id,),
        )
        return [_rating_row(r) for r in rows]

    async def rating_history(self, user_id: int, scopes: Iterable[int]) -> list[RatingPoint]:
        """A user's rating after each of his counted games in these scopes, in the order
        the games were rated."""
        wanted = sorted(set(scopes))
        if not wanted:
            return []
        rows = await self._fetch(
            "SELECT scope, seq, at, mu, sigma FROM rating_history "
            f"WHERE user_id = ? AND scope IN ({_marks(len(wanted))}) ORDER BY seq, scope",
            (user_id, *wanted),
        )
        return [RatingPoint(*r) for r in rows]

    async def partners(self, user_id: int) -> list[PartnerRow]:
        """The players who sat on a user's team in his counted team games (overall and
        against the computer), with the games they played together and won, most games
        first."""
        rows = await self._fetch(
            "SELECT b.user_id, coalesce(min(u.name), (SELECT name FROM ratings AS r "
            "WHERE r.user_id = b.user_id ORDER BY r.updated_at DESC LIMIT 1), '?'), "
            "count(*), sum(1 - a.lost) FROM rating_history AS a JOIN rating_history AS b "
            "ON b.table_id = a.table_id AND b.game_no = a.game_no AND b.scope = a.scope "
            "AND b.side = a.side AND b.user_id != a.user_id "
            "LEFT JOIN users AS u ON u.user_id = b.user_id "
            "WHERE a.user_id = ? AND a.scope IN (?, ?) AND a.side IS NOT NULL "
            "GROUP BY b.user_id ORDER BY count(*) DESC, b.user_id",
            (user_id, OVERALL, VS_COMPUTER),
        )
        return [PartnerRow(int(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]

    async def rebuild_ratings(self) -> tuple[int, int]:
        """Forget every rating and rate every finished game again, in the order they were
        rated (one transaction); (games that counted, games finished)."""

        return await self._write(lambda: ratings.rebuild(self.dialect), long=True)

    # ------------------------------------------------------------------ achievements

    async def achievements_of(self, user_id: int) -> list[AchievementRow]:
        """The achievements ``user_id`` earned, oldest first."""
        rows = await self._fetch(
            "SELECT code, earned_at, game_id FROM achievements WHERE user_id = ? "
            "ORDER BY earned_at, code",
            (user_id,),
        )
        return [
            AchievementRow(str(c), float(at), None if g is None else int(g)) for c, at, g in rows
        ]

    async def finished_games(
        self, after: tuple[int, int] = (0, 0), limit: int = 1000
    ) -> list[GameRecord]:
        """Finished games, by table and number, from just after ``after``: a page."""
        rows = await self._fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE outcome IS NOT NULL "
            "AND (table_id, game_no) > (?, ?) ORDER BY table_id, game_no LIMIT ?",
            (*after, limit),
        )
        return [_game_record(r) for r in rows]

    async def rebuild_achievements(
        self, feats: Mapping[tuple[int, int, int], int] | None = None
    ) -> tuple[int, int]:
        """Forget every achievement a game gives and give them again, game by game in the
        rating order (one transaction), after writing ``feats`` (by table, game and seat)
        if given; (players with an achievement, achievements)."""
        return await self._write(lambda: achievements.rebuild(self.dialect, feats), long=True)

    async def award_tournament(
        self, user_ids: Collection[int], at: float, game_id: int | None = None
    ) -> list[int]:
        """Give a tournament's champions (humans) its achievement, earned ``at`` (its last
        game's place in the rating order: ``game_id``); those who had not had it."""
        return await self._write(
            lambda: achievements.award_tournament(self.dialect, user_ids, at, game_id)
        )

    # ------------------------------------------------------------------ the coach

    async def get_review(self, table_id: int, game_no: int, user_id: int) -> str | None:
        """The coach's review of game ``game_no`` of ``table_id`` for ``user_id``, if made."""
        rows = await self._fetch(
            "SELECT review FROM reviews WHERE table_id = ? AND game_no = ? AND user_id = ?",
            (table_id, game_no, user_id),
        )
        return str(rows[0][0]) if rows else None

    async def save_review(
        self, table_id: int, game_no: int, user_id: int, seat: int, review: str
    ) -> None:
        """Keep a review; a second one for the same game and viewer is ignored (the
        analysis is deterministic, so both say the same)."""
        await self._write_one(
            "INSERT INTO reviews (table_id, game_no, user_id, seat, review, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (table_id, game_no, user_id, seat, review, self._clock()),
        )

    # ------------------------------------------------------------------ the bot itself

    async def get_state(self, key: str) -> str | None:
        """The value kept under ``key``, or None."""
        rows = await self._fetch("SELECT value FROM bot_state WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    async def set_state(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key``, replacing what was kept there."""
        await self._write_one(
            "INSERT INTO bot_state (key, value, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
            "updated_at = excluded.updated_at",
            (key, value, self._clock()),
        )

    # ------------------------------------------------------------------ the inbox

    async def keep_updates(self, updates: Sequence[KeptUpdate]) -> list[int]:
        """Keep the updates of one batch in one statement (so one transaction); the ids
        that were not kept already, in order."""
        if not updates:
            return []
        now = self._clock()
        marks = ", ".join("(?, ?, ?, ?)" for _ in updates)
        params = [value for u in updates for value in (u.update_id, u.body, now, u.shard)]
        rows = await self._write_one(
            f"INSERT INTO inbox (update_id, body, received_at, shard) VALUES {marks} "
            "ON CONFLICT (update_id) DO NOTHING RETURNING update_id",
            params,
        )
        return sorted(int(r[0]) for r in rows)

    async def pending_updates(self, shards: Collection[int] | None = None) -> list[KeptUpdate]:
        """The kept updates not done yet (of ``shards`` only, if given), by update id."""
        where, params = _among("shard", shards)
        if where is None:
            return []
        rows = await self._fetch(
            f"SELECT update_id, body, shard FROM inbox WHERE done_at IS NULL{where} "
            "ORDER BY update_id",
            params,
        )
        return [KeptUpdate(int(r[0]), str(r[1]), int(r[2])) for r in rows]

    async def earlier_private_update(self, user_id: int, update_id: int) -> bool:
        """Whether an update of the user's private chat older than ``update_id`` is kept
        and not done yet (the pending updates are few: read by their index)."""
        chat = self.dialect.json_text
        rows = await self._fetch(
            "SELECT 1 FROM inbox WHERE done_at IS NULL AND update_id > 0 AND update_id < ? "
            f"AND coalesce({chat('body', ('message', 'chat', 'id'))}, "
            f"{chat('body', ('my_chat_member', 'chat', 'id'))}) = ? LIMIT 1",
            (update_id, str(user_id)),
        )
        return bool(rows)

    async def forward_update(self, update_id: int, shard: int) -> bool:
        """Hand a kept update not done yet to another shard; whether it was."""
        rows = await self._write_one(
            "UPDATE inbox SET shard = ? WHERE update_id = ? AND done_at IS NULL "
            "RETURNING update_id",
            (shard, update_id),
        )
        return bool(rows)

    async def finish_update(self, update_id: int) -> None:
        """Mark an update done (if it is kept and not done already)."""
        await self._write_one(
            "UPDATE inbox SET done_at = ? WHERE update_id = ? AND done_at IS NULL",
            (self._clock(), update_id),
        )

    async def prune_updates(self, max_age: float = DAY) -> int:
        """Delete the updates done more than ``max_age`` seconds ago; how many."""
        rows = await self._write_one(
            "DELETE FROM inbox WHERE done_at < ? RETURNING update_id", (self._clock() - max_age,)
        )
        return len(rows)

    # ------------------------------------------------------------------ quick games

    async def quick_enter(self, waiting: Waiting) -> bool:
        """Put a player in the queue for a quick game; False if he is in it already."""
        rows = await self._write_one(
            "INSERT INTO quick_queue (user_id, name, lang, rating, since, offer_at, offered) "
            "VALUES (?, ?, ?, ?, ?, ?, 0) ON CONFLICT (user_id) DO NOTHING",
            (
                waiting.user_id,
                waiting.name,
                waiting.lang,
                waiting.rating,
                waiting.since,
                waiting.offer_at,
            ),
            returning="user_id",
        )
        return bool(rows)

    async def quick_waiting(self, user_id: int) -> Waiting | None:
        """The player's place in the queue, or None if he is not in it."""
        rows = await self._fetch(
            f"SELECT {_QUEUE_COLUMNS} FROM quick_queue AS q "
            "LEFT JOIN users AS u ON u.user_id = q.user_id WHERE q.user_id = ?",
            (user_id,),
        )
        return _waiting(rows[0]) if rows else None

    async def quick_leave(self, user_id: int) -> bool:
        """Take the player out of the queue; False if he was not in it (he was dealt a
        game meanwhile, or left already)."""
        rows = await self._write_one(
            "DELETE FROM quick_queue WHERE user_id = ?",
            (user_id,),
            returning="user_id",
        )
        return bool(rows)

    async def quick_message(self, user_id: int, message_id: int) -> bool:
        """Remember the player's waiting message; False if he is no longer waiting."""
        rows = await self._write_one(
            "UPDATE quick_queue SET message_id = ? WHERE user_id = ?",
            (message_id, user_id),
            returning="user_id",
        )
        return bool(rows)

    async def quick_wait_more(self, user_id: int, offer_at: float) -> bool:
        """He keeps waiting after the offer of a game against the computer: offered again
        at ``offer_at``. False if he is no longer waiting."""
        rows = await self._write_one(
            "UPDATE quick_queue SET offered = 0, offer_at = ? WHERE user_id = ?",
            (offer_at, user_id),
            returning="user_id",
        )
        return bool(rows)

    async def quick_round(
        self,
        pair: Callable[[Sequence[Waiting], Collection[tuple[int, int]], float], PairsLike],
        deal: Callable[[Waiting, Waiting], NewGame],
    ) -> QuickRound:
        """One pass over the queue, in one transaction, one pass at a time whichever process
        runs it: ``pair`` picks the pairs out of everyone waiting (given who blocked whom
        among them, and the time); each pair leaves the queue and sits at a new private
        table where the game ``deal`` makes for it is running already; and whoever has
        waited alone until his ``offer_at`` is marked offered a game against the computer."""
        now = self._clock()
        d = self.dialect

        def body() -> Body[QuickRound]:
            yield from each(d.hold_queue)
            rows = yield Fetch(
                f"SELECT {_QUEUE_COLUMNS} FROM quick_queue AS q "
                "LEFT JOIN users AS u ON u.user_id = q.user_id ORDER BY q.since, q.user_id"
            )
            waiting = [_waiting(r) for r in rows]
            blocked: set[tuple[int, int]] = set()
            if len(waiting) >= 2:
                ids = [w.user_id for w in waiting]
                marks = _marks(len(ids))
                found = yield Fetch(
                    "SELECT user_id, blocked_id FROM blocks "
                    f"WHERE user_id IN ({marks}) AND blocked_id IN ({marks})",
                    (*ids, *ids),
                )
                blocked = {(int(a), int(b)) for a, b in found}
            dealt = []
            taken: set[int] = set()
            for pair_ in pair(waiting, blocked, now) if len(waiting) >= 2 else ():
                first, second = pair_
                if first.user_id in taken or second.user_id in taken or first is second:
                    raise ValueError("a player paired twice in one pass")
                taken |= {first.user_id, second.user_id}
                new = deal(first, second)
                rows = yield Fetch(
                    "INSERT INTO tables (chat_id, thread_id, status, creator_id, seats, rules, "
                    "created_at, updated_at) VALUES (?, NULL, 'lobby', NULL, ?, ?, ?, ?) "
                    "RETURNING table_id",
                    (PRIVATE_TABLES, seats_to_json(new.seats), new.rules, now, now),
                )
                table_id = int(rows[0][0])
                yield Fetch(
                    "UPDATE tables SET chat_id = ? WHERE table_id = ?",
                    (private_chat(table_id, new.shard), table_id),
                )
                table = yield from _start_body(
                    table_id, 0, new.seed, new.game, new.deadline, None, now
                )
                yield Fetch(
                    "DELETE FROM quick_queue WHERE user_id IN (?, ?)",
                    (first.user_id, second.user_id),
                )
                yield Many(
                    "UPDATE users SET quick_last = ? WHERE user_id = ?",
                    [(second.user_id, first.user_id), (first.user_id, second.user_id)],
                )
                dealt.append((table, (first, second)))
            due = [
                w for w in waiting if w.user_id not in taken and not w.offered and w.offer_at <= now
            ]
            if due:
                yield Fetch(
                    f"UPDATE quick_queue SET offered = 1 WHERE user_id IN ({_marks(len(due))})",
                    [w.user_id for w in due],
                )
            return QuickRound(tuple(dealt), tuple(replace(w, offered=True) for w in due))

        return await self._write(body)

    async def block(self, user_id: int, blocked_id: int) -> None:
        """``user_id`` is never paired with ``blocked_id`` again (nor he with him)."""
        await self._write_one(
            "INSERT INTO blocks (user_id, blocked_id, at) VALUES (?, ?, ?) "
            "ON CONFLICT (user_id, blocked_id) DO NOTHING",
            (user_id, blocked_id, self._clock()),
        )

    async def blocked(self, user_id: int) -> list[int]:
        """Whom ``user_id`` has blocked, in the order he did."""
        rows = await self._fetch(
            "SELECT blocked_id FROM blocks WHERE user_id = ? ORDER BY at, blocked_id", (user_id,)
        )
        return [int(r[0]) for r in rows]

    # ------------------------------------------------------------------ invitations

    async def invitation(self, inline_message_id: str) -> Invitation | None:
        """The invitation and the table it opened (None: nobody pressed it yet)."""
        rows = await self._fetch(
            f"SELECT {_INVITATION_COLUMNS} FROM invitations WHERE inline_message_id = ?",
            (inline_message_id,),
        )
        return _invitation(rows[0]) if rows else None

    async def invitation_of(self, table_id: int) -> Invitation | None:
        """The invitation that shows a table (None: none does)."""
        rows = await self._fetch(
            f"SELECT {_INVITATION_COLUMNS} FROM invitations WHERE table_id = ? "
            "ORDER BY created_at DESC LIMIT 1",
            (table_id,),
        )
        return _invitation(rows[0]) if rows else None

    async def open_invitation(
        self, invitation: Invitation, shard: int, rules: str, creator: Seat
    ) -> tuple[Invitation, TableRow]:
        """The private table an invitation shows: opened by its first press, a lobby with
        its inviter (``creator``) seated, in ``shard``; ``invitation.table_id`` is not
        read. If it opened one already (two first presses at once), that one."""
        now = self._clock()
        d = self.dialect

        def body() -> Body[tuple[Invitation, TableRow]]:
            yield from each(d.hold_queue)
            found = yield Fetch(
                f"SELECT {_INVITATION_COLUMNS} FROM invitations WHERE inline_message_id = ?",
                (invitation.inline_message_id,),
            )
            if found:
                known = _invitation(found[0])
                rows = yield Fetch(
                    f"SELECT {_TABLE_COLUMNS} FROM tables WHERE table_id = ?", (known.table_id,)
                )
                return known, _table_row(rows[0])
            rows = yield Fetch(
                "INSERT INTO tables (chat_id, thread_id, status, creator_id, seats, rules, "
                "created_at, updated_at) VALUES (?, NULL, 'lobby', ?, ?, ?, ?, ?) "
                "RETURNING table_id",
                (PRIVATE_TABLES, creator.user_id, seats_to_json([creator]), rules, now, now),
            )
            table_id = int(rows[0][0])
            rows = yield Fetch(
                f"UPDATE tables SET chat_id = ? WHERE table_id = ? RETURNING {_TABLE_COLUMNS}",
                (private_chat(table_id, shard), table_id),
            )
            opened = replace(invitation, table_id=table_id)
            yield Fetch(
                "INSERT INTO invitations (inline_message_id, table_id, lang, game, size, "
                "inviter, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    opened.inline_message_id,
                    table_id,
                    opened.lang,
                    opened.game,
                    opened.size,
                    opened.inviter,
                    now,
                ),
            )
            return opened, _table_row(rows[0])

        return await self._write(body)

    # ------------------------------------------------------------------ seasons

    async def season(self, chat_id: int, since: float, until: float) -> list[SeasonRow]:
        """Each player's season in a group (the games finished from ``since`` to before
        ``until``), the one whose rating rose most first."""
        rows = await self._fetch(
            "SELECT gp.user_id, max(coalesce(u.name, gp.player)), count(*), sum(gp.durak) "
            "FROM game_players AS gp LEFT JOIN users AS u ON u.user_id = gp.user_id "
            "WHERE gp.chat_id = ? AND gp.user_id IS NOT NULL "
            "AND gp.finished_at >= ? AND gp.finished_at < ? GROUP BY gp.user_id",
            (chat_id, since, until),
        )
        if not rows:
            return []
        users = [int(r[0]) for r in rows]
        history = await self._fetch(
            "SELECT user_id, mu, sigma, at FROM rating_history "
            f"WHERE scope = ? AND user_id IN ({_marks(len(users))}) AND at < ? "
            "ORDER BY user_id, seq",
            (chat_id, *users, until),
            long=True,
        )
        before: dict[int, int] = {}
        after: dict[int, int] = {}
        for user, mu, sigma, at in history:
            number = shown(Skill(float(mu), float(sigma)))
            (before if at < since else after)[int(user)] = number
        found = []
        for user_id, name, games, durak in rows:
            start = before.get(int(user_id), NEWCOMER.shown)
            found.append(
                SeasonRow(
                    int(user_id),
                    name,
                    int(games),
                    int(durak or 0),
                    start,
                    after.get(int(user_id), start),
                )
            )
        return sorted(found, key=lambda r: (-r.change, r.durak, -r.games, r.user_id))

    async def season_to_tell(self, chat_id: int, season: str) -> bool:
        """Whether the group is yet to be told of the season before ``season`` (a month,
        ``YYYY-MM``): True once, for the first to ask in that month."""
        rows = await self._write_one(
            "INSERT INTO seasons_told (chat_id, season) VALUES (?, ?) "
            "ON CONFLICT (chat_id) DO UPDATE SET season = excluded.season "
            "WHERE seasons_told.season <> excluded.season",
            (chat_id, season),
            returning="chat_id",
        )
        return bool(rows)

    # ------------------------------------------------------------------ tournaments

    async def open_tourney(self, table_id: int, chat_id: int, games: int) -> Tourney:
        """A tournament of ``games`` games at a table (its lobby just opened): signing up."""
        now = self._clock()
        await self._write_one(
            "INSERT INTO tournaments (table_id, chat_id, games, created_at) VALUES (?, ?, ?, ?)",
            (table_id, chat_id, games, now),
        )
        found = await self.tourney(table_id)
        assert found is not None
        return found

    async def tourney(self, table_id: int) -> Tourney | None:
        """The tournament at a table, if one was ever opened there."""
        rows = await self._fetch(
            f"SELECT {_TOURNEY_COLUMNS} FROM tournaments WHERE table_id = ?", (table_id,)
        )
        return _tourney(rows[0]) if rows else None

    async def set_tourney_games(self, table_id: int, games: int) -> bool:
        """Change the number of games while signing up; False once it started or ended."""
        rows = await self._write_one(
            "UPDATE tournaments SET games = ? WHERE table_id = ? AND status = 'open'",
            (games, table_id),
            returning="table_id",
        )
        return bool(rows)

    async def start_tourney(self, table_id: int, first_game: int) -> bool:
        """Signing up is over: its first game is the table's game ``first_game``. False if
        it was not signing up (started already, or ended)."""
        rows = await self._write_one(
            "UPDATE tournaments SET status = 'running', first_game = ? "
            "WHERE table_id = ? AND status = 'open'",
            (first_game, table_id),
            returning="table_id",
        )
        return bool(rows)

    async def unstart_tourney(self, table_id: int) -> None:
        """Its first game could not be dealt after all: signing up again."""
        await self._write_one(
            "UPDATE tournaments SET status = 'open', first_game = 0 "
            "WHERE table_id = ? AND status = 'running'",
            (table_id,),
        )

    async def tourney_leave(self, table_id: int, player: str) -> Tourney | None:
        """A player (``u:<id>``, ``ai:<name>``) left a running tournament: he scores no
        more. The tournament as it is now (None: no such tournament)."""

        def body() -> Body[None]:
            rows = yield Fetch(
                "SELECT gone FROM tournaments WHERE table_id = ? AND status = 'running'",
                (table_id,),
            )
            if not rows:
                return
            gone = list(json.loads(rows[0][0]))
            if player not in gone:
                gone.append(player)
                yield Fetch(
                    "UPDATE tournaments SET gone = ? WHERE table_id = ?",
                    (json.dumps(gone, ensure_ascii=False), table_id),
                )

        await self._write(body)
        return await self.tourney(table_id)

    async def end_tourney(
        self,
        table_id: int,
        status: TourneyStatus,
        champion: Seat | None = None,
    ) -> TourneyEnded | None:
        """End a tournament (``done``, with its ``champion``, or ``cancelled``): for the
        one call that ended it, the champions given the tournament's achievement by it
        (those who had not had it); None if it had ended already."""
        if status not in (TourneyStatus.DONE, TourneyStatus.CANCELLED):
            raise ValueError(f"a tournament ends done or cancelled, not {status}")
        now = self._clock()
        user = champion.user_id if champion is not None else None

        def end() -> Body[TourneyEnded | None]:
            rows = yield Fetch(
                "UPDATE tournaments SET status = ?, champion = ?, champion_user = ?, "
                "champion_name = ?, finished_at = ? "
                "WHERE table_id = ? AND status IN ('open', 'running') RETURNING table_id",
                (
                    status.value,
                    champion.player if champion is not None else None,
                    user,
                    champion.name if champion is not None else None,
                    now,
                    table_id,
                ),
            )
            if not rows:
                return None
            awarded: list[int] = []
            if status == TourneyStatus.DONE and user is not None:
                # the champion's achievement, in the same transaction: given once
                awarded = yield from achievements.award_tournament(self.dialect, [user], now)
            return TourneyEnded(tuple(awarded))

        return await self._write(end)

    async def tourney_games(self, tourney: Tourney) -> list[GameRecord]:
        """A tournament's games with a result, in order (a cancelled one has none)."""
        if tourney.first_game <= 0:
            return []
        rows = await self._fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE table_id = ? AND game_no >= ? "
            "AND game_no <= ? AND outcome IS NOT NULL ORDER BY game_no",
            (tourney.table_id, tourney.first_game, tourney.last_game),
        )
        return [_game_record(r) for r in rows]

    async def tourneys_between(
        self, shards: Collection[int] | None = None, chat_id: int | None = None
    ) -> list[TableRow]:
        """The tables of running tournaments between two games (their table finished, or
        a lobby again on its way to the next deal), in ``shards`` or ``chat_id`` if given:
        what start-up, or a process taking a shard over, deals the next game of."""
        where, params = _among(shard_sql("t.chat_id"), shards)
        if where is None:
            return []
        args: list[Any] = list(params)
        if chat_id is not None:
            where += " AND t.chat_id = ?"
            args.append(chat_id)
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS_T} FROM tables AS t JOIN tournaments AS o "
            "ON o.table_id = t.table_id WHERE o.status = 'running' "
            f"AND t.status IN ('lobby', 'finished'){where} ORDER BY t.table_id",
            args,
        )
        return [_table_row(r) for r in rows]

    async def tourney_wins(
        self, *, chat_id: int | None = None, user_id: int | None = None
    ) -> list[TourneyWin]:
        """The tournaments won (by people and by computer players, as the series count
        both), in ``chat_id`` and by ``user_id`` if given, oldest first: who won, where,
        when."""
        sql = (
            "SELECT o.chat_id, o.table_id, o.champion_user, "
            "coalesce(u.name, o.champion_name), o.finished_at, o.champion FROM tournaments AS o "
            "LEFT JOIN users AS u ON u.user_id = o.champion_user "
            "WHERE o.champion IS NOT NULL AND o.status = 'done'"
        )
        params: list[Any] = []
        if chat_id is not None:
            sql += " AND o.chat_id = ?"
            params.append(chat_id)
        if user_id is not None:
            sql += " AND o.champion_user = ?"
            params.append(user_id)
        rows = await self._fetch(sql + " ORDER BY o.finished_at, o.table_id", params, long=True)
        return [
            TourneyWin(
                int(r[0]),
                int(r[1]),
                None if r[2] is None else int(r[2]),
                r[3] or "",
                float(r[4]),
                str(r[5]),
            )
            for r in rows
        ]


PairsLike = Iterable[tuple[Waiting, Waiting]]
"""What a queue's pairing gives: pairs of players, each in one pair at most."""

_QUEUE_COLUMNS: Final = (
    "q.user_id, q.name, q.lang, q.rating, q.since, q.offer_at, q.offered, q.message_id, "
    "u.quick_last"
)


_INVITATION_COLUMNS: Final = "inline_message_id, table_id, lang, game, size, inviter"


def _invitation(r: Sequence[Any]) -> Invitation:
    return Invitation(r[0], int(r[1]), r[2], r[3], int(r[4]), int(r[5]))


def _waiting(r: Sequence[Any]) -> Waiting:
    return Waiting(
        user_id=int(r[0]),
        name=r[1],
        lang=r[2],
        rating=float(r[3]),
        since=float(r[4]),
        offer_at=float(r[5]),
        offered=bool(r[6]),
        message_id=None if r[7] is None else int(r[7]),
        last_opponent=None if r[8] is None else int(r[8]),
    )


def _start_body(
    table_id: int,
    expected_version: int,
    seed: int,
    game: str,
    deadline: float | None,
    update_id: int | None,
    now: float,
) -> Body[TableRow]:
    """Start a table's next game (compare-and-set) and record the game."""
    wanted = (TableStatus.LOBBY, TableStatus.FINISHED)
    rows = yield Fetch(
        "UPDATE tables SET status = 'playing', game_no = game_no + 1, seed = ?, "
        "game = ?, version = version + 1, moves = 0, deadline = ?, updated_at = ?, "
        "last_update = ? "
        "WHERE table_id = ? AND version = ? AND status IN ('lobby', 'finished') "
        f"RETURNING {_TABLE_COLUMNS}",
        (seed, game, deadline, now, update_id, table_id, expected_version),
    )
    if not rows:
        raise (yield from _refused(table_id, expected_version, wanted))
    table = _table_row(rows[0])
    yield Fetch(
        "INSERT INTO games (table_id, game_no, chat_id, seed, rules, seats, started_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            table_id,
            table.game_no,
            table.chat_id,
            seed,
            table.rules,
            seats_to_json(table.seats),
            now,
        ),
    )
    return table


def _check_outcome(outcome: Outcome, players: int) -> None:
    if len(outcome.points) != players:
        raise ValueError(f"outcome has {len(outcome.points)} points for {players} seats")
    if any(not 0 <= s < players for s in outcome.durak_seats):
        raise ValueError(f"durak seats {outcome.durak_seats} out of range for {players} seats")
    if outcome.draw and outcome.durak_seats:
        raise ValueError("a draw has no durak")
