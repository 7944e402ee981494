"""What a game's action log says of each seat, for the achievements
(:mod:`bot.ratings.achievements`: :data:`~bot.ratings.achievements.KNOWN` and the bits
after it).

The game is dealt again from its seed and its logged actions applied one by one, as a
replay is (:mod:`bot.service.replay`); the feats are read from the events. One function,
:func:`feats_of`, serves both ways they are needed: the table service at a game's end
(:func:`finishing_feats`, the log read back and the last action added) and the rebuild
from the stored history (:func:`stored_feats`). A log that does not lead to the stored
end gives no feats (every seat 0): nothing that needs them is given for that game.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence

from bot.ratings.achievements import (
    ESCAPES,
    KNOWN,
    NO_TAKE,
    NO_TRUMP,
    POGONY_GIVEN,
    SIX_BEATEN,
    TOOK_FIVE,
    TRANSFER_THREE,
)
from bot.service.replay import deal_of
from bot.store import ActionRow, GameRecord, Store
from engine import Card, Game, action_from_dict
from engine.actions import (
    Action,
    Beaten,
    Covered,
    GameOver,
    Led,
    PickedUp,
    Thrown,
    Transferred,
    TrumpShown,
)
from engine.cards import Rank
from engine.errors import IllegalAction, InvalidState

__all__ = ["feats_of", "finishing_feats", "stored_feats"]

log = logging.getLogger(__name__)

SIX_PAIRS = 12
"""Cards a bout of six attacks, each covered, sends to the discard."""
CHAIN = 3
"""Transfers in one bout that make a chain."""


def _trump(card: Card, trump: int | None) -> bool:
    """Whether playing ``card`` plays a trump (a joker counts as one)."""
    return card.is_joker or (trump is not None and card & 3 == trump)


def _six(card: Card) -> bool:
    return not card.is_joker and card >> 2 == Rank.SIX


def feats_of(start: Game, actions: Iterable[Action], final: str | None = None) -> tuple[int, ...]:
    """Each seat's feats in the game dealt as ``start`` and played by ``actions`` (all 0
    if they do not apply, or do not end in ``final``, the stored end, when given). Of a
    game not over, the feats so far."""
    game = start.copy()
    n = game.players
    none = (0,) * n
    takes = [0] * n
    trumps = [False] * n
    found = [KNOWN] * n
    defender: int | None = None
    transfers = 0
    bout: dict[int, list[Card]] = {}
    """Who put which attacking cards into the current (or last) bout."""
    try:
        for action in actions:
            trump = game.trump
            for event in game.apply(action):
                kind = type(event)
                if kind is Led:
                    assert isinstance(event, Led)
                    defender, transfers = event.defender, 0
                    bout = {event.seat: list(event.cards)}
                    trumps[event.seat] |= any(_trump(c, trump) for c in event.cards)
                elif kind is Thrown:
                    assert isinstance(event, Thrown)
                    bout.setdefault(event.seat, []).append(event.card)
                    trumps[event.seat] |= _trump(event.card, trump)
                elif kind is Transferred or kind is TrumpShown:
                    assert isinstance(event, Transferred | TrumpShown)
                    defender, transfers = event.defender, transfers + 1
                    if transfers >= CHAIN:
                        found[event.seat] |= TRANSFER_THREE
                    if kind is Transferred:
                        bout.setdefault(event.seat, []).append(event.card)
                        trumps[event.seat] |= _trump(event.card, trump)
                elif kind is Covered:
                    assert isinstance(event, Covered)
                    trumps[event.seat] |= _trump(event.card, trump)
                elif kind is PickedUp:
                    assert isinstance(event, PickedUp)
                    takes[event.seat] += 1
                elif kind is Beaten:
                    assert isinstance(event, Beaten)
                    if defender is not None and len(event.cards) >= SIX_PAIRS:
                        found[defender] |= SIX_BEATEN
                elif kind is GameOver:
                    assert isinstance(event, GameOver)
                    if event.pogony:
                        for seat, cards in bout.items():
                            if any(_six(c) for c in cards):
                                found[seat] |= POGONY_GIVEN
    except (ValueError, IllegalAction, InvalidState, IndexError, KeyError):
        log.warning("a log that does not replay: no feats", exc_info=True)
        return none
    if final is not None and game.to_json() != final:
        return none
    result = game.result
    durak: set[int] = set()
    if result is not None:
        durak = set(result.durak_team or ()) | (
            {result.durak} if result.durak is not None else set()
        )
    for seat in range(n):
        if takes[seat] == 0:
            found[seat] |= NO_TAKE
        if takes[seat] >= ESCAPES:
            found[seat] |= TOOK_FIVE
        if not trumps[seat]:
            found[seat] |= NO_TRUMP
        if seat in durak:
            found[seat] &= ~POGONY_GIVEN
    return tuple(found)


def _actions(rows: Iterable[ActionRow]) -> list[Action]:
    return [action_from_dict(json.loads(row.action)) for row in rows]


def record_feats(
    record: GameRecord, previous_final: str | None, rows: Sequence[ActionRow]
) -> tuple[int, ...]:
    """A finished game's feats, from its record, the final state of the game before it at
    its table (None: none, or it did not finish) and its log."""
    try:
        _, start = deal_of(record, previous_final)
        actions = _actions(rows)
    except (ValueError, TypeError, KeyError):
        log.warning("table %s game %s: no feats", record.table_id, record.game_no)
        return (0,) * len(record.seats)
    return feats_of(start, actions, record.final_game)


async def finishing_feats(
    store: Store, table_id: int, game_no: int, last: Action, final: Game
) -> tuple[int, ...]:
    """At a game's end, before its last action is saved: each seat's feats, from the
    stored log and ``last``, which ends it in ``final``."""
    record = await store.game_record(table_id, game_no)
    if record is None:
        return (0,) * final.players
    before = None
    if game_no > 1:
        before = await store.game_record(table_id, game_no - 1)
    try:
        _, start = deal_of(record, before.final_game if before is not None else None)
        actions = _actions(await store.game_log(table_id, game_no))
    except (ValueError, TypeError, KeyError):
        log.warning("table %s game %s: no feats", table_id, game_no)
        return (0,) * final.players
    return feats_of(start, [*actions, last], final.to_json())


async def stored_feats(store: Store, page: int = 500) -> dict[tuple[int, int, int], int]:
    """Every finished game's feats, read again from the logs: by table, game and seat."""
    found: dict[tuple[int, int, int], int] = {}
    after = (0, 0)
    previous: GameRecord | None = None
    while True:
        records = await store.finished_games(after, page)
        for record in records:
            before = None
            if (
                previous is not None
                and previous.table_id == record.table_id
                and previous.game_no == record.game_no - 1
            ):
                before = previous.final_game
            rows = await store.game_log(record.table_id, record.game_no)
            for seat, feats in enumerate(record_feats(record, before, rows)):
                found[(record.table_id, record.game_no, seat)] = feats
            previous = record
        if len(records) < page:
            return found
        after = (records[-1].table_id, records[-1].game_no)
