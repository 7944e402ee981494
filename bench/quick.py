"""Quick games and private tables under load, at Telegram's limits.

Run by hand: ``.venv/bin/python bench/quick.py``. The real bot (``python -m bot``, default
settings) runs as its own process against the fake Bot API server, which runs here with
the simulated players and Telegram's limits (a private chat's one a second, a group's 20
a minute; an inline message's edits charged to its chat).

Two parts; each reports what players feel, measured from outside, and asserts nothing:

* ``--players N`` (200): N players, each of whom started the bot, send /quick at random
  moments over ``--spread`` seconds (60). For each pair dealt: the time from the second
  player's /quick to both players' hands drawn (the first message in each private chat
  with the table's buttons), p50/p95/p99/max; whether anyone was dealt two games (a
  player at two tables); and, once the spread is over and one more pass has run, who is
  still waiting (at most one, by the rule that a pass leaves no two waiting who may play).
* ``--tables T`` (25) private tables of four, opened by invitations posted in groups the
  bot is not in (each joined by three friends), played by people who think ``--think``
  seconds (1-4) and tap a card that plays. Per applied move: press -> every other player's
  hand shows it (his private chat's message carries the new state), p50/p95/p99/max;
  moves a second; the bot's CPU per move; 429s drawn. A hand left with no button (its
  player is out, or the game over) carries no state to compare: such arrivals are counted
  as "never shown".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from e2e.harness import Data, kind_of  # noqa: E402
from fake_telegram import FakeTelegramServer, FakeUser, Limits  # noqa: E402
from fake_telegram.models import LEFT  # noqa: E402
from fleet import Fleet  # noqa: E402
from load import Arrivals, percentiles, sensible  # noqa: E402

from engine import Game  # noqa: E402


def table_buttons(params: dict[str, object]) -> set[int]:
    """The tables whose hand buttons (the reaction row) a sent message carries."""
    markup = params.get("reply_markup")
    if isinstance(markup, str):
        markup = json.loads(markup)
    found: set[int] = set()
    if isinstance(markup, dict):
        for row in markup.get("inline_keyboard", []):
            for button in row:
                data = button.get("callback_data") or ""
                if kind_of(data) == "E":
                    found.add(int(data.split(".")[1], 36))
    return found


async def quick_part(tg: FakeTelegramServer, fleet: Fleet, players: int, spread: float) -> None:
    rng = random.Random(7)
    people = [await tg.create_user(f"Q{i}") for i in range(players)]
    for user in people:
        await tg.start_bot(user)
    await tg.settle(quiet=0.5, timeout=120)
    asked: dict[int, float] = {}
    start = tg.world.elapsed()  # the clock of ApiCall.time

    async def one(user: FakeUser) -> None:
        await asyncio.sleep(rng.uniform(0, spread))
        asked[user.id] = tg.world.elapsed()
        await tg.send_command(user, tg.private_chat(user), "quick")

    await asyncio.gather(*(one(u) for u in people))
    await asyncio.sleep(5.0)  # the last ones paired, a pass or two more
    await tg.settle(quiet=1.0, timeout=60)
    drawn: dict[int, dict[int, float]] = {}  # table -> user -> first hand drawn
    for call in tg.calls:
        if call.method != "sendMessage" or not call.applied or call.time < start:
            continue
        chat = int(call.params.get("chat_id", 0))
        for table in table_buttons(call.params):
            seen = drawn.setdefault(table, {})
            if chat not in seen and call.ended is not None:
                seen[chat] = call.ended
    waits = []
    twice = [u for u in asked if sum(u in seen for seen in drawn.values()) > 1]
    for seen in drawn.values():
        if len(seen) != 2:
            continue
        second = max(asked[u] for u in seen)
        waits.append(max(seen.values()) - second)
    dealt = {u for seen in drawn.values() for u in seen}
    alone = [u for u in asked if u not in dealt]
    print(f"quick games: {players} players sent /quick over {spread:.0f} s")
    print(f"  pairs dealt: {len(drawn)}; players dealt two games at once: {len(twice)}")
    print(f"  second /quick -> both hands drawn: {percentiles(waits)}")
    print(f"  still waiting at the end: {len(alone)} (at most one may be)")
    print(f"  429s so far: {len(tg.rate_limited)}; bot CPU so far {fleet.members[0].cpu():.1f} s")


async def private_part(
    tg: FakeTelegramServer, fleet: Fleet, tables: int, seconds: float, think: tuple[float, float]
) -> None:
    rng = random.Random(11)
    seats: dict[int, list[FakeUser]] = {}
    for t in range(tables):
        people = [await tg.create_user(f"P{t}x{i}") for i in range(4)]
        for user in people:
            await tg.start_bot(user)
        group = await tg.create_group(f"F{t}", members=people, creator=people[0], bot_status=LEFT)
        results = await tg.inline_query(people[0], group, "")
        invite = await tg.choose_inline_result(people[0], group, results, "podkidnoy-4")
        for user in people[1:]:
            press = await tg.press(user, invite, "Join")
            await press.answer(timeout=30)
        seats[t] = people
    await tg.settle(quiet=1.0, timeout=120)
    chats_of = {u.id: t for t, people in seats.items() for u in people}
    table_of: dict[int, int] = {}
    for call in tg.calls:
        if call.method == "sendMessage" and call.applied:
            chat = int(call.params.get("chat_id", 0))
            for table in table_buttons(call.params):
                if chat in chats_of:
                    table_of[chats_of[chat]] = table
    print(f"private tables: {len(table_of)} of {tables} dealt, four players each")
    stop = tg.world.clock() + seconds
    cpu0 = fleet.members[0].cpu()
    calls0 = len(tg.calls)
    moves: list[tuple[float, int, int, list[int]]] = []  # time, table, version, others

    def hand(user: FakeUser, table: int) -> tuple[object, list[str]] | None:
        for message in reversed(tg.bot_messages(tg.private_chat(user))):
            data = [b.callback_data for r in message.buttons for b in r if b.callback_data]
            if any(kind_of(d) == "E" and Data.parse(d).table == table for d in data):
                return message, data
        return None

    async def player(user: FakeUser, table: int, seat: int) -> None:
        while tg.world.clock() < stop:
            await asyncio.sleep(rng.uniform(*think))
            found = hand(user, table)
            if found is None:
                continue
            message, data = found
            versions = {Data.parse(d).version for d in data if kind_of(d) in "texpcinrhzduq"}
            if not versions:
                continue
            version = max(versions)
            game = await asyncio.to_thread(_stored_game, fleet, table)
            if game is None or game.result is not None:
                return
            choices = sensible(data, game, seat)
            if not choices:
                continue
            try:
                press = await tg.press(user, message, data=rng.choice(choices))
                at = tg.world.elapsed()
                answer = await press.answer(timeout=30)
            except (LookupError, ValueError, TimeoutError):
                continue
            if answer.text is None:
                others = [u.id for u in seats[chats_of[user.id]] if u.id != user.id]
                moves.append((at, table, version, others))

    await asyncio.gather(
        *(
            player(user, table_of[t], seat)
            for t, people in seats.items()
            if t in table_of
            for seat, user in enumerate(people)
        )
    )
    await tg.settle(quiet=1.0, timeout=60)
    arrivals = Arrivals(tg.calls[calls0:])
    delays = []
    missing = 0
    for at, _table, version, others in moves:
        for other in others:
            seen = arrivals.hand(other, at, version)
            if seen is None:
                missing += 1
            else:
                delays.append(seen)
    cpu = fleet.members[0].cpu() - cpu0
    print(f"  applied moves: {len(moves)} in {seconds:.0f} s ({len(moves) / seconds:.1f}/s)")
    print(f"  press -> every other player's hand: {percentiles(delays)}; never shown {missing}")
    print(f"  bot CPU per move: {cpu / max(1, len(moves)) * 1000:.2f} ms")
    print(f"  429s: {len(tg.rate_limited)}")


_DB: dict[str, Path] = {}


def _stored_game(fleet: Fleet, table: int) -> Game | None:
    import sqlite3

    db = sqlite3.connect(_DB["path"], timeout=10)
    try:
        row = db.execute("SELECT game FROM tables WHERE table_id = ?", (table,)).fetchone()
    finally:
        db.close()
    return Game.from_json(row[0]) if row and row[0] else None


async def main(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="durak-quick-"))
    _DB["path"] = folder / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.telegram()) as tg:
        env = {
            "BOT_TOKEN": tg.token,
            "DURAK_DB_PATH": str(_DB["path"]),
            "DURAK_LOG_LEVEL": "WARNING",
            "DURAK_COACH_WORKERS": "0",
        }
        async with Fleet(tg, env, folder, 1) as fleet:
            if args.players:
                await quick_part(tg, fleet, args.players, args.spread)
            if args.tables:
                await private_part(tg, fleet, args.tables, args.seconds, tuple(args.think))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--spread", type=float, default=60.0)
    parser.add_argument("--tables", type=int, default=25)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, nargs=2, default=(1.0, 4.0))
    started = time.monotonic()
    asyncio.run(main(parser.parse_args()))
    print(f"({time.monotonic() - started:.0f} s in all)")
