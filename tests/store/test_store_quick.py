"""The quick games' queue, blocks and invitations in the store, on SQLite and PostgreSQL:
a pass over the queue deals a pair a running private table in one transaction, two passes
at once deal nobody twice, and two first presses of one invitation open one table."""

from __future__ import annotations

import asyncio

from store_backends import Database
from store_helpers import FakeClock

from bot.service.quick import pair_up
from bot.store import (
    Invitation,
    NewGame,
    Seat,
    Store,
    TableStatus,
    UserRow,
    Waiting,
    is_private_chat,
    shard_of,
)


def waiting(user: int, now: float, wait: float = 60.0) -> Waiting:
    return Waiting(user, f"P{user}", "en", 25.0, now, now + wait, False, None, None)


def deal(a: Waiting, b: Waiting) -> NewGame:
    seats = (Seat.human(a.user_id, a.name), Seat.human(b.user_id, b.name))
    return NewGame(rules="{}", seats=seats, seed=7, game="g0", deadline=None, shard=5)


async def test_the_queue_keeps_each_player_once(store: Store, clock: FakeClock) -> None:
    assert await store.quick_enter(waiting(1, clock()))
    assert not await store.quick_enter(waiting(1, clock())), "in it already"
    assert await store.quick_message(1, 77)
    found = await store.quick_waiting(1)
    assert found is not None and found.message_id == 77 and not found.offered
    assert await store.quick_wait_more(1, clock() + 10)
    assert await store.quick_leave(1)
    assert not await store.quick_leave(1)
    assert not await store.quick_message(1, 78)
    assert await store.quick_waiting(1) is None


async def test_a_pass_deals_a_pair_a_running_private_table(
    store: Store, database: Database, clock: FakeClock
) -> None:
    for user in (1, 2):
        await store.save_user(UserRow(user, f"P{user}", "en", True))
        await store.quick_enter(waiting(user, clock()))
    done = await store.quick_round(pair_up, deal)
    assert len(done.dealt) == 1 and done.offered == ()
    table, players = done.dealt[0]
    assert [p.user_id for p in players] == [1, 2]
    assert table.status == TableStatus.PLAYING and table.game_no == 1 and table.game == "g0"
    assert is_private_chat(table.chat_id) and shard_of(table.chat_id) == 5
    assert await store.quick_waiting(1) is None and await store.quick_waiting(2) is None
    assert await database.query("SELECT user_id, quick_last FROM users ORDER BY 1") == [
        (1, 2),
        (2, 1),
    ]
    record = await store.game_record(table.table_id, 1)
    assert record is not None and record.chat_id == table.chat_id


async def test_a_lone_player_is_offered_the_computer_once(store: Store, clock: FakeClock) -> None:
    await store.quick_enter(waiting(1, clock(), wait=30))
    assert (await store.quick_round(pair_up, deal)).offered == ()
    clock.advance(31)
    offered = (await store.quick_round(pair_up, deal)).offered
    assert [w.user_id for w in offered] == [1] and offered[0].offered
    assert (await store.quick_round(pair_up, deal)).offered == (), "once"
    await store.quick_wait_more(1, clock() + 30)
    clock.advance(31)
    assert [w.user_id for w in (await store.quick_round(pair_up, deal)).offered] == [1]


async def test_passes_at_once_deal_nobody_twice(store: Store, clock: FakeClock) -> None:
    for user in range(1, 9):
        await store.quick_enter(waiting(user, clock()))
    rounds = await asyncio.gather(*(store.quick_round(pair_up, deal) for _ in range(4)))
    dealt = [p.user_id for r in rounds for _, pair in r.dealt for p in pair]
    assert sorted(dealt) == list(range(1, 9))


async def test_blocked_pairs_are_never_dealt(store: Store, clock: FakeClock) -> None:
    await store.block(1, 2)
    await store.block(1, 2)  # twice: kept once
    assert await store.blocked(1) == [2]
    for user in (1, 2):
        await store.quick_enter(waiting(user, clock()))
    clock.advance(10_000)
    assert (await store.quick_round(pair_up, deal)).dealt == ()


async def test_two_first_presses_open_one_table(store: Store) -> None:
    wanted = Invitation("AAAA", 0, "en", "podkidnoy", 3, 1)
    opened = await asyncio.gather(
        *(store.open_invitation(wanted, 3, "{}", Seat.human(1, "Alice")) for _ in range(3))
    )
    tables = {row.table_id for _, row in opened}
    assert len(tables) == 1
    invitation, row = opened[0]
    assert invitation.table_id == row.table_id and row.status == TableStatus.LOBBY
    assert row.seats == (Seat.human(1, "Alice"),) and shard_of(row.chat_id) == 3
    assert await store.invitation("AAAA") == invitation
    assert await store.invitation_of(row.table_id) == invitation
    assert await store.invitation("BBBB") is None
