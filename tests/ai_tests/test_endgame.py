"""The hard player's exact endgame: the same values as a brute-force minimax, the best move
found, the position rebuilt from the seat's view alone."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import Game, Rules
from engine.actions import Action
from engine.ai import HardPlayer, NormalPlayer
from engine.ai.endgame import DRAW, LOSS, WIN, Exhausted, Solver, ordered, solve_root
from engine.ai.knowledge import knowledge
from engine.ai.search import HARD, endgame_action
from engine.ai.world import WorldBuilder
from engine.cards import deck

PRESETS = ("podkidnoy", "perevodnoy")


def mover(g: Game) -> int:
    seats = g.to_act()
    return g.defender if g.defender in seats else seats[0]


def brute(g: Game, seat: int, path: frozenset[str] = frozenset()) -> float:
    """Plain minimax, every move searched, no memory: ``seat``'s value with the defender
    moving first, a position repeated on the way a draw (the solver's conventions)."""
    if g.result is not None:
        if g.result.draw:
            return DRAW
        return LOSS if seat in g.result.losers else WIN
    key = g.to_json()
    if key in path:
        return DRAW
    path = path | {key}
    m = mover(g)
    values = []
    for act in g.legal_actions(m):
        child = g.copy()
        child.apply(act)
        values.append(brute(child, seat, path))
    return max(values) if m == seat else min(values)


def small_position(preset: str, seed: int, sizes: tuple[int, int], attacker: int) -> Game:
    """A 2-player position with the stock empty: a few random cards in each hand, the rest
    beaten off."""
    rules = Rules.preset(preset)
    rng = random.Random(seed)
    cards = list(deck(rules.deck_size))
    rng.shuffle(cards)
    hands = [sorted(cards[: sizes[0]]), sorted(cards[sizes[0] : sizes[0] + sizes[1]])]
    trump = rng.choice(cards[sizes[0] + sizes[1] :])
    return Game.deal(rules, hands, (), attacker, trump=trump, first_game=False, bouts=3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 10**6),
    a=st.integers(1, 3),
    b=st.integers(1, 3),
    attacker=st.integers(0, 1),
    moves=st.integers(0, 3),
)
def test_the_solver_agrees_with_brute_force_minimax(
    preset: str, seed: int, a: int, b: int, attacker: int, moves: int
) -> None:
    g = small_position(preset, seed, (a, b), attacker)
    rng = random.Random(seed)
    for _ in range(moves):  # now and then mid-bout
        if g.result is not None:
            break
        m = mover(g)
        g.apply(rng.choice(g.legal_actions(m)))
    assume(g.result is None)
    for seat in (0, 1):
        solver = Solver(seat, None, 10**6, None)
        value = solver.value(g.copy())
        assume(not solver.repeated)  # a cycle's value may depend on the path to it
        assert value == brute(g, seat)


@settings(max_examples=40, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 10**6),
    a=st.integers(1, 3),
    b=st.integers(1, 3),
    attacker=st.integers(0, 1),
)
def test_the_root_search_finds_the_best_move(
    preset: str, seed: int, a: int, b: int, attacker: int
) -> None:
    g = small_position(preset, seed, (a, b), attacker)
    seat = g.to_act()[0]
    acts = g.legal_actions(seat)
    solver = Solver(seat, None, 10**6, None)
    found = solve_root(g, seat, ordered(g, acts), solver)
    assume(not solver.repeated)
    exact = {}
    for act in acts:
        child = g.copy()
        child.apply(act)
        exact[act] = brute(child, seat)
    best = max(v for _, v in found)
    assert best == max(exact.values())
    chosen = next(act for act, v in found if v == best)
    assert exact[chosen] == best
    for act, v in found:  # a move searched only against the best so far: a bound
        assert v == exact[act] or (v <= best and exact[act] <= best)


def test_a_search_over_its_positions_stops() -> None:
    g = small_position("podkidnoy", 5, (6, 6), 0)
    solver = Solver(0, None, 50, None)
    try:
        solver.value(g)
    except Exhausted:
        assert solver.nodes > 50
    else:
        raise AssertionError("6 cards against 6 in 50 positions")


def endgame_positions(preset: str, seeds: range) -> list[tuple[Game, int]]:
    """Positions of games between normal players where the stock is empty and the seat to
    act has a choice."""
    rules = Rules.preset(preset)
    found = []
    for seed in seeds:
        g = Game.new(rules, players=2, seed=seed)
        bot = NormalPlayer()
        order = random.Random(seed)
        while g.result is None:
            seat = order.choice(g.to_act())
            view = g.view(seat)
            if not g.stock and len(view.actions) > 1:
                found.append((g.copy(), seat))
            g.apply(bot.choose(view, rules))
    return found


def test_the_endgame_is_rebuilt_from_the_view_alone() -> None:
    """With the stock empty a 2-player seat knows every card: the position it rebuilds
    from its view is the game's own."""
    for preset in PRESETS:
        rules = Rules.preset(preset)
        for g, seat in endgame_positions(preset, range(6))[::3]:
            view = g.view(seat)
            know = knowledge(view, rules)
            assert know is not None and know.stock_hidden == 0
            world = WorldBuilder(view, rules, know).sample(random.Random(1))
            assert world is not None
            assert world.hands == g.hands
            assert (world.att, world.cov, world.attacker, world.defender) == (
                g.att,
                g.cov,
                g.attacker,
                g.defender,
            )


def test_the_hard_player_wins_a_won_endgame() -> None:
    """Where the exact value is a win, the hard player's move keeps it a win."""
    checked = 0
    for preset in PRESETS:
        rules = Rules.preset(preset)
        for g, seat in endgame_positions(preset, range(10, 16)):
            if sum(len(h) for h in g.hands) > 7:
                continue
            view = g.view(seat)
            values: dict[Action, float] = {}
            for act in view.actions:
                child = g.copy()
                child.apply(act)
                solver = Solver(seat, None, 10**6, None)
                values[act] = solver.value(child)
            if max(values.values()) < WIN:
                continue
            cfg = replace(HARD, budget=None)
            action = HardPlayer(cfg).choose(view, rules, seed=3)
            assert values[action] == WIN, (g.hands, action, values)
            checked += 1
    assert checked >= 5


def test_the_endgame_leaves_a_lost_or_unknown_position_to_the_sampled_search() -> None:
    rules = Rules.preset("podkidnoy")
    g = Game.new(rules, players=2, seed=3)  # the stock is full: hidden cards
    seat = g.to_act()[0]
    view = g.view(seat)
    assert endgame_action(view, rules, list(view.actions), HARD, 0.0) is None
    four = Game.new(rules, players=4, seed=3)
    view = four.view(four.to_act()[0])
    assert endgame_action(view, rules, list(view.actions), HARD, 0.0) is None


def test_the_endgame_choice_is_the_same_each_time() -> None:
    rules = Rules.preset("perevodnoy")
    hard = HardPlayer(replace(HARD, budget=None))
    for g, seat in endgame_positions("perevodnoy", range(20, 23))[::2]:
        view = g.view(seat)
        assert hard.choose(view, rules, seed=4) == hard.choose(view, rules, seed=4)
