"""RULES.md §5: perevodnoy (with proezdnoy), prostoy, and team play."""

from __future__ import annotations

import random

import pytest

from engine import Game, IllegalAction, Rules
from engine.actions import (
    Action,
    Cover,
    Lead,
    Pass,
    PickedUp,
    ShowTrump,
    Take,
    Throw,
    Transfer,
    Transferred,
    TrumpShown,
)

from .helpers import assert_conserved, c, cards, fresh_position, kinds, playout, position

PEREVODNOY = Rules.preset("perevodnoy")


def refused(game: Game, action: Action, reason: str) -> None:
    before = game.to_json()
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    assert info.value.reason == reason
    assert game.to_json() == before
    assert action not in game.legal_actions(action.seat)


def later(rules: Rules, hands: list[str], stock: str = "KD AH", first: int = 0) -> Game:
    """A position in a later bout (transfers allowed by the first-bout rule)."""
    return position(rules, hands, stock, first, bouts=3)


# ---------------------------------------------------------------- perevodnoy


def test_s5_perevodnoy_transfer_passes_the_attack_to_the_next_player() -> None:
    g = later(PEREVODNOY, ["7S 9C", "7C 8S QD", "JS QS KS"])
    g.apply(Lead(0, (c("7S"),)))
    assert Transfer(1, c("7C")) in g.legal_actions(1)
    events = g.apply(Transfer(1, c("7C")))
    assert Transferred(1, c("7C"), 2) in events
    assert (g.attacker, g.defender) == (1, 2) and g.att == cards("7S 7C")
    assert g.waiting_on() == (2,)
    # the new defender may transfer again if he can: here he covers or takes
    assert kinds(g.legal_actions(2)) == {"Cover", "Take"}


def test_s5_perevodnoy_only_before_any_cover() -> None:
    g = later(PEREVODNOY, ["7S 7D", "7C 8S QD", "JS QS KS"])
    g.apply(Lead(0, (c("7S"), c("7D"))))
    g.apply(Cover(1, c("7S"), c("8S")))
    assert "Transfer" not in kinds(g.legal_actions(1))
    refused(g, Transfer(1, c("7C")), "transfer_not_allowed")


def test_s5_perevodnoy_same_rank_only() -> None:
    g = later(PEREVODNOY, ["7S 9C", "7C 8S QD", "JS QS KS"])
    g.apply(Lead(0, (c("7S"),)))
    refused(g, Transfer(1, c("8S")), "transfer_rank")


def test_s5_perevodnoy_new_defender_must_hold_enough_cards() -> None:
    g = later(PEREVODNOY, ["7S 9C", "7C 8S QD", "JS"])
    g.apply(Lead(0, (c("7S"),)))
    refused(g, Transfer(1, c("7C")), "transfer_limit")
    assert kinds(g.legal_actions(1)) == {"Cover", "Take"}


def test_s5_perevodnoy_with_two_players_it_returns_to_the_attacker() -> None:
    g = later(PEREVODNOY, ["7S 9C QC", "7C 8S QD"])
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Transfer(1, c("7C")))
    assert (g.attacker, g.defender) == (1, 0)
    assert set(g.legal_actions(0)) == {
        Cover(0, c("7C"), c("9C")),
        Cover(0, c("7C"), c("QC")),
        Take(0),
    }


def test_s5_perevodnoy_chain_of_transfers_then_everyone_may_throw_in() -> None:
    g = later(PEREVODNOY, ["7S 8C 7H", "7C 9S QD", "7D TS KS AS", "8H 9H JH QH"])
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Transfer(1, c("7C")))
    g.apply(Transfer(2, c("7D")))
    assert (g.attacker, g.defender) == (2, 3)
    assert g.att == cards("7S 7C 7D") and g.def_start == 4
    assert Throw(0, c("7H")) in g.legal_actions(0), "the first attacker still throws in"
    g.apply(Throw(0, c("7H")))
    assert len(g.att) == 4 and "Throw" not in kinds(g.legal_actions(1))


def test_s5_perevodnoy_not_in_the_first_bout_of_the_first_game() -> None:
    hands = ["7S 9C", "7C 8S QD", "JS QS KS"]
    first = position(PEREVODNOY, hands, "KD AH")
    first.apply(Lead(0, (c("7S"),)))
    refused(first, Transfer(1, c("7C")), "transfer_not_allowed")
    second_game = position(PEREVODNOY, hands, "KD AH", first_game=False)
    second_game.apply(Lead(0, (c("7S"),)))
    assert Transfer(1, c("7C")) in second_game.legal_actions(1)
    option_off = position(Rules.preset("perevodnoy", no_transfer_first_bout=False), hands, "KD AH")
    option_off.apply(Lead(0, (c("7S"),)))
    assert Transfer(1, c("7C")) in option_off.legal_actions(1)


def test_s5_perevodnoy_no_transfer_with_trump_on_table_option() -> None:
    rules = Rules.preset("perevodnoy", no_transfer_with_trump_on_table=True)
    g = later(rules, ["7H 9C", "7C 8S QD", "JS QS KS"])
    g.apply(Lead(0, (c("7H"),)))
    refused(g, Transfer(1, c("7C")), "transfer_not_allowed")
    plain = later(PEREVODNOY, ["7H 9C", "7C 8S QD", "JS QS KS"])
    plain.apply(Lead(0, (c("7H"),)))
    assert Transfer(1, c("7C")) in plain.legal_actions(1)


def test_s5_perevodnoy_transfer_respects_the_bout_limits() -> None:
    rules = Rules.preset("perevodnoy", no_transfer_first_bout=False, first_bout_limit=2)
    g = fresh_position(rules, ["7S 7D 9C", "7C 8S QD", "JS QS KS"], turnup="AH")
    g.apply(Lead(0, (c("7S"), c("7D"))))
    refused(g, Transfer(1, c("7C")), "transfer_limit")


def test_s5_proezdnoy_show_a_trump_once_per_game_per_card() -> None:
    rules = Rules.preset("perevodnoy", proezdnoy=True)
    g = later(rules, ["7S 7C 9C TC JC", "7H 8S QD"])  # trump ♥
    g.apply(Lead(0, (c("7S"),)))
    assert ShowTrump(1, c("7H")) in g.legal_actions(1)
    events = g.apply(ShowTrump(1, c("7H")))
    assert TrumpShown(1, c("7H"), 0) in events
    assert c("7H") in g.hands[1] and g.att == cards("7S"), "shown, not laid"
    assert (g.attacker, g.defender) == (1, 0)
    g.apply(Transfer(0, c("7C")))
    assert (g.attacker, g.defender) == (0, 1)
    assert ShowTrump(1, c("7H")) not in g.legal_actions(1)
    refused(g, ShowTrump(1, c("7H")), "already_shown")
    assert Transfer(1, c("7H")) in g.legal_actions(1), "it may still be laid"


def test_s5_proezdnoy_only_with_a_trump_and_only_when_on() -> None:
    rules = Rules.preset("perevodnoy", proezdnoy=True)
    g = later(rules, ["7S 7C 9C", "7D 8S QD"])
    g.apply(Lead(0, (c("7S"),)))
    refused(g, ShowTrump(1, c("7D")), "not_a_trump")
    off = later(PEREVODNOY, ["7S 7C 9C", "7H 8S QD"])
    off.apply(Lead(0, (c("7S"),)))
    refused(off, ShowTrump(1, c("7H")), "transfer_not_allowed")


def test_s5_podkidnoy_has_no_transfer() -> None:
    g = later(Rules(), ["7S 9C", "7C 8S QD", "JS QS KS"])
    g.apply(Lead(0, (c("7S"),)))
    refused(g, Transfer(1, c("7C")), "transfer_not_allowed")


# ---------------------------------------------------------------- prostoy


PROSTOY = Rules.preset("prostoy")


def test_s5_prostoy_has_no_throw_ins() -> None:
    g = position(PROSTOY, ["7S 7C 8C", "8S 9D TD", "7D 8D"], "KD AH")
    g.apply(Lead(0, (c("7S"),)))
    assert g.legal_actions(0) == [] and g.legal_actions(2) == []
    refused(g, Throw(2, c("7D")), "not_your_turn")
    events = g.apply(Cover(1, c("7S"), c("8S")))
    assert g.att == [] and g.attacker == 1, "covered: the bout ends at once"
    assert not any(isinstance(e, PickedUp) for e in events)


def test_s5_prostoy_lead_several_of_a_rank_up_to_the_defenders_hand() -> None:
    g = position(PROSTOY, ["7S 7C 7D", "8S 9C"], "KD AH")
    assert max(len(a.cards) for a in g.legal_actions(0) if isinstance(a, Lead)) == 2
    g.apply(Lead(0, (c("7S"), c("7C"))))
    g.apply(Cover(1, c("7S"), c("8S")))
    events = g.apply(Take(1))
    assert PickedUp(1, tuple(cards("7S 7C 8S"))) in events, "takes all, at once"
    assert g.to_act() == (0,)


# ---------------------------------------------------------------- teams


PAIRS = Rules(teams="pairs")


def test_s5_teams_partners_alternate_and_never_attack_each_other() -> None:
    g = Game.new(PAIRS, players=4, seed=1)
    assert [g.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert g.team_of(g.attacker) != g.team_of(g.defender)
    six = Game.new(Rules(teams="pairs"), players=6, seed=1)
    assert [six.team_of(s) for s in range(6)] == [0, 1, 2, 0, 1, 2]
    triples = Game.new(Rules(teams="triples"), players=6, seed=1)
    assert [triples.team_of(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]


def test_s5_teams_only_the_defenders_opponents_throw_in() -> None:
    g = position(PAIRS, ["7S KC", "8S 9C QD", "7C JC", "7D 7H"], "6C AH")
    g.apply(Lead(0, (c("7S"),)))
    assert Throw(2, c("7C")) in g.legal_actions(2)
    assert g.legal_actions(3) == [], "the defender's partner never helps"
    refused(g, Throw(3, c("7D")), "not_your_turn")
    assert g.public_view().roles == ("attacker", "defender", "thrower", "partner")


def test_s5_teams_the_defender_is_the_next_active_opponent() -> None:
    g = position(PAIRS, ["7S KC", "", "7C JC", "7D 7H"], trump="H")
    assert g.out[1] and g.defender == 3


def test_s5_teams_after_a_take_the_next_attacker_attacks_an_opponent() -> None:
    g = position(PAIRS, ["7S KC", "8S 9C QD", "7C JC", "7D 7H"], "6C AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Take(1))
    assert g.to_act() == (0, 2), "the opponents of the defender, not his partner"
    g.apply(Pass(2))
    g.apply(Pass(0))
    assert (g.attacker, g.defender) == (2, 3)


def test_s5_teams_one_of_each_team_left_play_on() -> None:
    g = position(PAIRS, ["", "6S", "9C", "7S"], trump="H", first=1)
    assert g.out[0]
    g.apply(Lead(1, (c("6S"),)))
    g.apply(Take(2))
    assert g.out == [True, True, False, False] and g.result is None
    assert (g.attacker, g.defender) == (3, 2)


def test_s5_teams_whole_team_loses() -> None:
    # Seat 1 leads his last card to seat 2, who takes; seats 1 and 3 are both out:
    # the team of seats 0 and 2 loses.
    g = position(PAIRS, ["9D", "6S", "9C", ""], trump="H", first=1)
    g.apply(Lead(1, (c("6S"),)))
    g.apply(Take(2))
    assert g.result is not None
    assert g.result.losers == (0, 2) and g.result.durak_team == (0, 2)
    assert g.result.durak == 2, "the one holding the most cards is named"
    assert g.result.points == (0, 2, 0, 2)


def test_s5_teams_draw_when_nobody_is_left_holding_cards() -> None:
    g = position(PAIRS, ["", "6S", "7S", ""], trump="H", first=1)
    g.apply(Lead(1, (c("6S"),)))
    g.apply(Cover(2, c("6S"), c("7S")))
    assert g.result is not None and g.result.draw
    assert g.result.points == (1, 1, 1, 1)


@pytest.mark.parametrize("rules", [Rules(), Rules(teams="pairs"), Rules(teams="triples")])
def test_s5_six_players_with_36_cards_play_to_the_end(rules: Rules) -> None:
    for seed in range(20):
        g = Game.new(rules, players=6, seed=seed)
        assert g.stock == []
        playout(g, random.Random(seed))
        assert g.result is not None
        assert_conserved(g)


def test_s5_proezdnoy_a_show_fits_where_a_laid_card_would_not() -> None:
    # The next defender holds one card: laying 7♥ would make two attack cards, too many;
    # showing it adds none, so the show is offered and the laid transfer is not.
    rules = Rules.preset("perevodnoy", proezdnoy=True)
    g = later(rules, ["7S 9C TC", "7H 8S QD", "JS"])  # trump ♥
    g.apply(Lead(0, (c("7S"),)))
    moves = g.legal_actions(1)
    assert ShowTrump(1, c("7H")) in moves and Transfer(1, c("7H")) not in moves
    g.apply(ShowTrump(1, c("7H")))
    assert (g.attacker, g.defender) == (1, 2)
