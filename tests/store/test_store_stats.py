"""Series tallies, a chat's stats, a player's history, stale lobbies, group → supergroup."""

from __future__ import annotations

from store_helpers import ALICE, BORIS, BOT, RULES, VERA, FakeClock, draw, lose, play, playing_table

from bot.store import (
    DAY,
    ChatRow,
    Outcome,
    Seat,
    Store,
    TableStatus,
    TallyRow,
    UserRow,
)


async def finish(
    store: Store,
    chat_id: int,
    seats: tuple[Seat, ...],
    outcome: Outcome,
    moves: int = 2,
) -> int:
    """Play a whole (fake) game at a new table; its table id."""
    table = await playing_table(store, chat_id=chat_id, seats=seats)
    version = await play(store, table, moves)
    await store.save_action(
        table.table_id, version, game="end", action="last", seat=0, outcome=outcome
    )
    return table.table_id


def counts(row: TallyRow) -> tuple[int, int, int, int, int]:
    return (row.games, row.durak, row.pogony, row.draws, row.points)


async def test_tallies_count_every_finished_game(store: Store, clock: FakeClock) -> None:
    await finish(store, -100, (ALICE, BORIS, BOT), lose(1, 3))
    clock.advance(10)
    await finish(store, -100, (ALICE, BORIS), lose(0, 2, pogony=True))
    clock.advance(10)
    await finish(store, -100, (BORIS, BOT), draw(2))
    clock.advance(10)
    team = Outcome(durak_seats=(1, 3), draw=False, pogony=True, points=(2, 0, 2, 0))
    await finish(store, -100, (ALICE, BORIS, VERA, BOT), team)

    stats = {t.player: t for t in await store.chat_stats(-100)}
    assert counts(stats["u:1"]) == (3, 1, 1, 0, 4)
    assert counts(stats["u:2"]) == (4, 2, 1, 1, 3)
    assert counts(stats["u:3"]) == (1, 0, 0, 0, 2)
    assert counts(stats["ai:Bot"]) == (3, 1, 1, 1, 3)
    assert stats["ai:Bot"].user_id is None
    assert stats["u:2"].last_played == clock.now
    assert stats["u:1"].last_played == clock.now
    assert (await store.chat_stats(-200)) == []


async def test_chat_stats_sorted(store: Store, clock: FakeClock) -> None:
    await finish(store, -100, (ALICE, BORIS), lose(0, 2))
    clock.advance(1)
    await finish(store, -100, (ALICE, VERA), lose(0, 2))
    clock.advance(1)
    await finish(store, -100, (BORIS, VERA), lose(0, 2, pogony=True))
    clock.advance(1)
    await finish(store, -100, (VERA, BOT), lose(1, 2))
    # points: Alice 0 (2 games, durak 2), Boris 2 (2 games, durak 1), Вера 6 (3 games),
    # Bot 0 (1 game, durak 1).
    by_points = [t.name for t in await store.chat_stats(-100)]
    assert by_points == ["Вера", "Boris", "Bot", "Alice"]
    by_durak = [t.name for t in await store.chat_stats(-100, by="durak")]
    assert by_durak == ["Alice", "Boris", "Bot", "Вера"]
    by_games = [t.name for t in await store.chat_stats(-100, by="games")]
    assert by_games == ["Вера", "Boris", "Alice", "Bot"]
    recent = [t.name for t in await store.chat_stats(-100, by="recent")]
    assert recent[:2] == ["Bot", "Вера"] or recent[:2] == ["Вера", "Bot"]


async def test_stats_show_the_users_current_name(store: Store) -> None:
    await finish(store, -100, (ALICE, BORIS), lose(0, 2))
    await store.save_user(UserRow(1, "Alice Liddell"))
    names = {t.player: t.name for t in await store.chat_stats(-100)}
    assert names == {"u:1": "Alice Liddell", "u:2": "Boris"}


async def test_a_players_history_across_chats(store: Store, clock: FakeClock) -> None:
    first = await finish(store, -100, (ALICE, BORIS), lose(0, 2, pogony=True))
    clock.advance(100)
    second = await finish(store, -200, (BORIS, ALICE, BOT), draw(3))
    clock.advance(100)
    await finish(store, -300, (BORIS, VERA), lose(1, 2))
    history = await store.player_history(ALICE.user_id or 0)
    assert [(h.chat_id, h.table_id, h.seat, h.players) for h in history] == [
        (-200, second, 1, 3),
        (-100, first, 0, 2),
    ]
    assert (history[0].draw, history[0].durak, history[0].points) == (True, False, 1)
    assert (history[1].durak, history[1].pogony, history[1].points) == (True, True, 0)
    assert len(await store.player_history(2, limit=2)) == 2
    tallies = await store.player_tallies(1)
    assert [(t.chat_id, t.games) for t in tallies] == [(-200, 1), (-100, 1)]
    assert await store.player_history(42) == []


async def test_stale_lobbies_are_removed_after_a_day(store: Store, clock: FakeClock) -> None:
    old = await store.create_table(-100, rules=RULES)
    started = await playing_table(store)
    cancelled = await store.create_table(-100, rules=RULES)
    await store.cancel_table(cancelled.table_id, cancelled.version)
    clock.advance(DAY - 60)
    young = await store.create_table(-100, rules=RULES)
    assert await store.purge_stale_lobbies() == []
    clock.advance(120)
    removed = await store.purge_stale_lobbies()
    assert [t.table_id for t in removed] == [old.table_id]
    assert await store.get_table(old.table_id) is None
    assert await store.get_table(young.table_id) is not None
    assert await store.get_table(started.table_id) is not None
    assert await store.get_table(cancelled.table_id) is not None
    # Ids are never reused, so an old log can never be mistaken for a new table's.
    fresh = await store.create_table(-100, rules=RULES)
    assert fresh.table_id > young.table_id
    clock.advance(1)
    assert [t.table_id for t in await store.purge_stale_lobbies(max_age=0)] == [
        young.table_id,
        fresh.table_id,
    ]


async def test_migrate_chat_keeps_tables_and_tallies(store: Store, clock: FakeClock) -> None:
    old, new = -100, -1001234567890
    await store.save_chat(ChatRow(old, language="ru", default_rules=RULES))
    await finish(store, old, (ALICE, BORIS), lose(1, 2))
    running = await playing_table(store, chat_id=old)
    lobby = await store.create_table(old, rules=RULES)
    # The supergroup already has a game of its own (a message raced the migration).
    await store.save_chat(ChatRow(new, language="en"))
    clock.advance(50)
    await finish(store, new, (ALICE, VERA), lose(0, 2))

    await store.migrate_chat(old, new)
    await store.migrate_chat(new, new)  # no-op

    assert await store.get_chat(old) is None
    assert await store.get_chat(new) == ChatRow(new, language="en", default_rules=RULES)
    assert await store.chat_tables(old) == []
    assert [t.table_id for t in await store.chat_tables(new)] == [
        running.table_id,
        lobby.table_id,
    ]
    assert all(t.chat_id == new for t in await store.running_tables())
    assert await store.chat_stats(old) == []
    stats = {t.player: t for t in await store.chat_stats(new)}
    assert counts(stats["u:1"]) == (2, 1, 0, 0, 2)
    assert counts(stats["u:2"]) == (1, 1, 0, 0, 0)
    assert counts(stats["u:3"]) == (1, 0, 0, 0, 2)
    assert stats["u:1"].last_played == clock.now
    assert {h.chat_id for h in await store.player_history(1)} == {new}
    assert len(await store.chat_games(new)) == 2
    # The old group's tables keep playing under the new id.
    saved = await store.save_action(
        running.table_id, running.version, game="s1", action="a1", seat=0
    )
    assert saved.seq == 1
    row = await store.get_table(running.table_id)
    assert row is not None and row.status is TableStatus.PLAYING and row.chat_id == new


async def test_the_tables_of_a_deleted_topic_move_to_the_general_chat(store: Store) -> None:
    forum = -1001234567890
    gone = await store.create_table(forum, rules=RULES, thread_id=5, creator_id=1)
    await store.set_messages(gone.table_id, group_message_id=40)
    other = await store.create_table(forum, rules=RULES, thread_id=9, creator_id=1)
    elsewhere = await store.create_table(-100, rules=RULES, thread_id=5, creator_id=1)

    await store.leave_topic(forum, 5)

    moved = await store.get_table(gone.table_id)
    assert moved is not None and (moved.thread_id, moved.group_message_id) == (None, None)
    assert moved.version == gone.version, "the game's buttons stay current"
    assert (await store.latest_table(forum, None)) == gone.table_id
    for kept in (other, elsewhere):
        assert await store.get_table(kept.table_id) == kept


async def test_last_played_never_goes_back_when_games_end_out_of_order(
    store: Store, clock: FakeClock
) -> None:
    # two tables of one group end at once: the one that ended later is written first
    clock.now = 2_000.0
    await finish(store, -7, (ALICE, BORIS), lose(1, 2))
    clock.now = 1_990.0
    await finish(store, -7, (ALICE, BORIS), lose(0, 2))
    rows = {r.player: r for r in await store.chat_stats(-7)}
    assert {p: (r.games, r.last_played) for p, r in rows.items()} == {
        "u:1": (2, 2_000.0),
        "u:2": (2, 2_000.0),
    }
