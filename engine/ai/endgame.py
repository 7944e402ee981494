"""Exact search of a game whose every card is known: the hard player's endgame.

In a 2-player game the seat knows every card once the stock holds nothing it cannot see
(empty, or only the face-up trump): the other's hand is the rest of the deck. From there the
game is one of perfect information, and :class:`Solver` plays it to the end exactly:
alpha-beta over the engine's own moves (:meth:`Game.legal_actions`, :meth:`Game.apply`), so
every rule of the variant holds as the engine has it, with a transposition table and the
moves ordered cheapest card first (what a sound player tries first, so cut-offs come early).

The value is the seat's result, as the search scores it: 1 not the loser, ½ a draw, 0 the
loser. Where several seats may act at once (the defender and a thrower), the defender moves
first, as in the search's playouts: a fixed convention, so the value is exact for the game
where moves are made in that order (at the root the seat moves, whatever the others may do).

A search that would take more than ``nodes`` positions, or run past ``deadline`` (CPU time,
:func:`time.process_time`), stops with :class:`Exhausted`; the caller then falls back to the
sampled search.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence

from ..actions import Action, Cover, Lead, Pass, ShowTrump, Take, Throw, Timeout, Transfer
from ..game import Game
from .knowledge import card_sense

__all__ = ["Exhausted", "Solver", "solve_root"]

LOSS, DRAW, WIN = 0.0, 0.5, 1.0
CHECK_EVERY = 256  # positions between two looks at the clock


class Exhausted(Exception):
    """The search ran out of positions or time before it finished."""


def _key(g: Game) -> Hashable:
    """Everything of a position that its future depends on (the discard only as empty or
    not: it matters for the first bout's limit alone)."""
    return (
        tuple(tuple(h) for h in g.hands),
        tuple(g.stock),
        tuple(g.att),
        tuple(g.cov),
        g.attacker,
        g.defender,
        g.phase,
        g.taking,
        tuple(sorted(g.passed)),
        g.def_start,
        tuple(g.out),
        bool(g.discard),
        g.bouts == 0,
        tuple(sorted(g.shown)),
        tuple(sorted(g.eff.items())) if g.eff else (),
        g.turnup,
        g.hidden,
        g.trump,
    )


class Solver:
    """Exact alpha-beta for ``seat``'s side (see the module docstring)."""

    def __init__(
        self, seat: int, teams: Sequence[int] | None, nodes: int, deadline: float | None
    ) -> None:
        self.seat = seat
        self.teams = teams
        self.limit = nodes
        self.deadline = deadline
        self.nodes = 0
        self.memo: dict[Hashable, tuple[float, float]] = {}
        self.path: set[Hashable] = set()
        self.repeated = False

    def score(self, g: Game) -> float:
        """The seat's side's result of a finished game."""
        result = g.result
        assert result is not None
        if result.draw:
            return DRAW
        if self.teams is not None:
            team = self.teams[self.seat]
            return LOSS if any(self.teams[s] == team for s in result.losers) else WIN
        return LOSS if self.seat in result.losers else WIN

    def mine(self, seat: int) -> bool:
        """Whether ``seat`` plays for the searching seat's side."""
        if self.teams is not None:
            return self.teams[seat] == self.teams[self.seat]
        return seat == self.seat

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.limit:
            raise Exhausted
        if (
            self.deadline is not None
            and self.nodes % CHECK_EVERY == 0
            and time.process_time() > self.deadline
        ):
            raise Exhausted

    def value(self, g: Game, alpha: float = LOSS, beta: float = WIN) -> float:
        """The position's exact value if it lies strictly between ``alpha`` and ``beta``;
        otherwise a bound on the same side (fail-soft)."""
        if g.result is not None:
            return self.score(g)
        key = _key(g)
        if key in self.path:
            self.repeated = True
            return DRAW
        lo, hi = self.memo.get(key, (LOSS, WIN))
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        a0, b0 = alpha, beta
        alpha = max(alpha, lo)
        beta = min(beta, hi)
        self.tick()
        seats = g.to_act()
        d = g.defender
        mover = d if d in seats else seats[0]
        acts = ordered(g, g.legal_actions(mover))
        self.path.add(key)
        if self.mine(mover):
            best = LOSS - 1
            for act in acts:
                child = g.copy()
                child.apply(act)
                v = self.value(child, alpha, beta)
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
        else:
            best = WIN + 1
            for act in acts:
                child = g.copy()
                child.apply(act)
                v = self.value(child, alpha, beta)
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        self.path.discard(key)
        if best <= a0:
            self.memo[key] = (lo, min(hi, best))
        elif best >= b0:
            self.memo[key] = (max(lo, best), hi)
        else:
            self.memo[key] = (best, best)
        return best


def ordered(g: Game, acts: list[Action]) -> list[Action]:
    """Moves cheapest first: the lowest lead (more cards of a rank before fewer), the
    cheapest cover, a transfer before taking, the lowest throw-in before passing."""
    if len(acts) < 2:
        return acts
    value = card_sense(g.rules, g.trump).value

    def rank(a: Action) -> tuple[float, ...]:
        if isinstance(a, Lead):
            return (0, min(value.get(c, 10) for c in a.cards), -len(a.cards))
        if isinstance(a, Cover | Throw):
            return (0, value.get(a.card, 10), 0)
        if isinstance(a, Transfer | ShowTrump):
            return (1, value.get(a.card, 10), 0)
        if isinstance(a, Take | Pass):
            return (2, 0, 0)
        return (3, 0, 0)

    return sorted(acts, key=rank)


def solve_root(
    g: Game, seat: int, actions: Sequence[Action], solver: Solver
) -> list[tuple[Action, float]]:
    """The exact value of each of ``actions`` (the seat's legal moves in ``g``, in the
    order to try), as far as needed to find the best: once a move wins, the rest are not
    searched; a move is searched only for whether it beats the best so far (its value is
    then a bound: not above the best). Raises :class:`Exhausted` when over budget."""
    found: list[tuple[Action, float]] = []
    best = LOSS - 1
    for act in actions:
        if type(act) is Timeout:
            continue
        child = g.copy()
        child.apply(act)
        v = solver.value(child, max(best, LOSS), WIN) if best >= LOSS else solver.value(child)
        found.append((act, v))
        if v > best:
            best = v
        if best >= WIN:
            break
    return found
