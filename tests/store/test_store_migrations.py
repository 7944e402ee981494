"""Schema migrations: from an empty file, from every earlier version, and never backwards."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from store_helpers import ALICE, BORIS

from bot.service.replay import load_replay, recent_moves
from bot.store import (
    LATEST_VERSION,
    MIGRATIONS,
    KeptUpdate,
    Outcome,
    SchemaTooNewError,
    Seat,
    SqliteStore,
    Store,
    TableStatus,
)
from bot.store.migrations import played_fast
from bot.store.models import seats_to_json
from bot.store.sqlite import migrate, schema_version
from engine import Game, IllegalAction, Rules, action_from_dict
from engine.actions import Action

SEATS = seats_to_json([ALICE, BORIS])


def seed_v1(db: sqlite3.Connection, *, last_played: str = "") -> None:
    """A database as version 1 of the bot left it: a finished game and a running one
    (``last_played``: the tallies' column that version 2 added, with its value)."""
    db.executescript(
        f"""
        INSERT INTO chats VALUES (-100, 'ru', NULL, 5, 10.0);
        INSERT INTO users (user_id, name, language, can_message, updated_at)
            VALUES (1, 'Alice', 'en', 1, 10.0);
        INSERT INTO tables (table_id, chat_id, thread_id, status, creator_id, seats, rules,
            game_no, seed, game, version, moves, group_message_id, hand_message_ids,
            deadline, last_seat, last_action, created_at, updated_at)
        VALUES
            (1, -100, 5, 'finished', 1, '{SEATS}', '{{}}', 1, 11, 'final', 4, 2, 70, '[71,72]',
             NULL, 1, 'a2', 1.0, 30.0),
            (2, -100, NULL, 'playing', 2, '{SEATS}', '{{}}', 1, 12, 'mid', 2, 1, 80, '[81,82]',
             99.0, 0, 'b1', 2.0, 40.0);
        INSERT INTO actions VALUES (1, 1, 1, 0, 'a1', 20.0), (1, 1, 2, 1, 'a2', 30.0),
                                   (2, 1, 1, 0, 'b1', 40.0);
        INSERT INTO games VALUES
            (1, 1, -100, 11, '{{}}', '{SEATS}', 5.0, 30.0,
             '{Outcome((1,), False, True, (2, 0)).to_json()}', 'final'),
            (2, 1, -100, 12, '{{}}', '{SEATS}', 6.0, NULL, NULL, NULL);
        INSERT INTO game_players VALUES
            (1, 1, 0, -100, 'u:1', 1, 2, 0, 0, 0, 2, 30.0),
            (1, 1, 1, -100, 'u:2', 2, 2, 1, 1, 0, 0, 30.0);
        INSERT INTO tallies VALUES
            (-100, 'u:1', 1, 'Alice', 1, 0, 0, 0, 2{last_played}),
            (-100, 'u:2', 2, 'Boris', 1, 1, 1, 0, 0{last_played});
        """
    )


def seed_v2(db: sqlite3.Connection) -> None:
    """A database as version 2 left it: version 1's data, with when each player last played."""
    seed_v1(db, last_played=", 30.0")


def seed_v3(db: sqlite3.Connection) -> None:
    """A database as version 3 left it: version 2's data and a review of the finished game."""
    seed_v2(db)
    db.execute("INSERT INTO reviews VALUES (1, 1, 1, 0, '{\"marks\":[]}', 31.0)")


def seed_v4(db: sqlite3.Connection) -> None:
    """A database as version 4 left it: version 3's data and the bot's kept menus."""
    seed_v3(db)
    db.execute("INSERT INTO bot_state VALUES ('menus', '{\"en\": \"ab12\"}', 32.0)")


def seed_v5(db: sqlite3.Connection) -> None:
    """A database as version 5 left it: version 4's data and two kept updates, one done."""
    seed_v4(db)
    db.execute(
        "INSERT INTO inbox (update_id, body, received_at, done_at) "
        "VALUES (600, '{\"update_id\": 600}', 33.0, 34.0), "
        "(601, '{\"update_id\": 601}', 33.5, NULL)"
    )


def seed_v6(db: sqlite3.Connection) -> None:
    """A database as version 6 left it: version 5's data, its finished game rated by the
    migration itself."""
    seed_v5(db)


def old_json(text: str) -> str:
    """Rules, or a saved game, as the engine wrote them before ``fast_throw_ins`` existed."""
    data = json.loads(text)
    rules = data.get("rules", data)
    assert rules.pop("fast_throw_ins") is True
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def old_game(seed: int, moves: int | None) -> tuple[str, Game, list[str]]:
    """A 2-player game played by random legal moves under the old throw-in rule (a thrower
    with nothing that fits passed at once): its rules as saved then, the game after
    ``moves`` moves (None: to its end) and its logged actions."""
    rules = Rules(fast_throw_ins=True)
    game = Game.new(rules, players=2, seed=seed)
    rng = random.Random(seed)
    log: list[str] = []
    while game.result is None and (moves is None or len(log) < moves):
        seat = rng.choice(game.to_act())
        action = rng.choice(game.legal_actions(seat))
        game.apply(action)
        log.append(json.dumps(action.to_dict()))
    return old_json(rules.model_dump_json()), game, log


OLD_FINISHED, OLD_RUNNING = 31, 32
"""The seeds of version 7's sample games: one finished, one running."""


def seed_v7(db: sqlite3.Connection, *, fast: bool = False) -> None:
    """A database as version 7 left it: version 6's data, and in another group real games
    saved before throw-ins were hidden — a finished one, a running one and a lobby
    (``fast``: as migration 8 rewrote them, saying fast throw-ins)."""
    seed_v6(db)
    rows: list[str] = []
    for table_id, seed, moves in ((3, OLD_FINISHED, None), (4, OLD_RUNNING, 9)):
        rules, game, log = old_game(seed, moves)
        state = old_json(game.to_json())
        if fast:
            rules = played_fast(rules, nested=False) or rules
            state = played_fast(state, nested=True) or state
        done = game.result is not None
        status = "finished" if done else "playing"
        outcome = f"'{Outcome.from_result(game.result).to_json()}'" if game.result else "NULL"
        finished, final = ("50.0", f"'{state}'") if done else ("NULL", "NULL")
        rows.append(
            "INSERT INTO tables (table_id, chat_id, status, creator_id, seats, rules, game_no, "
            "seed, game, version, moves, created_at, updated_at) VALUES "
            f"({table_id}, -200, '{status}', 1, '{SEATS}', '{rules}', 1, {seed}, '{state}', "
            f"{len(log) + 1}, {len(log)}, 1.0, 50.0)"
        )
        rows.append(
            f"INSERT INTO games VALUES ({table_id}, 1, -200, {seed}, '{rules}', '{SEATS}', 1.0, "
            f"{finished}, {outcome}, {final})"
        )
        rows += [
            f"INSERT INTO actions VALUES ({table_id}, 1, {i}, NULL, '{a}', 2.0)"
            for i, a in enumerate(log, 1)
        ]
    lobby_rules, _, _ = old_game(0, 0)
    rows.append(
        "INSERT INTO tables (table_id, chat_id, status, creator_id, seats, rules, "
        f"created_at, updated_at) VALUES (5, -300, 'lobby', 1, '[]', '{lobby_rules}', 1.0, 1.0)"
    )
    db.executescript(";\n".join(rows) + ";")


def seed_v8(db: sqlite3.Connection) -> None:
    """A database as version 8 left it: version 7's data, its games begun before throw-ins
    were hidden saying fast throw-ins (what migration 8 wrote)."""
    seed_v7(db, fast=True)


QUICK_TABLE = -(2**52) - 7
"""Version 9's sample quick game: a private table's chat."""
QUICK_SEATS = seats_to_json([Seat.human(5, "Eve"), Seat.human(6, "Fay")])


def seed_v9(db: sqlite3.Connection) -> None:
    """A database as version 9 left it: version 8's data, players waiting for a quick game,
    blocks, invitations, the season a group was last told of, and a quick game of Eve's and
    Fay's, counted, that Eve won (and Fay was its durak)."""
    seed_v8(db)
    outcome = Outcome((1,), False, False, (2, 0), (0,)).to_json()
    db.executescript(
        f"""
        INSERT INTO quick_queue (user_id, name, lang, rating, since, offer_at, offered,
            message_id) VALUES (1, 'Alice', 'en', 25.0, 60.0, 120.0, 0, 900);
        INSERT INTO quick_queue VALUES (3, 'Cid', 'en', 25.0, 60.0, 120.0, 0, NULL);
        INSERT INTO blocks VALUES (2, 1, 61.0);
        INSERT INTO blocks VALUES (5, 3, 61.0);
        UPDATE users SET quick_last = 2 WHERE user_id = 1;
        INSERT INTO invitations VALUES ('inl-1', 3, 'ru', 'podkidnoy', 2, 1, 62.0);
        INSERT INTO invitations VALUES ('inl', 8, 'en', 'podkidnoy', 2, 1, 62.0);
        INSERT INTO seasons_told VALUES (-100, '2026-11');
        INSERT INTO tables (table_id, chat_id, status, creator_id, seats, rules, game_no,
            seed, game, version, moves, created_at, updated_at)
        VALUES (7, {QUICK_TABLE}, 'finished', 5, '{QUICK_SEATS}', '{{}}', 1, 5, 'end', 7, 6,
            63.0, 70.0);
        INSERT INTO games VALUES (7, 1, {QUICK_TABLE}, 5, '{{}}', '{QUICK_SEATS}', 63.0, 70.0,
            '{outcome}', 'end');
        INSERT INTO game_players VALUES
            (7, 1, 0, {QUICK_TABLE}, 'u:5', 5, 2, 0, 0, 0, 2, 70.0),
            (7, 1, 1, {QUICK_TABLE}, 'u:6', 6, 2, 1, 0, 0, 0, 70.0);
        INSERT INTO rated_games VALUES (100, 7, 1, 1, NULL);
        """
    )


def seed_v10(db: sqlite3.Connection) -> None:
    """A database as version 10 left it: version 9's data and a tournament Eve won."""
    seed_v9(db)
    db.executescript(
        """
        INSERT INTO tournaments (table_id, chat_id, games, status, first_game, gone,
            champion, champion_user, champion_name, created_at, finished_at)
        VALUES (9, -100, 3, 'done', 1, '[]', 'u:5', 5, 'Eve', 64.0, 75.0);
        """
    )


SEEDERS: dict[int, Callable[[sqlite3.Connection], None]] = {
    0: lambda db: None,
    1: seed_v1,
    2: seed_v2,
    3: seed_v3,
    4: seed_v4,
    5: seed_v5,
    6: seed_v6,
    7: seed_v7,
    8: seed_v8,
    9: seed_v9,
    10: seed_v10,
}


async def build(path: Path, version: int) -> None:
    """A database file at schema ``version``, holding that version's sample data."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        assert migrate(db, str(path), target=version) == version
        SEEDERS[version](db)
    finally:
        db.close()


def schema_of(path: Path) -> dict[str, object]:
    """Every table's columns, every index and trigger, and the version."""
    db = sqlite3.connect(path)
    try:
        objects = db.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        ).fetchall()
        columns = {
            name: db.execute(f"PRAGMA table_info({name})").fetchall()
            for kind, name, _, _ in objects
            if kind == "table"
        }
        version = db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()
    return {"objects": objects, "columns": columns, "version": version}


def test_migrations_are_numbered_without_gaps() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
    assert LATEST_VERSION >= 2
    assert all(m.description and (m.statements or m.step) for m in MIGRATIONS)


def test_every_earlier_version_has_sample_data() -> None:
    # A new migration needs sample data of the version before it, to prove the upgrade.
    assert sorted(SEEDERS) == list(range(LATEST_VERSION))


async def test_an_empty_file_gets_the_latest_schema(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    async with SqliteStore.open(path) as store:
        assert await store.schema_version() == LATEST_VERSION
        assert await store.running_tables() == []
    schema = schema_of(path)
    names = {name for _, name, _, _ in schema["objects"]}  # type: ignore[attr-defined]
    assert {"chats", "users", "tables", "actions", "games", "game_players", "tallies"} <= names
    assert "log_action" in names


@pytest.mark.parametrize("version", range(LATEST_VERSION))
async def test_upgrade_from_every_earlier_version(tmp_path: Path, version: int) -> None:
    old = tmp_path / f"v{version}.sqlite3"
    await build(old, version)
    async with SqliteStore.open(old) as store:
        assert await store.schema_version() == LATEST_VERSION
        await check_upgraded(store, version)
    fresh = tmp_path / "fresh.sqlite3"
    async with SqliteStore.open(fresh):
        pass
    assert schema_of(old) == schema_of(fresh)
    # Opening an up-to-date file again changes nothing.
    async with SqliteStore.open(old) as store:
        assert await store.schema_version() == LATEST_VERSION
    assert schema_of(old) == schema_of(fresh)


async def check_upgraded(store: Store, version: int) -> None:
    """The sample data of ``version``, read and written through today's store."""
    if version >= 1:
        await check_v1_data(store)
    if version >= 3:
        assert await store.get_review(1, 1, 1) == '{"marks":[]}'
    # Version 4 added the bot's own state: empty until the bot keeps something there.
    kept = '{"en": "ab12"}' if version >= 4 else None
    assert await store.get_state("menus") == kept
    await store.set_state("menus", "{}")
    assert await store.get_state("menus") == "{}"
    # Version 7 gave each kept update its shard: those kept before are shard 0's.
    if version >= 5:
        pending = [KeptUpdate(601, '{"update_id": 601}', 0)]
        assert await store.pending_updates() == pending
        assert await store.pending_updates([0]) == pending
        assert await store.pending_updates([1, 2]) == []
    if version >= 7:
        await check_v7_data(store)
    if version >= 9:
        await check_v9_data(store)
    await check_quick_games(store)
    await check_tourneys(store)
    if version >= 9:
        await check_v9_achievements(store, version)
    if version >= 10:
        # version 10's tournament: its champion's win, read through today's store
        assert [(w.table_id, w.user_id) for w in await store.tourney_wins()] == [(9, 5)]


async def check_v9_data(store: Store) -> None:
    """Version 9's queue, block, invitation and season told, read through today's store."""
    waiting = await store.quick_waiting(1)
    assert waiting is not None and (waiting.message_id, waiting.last_opponent) == (900, 2)
    assert await store.quick_waiting(3) is not None
    assert await store.blocked(2) == [1]
    assert await store.blocked(5) == [3]
    invitation = await store.invitation("inl-1")
    assert invitation is not None and (invitation.table_id, invitation.size) == (3, 2)
    assert await store.invitation_of(8) is not None
    assert not await store.season_to_tell(-100, "2026-11"), "told already"
    assert await store.season_to_tell(-100, "2026-12")


async def check_tourneys(store: Store) -> None:
    """Version 10's tournaments: working on the old tables."""
    assert await store.tourneys_between() == []
    if not [w for w in await store.tourney_wins() if w.table_id == 9]:
        assert await store.tourney_wins() == []  # none before version 10
    opened = await store.open_tourney(1, -100, 3)
    assert opened.games == 3 and await store.tourney(1) == opened


async def check_v9_achievements(store: Store, version: int) -> None:
    """Version 11's achievements for version 9's data: its counted quick game gave what its
    result earns (its feats unknown: nothing that needs the log); version 10's tournament
    its champion's."""
    eve = [(a.code, a.earned_at) for a in await store.achievements_of(5)]
    won = [("tournament", 75.0)] if version >= 10 else []
    assert sorted(eve) == sorted([("first_win", 70.0), ("quick_win", 70.0), *won])
    assert [(a.code, a.game_id, a.earned_at) for a in await store.achievements_of(6)] == [
        ("first_durak", 100, 70.0)
    ]
    # the tournament's achievement, given once (Eve's from version 10's tournament)
    assert await store.award_tournament([5, 6], 80.0) == ([6] if version >= 10 else [5, 6])
    assert await store.award_tournament([6], 81.0) == []
    assert "tournament" in [a.code for a in await store.achievements_of(6)]


async def check_quick_games(store: Store) -> None:
    """Version 9's queue and blocks working for a player the sample data never saw."""
    assert await store.quick_waiting(41) is None
    assert await store.blocked(41) == []
    await store.block(41, 2)
    assert await store.blocked(41) == [2]


async def check_v7_data(store: Store) -> None:
    """Version 7's old games upgraded: each keeps the throw-in rule it was played under,
    so the finished one replays and the running one goes on; the lobby takes the new
    default."""
    _, _, log = old_game(OLD_FINISHED, None)
    hidden = Game.new(Rules(), players=2, seed=OLD_FINISHED)
    with pytest.raises(IllegalAction):  # the log does not replay under today's default
        for line in log:
            hidden.apply(action_from_json(line))
    replay = await load_replay(store, 3, 1)
    assert replay.rules.fast_throw_ins and replay.total == len(log)
    running = await store.get_table(4)
    assert running is not None and running.status is TableStatus.PLAYING
    assert running.game is not None and Rules.model_validate_json(running.rules).fast_throw_ins
    game = Game.from_json(running.game)
    assert game.rules.fast_throw_ins and game.moves == 9
    assert len(await recent_moves(store, running, 20)) >= 9, "its log leads to its state"
    lobby = await store.get_table(5)
    assert lobby is not None and not Rules.model_validate_json(lobby.rules).fast_throw_ins


async def check_v1_data(store: Store) -> None:
    """Version 1's sample data, read through today's store."""
    chat = await store.get_chat(-100)
    assert chat is not None and (chat.language, chat.thread_id) == ("ru", 5)
    user = await store.get_user(1)
    assert user is not None and user.can_message
    finished = await store.get_table(1)
    assert finished is not None and finished.status is TableStatus.FINISHED
    assert finished.hand_message_ids == (71, 72)
    running = [t for t in await store.running_tables() if t.chat_id == -100]
    assert [(t.table_id, t.game, t.version, t.deadline) for t in running] == [(2, "mid", 2, 99.0)]
    assert [a.action for a in await store.game_log(1, 1)] == ["a1", "a2"]
    # Version 2 added last_played and filled it in from the finished games.
    stats = await store.chat_stats(-100)
    assert [(t.name, t.points, t.last_played) for t in stats] == [
        ("Alice", 2, 30.0),
        ("Boris", 0, 30.0),
    ]
    assert [h.table_id for h in await store.player_history(2)] == [1]
    # The running game goes on, its log continuing where version 1 left it.
    saved = await store.save_action(2, 2, game="end", action="b2", seat=1, outcome=draw2())
    assert (saved.version, saved.seq) == (3, 2)
    assert [a.action for a in await store.game_log(2, 1)] == ["b1", "b2"]
    stats = await store.chat_stats(-100)
    assert [(t.games, t.draws) for t in stats] == [(2, 1), (2, 1)]


async def test_an_upgraded_file_keeps_updates_and_a_move_marks_its_own_done(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v3.sqlite3"
    await build(path, 3)
    async with SqliteStore.open(path) as store:
        await check_inbox_after_upgrade(store)
    schema = schema_of(path)
    assert schema["version"] == LATEST_VERSION
    assert "last_update" in [c[1] for c in schema["columns"]["tables"]]  # type: ignore[index]


async def check_inbox_after_upgrade(store: Store) -> None:
    """Version 3's sample data upgraded: updates are kept, and the running game's next move
    marks its own done."""
    kept = [KeptUpdate(500, '{"update_id": 500}'), KeptUpdate(501, '{"update_id": 501}')]
    assert await store.keep_updates(kept) == [500, 501]
    saved = await store.save_action(2, 2, game="mid2", action="b2", seat=1, update_id=500)
    assert saved.seq == 2
    assert await store.pending_updates() == [kept[1]]


def draw2() -> Outcome:
    return Outcome(durak_seats=(), draw=True, pogony=False, points=(1, 1))


async def test_a_newer_schema_is_refused_untouched(db_path: Path) -> None:
    async with SqliteStore.open(db_path):
        pass
    db = sqlite3.connect(db_path)
    db.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    db.execute("PRAGMA journal_mode = DELETE")
    db.close()
    before = db_path.read_bytes()
    with pytest.raises(SchemaTooNewError) as refused:
        await SqliteStore.open(db_path)
    message = str(refused.value)
    assert f"schema version {LATEST_VERSION + 1}" in message
    assert f"up to {LATEST_VERSION}" in message
    assert "newer bot" in message and "Upgrade the bot" in message
    assert (refused.value.found, refused.value.known) == (LATEST_VERSION + 1, LATEST_VERSION)
    assert db_path.read_bytes() == before
    assert not (db_path.parent / (db_path.name + "-wal")).exists()


async def test_a_failing_migration_leaves_the_old_version_whole(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    await build(path, 1)
    # Someone added an index by hand whose name migration 2 needs: step 2 fails midway.
    with sqlite3.connect(path, isolation_level=None) as db:
        db.execute("CREATE INDEX tables_by_status ON tables (chat_id)")
    db.close()
    with pytest.raises(sqlite3.OperationalError, match="already exists"):
        await SqliteStore.open(path)
    schema = schema_of(path)
    assert schema["version"] == 1
    tally_columns = [c[1] for c in schema["columns"]["tallies"]]  # type: ignore[index]
    assert "last_played" not in tally_columns


def test_migrate_refuses_an_unknown_target(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        with pytest.raises(ValueError, match="no schema version"):
            migrate(conn, str(path), target=LATEST_VERSION + 1)
        assert schema_version(conn) == 0
        assert migrate(conn, str(path), target=1) == 1
        assert migrate(conn, str(path)) == LATEST_VERSION
    finally:
        conn.close()


def action_from_json(line: str) -> Action:
    return action_from_dict(json.loads(line))
