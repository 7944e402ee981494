"""What a seat may see, and what the whole group may see.

Renderers and computer players get a view, never the game, so nothing secret can leak:
the public view holds no card of anyone's hand, and a seat's view adds only his own hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action
from .cards import Card, Suit
from .game import BOUT, LEAD, Game
from .result import Result

__all__ = ["PublicView", "SeatView", "public_view", "seat_view"]

PHASES = ("lead", "bout", "over")


@dataclass(frozen=True, slots=True)
class PublicView:
    """The table as the group sees it. ``roles[s]`` is one of ``attacker``, ``defender``,
    ``thrower`` (may throw in to this defender), ``partner`` (the defender's partner),
    ``out``.

    ``known`` and ``discarded`` are what a player with perfect memory knows: the cards each
    seat is known to hold (picked up from the table, shown), and every card beaten off so
    far. The rules never show the discard, so renderers leave ``discarded`` out; computer
    players may use it. ``declared`` gives the suit each wild six on the table was named
    as; ``trump_hidden`` says a face-down card under the turn-up will set a new trump."""

    players: int
    phase: str
    trump: Suit | None
    trump_card: Card | None
    stock_size: int
    discard_size: int
    table: tuple[tuple[Card, Card | None], ...]
    hand_sizes: tuple[int, ...]
    roles: tuple[str, ...]
    teams: tuple[int, ...] | None
    attacker: int | None
    defender: int | None
    taking: bool
    to_act: tuple[int, ...]
    waiting_on: tuple[int, ...]
    passed: tuple[int, ...]
    bout_cap: int
    finish_order: tuple[int, ...]
    moves: int
    result: Result | None
    known: tuple[tuple[Card, ...], ...]
    discarded: tuple[Card, ...]
    declared: tuple[tuple[Card, Suit], ...] = ()
    trump_hidden: bool = False


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat sees: the public view, his hand (sorted, trumps last) and his moves."""

    seat: int
    hand: tuple[Card, ...]
    actions: tuple[Action, ...]
    public: PublicView


def public_view(game: Game) -> PublicView:
    """What the group may see."""
    n = game.n
    over = game.result is not None
    roles = []
    for s in range(n):
        if game.out[s]:
            roles.append("out")
        elif over:
            roles.append("idle")
        elif s == game.attacker:
            roles.append("attacker")
        elif s == game.defender:
            roles.append("defender")
        elif game.team_of(s) != game.team_of(game.defender):
            roles.append("thrower")
        else:
            roles.append("partner")
    cap = game._cap() if game.phase in (LEAD, BOUT) else 0
    return PublicView(
        players=n,
        phase=PHASES[game.phase],
        trump=game.trump_suit,
        trump_card=game.turnup,
        stock_size=len(game.stock),
        discard_size=len(game.discard),
        table=tuple(zip(game.att, game.cov, strict=True)),
        hand_sizes=tuple(len(h) for h in game.hands),
        roles=tuple(roles),
        teams=tuple(game.team_of(s) for s in range(n)) if game.rules.teams != "none" else None,
        attacker=None if over else game.attacker,
        defender=None if over else game.defender,
        taking=game.taking,
        to_act=game.to_act(),
        waiting_on=game.waiting_on(),
        passed=tuple(sorted(game.passed)),
        bout_cap=cap,
        finish_order=tuple(game.finish),
        moves=game.moves,
        result=game.result,
        known=tuple(tuple(game.known_cards(s)) for s in range(n)),
        discarded=tuple(game.discard),
        declared=tuple((c, Suit(e & 3)) for c, e in sorted(game.eff.items())),
        trump_hidden=game.hidden,
    )


def seat_view(game: Game, seat: int, public: PublicView | None = None) -> SeatView:
    """What ``seat`` may see (``public``: the game's public view as it stands, if at hand)."""
    if not 0 <= seat < game.n:
        raise ValueError(f"no seat {seat} at this table")
    if public is not None and public.moves != game.moves:
        raise ValueError("that public view is not this game's as it stands")
    return SeatView(
        seat=seat,
        hand=tuple(sorted(game.hands[seat], key=game._model.key.__getitem__)),
        actions=tuple(game.legal_actions(seat)),
        public=public if public is not None else public_view(game),
    )
