"""What a game's log says of each seat (``bot.service.feats``), on pinned deals: each feat
read where it happens, and missed where it just does not."""

from __future__ import annotations

import random

from engine_tests.helpers import c, position
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.achievements import (
    KNOWN,
    NO_TAKE,
    NO_TRUMP,
    POGONY_GIVEN,
    SIX_BEATEN,
    TOOK_FIVE,
    TRANSFER_THREE,
)
from bot.service.feats import feats_of
from engine import Game, Rules
from engine.actions import Action, Cover, Lead, PickedUp, Take, Throw, Transfer

PEREVODNOY = Rules.preset("perevodnoy")


def six_attack(last: bool = True) -> tuple[Game, list[Action]]:
    """Seat 0 attacks seat 1 with three sixes and throws in three sevens, every one
    covered (``last``: the sixth covered too, else he stops at five and takes)."""
    game = position(Rules(), ["6S 6C 6D 7S 7C 7D", "7H 8C 9D 8S 9C 8D KH"], trump="H", bouts=3)
    actions: list[Action] = [
        Lead(0, (c("6S"), c("6C"), c("6D"))),
        Cover(1, c("6S"), c("7H")),
        Cover(1, c("6C"), c("8C")),
        Cover(1, c("6D"), c("9D")),
        Throw(0, c("7S")),
        Cover(1, c("7S"), c("8S")),
        Throw(0, c("7C")),
        Cover(1, c("7C"), c("9C")),
        Throw(0, c("7D")),
        Cover(1, c("7D"), c("8D")) if last else Take(1),
    ]
    return game, actions


def test_six_cards_beaten_off_by_the_defender() -> None:
    start, actions = six_attack()
    attacker, defender = feats_of(start, actions)
    assert defender & SIX_BEATEN and defender & KNOWN
    assert not attacker & SIX_BEATEN


def test_five_covered_and_the_sixth_taken_is_not_six_beaten() -> None:
    start, actions = six_attack(last=False)
    _, defender = feats_of(start, actions)
    assert defender & KNOWN and not defender & SIX_BEATEN
    assert not defender & NO_TAKE, "he took"


def test_pogony_given_by_who_put_the_sixes_in() -> None:
    # the last bout against the durak held three sixes: seat 0 gave him pogony
    start, actions = six_attack()
    attacker, defender = feats_of(start, actions)
    assert attacker & POGONY_GIVEN and not defender & POGONY_GIVEN
    # one six alone gives none
    game = position(Rules(), ["6S", "7D 8D"], trump="H")
    one = feats_of(game, [Lead(0, (c("6S"),)), Take(1)])
    assert not one[0] & POGONY_GIVEN and one[0] & KNOWN


def test_pogony_counts_a_six_thrown_in_by_another() -> None:
    game = position(Rules(), ["6S", "7S 8D 9D", "6C"], trump="H")
    actions = [Lead(0, (c("6S"),)), Cover(1, c("6S"), c("7S")), Throw(2, c("6C")), Take(1)]
    feats = feats_of(game, actions)
    assert feats[0] & POGONY_GIVEN and feats[2] & POGONY_GIVEN and not feats[1] & POGONY_GIVEN


def test_a_transfer_chain_of_three_and_one_of_two() -> None:
    game = position(
        PEREVODNOY, ["7S 9C TC JC QC", "7C 8S QD", "7D JS QS", "7H 9S TS KD"], trump="D", bouts=3
    )
    actions: list[Action] = [
        Lead(0, (c("7S"),)),
        Transfer(1, c("7C")),
        Transfer(2, c("7D")),
        Transfer(3, c("7H")),
    ]
    three = feats_of(game, actions)
    assert three[3] & TRANSFER_THREE
    assert not any(f & TRANSFER_THREE for f in three[:3])
    two = feats_of(game, actions[:3])
    assert not any(f & TRANSFER_THREE for f in two)


def test_trumps_played_and_not() -> None:
    game = position(
        PEREVODNOY, ["7S 9C TC JC QC", "7C 8S QD", "7D JS QS", "7H 9S TS KD"], trump="D", bouts=3
    )
    actions = [Lead(0, (c("7S"),)), Transfer(1, c("7C")), Transfer(2, c("7D"))]
    feats = feats_of(game, actions)
    assert feats[0] & NO_TRUMP and feats[1] & NO_TRUMP
    assert not feats[2] & NO_TRUMP, "7♦ is a trump"
    # a trump covering counts too
    start, beaten = six_attack()
    assert not feats_of(start, beaten)[1] & NO_TRUMP, "7♥ covered a six"


def test_a_log_that_does_not_apply_or_end_as_stored_gives_nothing() -> None:
    start, actions = six_attack()
    assert feats_of(start, [actions[1]]) == (0, 0), "a cover before any lead"
    assert feats_of(start, actions, final="not the end") == (0, 0)
    game = start.copy()
    for action in actions:
        game.apply(action)
    assert feats_of(start, actions, final=game.to_json()) != (0, 0)


def random_game(seed: int, players: int) -> tuple[Game, list[Action], list[list[object]]]:
    """A seeded game played to its end by random legal moves, with its events."""
    rules = PEREVODNOY if seed % 2 else Rules()
    start = Game.new(rules, players=players, seed=seed)
    game = start.copy()
    rng = random.Random(seed)
    actions: list[Action] = []
    events: list[list[object]] = []
    while game.result is None:
        seat = rng.choice(game.to_act())
        action = rng.choice(game.legal_actions(seat))
        events.append(list(game.apply(action)))
        actions.append(action)
    return start, actions, events


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 6))
def test_takes_are_counted_as_the_events_say(seed: int, players: int) -> None:
    start, actions, events = random_game(seed, players)
    takes = [0] * players
    for batch in events:
        for event in batch:
            if isinstance(event, PickedUp):
                takes[event.seat] += 1
    feats = feats_of(start, actions)
    for seat in range(players):
        assert feats[seat] & KNOWN
        assert bool(feats[seat] & NO_TAKE) == (takes[seat] == 0)
        assert bool(feats[seat] & TOOK_FIVE) == (takes[seat] >= 5)
