"""A chat's budget shared by the processes that write to it: slots handed out in turn
whoever asks, a private chat's and a group's each by its own budget, a flood wait seen by
all."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.cluster.pace import SharedBudgets
from bot.transport.pacing import Pacer, Pacing, Priority, paced

PACING = Pacing(private_interval=1.0, private_burst=3, group_interval=4.0, group_burst=5)


@pytest.fixture
async def pools(postgres_store_url: str) -> AsyncIterator[tuple[asyncpg.Pool, asyncpg.Pool]]:
    """Two processes' connections to one database."""
    first = await asyncpg.create_pool(postgres_store_url, min_size=1, max_size=2)
    second = await asyncpg.create_pool(postgres_store_url, min_size=1, max_size=2)
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()


async def test_two_processes_share_one_chats_budget(
    pools: tuple[asyncpg.Pool, asyncpg.Pool],
) -> None:
    a, b = SharedBudgets(pools[0], PACING), SharedBudgets(pools[1], PACING)
    # eight messages to one chat, in turn from each process, asked within a few ms:
    # a burst of three at once, then one a second, as if one process sent them all
    waits = [await (a if n % 2 else b).reserve(42) for n in range(8)]
    assert waits[:3] == pytest.approx([0, 0, 0], abs=0.25)
    assert waits[3:] == pytest.approx([1, 2, 3, 4, 5], abs=0.25)
    # another chat has its own budget
    assert await a.reserve(43) == pytest.approx(0, abs=0.25)
    assert a.reserved + b.reserved == 9


async def test_a_flood_wait_holds_for_every_process(
    pools: tuple[asyncpg.Pool, asyncpg.Pool],
) -> None:
    a, b = SharedBudgets(pools[0], PACING), SharedBudgets(pools[1], PACING)
    await a.pause(42, 10.0)
    # nothing before the wait is over; then the budget refills from empty
    assert await b.reserve(42) == pytest.approx(10.0, abs=0.25)
    assert await a.reserve(42) == pytest.approx(11.0, abs=0.25)


async def test_a_groups_budget_is_shared_as_its_shard_changes_hands(
    pools: tuple[asyncpg.Pool, asyncpg.Pool],
) -> None:
    a, b = SharedBudgets(pools[0], PACING), SharedBudgets(pools[1], PACING)
    # the old holder spent the group's burst; the new one goes on at the group's pace
    waits = [await a.reserve(-100123) for _ in range(5)]
    waits += [await b.reserve(-100123) for _ in range(2)]
    assert waits == pytest.approx([0, 0, 0, 0, 0, 4, 8], abs=0.25)
    # a 429 in another group: nothing there before it is over, then at the group's pace
    await b.pause(-100124, 10.0)
    assert await a.reserve(-100124) == pytest.approx(10.0, abs=0.25)
    assert await b.reserve(-100124) == pytest.approx(14.0, abs=0.25)


async def test_chats_with_ids_are_shared_and_idle_ones_are_forgotten(
    pools: tuple[asyncpg.Pool, asyncpg.Pool],
) -> None:
    a = SharedBudgets(pools[0], PACING)
    assert a.shared(42) and a.shared(-100123) and not a.shared("@channel")
    await a.reserve(42)
    assert await a.prune(idle=60) == 0, "its budget is not full again yet"
    assert await a.prune(idle=-60) == 1
    assert await pools[0].fetchval("SELECT count(*) FROM chat_pace") == 0


class Recorder:
    """A shared budget that says how long to wait, and keeps what it was asked."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        self.reserved: list[int] = []
        self.paused: list[tuple[int, float]] = []

    def shared(self, chat_id: int | str) -> bool:
        return isinstance(chat_id, int) and chat_id > 0

    async def reserve(self, chat_id: int) -> float:
        self.reserved.append(chat_id)
        return self.wait

    async def pause(self, chat_id: int, seconds: float) -> None:
        self.paused.append((chat_id, seconds))


async def request(pacer: Pacer, chat: int, endpoint: str = "editMessageText") -> None:
    """One request through the pacer, as PTB makes it."""

    async def call(*args: object, **kwargs: object) -> bool:
        return True

    await pacer.process_request(call, (), {}, endpoint, {"chat_id": chat, "text": "x"}, None)


async def test_a_request_to_a_private_chat_waits_for_its_shared_slot() -> None:
    pacer = Pacer(PACING)
    shared = Recorder(wait=0.0)
    pacer.shared = shared
    await request(pacer, 42)
    await request(pacer, -100123)
    await request(pacer, 42, "answerCallbackQuery")
    with paced(Priority.URGENT, prepaid=True):  # its chat's budget spent before
        await request(pacer, 43)
    await pacer.acquire(44)  # a budget acquired for nothing sent takes no shared slot
    assert shared.reserved == [42, 43]
    pacer.pause(42, 7.0)
    pacer.pause(-100123, 7.0)
    await asyncio.sleep(0)
    assert shared.paused == [(42, 7.0)]


async def test_a_slot_taken_elsewhere_delays_the_request_here() -> None:
    pacer = Pacer(PACING)
    pacer.shared = Recorder(wait=1_000.0)
    sent = asyncio.ensure_future(request(pacer, 42))
    await asyncio.sleep(0.05)
    assert not sent.done(), "waits for the slot the database gave"
    sent.cancel()
