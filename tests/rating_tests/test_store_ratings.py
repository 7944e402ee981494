"""Ratings through the store: each finished game rated as its result is saved, from its
action log; what does not count; boards, places, history, partners; a group's new id."""

from __future__ import annotations

import asyncio

from store_backends import Database

from bot.ratings.model import NEWCOMER, OVERALL, SAME_PAIR_PER_DAY, VS_COMPUTER
from bot.store import Outcome, Store, UserRow, private_chat
from engine import Game, Rules
from engine.actions import Resign, Timeout

from .helpers import (
    ANN,
    BOB,
    CID,
    DAN,
    EASY,
    HARD,
    PAIRS,
    drawn,
    logged_game,
    lost,
    team_lost,
)

GROUP = -100


async def rated(db: Database) -> list[tuple[object, ...]]:
    return await db.query(
        "SELECT seq, table_id, game_no, counted, reason FROM rated_games ORDER BY seq"
    )


async def dump(db: Database) -> tuple[list[tuple[object, ...]], ...]:
    """Every rating table, in a fixed order."""
    return tuple(
        [
            await db.query(f"SELECT * FROM {table} ORDER BY 1, 2, 3")
            for table in ("ratings", "rating_history", "rated_games")
        ]
    )


async def test_a_finished_game_is_rated_with_its_result(store: Store, database: Database) -> None:
    table, game_no = await logged_game(store, (ANN, BOB, CID), lost(1, 3))
    group = await store.ratings_of(GROUP, [1, 2, 3, 99])
    assert sorted(group) == [1, 2, 3]
    assert group[2].mu < NEWCOMER.mu < group[1].mu
    assert (group[2].games, group[2].durak, group[1].durak) == (1, 1, 0)
    assert sorted(await store.ratings_of(OVERALL, [1, 2, 3])) == [1, 2, 3]
    assert await store.ratings_of(VS_COMPUTER, [1, 2, 3]) == {}
    assert await rated(database) == [(1, table, game_no, 1, None)]


async def test_leaving_and_running_out_of_time_count_as_lost(store: Store) -> None:
    # a real game: three moves each, then one of them leaves; the engine makes him durak
    rules = Rules.preset("podkidnoy")
    played = Game.new(rules, players=3, seed=5)
    log: list[tuple[int, str]] = []
    while min(sum(1 for s, _ in log if s == seat) for seat in range(3)) < 3:
        seat = played.to_act()[0]
        move = played.legal_actions(seat)[0]
        played.apply(move)
        log.append((seat, move.to_dict()["type"]))
        assert played.result is None
    played.apply(Resign(2))
    assert played.result is not None
    log.append((2, "resign"))
    await logged_game(store, (ANN, BOB, CID), Outcome.from_result(played.result), moves=log)
    group = await store.ratings_of(GROUP, [1, 2, 3])
    assert (group[3].durak, group[1].durak, group[2].durak) == (1, 0, 0)
    assert group[3].mu < NEWCOMER.mu

    timed = Game.new(rules.model_copy(update={"on_timeout": "durak"}), players=2, seed=3)
    log = []
    while min(sum(1 for s, _ in log if s == seat) for seat in range(2)) < 3 or not (
        timed.waiting_on()
    ):
        seat = timed.to_act()[0]
        move = timed.legal_actions(seat)[0]
        timed.apply(move)
        log.append((seat, move.to_dict()["type"]))
        assert timed.result is None
    waited = timed.waiting_on()[0]
    timed.apply(Timeout(waited))
    assert timed.result is not None and timed.result.timed_out == waited
    log.append((waited, "timeout"))
    await logged_game(store, (ANN, DAN), Outcome.from_result(timed.result), moves=log)
    loser = (ANN, DAN)[waited].user_id
    assert loser is not None
    assert (await store.ratings_of(GROUP, [loser]))[loser].durak == 1


async def test_a_cancelled_game_is_not_rated(store: Store, database: Database) -> None:
    await logged_game(store, (ANN, BOB), None)
    assert await rated(database) == []
    assert await store.player_ratings(1) == []


async def test_a_game_counts_only_if_every_human_made_three_moves(
    store: Store, database: Database
) -> None:
    # Bob leaves after two moves of his: nobody's rating moves
    moves = [(0, "lead"), (1, "cover"), (0, "throw"), (1, "take"), (0, "lead"), (1, "resign")]
    await logged_game(store, (ANN, BOB), lost(1, 2), moves=moves)
    # the clock moving for him is not his move either
    clock = [(0, "pass"), (1, "pass"), (0, "pass"), (1, "timeout"), (0, "pass"), (1, "pass")]
    clock += [(1, "timeout"), (1, "timeout"), (1, "timeout")]
    await logged_game(store, (ANN, BOB), lost(1, 2), moves=clock)
    assert [r[3:] for r in await rated(database)] == [(0, "few_moves"), (0, "few_moves")]
    assert await store.player_ratings(1) == []
    # three moves each, and it counts
    enough = [*clock[:6], (1, "take")]
    await logged_game(store, (ANN, BOB), lost(1, 2), moves=enough)
    assert (await rated(database))[-1][3:] == (1, None)
    assert (await store.ratings_of(GROUP, [2]))[2].games == 1


async def test_a_game_against_the_computer_moves_only_that_rating(
    store: Store, database: Database
) -> None:
    await logged_game(store, (ANN, BOB), lost(1, 2))
    before = {r.scope: r for r in await store.player_ratings(1)}
    # a group game with a computer player, then a game in Ann's private chat
    await logged_game(store, (ANN, HARD, BOB), lost(1, 3))
    await logged_game(store, (ANN, EASY), lost(1, 2), chat_id=1)
    after = {r.scope: r for r in await store.player_ratings(1)}
    assert after[GROUP] == before[GROUP] and after[OVERALL] == before[OVERALL]
    assert after[VS_COMPUTER].games == 2 and after[VS_COMPUTER].mu > NEWCOMER.mu
    assert sorted(await store.ratings_of(VS_COMPUTER, [1, 2])) == [1, 2]
    users = {u for (u,) in await database.query("SELECT user_id FROM ratings")}
    assert users == {1, 2}  # no line for a computer level


async def test_draws_and_teams(store: Store) -> None:
    await logged_game(store, (ANN, BOB, CID), drawn(3))
    group = await store.ratings_of(GROUP, [1, 2, 3])
    assert {r.durak for r in group.values()} == {0}
    assert {r.mu for r in group.values()} == {NEWCOMER.mu}
    await logged_game(store, (ANN, BOB, CID, DAN), team_lost((1, 3), 4), rules=PAIRS, chat_id=-300)
    teams = await store.ratings_of(-300, [1, 2, 3, 4])
    assert teams[1].mu == teams[3].mu > NEWCOMER.mu > teams[2].mu == teams[4].mu
    assert (teams[2].durak, teams[4].durak, teams[1].durak) == (1, 1, 0)


async def test_boards_places_history_and_partners(store: Store) -> None:
    await store.save_user(UserRow(1, "Ann Renamed"))
    for durak in (1, 1, 2, 1):
        await logged_game(store, (ANN, BOB, CID), lost(durak, 3))
    board = await store.rating_board(GROUP)
    assert [r.user_id for r in board] == [1, 3, 2]
    assert board[0].name == "Ann Renamed" and board[1].name == "Cid"  # his name now
    assert [await store.rating_place(GROUP, u) for u in (1, 2, 3, 9)] == [1, 3, 2, None]
    assert [r.user_id for r in await store.rating_board(GROUP, limit=1)] == [1]
    history = await store.rating_history(2, [GROUP, OVERALL])
    assert [p.scope for p in history] == [GROUP, OVERALL] * 4  # ordered by game, then scope
    group = [p for p in history if p.scope == GROUP]
    assert group[-1].mu == (await store.ratings_of(GROUP, [2]))[2].mu
    assert NEWCOMER.mu > group[0].mu > group[1].mu < group[2].mu  # lost, lost, won
    # team games: Ann with Cid twice (won once), with Dan once (lost)
    await logged_game(store, (ANN, BOB, CID, DAN), team_lost((1, 3), 4), rules=PAIRS)
    await logged_game(store, (ANN, BOB, CID, DAN), team_lost((0, 2), 4), rules=PAIRS)
    await logged_game(store, (ANN, CID, BOB, DAN), team_lost((0, 2), 4), rules=PAIRS)
    partners = {p.name: (p.games, p.won) for p in await store.partners(1)}
    assert partners == {"Cid": (2, 1), "Bob": (1, 0)}


async def test_rebuilding_gives_the_same_numbers(store: Store, database: Database) -> None:
    await logged_game(store, (ANN, BOB, CID), lost(1, 3))
    await logged_game(store, (ANN, BOB), lost(0, 2), moves=[(0, "pass"), (1, "resign")])
    await logged_game(store, (ANN, BOB, CID, DAN), team_lost((0, 2), 4), rules=PAIRS)
    await logged_game(store, (ANN, EASY), lost(1, 2), chat_id=1)
    await logged_game(store, (BOB, CID), drawn(2), chat_id=-200)
    await logged_game(store, (BOB, CID), None)
    before = await dump(database)
    assert await store.rebuild_ratings() == (4, 5)
    assert await dump(database) == before
    # from nothing at all, too
    for table in ("ratings", "rating_history", "rated_games"):
        await database.query(f"DELETE FROM {table}")
    assert await store.rebuild_ratings() == (4, 5)
    assert await dump(database) == before


async def test_a_group_moved_to_a_new_id_keeps_its_ratings(
    store: Store, database: Database
) -> None:
    await logged_game(store, (ANN, BOB), lost(1, 2))
    await logged_game(store, (ANN, BOB), lost(0, 2))
    old = await store.ratings_of(GROUP, [1, 2])
    overall = await store.ratings_of(OVERALL, [1, 2])
    await store.migrate_chat(GROUP, -1000)
    assert await store.ratings_of(GROUP, [1, 2]) == {}
    new = await store.ratings_of(-1000, [1, 2])
    assert {u: (r.mu, r.sigma, r.games) for u, r in new.items()} == {
        u: (r.mu, r.sigma, r.games) for u, r in old.items()
    }
    assert await store.ratings_of(OVERALL, [1, 2]) == overall
    assert [p.scope for p in await store.rating_history(1, [GROUP, -1000])] == [-1000, -1000]
    before = await dump(database)
    await store.rebuild_ratings()
    assert await dump(database) == before


async def test_a_rating_that_fails_does_not_cost_the_game(store: Store, database: Database) -> None:
    await database.query("DROP TABLE rating_history")  # every rating now fails
    table, _ = await logged_game(store, (ANN, BOB), lost(1, 2))
    record = await store.game_record(table, 1)
    assert record is not None and record.outcome == lost(1, 2)
    assert [t.games for t in await store.chat_stats(GROUP)] == [1, 1]
    assert await store.player_ratings(1) == []


async def test_games_finishing_at_once_are_rated_one_after_another(
    store: Store, database: Database
) -> None:
    # The same players finish games at several tables at once (PostgreSQL's store writes
    # them on connections of their own): each rating reads the one before it, as
    # rebuilding them in their order does. (Three pairs, four games each: every game
    # counts.)
    pairs = ((ANN, BOB), (ANN, CID), (BOB, CID))

    async def game(i: int) -> None:
        await logged_game(store, pairs[i % 3], lost(i % 2, 2), chat_id=-100 - i % 3)

    await asyncio.gather(*(game(i) for i in range(12)))
    before = await dump(database)
    assert len(before[2]) == 12 and {line[3] for line in before[2]} == {1}
    assert (await store.ratings_of(OVERALL, [1]))[1].games == 8
    assert await store.rebuild_ratings() == (12, 12)
    assert await dump(database) == before


async def test_two_players_alone_count_nine_games_a_day(store: Store, database: Database) -> None:
    # a quick game's table: no group, so the overall rating alone moves
    private = private_chat(1_000, 3)
    for i in range(SAME_PAIR_PER_DAY + 3):
        await logged_game(store, (ANN, BOB), lost(i % 2, 2), chat_id=private)
    marks = [(counted, reason) for _, _, _, counted, reason in await rated(database)]
    assert marks == [(1, None)] * SAME_PAIR_PER_DAY + [(0, "same_pair")] * 3
    overall = await store.ratings_of(OVERALL, [1, 2])
    assert overall[1].games == overall[2].games == SAME_PAIR_PER_DAY
    assert await store.ratings_of(private, [1, 2]) == {}
    # another opponent counts; so does a game of three with the same two in it
    await logged_game(store, (ANN, CID), lost(1, 2), chat_id=private)
    await logged_game(store, (ANN, BOB, CID), lost(2, 3))
    assert [c for _, _, _, c, _ in await rated(database)][-2:] == [1, 1]
    before = await dump(database)
    await store.rebuild_ratings()
    assert await dump(database) == before, "rebuilding counts the pairs alike"
