"""End-to-end harness: the real bot Application against the fake Bot API server.

A :class:`Table` drives one group: users start the bot, open a lobby, join, start, and
then play by pressing the buttons the bot drew in their private chats — nothing else.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sqlite3
import struct
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from fake_telegram import FakeChat, FakeMessage, FakeTelegramServer, FakeUser, running

from bot.app import build_application
from bot.base.config import Settings
from bot.base.i18n import LANGS
from bot.render import Player, card_text
from bot.render.table import seat_lines, trump_line
from bot.store import ChatRow, SqliteStore
from engine import Game, Rules, deck
from engine.actions import Pass, Take, action_from_dict

NAMES = ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay")
NOT_TABLES = frozenset("Q")
"""Kinds of buttons that name no table: a quick game's (on /start's greeting)."""


def settings_for(tg: FakeTelegramServer, db: Path, **changes: Any) -> Settings:
    """Settings for a bot talking to the fake server, paced for ``Limits.fast()`` (the
    real figures at 50 times the speed: a private chat's message every 20 ms, a group's
    every 80 ms after a burst of five)."""
    values: dict[str, Any] = {
        "bot_token": tg.token,
        "base_url": tg.base_url,
        "DURAK_DB_PATH": db,
        "group_edit_interval": 0.08,
        "private_edit_interval": 0.02,
        # the coach's and the chart's worker processes only where a test asks for them
        "coach_workers": 0,
        # computer players decide in a thread (the workers' own tests start them)
        "ai_workers": 0,
        "charts": False,
        **changes,
    }
    return Settings(**values)


@asynccontextmanager
async def bot_running(
    tg: FakeTelegramServer,
    db: Path,
    *,
    settings: Settings | None = None,
) -> AsyncIterator[Any]:
    """The real Application, polling the fake server, with its store in ``db`` (by default
    with the test pacing of :func:`settings_for`)."""
    settings = settings or settings_for(tg, db)
    if settings.base_url != tg.base_url:  # settings made without the test server's address
        settings = settings.model_copy(update={"base_url": tg.base_url})
    app = build_application(settings)
    async with running(app, poll_timeout=0.5):
        yield app


def sent_png(message: FakeMessage) -> tuple[bytes, int, int]:
    """The PNG a photo message carries and its width and height (read from the PNG
    itself); AssertionError if the message has no photo or it is not a PNG."""
    assert message.photo is not None, f"no photo, but the text {message.plain_text!r}"
    data = message.photo
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return data, width, height


def callback_buttons(message: FakeMessage | None) -> list[str]:
    """The callback_data of every button of a message."""
    if message is None:
        return []
    return [b.callback_data for row in message.buttons for b in row if b.callback_data]


def url_buttons(message: FakeMessage | None) -> list[str]:
    """The url of every link button of a message."""
    if message is None:
        return []
    return [b.url for row in message.buttons for b in row if b.url]


@dataclass(frozen=True)
class Data:
    """The fields of the bot's callback_data ``1<kind>.<table>.<version>...<sig>``."""

    kind: str
    table: int
    version: int
    rest: tuple[str, ...]

    @classmethod
    def parse(cls, data: str) -> Data:
        parts = data.split(".")
        return cls(parts[0][1:], int(parts[1], 36), int(parts[2], 36), tuple(parts[3:-1]))


def kind_of(data: str) -> str:
    """The kind letter of a callback_data."""
    return data[1:2]


def hand_versions(message: FakeMessage | None) -> set[int]:
    """The state versions the buttons of a hand message were drawn for."""
    versions = set()
    for data in callback_buttons(message):
        try:
            versions.add(Data.parse(data).version)
        except (IndexError, ValueError):
            versions.add(-1)  # not a table's button
    return versions


_CARD_LABELS: Final = {card_text(c): c.code for c in deck(54)}
"""A card button's label (a card that cannot go now is ``·8♠️·``) -> its card's code."""


def tapped_cards(message: FakeMessage | None) -> set[str]:
    """The card codes of the card buttons of a hand message: the Tap buttons of the cards
    that can go now, and the disabled buttons of those that cannot."""
    if message is None:
        return set()
    found = {Data.parse(d).rest[0] for d in callback_buttons(message) if kind_of(d) == "t"}
    for row in message.buttons:
        for button in row:
            code = _CARD_LABELS.get(button.text.strip("·"))
            if code is not None and not button.callback_data:
                found.add(code)
    return found


@dataclass(frozen=True)
class Stored:
    """One table row as the bot stored it."""

    table_id: int
    chat_id: int
    status: str
    version: int
    moves: int
    game_no: int
    game: Game | None
    group_message_id: int | None
    hand_message_ids: tuple[int | None, ...]


def stored(db: Path, table_id: int) -> Stored:
    """The table row ``table_id`` read straight from the bot's SQLite file."""
    con = sqlite3.connect(db, timeout=10)
    try:
        row = con.execute(
            "SELECT table_id, chat_id, status, version, moves, game_no, game, "
            "group_message_id, hand_message_ids FROM tables WHERE table_id = ?",
            (table_id,),
        ).fetchone()
    finally:
        con.close()
    assert row is not None, f"no table {table_id} in the store"
    game = Game.from_json(row[6]) if row[6] is not None else None
    return Stored(*row[:6], game, row[7], tuple(json.loads(row[8])))  # type: ignore[arg-type]


def snapshot(db: Path, table_id: int) -> tuple[object, ...]:
    """Everything about a table that a refused press must leave as it was."""
    row = stored(db, table_id)
    log = query(db, "SELECT count(*) FROM actions WHERE table_id = ?", table_id)[0][0]
    seats = query(db, "SELECT seats, rules FROM tables WHERE table_id = ?", table_id)[0]
    game = row.game.to_json() if row.game is not None else None
    return (row.status, row.version, row.moves, row.game_no, game, log, seats)


def query(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Rows of a read-only query on the bot's SQLite file."""
    con = sqlite3.connect(db, timeout=10)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def action_cards(action: Any) -> set[str]:
    """The codes of the hand cards an engine action plays."""
    cards = list(getattr(action, "cards", ()) or ())
    card = getattr(action, "card", None)
    if card is not None:
        cards.append(card)
    return {c.code for c in cards}


CHOICE_KINDS = frozenset("cprhi")


@dataclass
class Table:
    """One group of simulated players and the bot's messages to them."""

    tg: FakeTelegramServer
    users: list[FakeUser]
    group: FakeChat
    thread_id: int | None = None
    lobby: FakeMessage | None = None
    presses: int = 0
    alerts: list[str] = field(default_factory=list)
    known_table: int | None = None

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
        """Every player opens the bot and reads its greeting, as a person would."""
        for user in self.users:
            sent = await self.tg.start_bot(user)
            await self.tg.wait_for_message(self.tg.private_chat(user), after=sent, timeout=10)

    async def open_lobby(self, by: int = 0) -> FakeMessage:
        await self.tg.send_command(self.users[by], self.group, "newgame", thread_id=self.thread_id)
        self.lobby = await self.tg.wait_for_message(
            self.group,
            lambda m: any(kind_of(d) == "j" for d in callback_buttons(m)),
            thread_id=self.thread_id,
            timeout=10,
        )
        self.known_table = Data.parse(self.lobby_button("j")).table
        return self.lobby

    async def lobby_after(self, message: FakeMessage, timeout: float = 10.0) -> FakeMessage:
        """The first lobby (a message with a Start button) posted below ``message``: a
        rematch's, below the last game's end."""
        return await self.tg.wait_for_message(
            self.group,
            lambda m: (
                m.message_id > message.message_id
                and any(kind_of(d) == "s" for d in callback_buttons(m))
            ),
            thread_id=self.thread_id,
            timeout=timeout,
        )

    async def press(self, user: FakeUser, message: FakeMessage, data: str) -> Any:
        press = await self.tg.press(user, message, data=data)
        answer = await press.answer(timeout=10)
        self.presses += 1
        if answer.text:
            self.alerts.append(answer.text)  # a refusal (a toast or an alert), or a notice
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

    async def seat_everyone(self) -> None:
        """Everyone starts the bot, the first opens a lobby, the others join, and the first
        starts the game: the usual way to a dealt table."""
        await self.start_bots()
        await self.open_lobby()
        await self.join_all()
        await self.start()

    async def block_by_idle_player(self, db: Path) -> FakeUser:
        """In a two-player game, the player who cannot move now blocks the bot; him."""
        game = stored(db, self.table_id).game
        assert game is not None
        blocker = self.users[1 - game.to_act()[0]]
        await self.tg.block_bot(blocker)
        return blocker

    def hand(self, user: FakeUser) -> FakeMessage | None:
        """The newest message in his private chat, passing over the ones whose buttons
        are none of a table's (/start's quick game)."""
        for message in reversed(self.tg.bot_messages(self.tg.private_chat(user))):
            data = callback_buttons(message)
            if not data or any(kind_of(d) not in NOT_TABLES for d in data):
                return message
        return None

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
        start_ends = self.end_count()
        await self.press_until(lambda: self.end_count() > start_ends, rng, timeout)
        await self.tg.settle(quiet=0.2, timeout=10)
        return self.ends()[-1]

    async def press_until(
        self,
        done: Callable[[], bool],
        rng: random.Random,
        timeout: float = 120.0,
        buttons: Callable[[FakeMessage | None], list[str]] = callback_buttons,
    ) -> None:
        """Press random ``buttons`` (by default any) of random players' hands until
        ``done()``; AssertionError after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"the game did not end in {timeout} s ({self.presses} presses)"
                )
            user = rng.choice(self.users)
            hand = self.hand(user)
            found = buttons(hand)
            if hand is None or not found:
                await asyncio.sleep(0.005)
                continue
            await self.press(user, hand, rng.choice(found))

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

    async def command(self, by: int, command: str) -> FakeMessage:
        """``users[by]`` sends ``/command`` in the group (or topic); the bot's reply to it."""
        asked = await self.tg.send_command(
            self.users[by], self.group, command, thread_id=self.thread_id
        )
        return await self.tg.wait_for_message(
            self.group,
            lambda m: m.reply_to == asked.message_id,
            thread_id=self.thread_id,
            timeout=10,
        )

    async def stats(self) -> FakeMessage:
        """The bot's answer to /stats in the group."""
        return await self.command(0, "stats")

    # ---- playing legal moves only (reads the bot's store to know whose move it is) ----

    @property
    def table_id(self) -> int:
        """The table the lobby opened."""
        assert self.known_table is not None, "no lobby yet"
        return self.known_table

    def legal_presses(self, hand: FakeMessage, game: Game, seat: int) -> list[str]:
        """The buttons of ``hand`` that make a legal move now (choice buttons if a choice is
        open; else the cards that some legal action plays, Take and Pass)."""
        buttons = callback_buttons(hand)
        choice = [d for d in buttons if kind_of(d) in CHOICE_KINDS]
        if choice and not any(kind_of(d) == "t" for d in buttons):
            return choice
        actions = game.legal_actions(seat)
        cards = set().union(*(action_cards(a) for a in actions)) if actions else set()
        moves = {"q": Take, "n": Pass}
        wanted = []
        for data in buttons:
            kind = kind_of(data)
            if kind == "t":
                if Data.parse(data).rest[0] in cards:
                    wanted.append(data)
            elif kind in moves and any(isinstance(a, moves[kind]) for a in actions):
                wanted.append(data)
        return wanted

    async def current_hand(self, db: Path, seat: int, timeout: float = 10.0) -> FakeMessage:
        """The hand of ``seat`` once it shows the stored state (every button drawn for the
        stored version)."""
        user = self.users[seat]

        def drawn() -> FakeMessage | None:
            hand = self.hand(user)
            version = stored(db, self.table_id).version
            return hand if hand_versions(hand) == {version} else None

        return await self.tg.wait_for(drawn, timeout, what=f"the hand of {user.first_name}")

    async def move(self, db: Path, rng: random.Random) -> bool:
        """Make one legal move (or one step of a choice) by pressing a button; False if no
        game runs."""
        before = stored(db, self.table_id)
        game = before.game
        if before.status != "playing" or game is None:
            return False
        seat = rng.choice(game.to_act())
        hand = await self.current_hand(db, seat)
        if stored(db, self.table_id).version != before.version:
            return True  # the clock moved the game on meanwhile
        presses = self.legal_presses(hand, game, seat)
        assert presses, f"no legal button for seat {seat}: {callback_buttons(hand)}"
        shown = callback_buttons(hand)
        user = self.users[seat]
        answer = await self.press(user, hand, rng.choice(presses))
        assert answer.text is None or "outdated" in answer.text, answer.text
        await self.tg.wait_for(
            lambda: (
                stored(db, self.table_id).version != before.version
                or callback_buttons(self.hand(user)) != shown
            ),
            timeout=10,
            what="the move to take effect",
        )
        return True

    async def play_moves(self, db: Path, rng: random.Random, moves: int) -> None:
        """Make ``moves`` state changes (choices not counted) unless the game ends first."""
        target = stored(db, self.table_id).moves + moves
        while stored(db, self.table_id).moves < target:
            if not await self.move(db, rng):
                return

    async def finish(self, db: Path, rng: random.Random, timeout: float = 60.0) -> FakeMessage:
        """Play legal moves until the game is over; the end message."""
        deadline = time.monotonic() + timeout
        ends = self.end_count()
        while await self.move(db, rng):
            assert time.monotonic() < deadline, f"the game did not end in {timeout} s"
        await self.tg.wait_for(lambda: self.end_count() > ends, timeout=10, what="the end")
        return self.ends()[-1]

    def shows_latest(self, db: Path) -> str | None:
        """None if the group message and every hand show the stored state, else what not."""
        st = stored(db, self.table_id)
        game = st.game
        if game is None:
            return "no game"
        if st.group_message_id is None:
            return "no group message"
        group = self.tg.message(self.group, st.group_message_id)
        view = game.public_view()
        players = [Player(u.first_name) for u in self.users]
        if not any(
            all(line in (group.text or "") for line in (trump_line(view, lang), *lines))
            for lang in LANGS
            for lines in [seat_lines(view, players, lang)]  # type: ignore[arg-type]
        ):
            return f"the group shows {group.plain_text!r}"
        for seat, user in enumerate(self.users):
            hand = self.hand(user)
            ids = st.hand_message_ids
            if hand is None or seat >= len(ids) or hand.message_id != ids[seat]:
                return f"{user.first_name}'s hand is not the stored message"
            over = game.result is not None or seat in game.public_view().finish_order
            if over:
                if tapped_cards(hand):
                    return f"{user.first_name}'s hand still has card buttons"
                continue
            if hand_versions(hand) != {st.version}:
                return f"{user.first_name}'s hand is at {hand_versions(hand)}, not {st.version}"
            if tapped_cards(hand) != {c.code for c in game.hands[seat]}:
                return f"{user.first_name}'s hand shows {tapped_cards(hand)}"
        return None

    async def wait_latest(self, db: Path, timeout: float = 10.0) -> None:
        """Wait until every message shows the stored state."""
        try:
            await self.tg.wait_for(lambda: self.shows_latest(db) is None, timeout)
        except TimeoutError:
            raise AssertionError(self.shows_latest(db)) from None


def recent_moves(message: FakeMessage) -> list[str]:
    """The lines under "Recent moves" of a table message (in either language)."""
    lines = message.plain_text.splitlines()
    for header in ("Recent moves:", "Последние ходы:"):
        if header in lines:
            return [line for line in lines[lines.index(header) + 1 :] if line.startswith("• ")]
    return []


def redrawn(tg: FakeTelegramServer, since: int, message: FakeMessage) -> bool:
    """Whether the bot has edited ``message`` (or tried: an edit that changes nothing is
    refused) in a call made after the first ``since`` calls."""
    return any(
        call.method == "editMessageText"
        and call.params.get("chat_id") == message.chat_id
        and call.params.get("message_id") == message.message_id
        and not call.pending
        for call in tg.calls[since:]
    )


def tally(text: str) -> dict[str, tuple[int, int, int]]:
    """``name -> (points, games, times durak)`` read from a series tally (the end message
    or /stats, in either language)."""
    found = {}
    for name, points, games, durak in re.findall(
        r"(\w+) — (\d+) \w+ · (\d+) \w+ · \w+ (\d+)", text
    ):
        found[name] = (int(points), int(games), int(durak))
    return found


def expected_tally(
    games: Sequence[Game], users: Sequence[FakeUser]
) -> dict[str, tuple[int, int, int]]:
    """The tally the finished ``games`` add up to."""
    results = [g.result for g in games if g.result is not None]
    return {
        user.first_name: (
            sum(r.points[seat] for r in results),
            len(results),
            sum(1 for r in results if seat in r.losers),
        )
        for seat, user in enumerate(users)
    }


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


def group_texts(tg: FakeTelegramServer, chat: FakeChat, thread_id: int | None = None) -> list[str]:
    """Every text any bot message in the group (or one topic) ever showed, every revision."""
    texts = []
    for message in tg.messages(chat, thread_id=thread_id, from_bot=True, include_deleted=True):
        texts += [revision.text or "" for revision in message.history]
        texts.append(message.text or "")
    return texts


async def set_group_rules(db: Path, chat_id: int, rules: Rules) -> None:
    """The group's default rules, as if chosen in an earlier lobby's settings."""
    async with SqliteStore.open(db) as store:
        await store.save_chat(ChatRow(chat_id, None, rules.model_dump_json(), None))


def assert_no_hand_card_in_group(
    tg: FakeTelegramServer, chat: FakeChat, games: Sequence[Game]
) -> None:
    assert_no_hand_card_in(group_texts(tg, chat), games)


def assert_no_hand_card_in(texts: Iterable[str], games: Sequence[Game]) -> None:
    """No card that stayed in a hand all game long appears in any of ``texts`` (for a
    series, pass each game only the texts drawn while it ran)."""
    texts = list(texts)
    for game in games:
        for label in hidden_at_end(game):
            for text in texts:
                assert label not in text, f"{label}, never played, appears in the group: {text}"
