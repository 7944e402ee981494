"""Quick games: a queue of players who want a game with anyone, and how it pairs them.

A player who asks for a quick game joins the queue. A pass over the queue
(:meth:`QuickGames.round`, run when someone joins and every second) pairs the waiting
players and deals each pair a two-player game at a new private table at once (no lobby:
nobody has to press anything more). The pass is one store transaction, one at a time
whichever process runs it, so two players who come at once in two processes still find
each other, and nobody is dealt two games.

How :func:`pair_up` pairs:

- Longest waiting first: each takes, among those he may be paired with, the one whose
  skill is closest (then the one waiting longest).
- Close skills first, wider with the wait: two players may be paired when their overall
  skills (``mu``) differ by at most :func:`window` of the longer wait — 3 points at once,
  one more every second, so after about 20 s anyone goes with anyone (a newcomer's mu is
  25; most players are within 15-35).
- Not the same two again and again: a player is paired with his last quick game's
  opponent only when neither of them could be paired with anybody else waiting.
- Never someone he blocked, or who blocked him.

A pass leaves no two players waiting who may be paired (it is greedy, and maximal). One
who waits alone for ``wait`` seconds is offered a game against the computer (once; again
after another ``wait`` if he keeps waiting).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from bot.ratings.model import NEWCOMER, OVERALL
from bot.service.tables import Live, TableService
from bot.store import NewGame, Seat, Store, Waiting
from engine import Game, Rules

__all__ = [
    "QUICK_TURN",
    "Dealt",
    "QuickGames",
    "Round",
    "may_pair",
    "pair_up",
    "quick_rules",
    "window",
]

log = logging.getLogger(__name__)

WINDOW_START = 3.0
"""Skill points (``mu``) two players may differ by to be paired at once."""
WINDOW_GROWTH = 1.0
"""...and more for each second the longer of them has waited."""
QUICK_TURN = 60
"""A quick game's move clock (seconds), unless the operator's default rules say less."""


def window(waited: float) -> float:
    """How far apart two players' skills may be when the longer waiter has waited
    ``waited`` seconds."""
    return WINDOW_START + WINDOW_GROWTH * max(0.0, waited)


def _blocked(a: Waiting, b: Waiting, blocked: Collection[tuple[int, int]]) -> bool:
    return (a.user_id, b.user_id) in blocked or (b.user_id, a.user_id) in blocked


def _repeat(a: Waiting, b: Waiting) -> bool:
    return a.last_opponent == b.user_id or b.last_opponent == a.user_id


def may_pair(a: Waiting, b: Waiting, blocked: Collection[tuple[int, int]], now: float) -> bool:
    """Whether ``a`` and ``b`` may be paired now, skill and blocks alone considered."""
    if a.user_id == b.user_id or _blocked(a, b, blocked):
        return False
    waited = now - min(a.since, b.since)
    return abs(a.rating - b.rating) <= window(waited)


def pair_up(
    waiting: Sequence[Waiting], blocked: Collection[tuple[int, int]], now: float
) -> list[tuple[Waiting, Waiting]]:
    """The pairs to deal now (see the module doc). Each player is in one pair at most."""
    order = sorted(waiting, key=lambda w: (w.since, w.user_id))
    free = {w.user_id: w for w in order}
    pairs: list[tuple[Waiting, Waiting]] = []
    for a in order:
        if a.user_id not in free:
            continue
        others = [b for b in free.values() if b.user_id != a.user_id]
        fits = [b for b in others if may_pair(a, b, blocked, now)]
        fresh = [b for b in fits if not _repeat(a, b)]
        if not fresh:
            # his last opponent again only if neither of them has anyone else to play
            fresh = [
                b
                for b in fits
                if not any(c is not b and not _blocked(a, c, blocked) for c in others)
                and not any(
                    c.user_id not in (a.user_id, b.user_id) and not _blocked(b, c, blocked)
                    for c in free.values()
                )
            ]
        if not fresh:
            continue
        b = min(fresh, key=lambda b: (abs(a.rating - b.rating), b.since, b.user_id))
        del free[a.user_id], free[b.user_id]
        pairs.append((a, b))
    return pairs


def quick_rules(default: Rules) -> Rules:
    """A quick game's rules: the operator's default game, for two, with its move clock
    always on (at most :data:`QUICK_TURN` seconds: strangers wait for nobody long) and
    every thrower passing himself (fast throw-ins would tell who holds what)."""
    turn = default.turn_timeout if 0 < default.turn_timeout <= QUICK_TURN else QUICK_TURN
    return default.model_copy(
        update={"turn_timeout": turn, "fast_throw_ins": False, "teams": "none"}
    )


@dataclass(frozen=True, slots=True)
class Dealt:
    """A pair dealt a quick game: the table (its game running) and the two players, in
    seat order, as they waited (with their waiting messages)."""

    live: Live
    players: tuple[Waiting, ...]


@dataclass(frozen=True, slots=True)
class Round:
    """What a pass over the queue did."""

    dealt: tuple[Dealt, ...] = ()
    offered: tuple[Waiting, ...] = ()
    """Players alone for their wait: offered a game against the computer now."""


@dataclass(slots=True)
class QuickGames:
    """The queue for quick games, over the store, dealing through the table service."""

    store: Store
    tables: TableService
    rules: Callable[[], Rules]
    """The operator's default rules (a quick game is played by :func:`quick_rules` of them)."""
    wait: float = 60.0
    """Seconds a lone player waits before he is offered a game against the computer."""
    shard_for: Callable[[Sequence[int]], int] = field(default=lambda users: 0)
    """The shard to open a table of these players in: one this process holds."""
    clock: Callable[[], float] = time.time

    async def enter(self, user_id: int, name: str, lang: str) -> bool:
        """Put the player in the queue (False: he is in it already). His skill is his
        overall rating's ``mu`` (a newcomer's if he has none)."""
        ratings = await self.store.ratings_of(OVERALL, [user_id])
        found = ratings.get(user_id)
        mu = found.mu if found is not None else NEWCOMER.mu
        now = self.clock()
        waiting = Waiting(
            user_id=user_id,
            name=name,
            lang=lang,
            rating=mu,
            since=now,
            offer_at=now + self.wait,
            offered=False,
            message_id=None,
            last_opponent=None,
        )
        entered = await self.store.quick_enter(waiting)
        if entered:
            log.info("quick: %s waits (mu %.1f)", user_id, mu)
        return entered

    async def leave(self, user_id: int) -> bool:
        """Take the player out of the queue (False: he was not in it: dealt, or gone)."""
        return await self.store.quick_leave(user_id)

    async def wait_more(self, user_id: int) -> bool:
        """He keeps waiting after the offer of the computer (False: he is not waiting)."""
        return await self.store.quick_wait_more(user_id, self.clock() + self.wait)

    async def waiting(self, user_id: int) -> Waiting | None:
        """His place in the queue, or None."""
        return await self.store.quick_waiting(user_id)

    async def round(self) -> Round:
        """One pass over the queue: pairs dealt, lone players offered the computer."""
        rng = random.SystemRandom()
        default = self.rules()

        def deal(a: Waiting, b: Waiting) -> NewGame:
            first, second = (a, b) if rng.random() < 0.5 else (b, a)
            rules = quick_rules(default)
            seed = rng.randrange(2**62)
            game = Game.new(rules, players=2, seed=seed)
            return NewGame(
                rules=rules.model_dump_json(),
                seats=(
                    Seat.human(first.user_id, first.name),
                    Seat.human(second.user_id, second.name),
                ),
                seed=seed,
                game=game.to_json(),
                deadline=self.tables.deadline_for(rules, game),
                shard=self.shard_for([first.user_id, second.user_id]),
            )

        done = await self.store.quick_round(pair_up, deal)
        dealt = []
        for row, (a, b) in done.dealt:
            by_user = {a.user_id: a, b.user_id: b}
            players = tuple(by_user[s.user_id] for s in row.seats if s.user_id is not None)
            live = self.tables.adopt(row)
            log.info(
                "quick: table %s dealt to %s and %s",
                row.table_id,
                players[0].user_id,
                players[1].user_id,
            )
            dealt.append(Dealt(live, players))
        return Round(tuple(dealt), done.offered)
