"""RULES.md §4: the end of the game, draws, pogony, points and the clock."""

from __future__ import annotations

import pytest

from engine import IllegalAction, Rules
from engine.actions import (
    Cover,
    GameOver,
    Lead,
    Pass,
    PickedUp,
    PlayerOut,
    Resign,
    Resigned,
    Take,
    Throw,
    TimedOut,
    Timeout,
)

from .helpers import c, cards, pass_round, position


def test_s4_players_go_out_in_order_and_the_last_holder_is_durak() -> None:
    g = position(Rules(), ["6S", "7S 8D", "9C"], trump="H")
    events = g.apply(Lead(0, (c("6S"),)))
    assert g.result is None
    events = g.apply(Cover(1, c("6S"), c("7S")))
    assert g.to_act() == (2,), "seat 2 may still throw in, for all anyone knows"
    events = g.apply(Pass(2))
    assert PlayerOut(0, 1) in events and g.out == [True, False, False]
    assert (g.attacker, g.defender) == (1, 2)
    g.apply(Lead(1, (c("8D"),)))
    events = g.apply(Take(2))
    assert PlayerOut(1, 2) in events, "the attacker has no card: nobody to wait for"
    assert g.result is not None
    assert g.result.durak == 2 and not g.result.draw
    assert g.result.finish_order == (0, 1) and g.result.losers == (2,)
    assert g.result.points == (2, 2, 0)
    assert GameOver(2, False, False) in events
    with pytest.raises(IllegalAction) as info:
        g.apply(Take(2))
    assert info.value.reason == "game_over"
    assert g.to_act() == () and g.legal_actions(2) == []


def test_s4_nobody_is_out_while_the_stock_lasts() -> None:
    g = position(Rules(), ["6S", "7S 8D", "9C"], stock="AH")
    g.apply(Lead(0, (c("6S"),)))
    g.apply(Cover(1, c("6S"), c("7S")))
    pass_round(g)
    assert g.out == [False, False, False] and g.hands[0] == cards("AH")


def test_s4_draw_when_the_last_two_run_out_in_the_same_bout() -> None:
    g = position(Rules(), ["6S", "7S"], trump="H")
    g.apply(Lead(0, (c("6S"),)))
    events = g.apply(Cover(1, c("6S"), c("7S")))
    assert g.result is not None and g.result.draw and g.result.durak is None
    assert g.result.points == (1, 1)
    assert GameOver(None, True, False) in events


def test_s4_draw_not_allowed_ends_the_game_the_instant_one_player_holds_cards() -> None:
    g = position(Rules(draw="not_allowed"), ["6S", "7S"], trump="H")
    events = g.apply(Lead(0, (c("6S"),)))
    assert g.result is not None and g.result.durak == 1 and not g.result.draw
    assert PlayerOut(0, 1) in events
    assert g.result.points == (2, 0)
    assert g.legal_actions(1) == [], "in the middle of the bout, nothing more happens"


def test_s4_draw_not_allowed_three_players_mid_bout() -> None:
    g = position(Rules(draw="not_allowed"), ["6S", "7S 9S", "8C"], trump="H", first=2)
    g.apply(Lead(2, (c("8C"),)))
    assert g.result is None, "seats 0 and 1 still hold cards"
    g.apply(Take(0))
    assert g.result is None


def test_s4_pogony_two_sixes_in_the_final_bout_against_the_durak() -> None:
    g = position(Rules(), ["6S 6C", "7D 8D"], trump="H")
    g.apply(Lead(0, (c("6S"), c("6C"))))
    events = g.apply(Take(1))
    assert g.result is not None and g.result.durak == 1 and g.result.pogony
    assert GameOver(1, False, True) in events


def test_s4_no_pogony_with_one_six() -> None:
    g = position(Rules(), ["6S", "7D 8D"], trump="H")
    g.apply(Lead(0, (c("6S"),)))
    g.apply(Take(1))
    assert g.result is not None and g.result.durak == 1 and not g.result.pogony


def test_s4_pogony_counts_sixes_thrown_in_too() -> None:
    g = position(Rules(), ["6S", "7S 8D 9D", "6C"], trump="H")
    g.apply(Lead(0, (c("6S"),)))
    g.apply(Cover(1, c("6S"), c("7S")))
    g.apply(Throw(2, c("6C")))
    events = g.apply(Take(1))
    assert g.result is not None and g.result.pogony and g.result.durak == 1
    assert PickedUp(1, tuple(cards("6S 6C 7S"))) in events


def test_s4_no_pogony_when_the_durak_was_attacking_in_the_final_bout() -> None:
    g = position(Rules(), ["6S 6C 9C", "7S 7C"], trump="H")
    g.apply(Lead(0, (c("6S"), c("6C"))))
    g.apply(Cover(1, c("6S"), c("7S")))
    g.apply(Cover(1, c("6C"), c("7C")))
    assert g.result is not None and g.result.durak == 0 and not g.result.pogony


# ---------------------------------------------------------------- the clock


def test_s4_waiting_on_versus_may_act() -> None:
    g = position(Rules(), ["7S 8C", "8S 9C QD", "8D JC"], stock="6C AH")
    assert g.waiting_on() == (0,) and g.to_act() == (0,)
    g.apply(Lead(0, (c("7S"),)))
    assert g.waiting_on() == (1,) and g.to_act() == (0, 1, 2), "nobody tells he has no 7"
    g.apply(Cover(1, c("7S"), c("8S")))
    assert g.waiting_on() == () and g.to_act() == (0, 2)
    assert g.throwers() == (0, 2)


def test_s4_timeout_of_the_defender_makes_him_durak() -> None:
    g = position(Rules(), ["7S 8C", "8S 9C QD", "8D JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    events = g.apply(Timeout(1))
    assert TimedOut(1, "durak") in events
    assert g.result is not None and g.result.durak == 1 and g.result.timed_out == 1
    assert g.result.points == (2, 0, 2)


def test_s4_timeout_of_the_attacker_before_his_lead_makes_him_durak() -> None:
    g = position(Rules(), ["7S 8C", "8S 9C QD", "8D JC"], stock="6C AH")
    g.apply(Timeout(0))
    assert g.result is not None and g.result.durak == 0


def test_s4_timeout_auto_takes_for_the_defender() -> None:
    g = position(Rules(on_timeout="auto"), ["7S 8C", "8S 9C QD", "KD JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    events = g.apply(Timeout(1))
    assert TimedOut(1, "auto") in events
    events += pass_round(g)
    assert PickedUp(1, (c("7S"),)) in events and g.result is None


def test_s4_timeout_auto_leads_the_lowest_card_keeping_trumps() -> None:
    g = position(Rules(on_timeout="auto"), ["6H 9C 8S", "8D 9D"], stock="6C AH")
    g.apply(Timeout(0))
    assert g.att == cards("8S"), "the lowest non-trump, not the trump six"


def test_s4_a_silent_thrower_counts_as_passed() -> None:
    g = position(Rules(), ["7S 8C", "8S 9C QD", "8D JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Cover(1, c("7S"), c("8S")))
    events = g.apply(Timeout(2))
    assert TimedOut(2, "pass") in events and g.passed == {2}
    g.apply(Pass(0))
    assert g.att == [] and g.attacker == 1


def test_s4_timeout_for_a_seat_with_no_clock_is_refused() -> None:
    g = position(Rules(), ["7S 8C", "8S 9C QD", "8D JC"], stock="6C AH")
    before = g.to_json()
    for seat in (1, 2):
        with pytest.raises(IllegalAction) as info:
            g.apply(Timeout(seat))
        assert info.value.reason == "not_your_turn"
    assert g.to_json() == before


def test_s4_team_timeout_loses_for_the_team() -> None:
    g = position(Rules(teams="pairs"), ["7S", "8S", "9S", "TS"], stock="6C AH")
    g.apply(Timeout(0))
    assert g.result is not None and g.result.losers == (0, 2)
    assert g.result.points == (0, 2, 0, 2)


def test_s4_a_player_who_leaves_mid_game_is_durak() -> None:
    g = position(Rules(), ["7S 8C", "8S 9C QD", "8D JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    events = g.apply(Resign(2))
    assert Resigned(2) in events
    assert g.result is not None and g.result.durak == 2 and g.result.points == (2, 2, 0)
    assert not g.result.pogony and g.to_act() == ()


def test_s4_a_team_player_who_leaves_loses_for_his_team() -> None:
    g = position(Rules(teams="pairs"), ["7S", "8S", "9S", "TS"], stock="6C AH")
    g.apply(Resign(3))
    assert g.result is not None and g.result.losers == (1, 3)


@pytest.mark.parametrize("on_timeout", ["durak", "auto"])
def test_s4_no_time_limit_refuses_a_timeout_and_changes_nothing(on_timeout: str) -> None:
    rules = Rules(turn_timeout=0, on_timeout=on_timeout)  # type: ignore[arg-type]
    g = position(rules, ["7S 8C", "8S 9C QD", "8D JC"], stock="6C AH")
    before = g.to_json()
    with pytest.raises(IllegalAction) as info:
        g.apply(Timeout(0))  # the attacker to lead: no clock runs for him
    assert info.value.reason == "not_your_turn"
    assert g.to_json() == before and g.result is None
    g.apply(Lead(0, (c("7S"),)))
    before = g.to_json()
    with pytest.raises(IllegalAction):
        g.apply(Timeout(1))  # nor for the defender
    assert g.to_json() == before


def test_s4_no_time_limit_a_silent_thrower_still_passes() -> None:
    g = position(Rules(turn_timeout=0), ["7S 8C", "8S 9C QD", "8D JC"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Cover(1, c("7S"), c("8S")))
    events = g.apply(Timeout(2))
    assert TimedOut(2, "pass") in events and g.passed == {2}


def test_s4_pogony_in_team_play_not_against_a_partner_who_ran_out() -> None:
    """Pairs, stock empty, trump ♥: seat 0 leads 6♠ 6♣ against seat 1, seat 2 throws
    6♦, seat 1 covers all three and goes out. Seat 3 is left holding cards: durak, his
    team (1, 3) loses; but that bout was made against seat 1, who ran out in it, not
    against a player still holding cards: no pogony."""
    g = position(Rules(teams="pairs"), ["6S 6C", "7S 7C 7D", "6D", "9D 9C"], trump="H")
    g.apply(Lead(0, (c("6S"), c("6C"))))
    g.apply(Throw(2, c("6D")))
    g.apply(Cover(1, c("6S"), c("7S")))
    g.apply(Cover(1, c("6C"), c("7C")))
    g.apply(Cover(1, c("6D"), c("7D")))
    assert g.result is not None
    assert g.result.durak == 3 and g.result.losers == (1, 3)
    assert not g.result.pogony


@pytest.mark.parametrize("teams", ["triples", "pairs"])
def test_s4_pogony_in_team_play_against_any_player_of_the_team_left_holding_cards(
    teams: str,
) -> None:
    """Six players, stock empty, trump ♥. Seat 0 leads 6♠ 6♣ against seat 1, two of
    seat 1's opponents throw in the other sixes, and seat 1 takes: every attacker has
    run out. The losing team still holds cards in more than one hand, and a partner of
    seat 1 holds the most. The final bout was made against seat 1, who holds cards at
    the end: pogony for the team, and seat 1 is the durak named."""
    rules = Rules(teams=teams)  # type: ignore[arg-type]
    if teams == "triples":  # teams: 0 2 4 against 1 3 5
        hands = ["6S 6C", "7D 8D 9S TS", "6D", "JS QS KS AS 7C 8C 9C TC JC", "6H", "QC"]
        throws = [Throw(2, c("6D")), Throw(4, c("6H"))]
    else:  # pairs: 0 3, 1 4, 2 5; teams 0 3 and 2 5 run out, 1 4 is left holding cards
        hands = ["6S 6C", "7D 8D 9S TS", "6D", "6H", "JS QS KS AS 7C 8C 9C TC JC", ""]
        throws = [Throw(2, c("6D")), Throw(3, c("6H"))]
    g = position(rules, hands, trump="H")
    g.apply(Lead(0, (c("6S"), c("6C"))))
    for throw in throws:
        g.apply(throw)
    events = g.apply(Take(1))
    assert g.result is not None
    losers = (1, 3, 5) if teams == "triples" else (1, 4)
    assert g.result.losers == losers and g.result.durak_team == losers
    holders = [s for s in losers if g.hands[s]]
    assert len(holders) >= 2 and max(holders, key=lambda s: len(g.hands[s])) != 1
    assert g.result.pogony, "the final bout was made against seat 1, who holds cards"
    assert g.result.durak == 1, "the durak named is the one the pogony bout was made against"
    assert GameOver(1, False, True) in events
    assert g.result.points == tuple(0 if s in losers else 2 for s in range(6))
