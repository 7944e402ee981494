"""Replays of finished games and the coach, through the bot's buttons: 🎞 Replay on an end
message, ⏮ ◀ ▶ ⏭, /replay, the coach's marks, and presses by those who did not play."""

from __future__ import annotations

import random
import re
from pathlib import Path

from fake_telegram import FakeMessage, FakeTelegramServer, Limits

from bot.render import card_text
from bot.render.table import trump_line
from engine import Rules

from .harness import (
    Table,
    bot_running,
    callback_buttons,
    kind_of,
    query,
    replay_games,
    set_group_rules,
    settings_for,
    stored,
)
from .solo import Solo, table_of

STEP = re.compile(r"Move (\d+) of (\d+)")


def step_buttons(message: FakeMessage) -> dict[str, str]:
    """The replay's step buttons by label."""
    return {b.text: b.callback_data for row in message.buttons for b in row if b.callback_data}


def shown_step(message: FakeMessage) -> int:
    """The step a replay message shows (0: the deal)."""
    found = STEP.search(message.plain_text)
    return int(found.group(1)) if found else 0


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).replace("&lt;", "<").replace("&gt;", ">")


async def finished_solo(
    tg: FakeTelegramServer, db: Path, *, take: bool, seed: int
) -> tuple[Solo, int, FakeMessage]:
    """A player who finished one short game against one computer player; his table and the
    end message."""
    solo = await Solo.create(tg)
    await set_group_rules(db, solo.user.id, Rules(hand_size=4, turn_timeout=0))
    setup = await solo.open_setup()
    table_id = table_of(callback_buttons(setup)[0])
    assert table_id is not None
    await solo.start(setup)
    end = await solo.play(table_id, random.Random(seed), take=take)
    assert end is not None
    return solo, table_id, end


async def open_replay(solo: Solo, end: FakeMessage) -> FakeMessage:
    """Press 🎞 Replay on an end message; the replay message in his private chat."""
    button = [d for d in callback_buttons(end) if kind_of(d) == "R"]
    assert button, callback_buttons(end)
    last = solo.bot_messages()[-1]
    await solo.press(end, button[0])
    return await solo.tg.wait_for_message(
        solo.tg.private_chat(solo.user),
        lambda m: (
            m.message_id > last.message_id and any(kind_of(d) == "F" for d in callback_buttons(m))
        ),
        timeout=10,
    )


async def step_to(solo: Solo, replay: FakeMessage, label: str, expected: int) -> str | None:
    text = await solo.press(replay, step_buttons(replay)[label])
    await solo.tg.wait_for(
        lambda: shown_step(replay) == expected, timeout=10, what=f"step {expected}"
    )
    return text


async def test_a_replay_steps_from_the_deal_to_the_end_and_stays_there(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db, ai_delay=0.02)
        async with bot_running(tg, db, settings=settings):
            solo, table_id, end = await finished_solo(tg, db, take=False, seed=2)
            replay = await open_replay(solo, end)
            total = stored(db, table_id).moves
            assert f"The deal · {total} moves" in replay.plain_text
            assert "Cards are dealt" in replay.plain_text
            for step in range(1, total + 1):
                await step_to(solo, replay, "▶️", step)
                assert f"Move {step} of {total}" in replay.plain_text
            # ▶ past the last move stays at the end, and says so
            answer = await step_to(solo, replay, "▶️", total)
            assert answer == "That's the end of the game."
            final_text = replay.plain_text
            assert "The end of the game" in final_text
            # ⏮ goes back to the deal, ⏭ to the end again
            await step_to(solo, replay, "⏮", 0)
            assert "The deal" in replay.plain_text
            await step_to(solo, replay, "⏭", total)
            assert replay.plain_text == final_text

        # the last frame is the stored final state: the stock, the trump and every hand
        final = stored(db, table_id).game
        assert final is not None and final.result is not None
        games = replay_games(db)
        assert games[0].to_json() == final.to_json()
        assert plain(trump_line(final.public_view(), "en")) in final_text
        # every hand face up, exactly as the stored end has it
        for seat, name in enumerate(("Ann (you)", "Computer 1")):
            line = next(x for x in final_text.splitlines() if name in x)
            cards = {card_text(c) for c in final.view(seat).hand}
            if cards:
                assert set(line.split(": ", 1)[1].split()) == cards, line
            else:
                assert "out" in line, line
        assert tg.rate_limited == []


async def test_the_coach_marks_the_moves_of_a_player_who_always_takes(tmp_path: Path) -> None:
    # An always-taker nearly always loses, and in about one deal in twenty he has lost
    # before any single move could make a clear difference: he plays again (up to four
    # deals) until a game's review marks something.
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(3)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db, ai_delay=0.02, coach_workers=1, coach_budget=20.0)
        async with bot_running(tg, db, settings=settings):
            solo, table_id, end = await finished_solo(tg, db, take=True, seed=3)
            for _ in range(4):
                replay = await open_replay(solo, end)
                await tg.wait_for(
                    lambda replay=replay: (
                        "costly move" in replay.plain_text
                        or "no clear mistake" in replay.plain_text
                    ),
                    timeout=120,
                    what="the coach's summary",
                )
                if "costly move" in replay.plain_text:
                    break
                await solo.press(end, callback_buttons(end)[0])  # Play again
                found = await solo.play(table_id, rng, take=True)
                assert found is not None
                end = found
            assert "costly move" in replay.plain_text, replay.plain_text
            assert "The costliest, move" in replay.plain_text
            game_no = stored(db, table_id).game_no
            marked = step_buttons(replay)["⚠️ Next costly move"]
            await solo.press(replay, marked)
            await tg.wait_for(lambda: shown_step(replay) > 0, timeout=10)
            assert "better to" in replay.plain_text
            assert re.search(r"\d+%; after this move \d+%", replay.plain_text), replay.plain_text
            # the marked move was his
            step = shown_step(replay)
            seat = query(
                db,
                "SELECT seat FROM actions WHERE table_id = ? AND game_no = ? AND seq = ?",
                table_id,
                game_no,
                step,
            )[0][0]
            assert seat == 0
            # made once and kept: /replay shows the same review at once
            reviews = query(
                db,
                "SELECT count(*) FROM reviews WHERE table_id = ? AND game_no = ?",
                table_id,
                game_no,
            )
            assert reviews[0][0] == 1
            asked = await solo.command("replay")
            again = await tg.wait_for_message(
                tg.private_chat(solo.user),
                lambda m: (
                    m.message_id > asked.message_id
                    and any(kind_of(d) == "F" for d in callback_buttons(m))
                ),
                timeout=10,
            )
            assert "costly move" in again.plain_text
        assert query(db, "SELECT count(*) FROM reviews")[0][0] == game_no


async def test_only_those_who_sat_at_the_table_may_watch_its_replay(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(6)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db)
        async with bot_running(tg, db, settings=settings):
            table = await Table.create(tg, 2)
            await set_group_rules(db, table.group.id, Rules(hand_size=3, turn_timeout=0))
            cid = await tg.create_user("Cid")
            await tg.add_member(table.group, cid)
            greeting = await tg.start_bot(cid)
            await tg.wait_for_message(tg.private_chat(cid), after=greeting, timeout=10)
            await table.seat_everyone()
            end = await table.finish(db, rng)
            replay_data = next(d for d in callback_buttons(end) if kind_of(d) == "R")
            cid_before = len(tg.bot_messages(tg.private_chat(cid)))

            press = await tg.press(cid, end, data=replay_data)
            answer = await press.answer(timeout=10)
            assert answer.text == "Only those who sat at that table may watch its replay."
            await tg.settle(quiet=0.3, timeout=10)
            assert len(tg.bot_messages(tg.private_chat(cid))) == cid_before

            # a player who sat there gets it in private, and the group is told where
            ann = table.users[0]
            ann_before = len(tg.bot_messages(tg.private_chat(ann)))
            press = await tg.press(ann, end, data=replay_data)
            answer = await press.answer(timeout=10)
            assert answer.text == "The replay is in our private chat."
            await tg.wait_for(
                lambda: len(tg.bot_messages(tg.private_chat(ann))) > ann_before, timeout=10
            )
            replay = tg.bot_messages(tg.private_chat(ann))[-1]
            assert "Friends" in replay.plain_text and "The deal" in replay.plain_text
        assert len(replay_games(db)) == 1


async def test_a_player_who_blocked_the_bot_gets_a_link_that_opens_the_replay(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(2)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db)
        async with bot_running(tg, db, settings=settings):
            table = await Table.create(tg, 2)
            await set_group_rules(db, table.group.id, Rules(hand_size=3, turn_timeout=0))
            await table.seat_everyone()
            end = await table.finish(db, rng)
            bob = table.users[1]
            await tg.block_bot(bob)
            replay_data = next(d for d in callback_buttons(end) if kind_of(d) == "R")
            press = await tg.press(bob, end, data=replay_data)
            answer = await press.answer(timeout=10)
            assert answer.url is not None and "?start=r" in answer.url, answer
            opened = await tg.open_link(bob, answer.url)
            replay = await tg.wait_for_message(
                tg.private_chat(bob),
                lambda m: (
                    m.message_id > opened.message_id
                    and any(kind_of(d) == "F" for d in callback_buttons(m))
                ),
                timeout=10,
            )
            assert "The deal" in replay.plain_text and "Friends" in replay.plain_text
            # the link opens nothing for someone who did not sit at that table
            cid = await tg.create_user("Cid")
            asked = await tg.open_link(cid, answer.url)
            refusal = await tg.wait_for_message(tg.private_chat(cid), after=asked, timeout=10)
            assert "Only those who sat at that table" in refusal.plain_text
