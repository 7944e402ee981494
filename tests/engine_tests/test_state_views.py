"""Saved games (JSON with a format version), the action log form, and views."""

from __future__ import annotations

import json
import random

import pytest

from engine import Card, Game, IllegalAction, InvalidState, Rules, action_from_dict
from engine.actions import (
    ACTION_TYPES,
    Cover,
    Lead,
    Pass,
    PokerSwap,
    Resign,
    ShowTrump,
    SwapTrump,
    Take,
    Throw,
    Timeout,
    Transfer,
)

from .helpers import c, cards, playout, position


def mid_game(seed: int = 3, players: int = 3) -> Game:
    g = Game.new(Rules.preset("perevodnoy", proezdnoy=True), players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(25):
        seat = rng.choice(g.to_act())
        g.apply(rng.choice(g.legal_actions(seat)))
    return g


def test_json_round_trip_is_exact_and_the_loaded_game_plays_on() -> None:
    g = mid_game()
    text = g.to_json()
    loaded = Game.from_json(text)
    assert loaded.to_json() == text
    assert json.loads(text)["format"] == 1
    rng1, rng2 = random.Random(9), random.Random(9)
    playout(g, rng1)
    playout(loaded, rng2)
    assert g.to_json() == loaded.to_json()


def test_finished_game_round_trips_with_its_result() -> None:
    g = Game.new(Rules(), players=2, seed=4)
    playout(g, random.Random(4))
    loaded = Game.from_json(g.to_json())
    assert loaded.result == g.result and loaded.to_act() == ()


def _corrupt(text: str, **changes: object) -> str:
    data = json.loads(text)
    data.update(changes)
    return json.dumps(data, ensure_ascii=False)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format=2), "format 2"),
        (lambda d: d.pop("format"), "format"),
        (lambda d: d.update(hands=[*d["hands"][:-1], [*d["hands"][-1], d["hands"][0][0]]]), "deck"),
        (lambda d: d["hands"][0].pop(), "deck"),
        (lambda d: d["hands"][0].__setitem__(0, "ZZ"), "card"),
        (lambda d: d.update(attacker=7), "seat"),
        (lambda d: d.update(phase=9), "phase"),
        (lambda d: d.update(rules={**d["rules"], "bout_limit": 0}), "bout_limit"),
        (lambda d: d.update(unknown=1), "unknown"),
        (lambda d: d.update(trump=(d["trump"] + 1) % 4), "turn-up"),
        (lambda d: d.update(out=[True, False, False]), "finish"),
    ],
)
def test_unsound_saved_games_are_refused(mutate: object, message: str) -> None:
    data = json.loads(mid_game().to_json())
    mutate(data)  # type: ignore[operator]
    with pytest.raises(InvalidState, match=message):
        Game.from_json(json.dumps(data, ensure_ascii=False))


@pytest.mark.parametrize("text", ["", "not json", "[]", "{}", '{"format": 1}', "null"])
def test_garbage_is_refused(text: str) -> None:
    with pytest.raises(InvalidState):
        Game.from_json(text)


def test_actions_round_trip_through_their_dict_form() -> None:
    samples = [
        Lead(0, (c("7S"), c("7C"))),
        Throw(1, c("TH")),
        Cover(2, c("7S"), c("8S")),
        Take(3),
        Pass(4),
        Transfer(5, c("AD")),
        ShowTrump(0, c("6H")),
        SwapTrump(2, c("6D")),
        PokerSwap(3, (c("9S"), c("XR"))),
        Timeout(1),
        Resign(2),
        Lead(0, (c("6S"), c("6C"), c("XB")), (2, 3, None)),
        Throw(1, c("6D"), 0),
        Cover(2, c("7S"), c("6H"), 0),
        Transfer(3, c("6C"), 1),
    ]
    assert {type(a) for a in samples} == set(ACTION_TYPES)
    for action in samples:
        data = json.loads(json.dumps(action.to_dict()))
        assert action_from_dict(data) == action


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        {"type": "lead"},
        {"type": "lead", "seat": 0, "cards": "7S"},
        {"type": "throw", "seat": 0},
        {"type": "throw", "seat": True, "card": "7S"},
        {"type": "cover", "seat": 0, "attack": "7S", "card": "XX"},
        {"type": "fold", "seat": 0},
        {"type": "throw", "seat": 0, "card": "6S", "suit": 4},
        {"type": "throw", "seat": 0, "card": "6S", "suit": "H"},
        {"type": "lead", "seat": 0, "cards": ["6S"], "suits": [1, 2]},
        {"type": "poker_swap", "seat": 0, "cards": ["6S"]},
    ],
)
def test_malformed_action_dicts_are_refused(data: object) -> None:
    with pytest.raises(ValueError):
        action_from_dict(data)


def test_actions_of_different_kinds_never_compare_equal() -> None:
    assert Take(0) != Pass(0) and Timeout(0) != Take(0)
    assert len({Take(0), Pass(0), Timeout(0)}) == 3
    assert Throw(0, c("7S")) != Transfer(0, c("7S"))


def test_bad_input_is_refused_with_a_reason_and_changes_nothing() -> None:
    g = position(Rules(), ["7S 8C", "8S 9C"], stock="6C AH")
    before = g.to_json()
    for action, reason in [
        (Take(5), "no_such_seat"),
        (Take(-1), "no_such_seat"),
        (Lead(0, (int(c("7S")),)), "card_not_in_hand"),  # type: ignore[arg-type]
        (Lead(0, [c("7S")]), "empty_lead"),  # type: ignore[arg-type]
        (Throw(0, "7S"), "not_your_turn"),  # type: ignore[arg-type]
        (("lead", 0), "no_such_seat"),
    ]:
        with pytest.raises(IllegalAction) as info:
            g.apply(action)  # type: ignore[arg-type]
        assert info.value.reason == reason, action
        assert g.to_json() == before
    g.apply(Lead(0, (c("7S"),)))
    with pytest.raises(IllegalAction) as info:
        g.apply(Cover(1, c("7S"), int(c("8S"))))  # type: ignore[arg-type]
    assert info.value.reason == "card_not_in_hand"


def test_seat_view_shows_his_hand_sorted_with_trumps_last_and_his_moves() -> None:
    g = position(Rules(), ["AH 7S 6H KC 7D", "8S 9C"], stock="6C AH".replace("AH", "QH"))
    view = g.view(0)
    assert view.hand == tuple(cards("7S 7D KC 6H AH"))
    assert view.actions == tuple(g.legal_actions(0))
    assert view.public.hand_sizes == (5, 2) and view.public.stock_size == 2
    assert view.public.trump_card == c("QH") and view.public.roles == ("attacker", "defender")
    assert view.public.to_act == (0,) and view.public.phase == "lead"
    with pytest.raises(ValueError):
        g.view(2)


def test_public_view_holds_no_hand_card() -> None:
    g = mid_game(seed=8, players=4)
    view = g.public_view()
    shown = {a for a, _ in view.table} | {x for _, x in view.table if x is not None}
    shown |= {x for known in view.known for x in known}
    for name in view.__slots__:
        value = getattr(view, name)
        for hand in g.hands:
            for card in hand:
                if card in shown or card == view.trump_card:
                    continue
                # cards are interned: identity, not equality (a count may equal a code)
                assert all(x is not card for x in _flatten(value))


def _flatten(value: object) -> list[object]:
    if isinstance(value, tuple):
        return [x for v in value for x in _flatten(v)]
    return [value]


def test_card_ints_are_cards() -> None:
    assert isinstance(Card.parse("7S"), int) and Card(int(Card.parse("7S"))) is Card.parse("7S")
    with pytest.raises(ValueError):
        Card(3)


def test_known_cards_are_the_picked_up_ones_still_in_hand() -> None:
    g = position(Rules(), ["7S 7C 8D", "8S 9C QH"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Take(1))
    assert g.public_view().known == ((), ()), "not picked up yet: 7♣ may still come"
    g.apply(Pass(0))
    # seat 0 drew the face-up A♥ as the stock ran out: everyone saw it go to him
    assert g.public_view().known == ((c("AH"),), (c("7S"),))
    g.apply(Lead(0, (c("8D"),)))  # seat 1 took, so seat 0 attacks again
    g.apply(Cover(1, c("8D"), c("QH")))
    assert g.public_view().known[1] == (c("7S"),)
    g = Game.new(Rules(), players=6, seed=2)
    assert g.public_view().known[g.dealer] == (g.turnup,), "the card that set trump"


def test_a_seat_view_built_on_a_shared_public_view_is_the_same() -> None:
    game = Game.new(Rules.preset("podkidnoy"), players=3, seed=11)
    for _ in range(12):
        public = game.public_view()
        for seat in range(3):
            assert game.view(seat, public) == game.view(seat)
        seat = game.to_act()[0]
        game.apply(game.view(seat).actions[0])
        # the view of the state before is no longer this game's
        with pytest.raises(ValueError):
            game.view(seat, public)
