"""RULES.md §5 prostoy5 (seed 002, Dureń Piątkowy): sets, refills, partial defence."""

from __future__ import annotations

import pytest

from engine import Game, IllegalAction, Result, Rules
from engine.actions import (
    Action,
    Beaten,
    Cover,
    Drew,
    Lead,
    PickedUp,
    SwapTrump,
    Take,
    Throw,
    TrumpSwapped,
)

from .helpers import assert_conserved, c, cards, kinds, position

P5 = Rules.preset("prostoy5")


def refused(game: Game, action: Action, reason: str) -> None:
    before = game.to_json()
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    assert info.value.reason == reason
    assert game.to_json() == before
    assert action not in game.legal_actions(action.seat)


def test_prostoy5_five_cards_dealt_and_left_of_the_dealer_attacks() -> None:
    for seed in range(30):
        g = Game.new(P5, players=4, seed=seed)
        assert [len(h) for h in g.hands] == [5] * 4
        assert g.attacker == (g.dealer + 1) % 4, "the player left of the dealer attacks"
        assert g.defender == (g.attacker + 1) % 4
        assert_conserved(g)
    dealers = {Game.new(P5, players=4, seed=s).dealer for s in range(30)}
    assert len(dealers) > 1, "the first dealer is chosen by lot"


def test_prostoy5_hand_size_is_five() -> None:
    assert P5.hand_size == 5
    with pytest.raises(ValueError, match="5 cards"):
        Rules.preset("prostoy5", hand_size=6)


def test_prostoy5_attack_sets_of_one_three_or_five() -> None:
    g = position(P5, ["7S 7C 9D 9H QS KC", "8S 9S TC AD JD QD"], stock="KD AH")
    leads = {a.cards for a in g.legal_actions(0) if isinstance(a, Lead)}
    assert all(len(x) in (1, 3, 5) for x in leads)
    assert tuple(cards("7S 7C KC")) in {tuple(sorted(x)) for x in leads}, "a pair and any card"
    assert tuple(sorted(cards("7S 7C 9D 9H QS"))) in {tuple(sorted(x)) for x in leads}
    refused(g, Lead(0, tuple(cards("7S 7C"))), "not_a_set")
    refused(g, Lead(0, tuple(cards("7S 7C 9D 9H"))), "not_a_set")
    refused(g, Lead(0, tuple(cards("7S 9D QS"))), "not_a_set")
    g.apply(Lead(0, tuple(cards("7S 7C 9D 9H QS"))))
    assert len(g.att) == 5


def test_prostoy5_four_of_a_kind_and_any_card() -> None:
    g = position(P5, ["7S 7C 7D 7H QS", "8S 9S TC AD JD"], stock="KD AH")
    g.apply(Lead(0, tuple(cards("7S 7C 7D 7H QS"))))
    assert len(g.att) == 5


def test_prostoy5_never_more_than_the_defender_holds() -> None:
    # "При его руке из 4 карт доступны только 1 или 3."
    g = position(P5, ["7S 7C 9D 9H QS", "8S 9S TC AD"], stock="KD AH")
    assert {len(a.cards) for a in g.legal_actions(0) if isinstance(a, Lead)} == {1, 3}
    refused(g, Lead(0, tuple(cards("7S 7C 9D 9H QS"))), "limit_reached")


def test_prostoy5_the_attacker_refills_at_once_before_the_defence() -> None:
    g = position(P5, ["7S 7C QS 9D 9H", "8S 9S TC AD JD"], stock="6C 6D JC KD AH")
    events = g.apply(Lead(0, tuple(cards("7S 7C QS"))))
    assert Drew(0, 3) in events and len(g.hands[0]) == 5
    assert g.stock == cards("KD AH")
    assert g.waiting_on() == (1,)


def test_prostoy5_no_throw_ins() -> None:
    g = position(P5, ["7S 7C QS 9D 9H", "8S 9S TC AD JD", "7D 8D"], stock="6C 6D JC KD AH")
    g.apply(Lead(0, (c("QS"),)))
    assert g.legal_actions(0) == [] and g.legal_actions(2) == []
    refused(g, Throw(2, c("7D")), "not_your_turn")


def test_prostoy5_worked_example_of_seed_002_section_06() -> None:
    # Колода пуста, пики — козырь. Атака 7♣, 7♦ и Q♥. У защитника K♣, 8♦ и 6♣.
    g = position(P5, ["7C 7D QH 9S", "KC 8D 6C", "TH JH"], trump="S")
    g.apply(Lead(0, tuple(cards("7C 7D QH"))))
    g.apply(Cover(1, c("7C"), c("KC")))  # покрывает 7♣ королём треф
    g.apply(Cover(1, c("7D"), c("8D")))  # и 7♦ восьмёркой бубен
    assert not any(isinstance(a, Cover) for a in g.legal_actions(1)), "не может покрыть Q♥"
    events = g.apply(Take(1))
    beaten = [e for e in events if isinstance(e, Beaten)]
    assert beaten and sorted(beaten[0].cards) == sorted(cards("7C KC 7D 8D")), "четыре карты"
    assert PickedUp(1, (c("QH"),)) in events, "забирает только Q♥"
    assert sorted(g.hands[1]) == sorted(cards("6C QH")), "и сохраняет 6♣: у него 2 карты"
    assert (g.attacker, g.defender) == (2, 0), "его следующий ход пропускают"
    assert_conserved(g)


def test_prostoy5_all_covered_the_defender_attacks_next_and_draws() -> None:
    g = position(P5, ["7C 9S TS JS QS", "KC 8D 6C 9D TD"], stock="6H 7H 8H AH")
    g.apply(Lead(0, (c("7C"),)))  # refills from the stock: 6♥
    events = g.apply(Cover(1, c("7C"), c("KC")))
    assert Beaten(tuple(cards("7C KC"))) in events
    assert (g.attacker, g.defender) == (1, 0)
    assert Drew(1, 1) in events and len(g.hands[1]) == 5


def test_prostoy5_the_lowest_trump_may_be_swapped_for_the_turn_up_while_stock_remains() -> None:
    # Trump ♥ (A♥ face up); seat 0 holds 6♥, the lowest trump.
    g = position(P5, ["6H 7C 9S TS JS", "KC 8D 6C 9D TD"], stock="6D 7D AH")
    assert SwapTrump(0, c("6H")) in g.legal_actions(0)
    assert not any(isinstance(a, SwapTrump) for a in g.legal_actions(1))
    events = g.apply(SwapTrump(0, c("6H")))
    assert TrumpSwapped(0, c("6H"), c("AH")) in events
    assert c("AH") in g.hands[0] and g.stock[-1] == c("6H") and g.turnup == c("6H")
    assert g.trump == c("AH").suit
    assert not any(isinstance(a, SwapTrump) for a in g.legal_actions(0)), "once"
    refused(g, SwapTrump(0, c("AH")), "no_swap")
    assert g.public_view().known[0] == (c("AH"),), "everyone saw him take it"


def test_prostoy5_no_swap_when_the_stock_is_gone() -> None:
    g = position(P5, ["6H 7C 9S TS JS", "KC 8D 6C 9D TD"], trump="AH")
    assert "SwapTrump" not in kinds(g.legal_actions(0))
    refused(g, SwapTrump(0, c("6H")), "no_swap")


def test_prostoy5_last_two_ending_together_is_a_draw_and_the_dealer_stays() -> None:
    g = position(P5, ["7C", "KC"], trump="S")
    g.apply(Lead(0, (c("7C"),)))
    g.apply(Cover(1, c("7C"), c("KC")))
    assert g.result is not None and g.result.draw
    nxt = Game.new(P5, players=2, seed=3, previous=g.result)
    assert nxt.dealer == g.dealer, "after a draw the dealer stays"
    lost = Result(
        durak=0,
        durak_team=None,
        losers=(0,),
        draw=False,
        pogony=False,
        finish_order=(1,),
        points=(0, 2),
        first_attacker=1,
        dealer=1,
    )
    after = Game.new(P5, players=2, seed=3, previous=lost)
    assert after.dealer == 0 and after.attacker == 1, "the durak deals; left of him leads"


def test_prostoy5_refuses_teams() -> None:
    with pytest.raises(ValueError, match="no teams"):
        Rules.preset("prostoy5", teams="pairs")
