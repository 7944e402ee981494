"""The numbered schema migrations, one list for both databases.

Version 0 is an empty database. Migration *n* takes a database at version *n - 1* to *n*,
inside one transaction together with the new version (SQLite keeps it in ``PRAGMA
user_version``, :mod:`bot.store.sqlite`; PostgreSQL in a one-row table,
:mod:`bot.store.pg_migrations`), so a crash halfway leaves the old version intact. Never
edit a released migration: append a new one.

Each statement is written once. Where the two databases name a thing differently the
statement says ``{id}`` (an id, which Telegram's run past 32 bits: SQLite's ``INTEGER``,
PostgreSQL's ``BIGINT``), ``{real}`` (a Unix time: ``REAL``, ``DOUBLE PRECISION``),
``{serial}`` (an id the database hands out and never hands out again: ``AUTOINCREMENT``,
an identity column), ``{without_rowid}`` and ``{unlogged}``, and the database's
:class:`~bot.store.dialect.Dialect` fills them in; a trigger is a
:class:`~bot.store.dialect.Trigger`, which each database writes in its own words. Both
databases thus hold the same tables, columns (in the same order), indexes and triggers
under the same names: a schema version means the same in both, operators' queries work on
either, and :mod:`bot.store.copy` moves rows across unchanged. Counts and flags are
``INTEGER`` (0/1) on both, JSON is ``TEXT`` (kept byte for byte). A migration's data step
(:mod:`bot.store.steps`) is written once too and runs in the same transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.store import achievements, ratings
from bot.store.dialect import Dialect, Trigger
from bot.store.steps import Body, Fetch, Many


def _rate_history(d: Dialect) -> Body[None]:
    """Rate every game finished before ratings existed, in the order they finished."""
    yield from ratings.rebuild(d)


FAST_THROW_INS = (
    "games begun before throw-ins were hidden keep the rule they were played under: fast throw-ins"
)
"""Migration 8's description.

Until then a thrower holding nothing that fit was passed at once, for everyone to see;
since, by default, he says pass himself or his window runs out. A game's log only replays
under the rule it was played with, so every game already begun — each game's record and
final state, and each running table with its state — says ``fast_throw_ins``, as it was
played. Lobbies and the groups' saved settings take the new default."""


def played_fast(text: str | None, *, nested: bool) -> str | None:
    """``text`` — rules as JSON, or (``nested``) a saved game holding its rules — saying
    ``fast_throw_ins`` where it says nothing of it; None where there is nothing to change
    (no text, not rules, or the option already given). The JSON is written as the engine
    writes it (compact, the new key last), so a saved game stays byte for byte what the
    engine would save, which replays compare against."""
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    rules = data.get("rules") if nested and isinstance(data, dict) else data
    if not isinstance(rules, dict) or "game" not in rules or "fast_throw_ins" in rules:
        return None
    rules["fast_throw_ins"] = True
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


FAST_THROW_INS_STEPS: Final = (
    (
        "SELECT rules, final_game, table_id, game_no FROM games",
        "UPDATE games SET rules = coalesce(?, rules), final_game = coalesce(?, final_game) "
        "WHERE table_id = ? AND game_no = ?",
    ),
    (
        "SELECT rules, game, table_id FROM tables WHERE status = 'playing'",
        "UPDATE tables SET rules = coalesce(?, rules), game = coalesce(?, game) WHERE table_id = ?",
    ),
)
"""Migration 8's data: each query reads rules, a saved game and the row's key; its update
writes them back (:func:`fast_rows`), None where nothing changes."""


def fast_rows(rows: Iterable[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """The update parameters of :data:`FAST_THROW_INS_STEPS` for the rows read."""
    return [
        (played_fast(rules, nested=False), played_fast(game, nested=True), *key)
        for rules, game, *key in rows
    ]


def _keep_fast_throw_ins(d: Dialect) -> Body[None]:
    """Migration 8's data: the games already begun keep fast throw-ins."""
    for read, write in FAST_THROW_INS_STEPS:
        yield Many(write, fast_rows((yield Fetch(read))))


Statement = str | Trigger
"""A migration's statement: SQL with the dialect's words in braces, or a trigger."""


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: its statements, then ``step`` (data it computes in Python),
    in the same transaction. A step may change the data alone, with no statement."""

    version: int
    description: str
    statements: tuple[Statement, ...]
    step: Callable[[Dialect], Body[None]] | None = None

    def sql(self, d: Dialect) -> list[str]:
        """The statements as database ``d`` runs them."""
        found: list[str] = []
        for statement in self.statements:
            found += d.trigger(statement) if isinstance(statement, Trigger) else [d.ddl(statement)]
        return found


SEVERAL_PROCESSES = (
    "several processes on one database: each kept update's shard, the processes' "
    "heartbeats, the leases of the shards and of polling, the private chats' shared budgets"
)
"""Migration 7's description. The tables it adds stay empty on SQLite, where one process
holds everything; they are there so that a schema version means the same in both
databases."""

QUICK_GAMES = (
    "private tables: the queue of players waiting for a quick game, whom each has blocked, "
    "and the table each invitation in any chat opened; the season each group was last told of"
)
"""Migration 9's description."""

TOURNAMENTS = "tournaments: a table's games played as one, their number, who left, the champion"
"""Migration 10's description."""

ACHIEVEMENTS = (
    "achievements: each player's, given once, and the progress behind them; each seat's "
    "feats in a game; those the stored results give are given"
)
"""Migration 11's description."""


def _give_achievements(d: Dialect) -> Body[None]:
    """Give the achievements the games finished so far earn by their results (their feats
    are unknown until ``python -m bot.rerate --achievements`` reads the logs)."""
    yield from achievements.rebuild(d)


EPHEMERAL_TABLES = frozenset({"members", "shard_leases", "chat_pace"})
"""Tables that describe the processes running now, not the bot's data: a copy of the
database leaves them out."""

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "core tables: chats, users, tables, the action log, games and series tallies",
        (
            """
            CREATE TABLE chats (
                chat_id       {id} PRIMARY KEY,
                language      TEXT,
                default_rules TEXT,
                thread_id     {id},
                updated_at    {real} NOT NULL
            )
            """,
            """
            CREATE TABLE users (
                user_id     {id} PRIMARY KEY,
                name        TEXT NOT NULL,
                language    TEXT,
                can_message INTEGER NOT NULL DEFAULT 0,
                updated_at  {real} NOT NULL
            )
            """,
            # {serial} (SQLite's AUTOINCREMENT, PostgreSQL's identity): a removed table's id
            # is never reused, so the action log and the games of a removed table can never
            # be mistaken for a new table's.
            """
            CREATE TABLE tables (
                table_id         {serial},
                chat_id          {id} NOT NULL,
                thread_id        {id},
                status           TEXT NOT NULL
                                 CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
                creator_id       {id},
                seats            TEXT NOT NULL DEFAULT '[]',
                rules            TEXT NOT NULL,
                game_no          INTEGER NOT NULL DEFAULT 0,
                seed             {id},
                game             TEXT,
                version          INTEGER NOT NULL DEFAULT 0,
                moves            INTEGER NOT NULL DEFAULT 0,
                group_message_id {id},
                hand_message_ids TEXT NOT NULL DEFAULT '[]',
                deadline         {real},
                last_seat        INTEGER,
                last_action      TEXT,
                created_at       {real} NOT NULL,
                updated_at       {real} NOT NULL
            )
            """,
            """
            CREATE TABLE actions (
                table_id {id} NOT NULL,
                game_no  INTEGER NOT NULL,
                seq      INTEGER NOT NULL,
                seat     INTEGER,
                action   TEXT NOT NULL,
                at       {real} NOT NULL,
                PRIMARY KEY (table_id, game_no, seq)
            ){without_rowid}
            """,
            # The log is written by the database itself: a save is one UPDATE of the table
            # row (the new state, moves + 1, the action in last_seat/last_action), and this
            # trigger appends the log line in the same statement, hence the same atomic
            # transaction. No code path can move a game on without logging the action; the
            # primary key refuses a doubled one.
            Trigger(
                "log_action",
                "UPDATE OF moves",
                "tables",
                "NEW.moves = OLD.moves + 1 AND NEW.game_no = OLD.game_no",
                "INSERT INTO actions (table_id, game_no, seq, seat, action, at)\n"
                "VALUES (NEW.table_id, NEW.game_no, NEW.moves, NEW.last_seat, NEW.last_action,\n"
                "        NEW.updated_at)",
            ),
            """
            CREATE TABLE games (
                table_id    {id} NOT NULL,
                game_no     INTEGER NOT NULL,
                chat_id     {id} NOT NULL,
                seed        {id} NOT NULL,
                rules       TEXT NOT NULL,
                seats       TEXT NOT NULL,
                started_at  {real} NOT NULL,
                finished_at {real},
                outcome     TEXT,
                final_game  TEXT,
                PRIMARY KEY (table_id, game_no)
            )
            """,
            """
            CREATE TABLE game_players (
                table_id    {id} NOT NULL,
                game_no     INTEGER NOT NULL,
                seat        INTEGER NOT NULL,
                chat_id     {id} NOT NULL,
                player      TEXT NOT NULL,
                user_id     {id},
                players     INTEGER NOT NULL,
                durak       INTEGER NOT NULL,
                pogony      INTEGER NOT NULL,
                draw        INTEGER NOT NULL,
                points      INTEGER NOT NULL,
                finished_at {real} NOT NULL,
                PRIMARY KEY (table_id, game_no, seat)
            )
            """,
            """
            CREATE TABLE tallies (
                chat_id {id} NOT NULL,
                player  TEXT NOT NULL,
                user_id {id},
                name    TEXT NOT NULL,
                games   INTEGER NOT NULL DEFAULT 0,
                durak   INTEGER NOT NULL DEFAULT 0,
                pogony  INTEGER NOT NULL DEFAULT 0,
                draws   INTEGER NOT NULL DEFAULT 0,
                points  INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (chat_id, player)
            )
            """,
        ),
    ),
    Migration(
        2,
        "tallies remember when each player last played; indexes for start-up, "
        "lobby clean-up, a chat's tables and a player's history",
        (
            "ALTER TABLE tallies ADD COLUMN last_played {real}",
            """
            UPDATE tallies SET last_played = (
                SELECT max(gp.finished_at) FROM game_players AS gp
                WHERE gp.chat_id = tallies.chat_id AND gp.player = tallies.player
            )
            """,
            "CREATE INDEX tables_by_status ON tables (status, created_at)",
            "CREATE INDEX tables_by_chat ON tables (chat_id)",
            "CREATE INDEX games_by_chat ON games (chat_id, finished_at)",
            "CREATE INDEX game_players_by_user ON game_players (user_id, finished_at)",
        ),
    ),
    Migration(
        3,
        "the coach's review of a finished game, once per game and viewer",
        (
            """
            CREATE TABLE reviews (
                table_id   {id} NOT NULL,
                game_no    INTEGER NOT NULL,
                user_id    {id} NOT NULL,
                seat       INTEGER NOT NULL,
                review     TEXT NOT NULL,
                created_at {real} NOT NULL,
                PRIMARY KEY (table_id, game_no, user_id)
            ){without_rowid}
            """,
        ),
    ),
    Migration(
        4,
        "what the bot keeps about itself, by key (such as what it last set as its menus)",
        (
            """
            CREATE TABLE bot_state (
                key        TEXT PRIMARY KEY,
                value      TEXT NOT NULL,
                updated_at {real} NOT NULL
            ){without_rowid}
            """,
        ),
    ),
    Migration(
        5,
        "the inbox: every update kept before Telegram is told it arrived, until it is done; "
        "a table write names the update it handles, which is done in the same transaction",
        (
            """
            CREATE TABLE inbox (
                update_id   {id} PRIMARY KEY,
                body        TEXT NOT NULL,
                received_at {real} NOT NULL,
                done_at     {real}
            )
            """,
            "CREATE INDEX inbox_by_done ON inbox (done_at)",
            "ALTER TABLE tables ADD COLUMN last_update {id}",
            # A move (or a game's start) sets last_update to the update it handles in its
            # one statement; the trigger marks that update done in the same transaction, so
            # after a crash the update is either done with its move saved, or pending and
            # handled again.
            Trigger(
                "inbox_done",
                "UPDATE OF last_update",
                "tables",
                "NEW.last_update IS NOT NULL",
                "UPDATE inbox SET done_at = NEW.updated_at\n"
                "WHERE update_id = NEW.last_update AND done_at IS NULL",
            ),
        ),
    ),
    Migration(
        6,
        "skill ratings per group, overall and against the computer, with their history; "
        "the games finished so far are rated",
        (
            # The order games are rated in: one line per finished game, in the order its
            # result was saved; `counted` says whether it moved any rating (and `reason`
            # why not).
            """
            CREATE TABLE rated_games (
                seq      {id} PRIMARY KEY,
                table_id {id} NOT NULL,
                game_no  INTEGER NOT NULL,
                counted  INTEGER NOT NULL DEFAULT 0,
                reason   TEXT,
                UNIQUE (table_id, game_no)
            )
            """,
            # scope: a group's chat id (negative), 0 overall, 1 against the computer
            """
            CREATE TABLE ratings (
                scope      {id} NOT NULL,
                user_id    {id} NOT NULL,
                name       TEXT NOT NULL,
                mu         {real} NOT NULL,
                sigma      {real} NOT NULL,
                games      INTEGER NOT NULL,
                durak      INTEGER NOT NULL,
                updated_at {real} NOT NULL,
                PRIMARY KEY (scope, user_id)
            ){without_rowid}
            """,
            "CREATE INDEX ratings_by_user ON ratings (user_id)",
            """
            CREATE TABLE rating_history (
                user_id  {id} NOT NULL,
                scope    {id} NOT NULL,
                seq      {id} NOT NULL,
                table_id {id} NOT NULL,
                game_no  INTEGER NOT NULL,
                side     INTEGER,
                lost     INTEGER NOT NULL,
                mu       {real} NOT NULL,
                sigma    {real} NOT NULL,
                at       {real} NOT NULL,
                PRIMARY KEY (user_id, scope, seq)
            ){without_rowid}
            """,
            "CREATE INDEX rating_history_by_game ON rating_history (table_id, game_no)",
        ),
        # This step runs today's rating code: a later migration that changes these tables
        # rebuilds them in a step of its own.
        _rate_history,
    ),
    Migration(
        7,
        SEVERAL_PROCESSES,
        (
            # The shard of the table (or chat) each kept update is for: the process holding
            # that shard's lease handles it. One process (SQLite) holds every shard: 0.
            "ALTER TABLE inbox ADD COLUMN shard INTEGER NOT NULL DEFAULT 0",
            "CREATE INDEX inbox_pending_by_shard ON inbox (shard, update_id) WHERE done_at IS NULL",
            # Each running process: renewed while it lives, gone when it stops.
            """
            CREATE TABLE members (
                member_id  TEXT PRIMARY KEY,
                host       TEXT NOT NULL,
                pid        INTEGER NOT NULL,
                started_at {real} NOT NULL,
                expires_at {real} NOT NULL
            ){without_rowid}
            """,
            # Who holds each shard (0..63), and polling (-1), until when, in which term.
            """
            CREATE TABLE shard_leases (
                shard      INTEGER PRIMARY KEY,
                owner      TEXT,
                epoch      INTEGER NOT NULL,
                expires_at {real} NOT NULL
            )
            """,
            # Each private chat's budget shared by the processes that write to it. Written
            # at every message to a private chat and worth nothing after a crash (the
            # budgets refill within seconds): PostgreSQL keeps it out of its WAL, so that
            # its writes never wait for a disk flush.
            """
            CREATE {unlogged}TABLE chat_pace (
                chat_id {id} PRIMARY KEY,
                tat     {real} NOT NULL
            )
            """,
        ),
    ),
    Migration(8, FAST_THROW_INS, (), _keep_fast_throw_ins),
    Migration(
        9,
        QUICK_GAMES,
        (
            # Each player waiting for a quick game, until he is dealt one or leaves.
            """
            CREATE TABLE quick_queue (
                user_id    {id} PRIMARY KEY,
                name       TEXT NOT NULL,
                lang       TEXT NOT NULL,
                rating     {real} NOT NULL,
                since      {real} NOT NULL,
                offer_at   {real} NOT NULL,
                offered    INTEGER NOT NULL DEFAULT 0,
                message_id {id}
            ){without_rowid}
            """,
            # Whom a player never wants to be paired with again.
            """
            CREATE TABLE blocks (
                user_id    {id} NOT NULL,
                blocked_id {id} NOT NULL,
                at         {real} NOT NULL,
                PRIMARY KEY (user_id, blocked_id)
            ){without_rowid}
            """,
            # Whom he played his last quick game against: not again while others wait.
            "ALTER TABLE users ADD COLUMN quick_last {id}",
            # The private table each invitation posted through inline mode opened: the
            # message is known by its inline id alone, and shows that table.
            """
            CREATE TABLE invitations (
                inline_message_id TEXT PRIMARY KEY,
                table_id          {id} NOT NULL,
                lang              TEXT NOT NULL,
                game              TEXT NOT NULL,
                size              INTEGER NOT NULL,
                inviter           {id} NOT NULL,
                created_at        {real} NOT NULL
            ){without_rowid}
            """,
            "CREATE INDEX invitations_by_table ON invitations (table_id)",
            # The season (a calendar month, UTC) whose end each group was last told of.
            """
            CREATE TABLE seasons_told (
                chat_id {id} PRIMARY KEY,
                season  TEXT NOT NULL
            ){without_rowid}
            """,
        ),
    ),
    Migration(
        10,
        TOURNAMENTS,
        (
            # A tournament at a table: its games follow one another (``first_game`` is the
            # table's game number of the first, 0 before the start); the standings come
            # from those games' stored results. ``gone``: the players (``u:<id>``,
            # ``ai:<name>``) who left, as a JSON list. Status: open (sign-up), running,
            # done, cancelled.
            """
            CREATE TABLE tournaments (
                table_id      {id} PRIMARY KEY,
                chat_id       {id} NOT NULL,
                games         INTEGER NOT NULL,
                status        TEXT NOT NULL DEFAULT 'open',
                first_game    INTEGER NOT NULL DEFAULT 0,
                gone          TEXT NOT NULL DEFAULT '[]',
                champion      TEXT,
                champion_user {id},
                champion_name TEXT,
                created_at    {real} NOT NULL,
                finished_at   {real}
            )
            """,
            "CREATE INDEX tournaments_by_chat ON tournaments (chat_id, status)",
            "CREATE INDEX tournaments_won ON tournaments (champion_user) "
            "WHERE champion_user IS NOT NULL",
        ),
    ),
    Migration(
        11,
        ACHIEVEMENTS,
        (
            # What the action log says of each seat (bot.ratings.achievements: FEATS);
            # 0: not known.
            "ALTER TABLE game_players ADD COLUMN feats INTEGER NOT NULL DEFAULT 0",
            # Each achievement a player earned, once; game_id: the game's place in the
            # rating order (rated_games.seq), if a game gave it.
            """
            CREATE TABLE achievements (
                user_id   {id} NOT NULL,
                code      TEXT NOT NULL,
                game_id   {id},
                earned_at {real} NOT NULL,
                PRIMARY KEY (user_id, code)
            ){without_rowid}
            """,
            # What his counted games so far left behind for the next one.
            """
            CREATE TABLE achievement_progress (
                user_id {id} PRIMARY KEY,
                games   INTEGER NOT NULL,
                calm    INTEGER NOT NULL,
                firsts  INTEGER NOT NULL
            ){without_rowid}
            """,
        ),
        _give_achievements,
    ),
)

LATEST_VERSION: int = MIGRATIONS[-1].version
assert [m.version for m in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
