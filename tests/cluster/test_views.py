"""A page's own choice or selection, sent from the holder of its table to the process its
page is connected to, arrives as it was."""

from __future__ import annotations

from bot.render import Choice
from bot.webapp.presses import private_from, private_json
from bot.webapp.state import Private
from engine import Card
from engine.actions import Cover, Lead, Transfer


def card(code: str) -> Card:
    return Card.parse(code)


def test_a_choice_and_a_selection_cross_processes_whole() -> None:
    cover = Choice(card("9S"), (Cover(1, card("7S"), card("9S")), Cover(1, card("8S"), card("9S"))))
    choices = [
        Private(12, cover, None, "lead"),
        Private(
            13,
            Choice(card("7H"), (Cover(1, card("6H"), card("7H")), Transfer(1, card("7H"))), False),
        ),
        Private(
            14,
            Choice(card("6D"), (Lead(0, (card("6D"),)),), True),
            frozenset({card("6D"), card("6C")}),
            "lead",
        ),
        Private(15, None, frozenset({card("TH")}), "throw"),
    ]
    for private in choices:
        assert private_from(private_json(private)) == private
    assert private_json(None) is None and private_from(None) is None
    assert private_from({"version": "x"}) is None, "unreadable: no choice rather than a wrong one"
