"""PTB's network layer: the Bot API's JSON calls over a lean HTTP client, uploads on aiohttp.

The default ``HTTPXRequest`` spends several milliseconds of CPU per Bot API call under
asyncio (httpcore's pool bookkeeping through anyio); a busy bot makes a few calls per move,
so that cost decides how many tables one process serves. aiohttp's client does the same
work for a fraction of it, and :mod:`bot.transport.httpclient`, which does only what these calls
need, for a fraction of that (``bench/load.py --vs`` shows the difference).

:class:`UpdatesRequest` is the one ``getUpdates`` goes through: it hands what Telegram
returned to the inbox (:mod:`bot.service.inbox`) before PTB sees it, and so before the next
``getUpdates`` tells Telegram it arrived.

:func:`call` is the thin path of the calls the bot makes on every move (edits, sends,
callback answers): the parameters are plain JSON already, encoded once with orjson and
posted; the answer is parsed with orjson and handed back as plain JSON. PTB's typed methods
would first wrap every parameter in its request objects and afterwards build a ``Message``
nobody reads. The call still passes the rate limiter, and Telegram's refusals are raised
by PTB's own code (``BaseRequest._request_wrapper``) exactly as a typed method raises them.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any, Final

import aiohttp
import orjson
from telegram import Bot
from telegram._utils.defaultvalue import DEFAULT_NONE, DefaultValue
from telegram._utils.types import JSONDict, ODVInput
from telegram.error import NetworkError, TelegramError, TimedOut
from telegram.request import BaseRequest, RequestData
from telegram.request._requestparameter import RequestParameter

from bot.store.errors import StoreUnavailable
from bot.transport.httpclient import HttpClient, HttpError

__all__ = ["AiohttpRequest", "JsonBody", "UpdatesRequest", "call", "loads", "trim_update"]

log = logging.getLogger(__name__)

_JSON = {"Content-Type": "application/json"}
_SUCCESS = re.compile(rb'\s*\{\s*"ok"\s*:\s*true\s*[,}]')
"""How the Bot API's answer to a call that succeeded begins."""


def loads(payload: bytes) -> Any:
    """JSON from the Bot API. orjson reads only valid UTF-8; a body with broken bytes in it
    is read as PTB reads it (each broken byte replaced) rather than refused. ``ValueError``
    if it is no JSON at all."""
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        return json.loads(payload.decode("utf-8", "replace"))


class JsonBody(RequestData):
    """A request's body, encoded already (:func:`call`): no parameters to convert."""

    __slots__ = ("body",)

    def __init__(self, body: bytes) -> None:
        # what RequestData's own start sets, without looking for files among no parameters
        self._parameters = []
        self.contains_files = False
        self.body = body


async def call(
    bot: Bot,
    endpoint: str,
    params: dict[str, Any],
    *,
    read_timeout: ODVInput[float] = DEFAULT_NONE,
    result: bool = True,
) -> Any:
    """Call ``endpoint`` with ``params`` (plain JSON values; None values are left out, as
    PTB leaves them out) through the bot's rate limiter, and return the answer's
    ``result`` as plain JSON (a message is a dict). Errors are PTB's, raised by its own
    code: ``RetryAfter``, ``BadRequest``, ``Forbidden``, ``TimedOut``, ``NetworkError``...
    ``result=False`` is for a call whose result nobody reads (an edit, a delete, a
    callback answer): a success returns True without the answer being parsed (an edited
    message comes back whole, keyboard and all). A bot whose network layer is not an
    :class:`AiohttpRequest` goes PTB's usual way."""
    data = {key: value for key, value in params.items() if value is not None}
    request = bot.request
    if not isinstance(request, AiohttpRequest):
        return await bot._post(endpoint, data, read_timeout=read_timeout)
    url = f"{bot.base_url}/{endpoint}"
    limiter = getattr(bot, "rate_limiter", None)
    if limiter is None:
        return await request.post_json(url, data, read_timeout, result)
    # the limiter may cut a text that is too long in ``data``: it is encoded after that
    return await limiter.process_request(
        callback=request.post_json,
        args=(url, data, read_timeout, result),
        kwargs={},
        endpoint=endpoint,
        data=data,
        rate_limit_args=None,
    )


class AiohttpRequest(BaseRequest):
    """A :class:`telegram.request.BaseRequest`: the JSON calls over the bot's own lean
    client (:mod:`bot.transport.httpclient`), uploads and downloads over one
    ``aiohttp.ClientSession``."""

    __slots__ = (
        "_client",
        "_connect_timeout",
        "_pool_size",
        "_pool_timeout",
        "_read_timeout",
        "_session",
        "_write_timeout",
    )

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
    ) -> None:
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._session: aiohttp.ClientSession | None = None
        self._client: HttpClient | None = None

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Open the session (again, after a shutdown)."""
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._pool_size),
                headers={"User-Agent": self.USER_AGENT},
            )
        if self._client is None or self._client.closed:
            self._client = HttpClient(limit=self._pool_size, user_agent=self.USER_AGENT)

    async def shutdown(self) -> None:
        """Close the session."""
        if self._session is not None and not self._session.closed:
            await self._session.close()
        if self._client is not None and not self._client.closed:
            await self._client.close()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """Send one request; (status, body). Timeouts become ``TimedOut``, other failures
        ``NetworkError``, as PTB expects."""
        session, client = self._session, self._client
        if session is None or session.closed or client is None or client.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        read = self._read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = (
            self._connect_timeout if isinstance(connect_timeout, DefaultValue) else connect_timeout
        )
        pool = self._pool_timeout if isinstance(pool_timeout, DefaultValue) else pool_timeout
        if method == "POST" and (request_data is None or not request_data.contains_files):
            if isinstance(request_data, JsonBody):
                data = request_data.body
            else:
                # one JSON body: cheaper to build than a form (no per-byte URL quoting)
                data = orjson.dumps(request_data.parameters if request_data is not None else {})
            try:
                answer = await client.post(
                    url, data, connect_timeout=connect, pool_timeout=pool, read_timeout=read
                )
            except TimeoutError as exc:
                raise TimedOut from exc
            except HttpError as exc:
                raise NetworkError(f"httpclient: {exc}") from exc
            log.debug("HTTP %s %s -> %s", method, url, answer.status)
            if answer.status >= 500 and answer.content_type != "application/json":
                # the gateway's own error page (nginx's HTML), not an answer of the Bot
                # API: a network failure, tried again like a timeout (PTB would first
                # log the page it cannot parse as an error)
                raise NetworkError(f"{answer.reason} ({answer.status}) from the gateway")
            return answer.status, answer.body
        # an upload (multipart) or a download: aiohttp
        timeout = aiohttp.ClientTimeout(
            total=None,
            connect=pool,
            sock_connect=connect,
            sock_read=read,
        )
        body: aiohttp.FormData | bytes | None = None
        headers: dict[str, str] | None = None
        if request_data is not None:
            files = request_data.multipart_data
            if files:
                form = aiohttp.FormData()
                for name, value in request_data.json_parameters.items():
                    form.add_field(name, value)
                for name, part in files.items():
                    filename, content, mimetype = part
                    form.add_field(name, content, filename=filename, content_type=mimetype)
                body = form
            else:
                body = orjson.dumps(request_data.parameters)
                headers = _JSON
        try:
            async with session.request(
                method, url, data=body, headers=headers, timeout=timeout
            ) as response:
                content = await response.read()
                log.debug("HTTP %s %s -> %s", method, url, response.status)
                if response.status >= 500 and response.content_type != "application/json":
                    # the gateway's own error page (nginx's HTML), not an answer of the Bot
                    # API: a network failure, tried again like a timeout (PTB would first
                    # log the page it cannot parse as an error)
                    raise NetworkError(f"{response.reason} ({response.status}) from the gateway")
                return response.status, content
        except TimeoutError as exc:
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{exc.__class__.__name__}: {exc}") from exc

    async def post_json(
        self,
        url: str,
        data: dict[str, Any],
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        result: bool = True,
    ) -> Any:
        """POST ``data`` as one JSON body; the answer's ``result`` (what ``BaseRequest.post``
        returns, without PTB's parameter objects). Not ``result``: True for a success,
        which is not parsed (a body that is not Telegram's success is, as PTB parses it)."""
        try:
            code, payload = await self.do_request(
                url, "POST", JsonBody(orjson.dumps(data)), read_timeout
            )
        except TelegramError:
            raise
        except Exception as exc:  # as PTB's own wrapper of a request says it
            raise NetworkError(f"Unknown error in HTTP implementation: {exc!r}") from exc
        if not _OK <= code <= _LAST_OK:
            # a refusal: PTB's own code says what it means (RetryAfter, BadRequest, ...)
            await BaseRequest._request_wrapper(_Answered(code, payload), url, "POST")  # type: ignore[arg-type]
        if not result and _SUCCESS.match(payload):
            return True
        return self.parse_json_payload(payload)["result"]

    @staticmethod
    def parse_json_payload(payload: bytes) -> JSONDict:
        """Telegram's JSON answer, as PTB parses it (with orjson); but a body that is no
        JSON (the HTML page of a gateway's 502, a passing failure that the caller tries
        again) is one warning line, not an ERROR with a traceback."""
        try:
            found: JSONDict = loads(payload)
        except ValueError as exc:
            log.warning("the Bot API answered with no JSON: %.120r", payload)
            raise TelegramError("Invalid server response") from exc
        return found

    def __repr__(self) -> str:
        return f"AiohttpRequest(pool={self._pool_size})"


_OK: Final = int(HTTPStatus.OK)
_LAST_OK: Final = 299


class _Answered:
    """A request answered already, for ``BaseRequest._request_wrapper`` to read its refusal
    as PTB reads one (it raises)."""

    __slots__ = ("_answer",)

    def __init__(self, code: int, payload: bytes) -> None:
        self._answer = (code, payload)

    async def do_request(self, *args: object, **kwargs: object) -> tuple[int, bytes]:
        return self._answer

    parse_json_payload = staticmethod(AiohttpRequest.parse_json_payload)


class UpdatesRequest(AiohttpRequest):
    """:class:`AiohttpRequest` for ``getUpdates``: the updates it returns are given to
    :attr:`keep` before anyone sees them. If they cannot be kept, the call fails as a
    network error would: PTB asks again (with backoff) and Telegram, never told they
    arrived, sends them again.

    :attr:`window`, if set, is asked before each call how long its long poll may last
    (the seconds of its ``timeout`` at most): a process that polls only while it holds a
    lease never has a poll waiting at Telegram past the lease (:mod:`bot.cluster.member`).
    None means the call is not to be made now: it is answered as if Telegram had returned
    nothing."""

    __slots__ = ("_held", "_order", "_parsed", "hold_presses", "keep", "window")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.keep: Callable[[list[dict[str, Any]]], Awaitable[object]] | None = None
        self.window: Callable[[int], Awaitable[int | None]] | None = None
        self.hold_presses = False
        """Whether the presses of an answer are held back for the bot to read itself
        (:meth:`take_presses`), PTB reading only the other updates: set by
        :class:`~bot.transport.extbot.DurakBot`, which reads them faster."""
        self._parsed: tuple[bytes, JSONDict] | None = None
        """The last answer as parsed here, which PTB takes instead of parsing it again."""
        self._held: dict[int, dict[str, Any]] = {}
        self._order: list[int] = []

    def take_presses(self) -> tuple[dict[int, dict[str, Any]], list[int]]:
        """The presses held back from the last answer, by ``update_id``, and the
        ``update_id`` of each of its updates in the answer's order (once)."""
        held, self._held = self._held, {}
        order, self._order = self._order, []
        return held, order

    def parse_json_payload(self, payload: bytes) -> JSONDict:  # type: ignore[override]
        """The answer parsed once (for the inbox), handed to PTB as it is."""
        parsed = self._parsed
        if parsed is not None and parsed[0] is payload:
            self._parsed = None
            return parsed[1]
        return AiohttpRequest.parse_json_payload(payload)

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """The Bot API's answer, once the updates in it are kept."""
        # none left from an answer PTB did not finish reading
        self._held, self._order = {}, []
        window = self.window
        if window is not None and request_data is not None:
            asked = request_data.parameters.get("timeout")
            wanted = int(asked) if isinstance(asked, int | float) else 0
            allowed = await window(wanted)
            if allowed is None:
                return HTTPStatus.OK, _NOTHING
            if allowed < wanted:
                request_data = RequestData(
                    [
                        RequestParameter("timeout", allowed, None) if p.name == "timeout" else p
                        for p in request_data._parameters
                    ]
                )
        code, payload = await super().do_request(
            url, method, request_data, read_timeout, write_timeout, connect_timeout, pool_timeout
        )
        keep = self.keep
        if keep is None or code != HTTPStatus.OK:
            return code, payload
        try:
            answer = loads(payload)
        except ValueError:
            return code, payload  # PTB says what is wrong with it
        updates = answer.get("result") if isinstance(answer, dict) else None
        if isinstance(updates, list) and updates:
            for update in updates:
                trim_update(update)
            try:
                await keep(updates)
            except StoreUnavailable as exc:
                # the database restarts: a passing failure, said in one line
                log.warning("the updates could not be kept (%s): Telegram sends them again", exc)
                raise NetworkError(f"the updates could not be kept: {exc}") from exc
            except Exception as exc:
                log.exception("the updates could not be kept: Telegram will send them again")
                raise NetworkError(f"the updates could not be kept: {exc}") from exc
            if self.hold_presses:
                self._hold(updates)
        if isinstance(answer, dict):
            self._parsed = (payload, answer)
        return code, payload

    def _hold(self, updates: list[Any]) -> None:
        """Take the presses out of ``updates`` (PTB reads the rest), noting where each
        update was."""
        others = []
        for update in updates:
            update_id = update.get("update_id") if isinstance(update, dict) else None
            if not isinstance(update_id, int) or isinstance(update_id, bool):
                others.append(update)  # PTB says what is wrong with it
                continue
            if "callback_query" in update:
                self._held[update_id] = update
            else:
                others.append(update)
            self._order.append(update_id)
        if self._held:
            updates[:] = others


_NOTHING: Final = b'{"ok":true,"result":[]}'
"""A ``getUpdates`` answer with no update."""


_UNREAD: Final = ("reply_markup", "entities", "text", "from", "edit_date")
"""What no handler reads of a pressed button's message: its keyboard, its text and the
text's entities, its sender (the bot) and when it was last edited. Handlers read where
it is (its chat, its id) and what kind it is (a photo's caption stays)."""


def trim_update(update: object) -> None:
    """Drop what no handler reads from a pressed button's message (:data:`_UNREAD`), which
    is most of the update and which PTB would turn into objects (and the inbox would
    store) on every press."""
    if not isinstance(update, dict):
        return
    query = update.get("callback_query")
    message = query.get("message") if isinstance(query, dict) else None
    if isinstance(message, dict):
        for key in _UNREAD:
            message.pop(key, None)
