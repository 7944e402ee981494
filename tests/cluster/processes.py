"""Several real bot processes (``python -m bot``) on one PostgreSQL database and one token,
against the fake Bot API server, and what the tests read of them in the database."""

from __future__ import annotations

import asyncio
import json
import random
import signal
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
from e2e.harness import NAMES, Data, Table, callback_buttons, hand_versions
from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser, Limits
from ship.process import BotProcess

from bot.store import shard_of
from engine import Game, Rules
from engine.actions import action_from_dict


def cluster_env(tg: FakeTelegramServer, url: str, tmp: Path, **extra: str) -> dict[str, str]:
    """The environment of one of the processes: the same for each."""
    return {
        "BOT_TOKEN": tg.token,
        "DURAK_BASE_URL": tg.base_url,
        "DURAK_DATABASE_URL": url,
        "DURAK_DB_PATH": str(tmp / "never.sqlite3"),
        "DURAK_DEFAULT_LANGUAGE": "en",
        "DURAK_GROUP_EDIT_INTERVAL": "0.08",
        "DURAK_PRIVATE_EDIT_INTERVAL": "0.02",
        "DURAK_COACH_WORKERS": "0",
        **extra,
    }


class Cluster:
    """The bot processes of one test, started and stopped one by one. With ``tg``, each
    process talks to the fake server through an address of its own (``add_address``), so
    that the calls of each are told apart (:meth:`port`)."""

    def __init__(
        self, env: dict[str, str], cwd: Path, url: str, tg: FakeTelegramServer | None = None
    ) -> None:
        self.env = env
        self.cwd = cwd
        self.url = url
        self.tg = tg
        self.bots: list[BotProcess] = []
        self.ports: dict[int, BotProcess] = {}
        """The fake server's port -> the process that calls through it."""

    async def start(self, count: int = 1, **extra: str) -> list[BotProcess]:
        started = []
        for _ in range(count):
            own: dict[str, str] = {}
            if self.tg is not None:
                own["DURAK_BASE_URL"] = await self.tg.add_address()
            bot = BotProcess({**self.env, **extra, **own}, self.cwd)
            if own:
                self.ports[int(own["DURAK_BASE_URL"].rsplit(":", 1)[1].split("/")[0])] = bot
            await bot.__aenter__()
            self.bots.append(bot)
            started.append(bot)
        for bot in started:
            await bot.wait_for_line("cluster: member ", timeout=60)
        return started

    def live(self) -> list[BotProcess]:
        return [b for b in self.bots if b.proc is not None and b.proc.returncode is None]

    async def kill(self, bot: BotProcess) -> None:
        assert bot.proc is not None
        bot.proc.send_signal(signal.SIGKILL)
        await bot.proc.wait()

    async def stop(self, bot: BotProcess) -> int:
        return await bot.stop(timeout=30)

    async def holder(self, chat_id: int) -> BotProcess:
        """The process that holds the chat's shard now."""
        pid = await fetchval(
            self.url,
            "SELECT m.pid FROM shard_leases l JOIN members m ON m.member_id = l.owner "
            "WHERE l.shard = $1",
            shard_of(chat_id),
        )
        for bot in self.live():
            assert bot.proc is not None
            if bot.proc.pid == pid:
                return bot
        raise AssertionError(f"no live process holds shard {shard_of(chat_id)}")

    async def poller(self) -> BotProcess | None:
        pid = await fetchval(
            self.url,
            "SELECT m.pid FROM shard_leases l JOIN members m ON m.member_id = l.owner "
            "WHERE l.shard = -1",
        )
        return next((b for b in self.live() if b.proc is not None and b.proc.pid == pid), None)

    async def settled(self, members: int, timeout: float = 30.0) -> None:
        """Wait until ``members`` processes share every shard, none above its share."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            try:
                rows = await fetch(
                    self.url,
                    "SELECT owner, count(*) FROM shard_leases "
                    "WHERE shard >= 0 AND owner IS NOT NULL "
                    "AND expires_at > extract(epoch FROM now()) GROUP BY owner",
                )
            except asyncpg.UndefinedTableError:
                rows = []  # not migrated yet
            counts = sorted(r[1] for r in rows)
            share = -(-64 // members)
            if len(counts) == members and sum(counts) == 64 and counts[-1] <= share:
                return
            if loop.time() > deadline:
                raise AssertionError(f"the shards are held {counts}, not by {members}")
            await asyncio.sleep(0.1)

    async def close(self) -> None:
        for bot in self.bots:
            await bot.__aexit__()


@asynccontextmanager
async def two_processes(
    tmp: Path, url: str
) -> AsyncIterator[tuple[FakeTelegramServer, Cluster, Reader]]:
    """The fake server (its fast limits), two processes on ``url`` sharing the shards, and
    a reader of their database; all stopped at the end."""
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        cluster = Cluster(cluster_env(tg, url, tmp), tmp, url)
        db = Reader(url)
        try:
            await cluster.start(2)
            await cluster.settled(2)
            yield tg, cluster, db
        finally:
            await db.close()
            await cluster.close()


async def fetch(url: str, sql: str, *args: Any) -> list[Any]:
    conn = await asyncpg.connect(url)
    try:
        return list(await conn.fetch(sql, *args))
    finally:
        await conn.close()


async def fetchval(url: str, sql: str, *args: Any) -> Any:
    rows = await fetch(url, sql, *args)
    return rows[0][0] if rows else None


async def tables_in_groups(tg: FakeTelegramServer, count: int, players: int = 2) -> list[Table]:
    """``count`` groups, each with its own players (a user plays in one group only)."""
    tables = []
    for n in range(count):
        users = [await tg.create_user(f"{NAMES[i]}{n}", language_code="en") for i in range(players)]
        group = await tg.create_group(f"Friends {n}", members=users, creator=users[0])
        tables.append(Table(tg, users, group))
    return tables


async def shared_player_tables(tg: FakeTelegramServer, groups: Sequence[int]) -> list[Table]:
    """Tables in several groups with one player, Ann, at every one of them: her private chat
    gets hands from every table, whoever holds it."""
    ann = await tg.create_user("Ann", language_code="en")
    tables = []
    for n in groups:
        other = await tg.create_user(f"Bob{n}", language_code="en")
        group = await tg.create_group(f"Friends {n}", members=[ann, other], creator=ann)
        tables.append(Table(tg, [ann, other], group))
    return tables


@dataclass(frozen=True)
class Played:
    """A finished game as the database holds it, replayed from its seed and log."""

    table_id: int
    chat_id: int
    game: Game
    moves: int
    started_version: int
    final_version: int


async def finished_games(url: str) -> list[Played]:
    """Every finished game, replayed from its seed through its log and checked against the
    stored final state; the log numbered 1, 2, ... without a gap."""
    conn = await asyncpg.connect(url)
    try:
        found = []
        for table_id, game_no, chat_id, seed, rules, seats, final in await conn.fetch(
            "SELECT table_id, game_no, chat_id, seed, rules, seats, final_game FROM games "
            "WHERE outcome IS NOT NULL ORDER BY table_id, game_no"
        ):
            assert game_no == 1, "one game a table in these tests"
            game = Game.new(
                Rules.model_validate_json(rules), players=len(json.loads(seats)), seed=seed
            )
            log = await conn.fetch(
                "SELECT seq, action FROM actions WHERE table_id = $1 AND game_no = $2 ORDER BY seq",
                table_id,
                game_no,
            )
            assert [r[0] for r in log] == list(range(1, len(log) + 1)), "no move twice or lost"
            for _, action in log:
                game.apply(action_from_dict(json.loads(action)))
            assert game.to_json() == final, "the log replays to the stored end"
            version, moves = await conn.fetchrow(
                "SELECT version, moves FROM tables WHERE table_id = $1", table_id
            )
            assert moves == len(log)
            found.append(Played(table_id, chat_id, game, moves, version - moves, version))
        return found
    finally:
        await conn.close()


async def tallies(url: str, chat_id: int) -> dict[str, tuple[int, int, int]]:
    """name -> (points, games, times durak) of a chat's series, as stored."""
    rows = await fetch(
        url, "SELECT name, points, games, durak FROM tallies WHERE chat_id = $1", chat_id
    )
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


def expected(game: Game, users: Sequence[FakeUser]) -> dict[str, tuple[int, int, int]]:
    result = game.result
    assert result is not None
    return {
        u.first_name: (result.points[i], 1, int(i in result.losers)) for i, u in enumerate(users)
    }


def answers(tg: FakeTelegramServer) -> dict[str, list[bool]]:
    """Each callback query's answerCallbackQuery calls (whether each was accepted)."""
    found: dict[str, list[bool]] = {}
    for call in tg.calls:
        if call.method == "answerCallbackQuery" and not call.pending:
            found.setdefault(str(call.params.get("callback_query_id")), []).append(call.ok)
    return found


def assert_answered_once(tg: FakeTelegramServer, pressed: int) -> None:
    """Every press answered, and exactly once."""
    found = answers(tg)
    twice = {q: a for q, a in found.items() if a != [True]}
    assert not twice, f"callback queries not answered exactly once: {twice}"
    assert len(found) == pressed, f"{pressed} presses, {len(found)} answered"


def assert_every_press_answered(tg: FakeTelegramServer, pressed: int) -> None:
    """Each press got exactly one answer that Telegram accepted. After a process was
    killed, the one taking its tables over answers again what the killed one may have left
    unanswered: Telegram refuses an answer to a query answered already, so the player sees
    one answer all the same."""
    found = answers(tg)
    wrong = {q: a for q, a in found.items() if a.count(True) != 1}
    assert not wrong, f"callback queries not answered exactly once: {wrong}"
    assert len(found) == pressed, f"{pressed} presses, {len(found)} answered"


async def assert_all_done(url: str) -> None:
    pending = await fetch(url, "SELECT update_id, shard FROM inbox WHERE done_at IS NULL")
    assert pending == [], f"updates kept and never done: {pending}"


class Reader:
    """Reads the tables' state straight from the database, as the tests' players need it
    to make legal moves; connects again after the server restarted."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: asyncpg.Connection | None = None
        self._lock = asyncio.Lock()
        """One query at a time on the one connection (players at several tables share it)."""

    async def _query(self, sql: str, *args: Any) -> list[Any]:
        async with self._lock:
            return await self._query_alone(sql, *args)

    async def _query_alone(self, sql: str, *args: Any) -> list[Any]:
        for attempt in range(100):
            try:
                if self._conn is None or self._conn.is_closed():
                    self._conn = await asyncpg.connect(self.url)
                return list(await self._conn.fetch(sql, *args))
            except (
                OSError,
                asyncpg.PostgresError,
                asyncpg.InterfaceError,
                asyncpg.exceptions.InternalClientError,  # the server went away mid-query
            ):
                if self._conn is not None:
                    self._conn.terminate()
                self._conn = None
                if attempt == 99:
                    raise
                await asyncio.sleep(0.1)
        raise AssertionError("unreachable")

    async def table(self, table_id: int) -> tuple[str, int, int, Game | None]:
        """(status, version, moves, game) of a table."""
        rows = await self._query(
            "SELECT status, version, moves, game FROM tables WHERE table_id = $1", table_id
        )
        status, version, moves, game = rows[0]
        return status, version, moves, Game.from_json(game) if game is not None else None

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()


def hand_of(table: Table, user: FakeUser) -> FakeMessage | None:
    """The newest message in the user's private chat with buttons of this table (a player
    at several tables has a hand of each there)."""
    for message in reversed(table.tg.bot_messages(table.tg.private_chat(user))):
        for data in callback_buttons(message):
            try:
                if Data.parse(data).table == table.table_id:
                    return message
            except (IndexError, ValueError):
                continue
    return None


async def legal_press(
    table: Table, db: Reader, rng: random.Random, timeout: float = 30
) -> tuple[FakeUser, FakeMessage, str, int] | None:
    """A legal move (or one step of a choice) for a player who may act, once his hand shows
    the stored state: (the player, his hand, the button, the version); None if no game
    runs, or the clock moved it on meanwhile."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    status, version, _, game = await db.table(table.table_id)
    if status != "playing" or game is None:
        return None
    seat = rng.choice(game.to_act())
    user = table.users[seat]
    while hand_versions(hand := hand_of(table, user)) != {version}:
        if (await db.table(table.table_id))[1] != version:
            return None
        assert loop.time() < deadline, f"the hand of {user.first_name} is not drawn"
        await asyncio.sleep(0.01)
    assert hand is not None
    presses = table.legal_presses(hand, game, seat)
    assert presses, f"no legal button for seat {seat}: {callback_buttons(hand)}"
    return user, hand, rng.choice(presses), version


async def legal_move(
    table: Table,
    db: Reader,
    rng: random.Random,
    timeout: float = 30,
    refused: tuple[str, ...] = ("outdated",),
) -> bool:
    """Press a button of a legal move (see :func:`legal_press`) and wait for its effect;
    False if no game runs. An answer with a text is a refusal, which must say one of
    ``refused``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    chosen = await legal_press(table, db, rng, timeout)
    if chosen is None:
        return (await db.table(table.table_id))[0] == "playing"
    user, hand, data, version = chosen
    shown = callback_buttons(hand)
    answer = await table.press(user, hand, data)
    assert answer.text is None or any(r in answer.text for r in refused), answer.text
    if answer.text is not None:
        # refused as outdated (the table moved on, or a process took it over just then):
        # nothing applied, the current state drawn; the next move is chosen from that
        return True
    while (await db.table(table.table_id))[1] == version and callback_buttons(
        hand_of(table, user)
    ) == shown:
        assert loop.time() < deadline, (
            f"the move {data} of {user.first_name} (answered) took no effect: the table is "
            f"still at version {version}, his hand message {hand.message_id} unchanged"
        )
        await asyncio.sleep(0.01)
    return True


async def play_moves(
    table: Table,
    db: Reader,
    rng: random.Random,
    moves: int,
    refused: tuple[str, ...] = ("outdated",),
) -> None:
    """Make ``moves`` state changes (unless the game ends first)."""
    target = (await db.table(table.table_id))[2] + moves
    while (await db.table(table.table_id))[2] < target:
        if not await legal_move(table, db, rng, refused=refused):
            return


async def finish(table: Table, db: Reader, rng: random.Random, timeout: float = 90) -> None:
    """Play legal moves until the game is over, and its end is shown."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    ends = table.end_count()
    while await legal_move(table, db, rng):
        assert loop.time() < deadline, f"the game did not end in {timeout} s"
    await table.tg.wait_for(lambda: table.end_count() > ends, timeout=20, what="the end")
