"""Turns that are fair: a live clock, a reminder at half time, the truth for a blocked
player, and hands that name their group."""

from __future__ import annotations

import logging
import random
import re
from pathlib import Path

import pytest
from fake_telegram import FakeMessage, FakeTelegramServer, Limits

from bot.base.i18n import tr
from engine import Rules

from .harness import (
    NOT_TABLES,
    Table,
    bot_running,
    callback_buttons,
    query,
    set_group_rules,
    settings_for,
    stored,
    url_buttons,
)


def table_buttons(message: FakeMessage) -> list[str]:
    """The buttons of a message that name a table (not /start's quick game)."""
    return [d for d in callback_buttons(message) if d[1:2] not in NOT_TABLES]


def clocks(message: FakeMessage | None) -> list[int]:
    """The Unix times of the message's date_time entities (its live clocks)."""
    if message is None:
        return []
    return [e["unix_time"] for e in message.entities if e["type"] == "date_time"]


@pytest.mark.parametrize("language", ["en", "ru", "uk"])
async def test_the_deadline_is_a_live_clock_in_the_group_and_the_hand(
    tmp_path: Path, language: str
) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2, language=language)
        await set_group_rules(db, table.group.id, Rules(hand_size=3, turn_timeout=120))
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language=language)):
            await table.seat_everyone()
            await table.wait_latest(db)
            st = stored(db, table.table_id)
            assert st.game is not None
            deadline = int(stored_deadline(db, table.table_id))
            group = tg.message(table.group, st.group_message_id)  # type: ignore[arg-type]
            assert clocks(group) == [deadline], group.entities
            waited = table.users[st.game.waiting_on()[0]]
            hand = table.hand(waited)
            assert clocks(hand) == [deadline]
            assert tr(language, "fmt.in", time="").strip() in (hand.plain_text if hand else "")
            other = table.users[1 - st.game.waiting_on()[0]]
            assert clocks(table.hand(other)) == [], "only the waited-on player's clock runs"


async def test_a_server_older_than_live_clocks_gets_the_same_messages_with_plain_ones(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "durak.sqlite3"
    caplog.set_level(logging.WARNING, logger="bot")
    # a self-hosted telegram-bot-api of Bot API 9.4: it refuses <tg-time>
    async with FakeTelegramServer(limits=Limits.fast(), api_version=(9, 4)) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, Rules(hand_size=3, turn_timeout=120))
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.seat_everyone()
            rng = random.Random(7)
            await table.play_moves(db, rng, 1)
            for _ in range(20):  # on to a move that waits on one player (no throw-in window)
                now = stored(db, table.table_id)
                if now.status != "playing" or (now.game is not None and now.game.waiting_on()):
                    break
                await table.play_moves(db, rng, 1)
            await table.wait_latest(db)  # every message shows the game as stored
            st = stored(db, table.table_id)
            assert st.game is not None and st.status == "playing"
            waited = table.hand(table.users[st.game.waiting_on()[0]])
            assert waited is not None and clocks(waited) == []
            assert re.search(r"⏱ Time runs out in \d+:\d\d", waited.plain_text), waited.plain_text
            group = tg.message(table.group, st.group_message_id)  # type: ignore[arg-type]
            assert re.search(r"⏱ in \d+:\d\d", group.plain_text), group.plain_text
        refused = [c for c in tg.world.calls if c.error_code == 400]
        assert refused, "the server refused the first live clock"
        # and, knowing no disabled buttons (Bot API 10.3), the first hand's greyed cards
        clock = [c for c in refused if '"tg-time"' in (c.description or "")]
        buttons = [c for c in refused if "text buttons" in (c.description or "").lower()]
        assert clock and buttons and len(clock) + len(buttons) == len(refused)
        later = tg.world.calls[tg.world.calls.index(refused[-1]) + 1 :]
        assert not any("<tg-time" in str(c.params.get("text", "")) for c in later)
        assert not any('"disabled"' in str(c.params.get("reply_markup", "")) for c in later)
    for subject in ("live clocks", "disabled buttons"):
        said = [r for r in caplog.records if subject in r.getMessage()]
        assert [r.levelno for r in said] == [logging.WARNING], f"{subject}: said once"


async def test_on_an_old_server_every_refused_message_of_a_start_goes_again_at_once(
    tmp_path: Path,
) -> None:
    """Six players start at once on a Bot API 9.4 server: the group's table and the six
    first hands go out together, and several are refused (live clocks, disabled cards).
    Each refused one goes again at once, without waiting for a later move, and once."""
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast(), api_version=(9, 4)) as tg:
        table = await Table.create(tg, 6)
        await set_group_rules(db, table.group.id, Rules(turn_timeout=120))
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.start_bots()
            lobby = await table.open_lobby()
            await table.join_all()
            assert "6/6" in lobby.plain_text
            started = len(tg.world.calls)
            await table.press(table.users[0], lobby, table.lobby_button("s"))
            await table.wait_latest(db)  # the group's table and every hand, as stored
            st = stored(db, table.table_id)
            assert st.moves == 0, "nobody moved: the first table and hands arrived by themselves"
            group = tg.message(table.group, st.group_message_id)  # type: ignore[arg-type]
            assert re.search(r"⏱ in \d+:\d\d", group.plain_text), group.plain_text
            calls = tg.world.calls[started:]
        refused = [c for c in calls if c.error_code == 400]
        kinds = {"clock" if '"tg-time"' in (c.description or "") else "disabled" for c in refused}
        assert kinds == {"clock", "disabled"}, [c.description for c in refused]
        assert len([c for c in refused if c.method == "sendMessage"]) >= 2, "sent together"
        for call in refused:  # each went again, and got through
            chat = call.params.get("chat_id")
            again = calls[calls.index(call) + 1 :]
            assert any(
                c.method == call.method and c.params.get("chat_id") == chat and c.ok for c in again
            ), f"{call.method} to {chat} never went again"
        for user in table.users:  # one hand each, no copy
            assert len([m for m in tg.bot_messages(tg.private_chat(user)) if table_buttons(m)]) == 1
        assert [m.message_id for m in tg.bot_messages(table.group)] == [lobby.message_id]


def stored_deadline(db: Path, table_id: int) -> float:
    ((deadline,),) = query(db, "SELECT deadline FROM tables WHERE table_id = ?", table_id)
    assert deadline is not None
    return float(deadline)


async def test_after_half_his_time_the_awaited_player_is_named_once(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, Rules(hand_size=3, turn_timeout=4))
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.seat_everyone()
            st = stored(db, table.table_id)
            assert st.game is not None
            waited = table.users[st.game.waiting_on()[0]]

            def reminders() -> list[FakeMessage]:
                return [
                    m
                    for m in tg.bot_messages(table.group)
                    if any(e.get("url") == f"tg://user?id={waited.id}" for e in m.entities)
                ]

            nudge = await tg.wait_for(lambda: reminders() or None, timeout=5)
            assert len(nudge) == 1
            text = nudge[0].plain_text
            assert waited.first_name in text and "the table waits for you" in text
            assert clocks(nudge[0]) == [int(stored_deadline(db, table.table_id))]
            assert stored(db, table.table_id).moves == 0, "before his time ran out"
            # the clock runs out (he is durak): no second reminder for the same turn
            await tg.wait_for(lambda: stored(db, table.table_id).status == "finished", timeout=8)
            assert len(reminders()) == 1


@pytest.mark.parametrize(
    ("turn_timeout", "key"), [(0, "err.blocked_no_clock"), (60, "err.blocked_clock")]
)
async def test_a_blocked_player_is_told_how_his_clock_runs(
    tmp_path: Path, turn_timeout: int, key: str
) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(3)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, Rules(hand_size=3, turn_timeout=turn_timeout))
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.seat_everyone()
            blocker = await table.block_by_idle_player(db)
            await table.play_moves(db, rng, 1)  # the game now waits on him, or soon will
            warning = await tg.wait_for_message(
                table.group, lambda m: any("?start=" in u for u in url_buttons(m)), timeout=10
            )
            st = stored(db, table.table_id)
            assert st.game is not None
            name = blocker.first_name
            if key == "err.blocked_clock" and table.users.index(blocker) not in (
                st.game.waiting_on()
            ):
                key = "err.blocked_later"
            said = tr("en", key, name=name, time="\0").split("\0")[0]
            assert said in warning.plain_text, warning.plain_text
            assert "the game waits for you" not in warning.plain_text
            if key == "err.blocked_clock":
                assert clocks(warning) == [int(stored_deadline(db, table.table_id))]


async def test_the_hand_names_its_group(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, Rules(hand_size=3))
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.seat_everyone()
            await table.wait_latest(db)
            for user in table.users:
                hand = table.hand(user)
                assert hand is not None
                assert hand.plain_text.splitlines()[0] == "Friends · Podkidnoy"
        # after a restart, the title is asked of Telegram
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            for user in table.users:
                await tg.send_command(user, tg.private_chat(user), "hand")
            await tg.wait_for(
                lambda: all(
                    (h := table.hand(u)) is not None
                    and h.plain_text.startswith("Friends · Podkidnoy")
                    and h.message_id > 0
                    for u in table.users
                ),
                timeout=10,
            )


async def test_the_hand_marks_what_can_go_and_one_tap_leads_a_card(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(9)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, Rules(hand_size=6))
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.seat_everyone()
            leads = 0
            for _ in range(12):
                st = stored(db, table.table_id)
                game = st.game
                if st.status != "playing" or game is None:
                    break
                seat = game.to_act()[0]
                hand = await table.current_hand(db, seat)
                view = game.view(seat)
                playable = {
                    str(c)
                    for a in view.actions
                    for c in getattr(a, "cards", (getattr(a, "card", None),))
                    if c is not None and type(a).__name__ in ("Lead", "Cover", "Throw", "Transfer")
                }
                taps = [
                    (b.text, b.callback_data)
                    for row in hand.buttons
                    for b in row
                    if b.callback_data and b.callback_data[1:].startswith("t.")
                ]
                for label, _ in taps:
                    inert = label.startswith("·")
                    bare = label.strip("·").replace("\ufe0f", "")
                    assert inert == (bool(playable) and bare not in playable), (label, playable)
                if view.public.phase == "lead":
                    # a tap on a playable card leads it at once, alone
                    label, data = next(t for t in taps if not t[0].startswith("·"))
                    answer = await table.press(table.users[seat], hand, data)
                    assert answer.text is None
                    await tg.wait_for(
                        lambda v=st.version: stored(db, table.table_id).version > v, timeout=10
                    )
                    after = stored(db, table.table_id).game
                    assert after is not None and len(after.public_view().table) == 1
                    leads += 1
                else:
                    await table.move(db, rng)
            assert leads >= 1


async def test_a_named_wild_six_shows_in_the_group_and_every_hand(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rules = Rules(hand_size=6, modifiers=("full", "wild_sixes"), deck_size=54)
    for seed in range(1, 8):
        rng = random.Random(seed)
        async with FakeTelegramServer(limits=Limits.fast()) as tg:
            table = await Table.create(tg, 2)
            await set_group_rules(db, table.group.id, rules)
            async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
                await table.seat_everyone()
                seen_colour = seen_named = False
                for _ in range(60):
                    st = stored(db, table.table_id)
                    if st.status != "playing" or st.game is None:
                        break
                    await tg.settle(quiet=0.1)  # a choice may be open: no wait_latest
                    labels = [
                        b.text
                        for u in table.users
                        for row in table.hand(u).buttons
                        for b in row  # type: ignore[union-attr]
                    ]
                    assert any("\ufe0f" in t for t in labels), "suits in colour"
                    assert not any("★" in t for t in labels), "jokers as jokers"
                    seen_colour = True
                    declared = dict(st.game.public_view().declared)
                    if declared:
                        card, suit = next(iter(declared.items()))
                        named = f"{card.rank.label}{card.suit.symbol}\ufe0f→{suit.symbol}\ufe0f"
                        group = tg.message(table.group, st.group_message_id)  # type: ignore[arg-type]
                        assert named in group.plain_text, group.plain_text
                        for user in table.users:
                            assert named in table.hand(user).plain_text  # type: ignore[union-attr]
                        seen_named = True
                        break
                    await table.move(db, rng)
                assert seen_colour
            if seen_named:
                return
        db.unlink()
    raise AssertionError("no wild six was named in seven games")
