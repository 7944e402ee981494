"""Hidden stays hidden, seen from the group: the turn line names every thrower alike, and a
bout nobody can add to still waits for the throwers' word or their window."""

from __future__ import annotations

import random
import time
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from engine import Game, Rules

from .harness import Table, bot_running, query, set_group_rules, stored


def fits(game: Game, seat: int) -> bool:
    """Whether ``seat`` holds a card of a rank on the table: his secret."""
    ranks = {c >> 2 for c in game.att} | {c >> 2 for c in game.cov if c is not None}
    return any(c >> 2 in ranks for c in game.hands[seat])


def open_throwers(game: Game) -> list[int]:
    """The seats that may still throw in by the rules alone: attacker or thrower, not
    passed, a card in hand, the bout below its limit."""
    view = game.public_view()
    if view.phase != "bout" or len(view.table) >= view.bout_cap:
        return []
    return [
        s
        for s, role in enumerate(view.roles)
        if role in ("attacker", "thrower") and s not in view.passed and view.hand_sizes[s]
    ]


async def test_the_turn_line_names_a_thrower_with_a_fitting_card_and_one_without_alike(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    rules = Rules(turn_timeout=0, throw_in_window=3600)
    rng = random.Random(29)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 3)
        await set_group_rules(db, table.group.id, rules)
        async with bot_running(tg, db):
            await table.seat_everyone()
            names = [u.first_name for u in table.users]
            found = 0
            while found < 3:
                st = stored(db, table.table_id)
                game = st.game
                assert game is not None and st.status == "playing", "the game ended first"
                throwers = open_throwers(game)
                holding = {s: fits(game, s) for s in throwers}
                if len(set(holding.values())) == 2:
                    await table.wait_latest(db)
                    assert st.group_message_id is not None
                    text = tg.message(table.group, st.group_message_id).plain_text
                    # the turn line, in either language and either wording ("may throw in:
                    # …", "подкинуть могут: …", "могут подкинуть: …"): the names after ":"
                    marks = ("may throw in", "подкинуть могут", "могут подкинуть")
                    lines = [x for x in text.splitlines() for m in marks if m in x.lower()]
                    assert lines, text
                    line = lines[0]
                    mark = next(m for m in marks if m in line.lower())
                    listed = line.lower().split(mark, 1)[1].split("·")[0]
                    for s in throwers:
                        assert names[s].lower() in listed, (line, holding)
                    found += 1
                    # the one with nothing says pass, as a player at a real table would
                    empty = next(s for s, fit in holding.items() if not fit)
                    hand = await table.current_hand(db, empty)
                    before = st.version
                    pass_button = next(
                        d for d in table.legal_presses(hand, game, empty) if d[1:].startswith("n.")
                    )
                    await table.press(table.users[empty], hand, pass_button)
                    await tg.wait_for(
                        lambda before=before: stored(db, table.table_id).version != before,
                        timeout=10,
                    )
                    continue
                await table.move(db, rng)
        assert tg.rate_limited == []


async def test_a_bout_nobody_can_add_to_ends_only_when_the_window_runs_out(
    tmp_path: Path,
) -> None:
    """Two players: every card is covered and the attacker holds nothing of those ranks.
    The bout stays open — nobody can tell he has nothing — until his window runs out."""
    db = tmp_path / "durak.sqlite3"
    window = 3
    rules = Rules(turn_timeout=0, throw_in_window=window)
    rng = random.Random(2029)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, rules)
        async with bot_running(tg, db):
            await table.seat_everyone()
            for _ in range(400):
                st = stored(db, table.table_id)
                game = st.game
                assert game is not None and st.status == "playing", "no such bout came"
                covered = game.att and None not in game.cov and not game.taking
                attacker = game.attacker
                if covered and attacker in open_throwers(game) and not fits(game, attacker):
                    break
                await table.move(db, rng)
            else:
                raise AssertionError("no fully covered bout with nothing to add in 400 moves")
            seen_at = time.monotonic()
            deadline = query(db, "SELECT deadline FROM tables WHERE table_id = ?", st.table_id)
            assert deadline[0][0] is not None, "the throw-in window runs"
            # a second later, the bout is still open: the same state, the cards on the table
            await tg.settle(quiet=0.2, timeout=1.0)
            now = stored(db, table.table_id)
            if time.monotonic() - seen_at < window - 0.5:
                assert now.version == st.version and now.game is not None and now.game.att
            # then the window runs out: the clock passes for him and the bout ends
            await tg.wait_for(
                lambda: stored(db, table.table_id).version != st.version,
                timeout=window + 10,
                what="the window to run out",
            )
            after = stored(db, table.table_id)
            assert after.game is not None and not after.game.att
            log = query(
                db,
                "SELECT seat, action FROM actions WHERE table_id = ? AND seq = ?",
                st.table_id,
                after.moves,
            )
            assert log[0][0] == st.game.attacker and '"timeout"' in log[0][1], "the clock's move"
