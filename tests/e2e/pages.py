"""Mini App pages as the tests drive them: real WebSocket clients (aiohttp's) that say hello
with init data signed as Telegram signs it, keep every frame they are sent, and tap.

:func:`webapp_settings` gives the bot a Mini App on a free loopback port; :class:`PageClient`
is one open page; :func:`init_data` plays Telegram's part in signing who the user is.
:func:`check_frames` checks every state frame a page got against the game replayed from
the store: a player's page shows exactly his hand at that version, and no page ever holds
a card (by its code or its label) that its viewer could not see at that moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser

from bot.base.config import Settings
from bot.render.common import card_text
from bot.service.links import StartTokens, start_key
from bot.webapp.auth import sign_init_data
from engine import Game, Rules
from engine.actions import action_from_dict
from engine.cards import card_from_code

from .harness import query, settings_for

Frame = dict[str, Any]


def free_port() -> int:
    """A TCP port nobody listens on now (on 127.0.0.1)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def webapp_settings(tg: FakeTelegramServer, db: Path, port: int, **changes: Any) -> Settings:
    """The test settings of :func:`settings_for`, with the Mini App on ``port``."""
    values: dict[str, Any] = {
        "webapp_url": f"http://127.0.0.1:{port}/app",
        "webapp_port": port,
        "webapp_short_name": "table",
        **changes,
    }
    return settings_for(tg, db, **values)


def init_data(
    user: FakeUser | dict[str, Any],
    token: str,
    *,
    auth_date: int | None = None,
    start_param: str | None = None,
) -> str:
    """The init data Telegram gives a page opened by ``user``, signed with ``token``."""
    if isinstance(user, FakeUser):
        about: dict[str, Any] = {"id": user.id, "first_name": user.first_name}
        if user.language_code:
            about["language_code"] = user.language_code
    else:
        about = user
    fields = {
        "query_id": f"AAQ{about['id']}",
        "user": json.dumps(about, separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    return sign_init_data(fields, token)


def table_token(tg: FakeTelegramServer, table_id: int) -> str:
    """The start token of a table, as the bot makes it."""
    return StartTokens(start_key(tg.token)).token(table_id)


def start_param_of(url: str) -> str:
    """The ``startapp`` parameter of a link into the Mini App."""
    return parse_qs(urlsplit(url).query)["startapp"][0]


def web_app_buttons(message: FakeMessage | None) -> list[str]:
    """The URLs of a message's ``web_app`` buttons."""
    if message is None:
        return []
    return [b.web_app for row in message.buttons for b in row if b.web_app]


TAP_GAP = 0.1
"""Seconds at least between two taps on one page: ten a second, faster than any person and
half the sustained rate a page may send (bot/webapp/server.py's ``RATE``)."""


class PageClient:
    """One open page of the Mini App."""

    def __init__(self, session: aiohttp.ClientSession, url: str, name: str = "page") -> None:
        self.session = session
        self.url = url
        self.name = name
        self.frames: list[Frame] = []
        self.times: list[float] = []
        """When each frame arrived (``time.perf_counter()``)."""
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.close_code: int | None = None
        self._reader: asyncio.Task[None] | None = None
        self._arrived = asyncio.Event()
        self._tapped = float("-inf")

    @classmethod
    async def open(
        cls,
        session: aiohttp.ClientSession,
        port: int,
        init: str,
        start: str | None,
        *,
        name: str = "page",
        hello: bool = True,
    ) -> PageClient:
        """Connect to the bot's socket and say hello."""
        page = cls(session, f"http://127.0.0.1:{port}/app/ws", name)
        page.ws = await session.ws_connect(page.url, heartbeat=None, autoping=True)
        page._reader = asyncio.create_task(page._read())
        if hello:
            await page.send({"t": "hello", "init_data": init, "start": start})
        return page

    async def _read(self) -> None:
        assert self.ws is not None
        async for message in self.ws:
            if message.type is aiohttp.WSMsgType.TEXT:
                self.times.append(time.perf_counter())
                self.frames.append(json.loads(message.data))
                self._arrived.set()
        self.close_code = self.ws.close_code
        self._arrived.set()

    async def send(self, frame: Frame | str) -> None:
        assert self.ws is not None
        await self.ws.send_str(frame if isinstance(frame, str) else json.dumps(frame))

    @property
    def closed(self) -> bool:
        return self._reader is not None and self._reader.done()

    @property
    def states(self) -> list[Frame]:
        return [f for f in self.frames if f.get("t") == "state"]

    @property
    def state(self) -> Frame | None:
        """The state the page shows: the newest by version (a page ignores older ones)."""
        shown: Frame | None = None
        for frame in self.states:
            if shown is None or frame["v"] >= shown["v"]:
                shown = frame
        return shown

    async def wait_for(
        self, check: Callable[[], Any], timeout: float = 10.0, what: str = "a frame"
    ) -> Any:
        """Wait until ``check()`` is truthy (it is tried after every frame)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            found = check()
            if found:
                return found
            if self.closed:
                found = check()
                if found:
                    return found
                raise AssertionError(f"{self.name} closed ({self.close_code}) before {what}")
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no {what} in {timeout} s: {self.frames[-3:]}")
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)

    async def wait_state(
        self, check: Callable[[Frame], Any] = lambda s: True, timeout: float = 10.0
    ) -> Frame:
        """The shown state once it passes ``check``."""

        def shown() -> Frame | None:
            state = self.state
            return state if state is not None and check(state) else None

        found: Frame = await self.wait_for(shown, timeout, "such a state")
        return found

    async def closing(self, timeout: float = 10.0) -> int | None:
        """Wait for the server to close the socket; its close code."""
        await self.wait_for(lambda: self.closed, timeout, "the close")
        return self.close_code

    async def press(self, press: str, v: int, timeout: float = 10.0) -> Frame:
        """Tap: send the press and wait for the one ack or notice that answers it. Taps
        come no faster than a person's (:data:`TAP_GAP`): the bot answers a page that taps
        faster for long with "too fast"."""
        loop = asyncio.get_running_loop()
        wait = self._tapped + TAP_GAP - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        self._tapped = loop.time()
        before = len(self.frames)
        await self.send({"t": "press", "press": press, "v": v})

        def reply() -> Frame | None:
            for frame in self.frames[before:]:
                if frame.get("t") in ("ack", "notice"):
                    return frame
            return None

        found: Frame = await self.wait_for(reply, timeout, "the answer to a press")
        return found

    async def close(self) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.close()
        if self._reader is not None:
            await self._reader


def buttons_of(state: Frame, action: str) -> list[str]:
    """The presses of a state's move buttons of one action."""
    return [b["press"] for b in state.get("buttons", []) if b["action"] == action]


def card_codes(frame: Any) -> set[str]:
    """Every card code anywhere in a frame (every ``code`` field, at any depth)."""
    found: set[str] = set()
    if isinstance(frame, dict):
        for key, value in frame.items():
            if key == "code" and isinstance(value, str):
                found.add(value)
            else:
                found |= card_codes(value)
    elif isinstance(frame, list):
        for item in frame:
            found |= card_codes(item)
    return found


def texts_of(frame: Any) -> list[str]:
    """Every string of a frame but the opaque presses."""
    if isinstance(frame, dict):
        return [t for k, v in frame.items() if k != "press" for t in texts_of(v)]
    if isinstance(frame, list):
        return [t for item in frame for t in texts_of(item)]
    return [frame] if isinstance(frame, str) else []


# ---------------------------------------------------------------- the game replayed


@dataclass(frozen=True)
class Position:
    """What is true of a table at one state version."""

    hands: tuple[frozenset[str], ...]
    public: frozenset[str]
    """Card codes anyone may see: the table's cards and the face-up trump."""
    known: tuple[frozenset[str], ...]
    """Cards of each hand everybody has seen (picked up from the table, shown)."""


def positions(db: Path, table_id: int, game_no: int = 1) -> list[Position]:
    """The table's game move by move, replayed from its seed and its action log."""
    rules_json, seats, seed = query(
        db,
        "SELECT rules, seats, seed FROM games WHERE table_id = ? AND game_no = ?",
        table_id,
        game_no,
    )[0]
    game = Game.new(
        Rules.model_validate_json(rules_json), players=len(json.loads(seats)), seed=seed
    )
    found = [_position(game)]
    for (action,) in query(
        db,
        "SELECT action FROM actions WHERE table_id = ? AND game_no = ? ORDER BY seq",
        table_id,
        game_no,
    ):
        game.apply(action_from_dict(json.loads(action)))
        found.append(_position(game))
    return found


def _position(game: Game) -> Position:
    view = game.public_view()
    public = {c.code for pair in view.table for c in pair if c is not None}
    if view.trump_card is not None:
        public.add(view.trump_card.code)
    return Position(
        hands=tuple(frozenset(c.code for c in game.hands[s]) for s in range(game.n)),
        public=frozenset(public),
        known=tuple(frozenset(c.code for c in game.known_cards(s)) for s in range(game.n)),
    )


def check_frames(
    name: str,
    states: Iterable[Frame],
    seat: int | None,
    moves: Sequence[Position],
    start: int,
) -> int:
    """Every state of the game (playing or finished) among ``states``, the frames a page
    got, shows what its viewer at ``seat`` (None: a spectator) may see at its version, and
    a seated player's hand exactly; ``moves`` is the game replayed (:func:`positions`),
    starting at version ``start``. How many states were checked."""
    checked = 0
    for frame in states:
        if frame["status"] not in ("playing", "finished"):
            continue
        step = frame["v"] - start
        assert 0 <= step < len(moves), f"{name}: v{frame['v']} is not of the game at {start}"
        at = moves[step]
        seen = card_codes(frame)
        allowed = set(at.public).union(*at.known)
        if seat is not None:
            hand = {c["code"] for c in frame["hand"]["cards"]}
            assert hand == at.hands[seat], f"{name} at v{frame['v']}: {hand}"
            allowed |= at.hands[seat]
        else:
            assert frame["hand"] is None, f"{name} is shown a hand"
        assert seen <= allowed, f"{name} at v{frame['v']} is shown {seen - allowed}"
        hidden = set().union(*at.hands) - allowed
        words = " ".join(texts_of(frame))
        for code in hidden:
            label = card_text(card_from_code(code))
            assert label not in words, f"{name} at v{frame['v']} names {label}"
        checked += 1
    return checked
