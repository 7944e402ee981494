"""Leases in PostgreSQL: which processes run, which of them holds each shard, which polls.

A process is a *member* while its row in ``members`` is renewed (every :data:`BEAT`
seconds, for :data:`TTL` seconds). Each shard (0..63) and polling (the row of shard
:data:`POLLER`) is held by one member at a time: ``shard_leases`` says by whom, until when,
and in which *epoch*, a number that grows with every new holder. A member renews what it
holds at each beat; a lease not renewed in time is free for any member to take, as is one
given back. Every time is the database server's (its ``now()``), so the machines' own
clocks need not agree.

Each beat is one transaction: the heartbeat, the renewals, a look at every lease and
member, and the claims. A member below its share (all shards over the live members,
rounded up) takes free shards; a member above it gives back the extras while another is
below, so that a new process gets its share and the load spreads. (While a shard is free,
the shards held add up to less than the members' shares: some member is below its share
and takes it.) A claim re-checks the
lease under its row lock and skips rows another beat has locked (``SKIP LOCKED``): two
members never both take a shard, and beats never wait on each other.

When the database was away longer than a lease lasts (a restart, crash recovery), every
heartbeat and lease ran out at about the same time, and the members come back one by one.
For :data:`SETTLE` seconds after a member finds its own heartbeat ran out, it still counts
the members whose heartbeats ran out with its own (they come back too) and leaves them the
shards they held: each takes back its own share from the start, rather than the first one
back taking every shard, drawing every table, and giving half of them back a moment later.
A member that does not come back in that time is gone, and its shards are taken.

A member that holds a lease knows it by its epoch. A lease renewed under another epoch
than the one the member knows was lost and taken again in between: the member treats it as
lost and gained anew (it loads the shard's tables again). Giving back names the epoch, so
a member never gives back a lease it lost meanwhile.
"""

from __future__ import annotations

import math
import os
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

import asyncpg

from bot.store import SHARDS, StoreUnavailable
from bot.store.postgres import UNAVAILABLE

__all__ = [
    "BEAT",
    "MEMBERS_CHANNEL",
    "POLLER",
    "TTL",
    "Beat",
    "Leases",
]

TTL: Final = 3.0
"""Seconds a heartbeat and a lease last unless renewed."""
BEAT: Final = 1.0
"""Seconds between two beats."""
POLLER: Final = -1
"""The lease row of polling (``getUpdates``): one member at a time asks Telegram."""
MEMBERS_CHANNEL: Final = "durak_members"
"""Told when a member joins, gives leases back or leaves: the others beat at once."""

SETTLE: Final = TTL
"""Seconds after the database came back in which the members that were cut off with this
one still count, and keep their shards for themselves."""

_PRUNE_AFTER: Final = 60.0
"""Seconds after which a member that stopped beating is forgotten."""


@dataclass(frozen=True, slots=True)
class Beat:
    """What one beat found."""

    now: float
    """The database's time of the beat."""
    held: dict[int, int]
    """The leases held after the beat (shard -> epoch), polling's (:data:`POLLER`) among
    them."""
    members: int
    """Live members, this one among them."""
    share: int
    """Shards each member should hold."""
    extras: dict[int, int] = field(default_factory=dict)
    """Held shards to give back: another member is below its share."""
    next_expiry: float | None = None
    """When the first lease held by another member runs out unless renewed (database
    time): beating just then takes it over soonest."""
    lapsed: dict[int, float] = field(default_factory=dict)
    """Shards taken by this beat from a member gone without giving them back (killed, or
    cut off for good): when its lease ran out (database time). What it did in its last
    moments may be unfinished, such as the answer to a press whose move it saved."""
    poller_lapsed: float | None = None
    """Polling taken by this beat from another member whose lease ran out: when it ran out
    (database time). A long poll that member sent may still wait at Telegram until then."""

    @property
    def shards(self) -> dict[int, int]:
        """The shards held (polling apart)."""
        return {s: e for s, e in self.held.items() if s != POLLER}

    @property
    def polls(self) -> bool:
        """Whether this member holds polling."""
        return POLLER in self.held


class Leases:
    """One member's leases, read and written in the database of ``pool``."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        member_id: str,
        *,
        ttl: float = TTL,
        shards: int = SHARDS,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._pool = pool
        self.member_id = member_id
        self._ttl = ttl
        self._shards = shards
        self._clock = clock
        """The time to use instead of the database's (tests)."""
        self._renewed_until: float | None = None
        """Until when this member's heartbeat lasts (database time), as last renewed."""
        self._renewal = 0.0
        """What the beat under way renews it to, once it commits."""
        self._lapsed_at: float | None = None
        """When this member's own heartbeat last ran out before it could renew it."""
        self._settle_until = 0.0
        """Until when (database time) the members cut off with this one still count."""

    def _now(self) -> float | None:
        return self._clock() if self._clock is not None else None

    async def join(self) -> None:
        """Become a member (the others are told), and make sure every lease has its row."""
        now = self._now()
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                await conn.execute(
                    "INSERT INTO shard_leases (shard, owner, epoch, expires_at) "
                    "SELECT s, NULL, 0, 0 FROM generate_series($1::int, $2::int) AS s "
                    "ON CONFLICT (shard) DO NOTHING",
                    POLLER,
                    self._shards - 1,
                )
                await conn.execute(
                    "INSERT INTO members (member_id, host, pid, started_at, expires_at) "
                    "SELECT $1, $2, $3, t, t + $4 FROM "
                    "(SELECT coalesce($5::float8, extract(epoch FROM now())) AS t) AS n "
                    "ON CONFLICT (member_id) DO UPDATE SET expires_at = excluded.expires_at",
                    self.member_id,
                    socket.gethostname()[:200],
                    os.getpid(),
                    self._ttl,
                    now,
                )
                await conn.execute("SELECT pg_notify($1, $2)", MEMBERS_CHANNEL, "joined")
        except UNAVAILABLE as exc:
            raise StoreUnavailable(f"cannot join: {exc}") from exc

    async def beat(self, *, poll: bool = True) -> Beat:
        """Renew the heartbeat and every lease this member holds, and take what it should
        hold: its share of the free shards, and polling if ``poll`` and nobody polls. One
        transaction. The caller compares what it held with :attr:`Beat.held`: a lease gone,
        or held under another epoch, was lost meanwhile."""
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                await conn.execute("SET LOCAL lock_timeout = '2s'")
                found = await self._beat(conn, poll)
        except UNAVAILABLE as exc:
            raise StoreUnavailable(f"beat failed: {exc}") from exc
        self._renewed_until = self._renewal
        return found

    async def _beat(self, conn: asyncpg.Connection, poll: bool) -> Beat:
        me, ttl = self.member_id, self._ttl
        now = float(
            await conn.fetchval(
                "INSERT INTO members (member_id, host, pid, started_at, expires_at) "
                "SELECT $1, $2, $3, t, t + $4 FROM "
                "(SELECT coalesce($5::float8, extract(epoch FROM now())) AS t) AS n "
                "ON CONFLICT (member_id) DO UPDATE SET expires_at = excluded.expires_at "
                "RETURNING expires_at - $4",
                me,
                socket.gethostname()[:200],
                os.getpid(),
                ttl,
                self._now(),
            )
        )
        if self._renewed_until is not None and now >= self._renewed_until:
            # this member's heartbeat ran out: the database was away (or this process stood
            # still); the others' ran out with it, and they are coming back too
            self._lapsed_at = self._renewed_until
            self._settle_until = now + SETTLE
        self._renewal = now + ttl
        renewed = {
            int(r[0]): int(r[1])
            for r in await conn.fetch(
                "UPDATE shard_leases SET expires_at = $1 + $2 "
                "WHERE owner = $3 AND expires_at > $1 RETURNING shard, epoch",
                now,
                ttl,
                me,
            )
        }
        beats = await conn.fetch("SELECT member_id, expires_at FROM members")
        members = {str(r[0]) for r in beats if r[1] > now or r[0] == me}
        if now < self._settle_until and self._lapsed_at is not None:
            back_soon = {str(r[0]) for r in beats if r[1] >= self._lapsed_at - ttl} - members
        else:
            back_soon = set()
        members |= back_soon
        leases = await conn.fetch("SELECT shard, owner, expires_at FROM shard_leases")
        share = math.ceil(self._shards / len(members))
        counts = dict.fromkeys(members, 0)
        free: list[int] = []
        owners: dict[int, tuple[str | None, float]] = {}
        next_expiry: float | None = None
        poller_free = False
        for shard, owner, expires_at in leases:
            live = owner is not None and expires_at > now
            owners[int(shard)] = (owner, float(expires_at))
            if shard == POLLER:
                poller_free = not live
            elif not live:
                if owner not in back_soon:  # left for its holder, who is coming back
                    free.append(int(shard))
            elif owner in counts:
                counts[owner] += 1
            if live and owner != me:
                next_expiry = expires_at if next_expiry is None else min(next_expiry, expires_at)
        mine = sorted(s for s in renewed if s != POLLER)
        below = any(n < share for m, n in counts.items() if m != me)
        wanted: list[int] = []
        if len(mine) < share:
            # its own shards first (those it held before the database went away)
            free.sort(key=lambda s: (owners[s][0] != me, s))
            wanted = free[: share - len(mine)]
        if poll and poller_free:
            wanted.append(POLLER)
        taken: dict[int, int] = {}
        if wanted:
            taken = {
                int(r[0]): int(r[1])
                for r in await conn.fetch(
                    "UPDATE shard_leases SET owner = $1, epoch = epoch + 1, expires_at = $2 + $3 "
                    "WHERE shard IN (SELECT shard FROM shard_leases WHERE shard = ANY($4::int[]) "
                    "AND (owner IS NULL OR expires_at <= $2) FOR UPDATE SKIP LOCKED) "
                    "RETURNING shard, epoch",
                    me,
                    now,
                    ttl,
                    wanted,
                )
            }
        lapsed = {
            s: owners[s][1]
            for s in taken
            if s != POLLER and owners[s][0] not in (None, me) and owners[s][0] not in members
        }
        poller_lapsed = None
        if POLLER in taken and owners[POLLER][0] not in (None, me):
            poller_lapsed = owners[POLLER][1]
        after = {**renewed, **taken}
        extras: dict[int, int] = {}
        count = len(mine) + len([s for s in taken if s != POLLER])
        if count > share and below:
            spare = sorted((s for s in after if s != POLLER), reverse=True)[: count - share]
            extras = {s: after[s] for s in spare}
        await conn.execute(
            "DELETE FROM members WHERE expires_at < $1 AND member_id <> $2",
            now - _PRUNE_AFTER,
            me,
        )
        return Beat(now, after, len(members), share, extras, next_expiry, lapsed, poller_lapsed)

    async def release(self, leases: Mapping[int, int]) -> None:
        """Give back ``leases`` (shard -> epoch), those still held in that epoch; the
        others are told."""
        if not leases:
            return
        shards = list(leases)
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                await conn.execute(
                    "UPDATE shard_leases AS l SET owner = NULL, "
                    "expires_at = coalesce($1::float8, extract(epoch FROM now())) "
                    "FROM unnest($2::int[], $3::int[]) AS g(shard, epoch) "
                    "WHERE l.shard = g.shard AND l.epoch = g.epoch AND l.owner = $4",
                    self._now(),
                    shards,
                    [leases[s] for s in shards],
                    self.member_id,
                )
                await conn.execute("SELECT pg_notify($1, $2)", MEMBERS_CHANNEL, "released")
        except UNAVAILABLE as exc:
            raise StoreUnavailable(f"cannot give leases back: {exc}") from exc

    async def leave(self) -> None:
        """Give back every lease and stop being a member; the others are told."""
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                await conn.execute(
                    "UPDATE shard_leases SET owner = NULL, "
                    "expires_at = coalesce($1::float8, extract(epoch FROM now())) "
                    "WHERE owner = $2",
                    self._now(),
                    self.member_id,
                )
                await conn.execute("DELETE FROM members WHERE member_id = $1", self.member_id)
                await conn.execute("SELECT pg_notify($1, $2)", MEMBERS_CHANNEL, "left")
        except UNAVAILABLE as exc:
            raise StoreUnavailable(f"cannot leave: {exc}") from exc
