"""Helpers for engine tests: pinned positions, random playouts, card accounting."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine import Card, Game, Rules, deck
from engine.actions import Action, Event, Pass


def cards(text: str) -> list[Card]:
    """``"6S 7S TH"`` -> cards."""
    return [Card.parse(t) for t in text.split()]


def c(text: str) -> Card:
    """One card."""
    return Card.parse(text)


def position(
    rules: Rules | str,
    hands: list[str],
    stock: str = "",
    first: int | None = 0,
    **kw: Any,
) -> Game:
    """A pinned position: hands and stock as card strings; ungiven cards are discarded."""
    r = Rules.preset(rules) if isinstance(rules, str) else rules
    return Game.deal(r, [cards(h) for h in hands], cards(stock), first, **kw)


def fresh_position(rules: Rules, hands: list[str], turnup: str, first: int | None = 0) -> Game:
    """A position at a game's start: every card not in a hand is in the stock, ``turnup`` last
    (the discard is empty, so the first-bout limit applies)."""
    held = {x for h in hands for x in cards(h)}
    up = c(turnup)
    rest = [x for x in deck(rules.deck_size) if x not in held and x != up]
    return Game.deal(rules, [cards(h) for h in hands], [*rest, up], first)


def every_card(game: Game) -> Counter[Card]:
    """Count of every card over all the places a card can be."""
    found: Counter[Card] = Counter()
    for h in game.hands:
        found.update(h)
    found.update(game.stock)
    found.update(game.discard)
    found.update(game.aside)
    found.update(game.att)
    found.update(x for x in game.cov if x is not None)
    return found


def assert_conserved(game: Game) -> None:
    """Every card of the deck is in exactly one place."""
    found = every_card(game)
    assert sorted(found.elements()) == deck(game.rules.deck_size)


def random_step(game: Game, rng: random.Random) -> Action:
    """Apply one uniformly random legal action of a random seat that may act."""
    seat = rng.choice(game.to_act())
    action = rng.choice(game.legal_actions(seat))
    game.apply(action)
    return action


def playout(game: Game, rng: random.Random, limit: int = 20_000) -> list[Action]:
    """Play random legal actions to the end; return them."""
    done = []
    while game.result is None:
        done.append(random_step(game, rng))
        assert len(done) < limit, "the game did not end"
    return done


def kinds(actions: list[Action]) -> set[str]:
    """The type names among actions."""
    return {type(a).__name__ for a in actions}


def pass_round(game: Game) -> list[Event]:
    """Every thrower who may act now says pass, until the bout waits on no thrower: what
    the players of a pinned position do when they lay nothing more. Returns the events."""
    events: list[Event] = []
    while game.result is None and game.throwers():
        events += game.apply(Pass(game.throwers()[0]))
    return events
