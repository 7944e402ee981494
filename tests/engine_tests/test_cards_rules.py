"""§1 cards and the Rules object."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine import Card, Rank, Rules, Suit, deck, parse_cards


def test_card_parses_every_spelling_to_the_same_card() -> None:
    assert Card.parse("10♥") == Card.parse("TH") == Card.parse("th") == Card.parse("10h")
    assert Card.parse("10♥") is Card.parse("th")
    assert str(Card.parse("TH")) == "10♥"
    assert str(Card.parse("as")) == "A♠"
    assert Card.parse("Q♦").rank is Rank.QUEEN and Card.parse("Q♦").suit is Suit.DIAMONDS
    assert Card.parse("7c").code == "7C"
    assert parse_cards("6♠, 7S th") == [Card.of(6, 0), Card.of(7, 0), Card.of(10, 3)]


@pytest.mark.parametrize("bad", ["", "1H", "11H", "TX", "10", "♥", "AHH", "joker"])
def test_card_parse_rejects_garbage(bad: str) -> None:
    with pytest.raises(ValueError):
        Card.parse(bad)


def test_decks_hold_distinct_cards_of_the_right_ranks() -> None:
    d36 = deck(36)
    assert len(d36) == len(set(d36)) == 36
    assert min(c.rank for c in d36) is Rank.SIX
    d52 = deck(52)
    assert len(set(d52)) == 52 and min(c.rank for c in d52) is Rank.TWO
    with pytest.raises(ValueError):
        deck(40)


def test_cards_order_by_rank_then_suit() -> None:
    assert sorted(parse_cards("AS 6H 6S TC")) == parse_cards("6S 6H TC AS")


def test_rules_defaults_follow_the_rule_book() -> None:
    r = Rules()
    assert r.game == "podkidnoy" and r.hand_size == 6 and r.bout_limit == 6
    assert r.first_bout_limit == 5 and r.multi_card_lead and r.draw == "allowed"
    assert r.next_first_attacker == "left_of_loser" and r.turn_timeout == 120
    assert r.on_timeout == "durak" and r.throw_in_window == 10 and r.teams == "none"
    assert r.no_transfer_first_bout and not r.proezdnoy


def test_presets_and_overrides() -> None:
    r = Rules.preset("perevodnoy", teams="pairs", proezdnoy=True)
    assert r.game == "perevodnoy" and r.teams == "pairs" and r.proezdnoy
    assert Rules.preset("prostoy").game == "prostoy"
    with pytest.raises(ValueError, match="unknown preset"):
        Rules.preset("poker")


def test_rules_are_frozen() -> None:
    r = Rules()
    with pytest.raises(ValidationError):
        r.bout_limit = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"proezdnoy": True}, "perevodnoy"),
        ({"no_transfer_with_trump_on_table": True}, "perevodnoy"),
        ({"bout_limit": 4, "first_bout_limit": 5}, "cannot exceed"),
        ({"hand_size": 0}, "hand_size"),
        ({"turn_timeout": -1}, "turn_timeout"),
        ({"teams": "quads"}, "teams"),
        ({"unknown_option": 1}, "unknown_option"),
        ({"deck_size": 40}, "deck_size"),
    ],
)
def test_impossible_rules_are_refused_at_construction(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        Rules(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("teams", "players"), [("pairs", 3), ("pairs", 5), ("triples", 4), ("pairs", 2)]
)
def test_team_play_needs_the_right_number_of_players(teams: str, players: int) -> None:
    with pytest.raises(ValueError, match="teams"):
        Rules(teams=teams).check_players(players)  # type: ignore[arg-type]


def test_more_players_than_the_deck_can_deal_is_refused() -> None:
    with pytest.raises(ValueError, match="deck"):
        Rules(hand_size=7).check_players(6)
    with pytest.raises(ValueError):
        Rules().check_players(7)
    with pytest.raises(ValueError):
        Rules().check_players(1)
