"""Replays of finished games, rebuilt from the seed and the action log.

A game is dealt again from its seed (and, for a series' later game, the previous game's
result, which decides who leads), and its logged actions are applied one by one; the end
must be the stored final state, so a replay is exact or refused, never approximate.
"""

from __future__ import annotations

import json
import logging
from collections import deque
from dataclasses import dataclass

from bot.store import GameRecord, Seat, Store, TableRow
from engine import Game, Rules, action_from_dict
from engine.actions import Action, Event
from engine.errors import IllegalAction, InvalidState

__all__ = ["Replay", "ReplayError", "deal_of", "load_replay", "recent_moves"]

log = logging.getLogger(__name__)


class ReplayError(Exception):
    """A game that cannot be replayed; ``reason`` is the refusal's code."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Replay:
    """A finished game: its deal and every action, ready to be stepped through."""

    record: GameRecord
    rules: Rules
    start: Game
    actions: tuple[Action, ...]

    @property
    def seats(self) -> tuple[Seat, ...]:
        """Who sat where."""
        return self.record.seats

    @property
    def total(self) -> int:
        """How many moves the game had."""
        return len(self.actions)

    def seat_of(self, user_id: int) -> int | None:
        """The seat a user had in this game, or None."""
        for i, seat in enumerate(self.record.seats):
            if seat.user_id == user_id:
                return i
        return None

    def at(self, step: int) -> tuple[Game, list[Event]]:
        """The game after ``step`` moves (clamped to the game's length) and what the last
        of them caused."""
        step = max(0, min(step, self.total))
        game = self.start.copy()
        events: list[Event] = []
        for action in self.actions[:step]:
            events = game.apply(action)
        return game, events


async def load_replay(store: Store, table_id: int, game_no: int) -> Replay:
    """Rebuild game ``game_no`` of ``table_id``. Raises :class:`ReplayError`: ``replay_none``
    (no such game), ``replay_running`` (not over yet, or cancelled), ``replay_broken`` (the
    log does not lead to the stored end)."""
    record = await store.game_record(table_id, game_no)
    if record is None:
        raise ReplayError("replay_none")
    if record.outcome is None or record.final_game is None:
        raise ReplayError("replay_running")
    try:
        rules, start = await _deal(store, record)
        rows = await store.game_log(table_id, game_no)
        actions = tuple(action_from_dict(json.loads(row.action)) for row in rows)
        game = start.copy()
        for action in actions:
            game.apply(action)
    except (ValueError, IllegalAction, InvalidState):
        log.exception("table %s game %s: the log does not replay", table_id, game_no)
        raise ReplayError("replay_broken") from None
    if game.to_json() != record.final_game:
        log.error("table %s game %s: the replay does not end as the game did", table_id, game_no)
        raise ReplayError("replay_broken")
    return Replay(record, rules, start, actions)


async def recent_moves(store: Store, row: TableRow, kept: int) -> list[tuple[int, Event]]:
    """The events of a running game's last moves (at most ``kept``, oldest first, each with
    the move count after it), rebuilt from the seed and the log: what the table's "Recent
    moves" showed before a restart. Empty if the log does not lead to the stored state."""
    record = await store.game_record(row.table_id, row.game_no)
    if record is None or row.game is None:
        return []
    recent: deque[tuple[int, Event]] = deque(maxlen=kept)
    try:
        _, game = await _deal(store, record)
        for line in await store.game_log(row.table_id, row.game_no):
            for event in game.apply(action_from_dict(json.loads(line.action))):
                recent.append((game.moves, event))
    except (ValueError, IllegalAction, InvalidState):
        log.exception("table %s game %s: the log does not replay", row.table_id, row.game_no)
        return []
    if game.to_json() != row.game:
        log.error("table %s game %s: the log does not lead to the game", row.table_id, row.game_no)
        return []
    return list(recent)


async def _deal(store: Store, record: GameRecord) -> tuple[Rules, Game]:
    """A game's rules and its deal: from its seed and, for a series' later game, the
    previous game's result (which decides who leads)."""
    before = None
    if record.game_no > 1:
        before = await store.game_record(record.table_id, record.game_no - 1)
    return deal_of(record, before.final_game if before is not None else None)


def deal_of(record: GameRecord, previous_final: str | None) -> tuple[Rules, Game]:
    """A game's rules and its deal, given the final state of the game before it at its
    table (None: none, or it did not finish). Raises ``ValueError`` on stored text that
    does not read."""
    rules = Rules.model_validate_json(record.rules)
    previous = None
    if record.game_no > 1 and previous_final is not None:
        previous = Game.from_json(previous_final).result
    start = Game.new(rules, players=len(record.seats), seed=record.seed, previous=previous)
    return rules, start
