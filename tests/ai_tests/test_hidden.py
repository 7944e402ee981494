"""The players see only their seat's view: same view, same choice; sampled worlds agree with
everything the seat can see."""

from __future__ import annotations

import json
import random

import pytest

from engine import Card, Game, Rules
from engine.ai import HardPlayer, SearchConfig
from engine.ai.knowledge import knowledge
from engine.ai.world import WorldBuilder
from engine.rules import MODIFIERS, PRESETS

from .helpers import positions

SEARCH = SearchConfig(worlds=8, candidates=4, budget=None)


def hidden_twin(game: Game, seat: int, rng: random.Random) -> Game | None:
    """The same game with one card the seat cannot know swapped: an opponent's unseen card
    with a card of the stock (not the face-up one), or with another opponent's unseen card.
    (The seat's view may still differ: who may throw in now is public.)"""
    data = json.loads(game.to_json())
    seen = data["seen"]
    spots = [
        (s, i)
        for s, hand in enumerate(data["hands"])
        if s != seat
        for i, code in enumerate(hand)
        if code not in seen[s]
    ]
    if not spots:
        return None
    s, i = rng.choice(spots)
    stock = data["stock"]
    others = [(t, j) for t, j in spots if t != s]
    if len(stock) > 2 and (not others or rng.random() < 0.5):
        j = rng.randrange(len(stock) - 2)
        data["hands"][s][i], stock[j] = stock[j], data["hands"][s][i]
    elif others:
        t, j = rng.choice(others)
        data["hands"][s][i], data["hands"][t][j] = data["hands"][t][j], data["hands"][s][i]
    else:
        return None
    for hand in data["hands"]:
        hand.sort(key=Card.parse)
    twin = Game.from_json(json.dumps(data))
    if twin.to_json() == game.to_json():
        return None
    return twin


@pytest.mark.parametrize(
    ("preset", "players", "teams"),
    [("podkidnoy", 2, "none"), ("perevodnoy", 3, "none"), ("podkidnoy", 4, "pairs")],
)
def test_same_view_gives_the_hard_player_the_same_choice(
    preset: str, players: int, teams: str
) -> None:
    rules = Rules.preset(preset, teams=teams)
    rng = random.Random(players)
    hard = HardPlayer(SEARCH)
    checked = differs = 0
    for seed in range(6):
        for game in positions(rules, players, seed, every=4):
            seat = rng.choice(game.to_act())
            twin = hidden_twin(game, seat, rng)
            if twin is None:
                continue
            assert twin.hands != game.hands
            view, twin_view = game.view(seat), twin.view(seat)
            if view != twin_view:
                continue  # the swap showed (who may throw in now): not a hidden difference
            assert hard.choose(view, rules, seed=seed) == hard.choose(twin_view, rules, seed=seed)
            checked += 1
            if checked % 3 == 0:
                other = [s for s in range(players) if s != seat and len(twin.view(s).hand)]
                differs += any(twin.view(s) != game.view(s) for s in other)
            if checked >= 8 * (seed + 1):
                break
    assert checked >= 20
    assert differs > 0  # the twins really differ for someone


WORLD_CASES = [
    *((preset, players, ()) for preset in sorted(PRESETS) for players in (2, 3, 6)),
    *(("podkidnoy", 3, (modifier,)) for modifier in MODIFIERS),
    ("perevodnoy", 4, ("wild_sixes", "poker")),
    ("prostoy5", 3, ("changing_trump",)),
]


@pytest.mark.parametrize(("preset", "players", "modifiers"), WORLD_CASES)
def test_sampled_worlds_look_the_same_from_the_seat(
    preset: str, players: int, modifiers: tuple[str, ...]
) -> None:
    options: dict[str, object] = {"modifiers": modifiers}
    if preset == "perevodnoy":
        options["proezdnoy"] = "no_trump" not in modifiers
    rules = Rules.preset(preset, **options)
    rng = random.Random(players)
    built = 0
    for seed in range(2):
        for game in positions(rules, players, seed, every=2):
            seat = rng.choice(game.to_act())
            view = game.view(seat)
            know = knowledge(view, rules)
            assert know is not None
            assert len(know.unknown) == sum(know.hidden) + know.stock_hidden + know.spare
            world = WorldBuilder(view, rules, know).sample(rng)
            assert world is not None
            assert world.view(seat) == view
            for s in range(players):  # each hand keeps its size and its known cards
                assert len(world.hands[s]) == len(game.hands[s])
                assert set(view.public.known[s]) <= set(world.hands[s])
            built += 1
    assert built >= 10


def test_the_unknown_cards_are_exactly_the_ones_the_seat_cannot_see() -> None:
    rules = Rules.preset("podkidnoy")
    for game in positions(rules, 3, seed=5, every=2):
        seat = game.to_act()[0]
        view = game.view(seat)
        know = knowledge(view, rules)
        assert know is not None
        hidden_from_seat = {
            c for s in range(3) if s != seat for c in game.hands[s] if c not in view.public.known[s]
        }
        hidden_from_seat |= {c for c in game.stock if c != game.turnup}
        assert set(know.unknown) == hidden_from_seat
