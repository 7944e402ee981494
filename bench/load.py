"""Load benchmark: many concurrent tables of simulated players through the fake server.

Run by hand: ``.venv/bin/python bench/load.py --tables 500 --seconds 60``. The real bot
Application and the fake Bot API server share this process and its event loop (so the
figures include the server's own work). Prints: applied actions per second; latency from
a press (the update queued at the server) to its callback answer, p50/p99; Bot API calls
per applied action (long polling's getUpdates not counted); and memory per table.
Targets: 500 tables, p99 <= 100 ms, <= 3 calls per action, <= 100 KB per table. The
simulated players act like people: each looks at his hand once it shows the current state,
thinks 0.5-1.5 s, and taps a card or a move (never Refresh). Memory is given twice: the
whole process (bot and fake server) and the bot's own share (tracemalloc, by the file
that allocated). Asserts nothing.
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
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fake_telegram import FakeTelegramServer, Limits, running  # noqa: E402
from telegram.ext import AIORateLimiter  # noqa: E402

from bot.app import build_application  # noqa: E402
from bot.config import Settings  # noqa: E402


def rss_bytes() -> int:
    """Resident memory of this process."""
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def buttons(message: object) -> list[str]:
    if message is None:
        return []
    return [b.callback_data for row in message.buttons for b in row if b.callback_data]  # type: ignore[attr-defined]


PLAYS = set("tcqnrhpzdi")
"""Hand button kinds a player taps to play: cards, covers, take, pass, transfer, show,
play a selection, the two swaps, throw (not refresh, cancel or selection toggles)."""


def version_of(data: str) -> int:
    """The state version a hand button was drawn for (``1<kind>.<table>.<version>…``)."""
    return int(data.split(".")[2], 36)


BOT_FILES = (str(ROOT / "bot"), str(ROOT / "engine"), "site-packages/telegram")


async def main(tables: int, seconds: float, seed: int) -> None:
    rng = random.Random(seed)
    db = Path(tempfile.mkdtemp(prefix="durak-load-")) / "load.sqlite3"
    async with FakeTelegramServer(limits=Limits.off()) as tg:
        settings = Settings(
            bot_token=tg.token,
            DURAK_DB_PATH=db,  # type: ignore[call-arg]
            group_edit_interval=3.0,
            private_edit_interval=1.0,
        )
        limiter = AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3)
        app = build_application(settings, tg.application_builder(), limiter)
        async with running(app, poll_timeout=0.5):
            gc.collect()
            base = rss_bytes()
            tracemalloc.start()
            groups = []
            for t in range(tables):
                a = await tg.create_user(f"A{t}")
                b = await tg.create_user(f"B{t}")
                await tg.start_bot(a)
                await tg.start_bot(b)
                group = await tg.create_group(f"G{t}", members=[a, b], creator=a)
                await tg.send_command(a, group, "newgame")
                groups.append((group, a, b))
            lobbies = [
                await tg.wait_for_message(g, lambda m: bool(buttons(m)), timeout=60)
                for g, _, _ in groups
            ]
            for (_, _, b), lobby in zip(groups, lobbies, strict=True):
                join = next(d for d in buttons(lobby) if d[1:].startswith("j."))
                await (await tg.press(b, lobby, data=join)).answer(timeout=60)
            for (_, a, _), lobby in zip(groups, lobbies, strict=True):
                await tg.wait_for(lambda lobby=lobby: "2/6" in lobby.plain_text, timeout=60)
                start = next(d for d in buttons(lobby) if d[1:].startswith("s."))
                await (await tg.press(a, lobby, data=start)).answer(timeout=60)
            users = [u for _, a, b in groups for u in (a, b)]
            await tg.wait_for(
                lambda: all(buttons(tg.last_message(tg.private_chat(u))) for u in users),
                timeout=300,
            )
            gc.collect()
            per_table = (rss_bytes() - base) / tables
            traced = tracemalloc.take_snapshot().statistics("filename")
            tracemalloc.stop()
            bot_bytes = sum(
                stat.size
                for stat in traced
                if any(part in stat.traceback[0].filename for part in BOT_FILES)
            )
            bot_per_table = bot_bytes / tables
            print(f"{tables} tables seated and dealt")

            def moves() -> int:
                con = sqlite3.connect(db)
                try:
                    return int(con.execute("SELECT count(*) FROM actions").fetchone()[0])
                finally:
                    con.close()

            latencies: list[float] = []
            con = sqlite3.connect(db)

            def current(table_data: str) -> bool:
                table = int(table_data.split(".")[1], 36)
                row = con.execute("SELECT version FROM tables WHERE table_id = ?", (table,))
                return version_of(table_data) == row.fetchone()[0]

            moves0 = moves()
            calls0 = len(tg.calls)
            stop = time.monotonic() + seconds

            async def player(user: object) -> None:
                while time.monotonic() < stop:
                    hand = tg.last_message(tg.private_chat(user))  # type: ignore[arg-type]
                    data = [d for d in buttons(hand) if d[1] in PLAYS]
                    if not data or not current(data[0]):
                        await asyncio.sleep(0.2)  # nothing to do, or the hand is catching up
                        continue
                    began = time.perf_counter()
                    press = await tg.press(user, hand, data=rng.choice(data))  # type: ignore[arg-type]
                    await press.answer(timeout=30)
                    latencies.append(time.perf_counter() - began)
                    await asyncio.sleep(rng.uniform(0.5, 1.5))  # a person thinks

            began = time.monotonic()
            await asyncio.gather(*(player(u) for u in users))
            elapsed = time.monotonic() - began
            await asyncio.sleep(2.0)
            applied = moves() - moves0
            calls = sum(1 for c in tg.calls[calls0:] if c.method != "getUpdates")
            latencies.sort()
            p50 = statistics.median(latencies) * 1000
            p99 = latencies[int(len(latencies) * 0.99)] * 1000
            print(f"presses {len(latencies)}, applied actions {applied} in {elapsed:.0f} s")
            print(f"actions/s {applied / elapsed:.1f}")
            print(
                f"press-to-answer latency p50 {p50:.1f} ms, p99 {p99:.1f} ms  [target p99 <= 100]"
            )
            print(f"Bot API calls per applied action {calls / max(applied, 1):.2f}  [target <= 3]")
            print(
                f"memory per table: bot {bot_per_table / 1024:.0f} KB  [target <= 100]; "
                f"whole process with the fake server {per_table / 1024:.0f} KB"
            )
            print(f"429s drawn: {len(tg.rate_limited)}")
            by_method: dict[str, int] = {}
            for call in tg.calls[calls0:]:
                by_method[call.method] = by_method.get(call.method, 0) + 1
            print("calls by method:", dict(sorted(by_method.items(), key=lambda x: -x[1])))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(main(args.tables, args.seconds, args.seed))
