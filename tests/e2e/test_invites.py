"""Invitations into any chat through inline mode: ``@bot`` in a group the bot is not in offers
invitations; the one chosen is the lobby; a player who never started the bot is taken to it
and seated by his Start; the game runs as a private table while the invitation shows the
public table, edited in place, then the end with a rematch."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser, Limits
from fake_telegram.models import LEFT

from .harness import (
    bot_running,
    callback_buttons,
    kind_of,
    query,
    settings_for,
    stored,
)
from .solo import HAND_KINDS, of_table
from .test_quick import Player


def seated(db: Path, table_id: int) -> list[str]:
    """The names seated at a table, as stored."""
    return [
        s["name"]
        for s in json.loads(
            query(db, "SELECT seats FROM tables WHERE table_id = ?", table_id)[0][0]
        )
    ]


def hand_of(tg: FakeTelegramServer, user: FakeUser, table_id: int) -> FakeMessage | None:
    for message in reversed(tg.bot_messages(tg.private_chat(user))):
        if of_table(message, table_id, HAND_KINDS | frozenset("fE")):
            return message
    return None


async def press_at_random(
    tg: FakeTelegramServer,
    db: Path,
    users: Sequence[FakeUser],
    table_id: int,
    rng: random.Random,
    presses: int = 3000,
) -> None:
    """Random players press random playing buttons of their hands, ``presses`` times or
    until the game is over."""
    for _ in range(presses):
        if stored(db, table_id).status == "finished":
            return
        user = rng.choice(users)
        hand = hand_of(tg, user, table_id)
        buttons = of_table(hand, table_id, HAND_KINDS) if hand else []
        if hand is None or not buttons:
            await tg.settle(quiet=0.02, timeout=2)
            continue
        try:
            press = await tg.press(user, hand, data=rng.choice(buttons))
            await press.answer(timeout=10)
        except LookupError:
            continue


async def test_an_invitation_in_a_group_without_the_bot_is_a_whole_game(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        async with bot_running(tg, db, settings=settings_for(tg, db)):
            ann = await Player.create(tg, "Ann")
            bob = await Player.create(tg, "Bob", language="ru")
            cid = await tg.create_user("Cid")  # never started the bot
            group = await tg.create_group(
                "Friends", members=[ann.user, bob.user, cid], creator=ann.user, bot_status=LEFT
            )
            results = await tg.inline_query(ann.user, group, "")
            assert len(results) == 6 and results.is_personal
            for result in results:
                assert any("Join" in b.text for row in result.buttons for b in row)
            invite = await tg.choose_inline_result(ann.user, group, results, "podkidnoy-3")
            assert invite.inline_message_id is not None and "Ann" in invite.plain_text

            # Bob joins: seated, the invitation shows him
            press = await tg.press(bob.user, invite, "Join")
            assert "Вы за столом" in ((await press.answer(timeout=10)).text or "")
            await tg.wait_for(lambda: "Bob" in invite.plain_text, timeout=10)
            row = stored(db, query(db, "SELECT table_id FROM invitations")[0][0])
            assert row.status == "lobby" and seated(db, row.table_id) == ["Ann", "Bob"]
            # Cid never started the bot: his Join takes him there, his Start seats him
            press = await tg.press(cid, invite, "Join")
            answer = await press.answer(timeout=10)
            assert answer.url is not None and "start=" in answer.url
            assert "Cid" not in invite.plain_text
            await tg.open_link(cid, answer.url)
            table_id = row.table_id
            # three of three: the game starts by itself; each has his cards in private
            await tg.wait_for(lambda: stored(db, table_id).status == "playing", timeout=10)
            for user in (ann.user, bob.user, cid):
                await tg.wait_for(
                    lambda user=user: hand_of(tg, user, table_id) is not None,
                    timeout=10,
                    what="a hand",
                )
            # the invitation shows the public table: no card of any hand
            await tg.wait_for(lambda: "Stock" in invite.plain_text, timeout=10)
            game = stored(db, table_id).game
            assert game is not None
            for seat in range(3):
                for card in game.view(seat).hand:
                    assert (
                        str(card) not in invite.plain_text or card == game.view(0).public.trump_card
                    )
            # played to the end by random presses
            await press_at_random(tg, db, (ann.user, bob.user, cid), table_id, random.Random(5))
            assert stored(db, table_id).status == "finished"
            await tg.wait_for(
                lambda: any("Rematch" in b.text for r in invite.buttons for b in r), timeout=10
            )
            assert "Game over" in invite.plain_text
            # a rematch: the same players seated again, whoever asked starts it
            press = await tg.press(bob.user, invite, "Rematch")
            await press.answer(timeout=10)
            await tg.wait_for(lambda: stored(db, table_id).status == "lobby", timeout=10)
            await tg.wait_for(
                lambda: (
                    "Join" in invite.plain_text
                    or any("Join" in b.text for r in invite.buttons for b in r)
                ),
                timeout=10,
            )
            press = await tg.press(bob.user, invite, "Start")
            await press.answer(timeout=10)
            await tg.wait_for(lambda: stored(db, table_id).status == "playing", timeout=10)
            assert stored(db, table_id).game_no == 2
        assert tg.rate_limited == []


async def test_bad_presses_on_an_invitation_change_nothing(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with (
        FakeTelegramServer(limits=Limits.fast()) as tg,
        bot_running(tg, db, settings=settings_for(tg, db)),
    ):
        ann = await Player.create(tg, "Ann")
        bob = await Player.create(tg, "Bob")
        dan = await Player.create(tg, "Dan")
        group = await tg.create_group(
            "Friends", members=[ann.user, bob.user, dan.user], creator=ann.user
        )
        results = await tg.inline_query(ann.user, group, "perevod")
        assert {r.id for r in results} == {"perevodnoy-2", "perevodnoy-3", "perevodnoy-4"}
        invite = await tg.choose_inline_result(ann.user, group, results, "perevodnoy-2")
        # a forged button: refused before anything is looked up
        join = next(d for d in callback_buttons(invite) if kind_of(d) == "I")
        forged = join[:-3] + ("AAA" if not join.endswith("AAA") else "BBB")
        press = await tg.press(bob.user, invite, data=forged, force=True)
        assert "cannot read" in ((await press.answer(timeout=10)).text or "")
        assert query(db, "SELECT * FROM invitations") == []
        # Leave before anyone pressed anything: nobody is seated
        press = await tg.press(bob.user, invite, "Leave")
        assert "not at this table" in ((await press.answer(timeout=10)).text or "")
        assert query(db, "SELECT * FROM invitations") == []
        # Start by Ann alone: two are needed
        press = await tg.press(ann.user, invite, "Start")
        said = (await press.answer(timeout=10)).text or ""
        assert said, "a clear answer"
        # a computer player: the inviter's to seat, not Bob's
        press = await tg.press(bob.user, invite, "Computer")
        assert "Only the one who invited" in ((await press.answer(timeout=10)).text or "")
        table_id = query(db, "SELECT table_id FROM invitations")[0][0]
        assert stored(db, table_id).status == "lobby"
        # Dan waits for a quick game: he is in another game already
        await dan.quick()
        await tg.wait_for(lambda: dan.waiting_message() is not None, timeout=10)
        press = await tg.press(dan.user, invite, "Join")
        assert "another game" in ((await press.answer(timeout=10)).text or "")
        assert seated(db, table_id) == ["Ann"]
        # Bob joins: two of two, the game starts; a late Join is told so
        press = await tg.press(bob.user, invite, "Join")
        await press.answer(timeout=10)
        await tg.wait_for(lambda: stored(db, table_id).status == "playing", timeout=10)
        # the message deleted: the game goes on in the private chats, and the moves
        # that follow try no edit of it after the first that finds it gone
        await tg.delete_message(group, invite, by=ann.user)
        calls = len(tg.calls)
        await press_at_random(tg, db, (ann.user, bob.user), table_id, random.Random(2), 40)
        await tg.settle(quiet=0.3, timeout=10)
        inline_edits = [
            c
            for c in tg.calls[calls:]
            if c.method == "editMessageText" and "inline_message_id" in c.params
        ]
        assert len(inline_edits) <= 1
        assert stored(db, table_id).moves > 0


async def test_an_invitation_seats_a_computer_player(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with (
        FakeTelegramServer(limits=Limits.fast()) as tg,
        bot_running(tg, db, settings=settings_for(tg, db, ai_delay=0.05)),
    ):
        ann = await Player.create(tg, "Ann")
        friend = await tg.create_private_chat(ann.user, await tg.create_user("Eve"))
        results = await tg.inline_query(ann.user, friend, "")
        invite = await tg.choose_inline_result(ann.user, friend, results, "podkidnoy-2")
        press = await tg.press(ann.user, invite, "Computer")
        assert "computer" in ((await press.answer(timeout=10)).text or "").lower()
        table_id = query(db, "SELECT table_id FROM invitations")[0][0]
        # two of two: the game starts, the computer plays its moves by itself
        await tg.wait_for(lambda: stored(db, table_id).status == "playing", timeout=10)
        await press_at_random(tg, db, (ann.user,), table_id, random.Random(3))
        assert stored(db, table_id).status == "finished"
        assert seated(db, table_id)[1].startswith("Computer")


async def test_the_bot_mentioned_as_a_guest_posts_the_invitation_itself(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with (
        FakeTelegramServer(limits=Limits.fast(), guest_mode=True) as tg,
        bot_running(tg, db, settings=settings_for(tg, db)),
    ):
        ann = await Player.create(tg, "Ann")
        bob = await Player.create(tg, "Bob")
        chat = await tg.create_private_chat(ann.user, bob.user)
        asked = await tg.mention_guest(ann.user, chat, f"@{tg.world.bot.username} perevodnoy 2")
        invite = await asked.wait_reply()
        assert "Perevodnoy" in invite.plain_text and "Ann" in invite.plain_text
        press = await tg.press(bob.user, invite, "Join")
        await press.answer(timeout=10)
        # two of two: the game starts; the invitation shows the table
        table_id = query(db, "SELECT table_id FROM invitations")[0][0]
        await tg.wait_for(lambda: stored(db, table_id).status == "playing", timeout=10)
        await tg.wait_for(lambda: "Stock" in invite.plain_text, timeout=10)
