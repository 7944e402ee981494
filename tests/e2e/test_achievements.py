"""Achievements end to end: the real bot against the fake Bot API server. A game's end names
what each player just earned ("🏅"), /me lists what he has with its date, in the group and
in private; a restart in the middle of a game loses nothing, and a second game gives
nothing twice."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser, Limits

from .harness import Table, bot_running, query

NAMES = {"first_win": "🎉 First win", "first_durak": "🤡 Baptism"}


def given_by(db: Path, table_id: int, game_no: int) -> dict[int, list[str]]:
    """What one game gave, by user."""
    rows = query(
        db,
        "SELECT a.user_id, a.code FROM achievements AS a JOIN rated_games AS r "
        "ON r.seq = a.game_id WHERE r.table_id = ? AND r.game_no = ? ORDER BY a.code",
        table_id,
        game_no,
    )
    found: dict[int, list[str]] = {}
    for user, code in rows:
        found.setdefault(user, []).append(code)
    return found


def assert_end_names_them(
    end: FakeMessage, users: list[FakeUser], given: dict[int, list[str]]
) -> None:
    """One "🏅 New for <name>" line per player the game gave something, none for others."""
    lines = [line for line in end.plain_text.splitlines() if line.startswith("🏅")]
    for user in users:
        mine = [line for line in lines if f"New for {user.first_name}:" in line]
        if user.id in given:
            assert len(mine) == 1, (user.first_name, lines)
            for code in given[user.id]:
                if code in NAMES:
                    assert NAMES[code] in mine[0]
        else:
            assert mine == [], (user.first_name, lines)
    assert len(end.plain_text) <= 4096


async def me(tg: FakeTelegramServer, user: FakeUser, chat: object) -> str:
    asked = await tg.send_command(user, chat, "me")  # type: ignore[arg-type]
    private = not asked.chat.is_group
    answer = await tg.wait_for_message(
        asked.chat,
        lambda m: m.reply_to == asked.message_id or (private and m.message_id > asked.message_id),
        timeout=30,
    )
    return answer.plain_text


async def test_an_end_names_what_was_earned_and_me_lists_it(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(5)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        ann, bob = table.users
        async with bot_running(tg, db):
            await table.start_bots()
            assert "No achievements yet: 20 to earn" in await me(tg, ann, tg.private_chat(ann))
            await table.seat_everyone()
            await table.play_moves(db, rng, 12)
        # a restart in the middle of the game: the new process ends it
        async with bot_running(tg, db):
            end = await table.finish(db, rng)
            [(counted,)] = query(db, "SELECT counted FROM rated_games")
            assert counted == 1, "both made their moves: the game counts"
            given = given_by(db, table.table_id, 1)
            assert given, "a counted game's end gives its players something"
            assert "🏅" in end.plain_text
            assert_end_names_them(end, [ann, bob], given)
            [(durak_id,)] = query(db, "SELECT user_id FROM game_players WHERE durak = 1") or [(0,)]
            if durak_id:
                assert "first_durak" in given[durak_id]
        async with bot_running(tg, db):
            # /me in the group and in private, after another restart: every one, dated
            today = datetime.now(UTC).strftime("%Y-%m-%d")
            for user in (ann, bob):
                for chat in (table.group, tg.private_chat(user)):
                    text = await me(tg, user, chat)
                    assert f"Achievements: {len(given[user.id])} of 20" in text
                    for code in given[user.id]:
                        if code in NAMES:
                            assert f"{NAMES[code]} · {today}" in text
            # a second game at the table: nothing given twice, and only the new named
            await table.open_lobby()
            await table.join_all()
            await table.start()
            await table.finish(db, rng)
            [*_, second] = [
                m for m in tg.bot_messages(table.group) if m.plain_text.startswith("🏁 Game over")
            ]
            assert second.message_id != end.message_id
            [latest] = query(db, "SELECT table_id, game_no FROM rated_games WHERE seq = 2")
            again = given_by(db, *latest)
            for user, codes in again.items():
                assert not set(codes) & set(given.get(user, [])), "never twice"
            assert_end_names_them(second, [ann, bob], again)
            rows = query(db, "SELECT user_id, code, count(*) FROM achievements GROUP BY 1, 2")
            assert all(n == 1 for *_, n in rows)
        assert tg.internal_errors == []
