"""Ratings are a function of the stored results in order: rating game by game and
rebuilding from scratch (the store's, and ``python -m bot.rerate --rebuild``) agree, and
the SQLite and the PostgreSQL store reach the same numbers."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_backends import Database, PostgresDatabase, SqliteDatabase

from bot.rerate import main
from bot.store import Outcome, Seat, SqliteStore

from .helpers import ANN, BOB, CID, logged_game, lost

USERS = tuple(Seat.human(i, f"U{i}") for i in range(1, 7))
COMPUTERS = (Seat.computer("Easy", "easy"), Seat.computer("Hard", "hard"))
TEAMS = {"none": None, "pairs": (4, 6), "triples": (6,)}

Played = tuple[int, int, tuple[Seat, ...], str, Outcome | None, list[tuple[int, str]]]


RATING_TABLES = ("ratings", "rating_history", "rated_games")
WRITTEN = ("tables", "actions", "games", "game_players", "tallies", *RATING_TABLES)
"""Every table a game writes to."""


async def dump(db: Database) -> tuple[list[tuple[object, ...]], ...]:
    return tuple([await db.query(f"SELECT * FROM {t} ORDER BY 1, 2, 3") for t in RATING_TABLES])


@st.composite
def games(draw: st.DrawFn) -> Played:
    """One game: when it is saved, its chat, seats, teams rule, result (None: cancelled)
    and its action log."""
    n = draw(st.integers(2, 6))
    humans = draw(st.integers(1, n))
    seats = list(draw(st.permutations(USERS))[:humans])
    seats += [draw(st.sampled_from(COMPUTERS)) for _ in range(n - humans)]
    seats = draw(st.permutations(seats))
    chat = draw(st.sampled_from((-100, -200, 7)))
    fits = [rule for rule, counts in TEAMS.items() if counts is None or n in counts]
    teams = draw(st.sampled_from(fits))
    kind = draw(st.sampled_from(("durak", "durak", "draw", "cancelled")))
    outcome: Outcome | None
    if kind == "cancelled":
        outcome = None
    elif kind == "draw":
        outcome = Outcome((), True, False, (1,) * n)
    else:
        durak = draw(st.integers(0, n - 1))
        count = {"none": n, "pairs": n // 2, "triples": n // 3}[teams]
        losers = tuple(s for s in range(n) if s % count == durak % count)
        outcome = Outcome(losers, False, False, tuple(0 if s in losers else 2 for s in range(n)))
    # each seat's own moves (mostly enough to count), and the clock's, in some order
    log: list[tuple[int, str]] = []
    for seat in range(n):
        log += [(seat, "pass")] * draw(st.integers(2, 6))
        log += [(seat, "timeout")] * draw(st.integers(0, 2))
    log = list(draw(st.permutations(log)))
    if outcome is not None and draw(st.booleans()):
        log.append((outcome.durak_seats[0] if outcome.durak_seats else 0, "resign"))
    at = draw(st.integers(0, 50))  # when it is saved: the clock may even go back
    return at, chat, tuple(seats), f'{{"teams":"{teams}"}}', outcome, log


async def play_all(db: Database, history: list[Played]) -> tuple[int, int]:
    now = [0.0]
    # games saved at the same time, or earlier than the one before: the rating order
    # is the order the results were saved, never the clock's
    async with db.open(clock=lambda: now[0]) as store:
        for at, chat, seats, rules, outcome, log in history:
            now[0] = 1_700_000_000.0 + at
            await logged_game(store, seats, outcome, chat_id=chat, moves=log, rules=rules)
        before = await dump(db)
        counts = await store.rebuild_ratings()
        assert await dump(db) == before
        return counts


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(games(), min_size=1, max_size=8))
def test_rebuilding_equals_rating_game_by_game_on_both_backends(
    postgres_store_url: str, history: list[Played]
) -> None:
    # one PostgreSQL database for every example, emptied before each
    postgres = PostgresDatabase(postgres_store_url)

    async def run(lite: SqliteDatabase) -> None:
        await postgres.query(f"TRUNCATE {', '.join(WRITTEN)} RESTART IDENTITY")
        counted, finished = await play_all(lite, history)
        assert await play_all(postgres, history) == (counted, finished)
        assert await dump(postgres) == await dump(lite)  # the same numbers, row for row
        assert finished == sum(1 for game in history if game[4] is not None)
        assert counted <= finished

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(run(SqliteDatabase(Path(folder) / "db.sqlite3")))


async def test_the_command_rebuilds_the_same_numbers(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the command works on a SQLite file (its --db)
    lite = SqliteDatabase(db_path)
    async with SqliteStore.open(db_path) as store:
        await logged_game(store, (ANN, BOB, CID), lost(2, 3))
        await logged_game(store, (ANN, BOB), lost(0, 2))
        await logged_game(store, (ANN, BOB), lost(1, 2), moves=[(0, "pass"), (1, "pass")])
        before = await dump(lite)
        assert before[0]  # there are ratings to rebuild
        status = await asyncio.to_thread(main, ["--rebuild", "--db", str(db_path)])
    assert status == 0
    assert await dump(lite) == before
    assert f"rated 2 of 3 finished games in {db_path}" in capsys.readouterr().out


async def test_the_command_rebuilds_a_postgresql_database(
    postgres_store_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = PostgresDatabase(postgres_store_url)
    async with db.open() as store:
        await logged_game(store, (ANN, BOB, CID), lost(2, 3))
        await logged_game(store, (ANN, BOB), lost(1, 2), moves=[(0, "pass"), (1, "pass")])
    before = await dump(db)
    assert before[0]
    # named by --db, and as the bot finds it: $DURAK_DATABASE_URL (no SQLite file around)
    monkeypatch.chdir(tmp_path)
    for args in (["--db", postgres_store_url], []):
        await db.query("DELETE FROM ratings")
        monkeypatch.setenv("DURAK_DATABASE_URL", postgres_store_url if not args else "")
        assert await asyncio.to_thread(main, ["--rebuild", *args]) == 0
        assert await dump(db) == before
        assert "rated 1 of 2 finished games in postgresql://" in capsys.readouterr().out
    assert not (tmp_path / "durak.sqlite3").exists()


def test_the_command_refuses_what_it_cannot_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--rebuild", "--db", str(tmp_path / "missing.sqlite3")]) == 1
    assert "no database at" in capsys.readouterr().err
    assert not (tmp_path / "missing.sqlite3").exists()
    assert main([]) == 2
    assert "--rebuild" in capsys.readouterr().err
