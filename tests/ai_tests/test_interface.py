"""The players' interface: a seat's view and the public rules in, a legal action out."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from typing import Any, NamedTuple

import pytest

from engine import Game, Rules, SeatView
from engine.actions import Cover, Lead, Take, Throw, Timeout
from engine.ai import (
    LEVELS,
    EasyPlayer,
    HardPlayer,
    NormalPlayer,
    Player,
    SearchConfig,
    choose,
    make_player,
)
from engine.ai.heuristic import best_action, situation_from_view

from .helpers import positions

PLAYERS = (EasyPlayer, NormalPlayer, HardPlayer)


@pytest.mark.parametrize("kind", PLAYERS)
def test_a_player_takes_a_view_and_the_rules_never_a_game(kind: type[Player]) -> None:
    hints = typing.get_type_hints(kind.choose)
    assert hints["view"] is SeatView
    assert hints["rules"] is Rules
    assert Game not in hints.values()
    params = list(inspect.signature(kind.choose).parameters)
    assert params[:3] == ["self", "view", "rules"]
    assert all(
        p.kind is inspect.Parameter.KEYWORD_ONLY
        for p in list(inspect.signature(kind.choose).parameters.values())[3:]
    )


def _reaches_a_game(value: Any, depth: int = 0) -> bool:
    if isinstance(value, Game):
        return True
    if depth > 6:
        return False
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(
            _reaches_a_game(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)
        )
    if isinstance(value, tuple | list):
        return any(_reaches_a_game(x, depth + 1) for x in value)
    return False


def test_a_view_holds_no_way_back_to_the_game() -> None:
    rules = Rules.preset("perevodnoy")
    for game in positions(rules, 3, seed=2, every=5):
        seat = game.to_act()[0]
        view = game.view(seat)
        assert not _reaches_a_game(view)
        del game  # the players below get the view alone
        for level in LEVELS:
            action = choose(level, view, rules, seed=1, budget=0.05)
            assert action in view.actions


def test_a_game_is_not_a_view() -> None:
    rules = Rules.preset("podkidnoy")
    game = Game.new(rules, players=2, seed=1)
    for level in LEVELS:
        with pytest.raises(AttributeError):
            make_player(level).choose(game, rules)  # type: ignore[arg-type]


def test_levels_and_factory() -> None:
    assert LEVELS == ("easy", "normal", "hard")
    for level in LEVELS:
        assert make_player(level).level == level
    with pytest.raises(ValueError, match="unknown level"):
        make_player("grandmaster")


def test_no_legal_action_is_refused() -> None:
    rules = Rules.preset("podkidnoy")
    game = Game.new(rules, players=2, seed=1)
    idle = 1 - game.to_act()[0]
    view = game.view(idle)
    assert view.actions == ()
    for level in LEVELS:
        with pytest.raises(ValueError, match="no legal action"):
            make_player(level).choose(view, rules)


def test_the_same_seed_gives_the_same_choice_and_budget_is_honoured() -> None:
    rules = Rules.preset("podkidnoy")
    for game in positions(rules, 2, seed=4, every=6):
        view = game.view(game.to_act()[0])
        for level in LEVELS:
            player = make_player(level)
            # hard: a budget the clock cannot cut, so its fixed work alone bounds it
            budget = 30.0 if level == "hard" else None
            first = player.choose(view, rules, seed=9, budget=budget)
            assert first == player.choose(view, rules, seed=9, budget=budget)
        hard = HardPlayer(SearchConfig(worlds=200, budget=None))
        quick = hard.choose(view, rules, seed=1, budget=0.01)  # cut short, still legal
        assert quick in view.actions


class Shuffle(NamedTuple):
    """An action type the players have never heard of."""

    seat: int


class Wish(NamedTuple):
    """Another one, with a field."""

    seat: int
    card: int


def _with_actions(view: SeatView, actions: tuple[Any, ...]) -> SeatView:
    return dataclasses.replace(view, actions=actions)


def test_unknown_action_types_are_handled_gracefully() -> None:
    rules = Rules.preset("podkidnoy")
    for game in positions(rules, 2, seed=3, every=3):
        seat = game.to_act()[0]
        view = game.view(seat)
        strange = (Shuffle(seat), Wish(seat, 3))
        mixed = _with_actions(view, (*strange, *view.actions))
        only = _with_actions(view, strange)
        for level in LEVELS:
            player = make_player(level)
            assert player.choose(mixed, rules, seed=2, budget=0.05) in mixed.actions
            assert player.choose(only, rules, seed=2, budget=0.05) in strange
        # the heuristic keeps to what it knows while it may
        known = best_action(situation_from_view(mixed, rules))
        assert known in view.actions


def test_timeout_is_never_chosen() -> None:
    rules = Rules.preset("podkidnoy")
    for game in positions(rules, 2, seed=8, every=4):
        seat = game.to_act()[0]
        view = game.view(seat)
        padded = _with_actions(view, (Timeout(seat), *view.actions))
        for level in LEVELS:
            assert type(make_player(level).choose(padded, rules, budget=0.05)) is not Timeout


def test_the_normal_heuristic_plays_sensibly() -> None:
    from engine import Card

    rules = Rules.preset("podkidnoy")
    c = Card.parse
    # Lead: the lowest plain card, never a trump (trump: hearts).
    game = Game.deal(
        rules,
        [["6H", "8S", "8C", "AS", "KH"], ["7S", "9S", "TS", "JS", "QS"]],
        ["7C", "9C", "TC", "JC", "QC", "AH"],
        first_attacker=0,
    )
    action = NormalPlayer().choose(game.view(0), rules)
    assert action == Lead(0, (c("8S"), c("8C")))  # the low pair goes out together
    game.apply(Lead(0, (c("8S"),)))
    # Cover with the cheapest card that beats it.
    assert NormalPlayer().choose(game.view(1), rules) == Cover(1, c("8S"), c("9S"))
    game.apply(Cover(1, c("8S"), c("9S")))
    # Throw in a low plain card of a rank on the table; keep the trumps.
    assert NormalPlayer().choose(game.view(0), rules) == Throw(0, c("8C"))
    game.apply(Throw(0, c("8C")))
    # Nothing beats 8♣: take.
    assert NormalPlayer().choose(game.view(1), rules) == Take(1)
    game.apply(Take(1))


def test_the_normal_heuristic_takes_rather_than_spend_trumps_early() -> None:
    from engine import Card, deck

    rules = Rules.preset("podkidnoy")
    c = Card.parse
    hands = [["7S", "7C", "9D", "TD", "JD", "QD"], ["6H", "AH", "8D", "6S", "6C", "KD"]]
    held = {c(x) for h in hands for x in h}
    turnup = c("KH")
    stock = [x for x in deck(36) if x not in held and x != turnup] + [turnup]
    game = Game.deal(rules, hands, stock, first_attacker=0)
    game.apply(Lead(0, (c("7S"), c("7C"))))
    # Covering 7♠ 7♣ would cost two trumps and the stock is full: take two low cards.
    view = game.view(1)
    assert Cover(1, c("7S"), c("6H")) in view.actions
    assert NormalPlayer().choose(view, rules) == Take(1)
