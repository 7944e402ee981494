"""Pinned positions and seeded random games for the renderer tests."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bot.render import Player, TableContext
from engine import Card, Event, Game, Result, Rules, parse_cards
from engine.actions import Timeout

PLAYERS = (
    Player("Аня"),
    Player("Боря"),
    Player("Вика <b>&"),
    Player("Гена"),
    Player("Computer", ai_level=1),
    Player("Ежик"),
)


def players(n: int) -> list[Player]:
    """The first ``n`` test players."""
    return list(PLAYERS[:n])


def position(rules: Rules | str, hands: list[str], stock: str = "", **kw: Any) -> Game:
    """A pinned position: hands and stock as card strings (``stock[-1]`` is the turn-up);
    ungiven cards lie in the discard. ``first_attacker`` defaults to seat 0."""
    r = Rules.preset(rules) if isinstance(rules, str) else rules
    kw.setdefault("first_attacker", 0)
    return Game.deal(r, [parse_cards(h) for h in hands], parse_cards(stock), **kw)


def card(text: str) -> Card:
    """One card."""
    return Card.parse(text)


def ctx(
    game: Game, events: list[Event] | tuple[Event, ...] = (), seconds: float | None = 95
) -> TableContext:
    """A context for a pinned game: table 4242, version = moves, group "Дурачки"."""
    return TableContext(
        table_id=4242,
        version=game.moves,
        group_title="Дурачки",
        seconds_left=seconds,
        events=tuple(events),
        bot_username="durak_test_bot",
    )


def random_games(
    rules: Rules, players: int, seed: int, max_moves: int = 400
) -> Iterator[tuple[Game, list[Event]]]:
    """Every position of a seeded random game (with the events so far), to the end."""
    rng = random.Random(seed)
    game = Game.new(rules, players=players, seed=seed)
    events: list[Event] = []
    for _ in range(max_moves):
        yield game, events
        if game.result is not None:
            return
        seats = game.to_act()
        if not seats:
            return
        seat = rng.choice(seats)
        actions = game.legal_actions(seat)
        if rng.random() < 0.01 and seat in game.waiting_on():
            events = events + game.apply(Timeout(seat))
        else:
            events = events + game.apply(rng.choice(actions))


@dataclass(frozen=True)
class Tally:
    """A stand-in for the store's TallyRow."""

    name: str
    games: int
    durak: int
    pogony: int
    draws: int
    points: int
    chat_id: int = 0


def result(**kw: object) -> Result:
    """A game's result: by default seat 1 is the durak of three, seats 0 and 2 went out."""
    base: dict[str, object] = {
        "durak": 1,
        "durak_team": None,
        "losers": (1,),
        "draw": False,
        "pogony": False,
        "finish_order": (0, 2),
        "points": (2, 0, 2),
        "first_attacker": 0,
        "dealer": 2,
    }
    return Result(**{**base, **kw})  # type: ignore[arg-type]
