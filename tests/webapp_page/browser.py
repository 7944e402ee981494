"""A Mini App page of a Telegram user, opened in the system Chromium.

:func:`chromium` launches the browser as the tests use it (headless, the machine's own
Chromium found by ``scripts/_browser.sh``, never a download). :func:`open_telegram_page`
opens a page at a URL as Telegram would for user U: init data signed with bot token T as
Telegram documents it, ``window.Telegram.WebApp`` defined before the page runs (as
Telegram's script would define it), the start token where Telegram puts it, and every
request off this machine refused, so telegram.org is never reached. Each page gets a
browser context of its own: two users never share storage. A :class:`Line` given to it
stands for the network between the page and its server: the test may hold the server's
frames back, or cut the connection and keep it down.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import shutil
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from playwright.async_api import (
    Browser,
    Error,
    Page,
    Route,
    WebSocket,
    WebSocketRoute,
    async_playwright,
)

# Chromium as a quiet test browser: no sandbox (CI runs as root), no GPU, no background
# traffic of its own. Playwright's launch() gives it a fresh temporary profile each time.
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})

# Telegram's default themes (what its clients send as themeParams)
LIGHT_THEME: dict[str, str] = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#999999",
    "link_color": "#2481cc",
    "button_color": "#2481cc",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#efeff3",
    "section_bg_color": "#ffffff",
    "accent_text_color": "#2481cc",
    "destructive_text_color": "#e53935",
}
DARK_THEME: dict[str, str] = {
    "bg_color": "#212d3b",
    "text_color": "#ffffff",
    "hint_color": "#7d8b99",
    "link_color": "#5eabe1",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#151e27",
    "section_bg_color": "#17212b",
    "accent_text_color": "#64b5ef",
    "destructive_text_color": "#ee686f",
}


class BrowserMissing(RuntimeError):
    """No Chromium on this machine (``./scripts/test.sh`` installs one)."""


def chromium_path() -> str:
    """The Chromium to drive: ``DURAK_CHROMIUM`` (exported by scripts/_browser.sh), else the
    system's. Raises :class:`BrowserMissing` with a one-line reason."""
    named = os.environ.get("DURAK_CHROMIUM")
    candidates = (
        [named]
        if named
        else ["/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")]
    )
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    where = f"DURAK_CHROMIUM={named} is not an executable" if named else "no chromium found"
    raise BrowserMissing(
        f"{where}: run ./scripts/test.sh (it installs Chromium) or set DURAK_CHROMIUM"
    )


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """The system Chromium, headless, with the test flags."""
    path = chromium_path()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=path, headless=True, args=list(CHROMIUM_FLAGS)
        )
        try:
            yield browser
        finally:
            await browser.close()


@dataclass(frozen=True)
class TelegramUser:
    """The user in the init data (the fields Telegram sends of a WebAppUser)."""

    id: int
    first_name: str
    last_name: str = ""
    username: str = ""
    language_code: str = "en"

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        data["language_code"] = self.language_code
        data["allows_write_to_pm"] = True
        return data


def init_data_fields(
    user: TelegramUser,
    *,
    start_param: str | None = None,
    auth_date: int | None = None,
    chat_type: str | None = None,
    chat_instance: str | None = None,
    query_id: str | None = None,
) -> dict[str, str]:
    """The fields of the init data, unsigned, as Telegram sends them (strings)."""
    fields: dict[str, str] = {}
    if query_id is not None:
        fields["query_id"] = query_id
    # Telegram's JSON is compact and keeps non-ASCII letters as they are
    fields["user"] = json.dumps(user.as_json(), separators=(",", ":"), ensure_ascii=False)
    if chat_instance is not None:
        fields["chat_instance"] = chat_instance
    if chat_type is not None:
        fields["chat_type"] = chat_type
    if start_param is not None:
        fields["start_param"] = start_param
    fields["auth_date"] = str(int(time.time()) if auth_date is None else auth_date)
    return fields


def init_data_hash(token: str, fields: Mapping[str, str]) -> str:
    """Telegram's hash of init data fields: the data-check-string (every field but ``hash``,
    sorted by key, ``key=value`` joined by line feeds) signed with HMAC-SHA256 under the
    secret HMAC-SHA256(key="WebAppData", msg=bot token), in hex."""
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()) if key != "hash")
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    return hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()


def sign_init_data(token: str, fields: Mapping[str, str]) -> str:
    """The raw ``initData`` string (a URL query) for these fields, signed with ``token``."""
    signed = {**fields, "hash": init_data_hash(token, fields)}
    return urlencode(signed, quote_via=quote)


def init_data_unsafe(fields: Mapping[str, str], hash_: str) -> dict[str, Any]:
    """``Telegram.WebApp.initDataUnsafe`` for these fields, as Telegram's script parses it."""
    unsafe: dict[str, Any] = {}
    for key, value in fields.items():
        if key in ("user", "receiver", "chat"):
            unsafe[key] = json.loads(value)
        elif key in ("auth_date", "can_send_after"):
            unsafe[key] = int(value)
        else:
            unsafe[key] = value
    unsafe["hash"] = hash_
    return unsafe


_WEBAPP_SCRIPT = """
(() => {
  const config = %s;
  const handlers = {};
  const calls = [];
  const record = (...call) => { calls.push(call); };
  const webApp = {
    initData: config.initData,
    initDataUnsafe: config.initDataUnsafe,
    version: config.version,
    platform: config.platform,
    safeAreaInset: config.safeAreaInset,
    contentSafeAreaInset: config.contentSafeAreaInset,
    isFullscreen: false,
    colorScheme: config.colorScheme,
    themeParams: config.themeParams,
    isExpanded: false,
    ready() { record("ready"); },
    expand() { record("expand"); this.isExpanded = true; },
    isVersionAtLeast(version) {
      const [a, b] = [version, this.version].map((v) => v.split(".").map(Number));
      return a[0] < b[0] || (a[0] === b[0] && (a[1] ?? 0) <= (b[1] ?? 0));
    },
    setHeaderColor(colour) { record("setHeaderColor", colour); },
    setBackgroundColor(colour) { record("setBackgroundColor", colour); },
    disableVerticalSwipes() { record("disableVerticalSwipes"); },
    addToHomeScreen() {
      record("addToHomeScreen");
      for (const handler of handlers.homeScreenAdded ?? []) handler.call(this);
    },
    checkHomeScreenStatus(callback) { callback(config.homeScreen); },
    shareMessage(id) { record("shareMessage", id); },
    requestFullscreen() {
      record("requestFullscreen");
      this.isFullscreen = true;
      for (const handler of handlers.fullscreenChanged ?? []) handler.call(this);
    },
    onEvent(name, handler) { (handlers[name] ??= []).push(handler); },
    offEvent(name, handler) {
      handlers[name] = (handlers[name] ?? []).filter((h) => h !== handler);
    },
  };
  if (config.haptics) {
    webApp.HapticFeedback = {
      impactOccurred(style) { record("impactOccurred", style); return this; },
      notificationOccurred(type) { record("notificationOccurred", type); return this; },
      selectionChanged() { record("selectionChanged"); return this; },
    };
  }
  window.Telegram = { WebApp: webApp };
  // for the tests: what the page asked of Telegram, a theme change as a client does it, how
  // many sockets the page opened and how many frames it has handled (this listener comes
  // first, so once it has counted a frame the page's own has seen it too)
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__telegram.sockets += 1;
      this.addEventListener("message", () => { window.__telegram.handled += 1; });
    }
  };
  window.__telegram = {
    calls,
    sockets: 0,
    handled: 0,
    setSafeArea(inset, content) {
      webApp.safeAreaInset = inset;
      webApp.contentSafeAreaInset = content;
      for (const handler of handlers.safeAreaChanged ?? []) handler.call(webApp);
      for (const handler of handlers.contentSafeAreaChanged ?? []) handler.call(webApp);
    },
    setTheme(themeParams, colorScheme) {
      webApp.themeParams = themeParams;
      webApp.colorScheme = colorScheme;
      for (const handler of handlers.themeChanged ?? []) handler.call(webApp);
    },
  };
})();
"""

# where the start token travels: "direct_link" as a t.me/<bot>/<app>?startapp= link opens the
# app (start_param in the init data and tgWebAppStartParam in the URL), "startapp" as a
# web_app button opens its own URL, the others alone
StartVia = Literal["direct_link", "start_param", "tgWebAppStartParam", "startapp", "none"]


@dataclass
class TelegramPage:
    """An open page, and what passed on its socket (JSON frames, in order)."""

    page: Page
    user: TelegramUser
    init_data: str
    received: list[dict[str, Any]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    requested: list[str] = field(default_factory=list)
    sockets: list[WebSocket] = field(default_factory=list)
    """The page's WebSockets, in the order it opened them."""

    async def telegram_calls(self) -> list[list[Any]]:
        """Every call the page made of the WebApp's methods, in order."""
        calls: list[list[Any]] = await self.page.evaluate("window.__telegram.calls")
        return calls

    async def haptics(self) -> list[list[Any]]:
        """The haptic signals the page asked for: ``[["impactOccurred", "light"], ...]``."""
        haptic = ("impactOccurred", "notificationOccurred", "selectionChanged")
        return [c for c in await self.telegram_calls() if c[0] in haptic]

    async def sockets_opened(self) -> int:
        """How many WebSockets the page has opened so far."""
        count: int = await self.page.evaluate("window.__telegram.sockets")
        return count

    async def frames_handled(self) -> int:
        """How many frames the page's sockets have delivered to it so far."""
        count: int = await self.page.evaluate("window.__telegram.handled")
        return count

    async def set_theme(self, theme: Mapping[str, str], scheme: str) -> None:
        """Telegram changing its theme while the page is open (``themeChanged``)."""
        await self.page.evaluate("([p, s]) => window.__telegram.setTheme(p, s)", [theme, scheme])

    def states(self) -> list[dict[str, Any]]:
        """The state frames the page received."""
        return [f for f in self.received if f.get("t") == "state"]

    def card_codes_received(self) -> set[str]:
        """Every card code in any frame the page received (a leak check's input)."""
        codes: set[str] = set()

        def walk(value: Any) -> None:
            if isinstance(value, dict):
                code = value.get("code")
                if isinstance(code, str):
                    codes.add(code)
                for item in value.values():
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        walk(self.received)
        return codes


def page_url(url: str, *, token: str | None, via: StartVia, init_data: str, theme: str) -> str:
    """The address Telegram opens: the token in the query where ``via`` says, and the launch
    parameters in the fragment (Telegram's script would read them there; the page does not)."""
    parts = urlsplit(url)
    query = parts.query
    if token is not None and via in ("direct_link", "tgWebAppStartParam", "startapp"):
        name = "tgWebAppStartParam" if via == "direct_link" else via
        query = "&".join(q for q in (query, urlencode({name: token})) if q)
    fragment = urlencode(
        {
            "tgWebAppData": init_data,
            "tgWebAppVersion": "8.0",
            "tgWebAppPlatform": "tdesktop",
            "tgWebAppThemeParams": theme,
        },
        quote_via=quote,
    )
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, fragment))


@asynccontextmanager
async def open_telegram_page(
    browser: Browser,
    url: str,
    *,
    bot_token: str,
    user: TelegramUser,
    start: str | None,
    via: StartVia = "start_param",
    color_scheme: Literal["light", "dark"] = "light",
    theme: Mapping[str, str] | None = None,
    auth_date: int | None = None,
    init_data: str | None = None,
    haptics: bool = True,
    platform: str = "tdesktop",
    version: str = "8.0",
    home_screen: str = "missed",
    safe_area: Mapping[str, int] | None = None,
    content_safe_area: Mapping[str, int] | None = None,
    inject: bool = True,
    telegram_script: str | None = None,
    fake_clock: bool = False,
    width: int = 360,
    height: int = 740,
    scale: float = 1,
    wait_for_state: bool = False,
    line: Line | None = None,
) -> AsyncIterator[TelegramPage]:
    """The page at ``url`` opened by ``user`` in Telegram, with init data signed by
    ``bot_token`` (or the raw ``init_data`` given, for forged ones) and the start token
    ``start`` passed ``via`` the init data's start_param or one of the URL's parameters.
    ``inject=False`` leaves ``window.Telegram`` undefined: the page then asks for Telegram's
    script, which is refused like every request off this machine, or answered with
    ``telegram_script`` when one is given. ``fake_clock`` gives the page Playwright's clock
    (``tp.page.clock.run_for(ms)`` moves its timers on). With a ``line``, the page's
    WebSockets pass through it."""
    theme = dict(
        theme if theme is not None else (DARK_THEME if color_scheme == "dark" else LIGHT_THEME)
    )
    fields = init_data_fields(
        user,
        start_param=start if via in ("start_param", "direct_link") else None,
        auth_date=auth_date,
    )
    raw = init_data if init_data is not None else sign_init_data(bot_token, fields)
    unsafe = init_data_unsafe(fields, init_data_hash(bot_token, fields))
    context = await browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=scale,
        locale={"ru": "ru-RU", "uk": "uk-UA"}.get(user.language_code, "en-US"),
        color_scheme=color_scheme,
        has_touch=True,
    )
    context.set_default_timeout(15_000)
    page = await context.new_page()
    opened = TelegramPage(page=page, user=user, init_data=raw)

    async def only_this_machine(route: Route) -> None:
        opened.requested.append(route.request.url)
        if urlsplit(route.request.url).hostname in LOOPBACK:
            await route.continue_()
        elif telegram_script is not None and route.request.url == TELEGRAM_SCRIPT:
            await route.fulfill(content_type="text/javascript", body=telegram_script)
        else:
            opened.blocked.append(route.request.url)
            await route.abort("internetdisconnected")

    def on_socket(socket: WebSocket) -> None:
        opened.sockets.append(socket)
        socket.on("framereceived", lambda payload: _keep(opened.received, payload))
        socket.on("framesent", lambda payload: _keep(opened.sent, payload))

    await context.route("**/*", only_this_machine)
    if fake_clock:
        await context.clock.install()
    page.on("websocket", on_socket)
    if line is not None:
        await page.route_web_socket(lambda url: urlsplit(url).hostname in LOOPBACK, line.route)
    if inject:
        config = {
            "initData": raw,
            "initDataUnsafe": unsafe,
            "colorScheme": color_scheme,
            "themeParams": theme,
            "haptics": haptics,
            "platform": platform,
            "version": version,
            "homeScreen": home_screen,
            "safeAreaInset": dict(safe_area or {"top": 0, "bottom": 0, "left": 0, "right": 0}),
            "contentSafeAreaInset": dict(
                content_safe_area or {"top": 0, "bottom": 0, "left": 0, "right": 0}
            ),
        }
        await context.add_init_script(_WEBAPP_SCRIPT % json.dumps(config))
    try:
        await page.goto(
            page_url(url, token=start, via=via, init_data=raw, theme=json.dumps(theme)),
            wait_until="load",
        )
        if wait_for_state:
            await page.locator("[data-role=state][data-version]").wait_for()
        yield opened
    finally:
        await context.close()


class Line:
    """The network between a page and its server, as the test makes it (Playwright routes
    the page's WebSockets through it): frames pass both ways as they come, unless the
    server's are held back (:meth:`hold`, as on a congested line) until :meth:`release`
    lets them through in order; :meth:`cut` drops every connection, and until
    :meth:`restore` each new one is dropped at once, as when the network is gone."""

    # what a browser reports for a connection lost without a closing handshake
    LOST = 1006

    def __init__(self) -> None:
        self.up = True
        self.connections = 0
        """How many sockets the page opened through the line (refused ones too)."""
        self._holding = False
        self._held: list[tuple[WebSocketRoute, str | bytes]] = []
        self._open: list[tuple[WebSocketRoute, WebSocketRoute]] = []

    async def route(self, page_side: WebSocketRoute) -> None:
        """Playwright's handler of a page's new socket."""
        self.connections += 1
        if not self.up:
            await page_side.close(code=self.LOST)
            return
        server_side = page_side.connect_to_server()
        self._open.append((page_side, server_side))

        def to_page(message: str | bytes) -> None:
            if self._holding:
                self._held.append((page_side, message))
            else:
                page_side.send(message)

        # the page's frames and both sides' closes keep Playwright's own forwarding
        server_side.on_message(to_page)

    def hold(self) -> None:
        """From now on, the server's frames wait on the line."""
        self._holding = True

    def release(self) -> None:
        """The frames held go through, in order, and from now on as they come."""
        self._holding = False
        held, self._held = self._held, []
        for page_side, message in held:
            with contextlib.suppress(Error):
                page_side.send(message)

    async def cut(self) -> None:
        """Drop every open connection, and every new one until :meth:`restore`."""
        self.up = False
        opened, self._open = self._open, []
        self._held = []
        for page_side, server_side in opened:
            with contextlib.suppress(Error):
                await server_side.close()
            with contextlib.suppress(Error):
                await page_side.close(code=self.LOST)

    def restore(self) -> None:
        """The network is back: the next connection goes through."""
        self.up = True


def _keep(frames: list[dict[str, Any]], payload: str | bytes) -> None:
    try:
        frame = json.loads(payload)
    except ValueError:
        frame = {"t": "?", "raw": payload if isinstance(payload, str) else payload.hex()}
    frames.append(frame if isinstance(frame, dict) else {"t": "?", "raw": frame})
