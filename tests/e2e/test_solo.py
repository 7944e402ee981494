"""A game against the computer in the private chat: /play, its setup, one message for the
table and the hand, a restart in the middle, the end with Play again, its own series."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from engine import Rules

from .harness import (
    Data,
    Table,
    bot_running,
    callback_buttons,
    hand_versions,
    kind_of,
    query,
    redrawn,
    replay_games,
    set_group_rules,
    settings_for,
    snapshot,
    stored,
)
from .solo import HAND_KINDS, Solo, of_table, table_of


def setup_button(setup_data: list[str], count: int, level: int) -> str:
    """The setup's button for ``count`` computer players of ``level``."""
    for data in setup_data:
        if kind_of(data) == "w" and Data.parse(data).rest == (str(count), str(level)):
            return data
    raise AssertionError(f"no button for {count} at level {level}: {setup_data}")


def own_actions(db: Path, table_id: int, seat: int) -> int:
    return int(
        query(db, "SELECT count(*) FROM actions WHERE table_id = ? AND seat = ?", table_id, seat)[
            0
        ][0]
    )


async def test_a_game_against_the_computer_is_played_to_the_end_through_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(11)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db, ai_delay=0.05)
        async with bot_running(tg, db, settings=settings):
            solo = await Solo.create(tg)
            setup = await solo.open_setup()
            assert "1 computer" in setup.plain_text, "one opponent by default"
            table_id = table_of(callback_buttons(setup)[0])
            assert table_id is not None
            await solo.press(setup, setup_button(callback_buttons(setup), 2, 1))
            await tg.wait_for(lambda: "2 computers" in setup.plain_text, timeout=10)
            await solo.press(setup, setup_button(callback_buttons(setup), 2, 0))
            await tg.wait_for(lambda: "level: easy" in setup.plain_text, timeout=10)
            await solo.start(setup)
            # the setup message becomes the table and the hand, edited in place
            await tg.wait_for(lambda: of_table(setup, table_id, HAND_KINDS), timeout=10)
            assert "Against the computer" in setup.plain_text
            assert await solo.play(table_id, rng, presses=6) is None
            await tg.settle(quiet=0.3, timeout=10)
        before = stored(db, table_id)
        assert before.status == "playing" and before.chat_id == solo.user.id
        assert before.hand_message_ids[0] == setup.message_id
        known = len(tg.calls)

        async with bot_running(tg, db, settings=settings):
            await tg.wait_for(lambda: redrawn(tg, known, setup), timeout=10, what="the redraw")
            end = await solo.play(table_id, rng)
            assert end is not None
            assert [kind_of(d) for d in callback_buttons(end)] == ["m", "R"]
            assert "Play again" in end.buttons[0][0].text
            stats = await solo.command("stats")
            answer = await tg.wait_for_message(tg.private_chat(solo.user), after=stats, timeout=10)

        # one message showed the whole game: no other message ever had its buttons
        carried = [m for m in solo.bot_messages() if of_table(m, table_id, HAND_KINDS)]
        assert [m.message_id for m in carried] in ([], [setup.message_id])
        games = replay_games(db)
        assert len(games) == 1 and games[0].result is not None
        assert stored(db, table_id).status == "finished"
        # the series of his games against the computer is kept in his private chat
        rows = query(db, "SELECT player, games FROM tallies WHERE chat_id = ?", solo.user.id)
        assert (f"u:{solo.user.id}", 1) in rows and len(rows) == 3
        assert "Against the computer" in answer.plain_text
        assert "No games in groups yet" in answer.plain_text
        assert tg.rate_limited == []


async def test_play_again_deals_at_once_with_the_same_opponents(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(4)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db, ai_delay=0.02)
        async with bot_running(tg, db, settings=settings):
            solo = await Solo.create(tg)
            await set_group_rules(db, solo.user.id, Rules(hand_size=3, turn_timeout=0))
            setup = await solo.open_setup()
            table_id = table_of(callback_buttons(setup)[0])
            assert table_id is not None
            await solo.press(setup, setup_button(callback_buttons(setup), 1, 2))
            await tg.wait_for(lambda: "level: hard" in setup.plain_text, timeout=10)
            await solo.press(setup, setup_button(callback_buttons(setup), 3, 2))
            await tg.wait_for(lambda: "3 computers" in setup.plain_text, timeout=10)
            await solo.start(setup)
            end = await solo.play(table_id, rng)
            assert end is not None
            await solo.press(end, callback_buttons(end)[0])
            await tg.wait_for(lambda: stored(db, table_id).game_no == 2, timeout=10)
            second = await solo.play(table_id, rng)
            assert second is not None and second.message_id > end.message_id
            # the first end's Play again is no longer the newest: refused, nothing dealt
            text = await solo.press(end, callback_buttons(end)[0])
            assert text is not None and "not the latest" in text
            assert stored(db, table_id).game_no == 2
            # /play remembers three hard computer players and the rules
            setup2 = await solo.open_setup()
            assert "3 computers" in setup2.plain_text and "level: hard" in setup2.plain_text
        seats = query(db, "SELECT seats FROM tables WHERE table_id = ?", table_id)[0][0]
        assert seats.count('"ai":"hard"') == 3
        assert len(replay_games(db)) == 2


async def test_a_solo_game_and_a_group_game_side_by_side(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(8)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db, ai_delay=0.05)
        async with bot_running(tg, db, settings=settings):
            table = await Table.create(tg, 2)
            await table.seat_everyone()
            group_id = table.table_id
            ann = Solo(tg, table.users[0])
            setup = await ann.open_setup()
            solo_id = table_of(callback_buttons(setup)[0])
            assert solo_id is not None and solo_id != group_id
            await ann.start(setup)
            await tg.wait_for(lambda: of_table(setup, solo_id, HAND_KINDS), timeout=10)
            group_hand = ann.hand(group_id)
            assert group_hand is not None and group_hand.message_id != setup.message_id

            # presses on the group game's hand move the group game only
            for _ in range(12):
                game = stored(db, group_id).game
                assert game is not None
                if game.result is not None:
                    break
                seat = rng.choice(game.to_act())
                user = table.users[seat]
                player = ann if seat == 0 else Solo(tg, user)
                version = stored(db, group_id).version
                hand = await tg.wait_for(
                    lambda player=player, version=version: (
                        (h := player.hand(group_id)) is not None
                        and hand_versions(h) == {version}
                        and h
                    ),
                    timeout=10,
                    what="the hand drawn for the stored state",
                )
                presses = table.legal_presses(hand, game, seat)
                solo_own = own_actions(db, solo_id, 0)
                before = stored(db, group_id).version
                shown = callback_buttons(hand)
                await table.press(user, hand, rng.choice(presses))
                await tg.wait_for(
                    lambda before=before, hand=hand, shown=shown: (
                        stored(db, group_id).version != before or callback_buttons(hand) != shown
                    ),
                    timeout=10,
                    what="the group move",
                )
                assert own_actions(db, solo_id, 0) == solo_own

            # presses on the solo game's message move the solo game only
            group_before = stored(db, group_id)
            solo_own = own_actions(db, solo_id, 0)
            for _ in range(300):  # random presses, until two of them were moves of hers
                if own_actions(db, solo_id, 0) >= solo_own + 2:
                    break
                await ann.play(solo_id, rng, presses=1)
                await asyncio.sleep(0.01)
            await tg.settle(quiet=0.3, timeout=10)
            assert own_actions(db, solo_id, 0) >= solo_own + 2
            assert stored(db, group_id).version == group_before.version
            # the group never saw the solo game
            group_texts = [m.plain_text for m in tg.bot_messages(table.group)]
            assert not any("Against the computer" in t for t in group_texts)


async def test_the_commands_of_a_game_against_the_computer(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(5)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db, ai_delay=0.02)
        async with bot_running(tg, db, settings=settings):
            table = await Table.create(tg, 1)
            await table.start_bots()
            ann = Solo(tg, table.users[0])
            private = tg.private_chat(ann.user)

            async def reply_to(command: str) -> str:
                asked = await ann.command(command)
                found = await tg.wait_for_message(private, after=asked, timeout=10)
                return found.plain_text

            # /play in a group points to the private chat
            answer = await table.command(0, "play")
            assert "private chat" in answer.plain_text
            assert answer.buttons and answer.buttons[0][0].url
            assert "/play" in await reply_to("newgame")
            assert "No game against the computer" in await reply_to("cancel")

            # /cancel stops a game with no result and no tally
            setup = await ann.open_setup()
            first = table_of(callback_buttons(setup)[0])
            assert first is not None
            await ann.start(setup)
            await ann.play(first, rng, presses=2)
            await ann.command("cancel")
            await tg.wait_for(lambda: stored(db, first).status == "cancelled", timeout=10)
            await tg.wait_for(lambda: "cancelled" in setup.plain_text, timeout=10)
            assert not callback_buttons(setup)
            assert query(db, "SELECT count(*) FROM tallies WHERE chat_id = ?", ann.user.id) == [
                (0,)
            ]

            # /leave gives the next one up: he is the durak, and it counts
            setup = await ann.open_setup()
            second = table_of(callback_buttons(setup)[0])
            assert second is not None and second != first
            await ann.start(setup)
            await tg.wait_for(lambda: of_table(setup, second, HAND_KINDS), timeout=10)
            await ann.command("leave")
            await tg.wait_for(lambda: ann.ends(second), timeout=10, what="the end")
            end = ann.ends(second)[-1]
            assert "Ann gave up" in end.plain_text, end.plain_text
            durak = query(
                db,
                "SELECT durak FROM tallies WHERE chat_id = ? AND player = ?",
                ann.user.id,
                f"u:{ann.user.id}",
            )
            assert durak == [(1,)]


async def test_the_setup_s_settings_are_his_and_remembered(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg, bot_running(tg, db):
        solo = await Solo.create(tg)
        setup = await solo.open_setup()
        table_id = table_of(callback_buttons(setup)[0])
        assert table_id is not None

        def kinds() -> set[str]:
            return {kind_of(d) for d in callback_buttons(setup)}

        async def press_kind(kind: str, pick: int = 0) -> None:
            before = callback_buttons(setup)
            choices = [d for d in before if kind_of(d) == kind]
            assert choices, (kind, before)
            text = await solo.press(setup, choices[pick % len(choices)])
            assert text is None, text
            await tg.wait_for(lambda: callback_buttons(setup) != before, timeout=10)

        await press_kind("g")
        assert "next games against the computer" in setup.plain_text
        assert not kinds() & set("jlab"), "no Join, Leave or computer players one by one"
        rules_before = query(db, "SELECT rules FROM tables WHERE table_id = ?", table_id)
        while "v" not in kinds():
            await press_kind("o" if "o" in kinds() else "g")
        await press_kind("v", pick=1)
        rules_after = query(db, "SELECT rules FROM tables WHERE table_id = ?", table_id)
        assert rules_after != rules_before
        kept = query(db, "SELECT default_rules FROM chats WHERE chat_id = ?", solo.user.id)
        assert kept == rules_after, "his next game against the computer starts with them"
        # back, page by page, to the setup
        while "w" not in kinds():
            await press_kind("y" if "y" in kinds() else "g", pick=-1)
        assert "A game against the computer" in setup.plain_text


async def test_forged_and_foreign_setup_presses_change_nothing(tmp_path: Path) -> None:
    from bot.app import _codec_key
    from bot.service import callbacks as cb

    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db)
        codec = cb.CallbackCodec(_codec_key(settings))  # as if the bot's key had leaked
        async with bot_running(tg, db, settings=settings):
            ann = await Solo.create(tg, "Ann")
            bob = await Solo.create(tg, "Bob")
            setup = await ann.open_setup()
            table_id = table_of(callback_buttons(setup)[0])
            assert table_id is not None
            version = stored(db, table_id).version
            before = snapshot(db, table_id)
            # another player pressing Ann's setup buttons in his own chat
            own = bob.bot_messages()[-1]
            for data in [d for d in callback_buttons(setup) if kind_of(d) != "Q"]:  # a table's
                press = await tg.press(bob.user, own, data=data, force=True)
                answer = await press.answer(timeout=10)
                assert answer.text == "This is someone else's game.", answer
            # Ann's own chat, but opponents and levels the setup never offers
            for count, level in ((0, 1), (6, 1), (9, 1), (2, 3)):
                data = codec.encode(cb.SoloSetup(table_id, version, count, level))
                press = await tg.press(ann.user, setup, data=data, force=True)
                answer = await press.answer(timeout=10)
                assert answer.text is not None and "outdated" in answer.text, answer
            # a group's buttons (Join, computer players one by one) are not a solo table's
            for forged in (cb.Join(table_id, version), cb.AddAi(table_id, version, 1)):
                press = await tg.press(ann.user, setup, data=codec.encode(forged), force=True)
                answer = await press.answer(timeout=10)
                assert answer.text is not None and "outdated" in answer.text, answer
            await tg.settle(quiet=0.2, timeout=10)
            assert snapshot(db, table_id) == before
