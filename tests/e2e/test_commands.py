"""Commands as a group uses them: who may switch the group's language."""

from __future__ import annotations

import json
import logging
import random
import re
from pathlib import Path

import pytest
from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser, Limits

from bot.base.i18n import tr
from bot.store import Outcome, Seat, SqliteStore
from engine import Game, Rules
from engine.actions import Resign

from .harness import (
    Table,
    bot_running,
    callback_buttons,
    query,
    set_group_rules,
    settings_for,
)


def labels(message: FakeMessage) -> list[str]:
    return [b.text for row in message.buttons for b in row]


async def test_only_an_admin_or_the_table_s_creator_switches_the_group_s_language(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 3)
        ann, _, cid = table.users  # Ann made the group; Bob and Cid are members
        async with bot_running(tg, db, settings=settings_for(tg, db)):
            # a group with no choice yet speaks the language of whoever asks: English here
            refused = await table.command(1, "lang")
            assert refused.plain_text == tr("en", "lang.not_allowed")
            assert not callback_buttons(refused)

            picker = await table.command(0, "lang")
            assert tr("en", "settings.btn.chosen", value="English") in labels(picker)
            russian = next(
                d
                for b, d in zip(labels(picker), callback_buttons(picker), strict=True)
                if "Русский" in b
            )
            # a member's press on the picker changes nothing
            answer = await table.press(cid, picker, russian)
            assert answer.text == tr("en", "lang.not_allowed")
            chosen = "SELECT language FROM chats WHERE chat_id = ?"
            assert query(db, chosen, table.group.id) in ([], [(None,)])
            # the admin's press switches it, and the picker marks the new choice
            answer = await table.press(ann, picker, russian)
            assert answer.text == tr("ru", "lang.set", name="Русский")
            await tg.wait_for(
                lambda: tr("ru", "settings.btn.chosen", value="Русский") in labels(picker),
                timeout=5,
            )
            assert (
                tr("ru", "lang.picker").split("\n")[0].replace("<b>", "").replace("</b>", "")
                in picker.plain_text
            )
            assert query(db, chosen, table.group.id) == [("ru",)]

            # the creator of the open table may too, though no admin
            await table.start_bots()
            await table.open_lobby(by=1)
            picker = await table.command(1, "lang")
            assert callback_buttons(picker), picker.plain_text
            refused = await table.command(2, "lang")
            assert refused.plain_text == tr("ru", "lang.not_allowed"), (
                "the group speaks Russian now"
            )

            # Ukrainian is offered too, and once chosen the group speaks it
            assert "Українська" in labels(picker)
            ukrainian = next(
                d
                for b, d in zip(labels(picker), callback_buttons(picker), strict=True)
                if "Українська" in b
            )
            answer = await table.press(table.users[1], picker, ukrainian)
            assert answer.text == tr("uk", "lang.set", name="Українська")
            assert query(db, chosen, table.group.id) == [("uk",)]
            refused = await table.command(2, "lang")
            assert refused.plain_text == tr("uk", "lang.not_allowed")
            rules = await table.command(2, "rules")
            assert tr("uk", "rules.title").replace("<b>", "").replace("</b>", "") in (
                rules.plain_text
            )


async def test_lang_in_private_offers_ukrainian_and_the_bot_then_speaks_it(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        ann = await tg.create_user("Ann", language_code="en")
        chat = tg.private_chat(ann)

        async def ask(command: str) -> FakeMessage:
            asked = await tg.send_command(ann, chat, command)
            return await tg.wait_for_message(chat, after=asked, timeout=10)

        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            started = await tg.start_bot(ann)
            await tg.wait_for_message(chat, after=started, timeout=10)
            picker = await ask("lang")
            assert labels(picker) == [
                tr("en", "settings.btn.chosen", value="English") if name == "English" else name
                for name in ("Русский", "English", "Українська")
            ]
            assert [len(row) for row in picker.buttons] == [1, 1, 1]
            ukrainian = callback_buttons(picker)[labels(picker).index("Українська")]
            answer = await (await tg.press(ann, picker, data=ukrainian)).answer(timeout=10)
            assert answer.text == tr("uk", "lang.set", name="Українська")
            # the picker now speaks Ukrainian and marks it
            await tg.wait_for(
                lambda: tr("uk", "settings.btn.chosen", value="Українська") in labels(picker),
                timeout=5,
            )
            assert query(db, "SELECT language FROM users WHERE user_id = ?", ann.id) == [("uk",)]
            # and so does every answer after it, though his Telegram speaks English
            help_text = (await ask("help")).plain_text
            assert help_text.startswith("🃏 Як грати"), help_text
            assert "/lang — змінити мову" in help_text

            # a language the bot does not speak, pressed as if a button said so: refused,
            # in his language, and nothing changes
            forged = await tg.press(ann, picker, data="1L.de", force=True)
            assert (await forged.answer(timeout=10)).text == tr("uk", "cb.malformed")
            assert query(db, "SELECT language FROM users WHERE user_id = ?", ann.id) == [("uk",)]


async def test_menus_descriptions_and_a_greeting_in_every_language(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        ann = await tg.create_user("Ann", language_code="uk")
        async with bot_running(tg, db, settings=settings_for(tg, db)):
            await tg.wait_for(lambda: tg.world.bot_texts.get(("short_description", "en")), 10)
            private = {"type": "all_private_chats"}
            for code, lang in (("", "en"), ("en", "en"), ("ru", "ru"), ("uk", "uk"), ("kk", "ru")):
                commands = {c["command"]: c["description"] for c in tg.my_commands(private, code)}
                assert commands.get("stats") == tr(lang, "cmd.private.stats"), code
                groups = tg.my_commands({"type": "all_group_chats"}, code)
                assert {c["command"] for c in groups} >= {"newgame", "leave", "cancel"}
                assert tg.world.bot_texts[("description", code)] == tr(lang, "about.description")
                assert tg.world.bot_texts[("short_description", code)] == tr(lang, "about.short")

            # added to a group: a short greeting, in the language of whoever added the bot
            group = await tg.create_group("Friends", members=[ann], creator=ann)
            await tg.remove_bot(group, by=ann, kicked=False)
            await tg.add_bot(group, by=ann)
            greeting = await tg.wait_for_message(
                group, lambda m: "/newgame" in m.plain_text, timeout=10
            )
            assert greeting.text == tr("uk", "about.greeting")


async def test_private_stats_name_each_group_and_add_up(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(17)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        first = await Table.create(tg, 2)
        ann, bob = first.users
        work = await tg.create_group("Work", members=[ann, bob], creator=ann)
        second = Table(tg, [ann, bob], work)
        for table in (first, second):
            await set_group_rules(db, table.group.id, Rules(hand_size=2))
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            for table in (first, second):
                await table.seat_everyone()
                await table.finish(db, rng)
            asked = await tg.send_command(ann, tg.private_chat(ann), "stats")
            reply = await tg.wait_for_message(
                tg.private_chat(ann), lambda m: m.message_id > asked.message_id, timeout=10
            )
        text = reply.plain_text
        assert "Friends —" in text and "Work —" in text, text
        assert tr("en", "tally.games", n=2) in text, "the totals of both groups"
        assert text.count("Ann") == 0


SERIES = (
    Outcome(durak_seats=(0,), draw=False, pogony=True, points=(0, 2)),
    Outcome(durak_seats=(), draw=True, pogony=False, points=(1, 1)),
    Outcome(durak_seats=(1,), draw=False, pogony=False, points=(2, 0)),
)
"""Three games in each group: the first player lost one with pogony, drew one, won one."""


async def finished_games(db: Path, chat_ids: list[int], users: list[FakeUser]) -> None:
    """The games of :data:`SERIES` in each chat between ``users``, kept as the bot keeps
    finished games: as if played before this run of the bot."""
    seats = tuple(Seat.human(u.id, u.first_name) for u in users)
    rules = Rules()
    async with SqliteStore.open(db) as store:
        for chat_id in chat_ids:
            for outcome in SERIES:
                game = Game.new(rules, players=len(seats), seed=chat_id)
                lobby = await store.create_table(
                    chat_id, rules=rules.model_dump_json(), creator_id=users[0].id, seats=seats
                )
                table = await store.start_game(
                    lobby.table_id, lobby.version, seed=chat_id, game=game.to_json()
                )
                game.apply(Resign(1))
                await store.save_action(
                    table.table_id,
                    table.version,
                    game=game.to_json(),
                    action=json.dumps(Resign(1).to_dict()),
                    seat=1,
                    outcome=outcome,
                )


async def test_a_player_s_stats_in_forty_groups_are_delivered(tmp_path: Path) -> None:
    """Forty groups, each with a long title: the reply lists the most recent ones, says
    how many more, and counts them all in the totals (it used to be refused as too long)."""
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        ann, bob = await tg.create_users("Ann", "Bob")
        groups = [
            await tg.create_group(
                f"{i:02} · The Friday evening durak club of the third floor",
                members=[ann, bob],
                creator=ann,
            )
            for i in range(40)
        ]
        await finished_games(db, [g.id for g in groups], [ann, bob])
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            asked = await tg.send_command(ann, tg.private_chat(ann), "stats")
            reply = await tg.wait_for_message(
                tg.private_chat(ann), lambda m: m.message_id > asked.message_id, timeout=10
            )
        text = reply.plain_text
        refused = [c.description for c in tg.failed_calls if c.method == "sendMessage"]
        assert refused == [], "nothing refused"
        listed = [g for g in groups if (g.title or "")[:20] in text]
        assert 0 < len(listed) < 40
        assert tr("en", "stats.mine_more", n=40 - len(listed)) in text
        assert tr("en", "tally.games", n=120) in text and tr("en", "tally.points", n=120) in text
        assert tr("en", "tally.pogony", n=40) in text and tr("en", "tally.draws", n=40) in text


async def test_an_anonymous_admin_opens_and_cancels_a_lobby_seating_nobody(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        ann, bob = table.users  # Ann made the group: an admin, who posts as the group
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.start_bots()
            asked = await tg.send_command(ann, table.group, "newgame", anonymous=True)
            lobby = await tg.wait_for_message(
                table.group,
                lambda m: m.message_id > asked.message_id and bool(callback_buttons(m)),
                timeout=10,
            )
            assert "Group" not in lobby.plain_text
            assert tr("en", "lobby.players", n=0, max=6) in lobby.plain_text
            table.lobby = lobby
            await table.press(bob, lobby, table.lobby_button("j"))
            await tg.wait_for(lambda: "Bob" in lobby.plain_text, timeout=10)
            await tg.send_command(ann, table.group, "cancel", anonymous=True)
            await tg.wait_for(
                lambda: lobby.plain_text == tr("en", "end.lobby_cancelled"),
                timeout=10,
                what="a cancelled lobby says so, naming nobody",
            )


async def test_group_help_lists_leave_and_a_cancelled_lobby_says_so(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="ru")):
            await table.start_bots()
            help_text = (await table.command(1, "help")).plain_text
            assert "/leave" in help_text
            lobby = await table.open_lobby()
            await tg.send_command(table.users[0], table.group, "cancel")
            await tg.wait_for(
                lambda: lobby.plain_text == tr("en", "end.lobby_cancelled_by", name="Ann"),
                timeout=10,
            )
            rules = (await table.command(0, "rules")).plain_text
            assert "✳️" not in rules and "differs" not in rules, "no mark, no explanation"


async def test_a_command_deleted_before_its_answer_still_gets_one(tmp_path: Path) -> None:
    """A cleaner bot or an admin deletes the command at once: the answer, which can no
    longer quote it, goes out all the same, in the chat and topic it was sent in."""
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2, forum=True)
        ann = table.users[0]
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.start_bots()
            for thread in (table.thread_id, None):
                asked = await tg.send_command(ann, table.group, "rules", thread_id=thread)
                await tg.delete_message(table.group, asked, by=ann)  # before the bot polls
                answer = await tg.wait_for_message(
                    table.group, lambda m, a=asked: m.message_id > a.message_id, timeout=10
                )
                assert answer.thread_id == thread and answer.reply_to is None
                assert re.sub("<.*?>", "", tr("en", "rules.title")) in answer.plain_text
            # a command still there is quoted, as before
            kept = await table.command(0, "help")
            assert kept.reply_to is not None
        refused = [c for c in tg.calls_to("sendMessage") if not c.ok]
        assert refused == [], [c.description for c in refused]


async def test_channels_get_no_greeting_and_a_channel_s_commands_are_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Added to a channel, where no command can reach it, the bot says nothing. In a group,
    a member posting on behalf of a channel (shown as Channel_Bot, the one user all such
    posts share) is not seated nor recognised: he is asked to post as himself."""
    caplog.set_level(logging.INFO)
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        ann, bob = await tg.create_users("Ann", "Bob")
        channel = await tg.create_channel("Ann's news", creator=ann)
        group = await tg.create_supergroup("Friends", members=[ann, bob], creator=bob)
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await tg.add_bot(channel, by=ann)
            await tg.wait_for(
                lambda: any("added to a channel" in r.getMessage() for r in caplog.records),
                timeout=10,
                what="the channel seen",
            )
            for user in (ann, bob):
                await tg.start_bot(user)
            for command in ("newgame", "leave", "cancel", "lang"):
                asked = await tg.send_command(ann, group, command, as_channel=channel)
                answer = await tg.wait_for_message(
                    group, lambda m, a=asked: m.reply_to == a.message_id, timeout=10
                )
                assert answer.plain_text == tr("en", "err.as_channel"), command
                assert not callback_buttons(answer)
            helped = await tg.send_command(ann, group, "help", as_channel=channel)
            help_text = await tg.wait_for_message(
                group, lambda m: m.reply_to == helped.message_id, timeout=10
            )
            assert "/newgame" in help_text.plain_text, "what needs no person is answered"
            assert query(db, "SELECT count(*) FROM tables") == [(0,)]
            assert query(db, "SELECT count(*) FROM users WHERE user_id = 136817688") == [(0,)]

            # as herself, she opens a table and sits at it
            await tg.send_command(ann, group, "newgame")
            lobby = await tg.wait_for_message(group, lambda m: bool(callback_buttons(m)))
            assert "Ann" in lobby.plain_text
        assert not [c for c in tg.calls if c.chat_id == channel.id], "nothing to the channel"
