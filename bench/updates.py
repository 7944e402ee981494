"""Benchmark of one getUpdates loop: how many updates a second one poller takes from the
fake Bot API server: PTB's ``get_updates`` alone, 100 at a time, and as the bot polls,
through its own ``UpdatesRequest``, which trims every batch, keeps it in the inbox (one
transaction a batch) before it asks for the next, and hands PTB the answer parsed once.

    .venv/bin/python bench/updates.py [--updates 20000] [--database URL|auto]

The updates are real button presses (callback queries carrying the hand message they were
pressed on, as Telegram sends them), queued in the fake server before the clock starts;
the loop runs in a process of its own and reports updates a second and its CPU per
update; the fake server's CPU is this process's. Without ``--database`` the inbox is a
SQLite file; with it, PostgreSQL (as in ``bench/load.py``). Telegram's own server answers
at most 100 updates a call: over a round trip of R seconds one loop takes at most 100/R a
second however fast it is. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fake_telegram import FakeTelegramServer, Limits  # noqa: E402
from loaddb import bench_database  # noqa: E402
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup  # noqa: E402

from bot.service.inbox import Inbox  # noqa: E402
from bot.store import open_store  # noqa: E402
from bot.transport.request import UpdatesRequest  # noqa: E402

HAND = (
    "Friends · Podkidnoy\n🃏 Trump A♦️ · 🂠 Stock 18 · Discard 0\n\n"
    "⚔️ Ann · 4 cards · attacking\n🛡 Bob (you) · 5 cards · defending\n\n"
    "On the table (1 of 5):\n7♠️ → ?\n\nRecent moves:\n• ⚔️ Ann leads 7♠️ against Bob\n\n"
    "You hold 5 cards.\n👉 Defend: tap a card to cover, or Take.\n⏱ Time runs out in 1:35"
)
"""A hand message as the bot draws one (README's transcript): what a press carries."""


async def poll(base_url: str, token: str, count: int, path: str, url: str) -> None:
    """The measured loop (in its own process): ``count`` updates, then one JSON line. With
    a database (``path`` or ``url``), every batch is kept in its inbox first."""
    request = UpdatesRequest(connection_pool_size=1)
    async with contextlib.AsyncExitStack() as stack:
        if path or url:
            store = await stack.enter_async_context(open_store(path or None, url=url))
            request.keep = Inbox(store).keep
        bot = await stack.enter_async_context(
            Bot(token, base_url=base_url, get_updates_request=request)
        )
        got, offset, calls = 0, 0, 0
        began, cpu = time.perf_counter(), time.process_time()
        while got < count:
            updates = await bot.get_updates(offset=offset, timeout=10, limit=100)
            calls += 1
            if updates:
                got += len(updates)
                offset = updates[-1].update_id + 1
        took, cpu = time.perf_counter() - began, time.process_time() - cpu
        await bot.get_updates(offset=offset, timeout=0)  # the last batch confirmed
        print(json.dumps({"updates": got, "calls": calls, "seconds": took, "cpu": cpu}))


async def main(count: int, database: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix="durak-updates-"))
    async with (
        bench_database(database, folder) as db,
        FakeTelegramServer(limits=Limits.off()) as tg,
    ):
        users = await tg.create_users(*(f"U{i}" for i in range(20)))
        for user in users:
            await tg.start_bot(user)
        keyboard = InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(f"·{c}·", callback_data=f"1t.4242.{i}.{c}")
                    for i, c in enumerate(("8S", "KS", "6H", "JH"))
                ],
                [InlineKeyboardButton("10♦️", callback_data="1t.4242.4.TD")],
                [InlineKeyboardButton("🫴 Take", callback_data="1q.4242.17")],
                [InlineKeyboardButton("🔄 Refresh", callback_data="1r.4242.17")],
            ]
        )
        async with Bot(tg.token, base_url=tg.base_url) as sender:
            hands = [await sender.send_message(u.id, HAND, reply_markup=keyboard) for u in users]
        tg.drop_pending_updates()
        for i in range(count):
            user = users[i % len(users)]
            message = tg.message(user.id, hands[i % len(users)].message_id)
            await tg.press(user, message, data="1t.4242.0.8S")
        size = sum(len(json.dumps(u, ensure_ascii=False)) for u in tg.updates[-100:]) / 100
        print(f"{count} button presses queued ({size:.0f} bytes of JSON each); inbox: " + db.about)
        for keep in ("bare", "inbox"):
            path = db.env.get("DURAK_DB_PATH", "") if keep == "inbox" else ""
            url = db.env.get("DURAK_DATABASE_URL", "") if keep == "inbox" else ""
            if keep == "inbox":
                # the same updates again, as new ones
                for update in list(tg.updates[-count:]):
                    kind = next(k for k in update if k != "update_id")
                    tg.world.queue.push(kind, update[kind])
            own = time.process_time()
            child = await asyncio.create_subprocess_exec(
                sys.executable,
                __file__,
                "--poll",
                tg.base_url,
                tg.token,
                str(count),
                path,
                url,
                stdout=asyncio.subprocess.PIPE,
            )
            out, _ = await child.communicate()
            server = time.process_time() - own
            result = json.loads(out.decode().strip().splitlines()[-1])
            rate = result["updates"] / result["seconds"]
            what = {
                "bare": "PTB's get_updates alone (the updates as Telegram sends them)",
                "inbox": "as the bot polls (each batch trimmed, kept in the inbox, parsed once)",
            }[keep]
            print(
                f"{what}: {rate:.0f} updates/s in {result['calls']} getUpdates; the loop's CPU "
                f"{result['cpu'] / result['updates'] * 1e6:.0f} µs an update, the fake "
                f"server's {server / result['updates'] * 1e6:.0f} µs"
            )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--poll":
        _, _, base, token, n, db_path, db_url = sys.argv
        asyncio.run(poll(base, token, int(n), db_path, db_url))
        raise SystemExit
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--updates", type=int, default=20_000)
    parser.add_argument(
        "--database",
        default="",
        metavar="URL",
        help="keep the batches in PostgreSQL: a server's URL or auto (as bench/load.py)",
    )
    args = parser.parse_args()
    asyncio.run(main(args.updates, args.database))
