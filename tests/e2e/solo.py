"""Driving a game against the computer in a private chat, by its buttons only."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser

from .harness import Data, callback_buttons, kind_of

HAND_KINDS = frozenset("texpcinrhzduq")
"""The kinds of a hand's buttons that play (Refresh left out)."""


def table_of(data: str) -> int | None:
    """The table a button names (None for a button that names none)."""
    try:
        return Data.parse(data).table
    except (IndexError, ValueError):
        return None


def of_table(message: FakeMessage, table_id: int, kinds: frozenset[str]) -> list[str]:
    """The buttons of ``message`` of these kinds for ``table_id``."""
    return [d for d in callback_buttons(message) if kind_of(d) in kinds and table_of(d) == table_id]


@dataclass
class Solo:
    """One player and his games against the computer in his private chat."""

    tg: FakeTelegramServer
    user: FakeUser
    presses: int = 0
    answers: list[str] = field(default_factory=list)

    @classmethod
    async def create(cls, tg: FakeTelegramServer, name: str = "Ann", language: str = "en") -> Solo:
        user = await tg.create_user(name, language_code=language)
        sent = await tg.start_bot(user)
        await tg.wait_for_message(tg.private_chat(user), after=sent, timeout=10)
        return cls(tg, user)

    @property
    def chat(self) -> object:
        return self.tg.private_chat(self.user)

    def bot_messages(self) -> list[FakeMessage]:
        return self.tg.bot_messages(self.tg.private_chat(self.user))

    async def command(self, command: str) -> FakeMessage:
        """Send ``/command`` in the private chat; the message sent."""
        return await self.tg.send_command(self.user, self.tg.private_chat(self.user), command)

    async def open_setup(self) -> FakeMessage:
        """/play: the setup message (with its opponent buttons)."""
        asked = await self.command("play")
        return await self.tg.wait_for_message(
            self.tg.private_chat(self.user),
            lambda m: (
                m.message_id > asked.message_id
                and any(kind_of(d) == "w" for d in callback_buttons(m))
            ),
            timeout=10,
        )

    async def start(self, setup: FakeMessage) -> None:
        """Press the setup's Play."""
        await self.press(setup, next(d for d in callback_buttons(setup) if kind_of(d) == "s"))

    async def press(self, message: FakeMessage, data: str) -> str | None:
        press = await self.tg.press(self.user, message, data=data)
        answer = await press.answer(timeout=10)
        self.presses += 1
        if answer.text:
            self.answers.append(answer.text)
        return answer.text

    def hand(self, table_id: int) -> FakeMessage | None:
        """The newest message with playing buttons of ``table_id``."""
        for message in reversed(self.bot_messages()):
            if of_table(message, table_id, HAND_KINDS | frozenset("f")):
                return message
        return None

    def ends(self, table_id: int) -> list[FakeMessage]:
        """The end messages of ``table_id`` (with Play again)."""
        return [m for m in self.bot_messages() if of_table(m, table_id, frozenset("m"))]

    async def play(
        self,
        table_id: int,
        rng: random.Random,
        *,
        presses: int | None = None,
        take: bool = False,
        timeout: float = 120.0,
    ) -> FakeMessage | None:
        """Press the hand's buttons at random (``take``: Take whenever it is there) until the
        game ends (its end message) or ``presses`` were made (None)."""
        deadline = time.monotonic() + timeout
        ends = len(self.ends(table_id))
        made = 0
        while time.monotonic() < deadline:
            found = self.ends(table_id)
            if len(found) > ends:
                return found[-1]
            if presses is not None and made >= presses:
                return None
            hand = self.hand(table_id)
            buttons = of_table(hand, table_id, HAND_KINDS) if hand is not None else []
            if hand is None or not buttons:
                await asyncio.sleep(0.01)
                continue
            takes = [d for d in buttons if kind_of(d) == "q"]
            await self.press(hand, takes[0] if take and takes else rng.choice(buttons))
            made += 1
        raise AssertionError(f"the game did not end in {timeout} s ({self.presses} presses)")
