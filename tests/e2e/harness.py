"""End-to-end harness: the real bot Application against the fake Bot API server.

A :class:`Table` drives one group: users start the bot, open a lobby, join, start, and
then play by pressing the buttons the bot drew in their private chats — nothing else.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_telegram import FakeChat, FakeMessage, FakeTelegramServer, FakeUser, running
from telegram.ext import AIORateLimiter

from bot.app import build_application
from bot.config import Settings
from engine import Game, Rules
from engine.actions import action_from_dict

NAMES = ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay")


def settings_for(tg: FakeTelegramServer, db: Path) -> Settings:
    """Settings for a bot talking to the fake server, with short pacing for tests."""
    return Settings(
        bot_token=tg.token,
        DURAK_DB_PATH=db,  # type: ignore[call-arg]
        group_edit_interval=0.05,
        private_edit_interval=0.02,
    )


def test_rate_limiter() -> AIORateLimiter:
    """PTB's rate limiter without its real-time group pacing (the fake server's clock is
    scaled); 429s are still retried."""
    return AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3)


test_rate_limiter.__test__ = False  # type: ignore[attr-defined]


@asynccontextmanager
async def bot_running(tg: FakeTelegramServer, db: Path) -> AsyncIterator[Any]:
    """The real Application, polling the fake server, with its store in ``db``."""
    app = build_application(settings_for(tg, db), tg.application_builder(), test_rate_limiter())
    async with running(app, poll_timeout=0.5):
        yield app


def callback_buttons(message: FakeMessage | None) -> list[str]:
    """The callback_data of every button of a message."""
    if message is None:
        return []
    return [b.callback_data for row in message.buttons for b in row if b.callback_data]


@dataclass
class Table:
    """One group of simulated players and the bot's messages to them."""

    tg: FakeTelegramServer
    users: list[FakeUser]
    group: FakeChat
    thread_id: int | None = None
    lobby: FakeMessage | None = None
    presses: int = 0
    refused: int = 0
    alerts: list[str] = field(default_factory=list)

    @classmethod
    async def create(
        cls, tg: FakeTelegramServer, players: int, *, forum: bool = False, language: str = "en"
    ) -> Table:
        users = [await tg.create_user(name, language_code=language) for name in NAMES[:players]]
        if forum:
            group = await tg.create_supergroup(
                "Friends", members=users, creator=users[0], forum=True
            )
            thread = await tg.create_topic(group, "Durak", by=users[0])
            return cls(tg, users, group, thread)
        group = await tg.create_group("Friends", members=users, creator=users[0])
        return cls(tg, users, group)

    async def start_bots(self) -> None:
        for user in self.users:
            await self.tg.start_bot(user)

    async def open_lobby(self, by: int = 0) -> FakeMessage:
        await self.tg.send_command(self.users[by], self.group, "newgame", thread_id=self.thread_id)
        self.lobby = await self.tg.wait_for_message(
            self.group,
            lambda m: any("j." in d for d in callback_buttons(m)),
            thread_id=self.thread_id,
            timeout=10,
        )
        return self.lobby

    async def press(self, user: FakeUser, message: FakeMessage, data: str) -> Any:
        press = await self.tg.press(user, message, data=data)
        answer = await press.answer(timeout=10)
        self.presses += 1
        if answer.show_alert:
            self.refused += 1
            self.alerts.append(answer.text or "")
        return answer

    def lobby_button(self, kind: str) -> str:
        assert self.lobby is not None
        found = [d for d in callback_buttons(self.lobby) if d[1:].startswith(kind + ".")]
        assert found, f"no {kind!r} button in the lobby: {callback_buttons(self.lobby)}"
        return found[0]

    async def join_all(self) -> None:
        assert self.lobby is not None
        lobby = self.lobby
        for i, user in enumerate(self.users[1:], 2):
            await self.press(user, lobby, self.lobby_button("j"))
            await self.tg.wait_for(lambda i=i: f"{i}/6" in lobby.plain_text, timeout=10)

    async def start(self) -> None:
        assert self.lobby is not None
        await self.press(self.users[0], self.lobby, self.lobby_button("s"))
        await self.tg.wait_for(
            lambda: all(callback_buttons(self.hand(u)) for u in self.users), timeout=10
        )

    def hand(self, user: FakeUser) -> FakeMessage | None:
        return self.tg.last_message(self.tg.private_chat(user))

    def end_message(self) -> FakeMessage | None:
        assert self.lobby is not None
        for message in self.tg.bot_messages(self.group, thread_id=self.thread_id):
            if message.message_id > self.lobby.message_id and any(
                d[1:].startswith("m.") for d in callback_buttons(message)
            ):
                return message
        return None

    async def play_to_end(self, rng: random.Random, timeout: float = 120.0) -> FakeMessage:
        """Press random buttons of random players' hands until the game is over."""
        deadline = time.monotonic() + timeout
        start_ends = self.end_count()
        while time.monotonic() < deadline:
            if self.end_count() > start_ends:
                break
            user = rng.choice(self.users)
            hand = self.hand(user)
            buttons = callback_buttons(hand)
            if hand is None or not buttons:
                await asyncio.sleep(0.005)
                continue
            await self.press(user, hand, rng.choice(buttons))
        else:
            raise AssertionError(f"the game did not end in {timeout} s ({self.presses} presses)")
        await self.tg.settle(quiet=0.2, timeout=10)
        return self.ends()[-1]

    def ends(self) -> list[FakeMessage]:
        assert self.lobby is not None
        return [
            m
            for m in self.tg.bot_messages(self.group, thread_id=self.thread_id)
            if m.message_id > self.lobby.message_id
            and any(d[1:].startswith("m.") for d in callback_buttons(m))
        ]

    def end_count(self) -> int:
        return len(self.ends())


def replay_games(db: Path) -> list[Game]:
    """Every game in the database, replayed from its seed through its action log, checked
    against the stored final state."""
    con = sqlite3.connect(db)
    try:
        games = []
        rows = con.execute(
            "SELECT table_id, game_no, seed, rules, seats, final_game FROM games ORDER BY 1, 2"
        ).fetchall()
        previous: dict[int, Any] = {}
        for table_id, game_no, seed, rules, seats, final in rows:
            players = len(json.loads(seats))
            game = Game.new(
                Rules.model_validate_json(rules),
                players=players,
                seed=seed,
                previous=previous.get(table_id),
            )
            for (action,) in con.execute(
                "SELECT action FROM actions WHERE table_id = ? AND game_no = ? ORDER BY seq",
                (table_id, game_no),
            ):
                game.apply(action_from_dict(json.loads(action)))
            if final is not None:
                assert game.to_json() == final, "the log replays to the stored state"
            previous[table_id] = game.result
            games.append(game)
        return games
    finally:
        con.close()


def hidden_at_end(game: Game) -> set[str]:
    """Card labels that stayed private the whole game: in a hand at the end, never on the
    table, never shown."""
    public = {str(c) for c in game.discard}
    hidden: set[str] = set()
    for seat in range(game.n):
        known = set(game.known_cards(seat))
        hidden |= {str(c) for c in game.hands[seat] if c not in known}
    return hidden - public


def group_texts(tg: FakeTelegramServer, chat: FakeChat) -> list[str]:
    """Every text any bot message in the group ever showed (every revision)."""
    texts = []
    for message in tg.messages(chat, from_bot=True, include_deleted=True):
        texts += [revision.text for revision in message.history]
        texts.append(message.text)
    return texts


def assert_no_hand_card_in_group(
    tg: FakeTelegramServer, chat: FakeChat, games: Sequence[Game]
) -> None:
    texts = group_texts(tg, chat)
    for game in games:
        for label in hidden_at_end(game):
            for text in texts:
                assert label not in text, f"{label}, never played, appears in the group: {text}"
