"""The coach: marks only the viewer's own moves, where the hard player, from the viewer's
view, would have played otherwise and judges the played move a clear loss."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from functools import cache
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import Action, Card, Game, Rules, SeatView
from engine.actions import (
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
from engine.ai import NormalPlayer, SearchConfig
from engine.ai.coach import THRESHOLD, Mark, Review, review
from engine.ai.search import search_action

# The same code path as the coach's defaults, with fewer worlds: these tests check what the
# coach does, not how strong it is.
QUICK = SearchConfig(worlds=10, candidates=3, budget=None)
WORLDS = 24
PODKIDNOY = Rules.preset("podkidnoy")
NORMAL = NormalPlayer()

Policy = Callable[[SeatView, Rules, int], Action]


class Played(NamedTuple):
    """A recorded game: its start, its actions and each seat's legal actions before each."""

    rules: Rules
    initial: Game
    actions: tuple[Action, ...]
    legal: tuple[tuple[Action, ...], ...]


def normal(view: SeatView, rules: Rules, seed: int) -> Action:
    return NORMAL.choose(view, rules, seed=seed)


def taker(view: SeatView, rules: Rules, seed: int) -> Action:
    """Takes whenever it may, plays the normal heuristic otherwise."""
    take = Take(view.seat)
    return take if take in view.actions else normal(view, rules, seed)


def hard(view: SeatView, rules: Rules, seed: int) -> Action:
    """Exactly what the coach's hard player (QUICK) would play."""
    return search_action(view, rules, seed, QUICK)


def record(rules: Rules, policies: tuple[Policy, ...], seed: int) -> Played:
    game = Game.new(rules, players=len(policies), seed=seed)
    initial = game.copy()
    order = random.Random(seed)
    actions: list[Action] = []
    legal: list[tuple[Action, ...]] = []
    while game.result is None:
        seat = order.choice(game.to_act())
        view = game.view(seat)
        action = view.actions[0] if len(view.actions) == 1 else policies[seat](view, rules, seed)
        legal.append(view.actions)
        actions.append(action)
        game.apply(action)
    return Played(rules, initial, tuple(actions), tuple(legal))


@cache
def taker_game() -> Played:
    return record(PODKIDNOY, (taker, normal), seed=11)


@cache
def taker_review() -> Review:
    game = taker_game()
    return review(
        game.initial, game.actions, PODKIDNOY, 0, seed=5, worlds=WORLDS, budget=None, config=QUICK
    )


def choices(game: Played, seat: int) -> int:
    """The seat's decisions with a real choice (a timeout or a resignation is none)."""
    return sum(
        1
        for a, legal in zip(game.actions, game.legal, strict=True)
        if a.seat == seat
        and type(a) not in (Timeout, Resign)
        and sum(1 for x in legal if type(x) is not Timeout) > 1
    )


def check_marks(game: Played, result: Review, threshold: float = THRESHOLD) -> None:
    """Every mark is one of the viewer's own moves with a real choice, and a clear loss."""
    moves = [m.move for m in result.marks]
    assert moves == sorted(set(moves))
    for m in result.marks:
        assert 1 <= m.move <= len(game.actions)
        assert m.played == game.actions[m.move - 1]
        assert m.played.seat == result.seat
        assert type(m.played) not in (Timeout, Resign)
        assert m.suggested != m.played
        assert m.suggested in game.legal[m.move - 1]
        assert 0.0 <= m.after < m.before <= 1.0
        assert m.drop > threshold
    assert 0 <= result.decisions <= choices(game, result.seat)


def test_taking_whenever_possible_is_marked() -> None:
    game, result = taker_game(), taker_review()
    check_marks(game, result)
    assert result.decisions == choices(game, 0)
    assert any(type(m.played) is Take for m in result.marks)
    biggest = result.biggest
    assert biggest is not None and biggest.drop == max(m.drop for m in result.marks)


def test_the_hard_players_own_choices_are_not_marked() -> None:
    game = record(PODKIDNOY, (hard, normal), seed=11)
    result = review(
        game.initial, game.actions, PODKIDNOY, 0, seed=11, worlds=WORLDS, budget=None, config=QUICK
    )
    assert result.decisions == choices(game, 0) > 0
    assert result.marks == ()
    assert result.biggest is None


def test_only_the_viewers_moves_are_reviewed() -> None:
    game = taker_game()
    result = review(
        game.initial, game.actions, PODKIDNOY, 1, seed=5, worlds=WORLDS, budget=None, config=QUICK
    )
    assert result.seat == 1
    assert result.decisions == choices(game, 1)
    check_marks(game, result)


def test_the_same_inputs_give_the_same_review() -> None:
    game, first = taker_game(), taker_review()
    again = review(
        game.initial, game.actions, PODKIDNOY, 0, seed=5, worlds=WORLDS, budget=None, config=QUICK
    )
    assert (again.decisions, again.marks) == (first.decisions, first.marks)


def test_a_higher_threshold_keeps_fewer_marks() -> None:
    game, low = taker_game(), taker_review()
    high = review(
        game.initial,
        game.actions,
        PODKIDNOY,
        0,
        seed=5,
        threshold=0.4,
        worlds=WORLDS,
        budget=None,
        config=QUICK,
    )
    check_marks(game, high, threshold=0.4)
    assert {m.move for m in high.marks} <= {m.move for m in low.marks}


def test_the_budget_cuts_the_review_short() -> None:
    game = taker_game()
    full = taker_review()
    start = time.process_time()
    none = review(game.initial, game.actions, PODKIDNOY, 0, budget=0.0)
    assert none.decisions == 0 and none.marks == ()
    short = review(game.initial, game.actions, PODKIDNOY, 0, seed=5, budget=0.05)
    assert short.decisions < full.decisions
    assert time.process_time() - start < 1.0
    check_marks(game, short)


def test_timeouts_and_resignations_are_no_decisions() -> None:
    for end in (Timeout(0), Resign(0)):
        game = Game.new(PODKIDNOY, players=2, seed=3)
        initial = game.copy()
        actions: list[Action] = []
        legal: list[tuple[Action, ...]] = []
        while game.waiting_on() != (0,) or not actions:
            seat = game.to_act()[0]
            view = game.view(seat)
            legal.append(view.actions)
            actions.append(normal(view, PODKIDNOY, 0))
            game.apply(actions[-1])
        legal.append(game.view(0).actions)
        actions.append(end)
        game.apply(end)
        assert game.result is not None
        played = Played(PODKIDNOY, initial, tuple(actions), tuple(legal))
        result = review(initial, actions, PODKIDNOY, 0, worlds=WORLDS, budget=None, config=QUICK)
        assert all(m.move != len(actions) for m in result.marks)
        assert result.decisions == choices(played, 0)
        check_marks(played, result)


@pytest.mark.parametrize(
    ("preset", "players", "options", "seat"),
    [
        ("perevodnoy", 3, {}, 1),
        ("prostoy5", 2, {}, 0),
        ("prostoy5", 3, {}, 2),
        ("podkidnoy", 4, {"teams": "pairs"}, 3),
    ],
)
def test_other_games_are_reviewed(
    preset: str, players: int, options: dict[str, str], seat: int
) -> None:
    rules = Rules.preset(preset, **options)
    policies = tuple(taker if s == seat else normal for s in range(players))
    game = record(rules, policies, seed=7)
    result = review(
        game.initial, game.actions, rules, seat, seed=1, worlds=16, budget=0.4, config=QUICK
    )
    assert result.seat == seat and result.decisions > 0
    check_marks(game, result)


# ---------------------------------------------------------------- the saved form


def card(code: str) -> Card:
    return Card.parse(code)


ACTIONS: list[Action] = [
    Lead(0, (card("7S"), card("7H"))),
    Lead(1, (card("6S"),), (2,)),
    Throw(2, card("QC")),
    Cover(1, card("7S"), card("AS")),
    Cover(0, card("TD"), card("6H"), 3),
    Take(3),
    Pass(0),
    Transfer(1, card("9D")),
    ShowTrump(2, card("9H")),
    SwapTrump(0, card("6C")),
    PokerSwap(1, (card("8S"), card("JD"))),
]
chances = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
marks = st.builds(
    Mark,
    move=st.integers(min_value=1, max_value=5_000),
    played=st.sampled_from(ACTIONS),
    suggested=st.sampled_from(ACTIONS),
    before=chances,
    after=chances,
)


@given(
    st.integers(min_value=0, max_value=5),
    st.integers(min_value=0, max_value=200),
    st.lists(marks, max_size=6),
    st.floats(min_value=0.0, max_value=100.0, allow_nan=False),
)
def test_a_review_round_trips_through_json(
    seat: int, decisions: int, found: list[Mark], seconds: float
) -> None:
    result = Review(seat, decisions, tuple(found), seconds)
    text = result.to_json()
    assert json.loads(text)["marks"] == [m.to_dict() for m in found]
    assert Review.from_json(text) == result
    for m in found:
        assert Mark.from_dict(json.loads(json.dumps(m.to_dict()))) == m


def test_a_real_review_round_trips() -> None:
    result = taker_review()
    assert Review.from_json(result.to_json()) == result


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        '{"format": 99, "seat": 0, "decisions": 0, "marks": [], "cpu_seconds": 0}',
        '{"format": 1, "seat": -1, "decisions": 0, "marks": [], "cpu_seconds": 0}',
        '{"format": 1, "seat": 0, "decisions": 0, "marks": {}, "cpu_seconds": 0}',
        '{"format": 1, "seat": 0, "decisions": 0, "marks": [{"move": 1}], "cpu_seconds": 0}',
        '{"format": 1, "seat": 0, "decisions": 0, "marks": [], "cpu_seconds": "1"}',
    ],
)
def test_a_malformed_review_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Review.from_json(text)


def test_a_malformed_mark_is_refused() -> None:
    good = Mark(3, Take(0), Cover(0, card("7S"), card("AS")), 0.6, 0.2).to_dict()
    for key, value in (("move", 0), ("before", 1.5), ("after", "x"), ("played", {})):
        with pytest.raises(ValueError):
            Mark.from_dict({**good, key: value})


def test_a_paced_review_rests_between_worlds_and_finds_the_same() -> None:
    game = taker_game()
    calls = 0

    def pace() -> None:
        nonlocal calls
        calls += 1

    paced = review(
        game.initial,
        game.actions,
        PODKIDNOY,
        0,
        seed=5,
        worlds=WORLDS,
        budget=None,
        config=QUICK,
        pace=pace,
    )
    # called after every world of the hard player's searches and of the comparisons
    assert calls >= paced.decisions * QUICK.worlds
    assert paced.marks == taker_review().marks
    assert paced.decisions == taker_review().decisions
