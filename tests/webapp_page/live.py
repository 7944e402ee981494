"""The real bot with its Mini App, and pages of it in the system Chromium, end to end.

:func:`live_bot` runs the real PTB Application polling the fake Bot API server
(``tests/e2e/harness.py``) with the Mini App on a free loopback port; :meth:`LiveBot.open`
opens a page of it as Telegram would for a user (``browser.py``: init data signed with the
bot's token, the start token where Telegram puts it, every frame recorded). A
:class:`Screen` reads and taps a page only through its data-* contract (PROTOCOL.md, "Page
contract"); what the bot did is read from its database. Every wait is for a condition,
bounded by :data:`WAIT`: a hang fails, a loaded machine only waits longer.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from e2e.harness import Stored, Table, bot_running, stored, url_buttons
from e2e.pages import (
    card_codes,
    check_frames,
    free_port,
    positions,
    start_param_of,
    webapp_settings,
)
from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser, Limits
from playwright.async_api import Browser, Locator, Page, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from bot.base.config import Settings

from .browser import Line, StartVia, TelegramPage, TelegramUser, open_telegram_page

WAIT = 20.0
"""Seconds a test waits for a page or the bot at most."""

TAP_WAIT = 3000
"""Milliseconds a tap waits for its button (gone when a new state came first)."""

MOVES = ("take", "pass", "done", "transfer", "show_trump", "choose")
"""The move buttons a player taps in a game (Lead several, Refresh and Cancel aside)."""

T = TypeVar("T")

# What a page shows, read in one go (so that the version and the cards belong together):
# only elements of the data-* contract, and whether they are on screen.
_SNAPSHOT = """
() => {
  const shown = (el) => el !== null && !el.closest("[hidden]") && el.getClientRects().length > 0;
  const all = (selector) => [...document.querySelectorAll(selector)];
  const root = document.querySelector("[data-role=state]");
  const notice = document.querySelector("[data-role=notice]");
  const end = document.querySelector("[data-role=end]");
  return {
    v: root.dataset.version === undefined ? null : Number(root.dataset.version),
    hand: all("[data-card]").map((e) => e.dataset.card),
    table: all("[data-table-card]").map((e) => e.dataset.tableCard),
    cards: all("[data-card]").filter((e) => !e.disabled && shown(e)).map((e) => e.dataset.card),
    actions: all("[data-action]").filter((e) => !e.disabled && shown(e))
      .map((e) => e.dataset.action),
    notice: shown(notice) ? notice.textContent : null,
    end: shown(end) ? end.textContent : null,
  };
}
"""


@dataclass(frozen=True)
class Shown:
    """What a page shows at one moment (by its data-* contract)."""

    v: int | None
    hand: tuple[str, ...]
    """``data-card`` of every card of the hand, tappable or not."""
    table: tuple[str, ...]
    """``data-table-card`` of every card on the table."""
    cards: tuple[str, ...]
    """The cards that can be tapped now."""
    actions: tuple[str, ...]
    """``data-action`` of every move button that can be tapped now, in page order."""
    notice: str | None
    end: str | None


@dataclass
class Screen:
    """One open page, looked at and tapped through its data-* contract."""

    tp: TelegramPage
    name: str
    seat: int | None = None
    """The seat of its user at the table it shows (None: a spectator)."""

    @property
    def page(self) -> Page:
        return self.tp.page

    @property
    def root(self) -> Locator:
        """The element holding the state (``data-version``)."""
        return self.page.locator("[data-role=state]")

    @property
    def notice(self) -> Locator:
        return self.page.locator("[data-role=notice]")

    @property
    def connection(self) -> Locator:
        return self.page.locator("[data-role=connection]")

    async def shown(self) -> Shown:
        found: dict[str, Any] = await self.page.evaluate(_SNAPSHOT)
        return Shown(
            v=found["v"],
            hand=tuple(found["hand"]),
            table=tuple(found["table"]),
            cards=tuple(found["cards"]),
            actions=tuple(found["actions"]),
            notice=found["notice"],
            end=found["end"],
        )

    async def shows(self, version: int) -> None:
        """Wait until the page shows the state ``version``."""
        await expect(self.root).to_have_attribute("data-version", str(version), timeout=WAIT * 1000)

    async def reaches(self, version: int) -> None:
        """Wait until the page shows the state ``version`` or a later one."""
        await self.page.wait_for_function(
            "v => Number(document.querySelector('[data-role=state]').dataset.version) >= v",
            arg=version,
            timeout=WAIT * 1000,
        )

    def taps(self, shown: Shown) -> list[tuple[str, int]]:
        """What a player could tap to move: each card that can go, each move button (an
        open choice's options among them), as (selector, index among its matches)."""
        found = [(f"[data-card='{code}']", 0) for code in shown.cards]
        for action in MOVES:
            found += [(f"[data-action={action}]", i) for i in range(shown.actions.count(action))]
        return found

    async def tap(self, selector: str, index: int = 0) -> bool:
        """A finger on the button: cards of a fan may overlap, so on its left edge, which
        is always in view. False if the button was gone (a new state came meanwhile)."""
        button = self.page.locator(f"{selector}:visible").nth(index)
        try:
            box = await button.bounding_box(timeout=TAP_WAIT)
            if box is None:
                return False
            await button.click(
                position={"x": min(8.0, box["width"] / 2), "y": box["height"] / 2},
                timeout=TAP_WAIT,
            )
        except PlaywrightTimeout:
            return False
        return True

    async def tap_action(self, action: str) -> None:
        assert await self.tap(f"[data-action={action}]"), f"{self.name}: no {action} to tap"

    def requests_outside(self, base: str) -> list[str]:
        """Requests the page made that are not for the Mini App at ``base``."""
        path = urlsplit(base).path
        return [
            url
            for url in self.tp.requested
            if not (urlsplit(url).path == path or urlsplit(url).path.startswith(path + "/"))
        ]


def user_of(user: FakeUser) -> TelegramUser:
    """The init data's user for a fake Telegram user."""
    return TelegramUser(
        id=user.id, first_name=user.first_name, language_code=user.language_code or "en"
    )


async def until(check: Callable[[], Awaitable[T | None] | T | None], what: str) -> T:
    """Wait until ``check()`` gives something truthy; it (polled, bounded by WAIT)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while True:
        found = check()
        if asyncio.iscoroutine(found) or isinstance(found, asyncio.Future):
            found = await found
        if found:
            return found  # type: ignore[return-value]
        if loop.time() > deadline:
            raise AssertionError(f"{what}: not so after {WAIT} s")
        await asyncio.sleep(0.02)


@dataclass
class LiveBot:
    """The bot, its fake Telegram, and the pages opened of it."""

    tg: FakeTelegramServer
    db: Path
    port: int
    browser: Browser
    settings: Settings
    pages: AsyncExitStack
    screens: list[Screen] = field(default_factory=list)
    app: Any = None
    _run: AsyncExitStack | None = None

    @property
    def url(self) -> str:
        """``DURAK_WEBAPP_URL``: the page's address."""
        return self.settings.webapp_url

    async def start(self) -> None:
        """Start the bot (again), on the same database and port."""
        assert self._run is None
        run = AsyncExitStack()
        self.app = await run.enter_async_context(
            bot_running(self.tg, self.db, settings=self.settings)
        )
        self._run = run

    async def stop(self) -> None:
        """Stop the bot as at a restart (its pages are told it goes away)."""
        run, self._run = self._run, None
        if run is not None:
            await run.aclose()

    def stored(self, table_id: int) -> Stored:
        return stored(self.db, table_id)

    async def open(
        self,
        user: FakeUser | TelegramUser,
        url: str | None = None,
        *,
        start: str | None = None,
        via: StartVia = "none",
        seat: int | None = None,
        name: str | None = None,
        line: Line | None = None,
        **options: Any,
    ) -> Screen:
        """A page at ``url`` (the Mini App's own address by default) opened by ``user``,
        open until the end of :func:`live_bot`."""
        who = user if isinstance(user, TelegramUser) else user_of(user)
        tp = await self.pages.enter_async_context(
            open_telegram_page(
                self.browser,
                url or self.url,
                bot_token=self.tg.token,
                user=who,
                start=start,
                via=via,
                line=line,
                **options,
            )
        )
        screen = Screen(tp, name or who.first_name, seat)
        self.screens.append(screen)
        return screen

    async def open_hand(self, table: Table, seat: int, **options: Any) -> Screen:
        """A player's page opened with the ``web_app`` button of his hand message."""
        user = table.users[seat]
        url = await until(lambda: web_app_url(table.hand(user)), "a web_app button")
        return await self.open(user, url, seat=seat, **options)

    async def open_group_link(
        self, user: FakeUser | TelegramUser, message: FakeMessage, **options: Any
    ) -> Screen:
        """A page opened with the group message's "Open the table" link, as Telegram opens
        a direct link: the app's own URL, the token in the URL and in the init data."""
        link = next(u for u in url_buttons(message) if "startapp=" in u)
        assert link.startswith("https://t.me/") and "/table?startapp=" in link, link
        return await self.open(
            user, self.url, start=start_param_of(link), via="direct_link", **options
        )

    async def in_step(self, table_id: int, screens: Sequence[Screen]) -> Stored:
        """Wait until every page shows the table's stored state; check that each shows
        exactly its viewer's hand (none to a spectator) and the cards on the table. The
        stored state."""
        while True:
            st = self.stored(table_id)
            for screen in screens:
                await screen.reaches(st.version)
            shown = [await screen.shown() for screen in screens]
            if self.stored(table_id).version == st.version and all(
                s.v == st.version for s in shown
            ):
                break  # else the clock moved the game on meanwhile: again
        game = st.game
        assert game is not None
        view = game.public_view()
        on_table = {c.code for pair in view.table for c in pair if c is not None}
        for screen, seen in zip(screens, shown, strict=True):
            assert set(seen.table) == on_table, f"{screen.name} at v{st.version}: {seen.table}"
            if screen.seat is None:
                assert seen.hand == (), f"{screen.name} sees cards of a hand: {seen.hand}"
            else:
                # a finished game leaves no dead hand on the page
                playing = st.status == "playing"
                hand = [c.code for c in game.hands[screen.seat]] if playing else []
                assert sorted(seen.hand) == sorted(hand), f"{screen.name} at v{st.version}"
        return st

    async def tap_a_move(self, table_id: int, screen: Screen, rng: random.Random) -> str:
        """Tap one move on ``screen`` (which shows the stored state): ``moved`` once the
        table took it, ``choice`` if the tap only asked which (a choice of this page
        alone), ``raced`` if another seat or the clock moved first (the tap is refused as
        outdated, or its button was gone), ``missed`` if the click did not land in time and
        nothing moved (it may be tapped again)."""
        before = self.stored(table_id).version
        if (await screen.shown()).notice is not None:
            # an earlier refusal still on screen: it goes within seconds
            await expect(screen.notice).to_be_hidden(timeout=WAIT * 1000)
        shown = await screen.shown()
        taps = screen.taps(shown)
        assert taps, f"{screen.name}: nothing to tap at v{shown.v}: {shown}"
        selector, index = rng.choice(taps)
        if not await screen.tap(selector, index):
            # the button went with a newer state (another seat, or the clock, moved
            # first), or a loaded machine kept the browser from the click in time: no move
            # of this page's either way, and the caller looks again
            return "raced" if self.stored(table_id).version != before else "missed"
        choosing = selector.startswith("[data-card")

        async def settled() -> str | None:
            if self.stored(table_id).version != before:
                return "moved"
            now = await screen.shown()
            if now.notice is not None:
                return "refused"
            if choosing and "choose" in now.actions:
                return "choice"
            return None

        outcome = await until(settled, f"{screen.name}'s tap of {selector} taking effect")
        if outcome == "refused":
            assert self.stored(table_id).version != before, "a tap of the state shown is taken"
            return "raced"
        return outcome

    def check_all_frames(self, table_id: int, start: int | None = None, game_no: int = 1) -> int:
        """Every state any page got, checked against the game replayed from the store
        (no card of a hand on a page not its holder's); how many were checked. ``start``
        is the version the game was dealt at; by default worked out from the table's
        current game (each move is one version)."""
        if start is None:
            now = self.stored(table_id)
            assert now.game_no == game_no, "the table has gone on to another game"
            start = now.version - now.moves
        moves = positions(self.db, table_id, game_no)
        for screen in self.screens:
            others = [f for f in screen.tp.received if f.get("t") != "state"]
            assert card_codes(others) == set(), f"{screen.name} got cards outside a state"
        return sum(check_frames(s.name, s.tp.states(), s.seat, moves, start) for s in self.screens)


def web_app_url(message: FakeMessage | None) -> str | None:
    """The URL of a message's ``web_app`` button, if it has one."""
    if message is None:
        return None
    found = [b.web_app for row in message.buttons for b in row if b.web_app]
    return found[0] if found else None


@asynccontextmanager
async def live_bot(browser: Browser, tmp_path: Path, **changes: Any) -> AsyncIterator[LiveBot]:
    """The bot with its Mini App on, running; pages opened of it are closed at the end,
    before the bot stops."""
    db = tmp_path / "durak.sqlite3"
    port = free_port()
    async with FakeTelegramServer(limits=Limits.fast()) as tg, AsyncExitStack() as pages:
        bot = LiveBot(tg, db, port, browser, webapp_settings(tg, db, port, **changes), pages)
        await bot.start()
        try:
            yield bot
        finally:
            await pages.aclose()
            await bot.stop()
