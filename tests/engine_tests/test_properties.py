"""RULES.md §7 invariants, checked at every step of random games (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Card, Game, IllegalAction, Rules, deck
from engine.actions import (
    Action,
    Cover,
    Lead,
    Pass,
    PokerSwap,
    ShowTrump,
    SwapTrump,
    Take,
    Throw,
    Timeout,
    Transfer,
)

from .configs import CONFIGS, MODIFIER_CONFIGS, modifier_rules, rules_for
from .helpers import assert_conserved

PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def normalise(action: Action) -> Action:
    if isinstance(action, Lead) and action.suits is None:
        return Lead(action.seat, tuple(sorted(action.cards)))
    if isinstance(action, PokerSwap):
        return PokerSwap(action.seat, (min(action.cards), max(action.cards)))
    return action


def random_wrong_action(game: Game, rng: random.Random) -> Action:
    """A plausible action, drawn without regard to legality."""
    seat = rng.randrange(game.n)
    pool: list[Card] = deck(game.rules.deck_size)
    card = rng.choice(game.hands[seat] or pool) if rng.random() < 0.7 else rng.choice(pool)
    table = game.att or pool
    kind = rng.randrange(9)
    if kind == 0:
        k = rng.randint(1, 3)
        return Lead(
            seat, tuple(rng.sample(game.hands[seat] or pool, min(k, len(game.hands[seat]) or 1)))
        )
    if kind == 1:
        return Throw(seat, card, rng.choice((None, None, 1)))
    if kind == 2:
        return Cover(seat, rng.choice(table), card, rng.choice((None, None, 2)))
    if kind == 3:
        return Take(seat)
    if kind == 4:
        return Pass(seat)
    if kind == 5:
        return Transfer(seat, card, rng.choice((None, None, 0, 3)))
    if kind == 6:
        return SwapTrump(seat, card)
    if kind == 7:
        return PokerSwap(seat, (card, rng.choice(pool)))
    return ShowTrump(seat, card)


def check_state(game: Game) -> None:
    assert_conserved(game)
    if game.result is None:
        acting = game.to_act()
        assert acting, "a running game always has someone to act"
        for seat in acting:
            assert game.legal_actions(seat), f"seat {seat} may act but has no action"
        for seat in range(game.n):
            if seat not in acting:
                assert game.legal_actions(seat) == []
        assert set(game.waiting_on()) <= set(acting)
        assert all(not game.out[s] for s in acting)
    else:
        assert game.to_act() == () and game.waiting_on() == ()
        r = game.result
        assert len(r.points) == game.n
        assert r.draw == (r.durak is None)
        assert set(r.finish_order) | set(r.losers) <= set(range(game.n))


def check_view_hides_hands(game: Game) -> None:
    view = game.public_view()
    text = repr(view)
    public = {a for a, _ in view.table} | {c for _, c in view.table if c is not None}
    if game.turnup is not None:
        public.add(game.turnup)
    public.update(c for known in view.known for c in known)  # picked up in public
    for hand in game.hands:
        for card in hand:
            if card not in public:
                assert repr(card) not in text
    for seat in range(game.n):
        seen = game.view(seat)
        assert sorted(seen.hand) == sorted(game.hands[seat])
        for other in range(game.n):
            if other != seat:
                for card in game.hands[other]:
                    assert card not in seen.hand


def _table(config: tuple[object, ...], mix: int) -> tuple[Rules, int]:
    if len(config) == 3:
        preset, players, teams = config
        return rules_for(str(preset), str(teams), mix), int(players)  # type: ignore[call-overload]
    preset, mods, deck, players, teams = config
    rules = modifier_rules(str(preset), mods, int(deck), str(teams), mix)  # type: ignore[arg-type, call-overload]
    return rules, int(players)  # type: ignore[call-overload]


@PROPERTY_SETTINGS
@given(
    config=st.sampled_from(CONFIGS) | st.sampled_from(MODIFIER_CONFIGS),
    mix=st.integers(0, 20),
    seed=st.integers(0, 2**32),
)
def test_every_step_keeps_the_invariants(config: tuple[object, ...], mix: int, seed: int) -> None:
    rules, players = _table(config, mix)
    game = Game.new(rules, players=players, seed=seed)
    twin = Game.new(rules, players=players, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while game.result is None:
        check_state(game)
        text = game.to_json()
        loaded = Game.from_json(text)
        assert loaded.to_json() == text, "JSON round trip is exact"
        # every legal action of every acting seat applies
        legal: set[Action] = set()
        for seat in game.to_act():
            for action in game.legal_actions(seat):
                legal.add(action)
                game.copy().apply(action)
        # anything else is refused and changes nothing
        for _ in range(4):
            wrong = random_wrong_action(game, rng)
            if normalise(wrong) in legal:
                continue
            try:
                game.apply(wrong)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"{wrong} applied but was not listed as legal")
            assert game.to_json() == text
        if steps % 7 == 0:
            check_view_hides_hands(game)
        seat = rng.choice(game.to_act())
        if rng.random() < (0.1 if game.rules.on_timeout == "auto" else 0.003):
            action: Action = Timeout(seat)
        else:
            action = rng.choice(game.legal_actions(seat))
        game.apply(action)
        twin.apply(action)
        loaded.apply(action)
        assert loaded.to_json() == game.to_json(), "a loaded game plays on identically"
        steps += 1
        assert steps < 5000
    check_state(game)
    assert twin.to_json() == game.to_json(), "same seed and actions, same state"
    assert Game.from_json(game.to_json()).to_json() == game.to_json()
