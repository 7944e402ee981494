"""Tournaments in the store, on SQLite and PostgreSQL: signing up, the start, who left, the
games that count, the tables between two games (what a restart or a new holder deals
next), the end told once, and the wins the group's /stats and the achievements read."""

from __future__ import annotations

from store_helpers import ALICE, BORIS, RULES, VERA, FakeClock, lose

from bot.store import (
    Seat,
    Store,
    TableStatus,
    TourneyEnded,
    TourneyStatus,
    UserRow,
    shard_of,
)


async def finish_game(store: Store, table_id: int, durak: int) -> None:
    """Deal the table's next game and end it at once with ``durak``."""
    row = await store.get_table(table_id)
    assert row is not None
    if row.status == TableStatus.FINISHED:
        await store.update_lobby(table_id, row.version, reopen=True)
        row = await store.get_table(table_id)
        assert row is not None
    started = await store.start_game(table_id, row.version, seed=1, game="s0")
    players = len(started.seats)
    await store.save_action(
        table_id, started.version, game="end", action="a1", seat=0, outcome=lose(durak, players)
    )


async def test_a_tournament_signs_up_starts_and_ends_once(store: Store, clock: FakeClock) -> None:
    lobby = await store.create_table(-100, rules=RULES, creator_id=1, seats=(ALICE, BORIS, VERA))
    opened = await store.open_tourney(lobby.table_id, -100, 5)
    assert (opened.status, opened.games, opened.first_game, opened.gone) == (
        TourneyStatus.OPEN,
        5,
        0,
        (),
    )
    assert await store.set_tourney_games(lobby.table_id, 3)
    assert await store.start_tourney(lobby.table_id, 1)
    assert not await store.start_tourney(lobby.table_id, 1), "started once"
    assert not await store.set_tourney_games(lobby.table_id, 7), "no change after the start"
    running = await store.tourney(lobby.table_id)
    assert running is not None and running.status == TourneyStatus.RUNNING
    assert (running.games, running.first_game, running.last_game) == (3, 1, 3)
    # between two games: the table is finished, the tournament running
    await finish_game(store, lobby.table_id, durak=2)
    between = await store.tourneys_between()
    assert [t.table_id for t in between] == [lobby.table_id]
    assert [t.table_id for t in await store.tourneys_between(chat_id=-100)] == [lobby.table_id]
    assert await store.tourneys_between(chat_id=-999) == []
    assert [t.table_id for t in await store.tourneys_between([shard_of(-100)])] == [lobby.table_id]
    assert await store.tourneys_between([(shard_of(-100) + 1) % 64]) == []
    assert await store.tourneys_between([]) == []
    # Vera leaves: once, however often it is said
    await store.tourney_leave(lobby.table_id, VERA.player)
    left = await store.tourney_leave(lobby.table_id, VERA.player)
    assert left is not None and left.gone == (VERA.player,)
    await finish_game(store, lobby.table_id, durak=1)
    games = await store.tourney_games(left)
    assert [g.game_no for g in games] == [1, 2]
    assert [g.outcome.durak_seats for g in games if g.outcome] == [(2,), (1,)]
    clock.advance(5)
    assert await store.end_tourney(lobby.table_id, TourneyStatus.DONE, ALICE) == TourneyEnded(
        (ALICE.user_id,)
    )
    assert await store.end_tourney(lobby.table_id, TourneyStatus.CANCELLED) is None, "ended once"
    done = await store.tourney(lobby.table_id)
    assert done is not None and done.status == TourneyStatus.DONE
    assert (done.champion, done.champion_user, done.champion_name) == ("u:1", 1, "Alice")
    assert done.finished_at == clock()
    assert await store.tourneys_between() == []


async def test_wins_by_group_and_by_player(store: Store, clock: FakeClock) -> None:
    await store.save_user(UserRow(1, "Alice Renamed", "en", True))
    for chat, champion in ((-100, ALICE), (-100, BORIS), (-200, ALICE), (-100, None)):
        lobby = await store.create_table(chat, rules=RULES, creator_id=1, seats=(ALICE, BORIS))
        await store.open_tourney(lobby.table_id, chat, 3)
        await store.start_tourney(lobby.table_id, 1)
        clock.advance(1)
        status = TourneyStatus.DONE if champion is not None else TourneyStatus.CANCELLED
        await store.end_tourney(lobby.table_id, status, champion)
    computer = await store.create_table(-100, rules=RULES, seats=(Seat.computer("Bot", "easy"),))
    await store.open_tourney(computer.table_id, -100, 3)
    await store.end_tourney(computer.table_id, TourneyStatus.DONE, Seat.computer("Bot", "easy"))
    here = await store.tourney_wins(chat_id=-100)
    # a computer champion's win is kept by its key, as the series keep its games
    assert [(w.user_id, w.name, w.player) for w in here] == [
        (1, "Alice Renamed", "u:1"),
        (2, "Boris", "u:2"),
        (None, "Bot", "ai:Bot"),
    ]
    assert [w.at for w in here] == sorted(w.at for w in here)
    mine = await store.tourney_wins(user_id=1)
    assert [w.chat_id for w in mine] == [-100, -200]
    assert [w.chat_id for w in await store.tourney_wins(chat_id=-200, user_id=2)] == []
    assert len(await store.tourney_wins()) == 4


async def test_a_cancelled_start_signs_up_again(store: Store) -> None:
    lobby = await store.create_table(-100, rules=RULES, creator_id=1, seats=(ALICE, BORIS))
    await store.open_tourney(lobby.table_id, -100, 5)
    assert await store.start_tourney(lobby.table_id, 1)
    await store.unstart_tourney(lobby.table_id)
    again = await store.tourney(lobby.table_id)
    assert again is not None and (again.status, again.first_game) == (TourneyStatus.OPEN, 0)
    assert await store.tourney_games(again) == []
    assert await store.tourney(12345) is None


async def test_a_group_upgraded_keeps_its_tournaments(store: Store) -> None:
    lobby = await store.create_table(-100, rules=RULES, creator_id=1, seats=(ALICE, BORIS))
    await store.open_tourney(lobby.table_id, -100, 3)
    await store.end_tourney(lobby.table_id, TourneyStatus.DONE, ALICE)
    await store.migrate_chat(-100, -1001)
    assert [w.chat_id for w in await store.tourney_wins(user_id=1)] == [-1001]


async def test_the_champion_is_given_the_achievement_once_and_a_rebuild_keeps_it(
    store: Store, clock: FakeClock
) -> None:
    first = await store.create_table(-100, rules=RULES, creator_id=1, seats=(ALICE, BORIS))
    await store.open_tourney(first.table_id, -100, 3)
    assert await store.start_tourney(first.table_id, 1)
    await finish_game(store, first.table_id, durak=1)
    clock.advance(5)
    ended = await store.end_tourney(first.table_id, TourneyStatus.DONE, ALICE)
    assert ended == TourneyEnded((ALICE.user_id,)), "the call that ends it says it gave it"
    assert await store.end_tourney(first.table_id, TourneyStatus.DONE, ALICE) is None
    won = [a for a in await store.achievements_of(ALICE.user_id) if a.code == "tournament"]
    assert len(won) == 1 and won[0].earned_at == clock.now
    assert [
        a.code for a in await store.achievements_of(BORIS.user_id) if a.code == "tournament"
    ] == []
    # a cancelled tournament names nobody and gives nothing
    second = await store.create_table(-200, rules=RULES, creator_id=2, seats=(ALICE, BORIS))
    await store.open_tourney(second.table_id, -200, 3)
    assert await store.end_tourney(second.table_id, TourneyStatus.CANCELLED) == TourneyEnded()
    assert [
        a.code for a in await store.achievements_of(BORIS.user_id) if a.code == "tournament"
    ] == []
    # forgotten and rebuilt: the tournaments table gives it back, as of the win
    await store.rebuild_achievements({})
    again = [a for a in await store.achievements_of(ALICE.user_id) if a.code == "tournament"]
    assert [(a.code, a.earned_at) for a in again] == [("tournament", won[0].earned_at)]


async def test_a_second_win_or_a_computer_champion_gives_nothing_new(store: Store) -> None:
    first = await store.create_table(-100, rules=RULES, creator_id=1, seats=(ALICE, BORIS))
    await store.open_tourney(first.table_id, -100, 3)
    assert await store.end_tourney(first.table_id, TourneyStatus.DONE, ALICE) == TourneyEnded(
        (ALICE.user_id,)
    )
    second = await store.create_table(-100, rules=RULES, creator_id=1, seats=(ALICE, BORIS))
    await store.open_tourney(second.table_id, -100, 3)
    ended = await store.end_tourney(second.table_id, TourneyStatus.DONE, ALICE)
    assert ended == TourneyEnded(), "ended by this call, but Alice had it: nothing new"
    bot = Seat.computer("Bot", "hard")
    third = await store.create_table(-100, rules=RULES, creator_id=2, seats=(bot, BORIS))
    await store.open_tourney(third.table_id, -100, 3)
    assert await store.end_tourney(third.table_id, TourneyStatus.DONE, bot) == TourneyEnded()
    codes = [a.code for a in await store.achievements_of(ALICE.user_id)]
    assert codes.count("tournament") == 1
