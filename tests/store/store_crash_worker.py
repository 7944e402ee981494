"""The child process of the crash test: plays seeded random games into the store.

``python store_crash_worker.py DB`` (a SQLite file, or a ``postgresql://`` URL) opens the
store, prints ``ready``, then makes sure every table exists and drives each one through its
games concurrently, action by action, until every game is over; then prints ``done``. As
the bot keeps each update from Telegram before handling it, the worker keeps one in the
inbox before each move (a game's start or an action) and names it in the move's write. It
may be killed with SIGKILL at any moment: started again, it resumes from whatever the store
holds, and a move tried again comes with the same update.

The actions are chosen by a random generator seeded with the game's seed and the action's
sequence number, so the games come out the same however often the process is killed:
:func:`reference_games` plays them without a store, for comparison.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

from bot.store import KeptUpdate, Outcome, Seat, Store, TableRow, TableStatus, open_store
from engine import Game, Rules
from engine.actions import Action

CHATS = (-1001, -1002, -1003, -1004)
TABLES_PER_CHAT = 4
GAMES_PER_TABLE = 2
USERS = 8


@dataclass(frozen=True)
class Spec:
    """What one table plays."""

    index: int
    chat_id: int
    rules: Rules
    seats: tuple[Seat, ...]

    def seed(self, game_no: int) -> int:
        return 1000 * self.index + game_no


def spec(chat_index: int, k: int) -> Spec:
    """The k-th table (by id) of the chat_index-th chat."""
    n = chat_index * TABLES_PER_CHAT + k
    players = 2 + n % 5
    preset = ("podkidnoy", "perevodnoy", "prostoy")[n % 3]
    teams = "pairs" if players in (4, 6) and n % 2 == 0 else "none"
    rules = Rules.preset(preset, teams=teams)
    seats = [Seat.human(1 + (n + j) % USERS, f"P{1 + (n + j) % USERS}") for j in range(players)]
    if n % 4 == 3:
        seats[-1] = Seat.computer("Bot", "random")
    return Spec(n, CHATS[chat_index], rules, tuple(seats))


ALL_SPECS = [spec(c, k) for c in range(len(CHATS)) for k in range(TABLES_PER_CHAT)]


def update_id(table_id: int, game_no: int, seq: int) -> int:
    """The id of the update that move ``seq`` of game ``game_no`` handles (seq 0: the game's
    start): the same every time the move is tried."""
    assert 0 < game_no < 10 and 0 <= seq < 10_000
    return (table_id * 10 + game_no) * 10_000 + seq


def move_of(update_id: int) -> tuple[int, int, int]:
    """(table id, game number, sequence) of the move an update id names."""
    rest, seq = divmod(update_id, 10_000)
    table_id, game_no = divmod(rest, 10)
    return table_id, game_no, seq


async def keep(store: Store, table_id: int, game_no: int, seq: int) -> int:
    """Keep the update of a move before making it (kept already if the move was tried
    before a kill); its id."""
    number = update_id(table_id, game_no, seq)
    await store.keep_updates([KeptUpdate(number, f'{{"update_id": {number}}}')])
    return number


def choose(game: Game, seed: int, seq: int) -> Action:
    """The action number ``seq + 1`` of the game with ``seed``: the same every time."""
    rng = random.Random(f"{seed}:{seq}")
    seat = rng.choice(game.to_act())
    return rng.choice(game.legal_actions(seat))


def new_game(spec: Spec, game_no: int, previous: Game | None) -> Game:
    prior = previous.result if previous is not None else None
    return Game.new(spec.rules, players=len(spec.seats), seed=spec.seed(game_no), previous=prior)


def reference_games(spec: Spec) -> list[tuple[str, int]]:
    """The final state and the number of actions of each of the table's games, played
    without a store."""
    finals: list[tuple[str, int]] = []
    previous: Game | None = None
    for game_no in range(1, GAMES_PER_TABLE + 1):
        game = new_game(spec, game_no, previous)
        seq = 0
        while game.result is None:
            game.apply(choose(game, spec.seed(game_no), seq))
            seq += 1
        finals.append((game.to_json(), seq))
        previous = game
    return finals


async def ensure_tables(store: Store) -> list[tuple[Spec, int]]:
    """Create whatever tables a kill left uncreated; every table with its spec."""
    tables: list[tuple[Spec, int]] = []
    for c, chat_id in enumerate(CHATS):
        rows = await store.chat_tables(chat_id, list(TableStatus))
        ids = [r.table_id for r in rows]
        while len(ids) < TABLES_PER_CHAT:
            s = spec(c, len(ids))
            row = await store.create_table(
                chat_id,
                rules=s.rules.model_dump_json(),
                creator_id=s.seats[0].user_id,
            )
            ids.append(row.table_id)
        tables.extend((spec(c, k), table_id) for k, table_id in enumerate(ids))
    return tables


async def play_out(store: Store, row: TableRow) -> None:
    """Play the table's running game to its end, saving every action."""
    assert row.game is not None and row.seed is not None
    game = Game.from_json(row.game)
    version, seq = row.version, row.moves
    while game.result is None:
        action = choose(game, row.seed, seq)
        game.apply(action)
        outcome = Outcome.from_result(game.result) if game.result is not None else None
        number = await keep(store, row.table_id, row.game_no, seq + 1)
        saved = await store.save_action(
            row.table_id,
            version,
            game=game.to_json(),
            action=json.dumps(action.to_dict()),
            seat=action.seat,
            outcome=outcome,
            update_id=number,
        )
        version, seq = saved.version, saved.seq


async def drive(store: Store, spec: Spec, table_id: int) -> None:
    """Take the table from wherever it is to the end of its last game."""
    while True:
        row = await store.get_table(table_id)
        assert row is not None
        if row.status is TableStatus.PLAYING:
            await play_out(store, row)
            continue
        if row.status is TableStatus.LOBBY and not row.seats:
            await store.update_lobby(table_id, row.version, seats=spec.seats)
            continue
        assert row.status in (TableStatus.LOBBY, TableStatus.FINISHED)
        if row.game_no >= GAMES_PER_TABLE:
            return
        previous = Game.from_json(row.game) if row.game is not None else None
        game = new_game(spec, row.game_no + 1, previous)
        number = await keep(store, table_id, row.game_no + 1, 0)
        await store.start_game(
            table_id,
            row.version,
            seed=spec.seed(row.game_no + 1),
            game=game.to_json(),
            update_id=number,
        )


async def main(where: str) -> None:
    url = where if where.startswith("postgresql://") else ""
    async with open_store(Path(where), url=url) as store:
        # What the bot does at start-up: load every running game.
        for row in await store.running_tables():
            assert row.game is not None
            Game.from_json(row.game)
        print("ready", flush=True)
        tables = await ensure_tables(store)
        await asyncio.gather(*(drive(store, s, table_id) for s, table_id in tables))
    print("done", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
