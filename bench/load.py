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

``--reviews N`` measures what the coach's analyses cost the games: before the bot starts,
N finished 2-player podkidnoy games against the computer, one for each of N extra users,
are written with the bot's own store (each replayed with ``load_replay`` first). The
measured time is split into two equal windows; at the start of the second the N users
send /replay in their private chats, which queues N reviews in the bot's coach workers.
For each window it reports press -> next actor's hand and press -> callback answer
p50/p95/p99/max, moves a second, and the CPU of the bot, of the processes under it (the
workers) and of the machine; then the ratio of the p99s, how many reviews were made and
shown within the second window, and /replay -> review shown p50/max (a warning if reviews
were still running when it ended: give more ``--seconds``). Target, run as
``--tables 200 --seconds 120 --reviews 10``: the p99 of press -> next actor rises by no
more than 20% while the ten reviews run.

``--database URL`` runs the bot on PostgreSQL (``DURAK_DATABASE_URL``) in a database made
for the run and dropped after it; ``--database auto`` uses ``$DURAK_TEST_DATABASE_URL``'s
server or starts a throwaway one with production's durability (``bench/loaddb.py``). It
then also reports what PostgreSQL spent per move: its processes' CPU, statements (with
``pg_stat_statements``), transactions, rows and write-ahead log; and, with either store,
the bytes a stored move and a finished game take. ``--processes N`` starts the same bot
command N times with the same settings (PostgreSQL only), each through its own address of
the fake server, so that the server tells their calls apart (``bench/fleet.py``); it
reports each process's CPU and calls. The figures stay what players feel, measured from
outside. Halfway through the measured time, ``--kill poller`` sends SIGKILL to the process
that polls, ``--kill owner`` to the one (not the poller, if there are others) that drew
the most tables: it reports the seconds until another process polls (the fake server's
first getUpdates after the kill), and from the kill to the first answered press and the
first stored move of each of the killed process's tables (p50/max), with the other
tables' press -> next actor's hand in the 10 s after it. With one process, the killed one
is started again at once, as a supervisor would. ``--term`` restarts every process in
turn a third of the way through (SIGTERM, wait for its exit, start it again, wait for its
getMe, on to the next), and reports the longest pause any table saw meanwhile.

``--in-group`` plays every hand inside the group (Bot API 10.2's ephemeral messages): no
player starts the bot in private; each joins the lobby with Join in the group, and once
the game has started presses "My cards" once on the group's table message, then plays by
pressing the buttons of his latest in-group hand (``tg.last_ephemeral``). A player whose
in-group hand is gone, or has not shown the table's current state for
:data:`MY_CARDS_AGAIN` seconds (``--my-cards-again``; 0: never), presses "My cards" again
(counted and reported). "Press ->
the next actor's hand" is then measured on the next actor's in-group hand: the first
successful ephemeral send or edit to him whose buttons carry a newer state. Converged
hands are read off ``tg.last_ephemeral``. ``--ephemeral-limits own|group`` sets the fake
server's ``Limits(ephemeral=...)``: each (group, player) pair has a private chat's budget
(own, the default), or the ephemeral calls share the group's 20 a minute (group).
``--compare-hands`` runs two phases with the same tables, seconds and seed, each with
its own fake server and bot process: private hands, then in-group hands; and prints their
CPU per move, latencies, calls and 429s side by side at the end.

``--computer-tables N`` adds N tables where one simulated human plays against three
computer players (``--computer-level``, hard by default) in his private chat, set up as a
person does it: /play, three opponents and the level on the setup, Play; he plays at the
same pace as the others and presses Play again when a game ends. The human tables'
figures stay theirs; the computer tables get their own: their moves a second, each
computer move's wait as the bot saw it (from the move before it, or the game's start, to
its own, less the bot's pause before a computer moves), and their human's press -> callback
answer and -> his table. ``--compare-computers`` runs the human tables without, then with
the computer tables, each phase in a process of its own with the same tables, seconds and
seed, and prints the human tables' latencies, CPU per move and 429s side by side, with the
ratio of their p99s (target: at most 1); ``--rounds N`` alternates N such pairs and pools
them. Every run reports how long the bot waited for a CPU (runnable but not running).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import dataclasses
import gc
import itertools
import json
import math
import os
import random
import re
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
from fleet import Fleet, Member  # noqa: E402
from loaddb import BenchDatabase, Costs, bench_database  # noqa: E402

from bot.base.config import Settings  # noqa: E402
from bot.render import Player  # noqa: E402
from bot.render.table import bout_lines, seat_lines, trump_line  # noqa: E402
from bot.service.replay import load_replay  # noqa: E402
from bot.store import SHARDS, Outcome, Seat, UserRow, open_store  # noqa: E402
from engine import Game, Rules  # noqa: E402
from engine.actions import Pass, Take, Timeout  # noqa: E402
from engine.ai import make_player, think_floor  # noqa: E402

REVIEWED = ("costly move", "no clear mistake")
"""What the replay message says once the coach's review is in (English)."""


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def waited_seconds(pid: int) -> float:
    """Seconds the threads of a process have spent runnable but waiting for a CPU (the
    kernel's run queue, ``/proc/PID/task/*/schedstat``): how much a busy machine delayed
    it. Live threads only; 0 where the kernel keeps no such figures."""
    total = 0
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with (
                contextlib.suppress(OSError, IndexError, ValueError),
                open(f"/proc/{pid}/task/{task}/schedstat") as f,
            ):
                total += int(f.read().split()[1])
    return total / 1e9


def rss_bytes(pid: int) -> int:
    """Resident memory of a process."""
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def tree_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of every live descendant of a process (its coach's workers), by pid,
    found by scanning the parent ids in /proc/*/stat."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    found: dict[int, float] = {}
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        with contextlib.suppress(OSError, IndexError, ValueError):
            found[child] = cpu_seconds(child)
            todo.extend(children.get(child, []))
    return found


def reaped_cpu(pid: int) -> float:
    """CPU seconds of a process's children that ended and were waited for."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float, float]:
    """The machine's busy, niced and total CPU seconds so far (all cores, /proc/stat)."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    idle = ticks[3] + ticks[4]
    total = sum(ticks[:8])
    tick = os.sysconf("SC_CLK_TCK")
    return (total - idle) / tick, ticks[1] / tick, total / tick


async def seed_finished_games(db: BenchDatabase, users: list[object], seed: int) -> list[int]:
    """One finished 2-player podkidnoy game against the computer for each user, written
    with the bot's own store as the bot writes a game in his private chat: the user at seat
    0 (played by an ``easy`` computer player), a ``normal`` one at seat 1. Each game is
    replayed with :func:`bot.service.replay.load_replay` before the bot starts; returns the
    tables."""
    rules = Rules.preset("podkidnoy").model_copy(update={"turn_timeout": 0})
    rng = random.Random(seed ^ 0x5EED)
    tables = []
    path, url = db.env.get("DURAK_DB_PATH"), db.env.get("DURAK_DATABASE_URL", "")
    async with open_store(path, url=url) as store:
        for user in users:
            uid, name = user.id, user.first_name  # type: ignore[attr-defined]
            await store.save_user(UserRow(uid, name, "en", True))
            seats = (Seat.human(uid, name), Seat.computer("Computer 1", "normal"))
            table = await store.create_table(
                uid, rules=rules.model_dump_json(), creator_id=uid, seats=seats
            )
            game_seed = rng.randrange(2**62)
            game = Game.new(rules, players=2, seed=game_seed, previous=None)
            row = await store.start_game(
                table.table_id, table.version, seed=game_seed, game=game.to_json()
            )
            version = row.version
            players = [make_player("easy"), make_player("normal")]
            order = random.Random(game_seed ^ 0x0DDBA11)
            while game.result is None:
                if game.moves >= 5_000:
                    raise RuntimeError(f"game {game_seed} did not end")
                acting = game.to_act()
                at = acting[0] if len(acting) == 1 else order.choice(acting)
                view = game.view(at)
                legal = [a for a in view.actions if type(a) is not Timeout] or list(view.actions)
                action = (
                    legal[0] if len(legal) == 1 else players[at].choose(view, rules, seed=game_seed)
                )
                game.apply(action)
                saved = await store.save_action(
                    table.table_id,
                    version,
                    game=game.to_json(),
                    action=json.dumps(action.to_dict(), separators=(",", ":")),
                    seat=action.seat,
                    outcome=Outcome.from_result(game.result) if game.result is not None else None,
                )
                version = saved.version
            replay = await load_replay(store, table.table_id, 1)  # ReplayError if not exact
            assert replay.seat_of(uid) == 0 and replay.total == game.moves
            tables.append(table.table_id)
    return tables


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


COMPUTER_LEVELS = ("easy", "normal", "hard")
"""The computer players' levels, in the order the setup's buttons number them."""

COMPUTER_OPPONENTS = 3
"""Computer players at a computer table, beside its one human: four seats."""


async def open_computer_table(tg: FakeTelegramServer, name: str, level: str) -> tuple[object, int]:
    """A user who plays alone against the computer, as a person would set it up: he starts
    the bot, sends /play in his private chat, picks three computer players of ``level`` on
    the setup and presses Play (the rules: the bot's defaults for a game against the
    computer, podkidnoy without a turn clock). Returns the user and his table."""
    user = await tg.create_user(name)
    chat = tg.private_chat(user)
    sent = await tg.start_bot(user)
    await tg.wait_for_message(chat, after=sent, timeout=120)
    asked = await tg.send_command(user, chat, "play")
    setup = await tg.wait_for_message(
        chat,
        lambda m: m.message_id > asked.message_id and any(kind_of(d) == "w" for d in buttons(m)),
        timeout=120,
    )
    # the setup's row of numbers of opponents carries the level shown, its row of levels
    # the number shown: the number first, then the level; once both rows offer the choice
    # wanted, it is the one shown
    wanted = (str(COMPUTER_OPPONENTS), str(COMPUTER_LEVELS.index(level)))
    start = next(d for d in buttons(setup) if kind_of(d) == "s")
    for _ in range(3):
        choices = [(d, tuple(Data.parse(d).rest)) for d in buttons(setup) if kind_of(d) == "w"]
        targets = [d for d, rest in choices if rest == wanted]
        if len(targets) == 2:
            break
        pick = targets[0] if targets else next(d for d, rest in choices if rest[0] == wanted[0])
        await (await tg.press(user, setup, data=pick)).answer(timeout=120)

        def play_button(before: str = start) -> str | None:
            """The setup's Play, once it is drawn anew for the choice made."""
            found = [d for d in buttons(setup) if kind_of(d) == "s"]
            return found[0] if found and found[0] != before else None

        start = await tg.wait_for(play_button, timeout=120, what=f"{name}'s setup redrawn")
    else:
        raise LookupError(f"{name}'s setup never showed {wanted}: {buttons(setup)}")
    await (await tg.press(user, setup, data=start)).answer(timeout=120)
    return user, Data.parse(start).table


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


LOAD_GRACE = 1.5
"""Seconds a process started again in a rolling restart is given, once it holds its share
of the shards, to load and draw their tables before the next process is stopped."""


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


MY_CARDS_AGAIN = 5.0
"""Seconds an in-group player waits for his hand to show the table's current state (or to
come back, once gone) before he presses "My cards" again."""

EPHEMERAL_DRAWS = ("sendMessage", "editEphemeralMessageText", "editEphemeralMessageReplyMarkup")
"""The calls that show an in-group hand's content."""


def json_param(value: object) -> object:
    """A parameter as the fake server keeps it: parsed, or (to be safe) a JSON string."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return json.loads(value)
    return value


def ephemeral_receiver(call: ApiCall) -> int | None:
    """The player an ephemeral call (send, edit, deletion) goes to; None for any other."""
    if call.method == "sendMessage":
        found = json_param(call.params.get("ephemeral_message_parameters"))
        if isinstance(found, dict) and found.get("receiver_user_id") is not None:
            return int(found["receiver_user_id"])
        found = call.params.get("receiver_user_id")  # Bot API 10.2's own parameter
        return int(found) if found is not None else None
    if "Ephemeral" in call.method and call.params.get("receiver_user_id") is not None:
        return int(call.params["receiver_user_id"])
    return None


def ephemeral_query(call: ApiCall) -> str | None:
    """The callback query an ephemeral send was allowed by (a press on "My cards")."""
    found = json_param(call.params.get("ephemeral_message_parameters"))
    if isinstance(found, dict) and found.get("callback_query_id") is not None:
        return str(found["callback_query_id"])
    found = call.params.get("callback_query_id")
    return str(found) if found is not None and call.method == "sendMessage" else None


def method_label(call: ApiCall) -> str:
    """A call's method, with an ephemeral sendMessage told apart from an ordinary one."""
    if call.method == "sendMessage" and ephemeral_receiver(call) is not None:
        return "sendMessage (ephemeral)"
    return call.method


class Arrivals:
    """When each chat showed what: read off the fake server's record of calls. With
    ``in_group``, the hands are the players' in-group hands (ephemeral messages in their
    groups, keyed by the player's id) and their private chats are ignored."""

    def __init__(self, calls: list[ApiCall], in_group: bool = False) -> None:
        self.hands: dict[int, list[tuple[float, int]]] = {}
        self.groups: dict[int, list[tuple[float, str]]] = {}
        for call in calls:
            if not call.applied:
                continue
            receiver = (
                ephemeral_receiver(call)
                if call.method == "sendMessage" or "Ephemeral" in call.method
                else None
            )
            if receiver is not None:
                if in_group and call.method in EPHEMERAL_DRAWS:
                    versions = shown_versions(call.params)
                    if versions:
                        self.hands.setdefault(receiver, []).append((call.time, max(versions)))
                continue
            if call.method not in ("sendMessage", "editMessageText"):
                continue
            chat = int(call.params.get("chat_id", 0))
            if chat > 0:
                if in_group:
                    continue
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


@dataclass
class Window:
    """Where things stood at a window's edge."""

    time: float
    """The fake server's clock, as moves and calls are timed."""
    clock: float
    moves: int
    """Actions stored so far."""
    cpu: float
    """The bot process's own CPU seconds."""
    workers: dict[int, float]
    """CPU seconds of each live process under the bot (the coach's workers)."""
    reaped: float
    """CPU seconds of the bot's children that have ended."""
    machine: tuple[float, float, float]
    own: float
    reviews: int
    """Rows in the reviews table."""
    playing: int
    """Group tables with a game going on."""
    lags: int
    """Samples of the simulator's event-loop lag so far."""


def report_reviews(
    windows: list[Window],
    made: list[Move],
    arrivals: Arrivals,
    calls: list[ApiCall],
    asked: dict[int, float],
    made_by_now: int,
    lags: list[float],
) -> None:
    """The measured time's two halves side by side, without and with the coach's reviews
    running, and how the reviews went."""
    start, split, end = windows
    lists: list[tuple[list[float], list[float]]] = []
    print(f"two windows of {split.clock - start.clock:.0f} s each:")
    for name, a, b, lag in (
        ("without reviews", start, split, sorted(lags[: split.lags])),
        ("with reviews", split, end, sorted(lags[split.lags :])),
    ):
        inside = [m for m in made if a.time <= m.time < b.time]
        answers = [m.answered for m in inside]
        felt = [
            got
            for m in inside
            for got in [arrivals.hand(m.next_actor, m.time, m.version)]
            if got is not None
        ]
        lists.append((felt, answers))
        took = b.clock - a.clock
        cpu = b.cpu - a.cpu
        workers = sum(v - a.workers.get(k, 0.0) for k, v in b.workers.items()) + (
            b.reaped - a.reaped
        )
        busy, niced, total = (y - x for x, y in zip(a.machine, b.machine, strict=True))
        others = busy - cpu - workers - (b.own - a.own)
        print(
            f"  {name}: {(b.moves - a.moves) / took:.1f} moves/s; "
            f"group tables playing {a.playing} -> {b.playing}"
        )
        print(f"    press -> next actor's hand: {percentiles(felt)}")
        print(f"    press -> callback answer:   {percentiles(answers)}")
        print(
            f"    CPU: bot {cpu:.1f} s ({cpu / took * 100:.0f}% of a core), processes under "
            f"it ({len(b.workers)}) {workers:.1f} s, bench {b.own - a.own:.1f} s, anything "
            f"else on the machine {others:.1f} s; machine {busy / total * 100:.0f}% busy, "
            f"{niced / total * 100:.0f}% niced"
        )
        if lag:
            print(
                f"    simulator's event-loop lag p99 {lag[int(len(lag) * 0.99)] * 1000:.1f} ms, "
                f"max {lag[-1] * 1000:.1f} ms"
            )

    def p99(values: list[float]) -> float:
        values = sorted(values)
        return values[min(len(values) - 1, int(len(values) * 0.99))] if values else float("nan")

    (felt0, answers0), (felt1, answers1) = lists
    print(
        f"  p99 with/without reviews: next actor {p99(felt1) / p99(felt0):.2f}, "
        f"callback answer {p99(answers1) / p99(answers0):.2f} (target: next actor <= 1.20)"
    )
    shown: dict[int, float] = {}
    for call in calls:
        chat = int(call.params.get("chat_id", 0))
        if (
            call.method in ("sendMessage", "editMessageText")
            and call.applied
            and chat in asked
            and chat not in shown
            and call.time >= asked[chat]
            and any(word in str(call.params.get("text", "")) for word in REVIEWED)
        ):
            shown[chat] = call.time - asked[chat]
    within = end.reviews - split.reviews
    waits = sorted(v for k, v in shown.items() if asked[k] + v <= end.time)
    print(
        f"  reviews: {len(asked)} asked; {within} made and {len(waits)} shown within the window"
        f" ({made_by_now} made and {len(shown)} shown 15 s later); /replay -> review shown "
        + (f"p50 {statistics.median(waits):.1f} s, max {waits[-1]:.1f} s" if waits else "n/a")
    )
    if waits:
        # the reviews' own stretch: the rest of the window has them done and fewer tables
        # playing (games end), which would flatter the comparison
        until = split.time + waits[-1]
        during = [m for m in made if split.time <= m.time < until]
        felt = [
            got
            for m in during
            for got in [arrivals.hand(m.next_actor, m.time, m.version)]
            if got is not None
        ]
        answers = [m.answered for m in during]
        print(
            f"  while the reviews ran (the window's first {waits[-1]:.0f} s, "
            f"{len(during) / max(waits[-1], 1e-9):.1f} measured moves/s):"
        )
        print(f"    press -> next actor's hand: {percentiles(felt)}")
        print(f"    press -> callback answer:   {percentiles(answers)}")
        print(
            f"    p99 against the window without: next actor {p99(felt) / p99(felt0):.2f}, "
            f"callback answer {p99(answers) / p99(answers0):.2f}"
        )
    if within < len(asked):
        print(
            f"  WARNING: {len(asked) - within} reviews were still running when the window "
            "ended; the second window did not cover them all (give more --seconds)"
        )


@dataclass
class Pressed:
    """One press of a card or a move, whatever came of it."""

    table: int
    time: float
    answered: float | None
    """When its callback answer came (None: never, within 30 s)."""
    query: str
    """Its callback query's id."""


@dataclass
class MyCards:
    """One press on "My cards" by an in-group player."""

    query: str
    time: float
    user: int
    why: str
    """"first" (once the game started), "gone" (his hand disappeared) or "stale" (it did
    not show the current state for :data:`MY_CARDS_AGAIN` seconds)."""
    measured: bool


@dataclass
class Summary:
    """A run's headline figures, for ``--compare-hands``."""

    hands: str
    tables: int
    seconds: float
    applied: int
    cpu: float
    felt: list[float]
    answers: list[float]
    calls: int
    by_method: dict[str, int]
    limited: dict[str, int]
    stale_hands: int
    stale_tables: int
    again: int
    others: float
    """CPU seconds the rest of the machine spent meanwhile (not the bot nor the bench)."""
    label: str = ""
    """The phase's name in a side-by-side comparison (else ``hands``)."""
    workers: float = 0.0
    """CPU seconds of the processes under the bot (computer players', coach's workers)."""
    human_moves: int = 0
    """Moves applied at the human tables (``applied`` counts every table's)."""
    limited_human: int = 0
    """429s drawn in the human tables' chats."""
    computer_tables: int = 0
    computer_level: str = ""
    computer_moves: int = 0
    """Moves applied at the computer tables, the human's and the computers'."""
    decisions: list[float] = dataclasses.field(default_factory=list)
    """Each computer move: seconds from the move before it was stored to its own, less the
    pause the bot makes before a computer moves (the decision, its queue and its floor)."""
    solo_answers: list[float] = dataclasses.field(default_factory=list)
    """The computer tables' human: press -> callback answer."""
    solo_own: list[float] = dataclasses.field(default_factory=list)
    """The computer tables' human: press -> his table shows his move."""
    waited: float = 0.0
    """Seconds the bot's threads spent runnable, waiting for a CPU."""

    @property
    def moves_per_second(self) -> float:
        return self.applied / max(self.seconds, 1e-9)

    @property
    def cpu_per_move(self) -> float:
        return self.cpu / max(self.applied, 1)


SAME_IN_EVERY_RUN = frozenset({"hands", "tables", "label", "computer_tables", "computer_level"})
"""The fields of a :class:`Summary` that name the setting, not a figure."""


def pooled(runs: list[Summary]) -> Summary:
    """Runs of the same setting as one: their figures added up, their samples together."""
    merged: dict[str, object] = {}
    for field in dataclasses.fields(Summary):
        values = [getattr(r, field.name) for r in runs]
        if field.name in SAME_IN_EVERY_RUN:
            merged[field.name] = values[0]
        elif isinstance(values[0], list):
            merged[field.name] = [v for value in values for v in value]
        elif isinstance(values[0], dict):
            total: dict[str, int] = {}
            for value in values:
                for key, n in value.items():
                    total[key] = total.get(key, 0) + n
            merged[field.name] = total
        else:
            merged[field.name] = sum(values)
    return Summary(**merged)  # type: ignore[arg-type]


def without_options(argv: list[str], valued: set[str], flags: set[str]) -> list[str]:
    """The command line without these options (``valued`` take a value, as ``--x V`` or
    ``--x=V``; ``flags`` take none)."""
    kept: list[str] = []
    skip = False
    for item in argv:
        if skip:
            skip = False
        elif item in valued:
            skip = True
        elif item not in flags and not any(item.startswith(f"{v}=") for v in valued):
            kept.append(item)
    return kept


def quantile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))]


def print_comparison(runs: list[Summary], title: str = "private hands vs in-group hands") -> None:
    """The phases of ``--compare-hands`` or ``--compare-computers`` side by side."""
    width = 26
    print()
    print("=" * 78)
    print(f"{title}, side by side")
    print(f"{'':34}" + "".join(f"{r.label or r.hands:>{width}}" for r in runs))

    def row(name: str, cells: list[str]) -> None:
        print(f"{name:34}" + "".join(f"{c:>{width}}" for c in cells))

    computers = any(r.computer_tables for r in runs)
    row("tables x measured seconds", [f"{r.tables} x {r.seconds:.0f} s" for r in runs])
    if computers:
        row(
            "computer tables (1 human + 3)",
            [f"{r.computer_tables} {r.computer_level}" if r.computer_tables else "-" for r in runs],
        )
    row("applied moves (moves/s)", [f"{r.applied} ({r.moves_per_second:.1f}/s)" for r in runs])
    if computers:
        row(
            "  at the human tables",
            [f"{r.human_moves} ({r.human_moves / max(r.seconds, 1e-9):.1f}/s)" for r in runs],
        )
        row(
            "  at the computer tables",
            [
                f"{r.computer_moves} ({r.computer_moves / max(r.seconds, 1e-9):.1f}/s)"
                if r.computer_tables
                else "-"
                for r in runs
            ],
        )
    row("bot CPU per move", [f"{r.cpu_per_move * 1000:.2f} ms" for r in runs])
    row("bot CPU, % of one core", [f"{r.cpu / max(r.seconds, 1e-9) * 100:.0f}%" for r in runs])
    if computers:
        row(
            "workers' CPU, % of one core",
            [f"{r.workers / max(r.seconds, 1e-9) * 100:.0f}%" for r in runs],
        )
    row(
        "bot waiting for a CPU, % of time",
        [f"{r.waited / max(r.seconds, 1e-9) * 100:.0f}%" for r in runs],
    )
    row(
        "anything else, % of one core",
        [f"{r.others / max(r.seconds, 1e-9) * 100:.0f}%" for r in runs],
    )
    where = " (human tables)" if computers else ""
    for label, pick in (
        (f"press -> next actor's hand{where}", lambda r: r.felt),
        (f"press -> callback answer{where}", lambda r: r.answers),
    ):
        print(label)
        for name, q in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0)):
            row(f"  {name}", [f"{quantile(pick(r), q) * 1000:.0f} ms" for r in runs])
    row("Bot API calls per move", [f"{r.calls / max(r.applied, 1):.2f}" for r in runs])
    methods = sorted(
        {m for r in runs for m in r.by_method},
        key=lambda m: -max(r.by_method.get(m, 0) / max(r.applied, 1) for r in runs),
    )
    for method in methods:
        row(f"  {method}", [f"{r.by_method.get(method, 0) / max(r.applied, 1):.2f}" for r in runs])
    row("429s drawn", [str(sum(r.limited.values())) for r in runs])
    if computers:
        row("  in the human tables' chats", [str(r.limited_human) for r in runs])
    row("hands not current after play", [str(r.stale_hands) for r in runs])
    row("tables not current after play", [str(r.stale_tables) for r in runs])
    if not computers:
        row(
            '"My cards" pressed again',
            [str(r.again) if r.hands != "private" else "-" for r in runs],
        )
    if computers:
        print("computer tables")
        for label, pick in (
            ("  computer move, less the pause", lambda r: r.decisions),
            ("  human's press -> answer", lambda r: r.solo_answers),
            ("  human's press -> his table", lambda r: r.solo_own),
        ):
            for name, q in (("p50", 0.5), ("p99", 0.99)):
                row(
                    f"{label} {name}",
                    [
                        f"{quantile(pick(r), q) * 1000:.0f} ms" if r.computer_tables else "-"
                        for r in runs
                    ],
                )
    if len(runs) == 2 and runs[0].applied and runs[1].applied:
        ratio = runs[1].cpu_per_move / max(runs[0].cpu_per_move, 1e-12)
        names = f"{runs[1].label or runs[1].hands} / {runs[0].label or runs[0].hands}"
        print(f"bot CPU per move, {names}: {ratio:.2f}")
        if computers:
            for name, q in (("p50", 0.5), ("p99", 0.99)):
                felt = [quantile(r.felt, q) for r in runs]
                answers = [quantile(r.answers, q) for r in runs]
                print(
                    f"human tables' {name}, {names}: next actor's hand "
                    f"{felt[1] / felt[0]:.2f}, callback answer {answers[1] / answers[0]:.2f}"
                    + (" (target: next actor's hand p99 <= 1.00)" if name == "p99" else "")
                )
    print("=" * 78)


def print_sides(sides: dict[str, list[Summary]], roots: dict[str, Path]) -> None:
    """The runs of ``--vs``, side by side: each side's runs pooled (CPU per move is the
    CPU of all its measured time over all its moves), each run's own figure after it, and
    the ratio B/A overall and for each pair of runs made one after the other."""
    width = 24
    names = list(sides)
    print()
    print("=" * 80)
    for name in names:
        print(f"{name}: the bot from {roots[name]}")
    print(f"{'':36}" + "".join(f"{n:>{width}}" for n in names) + f"{'B/A':>10}")

    def row(label: str, cells: list[str], ratio: float | None = None) -> None:
        end = f"{ratio:>10.2f}" if ratio is not None and math.isfinite(ratio) else ""
        print(f"{label:36}" + "".join(f"{c:>{width}}" for c in cells) + end)

    def pooled_cpu(runs: list[Summary]) -> float:
        return sum(r.cpu for r in runs) / max(sum(r.applied for r in runs), 1)

    def ratio(values: list[float]) -> float | None:
        return values[1] / values[0] if len(values) == 2 and values[0] > 0 else None

    runs = [sides[n] for n in names]
    cpu = [pooled_cpu(r) * 1000 for r in runs]
    row("runs x measured seconds", [f"{len(r)} x {r[0].seconds:.0f} s" for r in runs])
    row("bot CPU per move (ms)", [f"{c:.2f}" for c in cpu], ratio(cpu))
    row(
        "  each run",
        [" ".join(f"{x.cpu_per_move * 1000:.2f}" for x in r) for r in runs],
    )
    rate = [sum(x.applied for x in r) / max(sum(x.seconds for x in r), 1e-9) for r in runs]
    row("moves/s", [f"{v:.1f}" for v in rate], ratio(rate))
    busy = [sum(x.cpu for x in r) / max(sum(x.seconds for x in r), 1e-9) * 100 for r in runs]
    row("bot CPU, % of one core", [f"{v:.0f}%" for v in busy], ratio(busy))
    felt = [[v for x in r for v in x.felt] for r in runs]
    for label, q in (("p50", 0.5), ("p99", 0.99)):
        values = [quantile(f, q) * 1000 for f in felt]
        row(f"press -> next actor's hand {label} (ms)", [f"{v:.0f}" for v in values], ratio(values))
    row("429s drawn", [str(sum(sum(x.limited.values()) for x in r)) for r in runs])
    row(
        "hands / tables not current after play",
        [f"{sum(x.stale_hands for x in r)} / {sum(x.stale_tables for x in r)}" for r in runs],
    )
    calls = [sum(x.calls for x in r) / max(sum(x.applied for x in r), 1) for r in runs]
    row("Bot API calls per move", [f"{v:.2f}" for v in calls], ratio(calls))
    others = [sum(x.others for x in r) / max(sum(x.seconds for x in r), 1e-9) * 100 for r in runs]
    row("the rest of the machine, % of a core", [f"{v:.0f}%" for v in others])
    if len(names) == 2:
        pairs = [
            b.cpu_per_move / a.cpu_per_move
            for a, b in zip(runs[0], runs[1], strict=False)
            if a.applied and b.applied
        ]
        print("bot CPU per move B/A, pair by pair: " + " ".join(f"{p:.2f}" for p in pairs))
    print("=" * 80)


def drawers(calls: list[ApiCall], fleet: Fleet, table_of: dict[int, int]) -> dict[int, Member]:
    """The process that last drew each table (its group's table or one of its hands), as the
    fake server saw it: the table's owner, from outside."""
    found: dict[int, Member] = {}
    for call in calls:
        if call.method not in ("sendMessage", "editMessageText") or not call.applied:
            continue
        table = table_of.get(int(call.params.get("chat_id", 0)))
        member = fleet.member_of(call)
        if table is not None and member is not None:
            found[table] = member
    return found


def why_unanswered(presses: list[Pressed], calls: list[ApiCall], since: float) -> str:
    """How many presses got no answer, and what the fake server saw of each: an answer it
    refused (and why), or none sent; the first few, with the press's time from ``since``."""
    if not presses:
        return "0"
    tried: dict[str, list[ApiCall]] = {}
    for call in calls:
        if call.method == "answerCallbackQuery":
            tried.setdefault(str(call.params.get("callback_query_id")), []).append(call)
    said = []
    for p in presses[:5]:
        got = tried.get(p.query, [])
        what = "; ".join(
            f"{c.description or c.error_code} at {c.time - p.time:+.1f} s" for c in got
        )
        said.append(f"press at {p.time - since:+.1f} s: " + (what or "no answer sent"))
    return f"{len(presses)} ({', '.join(said)})"


def seconds_list(values: list[float]) -> str:
    if not values:
        return "n/a"
    values = sorted(values)
    return f"p50 {statistics.median(values):.2f} s, max {values[-1]:.2f} s"


def report_costs(kind: str, a: Costs, b: Costs, applied: int, elapsed: float, cpu: float) -> None:
    """What the database's server spent per move between two looks."""
    moves = max(applied, 1)
    if kind == "SQLite":
        return
    line = "PostgreSQL per move:"
    if a.cpu is not None and b.cpu is not None:
        spent = b.cpu - a.cpu
        line += (
            f" CPU {spent / moves * 1000:.2f} ms ({spent / elapsed * 100:.0f}% of one core; "
            f"bot and server {(cpu + spent) / moves * 1000:.2f} ms),"
        )
    else:
        line += " CPU n/a (not a server on this machine),"
    if a.statements is not None and b.statements is not None:
        line += f" {(b.statements - a.statements) / moves:.2f} statements,"
    if a.transactions is not None and b.transactions is not None:
        line += f" {(b.transactions - a.transactions) / moves:.2f} commits,"
    if a.wal is not None and b.wal is not None:
        line += f" {(b.wal - a.wal) / moves:.0f} bytes of WAL"
    print(line)
    rows = {k: round((b.rows.get(k, 0) - a.rows.get(k, 0)) / moves, 2) for k in b.rows}
    print(f"  rows per move: {rows}")
    if b.top:
        grown = {q: n - a.top.get(q, 0) for q, n in b.top.items()}
        print("  the most frequent statements, per move:")
        for query, count in sorted(grown.items(), key=lambda x: -x[1])[:8]:
            if count > 0:
                text = " ".join(query.split())
                print(f"    {count / moves:5.2f}  {text[:110]}")


async def report_sizes(db: BenchDatabase) -> None:
    """Bytes on disk per stored move and per finished game."""
    sizes = await db.sizes()
    if "actions" not in sizes or "games" not in sizes:
        return
    actions, moves = sizes["actions"]
    finished = int(await db.value("SELECT count(*) FROM games WHERE finished_at IS NOT NULL"))
    per_move = actions / max(moves, 1)
    print(
        f"{db.kind} on disk: actions {actions / 1024:.0f} KB for {moves} moves "
        f"({per_move:.0f} bytes a move, indexes included)"
        + "".join(
            f", {name} {size / 1024:.0f} KB for {rows} rows"
            for name, (size, rows) in sizes.items()
            if name != "actions"
        )
    )
    if finished:
        played = int(
            await db.value(
                "SELECT count(*) FROM actions a JOIN games g ON g.table_id = a.table_id "
                "AND g.game_no = a.game_no WHERE g.finished_at IS NOT NULL"
            )
        )
        record = (sizes["games"][0] + sizes.get("game_players", (0, 0))[0]) / max(
            sizes["games"][1], 1
        )
        print(
            f"  {finished} games finished, {played / finished:.0f} moves each: "
            f"{(played / finished) * per_move + record:.0f} bytes a finished game "
            f"(its moves, and {record:.0f} bytes of game and player records)"
        )


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
    reviews: int = 0,
    bot_settings: tuple[str, ...] = (),
    database: str = "",
    processes: int = 1,
    kill: str | None = None,
    term: bool = False,
    in_group: bool = False,
    ephemeral: str = "own",
    again_after: float = MY_CARDS_AGAIN,
    bot_root: Path | None = None,
    computer_tables: int = 0,
    computer_level: str = "hard",
    phase: str = "",
) -> Summary:
    rng = random.Random(seed)
    # the computer tables' human draws from his own generator: the human tables' draws are
    # the same with or without them
    solo_rng = random.Random(seed ^ 0xC0FFEE)
    folder = Path(tempfile.mkdtemp(prefix="durak-load-"))
    fake_limits = dataclasses.replace(
        Limits.telegram() if limits == "telegram" else Limits.off(), ephemeral=ephemeral
    )
    async with (
        bench_database(database, folder) as db,
        FakeTelegramServer(limits=fake_limits) as tg,
    ):
        env = {
            "BOT_TOKEN": tg.token,
            **db.env,
            "DURAK_LOG_LEVEL": "WARNING",
            "DURAK_DEFAULT_LANGUAGE": "en",
        }
        changed = dict(item.split("=", 1) for item in bot_settings)
        env.update(changed)
        if bot_root is not None:
            # the bot's code from another checkout (the same interpreter and packages)
            env["PYTHONPATH"] = str(bot_root)
        print(
            f"fake server: {limits} limits, faults {faults:.2%} timeouts + {faults / 2:.2%} 502s;"
            f" the bot with its default settings"
            + (f" but {', '.join(bot_settings)}" if changed else "")
            + (f", {processes} processes" if processes > 1 else "")
        )
        print(
            "hands: "
            + (
                "in the group (ephemeral messages; nobody starts the bot in private), "
                f"ephemeral limits {ephemeral!r}"
                if in_group
                else "in private chats"
            )
        )
        print(f"database: {db.about}")
        print(f"the bot's code: {bot_root or ROOT}")
        if computer_tables:
            print(
                f"computer tables: {computer_tables}, each one human against "
                f"{COMPUTER_OPPONENTS} computer players ({computer_level}), in his private chat"
            )
        # the coach's viewers: users of the fake server (it gives the ids) whose finished
        # games are in the database before the bot opens it
        reviewers = [await tg.create_user(f"R{i}") for i in range(reviews)]
        if reviewers:
            await seed_finished_games(db, reviewers, seed)
            print(f"{reviews} finished games against the computer stored; each replays exactly")
        async with Fleet(tg, env, folder, processes) as fleet:
            pid = fleet.members[0].pid
            for user in reviewers:
                await tg.start_bot(user)
            await asyncio.sleep(1.0)
            base = sum(rss_bytes(m.pid) for m in fleet.members)
            groups = []
            for t in range(tables):
                people = [await tg.create_user(f"{chr(65 + i)}{t}") for i in range(players)]
                for user in people:
                    if not in_group:  # in the group, nobody ever opens the bot in private
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
                    answer = await (await tg.press(user, lobby, data=data)).answer(timeout=120)  # type: ignore[arg-type]
                    try:
                        await tg.wait_for(
                            lambda seat=seat: f"{seat}/6" in lobby.plain_text,  # type: ignore[attr-defined]
                            timeout=120,
                        )
                    except TimeoutError:
                        said = " ".join(lobby.plain_text.split())  # type: ignore[attr-defined]
                        raise TimeoutError(
                            f"seat {seat} never shown in chat {lobby.chat_id}: the press was "  # type: ignore[attr-defined]
                            f"answered {answer}; the lobby says {said[:300]!r}"
                        ) from None

            await asyncio.gather(
                *(join(people, lobby) for (_, people), lobby in zip(groups, lobbies, strict=True))
            )
            for (_, people), lobby in zip(groups, lobbies, strict=True):
                start = next(d for d in buttons(lobby) if d[1:].startswith("s."))
                await (await tg.press(people[0], lobby, data=start)).answer(timeout=60)
            users = [u for _, people in groups for u in people]
            measuring = False
            asked_cards: list[MyCards] = []

            def my_cards_button(group: object) -> tuple[object, str] | None:
                """The group's newest message of the bot's with a "My cards" button."""
                for message in reversed(tg.bot_messages(group)):  # type: ignore[arg-type]
                    for data in buttons(message):
                        if kind_of(data) == "H":
                            return message, data
                return None

            async def press_my_cards(user: object, group: object, why: str) -> bool:
                """He presses "My cards" on the group's table: his hand, in the group."""
                found = my_cards_button(group)
                if found is None:
                    return False
                message, data = found
                began = tg.world.elapsed()
                try:
                    press = await tg.press(user, message, data=data)  # type: ignore[arg-type]
                except (ValueError, LookupError):
                    return False
                asked_cards.append(MyCards(press.query_id, began, user.id, why, measuring))  # type: ignore[attr-defined]
                with contextlib.suppress(TimeoutError):
                    await press.answer(timeout=30)
                return True

            def hand_of(user: object, group: object) -> object:
                """What the player plays from: his in-group hand, or his private chat's
                newest message."""
                if in_group:
                    return tg.last_ephemeral(group, user)  # type: ignore[arg-type]
                return tg.last_message(tg.private_chat(user))  # type: ignore[arg-type]

            def dealt() -> int:
                return sum(1 for g, people in groups for u in people if buttons(hand_of(u, g)))

            if in_group:
                try:
                    await tg.wait_for(
                        lambda: all(my_cards_button(g) for g, _ in groups), timeout=120
                    )
                except TimeoutError:
                    missing = sum(1 for g, _ in groups if my_cards_button(g) is None)
                    print(f"after two minutes {missing} tables show no My cards; going on")

                async def first_look(user: object, group: object) -> None:
                    await asyncio.sleep(rng.uniform(0, 3.0))  # not all in the same instant
                    await press_my_cards(user, group, "first")

                await asyncio.gather(*(first_look(u, g) for g, people in groups for u in people))
            try:
                await tg.wait_for(lambda: dealt() == len(users), timeout=120)
            except TimeoutError:
                print(f"after two minutes {dealt()} of {len(users)} hands are drawn; going on")
            per_table = (sum(rss_bytes(m.pid) for m in fleet.members if m.alive) - base) / tables
            solos: list[tuple[object, int]] = []
            if computer_tables:
                # after the human tables' memory is taken: the figure stays theirs
                solos = list(
                    await asyncio.gather(
                        *(
                            open_computer_table(tg, f"S{t}", computer_level)
                            for t in range(computer_tables)
                        )
                    )
                )
                print(f"{computer_tables} computer tables started")
            solo_ids = sorted({table for _, table in solos})
            solo_chats = {user.id for user, _ in solos}  # type: ignore[attr-defined]
            await asyncio.sleep(5.0)  # the last paced edits
            print(f"{tables} tables of {players} seated and dealt")
            if faults > 0:
                tg.set_faults(Faults(timeout=faults, error=faults / 2, seed=seed))

            async def moves() -> int:
                return int(await db.value("SELECT count(*) FROM actions"))

            async def computer_moves() -> int:
                """Actions stored at the computer tables so far."""
                if not solo_ids:
                    return 0
                listed = ",".join(str(t) for t in solo_ids)
                return int(
                    await db.value(f"SELECT count(*) FROM actions WHERE table_id IN ({listed})")
                )

            def workers_cpu() -> float:
                """CPU seconds of the processes under the bot's processes, the ended too."""
                return sum(
                    sum(tree_cpu(m.pid).values()) + reaped_cpu(m.pid)
                    for m in fleet.members
                    if m.alive
                )

            games: dict[int, tuple[int, Game | None]] = {}
            looked: dict[int, tuple[float, int]] = {}

            async def stored_game(table: int, fresh: bool = True) -> tuple[int, Game | None]:
                """The table's stored version and game; the game is parsed again only when
                the version moved. Not ``fresh``: a look less than 0.2 s old will do (the
                players of a table share it)."""
                now = time.monotonic()
                last = looked.get(table)
                if not fresh and last is not None and now - last[0] < 0.2:
                    version = last[1]
                else:
                    version = int(
                        await db.value(
                            "SELECT version FROM tables WHERE table_id = ? AND status = 'playing'",
                            table,
                        )
                        or 0
                    )
                    looked[table] = (now, version)
                if version == 0:
                    return 0, None
                known = games.get(table)
                if known is None or known[0] != version:
                    row = await db.row("SELECT version, game FROM tables WHERE table_id = ?", table)
                    assert row is not None
                    known = games[table] = (int(row[0]), Game.from_json(row[1]))
                    looked[table] = (now, known[0])
                return known

            made: list[Move] = []
            pressed: list[Pressed] = []
            texts: dict[str | None, int] = {}
            stop = time.monotonic() + warmup + seconds
            names = {
                table: [u.first_name for u in people]
                for table, (_, people) in zip(table_ids, groups, strict=True)
            }  # type: ignore[attr-defined]
            table_of: dict[int, int] = {}
            for table, (group, people) in zip(table_ids, groups, strict=True):
                table_of[group.id] = table  # type: ignore[attr-defined]
                for user in people:
                    table_of[user.id] = table  # type: ignore[attr-defined]

            async def player(
                user: object, group: object, people: list[object], table: int, seat: int
            ) -> None:
                # people do not all sit down in the same instant
                await asyncio.sleep(rng.uniform(0, think[1]))
                stale_since: float | None = None
                while time.monotonic() < stop:
                    hand = hand_of(user, group)
                    shown = buttons(hand)
                    data: list[str] = []
                    version, game = 0, None
                    seen = Data.parse(shown[0]).version if shown else None
                    if seen is not None:
                        version, game = await stored_game(table, fresh=False)
                        if game is not None and version == seen and seat in game.to_act():
                            version, game = await stored_game(table)
                            if game is not None and version == seen and seat in game.to_act():
                                data = sensible(shown, game, seat)
                    if in_group and not data:
                        # his hand is gone, or lags behind the table: after a while, he
                        # presses "My cards" again
                        if seen is None:
                            version, game = await stored_game(table, fresh=False)
                        behind = (
                            game is not None
                            and seat not in game.public_view().finish_order
                            and (seen is None or seen < version)
                        )
                        now = time.monotonic()
                        if not behind:
                            stale_since = None
                        elif stale_since is None:
                            stale_since = now
                        elif again_after > 0 and now - stale_since >= again_after:
                            why = "gone" if hand is None else "stale"
                            await press_my_cards(user, group, why)
                            stale_since = time.monotonic()
                    elif data:
                        stale_since = None
                    if not data:
                        await asyncio.sleep(0.2)  # not his move, or the hand is catching up
                        continue
                    began = tg.world.elapsed()
                    try:
                        press = await tg.press(user, hand, data=rng.choice(data))  # type: ignore[arg-type]
                    except (ValueError, LookupError):
                        # the in-group hand went (a newer one took its place) as he pressed
                        await asyncio.sleep(0.2)
                        continue
                    try:
                        ans = await press.answer(timeout=30)
                    except TimeoutError:
                        pressed.append(Pressed(table, began, None, press.query_id))
                        continue
                    answered = tg.world.elapsed() - began
                    pressed.append(Pressed(table, began, began + answered, press.query_id))
                    after, moved = await stored_game(table)
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

            solo_pressed: list[tuple[float, float, int, int]] = []
            """The computer tables' human's measured moves: press time, callback answer (s
            after it), his user id, the version he pressed on."""
            rematches = 0
            solo_late: list[float] = []
            """Presses of the computer tables' human not answered by the end of play."""

            async def solo_player(user: object, table: int) -> None:
                """The human at a computer table: plays his hand (the table's one message in
                his private chat) at the human pace, and presses Play again at the end."""
                nonlocal rematches
                await asyncio.sleep(solo_rng.uniform(0, think[1]))
                chat = tg.private_chat(user)  # type: ignore[arg-type]
                uid = user.id  # type: ignore[attr-defined]
                seat = 0  # the player who set the game up sits first, his computers after
                while time.monotonic() < stop:
                    hand = tg.last_message(chat)
                    shown = buttons(hand)
                    version, game = await stored_game(table, fresh=False)
                    data: list[str] = []
                    if game is None:
                        data = [d for d in shown if kind_of(d) == "m"]  # Play again
                    elif hand_versions(hand) == {version} and seat in game.to_act():  # type: ignore[arg-type]
                        version, game = await stored_game(table)
                        if game is not None and hand_versions(hand) == {version}:  # type: ignore[arg-type]
                            data = sensible(shown, game, seat)
                    if not data:
                        await asyncio.sleep(0.2)  # not his move, or his table is catching up
                        continue
                    began = tg.world.elapsed()
                    press = await tg.press(user, hand, data=solo_rng.choice(data))  # type: ignore[arg-type]
                    # his press may wait for a computer's decision: it is not waited for
                    # long past the end of play, which would stretch the measured time
                    left = min(30.0, max(1.0, stop + 1.0 - time.monotonic()))
                    try:
                        await press.answer(timeout=left)
                    except TimeoutError:
                        if measuring and game is not None:
                            solo_late.append(began)
                    else:
                        if game is None:
                            rematches += 1
                        elif measuring:
                            after, _ = await stored_game(table)
                            if after > version:
                                solo_pressed.append(
                                    (began, tg.world.elapsed() - began, uid, version)
                                )
                    await asyncio.sleep(solo_rng.uniform(*think))  # a person thinks

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
            costs: list[Costs] = []
            cpu_marks: list[dict[int, float]] = []
            machine: list[tuple[float, float, float]] = []

            async def measure() -> None:
                """The first moves of freshly dealt tables all come at once; the minute is
                measured once play has spread out."""
                nonlocal measuring
                await asyncio.sleep(warmup)
                costs.append(await db.costs())
                cpu_marks.append(fleet.cpu())
                marks["waited"] = sum(waited_seconds(m.pid) for m in fleet.members if m.alive)
                machine.append(machine_cpu())
                marks.update(
                    moves=await moves(),
                    computer_moves=await computer_moves(),
                    workers=workers_cpu(),
                    wall=time.time(),
                    calls=len(tg.calls),
                    own=time.process_time(),
                    began=time.monotonic(),
                    at=tg.world.elapsed(),
                )
                lags.clear()
                measuring = True
                if flood:
                    await asyncio.sleep(seconds / 2)
                    marks["flood"] = tg.world.elapsed()
                    tg.force_429(1, retry_after=5, chat=groups[0][0])

            killed: dict[str, object] = {}

            async def failover() -> None:
                """Halfway through the measured time, SIGKILL of the process that polls or of
                one that draws tables; with no other process left, it starts again at once."""
                if kill is None:
                    return
                await asyncio.sleep(warmup + seconds / 2)
                poller = fleet.poller()
                owned = drawers(tg.calls[int(marks["calls"]) :], fleet, table_of)
                victim = poller
                if kill == "owner":
                    counts: dict[int, int] = {}
                    for member in owned.values():
                        counts[member.index] = counts.get(member.index, 0) + 1
                    others = [m for m in fleet.members if m.alive and m is not poller]
                    if others:
                        victim = max(others, key=lambda m: counts.get(m.index, 0))
                assert victim is not None
                killed.update(
                    member=victim,
                    poller=victim is poller,
                    tables=[t for t, m in owned.items() if m is victim],
                    wall=time.time(),
                    calls=len(tg.calls),
                )
                killed["at"] = fleet.kill(victim)
                await fleet.reap(victim)
                if not any(m.alive for m in fleet.members):
                    killed["restarted"] = tg.world.elapsed()
                    await fleet.start_again(victim)

            restarts: list[tuple[int, float, float, float, float]] = []

            async def ready(member: Member) -> float:
                """When a process started again holds its share of the shards, and
                :data:`LOAD_GRACE` seconds later (it loads and draws their tables): a
                rolling upgrade waits for each new process to be ready before it stops the
                next."""
                share = SHARDS // processes
                assert member.bot is not None and member.bot.proc is not None
                pid = member.bot.proc.pid
                deadline = time.monotonic() + 60
                held = 0
                while time.monotonic() < deadline:
                    held = int(
                        await db.value(
                            "SELECT count(*) FROM shard_leases l JOIN members m "
                            "ON m.member_id = l.owner WHERE m.pid = ? AND l.shard >= 0",
                            pid,
                        )
                    )
                    if held >= share:
                        break
                    await asyncio.sleep(0.05)
                else:
                    print(f"process {member.index} holds {held} shards after 60 s, not {share}")
                got = tg.world.elapsed()
                await asyncio.sleep(LOAD_GRACE)
                return got

            async def rolling() -> None:
                """A third of the way through the measured time, every process in turn:
                SIGTERM, its exit, the same command again, its getMe; with several
                processes, the next once this one is ready."""
                if not term:
                    return
                await asyncio.sleep(warmup + seconds / 3)
                for member in fleet.members:
                    asked, exited, back = await fleet.restart(member)
                    up = await ready(member) if processes > 1 else back
                    restarts.append((member.index, asked, exited, back, up))

            half = seconds / 2
            asked: dict[int, float] = {}

            async def reviews_made() -> int:
                return int(await db.value("SELECT count(*) FROM reviews"))

            async def window_marks() -> Window:
                playing = await db.value(
                    "SELECT count(*) FROM tables WHERE status = 'playing' AND chat_id < 0"
                )
                return Window(
                    time=tg.world.elapsed(),
                    clock=time.monotonic(),
                    moves=await moves(),
                    cpu=cpu_seconds(pid),
                    workers=tree_cpu(pid),
                    reaped=reaped_cpu(pid),
                    machine=machine_cpu(),
                    own=time.process_time(),
                    reviews=await reviews_made(),
                    playing=int(playing),
                    lags=len(lags),
                )

            windows: list[Window] = []

            async def ask_reviews() -> None:
                """Halfway through the measured time, each viewer sends /replay: the coach's
                reviews start while the tables play on."""
                if not reviewers:
                    return
                await asyncio.sleep(warmup)
                windows.append(await window_marks())
                await asyncio.sleep(half)
                windows.append(await window_marks())
                for user in reviewers:
                    asked[user.id] = tg.world.elapsed()
                    await tg.send_command(user, tg.private_chat(user), "replay")
                await asyncio.sleep(max(0.0, stop - time.monotonic()))
                windows.append(await window_marks())

            await asyncio.gather(
                measure(),
                ticker(),
                ask_reviews(),
                failover(),
                rolling(),
                *(
                    player(u, group, people, table, seat)
                    for table, (group, people) in zip(table_ids, groups, strict=True)
                    for seat, u in enumerate(people)
                ),
                *(solo_player(user, table) for user, table in solos),
            )
            lagged = list(lags)  # in time order: the report below sorts them
            elapsed = time.monotonic() - marks["began"]
            gc.enable()
            moves0, calls0 = int(marks["moves"]), int(marks["calls"])
            own0 = marks["own"]
            cpus = fleet.cpu()
            cpu = sum(cpus.values()) - sum(cpu_marks[0].values())
            waited = sum(waited_seconds(m.pid) for m in fleet.members if m.alive)
            waited -= marks["waited"]
            applied = await moves() - moves0
            played_solo = await computer_moves() - int(marks["computer_moves"])
            under = workers_cpu() - marks["workers"]
            wall_end = time.time()
            costs.append(await db.costs())
            machine.append(machine_cpu())
            measured = tg.calls[calls0:]
            calls = sum(1 for c in measured if c.method != "getUpdates")
            print(f"applied moves {applied} in {elapsed:.0f} s: {applied / elapsed:.1f} moves/s")
            if computer_tables:
                print(
                    f"  at the human tables {applied - played_solo} "
                    f"({(applied - played_solo) / elapsed:.1f}/s), at the computer tables "
                    f"{played_solo} ({played_solo / elapsed:.1f}/s, "
                    f"{played_solo / elapsed / computer_tables:.2f}/s a table); "
                    f"Play again pressed {rematches} times"
                )
            print(
                f"bot CPU {cpu / max(applied, 1) * 1000:.1f} ms per move "
                f"({cpu / elapsed * 100:.0f}% of one core); the processes under it "
                f"(computer players' and coach's workers) {under:.1f} s "
                f"({under / elapsed * 100:.0f}% of one core)"
            )
            busy, _, total = (y - x for x, y in zip(machine[0], machine[1], strict=True))
            pg = (
                costs[1].cpu - costs[0].cpu
                if costs[0].cpu is not None and costs[1].cpu is not None
                else 0.0
            )
            print(
                f"the bot waited for a CPU (runnable, not running) {waited:.1f} s "
                f"({waited / elapsed * 100:.0f}% of the time)"
            )
            others = others_cpu = busy - cpu - under - pg - (time.process_time() - own0)
            print(
                f"machine {busy / total * 100:.0f}% busy; anything but the bot, its workers, "
                f"its database and the bench: {others:.1f} s "
                f"({others / elapsed * 100:.0f}% of one core)"
            )
            for member in fleet.members:
                spent = cpus[member.index] - cpu_marks[0][member.index]
                mine = [c for c in measured if c.port == member.port]
                polls = [c for c in mine if c.method == "getUpdates"]
                print(
                    f"  process {member.index}: CPU {spent:.1f} s "
                    f"({spent / elapsed * 100:.0f}% of one core), "
                    f"{len(mine) - len(polls)} calls, "
                    f"{sum(1 for c in mine if c.method == 'answerCallbackQuery')} answers, "
                    f"{len(polls)} getUpdates "
                    f"({sum(1 for c in polls if c.error_code == 409)} answered 409)"
                    + (f", {len(member.lives)} lives" if len(member.lives) > 1 else "")
                )
            report_costs(db.kind, costs[0], costs[1], applied, elapsed, cpu)
            # the bot catches up, then every hand and table must show its current state
            tg.set_faults(None)

            async def not_current(arrivals_now: Arrivals) -> tuple[int, int, list[str]]:
                """Hands and tables that do not show their table's stored state (and a
                few of the hands, said)."""
                stale_hands = stale_tables = 0
                said: list[str] = []
                for table, (group, people) in zip(table_ids, groups, strict=True):
                    version, game = await stored_game(table)
                    if game is None:
                        continue  # finished: its end is another message
                    message_id = await db.value(
                        "SELECT group_message_id FROM tables WHERE table_id = ?", table
                    )
                    message = tg.message(group, message_id) if message_id else None
                    lines = fingerprint(game, names[table])
                    if message is None or not all(line in (message.text or "") for line in lines):
                        stale_tables += 1
                    for seat, user in enumerate(people):
                        if seat in game.public_view().finish_order:
                            continue
                        hand = hand_of(user, group)
                        if hand_versions(hand) != {version}:  # type: ignore[arg-type]
                            stale_hands += 1
                            if len(said) < 5:
                                sent = arrivals_now.hands.get(user.id, [])  # type: ignore[attr-defined]
                                said.append(
                                    f"table {table} seat {seat} (user {user.id}): "  # type: ignore[attr-defined]
                                    f"stored v{version}, "
                                    + (
                                        f"hand shows {sorted(hand_versions(hand))}"  # type: ignore[arg-type]
                                        if hand is not None
                                        else "no hand visible"
                                    )
                                    + (
                                        f", last drawn v{sent[-1][1]} "
                                        f"{tg.world.elapsed() - sent[-1][0]:.1f} s ago"
                                        if sent
                                        else ", never drawn"
                                    )
                                )
                return stale_hands, stale_tables, said

            await asyncio.sleep(15.0)
            arrivals = Arrivals(tg.calls, in_group=in_group)
            looks = [await not_current(arrivals)]
            if in_group and (looks[0][0] or looks[0][1]):
                # ephemeral messages that share the group's budget may take longer: a
                # second look, and the latencies below count what came meanwhile
                await asyncio.sleep(30.0)
                arrivals = Arrivals(tg.calls, in_group=True)
                looks.append(await not_current(arrivals))
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
            unanswered = [p for p in pressed if p.time >= marks["at"] and p.answered is None]
            print(f"  presses never answered: {why_unanswered(unanswered, tg.calls, 0.0)}")
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
            if killed:
                await report_kill(killed, tg.calls, made, pressed, arrivals, db, marks["at"])
            if restarts:
                report_restarts(restarts, made, pressed, arrivals, marks["at"])
            print(
                f"Bot API calls per move {calls / max(applied, 1):.2f} "
                f"(answers {sum(1 for c in measured if c.method == 'answerCallbackQuery')})"
            )
            by_method: dict[str, int] = {}
            for call in measured:
                if call.method != "getUpdates":
                    label = method_label(call)
                    by_method[label] = by_method.get(label, 0) + 1
            print(
                "  by method, per move:",
                {
                    k: round(v / max(applied, 1), 2)
                    for k, v in sorted(by_method.items(), key=lambda x: -x[1])
                },
            )
            print(f"429s drawn: {len(tg.rate_limited)}; faults served: {len(tg.faulted)}")
            limited_human = sum(
                1
                for c in tg.rate_limited
                if c.time >= marks["at"] and c.params.get("chat_id") not in solo_chats
            )
            if computer_tables:
                print(f"  in the human tables' chats, in the measured time: {limited_human}")
            kinds: dict[str, int] = {}
            if tg.rate_limited:
                for call in tg.rate_limited:
                    chat = call.params.get("chat_id")
                    where = "a group" if isinstance(chat, int) and chat < 0 else "a private chat"
                    if ephemeral_receiver(call) is not None:
                        where = "a group, ephemeral"
                    member = fleet.member_of(call)
                    key = f"{call.method} in {where}" + (
                        f" by process {member.index}"
                        if member is not None and processes > 1
                        else ""
                    )
                    kinds[key] = kinds.get(key, 0) + 1
                chats = len({c.params.get("chat_id") for c in tg.rate_limited})
                when = [c.time - marks["at"] for c in tg.rate_limited]
                print(
                    f"  429s in {chats} chats, {min(when):.1f}-{max(when):.1f} s into the "
                    f"measured time: {kinds}"
                )
                counts = [c.retry_after or 0 for c in tg.rate_limited]
                print(f"  retry_after: max {max(counts)} s, {sum(counts)} s in all")
            lags.sort()
            if lags:
                print(
                    f"simulator's event-loop lag p50 {statistics.median(lags) * 1000:.1f} ms, "
                    f"p99 {lags[int(len(lags) * 0.99)] * 1000:.1f} ms, max {lags[-1] * 1000:.1f} ms"
                )
            print(f"bot memory per table {per_table / 1024:.0f} KB")
            print("answers:", texts)

            where = "in-group " if in_group else ""
            print(
                f"after play stopped (15 s later): {looks[0][0]} {where}hands and "
                f"{looks[0][1]} tables not current"
            )
            for line in looks[0][2]:
                print(f"  {line}")
            if len(looks) > 1:
                print(
                    f"  45 s after play stopped: {looks[1][0]} in-group hands and "
                    f"{looks[1][1]} tables not current"
                )
                for line in looks[1][2]:
                    print(f"    {line}")
            stale_hands, stale_tables, _ = looks[-1]
            strays = 0
            for group, people in groups:
                for user in people:
                    if in_group:
                        seen = tg.ephemeral_messages(group, user)  # type: ignore[arg-type]
                    else:
                        seen = tg.messages(tg.private_chat(user), from_bot=True)  # type: ignore[arg-type]
                    last = seen[-1] if seen else None
                    strays += sum(
                        1
                        for m in seen
                        if m is not last
                        and not m.deleted
                        and any(kind_of(b.callback_data or "") == "t" for b in m.button_list)
                    )
            print(f"old copies of a hand with live card buttons: {strays}")
            if in_group:
                report_my_cards(asked_cards, tg.calls, marks["at"], again_after)
                copies = [
                    len(tg.ephemeral_messages(g, u))  # type: ignore[arg-type]
                    for g, people in groups
                    for u in people
                ]
                deleted = sum(
                    1 for c in tg.calls if c.method == "deleteEphemeralMessage" and c.applied
                )
                print(
                    f"in-group hands each player sees at the end: max {max(copies, default=0)}, "
                    f"{sum(1 for n in copies if n > 1)} players see more than one, "
                    f"{sum(1 for n in copies if n == 0)} none; "
                    f"deleteEphemeralMessage calls applied: {deleted}"
                )
                ids = {u.id for u in users}  # type: ignore[attr-defined]
                private = sum(1 for c in tg.calls if c.params.get("chat_id") in ids)
                print(f"calls to the players' private chats: {private}")
            decisions: list[float] = []
            solo_answers = [answered for _, answered, _, _ in solo_pressed]
            solo_own = [
                got
                for began, _, uid, version in solo_pressed
                for got in [arrivals.hand(uid, began, version)]
                if got is not None
            ]
            if computer_tables:
                decisions = await computer_decisions(
                    db, solo_ids, marks["wall"], wall_end, pause_before_computer(changed)
                )
                print(
                    f"the computer tables ({computer_tables}, one human and "
                    f"{COMPUTER_OPPONENTS} {computer_level} computers each):"
                )
                print(
                    f"  {len(decisions)} computer moves in the measured time, from the move "
                    f"before to its own, less the bot's {pause_before_computer(changed):.1f} s "
                    f"pause (the decision, its wait for a worker, and the level's floor of "
                    f"{think_floor(computer_level) * 1000:.0f} ms): {percentiles(decisions)}"
                )
                print(
                    f"  the human's press -> callback answer:   {percentiles(solo_answers)}; "
                    f"{len(solo_late)} presses not answered by the end of play"
                )
                print(f"  the human's press -> his table shows it: {percentiles(solo_own)}")
            report_bot_log(fleet)
            print(
                f"bench process CPU {(time.process_time() - own0) / elapsed * 100:.0f}% of one core"
            )
            await report_sizes(db)
            if reviewers:
                report_reviews(
                    windows, made, arrivals, tg.calls, asked, await reviews_made(), lagged
                )
            return Summary(
                hands="in-group" if in_group else "private",
                tables=tables,
                seconds=elapsed,
                applied=applied,
                cpu=cpu,
                felt=felt["next actor"],
                answers=answers,
                calls=calls,
                by_method=by_method,
                limited=kinds,
                stale_hands=stale_hands,
                stale_tables=stale_tables,
                again=sum(1 for a in asked_cards if a.why != "first"),
                others=others_cpu,
                label=phase,
                workers=under,
                human_moves=applied - played_solo,
                limited_human=limited_human,
                computer_tables=computer_tables,
                computer_level=computer_level if computer_tables else "",
                computer_moves=played_solo,
                decisions=decisions,
                solo_answers=solo_answers,
                solo_own=solo_own,
                waited=waited,
            )


def pause_before_computer(settings: dict[str, str]) -> float:
    """Seconds the bot waits before a computer player moves: ``DURAK_AI_DELAY`` if the run
    sets it, else the bot's default."""
    if "DURAK_AI_DELAY" in settings:
        return float(settings["DURAK_AI_DELAY"])
    return float(Settings.model_fields["ai_delay"].default)


async def computer_decisions(
    db: BenchDatabase, tables: list[int], since: float, until: float, pause: float
) -> list[float]:
    """The computer players' moves at ``tables`` stored between the wall-clock times
    ``since`` and ``until``: for each, the seconds from the move stored before it in its
    game (the game's start, for its first move) to its own, less ``pause``. The bot
    schedules a computer's move when the move before it is stored, so this is what the
    bot waited on: the decision in a worker, the wait for a free worker, and the level's
    floor (a decision never comes sooner)."""
    if not tables:
        return []
    listed = ",".join(str(t) for t in tables)
    rows = await db.rows(
        "SELECT table_id, game_no, 0, NULL, started_at FROM games "
        f"WHERE table_id IN ({listed}) "
        "UNION ALL SELECT table_id, game_no, seq, seat, at FROM actions "
        f"WHERE table_id IN ({listed}) ORDER BY 1, 2, 3"
    )
    found = []
    for before, row in itertools.pairwise(rows):
        same_game = (before[0], before[1]) == (row[0], row[1])
        # seat 0 is the human; a computer is any other seat
        computer = int(row[2]) > 0 and row[3] is not None and int(row[3]) != 0
        if same_game and computer and since <= row[4] <= until:
            found.append(float(row[4]) - float(before[4]) - pause)
    return found


def report_my_cards(
    asked: list[MyCards], calls: list[ApiCall], began: float, again_after: float
) -> None:
    """How often the in-group players pressed "My cards", and how soon the hand came."""
    sent: dict[str, float] = {}
    for call in calls:
        if call.method == "sendMessage" and call.applied:
            query = ephemeral_query(call)
            if query is not None and query not in sent:
                sent[query] = call.time
    for why, label in (
        ("first", "once the game started"),
        ("gone", "again, his hand gone"),
        ("stale", f"again, his hand behind for {again_after:.0f} s"),
    ):
        these = [a for a in asked if a.why == why]
        if not these and why != "first":
            print(f'"My cards" pressed {label}: 0')
            continue
        waits = [sent[a.query] - a.time for a in these if a.query in sent]
        inside = sum(1 for a in these if a.measured)
        print(
            f'"My cards" pressed {label}: {len(these)} ({inside} in the measured time); '
            f"press -> his hand sent {percentiles(waits)}; {len(these) - len(waits)} never sent"
        )
    again = [a for a in asked if a.why != "first" and a.measured]
    if again:
        first = min(a.time for a in again) - began
        last = max(a.time for a in again) - began
        print(
            f"  pressed again by {len({a.user for a in again})} players, "
            f"{first:.1f}-{last:.1f} s into the measured time"
        )


def report_bot_log(fleet: Fleet) -> None:
    """What the bot wrote (it logs warnings and errors only): how much, and the first few
    lines of each kind."""
    lines = [
        line for m in fleet.members if m.bot is not None for line in m.bot.lines if line.strip()
    ]
    kinds: dict[str, int] = {}
    first: dict[str, str] = {}
    for line in lines:
        level = next(
            (w for w in ("CRITICAL", "ERROR", "WARNING", "Traceback") if w in line), "other"
        )
        kinds[level] = kinds.get(level, 0) + 1
        # the same message about another chat is the same kind
        key = re.sub(r"-?\d+", "#", " ".join(line.split()[2:]))[:70]
        if level != "other" and key not in first and len(first) < 8:
            first[key] = line
    print(f"the bot's log: {len(lines)} lines {kinds or ''}")
    for line in first.values():
        print(f"  {line[:300]}")


async def report_kill(
    killed: dict[str, object],
    calls: list[ApiCall],
    made: list[Move],
    pressed: list[Pressed],
    arrivals: Arrivals,
    db: BenchDatabase,
    began: float,
) -> None:
    """How the tables came through a SIGKILL."""
    at = float(killed["at"])  # type: ignore[arg-type]
    member = killed["member"]
    assert isinstance(member, Member)
    tables = set(killed["tables"])  # type: ignore[call-overload]
    restarted = bool(killed.get("restarted"))
    print(
        f"SIGKILL of process {member.index} ({'the poller' if killed['poller'] else 'not polling'}"
        f", drawing {len(tables)} tables) {at - began:.0f} s into the measured time"
        + ("; no other process left, so started again at once" if restarted else "")
    )
    # a call of the killed process's may reach the server just after the kill: only a
    # process alive then, or its own next life, counts
    since = float(killed["restarted"]) if restarted else math.inf  # type: ignore[arg-type]
    polls = [
        c.time
        for c in calls[int(killed["calls"]) :]  # type: ignore[call-overload]
        if c.method == "getUpdates" and c.time > at and (c.port != member.port or c.time >= since)
    ]
    if killed["poller"]:
        print(
            ("  it polls again " if restarted else "  another process polls ")
            + (f"{min(polls) - at:.2f} s after the kill" if polls else "never, within the run")
            + " (the fake server's first getUpdates after it)"
        )
    # when the fake server got each answer (the killed process may have sent one just
    # before it died that the bench saw just after)
    answered_at = {
        str(c.params.get("callback_query_id")): c.time
        for c in reversed(calls)
        if c.method == "answerCallbackQuery" and c.ok
    }
    first_answer: dict[int, float] = {}
    for p in pressed:
        got = answered_at.get(p.query)
        if p.table in tables and got is not None and got > at:
            first_answer[p.table] = min(first_answer.get(p.table, got), got)
    stored = {
        int(t): float(when)
        for t, when in await db.rows(
            "SELECT table_id, min(at) FROM actions WHERE at > ? GROUP BY table_id",
            float(killed["wall"]),  # type: ignore[arg-type]
        )
        if int(t) in tables
    }
    wall = float(killed["wall"])  # type: ignore[arg-type]
    print(
        f"  its tables, from the kill to the first answered press: "
        f"{seconds_list([v - at for v in first_answer.values()])}"
        f" ({len(tables) - len(first_answer)} never)"
    )
    print(
        f"  its tables, from the kill to the first move stored: "
        f"{seconds_list([v - wall for v in stored.values()])}"
        f" ({len(tables) - len(stored)} never)"
    )
    others = [
        got
        for m in made
        if m.table not in tables and at <= m.time < at + 10
        for got in [arrivals.hand(m.next_actor, m.time, m.version)]
        if got is not None
    ]
    print(
        f"  the other tables, press -> next actor's hand in the 10 s after: {percentiles(others)}"
    )
    lost = [p for p in pressed if p.time <= at + 10 and p.answered is None and p.time >= at - 30]
    print(f"  presses around the kill never answered: {why_unanswered(lost, calls, at)}")


def report_restarts(
    restarts: list[tuple[int, float, float, float, float]],
    made: list[Move],
    pressed: list[Pressed],
    arrivals: Arrivals,
    began: float,
) -> None:
    """How the tables came through a rolling restart of every process."""
    first, last = restarts[0][1], restarts[-1][4]
    print(
        f"rolling SIGTERM restart of {len(restarts)} process{'es' if len(restarts) > 1 else ''}, "
        f"{first - began:.0f} s into the "
        f"measured time, {last - first:.1f} s in all:"
    )
    for index, asked, exited, back, up in restarts:
        print(
            f"  process {index}: exited {exited - asked:.1f} s after SIGTERM, back (getMe) "
            f"{back - exited:.1f} s after that"
            + (f", holding its share of the shards {up - back:.1f} s later" if up > back else "")
        )
    until = last + LOAD_GRACE + 5.0
    during = [m for m in made if first <= m.time < until]
    felt = [
        got
        for m in during
        for got in [arrivals.hand(m.next_actor, m.time, m.version)]
        if got is not None
    ]
    answers = [p.answered - p.time for p in pressed if first <= p.time < until and p.answered]
    never = sum(1 for p in pressed if first <= p.time < until and p.answered is None)
    print(
        f"  from the first SIGTERM until 5 s after the last is ready, {len(during)} moves: "
        f"press -> next actor's hand {percentiles(felt)}"
    )
    print(
        f"  the longest pause a table saw: {max([*felt, *answers], default=0.0):.2f} s "
        f"(press -> callback answer max {max(answers, default=0.0):.2f} s); "
        f"{never} presses never answered"
    )


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
    parser.add_argument(
        "--reviews",
        type=int,
        default=0,
        metavar="N",
        help="N players ask the coach for reviews halfway through the measured time "
        "(the time is split into two windows, without and with them)",
    )
    parser.add_argument(
        "--bot-setting",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting of the bot's own (e.g. DURAK_COACH_WORKERS=0 for a control run)",
    )
    parser.add_argument(
        "--database",
        default="",
        metavar="URL",
        help="run the bot on PostgreSQL: a server's postgresql:// URL, or auto (the tests' "
        "server of $DURAK_TEST_DATABASE_URL, else a throwaway one); a database is made for "
        "the run and dropped after it. Default: SQLite",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        metavar="N",
        help="start the bot N times with the same settings (PostgreSQL only)",
    )
    parser.add_argument(
        "--kill",
        choices=("poller", "owner"),
        help="halfway through, SIGKILL the process that polls, or one that draws tables",
    )
    parser.add_argument(
        "--term",
        action="store_true",
        help="a third of the way through, restart every process in turn with SIGTERM",
    )
    parser.add_argument(
        "--in-group",
        action="store_true",
        help="every player plays through his hand in the group (an ephemeral message "
        'shown to him alone, opened with "My cards"); nobody starts the bot in private',
    )
    parser.add_argument(
        "--ephemeral-limits",
        choices=("own", "group"),
        default="own",
        help="the fake server's flood control of ephemeral messages: each (group, player) "
        "pair a private chat's budget (own, the default), or the group's 20 a minute shared "
        "with its other messages (group)",
    )
    parser.add_argument(
        "--my-cards-again",
        type=float,
        default=MY_CARDS_AGAIN,
        metavar="SECONDS",
        help="with --in-group: a player whose hand is gone or behind the table this long "
        f'presses "My cards" again (default {MY_CARDS_AGAIN:.0f}; 0: never)',
    )
    parser.add_argument(
        "--compare-hands",
        action="store_true",
        help="two phases, each with its own fake server and bot: private hands, then "
        "in-group hands (same tables, seconds and seed); their CPU per move and latencies "
        "side by side at the end",
    )
    parser.add_argument(
        "--computer-tables",
        type=int,
        default=0,
        metavar="N",
        help="besides the --tables human tables, N tables where one simulated human plays "
        "against three computer players in his private chat (/play; 4 seats, podkidnoy); "
        "the human tables' figures are reported apart",
    )
    parser.add_argument(
        "--computer-level",
        choices=COMPUTER_LEVELS,
        default="hard",
        help="the computer players' level at the computer tables (default hard)",
    )
    parser.add_argument(
        "--compare-computers",
        action="store_true",
        help="two phases, each with its own fake server and bot: the human tables alone, "
        "then beside the --computer-tables tables (same tables, seconds and seed); the "
        "human tables' latencies, CPU per move and 429s side by side at the end",
    )
    parser.add_argument(
        "--vs",
        type=Path,
        metavar="DIR",
        help="side by side: A runs the bot from the checkout DIR (e.g. a worktree of the "
        "commit to compare with), B from this one, alternately in one invocation with "
        "the same tables, seconds and seed, the order turned every other round (A B, B A, "
        "A B ...: a drift of the machine during the invocation weighs on both sides); the "
        "figures of both and B/A at the end",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        metavar="N",
        help="with --vs: how many A B pairs (default 2); with --compare-computers: how many "
        "pairs of phases, without and with the computer tables, one after the other "
        "(default 1; the figures of each side pooled, and each pair's ratio)",
    )
    parser.add_argument("--bot-root", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--phase-label", default="", help=argparse.SUPPRESS)
    parser.add_argument("--summary-to", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.vs is not None and not (args.vs / "bot" / "__main__.py").is_file():
        parser.error(f"--vs: {args.vs} holds no checkout of the bot (no bot/__main__.py)")
    if args.vs is not None and (args.compare_hands or args.kill or args.term or args.reviews):
        parser.error("--vs compares plain play")
    if any("=" not in item for item in args.bot_setting):
        parser.error("--bot-setting takes NAME=VALUE")
    if args.processes < 1:
        parser.error("--processes takes a number from 1")
    if args.processes > 1 and not args.database:
        parser.error("several processes make one bot only on PostgreSQL: give --database")
    if args.reviews and (args.processes > 1 or args.kill or args.term):
        parser.error("--reviews measures one process that runs throughout")
    if args.compare_hands and (args.in_group or args.reviews or args.kill or args.term):
        parser.error("--compare-hands runs a private and an in-group phase of plain play")
    if args.rounds is not None and (args.rounds < 1 or not (args.vs or args.compare_computers)):
        parser.error("--rounds takes a number from 1, with --vs or --compare-computers")
    if args.computer_tables < 0:
        parser.error("--computer-tables takes a number from 0")
    if args.compare_computers and not args.computer_tables:
        parser.error("--compare-computers needs --computer-tables N")
    if args.compare_computers and (
        args.compare_hands or args.vs is not None or args.reviews or args.kill or args.term
    ):
        parser.error("--compare-computers compares plain play without and with computer tables")

    def run(
        in_group: bool,
        bot_root: Path | None = None,
        computer_tables: int = args.computer_tables,
        label: str = "",
    ) -> Summary:
        return asyncio.run(
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
                args.reviews,
                tuple(args.bot_setting),
                args.database,
                args.processes,
                args.kill,
                args.term,
                in_group=in_group,
                ephemeral=args.ephemeral_limits,
                again_after=args.my_cards_again,
                bot_root=bot_root,
                computer_tables=computer_tables,
                computer_level=args.computer_level,
                phase=label,
            )
        )

    if args.vs is not None:
        # each run in a process of its own, as a run alone: nothing of one (the simulator's
        # frozen heap, its servers' ids) is left for the next
        import subprocess

        passed = without_options(sys.argv[1:], {"--vs", "--rounds"}, set())
        roots = {"A": args.vs.resolve(), "B": ROOT}
        sides: dict[str, list[Summary]] = {"A": [], "B": []}
        rounds = args.rounds or 2
        for n in range(rounds):
            # A B, then B A, ...: what drifts during the invocation weighs on both sides
            order = list(roots.items())
            for side, root in order if n % 2 == 0 else reversed(order):
                print(
                    f"--- round {n + 1} of {rounds}, {side}: the bot from {root} ---",
                    flush=True,
                )
                with tempfile.TemporaryDirectory() as kept:
                    where = Path(kept) / "summary.json"
                    command = [sys.executable, __file__, *passed, "--bot-root", str(root)]
                    done = subprocess.run([*command, "--summary-to", str(where)], check=False)
                    if done.returncode != 0 or not where.exists():
                        print(f"(the run failed with exit status {done.returncode}: left out)")
                        continue
                    sides[side].append(Summary(**json.loads(where.read_text())))
                print()
                print_sides({k: v for k, v in sides.items() if v}, roots)
                print()
    elif args.compare_hands:
        summaries = []
        for phase, in_group in enumerate((False, True), 1):
            print(f"--- phase {phase} of 2: {'in-group' if in_group else 'private'} hands ---")
            summaries.append(run(in_group))
            print()
        print_comparison(summaries)
    elif args.compare_computers:
        # each phase in a process of its own, as a run alone (see --vs)
        import subprocess

        passed = without_options(
            sys.argv[1:], {"--rounds", "--computer-tables"}, {"--compare-computers"}
        )
        phases = {
            "without computers": 0,
            f"with {args.computer_tables} computer tables": args.computer_tables,
        }
        runs: dict[str, list[Summary]] = {label: [] for label in phases}
        rounds = args.rounds or 1
        for n in range(rounds):
            for label, count in phases.items():
                print(
                    f"--- round {n + 1} of {rounds}: {args.tables} human tables {label} ---",
                    flush=True,
                )
                with tempfile.TemporaryDirectory() as kept:
                    where = Path(kept) / "summary.json"
                    command = [
                        sys.executable,
                        __file__,
                        *passed,
                        f"--computer-tables={count}",
                        f"--phase-label={label}",
                        f"--summary-to={where}",
                    ]
                    done = subprocess.run(command, check=False)
                    if done.returncode != 0 or not where.exists():
                        print(f"(the run failed with exit status {done.returncode}: left out)")
                        continue
                    runs[label].append(Summary(**json.loads(where.read_text())))
                print()
        print_comparison(
            [pooled(r) for r in runs.values() if r],
            "human tables without and with computer tables"
            + (f", {rounds} rounds pooled" if rounds > 1 else ""),
        )
        without, with_ = runs.values()
        if rounds > 1:
            pairs = [
                quantile(b.felt, 0.99) / quantile(a.felt, 0.99)
                for a, b in zip(without, with_, strict=False)
                if a.felt and b.felt
            ]
            print(
                "human tables' press -> next actor's hand p99, with / without, round by "
                "round: " + " ".join(f"{p:.2f}" for p in pairs)
            )
    else:
        summary = run(args.in_group, args.bot_root, label=args.phase_label)
        if args.summary_to is not None:
            args.summary_to.write_text(json.dumps(dataclasses.asdict(summary)))
