"""Webhook mode: a small HTTP server Telegram posts updates to, and the run loop around it.

The server needs nothing beyond the standard library (asyncio streams) and is meant to sit
behind a reverse proxy that terminates TLS (deploy/README.md). It answers:

- ``POST <path of DURAK_WEBHOOK_URL>``: one update as JSON. The header
  ``X-Telegram-Bot-Api-Secret-Token`` must equal ``DURAK_WEBHOOK_SECRET``, else 403 and the
  update is dropped. A good update is kept in the inbox (:mod:`bot.service.inbox`), queued for the
  application and answered 200; one kept already (Telegram tried again) is answered 200
  and dropped. Until the inbox is open, posts wait; one that cannot be kept gets 503, and
  Telegram tries again later.
- ``GET /healthz``: 200 ``ok`` while the application runs, else 503 (for health checks).

Anything else gets 404 or 405. Bodies are limited to 1 MiB; idle connections are closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from telegram import Update
from telegram.ext import Application, ExtBot

from bot.base.config import Settings
from bot.service.inbox import Inbox
from bot.transport.extbot import DurakBot
from bot.transport.request import trim_update
from bot.transport.serving import run_until_signalled, started

__all__ = [
    "ALLOWED_UPDATES",
    "HEALTH_PATH",
    "SECRET_HEADER",
    "ListenError",
    "WebhookServer",
    "run_webhook",
    "serve_webhook",
]

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HEALTH_PATH = "/healthz"
ALLOWED_UPDATES = ["message", "callback_query", "inline_query", "guest_message", "my_chat_member"]
"""The update kinds the bot handles (asked of Telegram in both modes)."""

MAX_BODY = 1 << 20
MAX_HEAD = 16 << 10
IDLE_TIMEOUT = 75.0
READ_TIMEOUT = 10.0
INBOX_WAIT = 30.0
"""Seconds a post waits for the inbox at start-up before it is answered 503."""

AnyApp = Application[Any, Any, Any, Any, Any, Any]


class ListenError(RuntimeError):
    """A server of the bot cannot listen on the configured address and port; ``setting``
    names the settings to look at."""

    def __init__(
        self, problem: str, *, setting: str = "DURAK_WEBHOOK_LISTEN/DURAK_WEBHOOK_PORT"
    ) -> None:
        super().__init__(problem)
        self.setting = setting


class WebhookServer:
    """Receives Telegram's webhook posts and queues them for ``app``; with ``durable``,
    each is kept in the inbox (:meth:`attach`) before it is queued and answered."""

    def __init__(self, app: AnyApp, path: str, secret: str, *, durable: bool = False) -> None:
        self.app = app
        self.path = path
        self._secret = secret.encode()
        self._durable = durable
        self._inbox: Inbox | None = None
        self._attached = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._clients: set[asyncio.StreamWriter] = set()
        self.refused = 0
        self.received = 0

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (raises :class:`ListenError` if it cannot)."""
        try:
            self._server = await asyncio.start_server(self._serve, host, port, limit=MAX_HEAD)
        except OSError as exc:
            raise ListenError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc

    def attach(self, inbox: Inbox) -> None:
        """Keep every post in ``inbox`` from now on (posts that came first were waiting)."""
        self._inbox = inbox
        self._attached.set()

    @property
    def port(self) -> int:
        """The port listened on (useful with port 0)."""
        assert self._server is not None and self._server.sockets
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        """Stop listening and close the open connections."""
        if self._server is None:
            return
        self._server.close()
        for writer in list(self._clients):
            writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 5)
        self._server = None

    # ---------------------------------------------------------------- HTTP

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._clients.add(writer)
        try:
            while True:
                keep = await self._one(reader, writer)
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            self._clients.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; whether to keep the connection open."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), IDLE_TIMEOUT)
        except asyncio.LimitOverrunError:
            await _respond(writer, HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, keep=False)
            return False
        except asyncio.IncompleteReadError:
            return False
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            await _respond(writer, HTTPStatus.BAD_REQUEST, keep=False)
            return False
        method, target, version = parts
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        keep = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
        if "transfer-encoding" in headers:
            await _respond(writer, HTTPStatus.LENGTH_REQUIRED, keep=False)
            return False
        try:
            length = int(headers.get("content-length", "0"))
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            await _respond(writer, HTTPStatus.REQUEST_ENTITY_TOO_LARGE, keep=False)
            return False
        if length and headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            await writer.drain()
        body = await asyncio.wait_for(reader.readexactly(length), READ_TIMEOUT) if length else b""
        status, text = await self._route(method, target.split("?", 1)[0], headers, body)
        allow = "POST" if status == HTTPStatus.METHOD_NOT_ALLOWED else None
        await _respond(writer, status, text, keep=keep, allow=allow, head=method == "HEAD")
        return keep

    async def _route(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[HTTPStatus, str]:
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            if self.app.running:
                return HTTPStatus.OK, "ok\n"
            return HTTPStatus.SERVICE_UNAVAILABLE, "starting or stopping\n"
        if path != self.path:
            return HTTPStatus.NOT_FOUND, "not found\n"
        if method != "POST":
            return HTTPStatus.METHOD_NOT_ALLOWED, "POST only\n"
        given = headers.get(SECRET_HEADER.lower(), "").encode("latin-1")
        if not hmac.compare_digest(given, self._secret):
            self.refused += 1
            if self.refused <= 10 or self.refused % 1000 == 0:  # a flood stays a trickle
                log.warning(
                    "webhook: refused a post %s the secret token (%d refused so far)",
                    "with a wrong" if given else "without",
                    self.refused,
                )
            return HTTPStatus.FORBIDDEN, "forbidden\n"
        try:
            data = json.loads(body)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            trim_update(data)
            bot = self.app.bot
            update = (
                bot.reader.read(data, bot)
                if isinstance(bot, DurakBot)
                else Update.de_json(data, bot)
            )
        except Exception as exc:  # malformed JSON or an update PTB cannot read
            log.error("webhook: an unreadable update was dropped: %s: %.500r", exc, body)
            return HTTPStatus.BAD_REQUEST, "bad update\n"
        if self._durable:
            fresh = await self._keep(data)
            if fresh is None:
                return HTTPStatus.SERVICE_UNAVAILABLE, "try again\n"
            if not fresh:
                return HTTPStatus.OK, ""  # kept before: Telegram tried again
        if isinstance(self.app.bot, ExtBot):
            self.app.bot.insert_callback_data(update)
        self.received += 1
        await self.app.update_queue.put(update)
        return HTTPStatus.OK, ""

    async def _keep(self, data: dict[str, Any]) -> bool | None:
        """Keep one update in the inbox before it is answered: whether it is new; None if
        it cannot be kept now (Telegram will post it again)."""
        if not self._attached.is_set():
            try:
                await asyncio.wait_for(self._attached.wait(), INBOX_WAIT)
            except TimeoutError:
                return None
        assert self._inbox is not None
        try:
            return bool(await self._inbox.keep([data]))
        except Exception:
            log.exception("webhook: update %s could not be kept", data.get("update_id"))
            return None


async def _respond(
    writer: asyncio.StreamWriter,
    status: HTTPStatus,
    text: str = "",
    *,
    keep: bool,
    allow: str | None = None,
    head: bool = False,
) -> None:
    body = text.encode()
    lines = [
        f"HTTP/1.1 {status.value} {status.phrase}",
        "Content-Type: text/plain; charset=utf-8",
        f"Content-Length: {len(body)}",
        "Connection: " + ("keep-alive" if keep else "close"),
    ]
    if allow:
        lines.append(f"Allow: {allow}")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (b"" if head else body))
    await writer.drain()


# -------------------------------------------------------------------- run loop


async def serve_webhook(
    app: AnyApp,
    settings: Settings,
    stop: asyncio.Event,
) -> None:
    """Listen, start the application, register the webhook with Telegram, and run until
    ``stop`` is set; then stop as ``run_polling`` does (with the post_* hooks).

    The webhook stays registered on exit, so Telegram keeps the updates that arrive while
    the bot restarts and delivers them afterwards.
    """
    assert settings.webhook_url is not None and settings.webhook_secret is not None
    server = WebhookServer(
        app, settings.webhook_path, settings.webhook_secret.get_secret_value(), durable=True
    )
    await server.start(settings.webhook_listen, settings.webhook_port)

    def attach() -> None:
        inbox = getattr(app.bot_data.get("runtime"), "inbox", None)
        if isinstance(inbox, Inbox):
            server.attach(inbox)

    try:
        async with started(app, attach):
            try:
                await app.bot.set_webhook(
                    settings.webhook_url,
                    secret_token=settings.webhook_secret.get_secret_value(),
                    allowed_updates=ALLOWED_UPDATES,
                )
                log.info(
                    "webhook mode: listening on %s:%d%s, Telegram posts to %s",
                    settings.webhook_listen,
                    server.port,
                    settings.webhook_path,
                    settings.webhook_url,
                )
                await stop.wait()
                log.info("stopping (%d updates received)", server.received)
            finally:
                await server.close()
    finally:
        await server.close()


def run_webhook(
    app: AnyApp,
    settings: Settings,
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None,
) -> None:
    """Run in webhook mode until SIGINT or SIGTERM (on a loop from ``loop_factory``)."""
    run_until_signalled(lambda stop: serve_webhook(app, settings, stop), loop_factory)
