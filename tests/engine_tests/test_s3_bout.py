"""RULES.md §3: a bout of podkidnoy, statement by statement, on pinned positions."""

from __future__ import annotations

import pytest

from engine import Game, IllegalAction, Rules
from engine.actions import (
    Action,
    Beaten,
    Cover,
    Drew,
    Lead,
    Pass,
    PickedUp,
    Take,
    Throw,
    Timeout,
)

from .helpers import c, cards, fresh_position, kinds, pass_round, position


def refused(game: Game, action: Action, reason: str) -> None:
    """``action`` is refused for ``reason`` and the game is exactly as before."""
    before = game.to_json()
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    assert info.value.reason == reason
    assert game.to_json() == before
    assert action not in game.legal_actions(action.seat)


# ---------------------------------------------------------------- 3.1 the lead


def test_s3_1_lead_one_card_or_several_of_one_rank() -> None:
    g = position(Rules(), ["7S 7C 9D", "8S 9S TC AD"], stock="KD AH")
    leads = g.legal_actions(0)
    assert set(leads) == {
        Lead(0, (c("7S"),)),
        Lead(0, (c("7C"),)),
        Lead(0, (c("9D"),)),
        Lead(0, (c("7S"), c("7C"))),
    }
    refused(g, Lead(0, (c("7S"), c("9D"))), "mixed_ranks")
    refused(g, Lead(0, ()), "empty_lead")
    refused(g, Lead(0, (c("7S"), c("7S"))), "duplicate_card")
    refused(g, Lead(0, (c("AS"),)), "card_not_in_hand")
    refused(g, Lead(1, (c("8S"),)), "not_your_turn")
    g.apply(Lead(0, (c("7C"), c("7S"))))
    assert g.att == cards("7C 7S") and g.hands[0] == cards("9D")


def test_s3_1_multi_card_lead_off_allows_single_cards_only() -> None:
    g = position(Rules(multi_card_lead=False), ["7S 7C 9D", "8S 9S TC AD"], stock="KD AH")
    assert all(len(a.cards) == 1 for a in g.legal_actions(0) if isinstance(a, Lead))
    refused(g, Lead(0, (c("7S"), c("7C"))), "limit_reached")


@pytest.mark.parametrize(("first", "defender"), [(0, 1), (1, 2), (2, 0)])
def test_s3_1_the_defender_is_the_next_player_to_the_left(first: int, defender: int) -> None:
    g = position(Rules(), ["7S", "8S", "9S"], stock="KD AH", first=first)
    assert g.attacker == first and g.defender == defender


# ---------------------------------------------------------------- 3.2 covering


def test_s3_2_cover_each_attack_card_separately_in_any_order() -> None:
    # Trump ♥. Attack 7♠ 7♣; the defender beats 7♣ first, then 7♠ with a trump.
    g = position(Rules(), ["7S 7C KD", "8C 6H 9D QS"], stock="JD AH")
    g.apply(Lead(0, (c("7S"), c("7C"))))
    covers = {a for a in g.legal_actions(1) if isinstance(a, Cover)}
    assert covers == {
        Cover(1, c("7C"), c("8C")),
        Cover(1, c("7S"), c("6H")),
        Cover(1, c("7C"), c("6H")),
        Cover(1, c("7S"), c("QS")),
    }
    g.apply(Cover(1, c("7C"), c("8C")))
    events = g.apply(Cover(1, c("7S"), c("6H")))
    assert g.att, "the attacker has not said pass yet"
    events = g.apply(Pass(0))
    assert Beaten(tuple(cards("7S 7C 6H 8C"))) in events


def test_s3_2_what_beats_what() -> None:
    # Trump ♥: same suit higher beats; any trump beats a non-trump; a trump only a higher trump.
    g = position(Rules(), ["8H", "7H 9H AS 9S"], stock="JD AH")
    g.apply(Lead(0, (c("8H"),)))
    refused(g, Cover(1, c("8H"), c("7H")), "does_not_beat")
    refused(g, Cover(1, c("8H"), c("AS")), "does_not_beat")
    refused(g, Cover(1, c("8H"), c("JD")), "card_not_in_hand")
    refused(g, Cover(1, c("9S"), c("9H")), "not_on_table")
    assert {a for a in g.legal_actions(1) if isinstance(a, Cover)} == {Cover(1, c("8H"), c("9H"))}
    g.apply(Cover(1, c("8H"), c("9H")))
    refused(g, Cover(1, c("8H"), c("AS")), "not_your_turn")


def test_s3_2_the_defender_may_take_at_any_moment() -> None:
    g = position(Rules(), ["7S 7C", "8S 8D KD", "QC"], stock="JD AH")
    g.apply(Lead(0, (c("7S"), c("7C"))))
    assert Take(1) in g.legal_actions(1)
    g.apply(Cover(1, c("7S"), c("8S")))
    assert Take(1) in g.legal_actions(1), "after a partial cover too"
    g.apply(Take(1))
    refused(g, Cover(1, c("7C"), c("KD")), "not_your_turn")
    events = pass_round(g)
    assert PickedUp(1, tuple(cards("7S 7C 8S"))) in events, "everyone passed: he picks up"


# ---------------------------------------------------------------- 3.3 throw-ins


def test_s3_3_throw_in_ranks_on_the_table_attack_or_cover() -> None:
    g = position(Rules(), ["7S 8C 9D KC", "8S 9S TC AD", "7D QH"], stock="JD AH")
    g.apply(Lead(0, (c("7S"),)))
    assert {a for a in g.legal_actions(2) if isinstance(a, Throw)} == {Throw(2, c("7D"))}
    assert g.legal_actions(0) == [Pass(0)], "no 7 left to throw: he may only pass"
    assert g.to_act() == (0, 1, 2), "who holds a 7 is nobody's business"
    g.apply(Cover(1, c("7S"), c("8S")))
    assert {a for a in g.legal_actions(0) if isinstance(a, Throw)} == {Throw(0, c("8C"))}
    refused(g, Throw(0, c("9D")), "rank_not_on_table")
    refused(g, Throw(0, c("QH")), "card_not_in_hand")
    g.apply(Throw(0, c("8C")))
    assert g.att == cards("7S 8C")


def test_s3_3_the_defender_never_throws_in() -> None:
    g = position(Rules(), ["7S 8C", "8S 7C TC", "QH"], stock="JD AH")
    g.apply(Lead(0, (c("7S"),)))
    assert "Throw" not in kinds(g.legal_actions(1))
    refused(g, Throw(1, c("7C")), "not_your_turn")


def test_s3_3_clockwise_order_lets_the_attacker_throw_first_then_the_next() -> None:
    rules = Rules(throw_in_order="clockwise")
    g = position(rules, ["7S 8C", "8S 9S TC AD", "7D 8D"], stock="JD AH")
    g.apply(Lead(0, (c("7S"),)))
    assert g.to_act() == (0, 1), "the attacker holds the turn, though he has no other 7"
    g.apply(Pass(0))
    assert g.to_act() == (1, 2), "he passed: the turn passes to seat 2"
    g.apply(Cover(1, c("7S"), c("8S")))
    assert g.to_act() == (2,), "a cover does not give the turn back to the attacker"
    refused(g, Throw(0, c("8C")), "not_your_turn")
    g.apply(Throw(2, c("8D")))
    assert g.to_act() == (1, 2), "he keeps the turn: 7♦ still fits"
    g.apply(Pass(2))
    assert g.to_act() == (0, 1), "once he passes, it comes round to the attacker"


def test_s3_3_any_order_lets_every_thrower_act() -> None:
    g = position(Rules(), ["7S 8C", "8S 9S TC AD", "7D 8D"], stock="JD AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Cover(1, c("7S"), c("8S")))
    assert g.to_act() == (0, 2)
    g.apply(Throw(2, c("7D")))


# ---------------------------------------------------------------- 3.4 limits


def test_s3_4_cap_counts_against_the_defenders_hand_at_the_bouts_start() -> None:
    # The defender holds 2 cards; one attack is covered: exactly one more card may come.
    g = position(Rules(), ["7S 7H 8C 8D", "8S 9D"], stock="KD AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Cover(1, c("7S"), c("8S")))
    throws = [a for a in g.legal_actions(0) if isinstance(a, Throw)]
    assert set(throws) == {Throw(0, c("7H")), Throw(0, c("8C")), Throw(0, c("8D"))}
    g.apply(Throw(0, c("8C")))
    assert "Throw" not in kinds(g.legal_actions(0))
    refused(g, Throw(0, c("8D")), "limit_reached")
    assert g.public_view().bout_cap == 2


def test_s3_4_a_lead_is_capped_by_the_defenders_hand() -> None:
    g = position(Rules(), ["7S 7C 7D", "8S 9S"], stock="KD AH")
    assert max(len(a.cards) for a in g.legal_actions(0) if isinstance(a, Lead)) == 2
    refused(g, Lead(0, (c("7S"), c("7C"), c("7D"))), "limit_reached")


def _six_limit_position(rules: Rules, stock: str = "KC AD", **kw: object) -> Game:
    # Trump ♦ (or given). The defender holds 8 cards, so only the bout limit binds.
    g = position(
        rules,
        ["7S 7C 7H 9C 9H TH 9D", "9S JS QS KS AS TC JC QC"],
        stock=stock,
        **kw,
    )
    g.apply(Lead(0, (c("7S"), c("7C"), c("7H"))))
    g.apply(Cover(1, c("7S"), c("9S")))
    g.apply(Throw(0, c("9C")))
    g.apply(Throw(0, c("9H")))
    g.apply(Cover(1, c("7C"), c("TC")))
    g.apply(Throw(0, c("TH")))
    return g


def test_s3_4_never_more_than_six_attack_cards() -> None:
    g = _six_limit_position(Rules())
    assert len(g.att) == 6 and c("9D") in g.hands[0]
    assert "Throw" not in kinds(g.legal_actions(0))
    refused(g, Throw(0, c("9D")), "limit_reached")


def test_s3_4_limit_lifts_when_the_stock_is_empty_if_the_option_is_on() -> None:
    off = _six_limit_position(Rules(), stock="", trump="D")
    refused(off, Throw(0, c("9D")), "limit_reached")
    on = _six_limit_position(Rules(limit_lifts_when_stock_empty=True), stock="", trump="D")
    on.apply(Throw(0, c("9D")))
    assert len(on.att) == 7
    kept = _six_limit_position(Rules(limit_lifts_when_stock_empty=True))
    refused(kept, Throw(0, c("9D")), "limit_reached")


def _first_bout() -> Game:
    # Every card is in a hand or the stock: the discard is empty, this is the first bout.
    g = fresh_position(Rules(), ["7C 7H 7D 7S 9H 9D", "9C 8C 8H 8D QC QH"], turnup="AC")
    assert g.discard == []
    g.apply(Lead(0, (c("7C"), c("7H"), c("7D"), c("7S"))))
    g.apply(Cover(1, c("7C"), c("9C")))
    g.apply(Throw(0, c("9H")))
    return g


def test_s3_4_first_bout_is_capped_at_five_while_defending() -> None:
    g = _first_bout()
    assert len(g.att) == 5
    refused(g, Throw(0, c("9D")), "limit_reached")
    assert g.to_act() == (1,)


def test_s3_4_a_sixth_card_may_come_once_he_takes() -> None:
    g = _first_bout()
    g.apply(Take(1))
    assert Throw(0, c("9D")) in g.legal_actions(0)
    events = g.apply(Throw(0, c("9D")))
    picked = [e for e in events if isinstance(e, PickedUp)]
    assert picked and len(picked[0].cards) == 7, "six attack cards and one cover"


def test_s3_4_first_bout_limit_applies_until_the_first_discard_only() -> None:
    g = position(Rules(), ["7C 7H 7D 7S 9H 9D", "9C 8C 8H 8D QC QH"], stock="KS AC")
    assert g.discard, "ungiven cards lie in the discard: not the first bout"
    g.apply(Lead(0, (c("7C"), c("7H"), c("7D"), c("7S"))))
    g.apply(Cover(1, c("7C"), c("9C")))
    g.apply(Throw(0, c("9H")))
    g.apply(Throw(0, c("9D")))
    assert len(g.att) == 6


# ---------------------------------------------------------------- 3.5 throwing after a take


def test_s3_5_throw_ins_after_a_take_within_the_cap_then_he_picks_up_everything() -> None:
    g = position(Rules(), ["7S 8C 7D 9H", "8S 9D", "7C"], stock="KD AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Cover(1, c("7S"), c("8S")))
    g.apply(Throw(2, c("7C")))
    # The cap is 2, his hand at the start: nothing more may come, so he picks up at once.
    events = g.apply(Take(1))
    assert PickedUp(1, tuple(cards("7S 7C 8S"))) in events
    # Seat 0 drew the last two cards; seat 2, empty-handed with the stock gone, is out,
    # so seat 0 attacks seat 1 again.
    assert g.stock == [] and g.out == [False, False, True]
    assert (g.attacker, g.defender) == (0, 1)


def test_s3_5_vdogonku_cards_join_the_pickup() -> None:
    g = position(Rules(), ["7S 8C 7D 9H", "8S 9D QS", "7C JC"], stock="KD AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Cover(1, c("7S"), c("8S")))
    g.apply(Throw(2, c("7C")))
    events = g.apply(Take(1))
    assert g.taking and g.waiting_on() == () and g.to_act() == (0, 2)
    assert set(g.legal_actions(0)) == {Throw(0, c("8C")), Throw(0, c("7D")), Pass(0)}
    refused(g, Cover(1, c("7C"), c("9D")), "not_your_turn")
    events = g.apply(Throw(0, c("8C")))  # вдогонку: the third card, his hand at the start
    picked = [e for e in events if isinstance(e, PickedUp)]
    assert picked and sorted(picked[0].cards) == sorted(cards("7S 8S 7C 8C"))
    assert sorted(g.hands[1]) == sorted(cards("9D QS 7S 8S 7C 8C"))


# ---------------------------------------------------------------- 3.6 end of the bout


def test_s3_6_bout_is_beaten_when_all_covered_and_every_thrower_passed() -> None:
    g = position(Rules(), ["7S 8C KD", "8S 9C QD", "8D JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Cover(1, c("7S"), c("8S")))
    assert g.to_act() == (0, 2) and g.waiting_on() == ()
    g.apply(Pass(0))
    assert g.att, "seat 2 may still throw 8♦"
    events = g.apply(Pass(2))
    assert Beaten(tuple(cards("7S 8S"))) in events
    assert cards("7S 8S") == g.discard[-2:]


def test_s3_6_a_player_with_no_legal_throw_counts_as_passed() -> None:
    g = position(Rules(), ["7S KC", "8S 9C QD", "AD JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    events = g.apply(Cover(1, c("7S"), c("8S")))
    assert not any(isinstance(e, Beaten) for e in events), "nobody tells he has nothing"
    assert g.to_act() == (0, 2) and g.throwers() == (0, 2)
    assert g.legal_actions(0) == [Pass(0)] and g.legal_actions(2) == [Pass(2)]
    g.apply(Pass(2))
    events = g.apply(Timeout(0))
    assert any(isinstance(e, Beaten) for e in events), "a pass and a silence end the bout"
    assert g.phase == 0 and g.attacker == 1


def test_s3_6_fast_throw_ins_pass_a_player_with_no_legal_throw_at_once() -> None:
    g = position(Rules(fast_throw_ins=True), ["7S KC", "8S 9C QD", "AD JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    assert g.to_act() == (1,), "everyone sees that nobody holds a 7"
    events = g.apply(Cover(1, c("7S"), c("8S")))
    assert any(isinstance(e, Beaten) for e in events), "nobody can throw: the bout ends"
    assert g.phase == 0 and g.attacker == 1


def test_s3_6_a_thrower_with_no_card_at_all_is_not_waited_for() -> None:
    # The stock is not empty, so seat 2 is not out; an empty hand is public.
    g = position(Rules(), ["7S KC", "8S 9C QD", ""], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    assert g.to_act() == (0, 1)
    g.apply(Cover(1, c("7S"), c("8S")))
    events = g.apply(Pass(0))
    assert any(isinstance(e, Beaten) for e in events)


def test_s3_6_a_pass_counts_only_until_the_next_card() -> None:
    g = position(Rules(), ["7S 7C 8C KD", "8S 9C QD AD", "7D 8D JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Pass(0))
    g.apply(Pass(2))
    g.apply(Cover(1, c("7S"), c("8S")))
    assert set(g.to_act()) == {0, 2}, "a cover is a new card: everyone may throw again"


# ---------------------------------------------------------------- 3.7 drawing


def _drawing(order: str) -> list[Drew]:
    rules = Rules(draw_order=order)  # type: ignore[arg-type]
    g = position(
        rules,
        ["7S 8C 9C TC JC QC", "8S 9D TD JD QD KS", "7D 6C 6D AC AD QS"],
        stock="KD AH",
    )
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Throw(2, c("7D")))
    g.apply(Cover(1, c("7S"), c("8S")))
    g.apply(Cover(1, c("7D"), c("9D")))
    events = g.apply(Pass(0)) + g.apply(Pass(2))
    assert g.stock == []
    return [e for e in events if isinstance(e, Drew)]


def test_s3_7_attacker_draws_first_then_clockwise_and_the_defender_last() -> None:
    assert _drawing("attacker_first") == [Drew(0, 1), Drew(2, 1)]


def test_s3_7_defender_first_option() -> None:
    assert _drawing("defender_first") == [Drew(1, 2)]


def test_s3_7_everyone_draws_up_to_the_hand_size_in_order() -> None:
    g = position(
        Rules(),
        ["7S 8C 9C TC JC QC", "8S 9D TD JD QD KS", "7D 6C 6D AC AD QS"],
        stock="KD 6S 6H KH AH",
    )
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Throw(2, c("7D")))
    g.apply(Cover(1, c("7S"), c("8S")))
    g.apply(Cover(1, c("7D"), c("9D")))
    g.apply(Pass(0))
    g.apply(Pass(2))
    assert c("KD") in g.hands[0] and c("6S") in g.hands[2]
    assert {c("6H"), c("KH")} <= set(g.hands[1]) and g.stock == cards("AH")
    assert [len(h) for h in g.hands] == [6, 6, 6]


# ---------------------------------------------------------------- 3.8 next attacker


def test_s3_8_after_a_successful_defence_the_defender_attacks() -> None:
    g = position(Rules(), ["7S KC", "8S 9C QD", "AD JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Cover(1, c("7S"), c("8S")))
    pass_round(g)
    assert (g.attacker, g.defender) == (1, 2)


def test_s3_8_after_a_take_the_next_player_left_of_the_defender_attacks() -> None:
    g = position(Rules(), ["7S KC", "8S 9C QD", "AD JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Take(1))
    pass_round(g)
    assert (g.attacker, g.defender) == (2, 0)


def test_s3_8_finished_players_are_skipped() -> None:
    # Stock empty; seat 3 is out. Seat 2 takes: seat 3 would attack, so seat 0 does.
    g = position(Rules(), ["7S KC", "9C QD", "8S AD", ""], trump="H", first=1)
    assert g.out == [False, False, False, True]
    g.apply(Lead(1, (c("9C"),)))
    g.apply(Take(2))
    pass_round(g)
    assert (g.attacker, g.defender) == (0, 1)
    # and the defender of seat 2 skips seat 3 too
    h = position(Rules(), ["7S KC", "9C QD", "8S AD", ""], trump="H", first=2)
    assert h.defender == 0


def test_s3_3_clockwise_the_turn_to_throw_stays_until_its_holder_passes() -> None:
    """RULES.md §3.3, seeds 000 and 003: one player at a time holds the turn to throw in
    and keeps it until he passes; a card laid or covered never gives it back to the
    attacker."""
    rules = Rules(throw_in_order="clockwise")
    g = position(
        rules,
        ["7C 9S QD KD AD 8H", "9C TD JD QS KS AS", "7D 9D TS JS 6C 8C"],
        trump="H",
    )
    g.apply(Lead(0, (c("7C"),)))
    assert g.throwers() == (0,), "the attacker holds the turn first, whatever he holds"
    assert g.legal_actions(0) == [Pass(0)]
    g.apply(Pass(0))
    assert g.throwers() == (2,)
    g.apply(Throw(2, c("7D")))
    g.apply(Cover(1, c("7C"), c("9C")))
    # seat 2 still holds the turn and may throw 9♦; seat 0 (9♠) waits
    assert g.throwers() == (2,)
    assert Throw(2, c("9D")) in g.legal_actions(2)
    assert not any(isinstance(a, Throw) for a in g.legal_actions(0))
    with pytest.raises(IllegalAction):
        g.apply(Throw(0, c("9S")))
    # the turn survives a save and a load
    g = Game.from_json(g.to_json())
    assert g.throwers() == (2,)
    g.apply(Throw(2, c("9D")))
    assert g.throwers() == (2,), "he keeps the turn until he says pass, fitting card or not"
    g.apply(Pass(2))
    assert g.throwers() == (0,)
    g.apply(Pass(0))
    assert g.throwers() == ()
    g.apply(Cover(1, c("7D"), c("TD")))
    # a 10 on the table: seat 0's pass moved the turn on to seat 2
    assert g.throwers() == (2,)
    g.apply(Throw(2, c("TS")))
    g.apply(Cover(1, c("TS"), c("QS")))
    assert g.throwers() == (2,), "a cover does not move the turn on"
    g.apply(Pass(2))
    assert g.throwers() == (0,), "seat 0's queen is on the table now"
    assert Throw(0, c("QD")) in g.legal_actions(0)


def test_s3_3_clockwise_with_fast_throw_ins_skips_a_turn_holder_with_nothing() -> None:
    rules = Rules(throw_in_order="clockwise", fast_throw_ins=True)
    g = position(
        rules,
        ["7C 9S QD KD AD 8H", "9C TD JD QS KS AS", "7D 9D TS JS 6C 8C"],
        trump="H",
    )
    g.apply(Lead(0, (c("7C"),)))  # seat 0 has no other 7: his turn passes to seat 2
    assert g.throwers() == (2,)
    g.apply(Throw(2, c("7D")))
    g.apply(Cover(1, c("7C"), c("9C")))
    g.apply(Throw(2, c("9D")))
    assert g.throwers() == (0,), "nothing more to throw: his turn passes at once"
    g.apply(Pass(0))
    assert g.throwers() == ()
    g.apply(Cover(1, c("7D"), c("TD")))
    # a 10 on the table: seat 0 has none, so the turn comes round to seat 2 again
    assert g.throwers() == (2,)


def test_s3_4_a_pinned_first_bout_with_cards_set_aside_keeps_the_first_bout_limit() -> None:
    """Cards given to nobody, set aside rather than discarded: the game is before its first
    discard, so the first bout holds five attack cards at most while he defends."""
    hands = ["7C 7H 7D 7S 9H 9D", "9C 8C 8H 8D QC QH"]
    g = position(Rules(), hands, stock="KS AC", set_aside=True)
    assert not g.discard and len(g.aside) == 36 - 14
    g.apply(Lead(0, (c("7C"), c("7H"), c("7D"), c("7S"))))
    g.apply(Cover(1, c("7C"), c("9C")))
    g.apply(Throw(0, c("9H")))
    assert len(g.att) == 5
    refused(g, Throw(0, c("9D")), "limit_reached")
    # the set-aside cards survive a save and a load, and stay out of play
    again = Game.from_json(g.to_json())
    assert again.aside == g.aside and not again.discard
    assert again.public_view().discard_size == 0
