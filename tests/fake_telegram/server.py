"""The fake Bot API server: aiohttp on 127.0.0.1, the HTTP side of the fake Telegram."""

from __future__ import annotations

import asyncio
import logging
from types import TracebackType
from typing import TYPE_CHECKING

from aiohttp import web

from .api import BotApi, ForcedRetry
from .errors import ApiError, not_found, unauthorized
from .inspection import Inspection
from .limits import Limits, RateLimiter
from .models import ApiCall, FakeChat, FakeUser
from .params import read_params
from .simulation import Simulation
from .webhook import WebhookDeliverer
from .world import ChatRef, WebhookConfig, World

if TYPE_CHECKING:
    from telegram.ext._applicationbuilder import InitApplicationBuilder

DEFAULT_TOKEN = "123456789:AAFakeTelegramTokenForTests-0123456789"
_LOG = logging.getLogger(__name__)


class FakeTelegramServer(Simulation, Inspection):
    """A fake Telegram Bot API on 127.0.0.1 for the real PTB ``Application`` to talk to.

    Use as ``async with FakeTelegramServer(limits=Limits.fast()) as server:`` and build the
    bot with ``server.application_builder()`` (token, base_url and base_file_url set).
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "durak_test_bot",
        bot_name: str = "Durak Test Bot",
        limits: Limits | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        privacy_mode: bool = True,
        callback_ttl: float = 15.0,
        allow_http_webhook: bool = True,
    ) -> None:
        bot_id_text = token.split(":", 1)[0]
        if ":" not in token or not bot_id_text.isdigit():
            raise ValueError("a bot token looks like '<bot id>:<secret>'")
        self.token = token
        bot = FakeUser(
            id=int(bot_id_text),
            first_name=bot_name,
            username=bot_username,
            language_code=None,
            is_bot=True,
            started=True,
        )
        self.world = World(bot)
        self.world.privacy_mode = privacy_mode
        self.world.callback_ttl = callback_ttl
        self.limiter = RateLimiter(limits or Limits.telegram())
        self._webhooks = WebhookDeliverer(self.world)
        self.api = BotApi(
            self.world,
            self.limiter,
            allow_http_webhook=allow_http_webhook,
            on_webhook_change=self._webhooks.refresh,
        )
        #: Exceptions raised inside the fake itself (answered with HTTP 500): a fake bug.
        self.internal_errors: list[BaseException] = []
        self._host = host
        self._port = port
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ---- life cycle --------------------------------------------------------------

    async def start(self) -> None:
        """Listen on host:port (port 0 picks a free one; see ``url``)."""
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/file/bot{token}/{path:.*}", self._handle_file)
        runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self._host, self._port)
        await site.start()
        self._runner = runner
        self.port = int(runner.addresses[0][1])

    async def stop(self) -> None:
        """Stop listening; pending long polls return at once."""
        self.api.closing = True
        self.world.notifier.notify()
        await self._webhooks.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegramServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://{self._host}:{self.port}"

    @property
    def base_url(self) -> str:
        """What ``ApplicationBuilder.base_url`` wants (the token is appended by PTB)."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        """What ``ApplicationBuilder.base_file_url`` wants."""
        return f"{self.url}/file/bot"

    @property
    def bot_user(self) -> FakeUser:
        """The bot as a user."""
        return self.world.bot

    def application_builder(self) -> InitApplicationBuilder:
        """A PTB ApplicationBuilder pointed at this server."""
        from telegram.ext import ApplicationBuilder

        return (
            ApplicationBuilder()
            .token(self.token)
            .base_url(self.base_url)
            .base_file_url(self.base_file_url)
        )

    # ---- settings ----------------------------------------------------------------

    @property
    def limits(self) -> Limits:
        """The flood-control settings in force."""
        return self.limiter.limits

    def set_limits(self, limits: Limits) -> None:
        """Install new flood-control settings (spent capacity is forgotten)."""
        self.limiter.set_limits(limits)

    def reset_limits(self) -> None:
        """Forget spent capacity (as if a long time passed)."""
        self.limiter.reset()

    def force_429(
        self,
        times: int = 1,
        retry_after: int = 1,
        *,
        chat: ChatRef | str | None = None,
        method: str | None = None,
    ) -> None:
        """Answer the next ``times`` calls (to ``chat``, of ``method``) with 429.

        Without ``method`` any method but getUpdates matches.
        """
        chat_id = chat.id if isinstance(chat, FakeChat) else chat
        self.limiter.force(times, retry_after, chat_id=chat_id, method=method)

    def drop_pending_updates(self) -> int:
        """Forget the updates the bot has not fetched yet; return how many there were."""
        count = len(self.world.queue.pending)
        self.world.queue.drop_all()
        self.world.notifier.notify()
        return count

    @property
    def privacy_mode(self) -> bool:
        """Group privacy mode (the bot sees only commands/replies/mentions in groups)."""
        return self.world.privacy_mode

    @privacy_mode.setter
    def privacy_mode(self, value: bool) -> None:
        self.world.privacy_mode = value

    @property
    def callback_ttl(self) -> float:
        """Seconds within which a callback query must be answered."""
        return self.world.callback_ttl

    @callback_ttl.setter
    def callback_ttl(self, value: float) -> None:
        self.world.callback_ttl = value

    @property
    def webhook(self) -> WebhookConfig | None:
        """What setWebhook stored, or None."""
        return self.world.webhook

    # ---- HTTP --------------------------------------------------------------------

    @staticmethod
    def _error(error: ApiError) -> web.Response:
        return web.json_response(error.to_json(), status=error.error_code)

    async def _handle_file(self, request: web.Request) -> web.Response:
        return self._error(not_found())

    async def _handle(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        if token != self.token:
            return self._error(unauthorized() if ":" in token else not_found())
        method = self.api.canonical(request.match_info["method"])
        try:
            params = await read_params(request)
        except ApiError as error:
            return self._error(error)
        call = ApiCall(method=method, params=params, time=self.world.elapsed())
        self.world.calls.append(call)
        polling = method.lower() == "getupdates"
        if not polling:
            self.world.inflight += 1
            self.world.notifier.notify()
        try:
            result = await self.api.call(method, params)
        except ApiError as error:
            call.error_code = error.error_code
            call.description = error.description
            call.retry_after = (error.parameters or {}).get("retry_after")
            call.forced = isinstance(error, ForcedRetry)
            return self._error(error)
        except asyncio.CancelledError:
            call.description = "client disconnected"
            raise
        except Exception as exc:  # a bug in the fake: make it loud
            _LOG.exception("fake Telegram failed on %s", method)
            self.internal_errors.append(exc)
            call.error_code = 500
            call.description = f"Internal Server Error: {exc!r}"
            return web.json_response(
                {"ok": False, "error_code": 500, "description": call.description}, status=500
            )
        else:
            call.ok = True
            call.result = result
            return web.json_response({"ok": True, "result": result})
        finally:
            call.pending = False
            if not polling:
                self.world.inflight -= 1
            self.world.notifier.notify()
