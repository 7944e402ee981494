"""The evening a group actually plays: the creator leaves, rematches, old buttons."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser, Limits

from bot.base.i18n import tr
from bot.render.settings import option_by_name, value_token
from engine import Rules

from .harness import (
    Data,
    Table,
    bot_running,
    callback_buttons,
    kind_of,
    query,
    set_group_rules,
    settings_for,
    snapshot,
    stored,
)

RULES = Rules(hand_size=3)


def buttons_of(message: FakeMessage, kind: str) -> list[str]:
    return [d for d in callback_buttons(message) if kind_of(d) == kind]


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_when_the_creator_leaves_the_next_person_seated_runs_the_lobby(
    tmp_path: Path, language: str
) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 3, language=language)
        await set_group_rules(db, table.group.id, RULES)
        ann, bob, cid = table.users  # Ann made the group (an admin); Bob and Cid did not
        settings = settings_for(tg, db, default_language=language)
        async with bot_running(tg, db, settings=settings):
            await table.start_bots()
            lobby = await table.open_lobby()
            await table.join_all()
            assert tr(language, "lobby.creator", name="Ann") in lobby.text  # type: ignore[operator]

            await table.press(ann, lobby, table.lobby_button("l"))
            await tg.wait_for(
                lambda: "Ann" not in lobby.plain_text and "Bob" in lobby.plain_text, timeout=10
            )
            await tg.wait_for(
                lambda: tr(language, "lobby.creator", name="Bob") in (lobby.text or ""),
                timeout=10,
                what="the lobby names its new creator",
            )
            # Cid is not the creator: refused with a short toast, nothing changes
            before = snapshot(db, table.table_id)
            answer = await table.press(cid, lobby, table.lobby_button("s"))
            assert answer.text == tr(language, "lobby.alert.only_creator")
            assert not answer.show_alert
            assert snapshot(db, table.table_id) == before
            # Bob may browse the settings and start
            answer = await table.press(bob, lobby, table.lobby_button("g"))
            assert answer.text is None
            back = await tg.wait_for(lambda: buttons_of(lobby, "y") or None, timeout=10)
            await table.press(bob, lobby, back[0])
            await tg.wait_for(lambda: buttons_of(lobby, "s"), timeout=10)
            answer = await table.press(bob, lobby, table.lobby_button("s"))
            assert answer.text is None, answer.text
            await tg.wait_for(lambda: stored(db, table.table_id).status == "playing", timeout=10)
            assert stored(db, table.table_id).game is not None
            assert stored(db, table.table_id).game.n == 2  # type: ignore[union-attr]


async def test_one_open_table_per_group_and_a_rematch_opens_a_lobby(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(31)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, RULES)
        ann, bob = table.users
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.seat_everyone()
            first_end = await table.finish(db, rng)
            first_table = table.table_id

            # a new table opened with /newgame: the old end's Rematch is refused and
            # points to the open table
            await table.open_lobby()
            assert table.table_id != first_table
            new_lobby = table.lobby
            assert new_lobby is not None
            before = snapshot(db, first_table)
            answer = await table.press(bob, first_end, buttons_of(first_end, "m")[0])
            assert answer.text == tr("en", "lobby.alert.table_open")
            assert snapshot(db, first_table) == before, "no second open table"
            await tg.wait_for(
                lambda: (
                    tg.last_message(table.group) is not new_lobby
                    and buttons_of(tg.last_message(table.group), "j")
                ),  # type: ignore[arg-type]
                timeout=10,
                what="the open lobby shown again below",
            )
            # the new table is played; now the first table's end is no longer the newest
            lobby = tg.last_message(table.group)
            assert lobby is not None
            table.lobby = lobby
            await table.join_all()
            await table.start()
            second_end = await table.finish(db, rng)
            answer = await table.press(bob, first_end, buttons_of(first_end, "m")[0])
            assert answer.text == tr("en", "lobby.alert.rematch_old")
            assert stored(db, first_table).status == "finished"

            # the newest end's Rematch opens a lobby with both seated; nobody is dealt
            answer = await table.press(bob, second_end, buttons_of(second_end, "m")[0])
            assert answer.text is None
            rematch = await table.lobby_after(second_end)
            assert stored(db, table.table_id).status == "lobby"
            assert "Ann" in rematch.plain_text and "Bob" in rematch.plain_text
            assert tr("en", "lobby.creator", name="Bob") in (rematch.text or "")
            # a second Rematch press: told the table is open
            answer = await table.press(ann, second_end, buttons_of(second_end, "m")[0])
            assert answer.text == tr("en", "lobby.alert.table_open")
            open_rows = [
                t
                for t in (first_table, table.table_id)
                if stored(db, t).status in ("lobby", "playing")
            ]
            assert open_rows == [table.table_id], "one open table, always"
            # it starts like any lobby: its creator's Start
            await table.press(bob, rematch, buttons_of(rematch, "s")[0])
            await tg.wait_for(lambda: stored(db, table.table_id).status == "playing", timeout=10)
            assert stored(db, table.table_id).game_no == 2


async def test_an_old_join_during_a_game_is_answered_in_private(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, RULES)
        late = await tg.create_user("Dan", language_code="ru")
        await tg.add_member(table.group, late, by=table.users[0])
        async with bot_running(tg, db):
            await tg.start_bot(late)
            await table.start_bots()
            lobby = await table.open_lobby()
            join = table.lobby_button("j")
            await table.join_all()
            await table.start()
            before = snapshot(db, table.table_id)
            press = await tg.press(late, lobby, data=join, force=True)
            answer = await press.answer(timeout=10)
            assert answer.text == tr("ru", "lobby.alert.game_running")
            assert "/cancel" not in answer.text
            dm = await tg.wait_for_message(
                tg.private_chat(late), lambda m: "Friends" in m.plain_text, timeout=10
            )
            assert dm.plain_text == tr("ru", "lobby.running_dm", group="Friends").replace(
                "<b>", ""
            ).replace("</b>", "")
            assert snapshot(db, table.table_id) == before


async def _press_kind(
    table: Table, user: FakeUser, lobby: FakeMessage, kind: str, rest: tuple[str, ...] = ()
) -> None:
    """Press the lobby's button of ``kind`` (whose fields start with ``rest``); wait until
    the message changed."""
    found = [
        d
        for d in callback_buttons(lobby)
        if kind_of(d) == kind and Data.parse(d).rest[: len(rest)] == rest
    ]
    assert found, (kind, rest, callback_buttons(lobby))
    edits = lobby.edit_count
    answer = await table.press(user, lobby, found[0])
    assert answer.text is None, answer.text
    await table.tg.wait_for(lambda: lobby.edit_count > edits, timeout=10)


async def test_settings_keep_the_lobby_open_and_a_new_game_brings_its_hand_size(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        ann, bob = table.users
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.start_bots()
            lobby = await table.open_lobby()
            game = option_by_name("game")
            # Ann browses to the game's values: Bob can still sit down from that page
            await _press_kind(table, ann, lobby, "g")
            await _press_kind(table, ann, lobby, "g", (game.group,))
            await _press_kind(table, ann, lobby, "o", (game.token,))
            assert "Ann" in lobby.plain_text
            answer = await table.press(bob, lobby, table.lobby_button("j"))
            assert answer.text == tr("en", "lobby.alert.joined")
            await tg.wait_for(lambda: "Bob" in lobby.plain_text, timeout=10)
            # the five-card game deals 5; back to podkidnoy, 6 again
            await _press_kind(table, ann, lobby, "g")
            await _press_kind(table, ann, lobby, "g", (game.group,))
            await _press_kind(table, ann, lobby, "o", (game.token,))
            await _press_kind(table, ann, lobby, "v", (game.token, value_token("prostoy5")))
            assert Rules.model_validate_json(stored_rules(db, table.table_id)).hand_size == 5
            await _press_kind(table, ann, lobby, "v", (game.token, value_token("podkidnoy")))
            rules = Rules.model_validate_json(stored_rules(db, table.table_id))
            assert rules.game == "podkidnoy" and rules.hand_size == 6
            # an on/off option opens its page like the others: a tap says what it sets
            page = option_by_name("multi_card_lead")
            await _press_kind(table, ann, lobby, "g", (page.group,))
            await _press_kind(table, ann, lobby, "o", (page.token,))
            assert Rules.model_validate_json(stored_rules(db, table.table_id)) == rules


def stored_rules(db: Path, table_id: int) -> str:
    (text,) = query(db, "SELECT rules FROM tables WHERE table_id = ?", table_id)[0]
    return str(text)


async def test_a_long_name_with_flags_is_cut_between_whole_characters(tmp_path: Path) -> None:
    import regex

    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 1)
        fan = await tg.create_user("Олександр" + "🇺🇦" * 20, language_code="uk")
        await tg.add_member(table.group, fan, by=table.users[0])
        async with bot_running(tg, db):
            await table.start_bots()
            await tg.start_bot(fan)
            lobby = await table.open_lobby()
            await table.press(fan, lobby, table.lobby_button("j"))
            await tg.wait_for(lambda: "Олександр" in lobby.plain_text, timeout=10)
            line = next(x for x in lobby.plain_text.splitlines() if "Олександр" in x)
            assert "…" in line, "the name is cut"
            for cluster in regex.findall(r"\X", line):
                flags = regex.findall(r"\p{Regional_Indicator}", cluster)
                assert len(flags) in (0, 2), f"half a flag in {line!r}"
