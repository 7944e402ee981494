"""Leases in PostgreSQL, on a fake clock: a member's heartbeat, its share of the shards,
renewal, expiry and takeover, shards given back to a newcomer, polling held by one, and
fencing by epoch."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.cluster.leases import MEMBERS_CHANNEL, POLLER, SETTLE, TTL, Leases
from bot.store import SHARDS


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def pool(postgres_store_url: str) -> AsyncIterator[asyncpg.Pool]:
    made = await asyncpg.create_pool(postgres_store_url, min_size=1, max_size=4)
    try:
        yield made
    finally:
        await made.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


async def member(pool: asyncpg.Pool, clock: Clock, name: str) -> Leases:
    leases = Leases(pool, name, clock=clock)
    await leases.join()
    return leases


async def owners(pool: asyncpg.Pool) -> dict[int, str | None]:
    return {r[0]: r[1] for r in await pool.fetch("SELECT shard, owner FROM shard_leases")}


async def test_one_member_holds_every_shard_and_polls(pool: asyncpg.Pool, clock: Clock) -> None:
    a = await member(pool, clock, "a")
    beat = await a.beat()
    assert beat.members == 1 and beat.share == SHARDS
    assert set(beat.shards) == set(range(SHARDS)) and beat.polls
    assert set(beat.held.values()) == {1}, "the first term of each lease"
    assert beat.extras == {} and beat.next_expiry is None
    clock.now += 1
    again = await a.beat()
    assert again.held == beat.held, "renewed in the same terms"
    rows = await pool.fetch("SELECT DISTINCT expires_at FROM shard_leases")
    assert [r[0] for r in rows] == [clock.now + TTL]


async def test_a_second_member_polls_not_and_gets_half_as_the_first_gives_back(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    a = await member(pool, clock, "a")
    await a.beat()
    b = await member(pool, clock, "b")
    first = await b.beat()
    assert first.members == 2 and first.share == SHARDS // 2
    assert first.held == {}, "nothing free yet; polling is a's"
    told = await a.beat()
    assert len(told.extras) == SHARDS // 2, "a gives back what b lacks"
    assert not told.polls or POLLER not in told.extras, "polling is never given back as extra"
    await a.release(told.extras)
    second = await b.beat()
    assert set(second.shards) == set(told.extras)
    assert not second.polls
    settled = await a.beat()
    assert settled.extras == {} and len(settled.shards) == SHARDS // 2 and settled.polls
    held = await owners(pool)
    assert sorted(held.values()).count("a") == SHARDS // 2 + 1
    assert sorted(held.values()).count("b") == SHARDS // 2


async def test_three_members_share_and_every_shard_has_one_holder(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    members = [await member(pool, clock, name) for name in "abc"]
    for _ in range(4):
        for m in members:
            beat = await m.beat()
            await m.release(beat.extras)
        clock.now += 0.5
    held = await owners(pool)
    shards = [owner for shard, owner in held.items() if shard != POLLER]
    counts = [shards.count(m.member_id) for m in members]
    share = -(-SHARDS // 3)  # 22: no member holds more than its share
    assert sum(counts) == SHARDS and max(counts) == share and min(counts) >= SHARDS - 2 * share
    assert None not in held.values()


async def test_a_member_that_stops_beating_loses_its_leases_to_the_others(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    a, b = await member(pool, clock, "a"), await member(pool, clock, "b")
    await a.beat()
    extras = (await a.beat()).extras
    await b.beat()
    await a.release(extras)
    mine_b = (await b.beat()).shards
    # a stops beating: its leases hold until they run out, then b takes them all
    clock.now += TTL - 0.1
    assert set((await b.beat()).shards) == set(mine_b), "a's leases still hold"
    clock.now += 0.2
    taken = await b.beat()
    assert set(taken.shards) == set(range(SHARDS)) and taken.polls
    assert taken.members == 1
    # the terms b took over are new ones: a, back, renews nothing
    assert all(taken.held[s] == 2 for s in set(range(SHARDS)) - set(mine_b))
    late = await a.beat()
    assert late.held == {}, "a's old terms are over: it holds nothing"


async def test_the_next_beat_is_timed_by_the_others_first_expiry(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    a, b = await member(pool, clock, "a"), await member(pool, clock, "b")
    await a.beat()
    clock.now += 0.25
    beat = await b.beat()
    assert beat.next_expiry == 1_000.0 + TTL, "a's leases, renewed at 1000"


async def test_epochs_fence_a_lost_lease(pool: asyncpg.Pool, clock: Clock) -> None:
    a, b = await member(pool, clock, "a"), await member(pool, clock, "b")
    held = (await a.beat()).held
    assert held[5] == 1
    clock.now += TTL + 0.1
    took = await b.beat()  # a was silent too long: b takes everything, in new terms
    assert took.held[5] == 2
    # a gives back shard 5 as it knew it: b's lease in the later term is untouched
    await a.release({5: 1})
    assert (await owners(pool))[5] == "b"
    await b.release({5: 2})
    assert (await owners(pool))[5] is None
    again = await a.beat()
    assert again.held[5] == 3, "taken again in a third term: a knows it is not its first"


async def test_shards_given_back_wait_for_the_member_below_its_share(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    a = await member(pool, clock, "a")
    assert len((await a.beat()).shards) == SHARDS
    b = await member(pool, clock, "b")
    extras = (await a.beat()).extras
    assert len(extras) == SHARDS // 2
    await a.release(extras)
    clock.now += TTL / 2
    # b has not beaten since it joined, but lives: a leaves them to it
    assert set((await a.beat()).shards).isdisjoint(extras)
    assert set((await b.beat()).shards) == set(extras)


async def test_shards_given_back_to_a_member_that_died_are_taken_by_the_rest(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    a = await member(pool, clock, "a")
    await a.beat()
    await member(pool, clock, "b")
    extras = (await a.beat()).extras
    await a.release(extras)
    clock.now += TTL / 2
    await a.beat()  # a beats on; b never beats again
    clock.now += TTL / 2 + 0.1
    beat = await a.beat()
    assert beat.members == 1 and set(beat.shards) == set(range(SHARDS))
    assert all(beat.held[s] == 2 for s in extras), "taken again, in a new term"


async def two_sharing(pool: asyncpg.Pool, clock: Clock) -> tuple[Leases, Leases, set[int]]:
    """Members a and b sharing the shards evenly; the shards of a."""
    a = await member(pool, clock, "a")
    await a.beat()
    b = await member(pool, clock, "b")
    await a.release((await a.beat()).extras)
    await b.beat()
    mine = set((await a.beat()).shards)
    assert len(mine) == SHARDS // 2 and set((await b.beat()).shards) == set(range(SHARDS)) - mine
    return a, b, mine


async def test_members_cut_off_together_each_take_back_their_own_shards(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    a, b, mine = await two_sharing(pool, clock)
    clock.now += TTL + 2  # the database was away: every heartbeat and lease ran out
    first = await a.beat()  # a is back first: it counts b, who is coming back too
    assert first.members == 2 and set(first.shards) == mine and first.extras == {}
    assert first.lapsed == {}, "its own shards"
    clock.now += 0.4
    second = await b.beat()
    assert second.members == 2 and set(second.shards) == set(range(SHARDS)) - mine
    assert second.lapsed == {} and second.extras == {}
    assert set((await a.beat()).shards) == mine, "nothing given back, nothing taken"


async def test_a_member_cut_off_that_does_not_come_back_leaves_its_shards_after_a_while(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    a, _, mine = await two_sharing(pool, clock)
    clock.now += TTL + 2
    assert set((await a.beat()).shards) == mine
    clock.now += SETTLE / 2
    assert set((await a.beat()).shards) == mine, "b's shards wait for b a while"
    clock.now += SETTLE / 2 + 0.1
    beat = await a.beat()  # b never came back: it is gone
    assert beat.members == 1 and set(beat.shards) == set(range(SHARDS))
    ran_out = 1_000.0 + TTL  # b's last renewal was at the start
    assert set(beat.lapsed) == set(range(SHARDS)) - mine
    assert all(at <= ran_out + 1 for at in beat.lapsed.values())


async def test_shards_of_a_member_killed_are_taken_as_lapsed_and_given_back_ones_are_not(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    a, b, mine = await two_sharing(pool, clock)
    theirs = set(range(SHARDS)) - mine
    await b.release({s: e for s, e in (await b.beat()).held.items() if s in {40, 41}})
    clock.now += 1
    await a.beat()
    clock.now += 1
    await a.beat()
    clock.now += TTL - 1.9  # b was killed: its leases run out, a beats on
    beat = await a.beat()
    assert set(beat.shards) == set(range(SHARDS))
    assert {40, 41}.isdisjoint(beat.lapsed), "given back: nothing of them left unfinished"
    assert set(beat.lapsed) == theirs - {40, 41}


async def test_leaving_frees_everything_at_once_and_tells_the_others(
    pool: asyncpg.Pool, clock: Clock, postgres_store_url: str
) -> None:
    a, b = await member(pool, clock, "a"), await member(pool, clock, "b")
    await a.beat()
    await b.beat()
    listener = await asyncpg.connect(postgres_store_url)
    heard: asyncio.Queue[str] = asyncio.Queue()
    await listener.add_listener(MEMBERS_CHANNEL, lambda *args: heard.put_nowait(args[3]))
    try:
        await a.leave()
        assert await asyncio.wait_for(heard.get(), 5) == "left"
    finally:
        await listener.close()
    taken = await b.beat()
    assert set(taken.shards) == set(range(SHARDS)) and taken.polls and taken.members == 1
    assert await pool.fetchval("SELECT count(*) FROM members") == 1


async def test_a_member_forgotten_meanwhile_is_one_again_at_its_next_beat(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    a = await member(pool, clock, "a")
    await a.beat()
    await pool.execute("DELETE FROM members")
    beat = await a.beat()
    assert beat.members == 1 and len(beat.shards) == SHARDS
    assert await pool.fetchval("SELECT count(*) FROM members") == 1


async def test_polling_is_not_taken_by_a_member_that_does_not_poll(
    pool: asyncpg.Pool, clock: Clock
) -> None:
    a = await member(pool, clock, "a")
    assert not (await a.beat(poll=False)).polls
    assert (await owners(pool))[POLLER] is None
