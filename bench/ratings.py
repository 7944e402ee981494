"""Ratings benchmark: do they order players rightly, are the odds honest, are they fast.

Run by hand, on one core: ``taskset -c 0 .venv/bin/python bench/ratings.py`` (``--only``
one part). Seeded; prints figures and asserts nothing.

- ``calibrate``: the computer levels play seeded games of 2 and 3 seats against each other
  (every lineup of different levels, seats rotated), each level rated as one player by the
  bot's model from a newcomer's rating. The mu each level ends at, shifted so that
  ``normal`` sits at a newcomer's mu, is what ``bot.ratings.model.COMPUTER_SKILLS`` holds.
- ``order``: simulated players of known strength — the levels and mixtures of two of them
  (each move at the higher level with probability p), far enough apart for 30 games to
  tell them apart (see ``POPULATION``) — play random 2-6 player podkidnoy games in three
  groups, rated as the bot rates them. Kendall's tau between the overall ratings and the
  true order, once every player has 10, 30 and 100 games (target: ≥ 0.8 at 30), beside
  the tau of the tally of results alone (how much more often than 1/n each was durak):
  what the games themselves can tell. For ``--seeds`` seeds, each and on average.
- ``odds``: in the same games, each game's chances of being durak, predicted as the bot
  predicts them (from the overall ratings; the group's own for comparison) before the
  game was rated (so on a game the ratings had not seen), on the last two thirds of each
  seed's games: log-loss against the uniform 1/n guess (target: at least 10% better),
  and the calibration table of predicted against observed, in deciles. Games drawn have
  no durak and are left out.
- ``speed``: the model's time to rate one finished 6-player game, and the store's whole
  rating step inside the finishing transaction (target: ≤ 2 ms).
- ``answers``: /top and /me (its chart and its achievements included) answered by the real
  bot against the fake Bot API server, with 10,000 players and 100,000 rated games in its
  database (their achievements given by ``rebuild_achievements``, each seat with a few
  feats at random): the time from the command to the bot's answer, p50 and p99 (target:
  p99 ≤ 300 ms). On Linux, /me's wall time is split (``/proc/*/schedstat``) into the time
  the bot's process and its chart worker were on a CPU and the time each waited for one:
  on a busy machine the waits are what a slow /me is made of.

The hard level plays with its search run to the end (no CPU-time cut), so a run is
reproducible.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import multiprocessing
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "tests"))  # the fake Bot API


from bot.ratings.achievements import FEATS, KNOWN
from bot.ratings.model import (
    NEWCOMER,
    OVERALL,
    FinishedGame,
    RatedSeat,
    Skill,
    durak_chances,
    rate,
    shown,
)
from bot.store import Outcome, Seat, SqliteStore
from bot.store.achievements import award_game
from bot.store.models import seats_to_json
from bot.store.ratings import rate_game
from bot.store.sqlite import SQLITE
from bot.store.steps import run_sync
from engine import Rules
from engine.actions import Action
from engine.ai import HardPlayer, SearchConfig, make_player, play_game
from engine.ai.players import Player
from engine.views import SeatView

PODKIDNOY = Rules.preset("podkidnoy")
LEVELS = ("easy", "normal", "hard")


def level_player(level: str) -> Player:
    """A computer level; the hard one searches to the end (reproducible)."""
    if level == "hard":
        return HardPlayer(SearchConfig(budget=None))
    return make_player(level)


class Mixed:
    """Plays each move at level ``high`` with probability ``p``, else at ``low``."""

    level = "mixed"

    def __init__(self, low: str, high: str, p: float, seed: int) -> None:
        self.low, self.high = level_player(low), level_player(high)
        self.p = p
        self.rng = random.Random(seed)

    def choose(
        self, view: SeatView, rules: Rules, *, seed: int = 0, budget: float | None = None
    ) -> Action:
        player = self.high if self.rng.random() < self.p else self.low
        return player.choose(view, rules, seed=seed, budget=budget)


@dataclass(frozen=True)
class Simulated:
    """A simulated player: his name, his true strength's rank, how he plays."""

    name: str
    strength: float
    low: str
    high: str
    p: float

    def player(self, seed: int) -> Player:
        if self.p >= 1.0:
            return level_player(self.high)
        if self.p <= 0.0:
            return level_player(self.low)
        return Mixed(self.low, self.high, self.p, seed)


POPULATION = (
    Simulated("easy", 0.0, "easy", "easy", 1.0),
    Simulated("easy+15% normal", 1.0, "easy", "normal", 0.15),
    Simulated("easy+35% normal", 2.0, "easy", "normal", 0.35),
    Simulated("easy+65% normal", 3.0, "easy", "normal", 0.65),
    Simulated("normal", 4.0, "normal", "normal", 1.0),
    Simulated("hard", 5.0, "hard", "hard", 1.0),
)
"""Players far enough apart for 30 games to tell them apart: after 100 games each (5
seeds), each was durak 0.06-0.14 a game more often than the next stronger one (against
1/n). Players closer than that are beyond what 30 games can tell: on the population this
benchmark had first, eight with easy+25/50/75% normal and normal+33/67% hard, some only
0.02 a game apart (a mixture of normal and hard plays about as well as hard), the tally
of results alone ordered them with tau 0.69 after 30 games (5 seeds, 0.57-0.93)."""
GROUPS = ((0, 1, 2, 3, 4, 5),) * 3
"""Three groups of all six, so that games of 2 to 6 are played in each."""


def result_of(seats: Sequence[Player], seed: int) -> tuple[tuple[int, ...], bool, dict[int, int]]:
    """Play one game: (durak seats, draw, moves per seat)."""
    game = play_game(PODKIDNOY, list(seats), seed=seed)
    result = game.result
    assert result is not None
    moves = {s: game.moves for s in range(len(seats))}  # every seat made its moves
    return (result.losers, result.draw, moves)


# ---------------------------------------------------------------- calibration


def calibrate(games: int, seed: int) -> dict[str, Skill]:
    lineups = [combo for size in (2, 3) for combo in itertools.combinations(LEVELS, size)]
    skills: dict[tuple[int, int], Skill] = {}
    ids = {level: i + 1 for i, level in enumerate(LEVELS)}
    losses: Counter[str] = Counter()
    seats_played: Counter[str] = Counter()
    start = time.process_time()
    for g in range(games):
        lineup = list(lineups[g % len(lineups)])
        shift = (g // len(lineups)) % len(lineup)
        lineup = lineup[shift:] + lineup[:shift]
        durak, draw, moves = result_of([level_player(x) for x in lineup], seed + g)
        for i, level in enumerate(lineup):
            seats_played[level] += 1
            losses[level] += int(i in durak)
        game = FinishedGame(
            chat_id=OVERALL,
            seats=tuple(RatedSeat(ids[level]) for level in lineup),
            durak_seats=durak,
            draw=draw,
            moves=moves,
        )
        for change in rate(game, skills):
            skills[(change.scope, change.user_id)] = change.after
    final = {level: skills[(OVERALL, ids[level])] for level in LEVELS}
    shift = NEWCOMER.mu - final["normal"].mu
    fixed = {level: Skill(s.mu + shift, s.sigma) for level, s in final.items()}
    print(f"calibration: {games} games of 2-3 seats ({time.process_time() - start:.0f} s CPU)")
    for level in LEVELS:
        s = final[level]
        print(
            f"  {level:>6}: mu {s.mu:6.2f} sigma {s.sigma:5.2f} -> fixed mu {fixed[level].mu:6.2f}"
            f"  (durak in {losses[level] / seats_played[level]:.0%} of "
            f"{seats_played[level]} seat-games)",
            flush=True,
        )
    return fixed


# ---------------------------------------------------------------- order and odds


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b of two sequences."""
    concordant = discordant = ties_x = ties_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            ties_x += 1
        elif dy == 0:
            ties_y += 1
        elif (dx > 0) == (dy > 0):
            concordant += 1
        else:
            discordant += 1
    n0 = concordant + discordant
    denominator = math.sqrt((n0 + ties_x) * (n0 + ties_y))
    return (concordant - discordant) / denominator if denominator else 0.0


@dataclass
class Prediction:
    chances: list[float]
    """From the overall ratings, as the bot's odds."""
    group: list[float]
    """From the group's own ratings."""
    durak: int


@dataclass
class Run:
    """One seed's games: the odds predicted before each game was rated, and Kendall's tau
    at each mark, of the ratings and of the tally."""

    predictions: list[Prediction]
    tau: dict[int, float]
    tally: dict[int, float]


def simulate(checkpoints: Sequence[int], seed: int) -> Run:
    rng = random.Random(seed)
    skills: dict[tuple[int, int], Skill] = {}
    played: Counter[int] = Counter()
    # the tally: how much more often than 1/n each was durak, in the games with a durak
    losses: Counter[int] = Counter()
    expected: defaultdict[int, float] = defaultdict(float)
    run = Run([], {}, {})
    marks = list(checkpoints)
    start = time.process_time()
    g = 0
    truth = [p.strength for p in POPULATION]
    print(f"seed {seed}:")
    while marks:
        group = rng.randrange(len(GROUPS))
        chat = -(group + 1)
        members = list(GROUPS[group])
        # the least played are seated first, so that everybody reaches the marks together
        rng.shuffle(members)
        members.sort(key=lambda m: played[m])
        size = rng.randint(2, 6)
        seated = members[:size]
        rng.shuffle(seated)
        durak, draw, moves = result_of(
            [POPULATION[m].player(seed * 1000 + g * 10 + i) for i, m in enumerate(seated)],
            seed + g,
        )
        if not draw:
            overall = durak_chances([[skills.get((OVERALL, m + 1), NEWCOMER)] for m in seated])
            group = durak_chances([[skills.get((chat, m + 1), NEWCOMER)] for m in seated])
            run.predictions.append(Prediction(overall, group, durak[0]))
            for i, m in enumerate(seated):
                losses[m] += int(i in durak)
                expected[m] += 1 / size
        game = FinishedGame(
            chat_id=chat,
            seats=tuple(RatedSeat(m + 1) for m in seated),
            durak_seats=durak,
            draw=draw,
            moves=moves,
        )
        for change in rate(game, skills):
            skills[(change.scope, change.user_id)] = change.after
        for m in seated:
            played[m] += 1
        g += 1
        least = min(played[m] for m in range(len(POPULATION)))
        while marks and least >= marks[0]:
            everyone = range(len(POPULATION))
            ratings = [skills.get((OVERALL, m + 1), NEWCOMER).ordinal for m in everyone]
            tally = [(expected[m] - losses[m]) / played[m] for m in everyone]
            mark = marks.pop(0)
            run.tau[mark] = kendall_tau(truth, ratings)
            run.tally[mark] = kendall_tau(truth, tally)
            print(
                f"  after {mark:3d} games per player ({g} games, "
                f"{time.process_time() - start:.0f} s CPU): Kendall tau {run.tau[mark]:.2f} "
                f"(the tally of results alone: {run.tally[mark]:.2f})",
                flush=True,
            )
            for m, who in enumerate(POPULATION):
                s = skills.get((OVERALL, m + 1), NEWCOMER)
                print(
                    f"    {who.name:>16}: {shown(s):5d}  (mu {s.mu:5.2f} sigma {s.sigma:4.2f},"
                    f" {played[m]} games, durak {-tally[m]:+.2f} a game against 1/n)"
                )
    return run


def report_order(runs: Sequence[Run]) -> None:
    for mark in runs[0].tau:
        taus = [run.tau[mark] for run in runs]
        tallies = [run.tally[mark] for run in runs]
        print(
            f"order after {mark} games per player, {len(runs)} seeds: Kendall tau "
            f"{statistics.fmean(taus):.2f} on average ({min(taus):.2f}-{max(taus):.2f}); "
            f"the tally of results alone {statistics.fmean(tallies):.2f} "
            f"({min(tallies):.2f}-{max(tallies):.2f})"
        )


def report_odds(runs: Sequence[Run]) -> None:
    held = [p for run in runs for p in run.predictions[len(run.predictions) // 3 :]]
    model = -statistics.fmean(math.log(max(p.chances[p.durak], 1e-12)) for p in held)
    group = -statistics.fmean(math.log(max(p.group[p.durak], 1e-12)) for p in held)
    uniform = -statistics.fmean(math.log(1 / len(p.chances)) for p in held)
    print(
        f"odds: {len(held)} games predicted before being rated (the last two thirds of "
        f"each seed's): "
        f"log-loss {model:.3f} from the overall ratings (the bot's odds) against {uniform:.3f}"
        f" for 1/n, {1 - model / uniform:.1%} better; from the group's own ratings "
        f"{group:.3f}, {1 - group / uniform:.1%} better"
    )
    bins: dict[int, list[tuple[float, int]]] = {}
    for p in held:
        for seat, chance in enumerate(p.chances):
            bins.setdefault(min(9, int(chance * 10)), []).append((chance, int(seat == p.durak)))
    print("  predicted chance of being durak -> how often it happened")
    for decile in range(10):
        found = bins.get(decile, [])
        if not found:
            continue
        predicted = statistics.fmean(c for c, _ in found)
        observed = statistics.fmean(o for _, o in found)
        print(
            f"  {decile * 10:3d}-{decile * 10 + 10:3d}%: predicted {predicted:5.1%}  "
            f"observed {observed:5.1%}  ({len(found)} seats)"
        )


# ---------------------------------------------------------------- speed of the model


def model_speed(reps: int = 2000) -> None:
    game = FinishedGame(
        chat_id=-1,
        seats=tuple(RatedSeat(i + 1) for i in range(6)),
        durak_seats=(3,),
        draw=False,
        moves=dict.fromkeys(range(6), 10),
    )
    skills = {(scope, i + 1): Skill(20 + i, 3 + i / 2) for i in range(6) for scope in (-1, 0)}
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        rate(game, skills)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    print(f"model: rating one 6-player game (its group and overall ratings): {ms(wall, cpu)}")


def ms(wall: list[float], cpu: list[float]) -> str:
    """p50 and p99 of wall-clock and CPU times (the CPU time leaves out the waits of a
    busy machine)."""

    def cut(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000

    return (
        f"wall p50 {cut(wall, 0.5):.2f} ms p99 {cut(wall, 0.99):.2f} ms; "
        f"CPU p50 {cut(cpu, 0.5):.2f} ms p99 {cut(cpu, 0.99):.2f} ms"
    )


# ---------------------------------------------------------------- a big database


def build_database(
    path: Path, users: Sequence[int], groups: Sequence[tuple[int, Sequence[int]]], games: int
) -> None:
    """Users, groups and ``games`` finished games (2-6 of a group's members each, three
    moves each in the log, each seat's line with feats drawn at random) written as the bot
    writes them, not rated yet."""
    rng = random.Random(7)
    con = sqlite3.connect(path)
    con.executemany(
        "INSERT INTO users (user_id, name, language, can_message, updated_at) "
        "VALUES (?, ?, 'en', 1, 0)",
        [(u, f"Player {u % 100_000}") for u in users],
    )
    numbers: Counter[int] = Counter()
    game_rows = []
    action_rows = []
    player_rows = []
    at = 1_700_000_000.0
    for _ in range(games):
        index = rng.randrange(len(groups))
        chat, members = groups[index]
        table = index + 1
        numbers[table] += 1
        n = rng.randint(2, 6)
        seated = rng.sample(list(members), n)
        at += rng.uniform(1, 30)
        seats = seats_to_json([Seat.human(u, f"Player {u % 100_000}") for u in seated])
        if rng.random() < 0.03:
            outcome = Outcome((), True, False, (1,) * n)
        else:
            durak = rng.randrange(n)
            outcome = Outcome(
                (durak,), False, False, tuple(0 if s == durak else 2 for s in range(n))
            )
        game_rows.append(
            (table, numbers[table], chat, 1, "{}", seats, at - 600, at, outcome.to_json(), "end")
        )
        for s, u in enumerate(seated):
            feats = KNOWN | sum(bit for bit in FEATS[1:] if rng.random() < 0.05)
            lost = int(s in outcome.durak_seats)
            draw, points = int(outcome.draw), outcome.points[s]
            player_rows.append(
                (table, numbers[table], s, chat, f"u:{u}", u, n, lost, 0, draw, points, at, feats)
            )
        log = [(s, json.dumps({"type": "pass", "seat": s})) for _ in range(3) for s in range(n)]
        action_rows += [(table, numbers[table], i + 1, s, a, at) for i, (s, a) in enumerate(log)]
    con.executemany(
        "INSERT INTO tables (table_id, chat_id, status, seats, rules, game_no, created_at, "
        "updated_at) VALUES (?, ?, 'finished', '[]', '{}', ?, 0, 0)",
        [(i + 1, chat, numbers[i + 1]) for i, (chat, _) in enumerate(groups)],
    )
    con.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", game_rows)
    con.executemany("INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?)", action_rows)
    con.executemany(
        "INSERT INTO game_players VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", player_rows
    )
    con.commit()
    con.close()


async def store_speed(path: Path, users: Sequence[int], reps: int = 200) -> None:
    """The finishing save of a 6-player game (result, tallies and ratings, one
    transaction), and the rating step alone, in the big database."""
    rng = random.Random(11)
    finish: list[float] = []
    finish_cpu: list[float] = []
    listing: list[float] = []
    listing_cpu: list[float] = []
    async with SqliteStore.open(path) as store:
        for r in range(reps):
            seats = tuple(Seat.human(u, f"Player {u}") for u in rng.sample(list(users), 6))
            lobby = await store.create_table(-1, rules="{}", seats=seats)
            table = await store.start_game(lobby.table_id, lobby.version, seed=r, game="s")
            version = table.version
            for i in range(17):
                saved = await store.save_action(
                    table.table_id, version, game="s", action='{"type":"pass"}', seat=i % 6
                )
                version = saved.version
            outcome = Outcome(
                (r % 6,), False, False, tuple(0 if s == r % 6 else 2 for s in range(6))
            )
            start, cpu = time.perf_counter(), time.process_time()
            await store.save_action(
                table.table_id,
                version,
                game="end",
                action='{"type":"pass"}',
                seat=5,
                outcome=outcome,
            )
            finish.append(time.perf_counter() - start)
            finish_cpu.append(time.process_time() - cpu)
        for user in rng.sample(list(users), reps):
            start, cpu = time.perf_counter(), time.process_time()
            await store.achievements_of(user)
            listing.append(time.perf_counter() - start)
            listing_cpu.append(time.process_time() - cpu)
    alone: list[float] = []
    alone_cpu: list[float] = []
    earning: list[float] = []
    earning_cpu: list[float] = []
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        last = conn.execute("SELECT max(table_id) FROM tables").fetchone()[0]
        for back in range(reps):
            table_id = int(last) - back  # the games just saved, rated again and undone
            conn.execute("BEGIN IMMEDIATE")
            for sql in (
                "DELETE FROM rated_games WHERE table_id = ?",
                "DELETE FROM rating_history WHERE table_id = ?",
                "DELETE FROM achievements WHERE game_id IN (SELECT seq FROM rated_games "
                "WHERE table_id = ?)",
            ):
                conn.execute(sql, (table_id,))
            start, cpu = time.perf_counter(), time.process_time()
            run_sync(conn, rate_game(SQLITE, table_id, 1))
            alone.append(time.perf_counter() - start)
            alone_cpu.append(time.process_time() - cpu)
            start, cpu = time.perf_counter(), time.process_time()
            run_sync(conn, award_game(SQLITE, table_id, 1))
            earning.append(time.perf_counter() - start)
            earning_cpu.append(time.process_time() - cpu)
            conn.execute("ROLLBACK")
    finally:
        conn.close()

    print(
        "store: the finishing save of a 6-player game (result, tallies, ratings, "
        f"achievements): {ms(finish, finish_cpu)}"
    )
    print(f"store: its rating step alone (read, rate, write): {ms(alone, alone_cpu)}")
    print(f"store: its achievements step alone (read, earn, write): {ms(earning, earning_cpu)}")
    print(f"store: a player's achievements, as /me reads them: {ms(listing, listing_cpu)}")


def _schedstat(path: str) -> tuple[int, int]:
    """A task's nanoseconds on a CPU and waiting for one (Linux's schedstat; 0, 0 if not
    there)."""
    try:
        with open(path) as f:
            run, wait, _ = f.read().split()
        return int(run), int(wait)
    except (OSError, ValueError):
        return 0, 0


def _where_time_went() -> tuple[int, int, int, int]:
    """Nanoseconds so far: this process's threads (the bot and the fake server) on a CPU
    and waiting for one, then the same of its worker processes (the chart's)."""
    own = [_schedstat(f"/proc/self/task/{t}/schedstat") for t in os.listdir("/proc/self/task")]
    kids = [_schedstat(f"/proc/{p.pid}/schedstat") for p in multiprocessing.active_children()]
    return (
        sum(r for r, _ in own),
        sum(w for _, w in own),
        sum(r for r, _ in kids),
        sum(w for _, w in kids),
    )


def _split_line(splits: list[tuple[int, ...]]) -> str:
    """p50 and p99 of each part of /me's time, in ms."""

    def cut(values: list[int], q: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))] / 1e6

    names = ("the bot on a CPU", "waiting for one", "the chart worker on a CPU", "waiting for one")
    return "; ".join(
        f"{name} p50 {cut(list(part), 0.5):.1f} ms p99 {cut(list(part), 0.99):.1f} ms"
        for name, part in zip(names, zip(*splits, strict=True), strict=True)
    )


async def answers(players: int, games: int, asks: int, folder: Path) -> None:
    """/top and /me against the real bot with a big database; p50 and p99."""
    from fake_telegram import FakeTelegramServer, Limits, running

    from bot.app import build_application
    from bot.base.config import Settings

    path = folder / "big.sqlite3"
    async with FakeTelegramServer(limits=Limits.off()) as tg:
        rng = random.Random(5)
        people = [await tg.create_user(f"Player {i}") for i in range(players)]
        ids = [p.id for p in people]
        groups = []
        for g in range(players // 10):
            members = rng.sample(people, 20)
            chat = await tg.create_group(f"Group {g}", members=members, creator=members[0])
            groups.append((chat.id, [m.id for m in members]))
        async with SqliteStore.open(path):
            pass
        start = time.perf_counter()
        build_database(path, ids, groups, games)
        built = time.perf_counter() - start
        async with SqliteStore.open(path) as store:
            start = time.perf_counter()
            counted, finished = await store.rebuild_ratings()
            rated = time.perf_counter() - start
            start = time.perf_counter()
            holders, given = await store.rebuild_achievements()
            print(
                f"database: {players} players, {len(groups)} groups, {finished} games "
                f"written in {built:.0f} s; --rebuild rated {counted} in {rated:.0f} s; "
                f"the achievements' rebuild gave {given} to {holders} players in "
                f"{time.perf_counter() - start:.1f} s",
                flush=True,
            )
        await store_speed(path, ids)
        settings = Settings(
            bot_token=tg.token,
            base_url=tg.base_url,
            DURAK_DB_PATH=path,
            rate_limits="retry-only",
            coach_workers=0,
            charts=True,
        )
        app = build_application(settings)
        async with running(app, poll_timeout=0.5):
            loop = asyncio.get_running_loop()
            for command in ("top", "me"):
                times: list[float] = []
                cpu: list[float] = []
                splits: list[tuple[int, ...]] = []
                listed = 0
                for i in range(asks + 3):
                    chat_id, members = rng.choice(groups)
                    user = rng.choice(members)
                    chat = tg.chat(chat_id)
                    begun, used, went = loop.time(), time.process_time(), _where_time_went()
                    asked = await tg.send_command(user, chat, command)
                    answer = await tg.wait_for_message(
                        chat, lambda m, a=asked: m.reply_to == a.message_id, timeout=60
                    )
                    if i >= 3:  # the first few warm up
                        times.append(loop.time() - begun)
                        cpu.append(time.process_time() - used)
                        after = _where_time_went()
                        splits.append(tuple(b - a for a, b in zip(went, after, strict=True)))
                    if command == "me":
                        assert answer.photo is not None, answer.plain_text
                        listed += "Achievements:" in answer.plain_text
                print(
                    f"/{command}: {len(times)} answers, from the command to the answer: "
                    f"{ms(times, cpu)} (CPU of the bot and the fake server together"
                    f"{'; the chart is drawn in its worker' if command == 'me' else ''})",
                    flush=True,
                )
                if command == "me":
                    print(f"/me: {listed} of {asks + 3} captions listed achievements", flush=True)
                    if any(any(part) for part in splits):
                        print(f"/me, where its wall time went: {_split_line(splits)}", flush=True)
        await chart_cpu(path, ids, rng)


async def chart_cpu(path: Path, users: Sequence[int], rng: random.Random) -> None:
    """The CPU time of drawing /me's chart (what the worker does), for real histories."""
    from bot.chat.chart import ChartLine, ChartText, draw_png

    histories = []
    async with SqliteStore.open(path) as store:
        for user in rng.sample(list(users), 60):
            points = await store.rating_history(user, [OVERALL])
            histories.append(
                (
                    ChartLine(
                        "Overall",
                        tuple((i, Skill(p.mu, p.sigma).shown) for i, p in enumerate(points)),
                    ),
                )
            )
    words = ChartText("Rating of Player", "Games", "Rating")
    draw_png(histories[0], words)
    wall: list[float] = []
    cpu: list[float] = []
    for lines in histories[1:]:
        t, c = time.perf_counter(), time.process_time()
        draw_png(lines, words)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    print(f"the chart alone, drawn {len(wall)} times: {ms(wall, cpu)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calibrate-games", type=int, default=240)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--seeds", type=int, default=5, help="order and odds: seeds --seed, --seed + 1, …"
    )
    parser.add_argument("--only", choices=("calibrate", "order", "speed", "answers"))
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--asks", type=int, default=300, help="/top and /me asked, each")
    args = parser.parse_args()
    if args.only in (None, "calibrate"):
        calibrate(args.calibrate_games, 10_000 + args.seed)
    if args.only in (None, "order"):
        runs = [simulate((10, 30, 100), args.seed + k) for k in range(args.seeds)]
        report_order(runs)
        report_odds(runs)
    if args.only in (None, "speed"):
        model_speed()
    if args.only in (None, "answers"):
        with tempfile.TemporaryDirectory() as folder:
            asyncio.run(answers(args.players, args.games, args.asks, Path(folder)))


if __name__ == "__main__":
    main()
