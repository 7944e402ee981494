"""The inbox: updates kept as they arrive, once each, until done; a move marks its update
done in its own transaction."""

from __future__ import annotations

import pytest
from store_helpers import RULES, FakeClock, lose, playing_table

from bot.store import DAY, KeptUpdate, Outcome, StaleVersionError, Store


def kept(update_id: int) -> KeptUpdate:
    return KeptUpdate(update_id, f'{{"update_id": {update_id}}}')


async def test_an_update_is_kept_once(store: Store) -> None:
    assert await store.keep_updates([kept(3), kept(1), kept(2)]) == [1, 2, 3]
    again = KeptUpdate(2, '{"update_id": 2, "changed": true}')
    assert await store.keep_updates([again, kept(4)]) == [4], "a redelivered one is not new"
    assert await store.keep_updates([]) == []
    twice = [kept(5), KeptUpdate(5, '{"update_id": 5, "twice": true}')]
    assert await store.keep_updates(twice) == [5], "twice in one batch: kept once"
    pending = await store.pending_updates()
    assert pending == [kept(1), kept(2), kept(3), kept(4), kept(5)], "in order, first body kept"


async def test_a_move_marks_its_update_done_in_its_own_transaction(store: Store) -> None:
    table = await playing_table(store)
    await store.keep_updates([kept(10), kept(11)])
    saved = await store.save_action(
        table.table_id, table.version, game="s1", action="a1", seat=0, update_id=10
    )
    assert [u.update_id for u in await store.pending_updates()] == [11]
    # a refused save marks nothing: the update is handled again after a crash
    with pytest.raises(StaleVersionError):
        await store.save_action(
            table.table_id, table.version, game="x", action="x", seat=1, update_id=11
        )
    assert [u.update_id for u in await store.pending_updates()] == [11]
    # a move of the clock names no update
    await store.save_action(table.table_id, saved.version, game="s2", action="a2", seat=1)
    assert [u.update_id for u in await store.pending_updates()] == [11]


async def test_the_last_move_and_a_start_mark_their_updates_done(store: Store) -> None:
    table = await playing_table(store)
    await store.keep_updates([kept(20), kept(21), kept(22)])
    saved = await store.save_action(
        table.table_id,
        table.version,
        game="end",
        action="a1",
        seat=0,
        outcome=lose(1, 2),
        update_id=20,
    )
    assert [u.update_id for u in await store.pending_updates()] == [21, 22]
    lobby = await store.create_table(-7, rules=RULES)
    await store.start_game(lobby.table_id, lobby.version, seed=1, game="s0", update_id=22)
    assert [u.update_id for u in await store.pending_updates()] == [21]
    await store.finish_update(21)
    await store.finish_update(21)
    assert await store.pending_updates() == []
    assert saved.seq == 1


async def test_done_updates_are_forgotten_after_a_day(store: Store, clock: FakeClock) -> None:
    await store.keep_updates([kept(1), kept(2), kept(3)])
    await store.finish_update(1)
    clock.advance(DAY / 2)
    await store.finish_update(2)
    clock.advance(DAY / 2 + 1)
    assert await store.prune_updates() == 1
    assert [u.update_id for u in await store.pending_updates()] == [3], "pending stays"
    assert await store.keep_updates([kept(2)]) == [], "done within the day: still known"
    assert await store.keep_updates([kept(1)]) == [1]


async def test_a_failed_finish_leaves_its_update_pending(store: Store) -> None:
    # The last move's transaction fails after its UPDATE (the outcome names a third seat
    # of two): the update it handles is not done, and nothing of the move is kept.
    table = await playing_table(store)
    await store.keep_updates([kept(30)])
    bad = Outcome(durak_seats=(2,), draw=False, pogony=False, points=(2, 2))
    with pytest.raises(ValueError, match="out of range"):
        await store.save_action(
            table.table_id,
            table.version,
            game="end",
            action="a1",
            seat=0,
            outcome=bad,
            update_id=30,
        )
    assert await store.pending_updates() == [kept(30)]
    assert await store.get_table(table.table_id) == table
    assert await store.game_log(table.table_id, 1) == []
    await store.save_action(
        table.table_id,
        table.version,
        game="end",
        action="a1",
        seat=0,
        outcome=lose(1, 2),
        update_id=30,
    )
    assert await store.pending_updates() == []


async def test_an_update_done_by_its_move_is_forgotten_a_day_after_the_move(
    store: Store, clock: FakeClock
) -> None:
    table = await playing_table(store)
    await store.keep_updates([kept(40)])
    clock.advance(DAY / 2)
    await store.save_action(
        table.table_id, table.version, game="s1", action="a1", seat=0, update_id=40
    )
    clock.advance(DAY / 2 + 1)
    assert await store.prune_updates() == 0, "done half a day ago, when the move was saved"
    clock.advance(DAY / 2)
    assert await store.prune_updates() == 1
    assert await store.keep_updates([kept(40)]) == [40]


async def test_an_earlier_update_of_a_private_chat_is_known_until_done(store: Store) -> None:
    def private(update_id: int, chat: int, kind: str = "message") -> KeptUpdate:
        body = f'{{"update_id": {update_id}, "{kind}": {{"chat": {{"id": {chat}}}}}}}'
        return KeptUpdate(update_id, body, chat % 64)

    group = KeptUpdate(23, '{"update_id": 23, "message": {"chat": {"id": -100}}}', 28)
    await store.keep_updates([private(20, 7), private(21, 8, "my_chat_member"), group])
    assert await store.earlier_private_update(7, 23)
    assert await store.earlier_private_update(8, 23), "his unblocking the bot counts too"
    assert not await store.earlier_private_update(7, 20), "only an older one"
    assert not await store.earlier_private_update(9, 23), "only his own chat's"
    await store.finish_update(20)
    assert not await store.earlier_private_update(7, 23), "done"
    assert await store.earlier_private_update(8, 23)
    # an update of the process's own making (a negative id) is nobody's earlier one
    await store.keep_updates([KeptUpdate(-5, '{"message": {"chat": {"id": 9}}}', 9)])
    assert not await store.earlier_private_update(9, 30)
