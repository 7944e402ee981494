"""The Mini App's HTTP server: the page, its files, and its live channel (a WebSocket).

Under the path P of ``DURAK_WEBAPP_URL`` (PROTOCOL.md, "Serving"), on
``DURAK_WEBAPP_LISTEN``:``DURAK_WEBAPP_PORT``, in polling and in webhook mode alike:

- ``GET P`` and ``GET P/``: ``static/index.html`` (``Cache-Control: no-cache``), with a
  ``<base href="P/">`` written into its head, so that the browser fetches the page's files
  from ``P/static/`` at once whichever of the two it was opened at;
- ``GET P/static/<file>``: a file of ``static/`` (no directory listing, no ``..``);
- ``GET P/ws``: the WebSocket.

A socket must say ``hello`` first, within :data:`HELLO_TIMEOUT` seconds, with init data
that holds (else ``unauthorized``, close 4401) and the start token of a table that exists
(else ``no_table``, close 4404); a user may have :data:`~bot.webapp.hub.MAX_PAGES` pages
open at one table, and a further one is refused (``too_many``, close 4429) rather than an
open one closed: a page that lost its connection reconnects, and it must not throw out
the user's other pages. Then the page gets the table's state, and a new one after every
change. Frames are checked (:mod:`bot.webapp.frames`): a malformed one closes the socket
(1008), a too big one too (1009). Each socket may send :data:`RATE` frames a second (bursts
of :data:`BURST`); frames beyond that are dropped with a notice, and a socket that keeps
flooding (:data:`FLOOD_LIMIT` frames over the rate) is closed (1008).
"""

from __future__ import annotations

import asyncio
import html
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from aiohttp import WSMsgType, web

from bot.base.i18n import Lang, pick_lang, tr
from bot.service.links import BadToken, StartTokens, WebAppLinks
from bot.service.shards import NotHere
from bot.service.tables import Live

from . import frames as f
from .auth import AuthError, InitDataChecker, claimed_language
from .hub import Hub, Page, dumps

if TYPE_CHECKING:
    from telegram import Bot

    from bot.chat.presenter import Presenter
    from bot.chat.runtime import Runtime

__all__ = [
    "BURST",
    "FLOOD_LIMIT",
    "HELLO_TIMEOUT",
    "RATE",
    "STATIC",
    "Bucket",
    "PressDesk",
    "WebAppServer",
    "index_html",
    "open_webapp",
]

log = logging.getLogger(__name__)

STATIC: Final = Path(__file__).with_name("static")
"""The page's files."""
HELLO_TIMEOUT: Final = 10.0
HEARTBEAT: Final = 30.0
"""Seconds between the server's WebSocket pings; a page that does not answer is closed."""
RATE: Final = 20.0
BURST: Final = 40.0
FLOOD_LIMIT: Final = 60.0

_SEGMENT: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webp": "image/webp",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
}
_HEADERS: Final = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


def index_html(path: str) -> bytes:
    """The page as served at ``path`` (``/app``): ``index.html`` with its ``<base>``.

    Read at each request: it is small, and opened once a page."""
    page = (STATIC / "index.html").read_text("utf-8")
    base = f'<base href="{html.escape(path, quote=True)}/">'
    return page.replace("<head>", "<head>\n" + base, 1).encode("utf-8")


class PressDesk(Protocol):
    """Handles a page's presses (:mod:`bot.webapp.presses`)."""

    async def press(self, page: Page, frame: f.Press) -> dict[str, Any]:
        """Run one press; the ``ack`` or ``notice`` that answers it."""

    async def share(self, page: Page) -> dict[str, Any]:
        """A prepared message inviting to the page's table; its ``share`` frame, or a
        ``notice`` why not."""


class Bucket:
    """How many frames a socket may still send now: :data:`RATE` a second, bursts of
    :data:`BURST`. Frames over it are dropped; once :data:`FLOOD_LIMIT` of them are owed
    (the debt drains at the rate too), the socket is closed."""

    __slots__ = ("_stamp", "burst", "debt", "limit", "rate", "tokens")

    def __init__(
        self, now: float, rate: float = RATE, burst: float = BURST, limit: float = FLOOD_LIMIT
    ) -> None:
        self.rate, self.burst, self.limit = rate, burst, limit
        self.tokens = burst
        self.debt = 0.0
        self._stamp = now

    def take(self, now: float) -> str:
        """``ok`` (handle the frame), ``drop`` (throttled) or ``close`` (a flood)."""
        gained = (now - self._stamp) * self.rate
        self._stamp = now
        paid = min(self.debt, gained)
        self.debt -= paid
        self.tokens = min(self.burst, self.tokens + gained - paid)
        if self.tokens >= 1:
            self.tokens -= 1
            return "ok"
        self.debt += 1
        return "close" if self.debt > self.limit else "drop"


class WebAppServer:
    """Serves the page and its sockets (see the module's doc)."""

    def __init__(
        self,
        rt: Runtime,
        hub: Hub,
        desk: PressDesk,
        *,
        tokens: StartTokens,
        hello_timeout: float = HELLO_TIMEOUT,
        heartbeat: float = HEARTBEAT,
    ) -> None:
        self._rt = rt
        self._hub = hub
        self._desk = desk
        self._tokens = tokens
        settings = rt.settings
        self._checker = InitDataChecker(
            settings.bot_token.get_secret_value(), max_age=settings.webapp_max_age
        )
        self.hello_timeout = hello_timeout
        self.heartbeat = heartbeat
        self.path = settings.webapp_path
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self.refused = 0

    @property
    def desk(self) -> PressDesk:
        """Where the pages' presses run."""
        return self._desk

    @property
    def hub(self) -> Hub:
        """The open pages."""
        return self._hub

    def application(self) -> web.Application:
        """The aiohttp application with the routes of PROTOCOL.md."""
        app = web.Application()
        base = self.path
        app.router.add_get(base or "/", self._index)
        if base:
            app.router.add_get(base + "/", self._index)
        app.router.add_get(base + "/static/{name:.+}", self._static)
        app.router.add_get(base + "/ws", self._socket)
        return app

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (:class:`~bot.transport.webhook.ListenError` if it cannot)."""
        from bot.transport.webhook import ListenError

        runner = web.AppRunner(self.application(), access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise ListenError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                setting="DURAK_WEBAPP_LISTEN/DURAK_WEBAPP_PORT",
            ) from exc
        self._runner, self._site = runner, site

    @property
    def port(self) -> int:
        """The port listened on."""
        assert self._runner is not None
        for address in self._runner.addresses:
            return int(address[1])
        raise RuntimeError("not listening")

    async def close(self) -> None:
        """Close every page (1001: going away; the pages reconnect to the next bot), then
        stop listening."""
        if self._runner is None:
            return
        await self._hub.close(1001)
        await self._runner.cleanup()
        self._runner = self._site = None

    # ---------------------------------------------------------------- files

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=index_html(self.path),
            headers={**_HEADERS, "Content-Type": _TYPES[".html"]},
        )

    async def _static(self, request: web.Request) -> web.StreamResponse:
        parts = request.match_info["name"].split("/")
        if not all(_SEGMENT.fullmatch(p) and ".." not in p for p in parts):
            raise web.HTTPNotFound()
        return self._file(STATIC.joinpath(*parts))

    @staticmethod
    def _file(path: Path) -> web.StreamResponse:
        try:
            resolved = path.resolve(strict=True)
        except OSError:
            raise web.HTTPNotFound() from None
        if not resolved.is_relative_to(STATIC.resolve()) or not resolved.is_file():
            raise web.HTTPNotFound()
        kind = _TYPES.get(resolved.suffix.lower(), "application/octet-stream")
        return web.FileResponse(resolved, headers={**_HEADERS, "Content-Type": kind})

    # ---------------------------------------------------------------- the socket

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(heartbeat=self.heartbeat, max_msg_size=f.MAX_FRAME, timeout=3.0)
        await ws.prepare(request)
        page = await self._welcome(ws)
        if page is None:
            return ws
        loop = asyncio.get_running_loop()
        bucket = Bucket(loop.time())
        warned = False
        try:
            async for message in ws:
                if page.closed:
                    break
                if message.type is not WSMsgType.TEXT:
                    await page.close(f.CLOSE_MALFORMED)
                    break
                verdict = bucket.take(loop.time())
                if verdict == "close":
                    log.info("table %s: a page of %s flooded", page.table_id, page.user.id)
                    await page.close(f.CLOSE_FLOOD, self._error("too_fast", page.lang))
                    break
                if verdict == "drop":
                    if not warned:
                        page.send(dumps(f.notice("too_fast", self._say(page.lang, "too_fast"))))
                        warned = True
                    continue
                warned = False
                try:
                    await self._frame(page, message.data)
                except f.FrameError as exc:
                    log.info("table %s: a malformed frame: %s", page.table_id, exc)
                    await page.close(exc.code)
                    break
        finally:
            self._hub.detach(page)
        return ws

    def _error(self, reason: str, lang: Lang) -> dict[str, Any]:
        key = "webapp.notice.too_fast" if reason == "too_fast" else f"webapp.error.{reason}"
        return f.error(reason, tr(lang, key))

    @staticmethod
    def _say(lang: Lang, reason: str) -> str:
        return tr(lang, f"webapp.notice.{reason}")

    async def _refuse(
        self, ws: web.WebSocketResponse, code: int, reason: str, lang: Lang | None = None
    ) -> None:
        self.refused += 1
        text = dumps(self._error(reason, lang or self._rt.settings.default_language))
        try:
            await ws.send_str(text)
            await ws.close(code=code)
        except (ConnectionError, RuntimeError):
            pass

    async def _welcome(self, ws: web.WebSocketResponse) -> Page | None:
        """The hello: who, which table; the page attached and shown, or None (refused)."""
        try:
            message = await ws.receive(timeout=self.hello_timeout)
        except TimeoutError:
            await self._refuse(ws, f.CLOSE_UNAUTHORIZED, "unauthorized")
            return None
        if message.type is not WSMsgType.TEXT:
            if message.type not in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                await ws.close(code=f.CLOSE_MALFORMED)
            return None
        try:
            frame = f.parse(message.data)
        except f.FrameError as exc:
            await ws.close(code=exc.code)
            return None
        if not isinstance(frame, f.Hello):
            await self._refuse(ws, f.CLOSE_UNAUTHORIZED, "unauthorized")
            return None
        try:
            init = self._checker.check(frame.init_data)
        except AuthError as exc:
            log.info("a page refused: init data %s", exc.reason)
            # the refusal in the language the page's user says he speaks: words only
            claimed = claimed_language(frame.init_data)
            lang = pick_lang(claimed) if claimed else None
            await self._refuse(ws, f.CLOSE_UNAUTHORIZED, "unauthorized", lang)
            return None
        lang = await self._hub.lang_of(init.user)
        live: Live | None = None
        try:
            table_id = self._tokens.table_of(frame.start or init.start_param)
        except BadToken:
            table_id = None
        if table_id is not None:
            try:
                live = await self._rt.tables.get(table_id)
            except NotHere:
                # another process holds it: shown as the store has it, and kept up to date
                # as that process tells its changes (bot.cluster.views)
                live = await self._rt.tables.peek(table_id)
        if table_id is None or live is None:
            await self._refuse(ws, f.CLOSE_NO_TABLE, "no_table", lang)
            return None
        page = Page(ws, table_id, init.user, lang)
        if not self._hub.attach(page):
            await self._refuse(ws, f.CLOSE_TOO_MANY, "too_many", lang)
            return None
        await self._hub.prepare(live)
        self._hub.show(page, self._rt.tables.cached(table_id) or live)
        return page

    async def _frame(self, page: Page, text: str) -> None:
        frame = f.parse(text)
        if isinstance(frame, f.Ping):
            page.send('{"t":"pong"}')
        elif isinstance(frame, f.Press):
            page.hold()
            try:
                reply = await self._desk.press(page, frame)
                page.send(dumps(reply))
            finally:
                page.release()
        elif isinstance(frame, f.Share):
            page.send(dumps(await self._desk.share(page)))
        else:  # a second hello, or a frame this server does not know
            page.send(dumps(f.notice("bad_frame", self._say(page.lang, "bad_frame"))))


async def open_webapp(
    rt: Runtime, presenter: Presenter, bot: Bot, links: WebAppLinks
) -> WebAppServer:
    """Start the Mini App: its hub (told of every change from now on), its presses, its
    server listening on ``DURAK_WEBAPP_LISTEN``:``DURAK_WEBAPP_PORT``."""
    from .presses import PageDesk

    hub = Hub(rt, presenter)
    server = WebAppServer(rt, hub, PageDesk(rt, presenter, hub, bot), tokens=links.tokens)
    await server.start(rt.settings.webapp_listen, rt.settings.webapp_port)
    rt.views = hub
    log.info(
        "mini app: %s served on %s:%d",
        rt.settings.webapp_url,
        rt.settings.webapp_listen,
        server.port,
    )
    return server
