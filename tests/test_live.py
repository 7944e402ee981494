"""A table held in memory works out its public view once a move, for every viewer of it."""

from __future__ import annotations

from webapp.test_state import live_of

from engine import Game, Rules, parse_cards
from engine.actions import Lead

RULES = Rules.preset("podkidnoy")


def test_the_public_view_is_worked_out_once_a_move_and_again_after_one() -> None:
    game = Game.deal(
        RULES, [parse_cards("7S 7C 9H"), parse_cards("8S 9S KD")], parse_cards("6D KH"), 0
    )
    live = live_of(game)
    first = live.public_view(game)
    assert first == game.public_view()
    assert live.public_view(game) is first, "the hands and the table of one move share it"
    game.apply(Lead(0, tuple(parse_cards("7S"))))
    after = live.public_view(game)
    assert after is not first and after == game.public_view(), "a move makes a new one"
    assert after.table != first.table
    other = game.copy()
    assert live.public_view(other) is not after, "another game object is never taken for it"
    assert live.public_view(other) == after
