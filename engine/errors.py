"""Errors the engine raises, each with a stable reason code the bot can translate."""

from __future__ import annotations

__all__ = ["IllegalAction", "InvalidState"]


class IllegalAction(Exception):
    """An action that is not legal now. ``reason`` is a stable code, ``str(exc)`` English.

    Reason codes: ``game_over``, ``no_such_seat``, ``not_your_turn``, ``card_not_in_hand``,
    ``duplicate_card``, ``empty_lead``, ``mixed_ranks``, ``rank_not_on_table``,
    ``limit_reached``, ``not_on_table``, ``already_covered``, ``does_not_beat``,
    ``transfer_not_allowed``, ``transfer_rank``, ``transfer_limit``, ``not_a_trump``,
    ``already_shown``, ``unknown_action``; with the variants also ``not_a_set``
    (prostoy5), ``suit_needed`` (wild sixes), ``no_swap`` and ``no_swaps_left`` (the trump
    swap of prostoy5 and the poker swap).
    """

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason


class InvalidState(ValueError):
    """A saved game that cannot be loaded: malformed, from another format, or inconsistent."""
