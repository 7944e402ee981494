"""Updates of one table run strictly in arrival order; different tables run side by side."""

from __future__ import annotations

import asyncio
import random

from bot.transport.ordering import TableOrder


async def test_same_key_in_order_other_keys_concurrently() -> None:
    order = TableOrder(key=lambda update: update[0])  # type: ignore[index]
    await order.initialize()
    rng = random.Random(1)
    finished: list[tuple[str, int]] = []
    running: set[str] = set()
    overlap = False

    async def work(update: tuple[str, int]) -> None:
        nonlocal overlap
        key = update[0]
        assert key not in running, "two updates of one table at once"
        running.add(key)
        if len(running) > 1:
            overlap = True
        await asyncio.sleep(rng.uniform(0, 0.01))
        running.discard(key)
        finished.append(update)

    updates = [(key, n) for n in range(10) for key in ("a", "b", "c")]
    tasks = [asyncio.create_task(order.process_update(u, work(u))) for u in updates]
    await asyncio.gather(*tasks)
    for key in ("a", "b", "c"):
        assert [n for k, n in finished if k == key] == list(range(10))
    assert overlap, "different tables ran side by side"
    await order.shutdown()


async def test_an_update_without_a_key_and_a_failing_one_do_not_block_the_rest() -> None:
    order = TableOrder(key=lambda update: None if update == "free" else "t")
    seen: list[str] = []

    async def fail() -> None:
        raise RuntimeError("boom")

    async def note(name: str) -> None:
        seen.append(name)

    first = asyncio.create_task(order.process_update("x", fail()))
    second = asyncio.create_task(order.process_update("y", note("after")))
    third = asyncio.create_task(order.process_update("free", note("free")))
    results = await asyncio.gather(first, second, third, return_exceptions=True)
    assert isinstance(results[0], RuntimeError)
    assert sorted(seen) == ["after", "free"]
