"""Presses the bot must refuse (stale, forged, foreign, not allowed) and joining through
the link for a user who never started the bot."""

from __future__ import annotations

import random
from pathlib import Path

from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser, Limits

from engine import Rules

from .harness import (
    Table,
    assert_no_hand_card_in_group,
    bot_running,
    callback_buttons,
    kind_of,
    replay_games,
    set_group_rules,
    snapshot,
    stored,
)

OUTDATED = "That button is outdated"
UNREADABLE = "I cannot read that button."
NOT_YOURS = "This is not your game."
ONLY_CREATOR = "Only the creator of the lobby or a group admin can do that."


def with_field(data: str, index: int, value: str) -> str:
    """``data`` with one dot-separated field replaced."""
    parts = data.split(".")
    assert parts[index] != value
    parts[index] = value
    return ".".join(parts)


async def refused(
    table: Table, user: FakeUser, message: FakeMessage, data: str, expected: str
) -> None:
    """``user`` presses ``data`` (drawn or not) on ``message``; the bot answers
    ``expected`` (a routine refusal: a toast, not an alert)."""
    press = await table.tg.press(user, message, data=data, force=True)
    answer = await press.answer(timeout=10)
    assert answer.text, f"{data!r} by {user.first_name} was not refused: {answer}"
    assert not answer.show_alert, "a routine refusal is a toast"
    assert expected in (answer.text or ""), answer.text


async def test_stale_forged_and_foreign_presses_change_nothing(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(11)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        ann, bob = table.users
        cid = await tg.create_user("Cid")
        await tg.add_member(table.group, cid, announce=False)
        await set_group_rules(db, table.group.id, Rules(hand_size=3))
        async with bot_running(tg, db):
            await table.start_bots()
            greeting = await tg.start_bot(cid)
            cid_chat = await tg.wait_for_message(tg.private_chat(cid), after=greeting)

            # The lobby: only its creator (or an admin) starts the game or opens settings.
            lobby = await table.open_lobby()
            tid = table.table_id
            before = snapshot(db, tid)
            for kind in ("s", "g"):
                await refused(table, cid, lobby, table.lobby_button(kind), ONLY_CREATOR)
            assert snapshot(db, tid) == before
            await table.press(bob, lobby, table.lobby_button("j"))
            await tg.wait_for(lambda: "2/6" in lobby.plain_text, timeout=10)
            before = snapshot(db, tid)
            for kind in ("s", "g"):
                await refused(table, bob, lobby, table.lobby_button(kind), ONLY_CREATOR)
            assert snapshot(db, tid) == before
            assert stored(db, tid).status == "lobby"
            await table.start()
            await table.play_moves(db, rng, 2)

            # A stale press: a button of a state the game has moved on from.
            old = stored(db, tid)
            assert old.game is not None
            seat = old.game.to_act()[0]
            actor = table.users[seat]
            hand = await table.current_hand(db, seat)
            stale = table.legal_presses(hand, old.game, seat)[0]
            await table.play_moves(db, rng, 1)
            assert stored(db, tid).version > old.version
            await table.wait_latest(db)
            before = snapshot(db, tid)
            hand = table.hand(actor)
            assert hand is not None and stale not in callback_buttons(hand)
            await refused(table, actor, hand, stale, OUTDATED)
            assert snapshot(db, tid) == before
            await table.wait_latest(db)  # his hand shows the state as it is now

            # Forged and garbage data: refused before anything is looked up.
            now = stored(db, tid)
            assert now.game is not None
            seat = now.game.to_act()[0]
            actor, other = table.users[seat], table.users[1 - seat]
            hand = await table.current_hand(db, seat)
            good = table.legal_presses(hand, now.game, seat)[0]
            signature = good.rsplit(".", 1)[1]
            flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
            forged = [
                good.rsplit(".", 1)[0] + "." + flipped,  # a tampered signature
                with_field(good, 2, "zz"),  # another version, the same signature
                with_field(good, 1, "zz"),  # another table, the same signature
                good.rsplit(".", 1)[0],  # no signature
                "garbage",
                "1t.1",
                "2" + good[1:],  # an unknown format
                "1?" + good[2:],  # an unknown kind
            ]
            for data in forged:
                await refused(table, actor, hand, data, UNREADABLE)
            assert snapshot(db, tid) == before

            # Someone else's button: an outsider forging it from his own chat, and the
            # other player pressing it in his hand.
            await refused(table, cid, cid_chat, good, NOT_YOURS)
            other_hand = table.hand(other)
            assert other_hand is not None
            press = await tg.press(other, other_hand, data=good, force=True)
            answer = await press.answer(timeout=10)
            assert answer.text, "the other player cannot play the actor's card"
            assert snapshot(db, tid) == before
            await table.wait_latest(db)

            # The button itself still works for its owner.
            answer = await table.press(actor, hand, good)
            assert not answer.show_alert, answer.text
            await table.finish(db, rng)
            await table.wait_latest(db)
        games = replay_games(db)
        assert len(games) == 1 and games[0].result is not None
        assert_no_hand_card_in_group(tg, table.group, games)
        assert not any(kind_of(d) in "tcq" for d in callback_buttons(table.hand(ann)))
        assert tg.rate_limited == []
