"""Games written to a real store the way the table service writes them: an action log of
action objects, the last action saving the result."""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.store import Outcome, Seat, Store

RULES = '{"game":"podkidnoy","teams":"none"}'
PAIRS = '{"game":"podkidnoy","teams":"pairs"}'

ANN = Seat.human(1, "Ann")
BOB = Seat.human(2, "Bob")
CID = Seat.human(3, "Cid")
DAN = Seat.human(4, "Dan")
EVE = Seat.human(5, "Eve")
FAY = Seat.human(6, "Fay")
EASY = Seat.computer("Easy bot", "easy")
HARD = Seat.computer("Hard bot", "hard")


def action(kind: str, seat: int) -> str:
    """An action line as the table service logs it (only its type and seat matter here)."""
    return json.dumps({"type": kind, "seat": seat}, separators=(",", ":"))


def each_moves(players: int, moves: int = 3) -> list[tuple[int, str]]:
    """``moves`` passes by every seat, in turn."""
    return [(seat, "pass") for _ in range(moves) for seat in range(players)]


def lost(durak: int, players: int) -> Outcome:
    """One durak, everybody else wins."""
    points = tuple(0 if i == durak else 2 for i in range(players))
    return Outcome(durak_seats=(durak,), draw=False, pogony=False, points=points)


def team_lost(seats: Sequence[int], players: int) -> Outcome:
    """The team of ``seats`` lost."""
    points = tuple(0 if i in seats else 2 for i in range(players))
    return Outcome(durak_seats=tuple(seats), draw=False, pogony=False, points=points)


def drawn(players: int) -> Outcome:
    return Outcome(durak_seats=(), draw=True, pogony=False, points=(1,) * players)


async def logged_game(
    store: Store,
    seats: Sequence[Seat],
    outcome: Outcome | None,
    *,
    chat_id: int = -100,
    moves: Sequence[tuple[int, str]] | None = None,
    rules: str = RULES,
    feats: Sequence[int] | None = None,
) -> tuple[int, int]:
    """Play a game at a new table: ``moves`` as ``(seat, type)`` (by default three
    passes by every seat), the last one saving ``outcome``; with no outcome the game is
    cancelled after them (``feats``: each seat's, saved with the result). ``(table id,
    game no)``."""
    log = list(moves if moves is not None else each_moves(len(seats)))
    lobby = await store.create_table(chat_id, rules=rules, creator_id=1, seats=tuple(seats))
    table = await store.start_game(lobby.table_id, lobby.version, seed=1, game="s0")
    version = table.version
    for i, (seat, kind) in enumerate(log):
        last = i == len(log) - 1 and outcome is not None
        saved = await store.save_action(
            table.table_id,
            version,
            game="end" if last else f"s{i}",
            action=action(kind, seat),
            seat=seat,
            outcome=outcome if last else None,
            feats=feats if last else None,
        )
        version = saved.version
    if outcome is None:
        await store.cancel_table(table.table_id, version)
    return table.table_id, table.game_no
