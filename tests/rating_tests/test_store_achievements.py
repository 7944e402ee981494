"""Achievements in the store, on both databases: given in the finishing transaction to the
humans of counted games only, once each; returned with the save; listed by /me's query;
the tournament's given once; and rebuilt from the history, the same set the games gave."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_backends import Database, PostgresDatabase, SqliteDatabase

from bot.ratings.achievements import FEATS, KNOWN, NO_TAKE, SIX_BEATEN, TOURNAMENT
from bot.store import Outcome, Seat, Store, private_chat

from .helpers import ANN, BOB, CID, DAN, EASY, HARD, PAIRS, action, each_moves, logged_game, lost

ACHIEVEMENT_TABLES = ("achievements", "achievement_progress")


async def codes(store: Store, user_id: int) -> list[str]:
    return sorted(a.code for a in await store.achievements_of(user_id))


def ordered(durak: int, players: int) -> Outcome:
    """One durak; the others out in seat order."""
    base = lost(durak, players)
    order = tuple(s for s in range(players) if s != durak)
    return Outcome(base.durak_seats, False, False, base.points, order)


async def test_a_counted_game_gives_its_humans_what_it_earns(store: Store) -> None:
    await logged_game(store, (ANN, BOB, CID), ordered(2, 3), feats=(KNOWN | NO_TAKE, KNOWN, 0))
    assert await codes(store, ANN.user_id or 0) == ["clean_sheet", "first_out", "first_win"]
    assert await codes(store, BOB.user_id or 0) == ["first_win"], "he took: no clean sheet"
    assert await codes(store, CID.user_id or 0) == ["first_durak"]
    # a second game gives nothing twice
    await logged_game(store, (ANN, BOB, CID), ordered(2, 3), feats=(KNOWN | NO_TAKE, KNOWN, 0))
    assert await codes(store, ANN.user_id or 0) == ["clean_sheet", "first_out", "first_win"]


async def test_the_save_that_ends_the_game_returns_what_it_gave(store: Store) -> None:
    lobby = await store.create_table(-100, rules="{}", creator_id=1, seats=(ANN, BOB))
    table = await store.start_game(lobby.table_id, lobby.version, seed=1, game="s")
    version = table.version
    for i, (seat, kind) in enumerate(each_moves(2)):
        saved = await store.save_action(
            table.table_id, version, game=f"s{i}", action=action(kind, seat), seat=seat
        )
        assert saved.earned == ()
        version = saved.version
    saved = await store.save_action(
        table.table_id,
        version,
        game="end",
        action=action("take", 1),
        seat=1,
        outcome=ordered(1, 2),
        feats=(KNOWN, KNOWN | SIX_BEATEN),
    )
    assert sorted(saved.earned) == [(1, "first_win"), (2, "first_durak"), (2, "six_beaten")]
    [row] = [a for a in await store.achievements_of(2) if a.code == "six_beaten"]
    assert row.game_id is not None and row.earned_at > 0


async def test_computers_earn_nothing_and_uncounted_games_give_nothing(
    store: Store, database: Database
) -> None:
    # the hard computer is the durak: the human beat it
    await logged_game(store, (ANN, HARD), ordered(1, 2), feats=(KNOWN | NO_TAKE, KNOWN))
    assert await codes(store, ANN.user_id or 0) == ["clean_sheet", "first_win", "hard_win"]
    rows = await database.query("SELECT user_id FROM achievements")
    assert all(user is not None for (user,) in rows)
    assert {user for (user,) in rows} == {ANN.user_id}
    # Bob made too few moves: the game counts for nobody, and gives nobody anything
    few = [(0, "pass"), (0, "pass"), (0, "pass"), (1, "pass")]
    await logged_game(store, (CID, BOB), ordered(1, 2), moves=few, feats=(KNOWN, KNOWN))
    assert await codes(store, CID.user_id or 0) == []
    assert await codes(store, BOB.user_id or 0) == []
    # an easy computer left the durak is no hard win; nor is a cancelled game anything
    await logged_game(store, (DAN, EASY), ordered(1, 2))
    assert await codes(store, DAN.user_id or 0) == ["first_win"]
    await logged_game(store, (BOB, CID), None)
    assert await codes(store, BOB.user_id or 0) == []


async def test_teams_quick_games_and_the_table_of_six(store: Store) -> None:
    six = tuple(Seat.human(i, f"P{i}") for i in range(11, 17))
    await logged_game(
        store,
        six,
        Outcome((1, 3, 5), False, False, (2, 0, 2, 0, 2, 0), (0, 2, 4)),
        rules=PAIRS.replace("pairs", "triples"),
    )
    assert await codes(store, 11) == ["first_out", "first_win", "six_first", "team_win"]
    assert await codes(store, 12) == ["first_durak"]
    await logged_game(store, (ANN, BOB), ordered(1, 2), chat_id=private_chat(5, 0))
    assert await codes(store, ANN.user_id or 0) == ["first_win", "quick_win"]


async def test_the_tournament_is_given_once_and_kept_by_a_rebuild(store: Store) -> None:
    assert await store.award_tournament([1, 2], 1_700_000_100.0) == [1, 2]
    assert await store.award_tournament([2, 3], 1_700_000_200.0) == [3]
    assert await store.award_tournament([], 1_700_000_300.0) == []
    await logged_game(store, (ANN, BOB), ordered(1, 2))
    await store.rebuild_achievements()
    assert await codes(store, 1) == ["first_win", TOURNAMENT]
    assert [a.earned_at for a in await store.achievements_of(2) if a.code == TOURNAMENT] == [
        1_700_000_100.0
    ]


async def test_a_rebuild_may_write_new_feats(store: Store, database: Database) -> None:
    table_id, game_no = await logged_game(store, (ANN, BOB), ordered(1, 2))
    assert await codes(store, ANN.user_id or 0) == ["first_win"]
    players, given = await store.rebuild_achievements({(table_id, game_no, 0): KNOWN | NO_TAKE})
    assert await codes(store, ANN.user_id or 0) == ["clean_sheet", "first_win"]
    assert (players, given) == (2, 3)
    rows = await database.query(
        "SELECT seat, feats FROM game_players WHERE table_id = ? ORDER BY seat", (table_id,)
    )
    assert [tuple(r) for r in rows] == [(0, KNOWN | NO_TAKE), (1, 0)]


# ---------------------------------------------------------------- game by game = rebuilt

USERS = tuple(Seat.human(i, f"U{i}") for i in range(1, 6))
COMPUTERS = (Seat.computer("Easy", "easy"), Seat.computer("Hard", "hard"))
Played = tuple[int, tuple[Seat, ...], str, Outcome | None, list[tuple[int, str]], tuple[int, ...]]


@st.composite
def games(draw: st.DrawFn) -> Played:
    """One game: its chat, seats, rules, result (None: cancelled), log and feats."""
    n = draw(st.integers(2, 6))
    humans = draw(st.integers(1, min(n, len(USERS))))
    seats = list(draw(st.permutations(USERS))[:humans])
    seats += [draw(st.sampled_from(COMPUTERS)) for _ in range(n - humans)]
    seats = list(draw(st.permutations(seats)))
    chat = draw(st.sampled_from((-100, -200, private_chat(3, 1))))
    teams = draw(st.sampled_from(["none", "pairs"] if n in (4, 6) else ["none"]))
    kind = draw(st.sampled_from(("durak", "durak", "durak", "draw", "cancelled")))
    outcome: Outcome | None = None
    if kind == "draw":
        outcome = Outcome((), True, False, (1,) * n, tuple(range(n)))
    elif kind == "durak":
        durak = draw(st.integers(0, n - 1))
        count = n // 2 if teams == "pairs" else n
        losers = tuple(s for s in range(n) if s % count == durak % count)
        order = tuple(draw(st.permutations([s for s in range(n) if s not in losers])))
        points = tuple(0 if s in losers else 2 for s in range(n))
        outcome = Outcome(losers, False, draw(st.booleans()), points, order)
    log: list[tuple[int, str]] = []
    for seat in range(n):
        log += [(seat, "pass")] * draw(st.integers(2, 5))
    log = list(draw(st.permutations(log)))
    feats = tuple(draw(st.lists(st.integers(0, sum(FEATS)), min_size=n, max_size=n)))
    return chat, tuple(seats), f'{{"teams":"{teams}"}}', outcome, log, feats


async def dump(db: Database) -> tuple[list[tuple[object, ...]], ...]:
    return tuple([await db.query(f"SELECT * FROM {t} ORDER BY 1, 2") for t in ACHIEVEMENT_TABLES])


async def play_all(db: Database, history: list[Played]) -> tuple[int, int]:
    now = [1_700_000_000.0]

    def clock() -> float:
        now[0] += 1.0
        return now[0]

    async with db.open(clock=clock) as store:
        for chat, seats, rules, outcome, log, feats in history:
            await logged_game(
                store, seats, outcome, chat_id=chat, moves=log, rules=rules, feats=feats
            )
        before = await dump(db)
        counts = await store.rebuild_achievements()
        assert await dump(db) == before, "rebuilt, the same set as game by game"
        return counts


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(games(), min_size=1, max_size=14))
def test_rebuilding_gives_the_same_set_as_game_by_game_on_both_backends(
    postgres_store_url: str, history: list[Played]
) -> None:
    postgres = PostgresDatabase(postgres_store_url)
    written = (
        "tables, actions, games, game_players, tallies, ratings, rating_history, rated_games, "
        "achievements, achievement_progress"
    )

    async def run(lite: SqliteDatabase) -> None:
        await postgres.query(f"TRUNCATE {written} RESTART IDENTITY")
        counts = await play_all(lite, history)
        assert await play_all(postgres, history) == counts
        assert await dump(postgres) == await dump(lite)
        # never a computer's, never twice (the key), never from an uncounted game
        rows = await lite.query(
            "SELECT a.user_id, r.counted FROM achievements AS a "
            "JOIN rated_games AS r ON r.seq = a.game_id"
        )
        assert all(user is not None and counted == 1 for user, counted in rows)

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(run(SqliteDatabase(Path(folder) / "db.sqlite3")))


async def test_two_processes_finishing_at_once_give_what_one_would(
    postgres_store_url: str,
) -> None:
    """Two stores on one PostgreSQL database (two processes) finish the same players'
    games at the same moments: the ratings' lock orders them, so every game counts once in
    each player's progress and the set is what a rebuild gives."""
    db = PostgresDatabase(postgres_store_url)
    async with db.open() as one, db.open() as two:

        async def games(store: Store, durak: int) -> None:
            for _ in range(6):
                await logged_game(
                    store, (ANN, BOB, CID), ordered(durak, 3), feats=(KNOWN, KNOWN, KNOWN)
                )

        await asyncio.gather(games(one, 0), games(two, 1))
        progress = await db.query("SELECT user_id, games FROM achievement_progress ORDER BY 1")
        assert [tuple(r) for r in progress] == [(1, 12), (2, 12), (3, 12)]
        assert await codes(one, 3) == ["calm_10", "first_win", "games_10"]
        before = await dump(db)
        await one.rebuild_achievements()
        assert await dump(db) == before
