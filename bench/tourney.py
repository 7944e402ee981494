"""A tournament of ten games at six players, at Telegram's limits: how soon each game's
standings reach the group after its end.

Run by hand: ``.venv/bin/python bench/tourney.py`` (``--games``, ``--players``,
``--limits``, ``--seed``). The real Application runs in this process against the fake Bot
API server, the group at Telegram's twenty messages a minute and the bot's default group
pacing (its table edited every 4 s); six simulated players press legal moves as soon as
their hand shows the state. By default private chats are 50 times faster than Telegram's
one a second (``--limits telegram`` for the real figure there too: a six-player game of a
few hundred moves then takes a quarter of an hour). For each game: from its last move saved (the
store's ``finished_at``) to the group's end message with the standings (the fake server's
clock, the same wall clock), and whether any 429 was drawn. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from e2e.harness import Table, bot_running, query, settings_for, stored  # noqa: E402
from e2e.test_tourney import english_group, game_ends, games_buttons, open_tourney  # noqa: E402
from fake_telegram import FakeTelegramServer, Limits  # noqa: E402


async def run(games: int, players: int, mode: str, seed: int) -> None:
    rng = random.Random(seed)
    fast = mode == "fast"
    if mode == "group":
        # the group at Telegram's twenty a minute; private chats fifty times faster, so
        # that the players' hands (and so the games) do not take an hour
        limits = Limits(chat_per_second=50.0, chat_burst=20)
    else:
        limits = Limits.fast() if fast else Limits.telegram()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "durak.sqlite3"
        async with FakeTelegramServer(limits=limits) as tg:
            table = await Table.create(tg, players)
            await english_group(db, table.group.id)
            pacing = {
                "fast": {"group_edit_interval": 0.08, "private_edit_interval": 0.02},
                "group": {"group_edit_interval": 4.0, "private_edit_interval": 0.02},
                "telegram": {"group_edit_interval": 4.0, "private_edit_interval": 1.0},
            }[mode]
            settings = settings_for(tg, db, **pacing)
            arrived: dict[int, float] = {}
            async with bot_running(tg, db, settings=settings):
                await table.start_bots()
                lobby = await open_tourney(table)
                await table.press(table.users[0], lobby, games_buttons(lobby)[str(games)])
                await tg.wait_for(lambda: f"✅ {games}" in games_buttons(lobby), timeout=30)
                for seated, user in enumerate(table.users[1:], 2):
                    # the lobby is edited at the group's pace: a Join drawn before the
                    # last change is outdated, and pressed again once the lobby shows it
                    while f"{seated}/6" not in lobby.plain_text:
                        join = table.lobby_button("j")
                        await table.press(user, lobby, join)
                        await tg.wait_for(
                            lambda n=seated, d=join: (
                                f"{n}/6" in lobby.plain_text or table.lobby_button("j") != d
                            ),
                            timeout=60,
                        )
                await table.press(table.users[0], lobby, table.lobby_button("s"))
                began = time.monotonic()
                for number in range(games):
                    await tg.wait_for(
                        lambda n=number: (
                            stored(db, table.table_id).game_no == n + 1
                            and stored(db, table.table_id).status == "playing"
                        ),
                        timeout=120,
                    )
                    while stored(db, table.table_id).game_no == number + 1:
                        try:
                            if not await table.move(db, rng):
                                break
                        except TimeoutError as exc:
                            # a hand late to show the state (a loaded machine): choose again
                            print(f"  waited: {str(exc)[:60]}", flush=True)
                    await tg.wait_for(lambda n=number: len(game_ends(table)) > n, timeout=120)
                    end = game_ends(table)[number]
                    arrived[number + 1] = end.sent_at
                    done_at = query(
                        db,
                        "SELECT finished_at FROM games WHERE table_id = ? AND game_no = ?",
                        table.table_id,
                        number + 1,
                    )[0][0]
                    lag = end.sent_at + time.time() - tg.world.clock() - done_at
                    print(f"game {number + 1}: standings {lag * 1000:.0f} ms after the end")
                    print(
                        f"game {number + 1} over, {time.monotonic() - began:.0f} s in", flush=True
                    )
                final = game_ends(table)[-1].plain_text
            finished = dict(
                query(
                    db, "SELECT game_no, finished_at FROM games WHERE table_id = ?", table.table_id
                )
            )
            offset = time.time() - tg.world.clock() if hasattr(tg, "world") else 0.0
            lags = []
            for game_no, at in sorted(arrived.items()):
                lag = at + offset - finished[game_no]
                lags.append(lag)
                print(f"game {game_no}: standings {lag * 1000:.0f} ms after the end")
            lags.sort()
            print(
                f"{games} games at {players} players ({mode} limits): "
                f"end -> standings median {lags[len(lags) // 2] * 1000:.0f} ms, "
                f"max {lags[-1] * 1000:.0f} ms; 429s: {len(tg.rate_limited)}"
            )
            print("🏆" in final and "Champion" in final and "the final message names the champion")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, choices=(3, 5, 7, 10))
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument(
        "--limits",
        choices=("telegram", "group", "fast"),
        default="group",
        help="telegram: every chat at Telegram's figures (a 6-player game takes many "
        "minutes); group (default): the group's twenty a minute, private chats 50 times "
        "faster; fast: everything 50 times faster",
    )
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    asyncio.run(run(args.games, args.players, args.limits, args.seed))


if __name__ == "__main__":
    main()
