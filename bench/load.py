"""Load benchmark: many concurrent tables of simulated players at Telegram's limits.

Run by hand: ``.venv/bin/python bench/load.py --tables 500 --seconds 60``. The real bot,
``python -m bot`` with its default settings, runs as its own process against the fake Bot
API server, which runs in this process with the simulated players and enforces Telegram's
limits (per chat: a private chat's bucket of one a second, a group's 20 in any minute;
``--limits off`` lifts them). ``--faults RATE`` makes RATE of the requests time out and
RATE/2 answer 502 (a timed-out request was carried out or not, at even odds).

What it measures, per applied move (a press that changed the table's state):

* press -> callback answer (the spinner on the button stops);
* press -> the next player to act sees the new state in his hand (what players feel);
* press -> the presser's own hand shows it;
* press -> the group's table shows it;

each as p50 / p95 / p99 / max; moves a second; Bot API calls per move by method; 429s
drawn; and, once play stops and the bot has had time to catch up, how many hands and
tables do not show their table's current state. ``--flood`` forces one 429 (retry after
5 s) on one group halfway through and reports how the presses at the other tables fared
during those 5 s. The simulated players act like people: when the game lets him act and
his hand shows the current state, a player thinks (``--think``, by default 1-4 s) and
taps a card that plays, or a move. The first ``--warmup`` seconds (10) are not measured.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import gc
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from e2e.harness import CHOICE_KINDS, Data, action_cards, hand_versions, kind_of  # noqa: E402
from fake_telegram import ApiCall, FakeTelegramServer, Faults, Limits  # noqa: E402
from ship.process import BotProcess  # noqa: E402

from bot.render import Player  # noqa: E402
from bot.render.table import bout_lines, seat_lines, trump_line  # noqa: E402
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


def shown_versions(params: dict[str, object]) -> set[int]:
    """The state versions the buttons of a sent or edited hand carry."""
    markup = params.get("reply_markup")
    if isinstance(markup, str):
        markup = json.loads(markup)
    found: set[int] = set()
    if isinstance(markup, dict):
        for row in markup.get("inline_keyboard", []):
            for button in row:
                data = button.get("callback_data")
                if data:
                    with contextlib.suppress(IndexError, ValueError):
                        found.add(Data.parse(data).version)
    return found


def fingerprint(game: Game, names: list[str]) -> tuple[str, ...]:
    """Lines of the group's table that change with every move: the trump line (stock and
    discard), every seat's line (cards, role) and the cards on the table."""
    view = game.public_view()
    players = [Player(name) for name in names]
    return (trump_line(view, "en"), *seat_lines(view, players, "en"), *bout_lines(view, "en"))


def percentiles(values: list[float]) -> str:
    if not values:
        return "n/a"
    values = sorted(values)

    def at(q: float) -> float:
        return values[min(len(values) - 1, int(len(values) * q))] * 1000

    return (
        f"p50 {at(0.5):.0f} ms, p95 {at(0.95):.0f} ms, p99 {at(0.99):.0f} ms, "
        f"max {values[-1] * 1000:.0f} ms"
    )


@dataclass
class Move:
    """One press that moved its table on, and what the bench saw of it."""

    time: float
    table: int
    version: int
    presser: int
    next_actor: int
    group: int
    lines: tuple[str, ...]
    answered: float


class Arrivals:
    """When each chat showed what: read off the fake server's record of calls."""

    def __init__(self, calls: list[ApiCall]) -> None:
        self.hands: dict[int, list[tuple[float, int]]] = {}
        self.groups: dict[int, list[tuple[float, str]]] = {}
        for call in calls:
            if call.method not in ("sendMessage", "editMessageText") or not call.applied:
                continue
            chat = int(call.params.get("chat_id", 0))
            if chat > 0:
                versions = shown_versions(call.params)
                if versions:
                    self.hands.setdefault(chat, []).append((call.time, max(versions)))
            else:
                text = str(call.params.get("text", ""))
                self.groups.setdefault(chat, []).append((call.time, text))
        self._hand_times = {c: [t for t, _ in v] for c, v in self.hands.items()}
        self._group_times = {c: [t for t, _ in v] for c, v in self.groups.items()}

    def hand(self, chat: int, after: float, version: int) -> float | None:
        """When the chat first showed a state newer than ``version`` after ``after``."""
        shown = self.hands.get(chat, [])
        for i in range(bisect.bisect_left(self._hand_times.get(chat, []), after), len(shown)):
            if shown[i][1] > version:
                return shown[i][0] - after
        return None

    def group(self, chat: int, after: float, lines: tuple[str, ...]) -> float | None:
        """When the group first showed text holding every one of ``lines``."""
        shown = self.groups.get(chat, [])
        for i in range(bisect.bisect_left(self._group_times.get(chat, []), after), len(shown)):
            text = shown[i][1]
            if all(line in text for line in lines):
                return shown[i][0] - after
        return None


async def main(
    tables: int,
    players: int,
    seconds: float,
    warmup: float,
    seed: int,
    think: tuple[float, float],
    limits: str,
    faults: float,
    flood: bool,
) -> None:
    rng = random.Random(seed)
    db = Path(tempfile.mkdtemp(prefix="durak-load-")) / "load.sqlite3"
    fake_limits = Limits.telegram() if limits == "telegram" else Limits.off()
    async with FakeTelegramServer(limits=fake_limits) as tg:
        env = {
            "BOT_TOKEN": tg.token,
            "DURAK_BASE_URL": tg.base_url,
            "DURAK_DB_PATH": str(db),
            "DURAK_LOG_LEVEL": "WARNING",
            "DURAK_DEFAULT_LANGUAGE": "en",
        }
        print(
            f"fake server: {limits} limits, faults {faults:.2%} timeouts + {faults / 2:.2%} 502s;"
            f" the bot with its default settings"
        )
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
                await tg.wait_for_message(g, lambda m: bool(buttons(m)), timeout=120)
                for g, _ in groups
            ]
            # tables are numbered as the bot opened them, not as asked
            table_ids = [Data.parse(buttons(lobby)[0]).table for lobby in lobbies]

            async def join(people: list[object], lobby: object) -> None:
                for seat, user in enumerate(people[1:], 2):
                    data = next(d for d in buttons(lobby) if d[1:].startswith("j."))
                    await (await tg.press(user, lobby, data=data)).answer(timeout=120)  # type: ignore[arg-type]
                    await tg.wait_for(
                        lambda seat=seat: f"{seat}/6" in lobby.plain_text,  # type: ignore[attr-defined]
                        timeout=120,
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
            if faults > 0:
                tg.set_faults(Faults(timeout=faults, error=faults / 2, seed=seed))

            def moves() -> int:
                con = sqlite3.connect(db)
                try:
                    return int(con.execute("SELECT count(*) FROM actions").fetchone()[0])
                finally:
                    con.close()

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
            made: list[Move] = []
            texts: dict[str | None, int] = {}
            stop = time.monotonic() + warmup + seconds
            names = {
                table: [u.first_name for u in people]
                for table, (_, people) in zip(table_ids, groups, strict=True)
            }  # type: ignore[attr-defined]

            async def player(
                user: object, group: object, people: list[object], table: int, seat: int
            ) -> None:
                # people do not all sit down in the same instant
                await asyncio.sleep(rng.uniform(0, think[1]))
                while time.monotonic() < stop:
                    hand = tg.last_message(tg.private_chat(user))  # type: ignore[arg-type]
                    shown = buttons(hand)
                    data: list[str] = []
                    version, game = 0, None
                    if shown:
                        seen = Data.parse(shown[0]).version
                        version, game = stored_game(table)
                        if game is not None and version == seen and seat in game.to_act():
                            data = sensible(shown, game, seat)
                    if not data:
                        await asyncio.sleep(0.2)  # not his move, or the hand is catching up
                        continue
                    began = tg.world.elapsed()
                    press = await tg.press(user, hand, data=rng.choice(data))  # type: ignore[arg-type]
                    ans = await press.answer(timeout=30)
                    answered = tg.world.elapsed() - began
                    after, moved = stored_game(table)
                    if measuring and after > version and moved is not None:
                        texts[ans.text] = texts.get(ans.text, 0) + 1
                        waiting = [s for s in moved.waiting_on() or moved.to_act() if s != seat]
                        nxt = waiting[0] if waiting else seat
                        made.append(
                            Move(
                                began,
                                table,
                                version,
                                people[seat].id,  # type: ignore[attr-defined]
                                people[nxt].id,  # type: ignore[attr-defined]
                                group.id,  # type: ignore[attr-defined]
                                fingerprint(moved, names[table]),
                                answered,
                            )
                        )
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
                if flood:
                    await asyncio.sleep(seconds / 2)
                    marks["flood"] = tg.world.elapsed()
                    tg.force_429(1, retry_after=5, chat=groups[0][0])

            await asyncio.gather(
                measure(),
                ticker(),
                *(
                    player(u, group, people, table, seat)
                    for table, (group, people) in zip(table_ids, groups, strict=True)
                    for seat, u in enumerate(people)
                ),
            )
            elapsed = time.monotonic() - marks["began"]
            gc.enable()
            moves0, calls0 = int(marks["moves"]), int(marks["calls"])
            cpu0, own0 = marks["cpu"], marks["own"]
            cpu = cpu_seconds(pid) - cpu0
            applied = moves() - moves0
            measured = tg.calls[calls0:]
            calls = sum(1 for c in measured if c.method != "getUpdates")
            print(f"applied moves {applied} in {elapsed:.0f} s: {applied / elapsed:.1f} moves/s")
            print(
                f"bot CPU {cpu / max(applied, 1) * 1000:.1f} ms per move "
                f"({cpu / elapsed * 100:.0f}% of one core)"
            )
            # the bot catches up, then every hand and table must show its current state
            tg.set_faults(None)
            await asyncio.sleep(15.0)
            arrivals = Arrivals(tg.calls)
            lost = {"next actor": 0, "own hand": 0, "group": 0}
            felt: dict[str, list[float]] = {"next actor": [], "own hand": [], "group": []}
            answers = [m.answered for m in made]
            later: dict[int, list[Move]] = {}
            for m in made:
                later.setdefault(m.table, []).append(m)

            def group_shows(m: Move) -> float | None:
                """When the group first showed this move's state or a later one (edits
                of a busy table merge several moves into one)."""
                found = [
                    got + (n.time - m.time)
                    for n in later[m.table]
                    if n.time >= m.time
                    for got in [arrivals.group(n.group, n.time, n.lines)]
                    if got is not None
                ]
                return min(found) if found else None

            for m in made:
                for what, got in (
                    ("next actor", arrivals.hand(m.next_actor, m.time, m.version)),
                    ("own hand", arrivals.hand(m.presser, m.time, m.version)),
                    ("group", group_shows(m)),
                ):
                    if got is None:
                        lost[what] += 1
                    else:
                        felt[what].append(got)
            print(f"measured moves {len(made)}; from the press until")
            print(f"  the callback answer:           {percentiles(answers)}")
            print(f"  the next actor's hand shows it: {percentiles(felt['next actor'])}")
            print(f"  the presser's own hand:        {percentiles(felt['own hand'])}")
            print(f"  the group's table:             {percentiles(felt['group'])}")
            print(f"  never seen: {lost}")
            if flood:
                at = marks["flood"]
                during = [
                    got
                    for m in made
                    if m.group != groups[0][0].id and at <= m.time <= at + 5
                    for got in [arrivals.hand(m.next_actor, m.time, m.version)]
                    if got is not None
                ]
                others = [
                    got
                    for m in made
                    if m.group != groups[0][0].id and not at - 1 <= m.time <= at + 6
                    for got in [arrivals.hand(m.next_actor, m.time, m.version)]
                    if got is not None
                ]
                print(
                    "a forced 429 (retry after 5 s) in one group: the next actor's hand at the "
                    f"other tables during those 5 s {percentiles(during)}; otherwise "
                    f"{percentiles(others)}"
                )
            print(
                f"Bot API calls per move {calls / max(applied, 1):.2f} "
                f"(answers {sum(1 for c in measured if c.method == 'answerCallbackQuery')})"
            )
            by_method: dict[str, int] = {}
            for call in measured:
                if call.method != "getUpdates":
                    by_method[call.method] = by_method.get(call.method, 0) + 1
            print(
                "  by method, per move:",
                {
                    k: round(v / max(applied, 1), 2)
                    for k, v in sorted(by_method.items(), key=lambda x: -x[1])
                },
            )
            print(f"429s drawn: {len(tg.rate_limited)}; faults served: {len(tg.faulted)}")
            lags.sort()
            if lags:
                print(
                    f"simulator's event-loop lag p50 {statistics.median(lags) * 1000:.1f} ms, "
                    f"p99 {lags[int(len(lags) * 0.99)] * 1000:.1f} ms, max {lags[-1] * 1000:.1f} ms"
                )
            print(f"bot memory per table {per_table / 1024:.0f} KB")
            print("answers:", texts)
            stale_hands = stale_tables = 0
            for table, (group, people) in zip(table_ids, groups, strict=True):
                version, game = stored_game(table)
                if game is None:
                    continue  # finished: its end is another message
                row = con.execute(
                    "SELECT group_message_id FROM tables WHERE table_id = ?", (table,)
                ).fetchone()
                message = tg.message(group, row[0]) if row and row[0] else None
                lines = fingerprint(game, names[table])
                if message is None or not all(line in (message.text or "") for line in lines):
                    stale_tables += 1
                for seat, user in enumerate(people):
                    if seat in game.public_view().finish_order:
                        continue
                    if hand_versions(tg.last_message(tg.private_chat(user))) != {version}:  # type: ignore[arg-type]
                        stale_hands += 1
            print(f"after play stopped: {stale_hands} hands and {stale_tables} tables not current")
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
    parser.add_argument(
        "--limits",
        choices=("telegram", "off"),
        default="telegram",
        help="the fake server's flood limits (default: Telegram's)",
    )
    parser.add_argument(
        "--faults",
        type=float,
        default=0.0,
        metavar="RATE",
        help="RATE of requests time out and RATE/2 answer 502 (e.g. 0.01)",
    )
    parser.add_argument(
        "--flood", action="store_true", help="force a 429 (retry after 5 s) in one group"
    )
    args = parser.parse_args()
    asyncio.run(
        main(
            args.tables,
            args.players,
            args.seconds,
            args.warmup,
            args.seed,
            tuple(args.think),
            args.limits,
            args.faults,
            args.flood,
        )
    )
