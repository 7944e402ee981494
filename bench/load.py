"""Load benchmark: many concurrent tables of simulated players through the fake server.

Run by hand: ``.venv/bin/python bench/load.py --tables 500 --seconds 60``. The real bot,
``python -m bot``, runs as its own process against the fake Bot API server, which runs in
this process with the simulated players. Prints: applied actions per second; latency from
a press (the update queued at the server) to its callback answer, p50/p99; Bot API calls
per applied action (long polling's getUpdates not counted); and memory per table.
Targets: 500 tables, p99 <= 100 ms, <= 3 calls per action, <= 100 KB per table. The
simulated players act like people: when the game lets him act and his hand shows the
current state, a player thinks (``--think``, by default 1-4 s) and taps a card that plays,
or a move (a choice's option when one is open). Calls are counted per applied move and
per press (a press that opens a choice is an action of the player's that saves no move).
The first ``--warmup`` seconds (10) of play are not measured: freshly dealt tables all
make their first moves, and notify their players, at once. Memory is the bot process's
resident growth while the tables were opened and dealt, per table. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from e2e.harness import CHOICE_KINDS, Data, action_cards, kind_of  # noqa: E402
from fake_telegram import FakeTelegramServer, Limits  # noqa: E402
from ship.process import BotProcess  # noqa: E402

from engine import Game  # noqa: E402
from engine.actions import Pass, Take  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    """Resident memory of a process."""
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def buttons(message: object) -> list[str]:
    if message is None:
        return []
    return [b.callback_data for row in message.buttons for b in row if b.callback_data]  # type: ignore[attr-defined]


def sensible(buttons: list[str], game: Game, seat: int) -> list[str]:
    """The buttons a person would tap: an open choice's options, else cards that some legal
    action plays, Take and Pass when legal."""
    choice = [d for d in buttons if kind_of(d) in CHOICE_KINDS]
    if choice and not any(kind_of(d) == "t" for d in buttons):
        return choice
    actions = game.legal_actions(seat)
    cards = set().union(*(action_cards(a) for a in actions)) if actions else set()
    moves = {"q": Take, "n": Pass}
    found = []
    for data in buttons:
        kind = kind_of(data)
        if (kind == "t" and Data.parse(data).rest[0] in cards) or (
            kind in moves and any(isinstance(a, moves[kind]) for a in actions)
        ):
            found.append(data)
    return found


async def main(
    tables: int,
    players: int,
    seconds: float,
    warmup: float,
    seed: int,
    think: tuple[float, float],
) -> None:
    rng = random.Random(seed)
    db = Path(tempfile.mkdtemp(prefix="durak-load-")) / "load.sqlite3"
    async with FakeTelegramServer(limits=Limits.off()) as tg:
        env = {
            "BOT_TOKEN": tg.token,
            "DURAK_BASE_URL": tg.base_url,
            "DURAK_DB_PATH": str(db),
            "DURAK_LOG_LEVEL": "WARNING",
            "DURAK_DEFAULT_LANGUAGE": "en",
            "DURAK_RATE_LIMITS": "retry-only",  # the fake server has no limits to pace for
        }
        async with BotProcess(env, db.parent) as bot:
            assert bot.proc is not None
            pid = bot.proc.pid
            await tg.wait_for(lambda: tg.calls_to("getUpdates", include_pending=True), timeout=60)
            await asyncio.sleep(1.0)
            base = rss_bytes(pid)
            groups = []
            for t in range(tables):
                people = [await tg.create_user(f"{chr(65 + i)}{t}") for i in range(players)]
                for user in people:
                    await tg.start_bot(user)
                group = await tg.create_group(f"G{t}", members=people, creator=people[0])
                await tg.send_command(people[0], group, "newgame")
                groups.append((group, people))
            lobbies = [
                await tg.wait_for_message(g, lambda m: bool(buttons(m)), timeout=60)
                for g, _ in groups
            ]
            # tables are numbered as the bot opened them, not as asked
            table_ids = [Data.parse(buttons(lobby)[0]).table for lobby in lobbies]

            async def join(people: list[object], lobby: object) -> None:
                for seat, user in enumerate(people[1:], 2):
                    data = next(d for d in buttons(lobby) if d[1:].startswith("j."))
                    await (await tg.press(user, lobby, data=data)).answer(timeout=60)  # type: ignore[arg-type]
                    await tg.wait_for(
                        lambda seat=seat: f"{seat}/6" in lobby.plain_text,  # type: ignore[attr-defined]
                        timeout=60,
                    )

            await asyncio.gather(
                *(join(people, lobby) for (_, people), lobby in zip(groups, lobbies, strict=True))
            )
            for (_, people), lobby in zip(groups, lobbies, strict=True):
                start = next(d for d in buttons(lobby) if d[1:].startswith("s."))
                await (await tg.press(people[0], lobby, data=start)).answer(timeout=60)
            users = [u for _, people in groups for u in people]

            def dealt() -> int:
                return sum(1 for u in users if buttons(tg.last_message(tg.private_chat(u))))

            try:
                await tg.wait_for(lambda: dealt() == len(users), timeout=120)
            except TimeoutError:
                print(f"after two minutes {dealt()} of {len(users)} hands are drawn; going on")
            await asyncio.sleep(5.0)  # the last paced edits
            per_table = (rss_bytes(pid) - base) / tables
            print(f"{tables} tables of {players} seated and dealt")

            def moves() -> int:
                con = sqlite3.connect(db)
                try:
                    return int(con.execute("SELECT count(*) FROM actions").fetchone()[0])
                finally:
                    con.close()

            latencies: list[float] = []
            texts: dict[str | None, int] = {}
            con = sqlite3.connect(db)

            games: dict[int, tuple[int, Game | None]] = {}

            def stored_game(table: int) -> tuple[int, Game | None]:
                """The table's stored version and game; the game is parsed again only when
                the version moved."""
                row = con.execute(
                    "SELECT version FROM tables WHERE table_id = ? AND status = 'playing'",
                    (table,),
                ).fetchone()
                if row is None:
                    return 0, None
                known = games.get(table)
                if known is None or known[0] != row[0]:
                    version, text = con.execute(
                        "SELECT version, game FROM tables WHERE table_id = ?", (table,)
                    ).fetchone()
                    known = games[table] = (version, Game.from_json(text))
                return known

            measuring = False
            stop = time.monotonic() + warmup + seconds

            async def player(user: object, table: int, seat: int) -> None:
                # people do not all sit down in the same instant
                await asyncio.sleep(rng.uniform(0, think[1]))
                while time.monotonic() < stop:
                    hand = tg.last_message(tg.private_chat(user))  # type: ignore[arg-type]
                    shown = buttons(hand)
                    data: list[str] = []
                    if shown:
                        seen = Data.parse(shown[0]).version
                        version, game = stored_game(table)
                        if game is not None and version == seen and seat in game.to_act():
                            data = sensible(shown, game, seat)
                    if not data:
                        await asyncio.sleep(0.2)  # not his move, or the hand is catching up
                        continue
                    began = time.perf_counter()
                    press = await tg.press(user, hand, data=rng.choice(data))  # type: ignore[arg-type]
                    ans = await press.answer(timeout=30)
                    if measuring:
                        texts[ans.text] = texts.get(ans.text, 0) + 1
                        latencies.append(time.perf_counter() - began)
                    await asyncio.sleep(rng.uniform(*think))  # a person thinks

            lags: list[float] = []

            async def ticker() -> None:
                """How late this process's own event loop wakes up: the simulated side's
                share of the measured latency."""
                while time.monotonic() < stop:
                    planned = time.perf_counter() + 0.01
                    await asyncio.sleep(0.01)
                    lags.append(time.perf_counter() - planned)

            # The simulator keeps every call and message it ever saw; its collector's full
            # passes over them grow to hundreds of milliseconds, and each would count as the
            # bot's latency. It runs without them for the measured minute.
            gc.collect()
            gc.freeze()
            gc.disable()
            marks: dict[str, float] = {}

            async def measure() -> None:
                """The first moves of freshly dealt tables all come at once; the minute is
                measured once play has spread out."""
                nonlocal measuring
                await asyncio.sleep(warmup)
                marks.update(
                    moves=moves(),
                    calls=len(tg.calls),
                    cpu=cpu_seconds(pid),
                    own=time.process_time(),
                    began=time.monotonic(),
                )
                lags.clear()
                measuring = True

            await asyncio.gather(
                measure(),
                ticker(),
                *(
                    player(u, table, seat)
                    for table, (_, people) in zip(table_ids, groups, strict=True)
                    for seat, u in enumerate(people)
                ),
            )
            elapsed = time.monotonic() - marks["began"]
            gc.enable()
            moves0, calls0 = int(marks["moves"]), int(marks["calls"])
            cpu0, own0 = marks["cpu"], marks["own"]
            await asyncio.sleep(2.0)
            cpu = cpu_seconds(pid) - cpu0
            applied = moves() - moves0
            calls = sum(1 for c in tg.calls[calls0:] if c.method != "getUpdates")
            latencies.sort()
            p50 = statistics.median(latencies) * 1000
            p99 = latencies[int(len(latencies) * 0.99)] * 1000
            print(f"presses {len(latencies)}, applied actions {applied} in {elapsed:.0f} s")
            print(f"actions/s {applied / elapsed:.1f}")
            print(
                f"bot CPU {cpu / max(applied, 1) * 1000:.1f} ms per applied action "
                f"({cpu / elapsed * 100:.0f}% of one core)"
            )
            print(
                f"press-to-answer latency p50 {p50:.1f} ms, p99 {p99:.1f} ms  [target p99 <= 100]"
            )
            print(
                f"Bot API calls per applied action {calls / max(applied, 1):.2f}  [target <= 3]"
                f" (per press {calls / max(len(latencies), 1):.2f})"
            )
            lags.sort()
            print(
                f"simulator's event-loop lag p50 {statistics.median(lags) * 1000:.1f} ms, "
                f"p99 {lags[int(len(lags) * 0.99)] * 1000:.1f} ms, max {lags[-1] * 1000:.1f} ms"
            )
            print(f"bot memory per table {per_table / 1024:.0f} KB  [target <= 100]")
            print("answers:", texts)
            print(f"429s drawn: {len(tg.rate_limited)}")
            by_method: dict[str, int] = {}
            for call in tg.calls[calls0:]:
                by_method[call.method] = by_method.get(call.method, 0) + 1
            print("calls by method:", dict(sorted(by_method.items(), key=lambda x: -x[1])))
            edits = [c for c in tg.calls[calls0:] if c.method == "editMessageText"]
            group_edits = sum(1 for c in edits if int(c.chat_id) < 0)
            print(
                f"edits per applied action: group {group_edits / max(applied, 1):.2f}, "
                f"hands {(len(edits) - group_edits) / max(applied, 1):.2f}"
            )
            print(
                f"bench process CPU {(time.process_time() - own0) / elapsed * 100:.0f}% of one core"
            )
            await bot.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--players", type=int, default=2, choices=range(2, 7), metavar="2-6")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--warmup", type=float, default=10.0, help="seconds of play before measuring"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(1.0, 4.0),
        metavar=("MIN", "MAX"),
        help="seconds a player thinks before each press, uniformly (default 1 4)",
    )
    args = parser.parse_args()
    asyncio.run(
        main(args.tables, args.players, args.seconds, args.warmup, args.seed, tuple(args.think))
    )
