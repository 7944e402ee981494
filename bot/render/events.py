"""Engine events in words, one line each (consecutive draws merge into one line)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from bot.base.i18n import Lang, tr
from engine import Event, Suit
from engine.actions import (
    Beaten,
    Covered,
    Dealt,
    Drew,
    GameOver,
    Led,
    Passed,
    PickedUp,
    PlayerOut,
    PokerSwapped,
    Resigned,
    Taking,
    Thrown,
    TimedOut,
    Transferred,
    TrumpChanged,
    TrumpShown,
    TrumpSwapped,
)

from .common import Player, card_text, name_of, named_card, named_cards, suit_text

__all__ = ["event_line", "event_lines"]


def event_line(
    event: Event,
    players: Sequence[Player],
    lang: Lang,
    trump: Suit | None = None,
) -> str:
    """One event in words (HTML; names escaped). ``trump`` names the suit for a deal
    that shows no card. A wild six is told as it was named (the event carries the suit),
    so the line still reads right once the bout has left the table."""

    def who(seat: int | None) -> str:
        return name_of(players, seat)

    match event:
        case Dealt(first_attacker=first, trump_card=card):
            if card is not None:
                return tr(lang, "event.dealt", card=card_text(card), name=who(first))
            if trump is not None:
                return tr(lang, "event.dealt_suit", suit=suit_text(trump), name=who(first))
            return tr(lang, "event.dealt_no_trump", name=who(first))
        case Led(seat=seat, cards=cards, defender=defender, suits=suits):
            return tr(
                lang,
                "event.led",
                name=who(seat),
                cards=named_cards(cards, suits, lang),
                defender=who(defender),
            )
        case Thrown(seat=seat, card=card, suit=suit):
            return tr(lang, "event.thrown", name=who(seat), card=named_card(card, suit, lang))
        case Covered(seat=seat, attack=attack, card=card, suit=suit, attack_suit=attack_suit):
            return tr(
                lang,
                "event.covered",
                name=who(seat),
                attack=named_card(attack, attack_suit, lang),
                card=named_card(card, suit, lang),
            )
        case Taking(seat=seat):
            return tr(lang, "event.taking", name=who(seat))
        case Passed(seat=seat):
            return tr(lang, "event.passed", name=who(seat))
        case Transferred(seat=seat, card=card, defender=defender, suit=suit):
            return tr(
                lang,
                "event.transferred",
                name=who(seat),
                card=named_card(card, suit, lang),
                defender=who(defender),
            )
        case TrumpShown(seat=seat, card=card, defender=defender):
            return tr(
                lang,
                "event.trump_shown",
                name=who(seat),
                card=card_text(card),
                defender=who(defender),
            )
        case PickedUp(seat=seat, cards=cards):
            return tr(lang, "event.picked_up", name=who(seat), n=len(cards))
        case Beaten(cards=cards):
            return tr(lang, "event.beaten", n=len(cards))
        case Drew(seat=seat, amount=amount):
            return tr(lang, "event.drew", name=who(seat), n=amount)
        case PlayerOut(seat=seat, place=place):
            return tr(lang, "event.player_out", name=who(seat), place=place)
        case TimedOut(seat=seat, effect=effect):
            key = effect if effect in ("durak", "auto", "pass") else "auto"
            return tr(lang, f"event.timed_out.{key}", name=who(seat))
        case TrumpChanged(card=card):
            return tr(lang, "event.trump_changed", card=card_text(card))
        case TrumpSwapped(seat=seat, card=card, taken=taken):
            return tr(
                lang,
                "event.trump_swapped",
                name=who(seat),
                card=card_text(card),
                taken=card_text(taken),
            )
        case PokerSwapped(seat=seat, left=left):
            return tr(lang, "event.poker_swapped", name=who(seat), n=left)
        case Resigned(seat=seat):
            return tr(lang, "event.resigned", name=who(seat))
        case GameOver(durak=durak, draw=draw, pogony=pogony):
            if draw or durak is None:
                return tr(lang, "event.game_over.draw")
            key = "pogony" if pogony else "durak"
            return tr(lang, f"event.game_over.{key}", name=who(durak))
    return tr(lang, "event.unknown")


def event_lines(
    events: Sequence[Event],
    players: Sequence[Player],
    lang: Lang,
    trump: Suit | None = None,
    limit: int = 6,
) -> list[str]:
    """The last ``limit`` lines for ``events`` (oldest first); draws in a row become one."""
    if limit <= 0:
        return []
    # only the events of the last ``limit`` lines are put in words
    start = len(events)
    shown = 0
    while start > 0 and shown < limit:
        start -= 1
        if isinstance(events[start], Drew):
            while start > 0 and isinstance(events[start - 1], Drew):
                start -= 1
        shown += 1
    events = events[start:]
    # the hands of one move and its table tell the same events: put in words once
    key = (tuple((type(e), e) for e in events), tuple(players), lang, trump, limit)
    try:
        said = _SAID.get(key)
    except TypeError:  # an event that cannot be a key: told each time
        return _told(events, players, lang, trump, limit)
    if said is None:
        if len(_SAID) >= SAID_REMEMBERED:
            _SAID.clear()
        said = _SAID[key] = tuple(_told(events, players, lang, trump, limit))
    return list(said)


SAID_REMEMBERED: Final = 2048
"""How many runs of events put in words are remembered."""
_SAID: dict[object, tuple[str, ...]] = {}


def _told(
    events: Sequence[Event],
    players: Sequence[Player],
    lang: Lang,
    trump: Suit | None,
    limit: int,
) -> list[str]:
    lines: list[str] = []
    draws: list[Drew] = []

    def flush() -> None:
        if len(draws) == 1:
            lines.append(event_line(draws[0], players, lang, trump))
        elif draws:
            parts = ", ".join(
                tr(lang, "event.drew_part", name=name_of(players, d.seat), n=d.amount)
                for d in draws
            )
            lines.append(tr(lang, "event.drew_all", list=parts))
        draws.clear()

    for event in events:
        if isinstance(event, Drew):
            draws.append(event)
            continue
        flush()
        lines.append(event_line(event, players, lang, trump))
    flush()
    return lines[-limit:]
