"""Mini App benchmark: many tables played on their pages while the chat goes on as usual.

Run by hand: ``.venv/bin/python bench/webapp.py --tables 500``. The real bot, ``python -m
bot`` with its default settings and the Mini App on, runs as its own process against the
fake Bot API server (Telegram's limits, as in ``bench/load.py``), which runs in this
process with the simulated players. Every table has two players; once dealt:

0. each player opens his table's page (a real WebSocket client saying hello with init
   data signed as Telegram signs it): the bot's memory per open page, read before any
   play has freed memory a page could reuse; the pages are closed again;
1. for ``--control`` seconds the players press their chat hands (no page open): the bot's
   CPU per move without pages, and press -> the next player's hand (after the first
   ``--warmup`` seconds, or a third of the time);
2. each player opens his page again;
3. for ``--warmup`` + ``--seconds`` seconds the players tap on their pages at a human pace
   (``--think``, 1-4 s by default) while the bot delivers the chat messages as usual.

It reports, for the measured moves (taps that moved the table on): tap -> the other
player's page shows it, and tap -> the tapper's own page (ack and state) as p50/p95/p99/
max; tap -> the next player's chat hand shows it (what a player without the page feels);
429s drawn; CPU per move with pages; memory per page; and, over the measured time, the
CPU of this process (the fake server, the players, their pages) and of the rest of the
machine (what else shares its cores, which the latencies depend on). Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
from e2e.harness import Data  # noqa: E402
from e2e.pages import free_port, init_data, table_token  # noqa: E402
from fake_telegram import FakeTelegramServer, FakeUser, Limits  # noqa: E402
from load import (  # noqa: E402
    Arrivals,
    buttons,
    cpu_seconds,
    machine_cpu,
    percentiles,
    reaped_cpu,
    rss_bytes,
    sensible,
)
from ship.process import BotProcess  # noqa: E402

from engine import Game  # noqa: E402

MOVES = ("take", "pass", "done", "transfer", "show_trump")


class Page:
    """One open page, light: its newest state, when each state came, the press replies."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.state: dict[str, Any] | None = None
        self.arrivals: list[tuple[int, float]] = []
        """(version, perf_counter) of every state received."""
        self.changed = asyncio.Event()
        self.reply: asyncio.Future[dict[str, Any]] | None = None
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type is not aiohttp.WSMsgType.TEXT:
                continue
            now = time.perf_counter()
            frame = json.loads(message.data)
            kind = frame.get("t")
            if kind == "state":
                self.arrivals.append((frame["v"], now))
                if self.state is None or frame["v"] >= self.state["v"]:
                    self.state = frame
                self.changed.set()
            elif kind in ("ack", "notice") and self.reply is not None and not self.reply.done():
                self.reply.set_result(frame)

    async def press(self, press: str, version: int) -> dict[str, Any]:
        self.reply = asyncio.get_running_loop().create_future()
        await self.ws.send_str(json.dumps({"t": "press", "press": press, "v": version}))
        return await asyncio.wait_for(self.reply, 30)

    def shown_after(self, version: int, since: float) -> float | None:
        """When this page first got a state newer than ``version`` after ``since``."""
        for v, at in self.arrivals:
            if at >= since and v > version:
                return at - since
        return None


def moves_of(state: dict[str, Any]) -> list[str]:
    """What a person taps: an open choice's options, else cards that can go and moves."""
    if state.get("choice"):
        return [b["press"] for b in state["choice"]["buttons"]]
    hand = state.get("hand") or {"cards": []}
    return [c["press"] for c in hand["cards"] if c["press"]] + [
        b["press"] for b in state.get("buttons", []) if b["action"] in MOVES
    ]


@dataclass
class Tap:
    """A tap that moved its table on."""

    at: float
    """perf_counter when sent."""
    world: float
    """The fake server's clock when sent."""
    version: int
    own: float
    """Until the ack."""
    other: Page
    next_chat: int


@dataclass
class Seat:
    user: FakeUser
    table: int
    seat: int
    page: Page | None = None
    other: Seat | None = field(default=None, repr=False)


def applied(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT count(*) FROM actions").fetchone()[0])
    finally:
        con.close()


async def main(
    tables: int,
    seconds: float,
    warmup: float,
    control: float,
    think: tuple[float, float],
    seed: int,
    bot_root: Path | None = None,
) -> dict[str, float]:
    """One run; its headline figures (``--vs`` prints them side by side)."""
    figures: dict[str, float] = {}
    rng = random.Random(seed)
    db = Path(tempfile.mkdtemp(prefix="durak-webapp-")) / "webapp.sqlite3"
    port = free_port()
    async with FakeTelegramServer(limits=Limits.telegram()) as tg:
        env = {
            "BOT_TOKEN": tg.token,
            "DURAK_BASE_URL": tg.base_url,
            "DURAK_DB_PATH": str(db),
            "DURAK_LOG_LEVEL": os.environ.get("BENCH_LOG_LEVEL", "WARNING"),
            "DURAK_DEFAULT_LANGUAGE": "en",
            "DURAK_WEBAPP_URL": f"http://127.0.0.1:{port}/app",
            "DURAK_WEBAPP_PORT": str(port),
            "DURAK_WEBAPP_SHORT_NAME": "table",
        }
        if bot_root is not None:
            env["PYTHONPATH"] = str(bot_root)  # the bot's code from another checkout
        print("fake server: Telegram's limits; the bot with its default settings, Mini App on")
        print(f"the bot's code: {bot_root or ROOT}")
        async with Bot(env, db.parent) as bot:
            assert bot.proc is not None
            pid = bot.proc.pid
            watch = asyncio.create_task(_watch(bot))
            await tg.wait_for(lambda: tg.calls_to("getUpdates", include_pending=True), timeout=60)
            await _listening(port)
            groups: list[tuple[Any, list[FakeUser]]] = []
            table_ids: list[int] = []

            async def seat_and_start(people: list[FakeUser], lobby: Any) -> None:
                join = next(d for d in buttons(lobby) if d[1:].startswith("j."))
                await (await tg.press(people[1], lobby, data=join)).answer(timeout=120)
                await tg.wait_for(lambda: "2/6" in lobby.plain_text, timeout=120)
                start = next(d for d in buttons(lobby) if d[1:].startswith("s."))
                await (await tg.press(people[0], lobby, data=start)).answer(timeout=120)

            # fifty tables at a time: the set-up is not what is measured
            for first in range(0, tables, 50):
                batch = []
                for t in range(first, min(tables, first + 50)):
                    people = [await tg.create_user(f"{chr(65 + i)}{t}") for i in range(2)]
                    for user in people:
                        await tg.start_bot(user)
                    group = await tg.create_group(f"G{t}", members=people, creator=people[0])
                    await tg.send_command(people[0], group, "newgame")
                    batch.append((group, people))
                lobbies = [
                    await tg.wait_for_message(g, lambda m: bool(buttons(m)), timeout=120)
                    for g, _ in batch
                ]
                table_ids += [Data.parse(buttons(lobby)[0]).table for lobby in lobbies]
                await asyncio.gather(
                    *(
                        seat_and_start(p, lobby)
                        for (_, p), lobby in zip(batch, lobbies, strict=True)
                    )
                )
                groups += batch
            seats: list[Seat] = []
            for table, (_, people) in zip(table_ids, groups, strict=True):
                pair = [Seat(u, table, i) for i, u in enumerate(people)]
                pair[0].other, pair[1].other = pair[1], pair[0]
                seats += pair
            await tg.wait_for(
                lambda: all(buttons(tg.last_message(tg.private_chat(s.user))) for s in seats),
                timeout=180,
            )
            await asyncio.sleep(5.0)
            print(f"{tables} tables of 2 seated and dealt", time.strftime("%H:%M:%S"))

            con = sqlite3.connect(db)
            games: dict[int, tuple[int, Game | None]] = {}

            def stored_game(table: int) -> tuple[int, Game | None]:
                row = con.execute(
                    "SELECT version, status FROM tables WHERE table_id = ?", (table,)
                ).fetchone()
                if row is None or row[1] != "playing":
                    return 0, None
                known = games.get(table)
                if known is None or known[0] != row[0]:
                    (text,) = con.execute(
                        "SELECT game FROM tables WHERE table_id = ?", (table,)
                    ).fetchone()
                    known = games[table] = (row[0], Game.from_json(text))
                return known

            gc.collect()
            gc.freeze()

            # ---- 0. memory: a page for each player of every table, on a bot that has not
            # yet freed any memory a page could reuse; then closed again
            await asyncio.sleep(5.0)
            before = rss_bytes(pid)
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
                probes: list[Page] = []

                async def probe(s: Seat) -> None:
                    ws = await session.ws_connect(f"http://127.0.0.1:{port}/app/ws", heartbeat=None)
                    page = Page(ws)
                    hello = {
                        "t": "hello",
                        "init_data": init_data(s.user, tg.token),
                        "start": table_token(tg, s.table),
                    }
                    await ws.send_str(json.dumps(hello))
                    probes.append(page)

                for i in range(0, len(seats), 50):
                    await asyncio.gather(*(probe(s) for s in seats[i : i + 50]))
                await asyncio.wait_for(_all(lambda: all(p.state for p in probes)), 120)
                await asyncio.sleep(5.0)
                per_page = (rss_bytes(pid) - before) / len(probes)
                print(f"{len(probes)} pages open: bot memory {per_page / 1024:.1f} KB per page")
                for page in probes:
                    await page.ws.close()
            await asyncio.sleep(5.0)

            # ---- 1. the chat alone: no page open
            stop = time.monotonic() + control

            async def chat_player(s: Seat) -> None:
                await asyncio.sleep(rng.uniform(0, think[1]))
                while time.monotonic() < stop:
                    hand = tg.last_message(tg.private_chat(s.user))
                    shown = buttons(hand)
                    data: list[str] = []
                    if shown:
                        version, game = stored_game(s.table)
                        seen = Data.parse(shown[0]).version
                        if game is not None and version == seen and s.seat in game.to_act():
                            data = sensible(shown, game, s.seat)
                    if not data:
                        await asyncio.sleep(0.2)
                        continue
                    version = Data.parse(shown[0]).version
                    world = tg.world.elapsed()
                    press = await tg.press(s.user, hand, data=rng.choice(data))  # type: ignore[arg-type]
                    await press.answer(timeout=30)
                    after, _ = stored_game(s.table)
                    # the first moves of freshly dealt tables all come at once: measured
                    # once play has spread out, as in bench/load.py
                    if after > version and time.monotonic() > settled:
                        chat_presses.append((world, version, s.other.user.id))  # type: ignore[union-attr]
                    await asyncio.sleep(rng.uniform(*think))

            chat_presses: list[tuple[float, int, int]] = []
            lags: list[float] = []
            moves0, cpu0, began = applied(db), cpu_seconds(pid), time.monotonic()
            settled = began + min(warmup, control / 3)
            if control > 0:
                await asyncio.gather(ticker(lags, stop), *(chat_player(s) for s in seats))
                took = time.monotonic() - began
                made = applied(db) - moves0
                cpu = cpu_seconds(pid) - cpu0
                print(
                    f"without pages (chat presses, {took:.0f} s): {made / took:.1f} moves/s, "
                    f"bot CPU {cpu / max(made, 1) * 1000:.2f} ms per move "
                    f"({cpu / took * 100:.0f}% of one core)"
                )
            await asyncio.sleep(5.0)  # the chat catches up
            if chat_presses:
                arrivals = Arrivals(tg.calls)
                felt = [arrivals.hand(c, w, v) for w, v, c in chat_presses]
                print(
                    "  press -> next player's chat hand: "
                    + percentiles([x for x in felt if x is not None])
                )
                print(f"  bench's own event-loop lag: {percentiles(lags)}")

            # ---- 2. every player opens his page
            connector = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(connector=connector) as session:

                async def open_page(s: Seat) -> None:
                    ws = await session.ws_connect(f"http://127.0.0.1:{port}/app/ws", heartbeat=None)
                    s.page = Page(ws)
                    hello = {
                        "t": "hello",
                        "init_data": init_data(s.user, tg.token),
                        "start": table_token(tg, s.table),
                    }
                    await ws.send_str(json.dumps(hello))

                for i in range(0, len(seats), 50):
                    await asyncio.gather(*(open_page(s) for s in seats[i : i + 50]))
                await asyncio.wait_for(
                    _all(lambda: all(s.page and s.page.state for s in seats)), 120
                )
                await asyncio.sleep(5.0)
                print(f"{len(seats)} pages open again")

                # ---- 3. the players tap on their pages
                taps: list[Tap] = []
                measuring = False
                stop = time.monotonic() + warmup + seconds
                outdated = 0

                async def page_player(s: Seat) -> None:
                    nonlocal outdated
                    page, other = s.page, s.other
                    assert page is not None and other is not None and other.page is not None
                    await asyncio.sleep(rng.uniform(0, think[1]))
                    while time.monotonic() < stop:
                        state = page.state
                        presses = moves_of(state) if state and state["status"] == "playing" else []
                        if not presses:
                            page.changed.clear()
                            with contextlib.suppress(TimeoutError):
                                await asyncio.wait_for(page.changed.wait(), 1.0)
                            continue
                        await asyncio.sleep(rng.uniform(*think))  # a person thinks
                        assert state is not None
                        if page.state is not state and page.state["v"] != state["v"]:  # type: ignore[index]
                            continue  # it moved on while he thought
                        at, world = time.perf_counter(), tg.world.elapsed()
                        reply = await page.press(rng.choice(presses), state["v"])
                        own = time.perf_counter() - at
                        if reply["t"] == "notice":
                            outdated += 1
                            continue
                        if measuring and reply["v"] > state["v"]:
                            _, game = stored_game(s.table)
                            nxt = s.other.user.id  # type: ignore[union-attr]
                            if game is not None:
                                waiting = [x for x in game.waiting_on() or game.to_act()]
                                if waiting and waiting[0] == s.seat:
                                    nxt = s.user.id
                            taps.append(Tap(at, world, state["v"], own, other.page, nxt))

                marks: dict[str, float] = {}

                async def measure() -> None:
                    nonlocal measuring
                    await asyncio.sleep(warmup)
                    busy, _, total = machine_cpu()
                    marks.update(
                        moves=applied(db),
                        cpu=cpu_seconds(pid),
                        began=time.monotonic(),
                        limited=len(tg.rate_limited),
                        busy=busy,
                        total=total,
                        own=time.process_time(),
                        under=_under(pid),
                    )
                    measuring = True
                    await asyncio.sleep(seconds)
                    measuring = False
                    busy, _, total = machine_cpu()
                    marks.update(
                        moves_end=applied(db),
                        cpu_end=cpu_seconds(pid),
                        ended=time.monotonic(),
                        busy_end=busy,
                        total_end=total,
                        own_end=time.process_time(),
                        under_end=_under(pid),
                    )

                gc.disable()
                lags.clear()
                await asyncio.gather(
                    measure(), ticker(lags, stop), *(page_player(s) for s in seats)
                )
                gc.enable()
                took = marks["ended"] - marks["began"]
                made = int(marks["moves_end"] - marks["moves"])
                cpu = marks["cpu_end"] - marks["cpu"]
                # what the rest of the machine used meanwhile: not the bot, the processes
                # under it, nor this one (the fake server, the players and their pages)
                others = (
                    (marks["busy_end"] - marks["busy"])
                    - cpu
                    - (marks["under_end"] - marks["under"])
                    - (marks["own_end"] - marks["own"])
                )
                machine = (marks["busy_end"] - marks["busy"]) / (
                    marks["total_end"] - marks["total"]
                )
                figures.update(
                    moves=made / took, cpu=cpu / max(made, 1) * 1000, others=others / took * 100
                )
                print(
                    f"with pages (taps on the pages, {took:.0f} s measured): "
                    f"{made / took:.1f} moves/s, bot CPU {cpu / max(made, 1) * 1000:.2f} ms per "
                    f"move ({cpu / took * 100:.0f}% of one core)"
                )
                print(
                    f"  meanwhile: the bench {(marks['own_end'] - marks['own']) / took * 100:.0f}%"
                    f" of one core, the rest of the machine {others / took * 100:.0f}% of one "
                    f"core; the machine {machine * 100:.0f}% busy"
                )
                await asyncio.sleep(10.0)  # the chat catches up
                other = [t.other.shown_after(t.version, t.at) for t in taps]
                seen = [x for x in other if x is not None]
                arrivals = Arrivals(tg.calls)
                chat = [arrivals.hand(t.next_chat, t.world, t.version) for t in taps]
                chat_seen = [x for x in chat if x is not None]
                print(f"measured taps {len(taps)} ({outdated} refused as outdated overall)")
                print(f"  tap -> the other page shows it:  {percentiles(seen)}")
                ordered = sorted(seen)
                if ordered:
                    figures.update(
                        other50=ordered[len(ordered) // 2] * 1000,
                        other99=ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
                    )
                print(f"  tap -> the tapper's ack:         {percentiles([t.own for t in taps])}")
                print(f"  tap -> next player's chat hand:  {percentiles(chat_seen)}")
                print(
                    f"  never shown: other page {len(other) - len(seen)}, "
                    f"chat hand {len(chat) - len(chat_seen)}"
                )
                print(f"  bench's own event-loop lag: {percentiles(lags)}")
                print(
                    f"429s drawn: {len(tg.rate_limited)} "
                    f"({len(tg.rate_limited) - int(marks['limited'])} while measuring)"
                )
                for s in seats:
                    if s.page is not None:
                        await s.page.ws.close()
                figures["429s"] = len(tg.rate_limited) - int(marks["limited"])
            watch.cancel()
            await bot.stop()
    return figures


class Bot(BotProcess):
    """``python -m bot`` run as ``python -c`` (the same entry point, the same settings): on
    a machine shared with other work, a clean-up that ends every ``python -m bot`` by
    name would end this one in the middle of a run."""

    command = ("-c", "from bot.__main__ import main; raise SystemExit(main())")


async def ticker(lags: list[float], stop: float) -> None:
    """How late this process's own event loop wakes up: the simulated side's share of
    the measured latency."""
    while time.monotonic() < stop:
        planned = time.perf_counter() + 0.01
        await asyncio.sleep(0.01)
        lags.append(time.perf_counter() - planned)


def _under(pid: int) -> float:
    """CPU seconds of the processes under the bot (its coach workers), alive or ended."""
    total = reaped_cpu(pid)
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        with contextlib.suppress(OSError):
            total += cpu_seconds(int(child))
    return total


async def _watch(bot: BotProcess) -> None:
    """If the bot process ends before the bench does, say so and stop the bench."""
    assert bot.proc is not None
    while Path(f"/proc/{bot.proc.pid}/stat").exists() and bot.proc.returncode is None:
        with open(f"/proc/{bot.proc.pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        await asyncio.sleep(1.0)
    await asyncio.sleep(1.0)
    print(
        f"THE BOT EXITED ({bot.proc.returncode}) at {time.strftime('%H:%M:%S')}:\n"
        + "\n".join(bot.lines[-30:]),
        flush=True,
    )
    os._exit(1)


async def _listening(port: int, timeout: float = 60.0) -> None:
    """Wait until the bot's Mini App server accepts connections."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on port {port}") from None
            await asyncio.sleep(0.2)
            continue
        writer.close()
        return


async def _all(check: Any) -> None:
    while not check():
        await asyncio.sleep(0.1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument(
        "--control", type=float, default=30.0, help="seconds of chat-only play first (0: none)"
    )
    parser.add_argument("--think", type=float, nargs=2, default=(1.0, 4.0), metavar=("MIN", "MAX"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--vs",
        type=Path,
        metavar="DIR",
        help="side by side: A runs the bot from the checkout DIR, B from this one, "
        "alternately (A B A B ...), with the figures of both at the end",
    )
    parser.add_argument("--rounds", type=int, default=2, help="with --vs: A B pairs")
    args = parser.parse_args()

    def run(root: Path | None = None) -> dict[str, float]:
        return asyncio.run(
            main(
                args.tables,
                args.seconds,
                args.warmup,
                args.control,
                tuple(args.think),
                args.seed,
                root,
            )
        )

    if args.vs is None:
        run()
    else:
        roots = {"A": args.vs.resolve(), "B": ROOT}
        runs: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
        for n in range(args.rounds):
            for side, root in roots.items():
                print(f"--- round {n + 1} of {args.rounds}, {side}: the bot from {root} ---")
                runs[side].append(run(root))
                print()
        print("=" * 80)
        for side, root in roots.items():
            print(f"{side}: the bot from {root}")
        for key, label in (
            ("moves", "moves/s with pages"),
            ("cpu", "bot CPU per move with pages (ms)"),
            ("other50", "tap -> other page p50 (ms)"),
            ("other99", "tap -> other page p99 (ms)"),
            ("429s", "429s while measuring"),
            ("others", "rest of the machine, % of a core"),
        ):
            cells = [" ".join(f"{r.get(key, float('nan')):.1f}" for r in runs[s]) for s in roots]
            print(f"{label:36}" + "".join(f"{c:>22}" for c in cells))
        print("=" * 80)
