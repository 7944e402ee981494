"""Shared values of the store tests (importable because pytest puts this folder on sys.path)."""

from __future__ import annotations

from bot.store import Outcome, Seat, Store, TableRow


class FakeClock:
    """Unix time that moves only when told to."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


ALICE = Seat.human(1, "Alice")
BORIS = Seat.human(2, "Boris")
VERA = Seat.human(3, "Вера")
BOT = Seat.computer("Bot", "random")

RULES = '{"game":"podkidnoy"}'


async def playing_table(
    store: Store,
    chat_id: int = -100,
    seats: tuple[Seat, ...] = (ALICE, BORIS),
    seed: int = 7,
) -> TableRow:
    """A table whose first game has just started (state JSON ``"s0"``)."""
    lobby = await store.create_table(chat_id, rules=RULES, creator_id=1, seats=seats)
    return await store.start_game(lobby.table_id, lobby.version, seed=seed, game="s0")


async def play(store: Store, table: TableRow, moves: int) -> int:
    """Save ``moves`` actions (state ``s<seq>``, action ``a<seq>``); the final version."""
    version = table.version
    for _ in range(moves):
        seq = (await store.get_table(table.table_id) or table).moves + 1
        saved = await store.save_action(
            table.table_id, version, game=f"s{seq}", action=f"a{seq}", seat=seq % 2
        )
        version = saved.version
    return version


def lose(durak: int, players: int, pogony: bool = False) -> Outcome:
    """One durak, everybody else wins."""
    points = tuple(0 if i == durak else 2 for i in range(players))
    return Outcome(durak_seats=(durak,), draw=False, pogony=pogony, points=points)


def draw(players: int) -> Outcome:
    """Nobody is durak."""
    return Outcome(durak_seats=(), draw=True, pogony=False, points=(1,) * players)
