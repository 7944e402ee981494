"""The fake Bot API server: aiohttp on 127.0.0.1, the HTTP side of the fake Telegram."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING

from aiohttp import web

from .api import BotApi, ForcedRetry
from .errors import ApiError, not_found, unauthorized
from .faults import (
    ERROR,
    RESET,
    Fault,
    FaultInjector,
    Faults,
    Hold,
    gateway_page,
    gateway_phrase,
)
from .guest import DEFAULT_GUEST_TIMEOUT
from .inline import DEFAULT_INLINE_TIMEOUT
from .inspection import Inspection
from .limits import Limits, RateLimiter
from .media import MAX_UPLOAD_BYTES
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
    ``limits`` sets flood control (``Limits.telegram()`` by default); ``faults`` sets
    network faults (none by default); ``api_version`` makes it a self-hosted
    telegram-bot-api server of that older Bot API version (``(9, 4)``: no ``<tg-time>``).
    ``ephemeral_window`` (15 s) is how long after a callback query or an ephemeral command
    any bot may answer it ephemerally; ``ephemeral_ttl`` (None: never) makes ephemeral
    messages disappear by themselves that many seconds after sending (both on the
    server's clock, see ``set_clock``). Inline mode, as BotFather sets it: ``inline_mode``
    (on; off, users' apps send the bot no inline queries), ``inline_placeholder``,
    ``inline_feedback`` (the share of chosen results reported as chosen_inline_result: 0,
    off as by default, to 1) and ``inline_timeout`` (10 s to answer an inline query).
    Guest mode (Bot API 10.0), as BotFather sets it: ``guest_mode`` (off, as for a new bot;
    on, a user's ``@bot`` in a chat the bot is not in is a guest query, ``mention_guest``)
    and ``guest_timeout`` (10 s to answer a guest query, assumed).
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "durak_test_bot",
        bot_name: str = "Durak Test Bot",
        limits: Limits | None = None,
        faults: Faults | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        privacy_mode: bool = True,
        callback_ttl: float = 15.0,
        allow_http_webhook: bool = True,
        api_version: tuple[int, int] | None = None,
        ephemeral_window: float = 15.0,
        ephemeral_ttl: float | None = None,
        inline_mode: bool = True,
        inline_placeholder: str | None = None,
        inline_feedback: float = 0.0,
        inline_timeout: float = DEFAULT_INLINE_TIMEOUT,
        guest_mode: bool = False,
        guest_timeout: float = DEFAULT_GUEST_TIMEOUT,
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
        self.world.api_version = api_version
        self.world.ephemeral_window = ephemeral_window
        self.world.ephemeral_ttl = ephemeral_ttl
        self.world.inline_mode = inline_mode
        self.world.inline_placeholder = inline_placeholder
        self.inline_feedback = inline_feedback
        self.world.inline_timeout = inline_timeout
        self.world.guest_mode = guest_mode
        self.world.guest_timeout = guest_timeout
        self.limiter = RateLimiter(limits or Limits.telegram())
        self.injector = FaultInjector(faults)
        self._holds: list[Hold] = []
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
        self._stopping: asyncio.Event | None = None
        self._late: set[asyncio.Task[None]] = set()
        """Timed-out calls still to be carried out late."""
        self.port = 0

    # ---- life cycle --------------------------------------------------------------

    async def start(self) -> None:
        """Listen on host:port (port 0 picks a free one; see ``url``)."""
        self._stopping = asyncio.Event()
        # uploads of up to the Bot API's 50 MB get through, to be judged by their method
        app = web.Application(client_max_size=MAX_UPLOAD_BYTES + 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/file/bot{token}/{path:.*}", self._handle_file)
        runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self._host, self._port)
        await site.start()
        self._runner = runner
        self.port = int(runner.addresses[0][1])

    async def add_address(self) -> str:
        """Another base URL of this same server (in ``base_url``'s form), on a port of its
        own. A call that comes in through it has that port as its ``ApiCall.port``: give
        each of several bot processes its own, and their calls are told apart. Nothing
        else differs (Telegram has no such thing; it is for inspection only)."""
        if self._runner is None:
            raise RuntimeError("the server is not started")
        known = {address[1] for address in self._runner.addresses}
        await web.TCPSite(self._runner, self._host, 0).start()
        [port] = {address[1] for address in self._runner.addresses} - known
        return f"http://{self._host}:{port}/bot"

    async def stop(self) -> None:
        """Stop listening; pending long polls return at once."""
        self.api.closing = True
        self.world.notifier.notify()
        if self._stopping is not None:
            self._stopping.set()  # calls held by a timeout fault end now
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

    @property
    def faults(self) -> Faults:
        """The network-fault rates in force (``Faults()``: none)."""
        return self.injector.faults

    def set_faults(self, faults: Faults | None) -> None:
        """Install network-fault rates (None or ``Faults()``: none); the random stream
        starts again from ``faults.seed``."""
        self.injector.set_faults(faults)

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

    def force_fault(
        self,
        kind: str = RESET,
        times: int = 1,
        *,
        applied: bool = False,
        chat: ChatRef | str | None = None,
        method: str | None = None,
        late: bool = False,
    ) -> None:
        """Let the next ``times`` calls (to ``chat``, of ``method``) meet network fault
        ``kind`` ("timeout", "reset" or "error"), whatever the rates; ``applied``: a
        timeout or reset is carried out first; ``late``: a timeout is carried out
        ``faults.late_by`` seconds after the client gave up. Without ``method`` any
        method but getUpdates matches."""
        chat_id = chat.id if isinstance(chat, FakeChat) else chat
        self.injector.force(kind, times, applied=applied, chat_id=chat_id, method=method, late=late)

    def flood_wait(self, seconds: float, *methods: str) -> None:
        """Refuse every call of ``methods`` with 429 for the next ``seconds`` (real time,
        not scaled), ``retry_after`` counting down the seconds left; 0 lifts the wait."""
        self.limiter.flood_wait(seconds, methods)

    def hold(self, method: str) -> Hold:
        """Hold every call of ``method`` unanswered from now until the hold is released."""
        held = Hold(method)
        self._holds.append(held)
        return held

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
    def ephemeral_window(self) -> float:
        """Seconds after an eligible action within which a bot that is no administrator
        may send an ephemeral message (15, "within 15 seconds of the incoming eligible
        action")."""
        return self.world.ephemeral_window

    @ephemeral_window.setter
    def ephemeral_window(self, value: float) -> None:
        self.world.ephemeral_window = value

    @property
    def ephemeral_ttl(self) -> float | None:
        """Seconds after which ephemeral messages disappear by themselves (None: never)."""
        return self.world.ephemeral_ttl

    @ephemeral_ttl.setter
    def ephemeral_ttl(self, value: float | None) -> None:
        self.world.ephemeral_ttl = value
        self.world.notifier.notify()

    @property
    def inline_mode(self) -> bool:
        """Inline mode (BotFather's /setinline): off, ``@bot`` sends the bot nothing and
        getMe says ``supports_inline_queries`` False."""
        return self.world.inline_mode

    @inline_mode.setter
    def inline_mode(self, value: bool) -> None:
        self.world.inline_mode = value

    @property
    def inline_placeholder(self) -> str | None:
        """The input field's placeholder after ``@bot`` (BotFather; the bot never reads it)."""
        return self.world.inline_placeholder

    @inline_placeholder.setter
    def inline_placeholder(self, value: str | None) -> None:
        self.world.inline_placeholder = value

    @property
    def inline_feedback(self) -> float:
        """The share of chosen inline results the bot is told of (chosen_inline_result):
        0 (off, BotFather's default), 1 (every one), or 0.1, 0.01, 0.001."""
        return self.world.inline_feedback

    @inline_feedback.setter
    def inline_feedback(self, value: float | bool) -> None:
        share = float(value)
        if not 0 <= share <= 1:
            raise ValueError("inline_feedback is a share of the chosen results, 0 to 1")
        self.world.inline_feedback = share

    @property
    def guest_mode(self) -> bool:
        """Guest mode (BotFather's setting; getMe's ``supports_guest_queries``): off, a
        user's ``@bot`` in a chat the bot is not in reaches nobody."""
        return self.world.guest_mode

    @guest_mode.setter
    def guest_mode(self, value: bool) -> None:
        self.world.guest_mode = value

    @property
    def guest_timeout(self) -> float:
        """Seconds within which the bot must answer a guest query (on the server's clock)."""
        return self.world.guest_timeout

    @guest_timeout.setter
    def guest_timeout(self, value: float) -> None:
        self.world.guest_timeout = value

    @property
    def inline_timeout(self) -> float:
        """Seconds within which the bot must answer an inline query (on the server's clock;
        ``inline_query`` waits that long, in real seconds, by default)."""
        return self.world.inline_timeout

    @inline_timeout.setter
    def inline_timeout(self, value: float) -> None:
        self.world.inline_timeout = value

    def set_clock(self, clock: Callable[[], float], *, limits: bool = True) -> None:
        """Put the server on ``clock`` (a callable returning seconds, e.g. a test's
        manual clock): the 15-second ephemeral window, ``ephemeral_ttl``, callback query
        ages (``callback_ttl``), inline query ages and cached inline answers
        (``cache_time``) and recorded call times follow it; with ``limits``, flood
        control too. Message dates (Unix time) do not."""
        self.world.clock = clock
        self.world.started_at = clock()
        if limits:
            self.limiter.clock = clock
        self.world.notifier.notify()

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

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        token = request.match_info["token"]
        if token != self.token:
            return self._error(unauthorized() if ":" in token else not_found())
        method = self.api.canonical(request.match_info["method"])
        try:
            params = await read_params(request)
        except ApiError as error:
            return self._error(error)
        call = ApiCall(method=method, params=params, time=self.world.elapsed())
        sockname = request.transport.get_extra_info("sockname") if request.transport else None
        if sockname:
            call.port = int(sockname[1])
        self.world.calls.append(call)
        polling = method.lower() == "getupdates"
        if not polling:
            self.world.inflight += 1
            self.world.notifier.notify()
        try:
            for held in self._holds:
                if held.matches(method):
                    held.calls.append(call)
                    self.world.notifier.notify()
                    await self._until(held.released)
            self.api.take_forced(method, params)
            fault = self.injector.draw(method, self.world.chat_id_named(params))
            if fault is not None:
                return await self._serve_fault(request, call, fault)
            result = await self.api.run(method, params)
        except ApiError as error:
            call.error_code = error.error_code
            call.description = error.description
            call.retry_after = (error.parameters or {}).get("retry_after")
            call.forced = isinstance(error, ForcedRetry)
            return self._error(error)
        except asyncio.CancelledError:
            if call.fault is None:
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
            call.applied = True
            call.result = result
            return web.json_response({"ok": True, "result": result})
        finally:
            call.pending = False
            call.ended = self.world.elapsed()
            if not polling:
                self.world.inflight -= 1
            self.world.notifier.notify()

    # ---- network faults ----------------------------------------------------------

    async def _serve_fault(
        self, request: web.Request, call: ApiCall, fault: Fault
    ) -> web.StreamResponse:
        """Answer a faulted call as the network would (see ``faults.py``)."""
        call.fault = fault.kind
        if fault.kind == ERROR:
            return self._gateway_error(call, self.faults.error_status)
        note = ""
        if fault.applied and not fault.late:
            # Carried out, yet the bot never hears of it: the effects stay, the answer is lost.
            try:
                call.result = await self.api.run(call.method, call.params)
                call.applied = True
            except ApiError as error:
                note = f" (the method itself failed: {error.description})"
        if fault.kind == RESET:
            call.description = "connection reset" + note
            self._reset_connection(request)
            # Losing the connection cancels this handler; wait for that.
            await self._hold(1.0)
            raise asyncio.CancelledError
        call.description = "timed out" + note
        try:
            await self._hold(self.faults.hang)
        except asyncio.CancelledError:
            call.description += ": the client disconnected"
            if fault.late:
                self._carry_out_late(call)
            raise
        if fault.late:
            self._carry_out_late(call)
        if self._stopping is not None and self._stopping.is_set():
            call.description += ": the server stopped"
            self._reset_connection(request)
            raise asyncio.CancelledError
        return self._gateway_error(call, 504)

    def _carry_out_late(self, call: ApiCall) -> None:
        """Carry out a timed-out call ``faults.late_by`` seconds from now, as a slow
        server behind the gateway would, after the client gave up on it."""
        delay = self.faults.late_by

        async def later() -> None:
            await self._hold(delay)
            if self._stopping is not None and self._stopping.is_set():
                return
            try:
                call.result = await self.api.run(call.method, call.params)
                call.applied = True
                call.description = (call.description or "") + f"; carried out {delay} s late"
            except ApiError as error:
                call.description = (call.description or "") + f"; late: {error.description}"
            self.world.notifier.notify()

        task = asyncio.get_running_loop().create_task(later())
        self._late.add(task)
        task.add_done_callback(self._late.discard)

    async def _until(self, event: asyncio.Event) -> None:
        """Wait for ``event``, or until the server stops."""
        if self._stopping is None:
            await event.wait()
            return
        stopping = asyncio.ensure_future(self._stopping.wait())
        waiting = asyncio.ensure_future(event.wait())
        try:
            await asyncio.wait({stopping, waiting}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            waiting.cancel()

    async def _hold(self, seconds: float) -> None:
        """Wait ``seconds``, or until the server stops (other calls go on meanwhile)."""
        if self._stopping is None:
            await asyncio.sleep(seconds)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)

    @staticmethod
    def _reset_connection(request: web.Request) -> None:
        """Drop the connection with a TCP reset, without an answer."""
        transport = request.transport
        if transport is None:
            return
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                # A zero linger time makes close() send RST instead of FIN.
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()

    @staticmethod
    def _gateway_error(call: ApiCall, status: int) -> web.Response:
        """The front end's own 5xx: an HTML page, not a Bot API JSON body."""
        call.error_code = status
        call.description = gateway_phrase(status)
        return web.Response(
            text=gateway_page(status),
            status=status,
            content_type="text/html",
            headers={"Server": "nginx/1.18.0"},
        )
