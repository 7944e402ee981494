"""RULES.md §6: every modifier, rule sentence by rule sentence, on pinned positions."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from engine import Card, Game, IllegalAction, Rules, Suit
from engine.actions import (
    Action,
    Cover,
    Covered,
    Drew,
    Lead,
    Led,
    Pass,
    PokerSwap,
    PokerSwapped,
    Take,
    Throw,
    Thrown,
    Transfer,
    Transferred,
    TrumpChanged,
    action_from_dict,
)
from engine.cards import BLACK_JOKER, RED_JOKER
from engine.describe import GAMES, MODIFIER_INFO, OPTION_NAMES, describe
from engine.rules import MODIFIERS, PRESETS

from .helpers import assert_conserved, c, cards, kinds, playout, position


def refused(game: Game, action: Action, reason: str) -> None:
    before = game.to_json()
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    assert info.value.reason == reason
    assert game.to_json() == before
    assert action not in game.legal_actions(action.seat)


def covers(game: Game, seat: int) -> set[tuple[Card, Card]]:
    return {(a.attack, a.card) for a in game.legal_actions(seat) if isinstance(a, Cover)}


# ---------------------------------------------------------------- japanese


JAPANESE = Rules(modifiers=("japanese",))


def test_japanese_trump_is_always_diamonds_and_the_turn_up_is_still_drawn_last() -> None:
    g = position(JAPANESE, ["7S KC", "AD 8S 9C"], stock="6C AH")
    assert g.trump == Suit.DIAMONDS and g.turnup == c("AH") and g.stock[-1] == c("AH")
    for seed in range(10):
        assert Game.new(JAPANESE, players=3, seed=seed).trump == Suit.DIAMONDS


def test_japanese_seven_of_spades_is_not_beaten_by_the_trump_ace_but_by_the_eight() -> None:
    g = position(JAPANESE, ["7S KC", "AD 8S 9C"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    refused(g, Cover(1, c("7S"), c("AD")), "does_not_beat")
    assert covers(g, 1) == {(c("7S"), c("8S"))}
    g.apply(Cover(1, c("7S"), c("8S")))


def test_japanese_trumps_still_beat_other_suits() -> None:
    g = position(JAPANESE, ["KC 7S", "6D 8S 9C"], stock="6C AH")
    g.apply(Lead(0, (c("KC"),)))
    assert covers(g, 1) == {(c("KC"), c("6D"))}


# ---------------------------------------------------------------- spades by spades


SPADES = Rules(modifiers=("spades_by_spades",))


def test_spades_by_spades_only_a_higher_spade_beats_a_spade() -> None:
    g = position(SPADES, ["7S KC", "6H 8S 6S"], stock="6C AH")
    g.apply(Lead(0, (c("7S"),)))
    assert covers(g, 1) == {(c("7S"), c("8S"))}
    refused(g, Cover(1, c("7S"), c("6H")), "does_not_beat")


def test_spades_by_spades_trump_is_never_spades() -> None:
    for seed in range(60):
        for players in (2, 6):
            assert Game.new(SPADES, players=players, seed=seed).trump != Suit.SPADES
    with pytest.raises(ValueError, match="never spades"):
        position(SPADES, ["7S", "8S"], stock="6C AS")


# ---------------------------------------------------------------- no trump


NO_TRUMP = Rules(modifiers=("no_trump",))


def test_no_trump_nothing_but_a_higher_card_of_the_suit_beats() -> None:
    g = position(NO_TRUMP, ["7S KC", "6H 8S AD 6S"], stock="6C AH", first=0)
    assert g.trump is None and g.turnup is None
    g.apply(Lead(0, (c("7S"),)))
    assert covers(g, 1) == {(c("7S"), c("8S"))}


def test_no_trump_the_holder_of_the_lowest_card_attacks_first() -> None:
    g = position(NO_TRUMP, ["7S KC", "6H 8S", "6C AD"], stock="9C AH", first=None)
    assert g.attacker == 2, "6♣ is the lowest card (♠ ♣ ♦ ♥)"
    for seed in range(10):
        game = Game.new(NO_TRUMP, players=2, seed=seed)
        assert game.trump is None and game.turnup is None and len(game.stock) == 24


# ---------------------------------------------------------------- fallen ace


FALLEN = Rules(modifiers=("fallen_ace",))


def test_fallen_ace_the_six_of_trumps_beats_the_trump_ace() -> None:
    g = position(FALLEN, ["AH KC", "6H 8S"], stock="6C QH")
    g.apply(Lead(0, (c("AH"),)))
    assert covers(g, 1) == {(c("AH"), c("6H"))}


def test_fallen_ace_the_trump_ace_still_beats_the_six_and_everything_else() -> None:
    g = position(FALLEN, ["6H 7S", "AH 8S"], stock="6C QH")
    g.apply(Lead(0, (c("6H"),)))
    assert covers(g, 1) == {(c("6H"), c("AH"))}
    h = position(FALLEN, ["KH 7S", "6H 8S"], stock="6C QH")
    h.apply(Lead(0, (c("KH"),)))
    assert covers(h, 1) == set(), "the six beats only the ace"


# ---------------------------------------------------------------- albanian


def test_albanian_the_turn_up_lies_on_top_and_is_drawn_first() -> None:
    rules = Rules(modifiers=("albanian",))
    g = position(rules, ["7S KC", "8S 9C"], stock="AH 6C 7C")
    assert g.turnup == c("AH") and g.trump == Suit.HEARTS
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Cover(1, c("7S"), c("8S")))
    g.apply(Pass(0))
    assert c("AH") in g.hands[0], "the attacker draws first and gets the turn-up"
    assert c("AH") in g.public_view().known[0]
    fresh = Game.new(rules, players=2, seed=4)
    assert fresh.stock[0] == fresh.turnup


# ---------------------------------------------------------------- changing trump


CHANGING = Rules(modifiers=("changing_trump",))


def test_changing_trump_changes_exactly_when_the_turn_up_is_drawn() -> None:
    # stock: 6♣, then the face-up 9♥, then 7♣ face down under it.
    g = position(CHANGING, ["7S KC TD QC AD 9D", "8S 9C JD QD KD AC"], stock="6C 9H 7C")
    assert g.turnup == c("9H") and g.hidden and g.trump == Suit.HEARTS
    g.apply(Lead(0, (c("7S"),)))
    g.apply(Take(1))
    events = g.apply(Pass(0))  # only the attacker draws: 6♣
    assert not any(isinstance(e, TrumpChanged) for e in events)
    assert g.trump == Suit.HEARTS and g.stock == cards("9H 7C") and g.hidden
    g.apply(Lead(0, (c("9D"),)))
    events = g.apply(Cover(1, c("9D"), c("JD"))) + g.apply(Pass(0))
    drew = events.index(Drew(0, 1))
    assert events[drew + 1] == TrumpChanged(c("7C")), "right as 9♥ is drawn"
    assert c("9H") in g.hands[0] and g.stock == cards("7C"), "7♣ is drawn last"
    assert g.trump == Suit.CLUBS and not g.hidden and g.turnup == c("7C")
    assert c("9H") in g.public_view().known[0]


def test_changing_trump_the_new_trump_beats_the_old_one() -> None:
    g = position(CHANGING, ["7S KC TD QC AD", "8S 9C JD QD KD"], stock="9H 7C")
    g.apply(Lead(0, (c("7S"),)))
    events = g.apply(Cover(1, c("7S"), c("8S"))) + g.apply(Pass(0))
    assert TrumpChanged(c("7C")) in events and g.trump == Suit.CLUBS
    g.apply(Lead(1, (c("JD"),)))
    assert (c("JD"), c("KC")) in covers(g, 0), "clubs are trumps now"


def test_changing_trump_deals_two_cards_under_the_stock() -> None:
    g = Game.new(CHANGING, players=4, seed=2)
    assert g.hidden and g.stock[-2] == g.turnup and g.trump == g.turnup.suit
    with pytest.raises(ValueError, match="two trump cards"):
        Game.new(CHANGING, players=6, seed=1)


# ---------------------------------------------------------------- railway


RAILWAY = Rules(modifiers=("railway",))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_railway_deals_all_but_one_card_that_sets_trump_and_is_never_drawn(players: int) -> None:
    g = Game.new(RAILWAY, players=players, seed=players)
    assert g.stock == [] and len(g.aside) == 1 and g.aside[0] == g.turnup
    assert g.trump == g.turnup.suit
    assert sum(len(h) for h in g.hands) == 35
    assert max(len(h) for h in g.hands) - min(len(h) for h in g.hands) <= 1
    assert_conserved(g)
    playout(g, random.Random(players))
    assert g.aside == [g.turnup] and g.stock == []
    assert_conserved(g)


# ---------------------------------------------------------------- poker


POKER = Rules(modifiers=("poker",))


def test_poker_swap_two_cards_for_the_top_two_before_the_lead() -> None:
    g = position(POKER, ["7S KC 9D", "8S 9C"], stock="6C 6D JS QS AH")
    swap = PokerSwap(0, (c("7S"), c("KC")))
    assert swap in g.legal_actions(0)
    assert not any(isinstance(a, PokerSwap) for a in g.legal_actions(1))
    events = g.apply(swap)
    assert PokerSwapped(0, 2) in events
    assert sorted(g.hands[0]) == sorted(cards("9D 6C 6D"))
    assert g.stock[-1] == c("AH"), "the turn-up stays under the stock"
    assert sorted(g.stock[:-1]) == sorted(cards("7S KC JS QS"))
    assert_conserved(g)
    g.apply(Lead(0, (c("9D"),)))
    refused(g, PokerSwap(0, (c("6C"), c("6D"))), "no_swap")


def test_poker_at_most_three_swaps_a_game() -> None:
    g = position(POKER, ["7S KC 9D", "8S 9C"], stock="6C 6D JS QS TS JH AH")
    for _ in range(3):
        pair = next(a for a in g.legal_actions(0) if isinstance(a, PokerSwap))
        g.apply(pair)
    refused(g, PokerSwap(0, (g.hands[0][0], g.hands[0][1])), "no_swaps_left")


def test_poker_only_while_the_stock_holds_three_cards() -> None:
    g = position(POKER, ["7S KC 9D", "8S 9C"], stock="6C AH")
    assert "PokerSwap" not in kinds(g.legal_actions(0))
    refused(g, PokerSwap(0, (c("7S"), c("KC"))), "no_swap")


# ---------------------------------------------------------------- full


def test_full_52_cards_from_the_twos() -> None:
    rules = Rules(modifiers=("full",))
    assert rules.deck_size == 52
    g = Game.new(rules, players=6, seed=1)
    assert len(g.stock) == 52 - 36
    playout(g, random.Random(1))
    assert_conserved(g)


def test_full_54_keeps_all_54_cards_accounted_for() -> None:
    rules = Rules(modifiers=("full",), deck_size=54)
    for seed in range(30):
        g = Game.new(rules, players=4, seed=seed)
        playout(g, random.Random(seed))
        assert_conserved(g)
        assert sum(1 for _ in (*g.discard, *g.stock, *(x for h in g.hands for x in h))) == 54


FULL54 = Rules(modifiers=("full",), deck_size=54)


def test_full_a_joker_beats_any_card_of_its_colour_trumps_included() -> None:
    g = position(FULL54, ["AH KC", "XR XB 8S"], stock="6C QH")
    g.apply(Lead(0, (c("AH"),)))  # the trump ace
    assert covers(g, 1) == {(c("AH"), RED_JOKER)}, "the red joker, not the black one"


def test_full_a_joker_led_is_beaten_only_by_the_other_joker() -> None:
    g = position(FULL54, ["XB KC", "XR AS 8S"], stock="6C QH")
    g.apply(Lead(0, (BLACK_JOKER,)))
    assert covers(g, 1) == {(BLACK_JOKER, RED_JOKER)}


def test_full_jokers_match_no_rank_but_each_other() -> None:
    g = position(FULL54, ["7S XB XR", "8S AS 9D QD"], stock="6C QH")
    g.apply(Lead(0, (c("7S"),)))
    assert "Throw" not in kinds(g.legal_actions(0))
    h = position(FULL54, ["XB XR 7S", "8S AS 9D QD"], stock="6C QH")
    h.apply(Lead(0, (BLACK_JOKER,)))
    assert Throw(0, RED_JOKER) in h.legal_actions(0)


# ---------------------------------------------------------------- wild sixes


WILD = Rules(modifiers=("wild_sixes",))


def test_wild_sixes_a_six_named_trump_beats_a_non_trump_ace() -> None:
    g = position(WILD, ["AS KC 6D", "6C 8D"], stock="7C QH")  # trump ♥
    g.apply(Lead(0, (c("AS"),)))
    assert Cover(1, c("AS"), c("6C"), int(Suit.HEARTS)) in g.legal_actions(1)
    assert Cover(1, c("AS"), c("6C"), int(Suit.CLUBS)) not in g.legal_actions(1)
    refused(g, Cover(1, c("AS"), c("6C"), int(Suit.SPADES)), "does_not_beat")
    refused(g, Cover(1, c("AS"), c("6C")), "suit_needed")
    g.apply(Cover(1, c("AS"), c("6C"), int(Suit.HEARTS)))
    assert g.eff == {c("6C"): c("6H")}
    assert Throw(0, c("6D"), 0) in g.legal_actions(0), "a six may be thrown in as any suit"


def test_wild_sixes_a_six_led_as_a_trump_is_beaten_only_by_a_higher_trump() -> None:
    g = position(WILD, ["6S KC", "AS 7H 8D"], stock="7C QH")
    assert {a.suits for a in g.legal_actions(0) if a.cards == (c("6S"),)} == {
        (0,),
        (1,),
        (2,),
        (3,),
    }
    g.apply(Lead(0, (c("6S"),), (int(Suit.HEARTS),)))
    assert covers(g, 1) == {(c("6S"), c("7H"))}


def test_wild_sixes_only_a_six_names_a_suit() -> None:
    g = position(WILD, ["7S KC", "AS 7H 8D"], stock="7C QH")
    refused(g, Lead(0, (c("7S"),), (1,)), "suit_needed")
    plain = position(Rules(), ["6S KC", "AS 7H 8D"], stock="7C QH")
    refused(plain, Lead(0, (c("6S"),), (1,)), "suit_needed")


def test_wild_sixes_every_move_with_a_six_says_the_suit_it_was_named_as() -> None:
    g = position(WILD, ["6S 6D KC", "6C 8D 6H", "9S 7C"], stock="7D QH")  # trump ♥
    led = g.apply(Lead(0, (c("6S"),), (int(Suit.CLUBS),)))
    assert led[0] == Led(0, (c("6S"),), 1, (Suit.CLUBS,))
    covered = g.apply(Cover(1, c("6S"), c("6C"), int(Suit.HEARTS)))
    assert covered[0] == Covered(1, c("6S"), c("6C"), Suit.HEARTS, Suit.CLUBS)
    thrown = g.apply(Throw(0, c("6D"), int(Suit.DIAMONDS)))
    assert thrown[0] == Thrown(0, c("6D"), None), "named as its own suit: nothing to tell"
    plain = position(WILD, ["KC 6S", "AC 8D"], stock="7D QH")
    assert plain.apply(Lead(0, (c("KC"),)))[0] == Led(0, (c("KC"),), 1, None)
    assert plain.apply(Cover(1, c("KC"), c("AC")))[0] == Covered(1, c("KC"), c("AC"))
    swap = position(
        Rules(game="perevodnoy", modifiers=("wild_sixes",)),
        ["6S KC", "6D 8D", "9S 7C"],
        "7D QH",
        first_game=False,
    )
    swap.apply(Lead(0, (c("6S"),), (int(Suit.SPADES),)))
    moved = swap.apply(Transfer(1, c("6D"), int(Suit.HEARTS)))
    assert moved[0] == Transferred(1, c("6D"), 2, Suit.HEARTS)


@pytest.mark.parametrize("seed", range(30))
def test_wild_sixes_events_carry_the_named_suits_and_a_replayed_log_tells_the_same(
    seed: int,
) -> None:
    """Seeded playouts: each laid six's event names the suit its action named (None where
    it stands for itself), and the game replayed from its saved actions gives the same
    events, so recent moves rebuilt from an old log read the same."""
    rules = Rules(game="perevodnoy" if seed % 2 else "podkidnoy", modifiers=("wild_sixes",))
    rng = random.Random(seed)
    game = Game.new(rules, players=2 + seed % 3, seed=seed)
    again = Game.new(rules, players=2 + seed % 3, seed=seed)
    named = 0
    while game.result is None and game.to_act():
        action = rng.choice(game.legal_actions(rng.choice(game.to_act())))
        on_table = dict(game.public_view().declared)  # the sixes named so far in the bout
        events = game.apply(action)
        assert again.apply(action_from_dict(action.to_dict())) == events
        laid = events[0]
        if isinstance(action, Lead) and isinstance(laid, Led):
            expected = tuple(
                None if s is None or s == k.suit else Suit(s)
                for k, s in zip(
                    action.cards, action.suits or (None,) * len(action.cards), strict=True
                )
            )
            assert laid.suits == (expected if any(s is not None for s in expected) else None)
            named += sum(s is not None for s in expected)
        elif isinstance(action, Throw | Cover | Transfer):
            suit = None if action.suit is None or action.suit == action.card.suit else action.suit
            assert isinstance(laid, Thrown | Covered | Transferred)
            assert laid.suit == suit
            named += suit is not None
            if isinstance(laid, Covered):
                assert laid.attack_suit == on_table.get(laid.attack)
    assert again.to_json() == game.to_json()
    assert named > 0, "the playout named a six as another suit"


# ---------------------------------------------------------------- lizard


LIZARD = Rules(modifiers=("lizard",))


def test_lizard_hand_of_five_and_the_jack_of_trumps_is_the_highest_trump() -> None:
    assert LIZARD.hand_size == 5
    g = position(LIZARD, ["AH KC", "JH 8S"], stock="6C QH")  # trump ♥
    g.apply(Lead(0, (c("AH"),)))
    assert covers(g, 1) == {(c("AH"), c("JH"))}


def test_lizard_the_other_red_jack_is_second_and_counts_as_a_trump() -> None:
    g = position(LIZARD, ["AS AH", "JD QD JH"], stock="6C QH")
    g.apply(Lead(0, (c("AS"),)))
    assert (c("AS"), c("JD")) in covers(g, 1), "J♦ is a trump: it beats a plain ace"
    h = position(LIZARD, ["JD 7S", "QD KD AH JH"], stock="6C QH")
    h.apply(Lead(0, (c("JD"),)))
    assert covers(h, 1) == {(c("JD"), c("JH"))}, "only the jack of trumps beats it"
    k = position(LIZARD, ["AH 7S", "JD 8S"], stock="6C QH")
    k.apply(Lead(0, (c("AH"),)))
    assert covers(k, 1) == {(c("AH"), c("JD"))}, "and it beats the trump ace"


def test_lizard_sorts_the_jacks_as_the_highest_trumps() -> None:
    g = position(LIZARD, ["JD AH 6H JH 9S", "8S"], stock="6C QH")
    assert g.view(0).hand == tuple(cards("9S 6H AH JD JH"))


# ---------------------------------------------------------------- combinations


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"modifiers": ("japanese", "no_trump")}, "cannot be combined"),
        ({"modifiers": ("railway", "poker")}, "no stock"),
        ({"modifiers": ("wild_sixes", "fallen_ace")}, "cannot be combined"),
        ({"modifiers": ("lizard",), "hand_size": 6}, "5 cards"),
        ({"modifiers": ("full",), "deck_size": 36}, "full"),
        ({"modifiers": ("no_trump",), "game": "perevodnoy", "proezdnoy": True}, "trumps"),
        ({"modifiers": ("sideways",)}, "modifiers"),
    ],
)
def test_combinations_that_cannot_work_are_refused_with_a_reason(
    options: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        Rules(**options)  # type: ignore[arg-type]


def test_more_players_than_the_deck_can_deal_is_refused() -> None:
    with pytest.raises(ValueError, match="deck"):
        Rules(modifiers=("full",), hand_size=9).check_players(6)
    with pytest.raises(ValueError, match="two trump cards"):
        CHANGING.check_players(6)


def test_modifiers_are_kept_in_a_fixed_order_without_repeats() -> None:
    a = Rules(modifiers=["poker", "japanese", "poker"])  # type: ignore[arg-type]
    b = Rules(modifiers=("japanese", "poker"))
    assert a == b and a.modifiers == ("japanese", "poker")
    assert Rules(deck_size=54).modifiers == ("full",)


def test_rules_describe_every_option_game_and_modifier() -> None:
    described = {o.key: o for o in describe()}
    assert set(described) == set(Rules.model_fields) == set(OPTION_NAMES)
    assert all(o.name and o.description for o in described.values())
    assert set(GAMES) == set(PRESETS) and set(MODIFIER_INFO) == set(MODIFIERS)
    assert described["modifiers"].choices == MODIFIERS
    assert described["turn_timeout"].low == 0 and described["first_bout_limit"].optional
    now = {o.key: o.value for o in describe(Rules.preset("perevodnoy", proezdnoy=True))}
    assert now["proezdnoy"] is True and now["game"] == "perevodnoy"
