"""RULES.md §2: setting up a game."""

from __future__ import annotations

import pytest

from engine import Card, Game, Result, Rules, Suit
from engine.actions import Dealt, Lead

from .helpers import assert_conserved, c, position


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_s2_deal_six_each_and_turn_up_the_next_card_under_the_stock(players: int) -> None:
    g = Game.new(Rules(), players=players, seed=11)
    assert [len(h) for h in g.hands] == [6] * players
    assert len(g.stock) == 36 - 6 * players
    assert g.turnup == g.stock[-1], "the turn-up is drawn last"
    assert g.trump == g.turnup.suit
    assert_conserved(g)


def test_s2_six_players_with_36_cards_deal_the_whole_deck_and_the_last_card_sets_trump() -> None:
    g = Game.new(Rules(), players=6, seed=5)
    assert g.stock == [] and [len(h) for h in g.hands] == [6] * 6
    assert g.turnup is not None and g.trump == g.turnup.suit
    assert g.turnup in g.hands[g.dealer], "the shown card stays in the dealer's hand"
    assert g.public_view().trump_card == g.turnup
    assert_conserved(g)


def test_s2_every_shuffle_comes_from_the_seed() -> None:
    a = Game.new(Rules(), players=3, seed=123)
    b = Game.new(Rules(), players=3, seed=123)
    other = Game.new(Rules(), players=3, seed=124)
    assert a.to_json() == b.to_json()
    assert a.hands != other.hands
    assert Game.new(Rules(), players=3).seed is not None, "an unseeded game records its seed"


def test_s2_holder_of_the_lowest_trump_attacks_first_and_need_not_lead_it() -> None:
    # Trump ♥ (the turn-up AH). Seat 2 holds 7♥, the lowest trump in play.
    g = position(Rules(), ["6S 8H 9C", "6C 7C KD", "7H AS QC"], stock="TD AH", first=None)
    assert g.attacker == 2 and g.defender == 0
    assert g.to_act() == (2,) and g.waiting_on() == (2,)
    g.apply(Lead(2, (c("AS"),)))  # any card, not necessarily the trump


def test_s2_nobody_holds_a_trump_so_the_lowest_card_attacks_with_suit_tie_break() -> None:
    # Trump ♥; nobody holds a heart. Lowest rank 6 is held as 6♦ (seat 0) and 6♣ (seat 1):
    # the house tie-break ♠ ♣ ♦ ♥ gives seat 1.
    g = position(Rules(), ["6D 9S", "6C KS", "8D QC"], stock="TS AH", first=None)
    assert g.attacker == 1


def _previous(durak: int | None, first: int, finish: tuple[int, ...], draw: bool = False) -> Result:
    return Result(
        durak=durak,
        durak_team=None,
        losers=() if durak is None else (durak,),
        draw=draw,
        pogony=False,
        finish_order=finish,
        points=(2, 2, 2, 2),
        first_attacker=first,
        dealer=3,
    )


@pytest.mark.parametrize(
    ("rule", "expected"),
    [("left_of_loser", 3), ("right_of_loser", 1), ("winner", 1)],
)
def test_s2_later_games_choose_the_first_attacker_by_option(rule: str, expected: int) -> None:
    prev = _previous(durak=2, first=0, finish=(1, 3, 0))
    r = Rules(next_first_attacker=rule)  # type: ignore[arg-type]
    g = Game.new(r, players=4, seed=3, previous=prev)
    assert g.attacker == expected
    if rule == "right_of_loser":
        assert g.defender == 2, "the durak defends first"
    assert g.dealer == 2, "the durak deals"
    assert not g.first_game


def test_s2_later_game_with_lowest_trump_rule_uses_the_lowest_trump_again() -> None:
    prev = _previous(durak=2, first=0, finish=(1, 3, 0))
    g = Game.new(Rules(next_first_attacker="lowest_trump"), players=4, seed=3, previous=prev)
    fresh = Game.new(Rules(), players=4, seed=3)
    holders = [
        (min((c.rank for c in h if c.suit == g.trump), default=99), s)
        for s, h in enumerate(g.hands)
    ]
    assert g.attacker == min(holders)[1]
    assert fresh.first_game and not g.first_game


def test_s2_after_a_draw_the_previous_first_attacker_is_kept() -> None:
    prev = _previous(durak=None, first=2, finish=(0, 1, 3, 2), draw=True)
    for rule in ("left_of_loser", "right_of_loser", "winner"):
        r = Rules(next_first_attacker=rule)  # type: ignore[arg-type]
        g = Game.new(r, players=4, seed=9, previous=prev)
        assert g.attacker == 2


def test_s2_dealt_event_and_pinned_position_checks() -> None:
    with pytest.raises(ValueError, match="twice"):
        position(Rules(), ["6S 7S", "6S 8S"], stock="AH")
    with pytest.raises(ValueError, match="trump"):
        position(Rules(), ["6S 7S", "9S 8S"])
    g = position(Rules(), ["6S 7S", "9S 8S"], trump=Suit.CLUBS)
    assert g.trump == Suit.CLUBS and g.turnup is None
    assert Dealt(0, None) == Dealt(0, None)
    assert isinstance(g.hands[0][0], Card)
