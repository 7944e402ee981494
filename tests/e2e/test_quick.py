"""Quick games: /quick pairs two strangers at a private table, each seeing the table and his
cards in his own private chat; a lone player is offered the computer; Cancel; quick
reactions; Block; /leave; the end and the overall rating."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser, Limits

from bot.store import is_private_chat

from .harness import bot_running, callback_buttons, kind_of, query, settings_for, stored
from .solo import HAND_KINDS, of_table, table_of


class Player:
    """One person in his private chat with the bot."""

    def __init__(self, tg: FakeTelegramServer, user: FakeUser) -> None:
        self.tg = tg
        self.user = user
        self.answers: list[str] = []

    @classmethod
    async def create(
        cls, tg: FakeTelegramServer, name: str, language: str = "en", last_name: str | None = None
    ) -> Player:
        user = await tg.create_user(name, language_code=language, last_name=last_name)
        sent = await tg.start_bot(user)
        await tg.wait_for_message(tg.private_chat(user), after=sent, timeout=10)
        return cls(tg, user)

    @property
    def chat(self) -> object:
        return self.tg.private_chat(self.user)

    def messages(self) -> list[FakeMessage]:
        return self.tg.bot_messages(self.tg.private_chat(self.user))

    async def quick(self) -> FakeMessage:
        """/quick; the message sent."""
        return await self.tg.send_command(self.user, self.tg.private_chat(self.user), "quick")

    async def press(self, message: FakeMessage, data: str) -> str | None:
        press = await self.tg.press(self.user, message, data=data)
        answer = await press.answer(timeout=10)
        if answer.text:
            self.answers.append(answer.text)
        return answer.text

    async def press_text(self, message: FakeMessage, text: str) -> str | None:
        press = await self.tg.press(self.user, message, text)
        answer = await press.answer(timeout=10)
        return answer.text

    def waiting_message(self) -> FakeMessage | None:
        for message in reversed(self.messages()):
            if "Looking for" in message.plain_text or "Ищем" in message.plain_text:
                return message
        return None

    def hand(self, table_id: int | None = None) -> FakeMessage | None:
        """The newest message with a private table's hand (its reaction row)."""
        for message in reversed(self.messages()):
            data = callback_buttons(message)
            if any(kind_of(d) == "E" for d in data) and (
                table_id is None or any(table_of(d) == table_id for d in data)
            ):
                return message
        return None

    def ends(self) -> list[FakeMessage]:
        return [
            m
            for m in self.messages()
            if m.plain_text.startswith(("🏁 Game over", "🏁 Игра окончена"))
        ]


async def wait_hand(player: Player, timeout: float = 10.0) -> FakeMessage:
    await player.tg.wait_for(lambda: player.hand() is not None, timeout=timeout, what="a hand")
    hand = player.hand()
    assert hand is not None
    return hand


def table_id_of(hand: FakeMessage) -> int:
    found = {table_of(d) for d in callback_buttons(hand) if kind_of(d) == "E"}
    assert len(found) == 1, found
    table = found.pop()
    assert table is not None
    return table


async def play_out(players: list[Player], table_id: int, seed: int, timeout: float = 120.0) -> None:
    """Every player presses his hand's playing buttons at random until each has the end."""
    rng = random.Random(seed)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(p.ends() for p in players):
            return
        moved = False
        for player in players:
            hand = player.hand(table_id)
            buttons = of_table(hand, table_id, HAND_KINDS) if hand is not None else []
            if hand is None or not buttons or player.ends():
                continue
            try:
                await player.press(hand, rng.choice(buttons))
            except LookupError:
                continue  # edited meanwhile
            moved = True
        if not moved:
            await asyncio.sleep(0.02)
    raise AssertionError(
        f"the quick game did not end in time: {[p.answers[-5:] for p in players]} "
        f"{[[m.plain_text[-200:] for m in p.messages()[-3:]] for p in players]}"
    )


async def test_two_players_are_paired_at_once_and_play_in_their_own_chats(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        async with bot_running(tg, db, settings=settings_for(tg, db)):
            ann = await Player.create(tg, "Ann")
            bob = await Player.create(tg, "Bob", language="ru")
            await ann.quick()
            await tg.wait_for(lambda: ann.waiting_message() is not None, timeout=10)
            looking = ann.waiting_message()
            assert looking is not None
            assert any("Cancel" in b.text for row in looking.buttons for b in row)
            await bob.quick()
            ann_hand, bob_hand = await wait_hand(ann), await wait_hand(bob)
            table_id = table_id_of(ann_hand)
            assert table_id_of(bob_hand) == table_id
            # Ann's waiting message says whom she got, and has no button left
            await tg.wait_for(lambda: "Bob" in looking.plain_text, timeout=10)
            assert callback_buttons(looking) == []
            # each reads the table and his own cards, in his language
            assert "You hold 6 cards" in ann_hand.plain_text
            assert "У вас 6 карт" in bob_hand.plain_text
            assert "Quick game" in ann_hand.plain_text and "Быстрая игра" in bob_hand.plain_text
            await tg.wait_for(
                lambda: any("👉" in h.plain_text for h in (ann.hand(), bob.hand()) if h),
                timeout=10,
            )
            row = stored(db, table_id)
            assert row.status == "playing" and is_private_chat(row.chat_id)
            # no group anywhere: nothing but the two private chats got a message
            chats = {c.params.get("chat_id") for c in tg.calls if c.method == "sendMessage"}
            assert chats <= {ann.user.id, bob.user.id}
            await play_out([ann, bob], table_id, seed=3)
            await tg.settle(quiet=0.3, timeout=10)
            for player, other in ((ann, "Bob"), (bob, "Ann")):
                end = player.ends()[-1]
                data = callback_buttons(end)
                assert [kind_of(d) for d in data] == ["Q", "R", "B"], data
                assert any(other in b.text for row in end.buttons for b in row)
            # his record lists his quick games as one line; the replay names where it was
            asked = await tg.send_command(ann.user, ann.chat, "stats")
            stats = await tg.wait_for_message(ann.chat, after=asked, timeout=10)
            assert "Quick games" in stats.plain_text and "1 game" in stats.plain_text
            end = ann.ends()[-1]
            await ann.press(end, next(d for d in callback_buttons(end) if kind_of(d) == "R"))
            await tg.wait_for(
                lambda: any(
                    "Replay" in m.plain_text and "Quick game" in m.plain_text
                    for m in ann.messages()
                ),
                timeout=10,
            )
        assert stored(db, table_id).status == "finished"
        scopes = {s for (s,) in query(db, "SELECT DISTINCT scope FROM ratings")}
        assert scopes <= {0}, "a private table moves the overall rating only"


async def test_a_lone_player_is_offered_the_computer_in_his_waiting_message(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db, quick_wait=1.0, ai_delay=0.05)
        async with bot_running(tg, db, settings=settings):
            ann = await Player.create(tg, "Ann")
            await ann.quick()
            await tg.wait_for(lambda: ann.waiting_message() is not None, timeout=10)
            looking = ann.waiting_message()
            assert looking is not None
            assert not any("computer" in b.text for row in looking.buttons for b in row)
            await tg.wait_for(
                lambda: any("computer" in b.text for row in looking.buttons for b in row),
                timeout=10,
                what="the offer of the computer",
            )
            # he keeps waiting: the offer goes, and comes back after another wait
            assert await ann.press_text(looking, "Keep waiting") is not None
            await tg.wait_for(
                lambda: not any("computer" in b.text for row in looking.buttons for b in row),
                timeout=10,
            )
            await tg.wait_for(
                lambda: any("computer" in b.text for row in looking.buttons for b in row),
                timeout=10,
            )
            await ann.press_text(looking, "computer")
            await tg.wait_for(lambda: "Stopped looking" in looking.plain_text, timeout=10)
            # the setup of a game against the computer
            await tg.wait_for(
                lambda: any(
                    any(kind_of(d) == "w" for d in callback_buttons(m)) for m in ann.messages()
                ),
                timeout=10,
            )
            assert not query(db, "SELECT * FROM quick_queue")


async def test_cancel_twice_and_quick_twice_get_clear_answers(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with (
        FakeTelegramServer(limits=Limits.fast()) as tg,
        bot_running(tg, db, settings=settings_for(tg, db)),
    ):
        ann = await Player.create(tg, "Ann")
        bob = await Player.create(tg, "Bob")
        await ann.quick()
        await tg.wait_for(lambda: ann.waiting_message() is not None, timeout=10)
        first = ann.waiting_message()
        assert first is not None
        await ann.quick()
        await tg.wait_for(
            lambda: any("queue already" in m.plain_text for m in ann.messages()), timeout=10
        )
        assert len(query(db, "SELECT * FROM quick_queue")) == 1
        await tg.wait_for(lambda: ann.waiting_message() is not first, timeout=10)
        looking = ann.waiting_message()
        assert looking is not None
        cancel = next(d for d in callback_buttons(looking) if kind_of(d) == "Q")
        await ann.press(looking, cancel)
        await tg.wait_for(lambda: "Stopped looking" in looking.plain_text, timeout=10)
        assert not query(db, "SELECT * FROM quick_queue")
        # the same Cancel again, from a client that has not seen the edit
        press = await tg.press(ann.user, looking, data=cancel, force=True)
        assert "not waiting" in ((await press.answer(timeout=10)).text or "")
        # Cancel after the match was made: too late, and the game goes on
        await ann.quick()
        await tg.wait_for(lambda: ann.waiting_message() is not looking, timeout=10)
        again = ann.waiting_message()
        assert again is not None
        cancel = next(d for d in callback_buttons(again) if kind_of(d) == "Q")
        await bob.quick()
        hand = await wait_hand(ann)
        press = await tg.press(ann.user, again, data=cancel, force=True)
        assert "Too late" in ((await press.answer(timeout=10)).text or "")
        assert stored(db, table_id_of(hand)).status == "playing"
        # /quick while in a quick game: he is shown his game
        await ann.quick()
        await tg.wait_for(
            lambda: any("quick game already" in m.plain_text for m in ann.messages()),
            timeout=10,
        )


async def test_reactions_show_to_the_opponent_and_are_paced(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with (
        FakeTelegramServer(limits=Limits.fast()) as tg,
        bot_running(tg, db, settings=settings_for(tg, db)),
    ):
        ann = await Player.create(tg, "Ann", last_name="Smith")  # shown by her first name
        bob = await Player.create(tg, "Bob")
        await ann.quick()
        await tg.wait_for(lambda: ann.waiting_message() is not None, timeout=10)
        await bob.quick()
        hand = await wait_hand(ann)
        await wait_hand(bob)
        reactions = [
            b for row in hand.buttons for b in row if kind_of(b.callback_data or "") == "E"
        ]
        assert len(reactions) >= 4
        assert all(len(b.text) <= 2 and not b.text.isalnum() for b in reactions)
        laugh = next(b for b in reactions if b.text == "😂")
        assert laugh.callback_data is not None
        assert await ann.press(hand, laugh.callback_data) is None
        await tg.wait_for(
            lambda: "Ann: 😂" in (bob.hand().plain_text if bob.hand() else ""), timeout=10
        )
        # a second one within three seconds is refused, and shows nothing new
        thumbs = next(b for b in reactions if b.text == "👍")
        assert thumbs.callback_data is not None
        said = await ann.press(ann.hand() or hand, thumbs.callback_data)
        assert said is not None and "3 seconds" in said
        await asyncio.sleep(0.3)
        assert "👍" not in (bob.hand().plain_text if bob.hand() else "")
        # someone not at the table (a forged press from his own chat): refused
        cid = await Player.create(tg, "Cid")
        greeting = cid.messages()[-1]
        press = await tg.press(cid.user, greeting, data=laugh.callback_data, force=True)
        assert "Only the players" in ((await press.answer(timeout=10)).text or "")
        # after the game: refused, nothing shown
        await tg.send_command(bob.user, bob.chat, "leave")
        await tg.wait_for(lambda: bool(ann.ends()), timeout=10)
        await asyncio.sleep(3.1)
        press = await tg.press(ann.user, hand, data=thumbs.callback_data, force=True)
        assert "over" in ((await press.answer(timeout=10)).text or "")


async def test_leave_makes_the_leaver_durak_and_block_keeps_two_apart(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db, quick_wait=1.0)
        async with bot_running(tg, db, settings=settings):
            ann = await Player.create(tg, "Ann")
            bob = await Player.create(tg, "Bob")
            await ann.quick()
            await tg.wait_for(lambda: ann.waiting_message() is not None, timeout=10)
            await bob.quick()
            table_id = table_id_of(await wait_hand(ann))
            await tg.send_command(bob.user, bob.chat, "cancel")
            await tg.wait_for(
                lambda: any("cannot be called off" in m.plain_text for m in bob.messages()),
                timeout=10,
            )
            await tg.send_command(bob.user, bob.chat, "leave")
            await tg.wait_for(lambda: bool(ann.ends()) and bool(bob.ends()), timeout=10)
            assert "Bob" in ann.ends()[-1].plain_text and "gave up" in ann.ends()[-1].plain_text
            assert stored(db, table_id).status == "finished"
            end = ann.ends()[-1]
            block = next(d for d in callback_buttons(end) if kind_of(d) == "B")
            said = await ann.press(end, block)
            assert said is not None and "Bob" in said
            assert query(db, "SELECT user_id, blocked_id FROM blocks") == [
                (ann.user.id, bob.user.id)
            ]
            # both look again: never paired; each is offered the computer instead
            await ann.quick()
            await bob.quick()
            for player in (ann, bob):
                await tg.wait_for(
                    lambda player=player: any(
                        "computer" in b.text
                        for row in (player.waiting_message() or ann.messages()[0]).buttons
                        for b in row
                    ),
                    timeout=10,
                )
            assert len(query(db, "SELECT * FROM quick_queue")) == 2
            assert len(query(db, "SELECT * FROM tables")) == 1


async def test_the_queue_and_a_quick_game_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = settings_for(tg, db)
        async with bot_running(tg, db, settings=settings):
            ann = await Player.create(tg, "Ann")
            bob = await Player.create(tg, "Bob")
            await ann.quick()
            await tg.wait_for(lambda: ann.waiting_message() is not None, timeout=10)
            looking = ann.waiting_message()
            assert looking is not None
            await tg.settle(quiet=0.3, timeout=10)
        assert [r[0] for r in query(db, "SELECT user_id FROM quick_queue")] == [ann.user.id]
        async with bot_running(tg, db, settings=settings):
            # Ann still waits: Bob is paired with her, and her waiting message says so
            await bob.quick()
            table_id = table_id_of(await wait_hand(ann))
            await tg.wait_for(lambda: "Bob" in looking.plain_text, timeout=10)
            await tg.settle(quiet=0.3, timeout=10)
            moves_before = stored(db, table_id).moves
        async with bot_running(tg, db, settings=settings):
            # the game goes on where it was: the hands are drawn again and play on
            known = len(tg.calls)
            await tg.wait_for(
                lambda: any(c.method == "editMessageText" for c in tg.calls[known:]), timeout=10
            )
            await play_out([ann, bob], table_id, seed=9)
            assert stored(db, table_id).moves > moves_before
