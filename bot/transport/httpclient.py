"""A lean HTTP/1.1 client for the Bot API's JSON calls: kept-alive connections, one request
at a time on each, a JSON body out and the answer's bytes back.

A busy bot makes a few Bot API calls per move. aiohttp's client builds, for each of them, a
request and a response object, header multidicts, a URL object, timers and trace hooks: a
good part of the CPU a move costs. The calls the bot makes are all alike (a POST with a JSON
body to one host, an answer of a few hundred bytes), so this client does only that: it
writes the request in one piece and reads the status line, the headers it needs
(``Content-Length``, ``Transfer-Encoding: chunked``, ``Content-Type``, ``Connection``) and
the body. Uploads (a chart sent as a photo) go through aiohttp still
(:class:`bot.transport.request.AiohttpRequest`).

Errors are the ones :class:`bot.transport.request.AiohttpRequest` turns into PTB's: ``TimeoutError``
when no full answer came in time (the connection is closed: an answer that comes later must
not be read as the next one's), :class:`HttpError` for anything else that went wrong.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from dataclasses import dataclass
from typing import Final, cast
from urllib.parse import urlsplit

__all__ = ["HttpClient", "HttpError", "Response"]

MAX_HEAD: Final = 64 * 1024
"""The most bytes a status line and headers may take."""
MAX_BODY: Final = 64 * 1024 * 1024
"""The most bytes an answer's body may take."""


class HttpError(Exception):
    """The request failed: no connection, a connection lost, an answer that is no HTTP."""


@dataclass(frozen=True, slots=True)
class Response:
    """An HTTP answer: status, content type (lower case, without parameters) and body."""

    status: int
    content_type: str
    body: bytes
    reason: str


class _Connection(asyncio.Protocol):
    """One connection to the server, carrying one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        # the loop the connection lives on (made by it, used on it alone): asked once, not
        # at every request (Python 3.11 asks the kernel for the process id each time)
        self.loop = asyncio.get_running_loop()
        self.closed = False
        self._buffer = bytearray()
        self._waiter: asyncio.Future[Response] | None = None
        # the answer being read
        self._head: tuple[int, str, str, bool] | None = None
        """(status, reason, content type, keep the connection) once the head is read."""
        self._length: int | None = None
        self._chunked = False
        self._body = bytearray()

    # -------------------------------------------------------------- asyncio's callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are no subclasses of asyncio's, but have the same methods
        self.transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            if self._head is not None and self._length is None and not self._chunked:
                # an answer that ends with its connection
                waiter.set_result(self._response(bytes(self._buffer)))
            else:
                reason = f": {exc}" if exc is not None else ""
                waiter.set_exception(HttpError(f"the server closed the connection{reason}"))
        self._waiter = None

    def data_received(self, data: bytes) -> None:
        if self._waiter is None:
            # nothing was asked: the server talks out of turn; the connection is not reused
            self.close()
            return
        self._buffer += data
        try:
            self._parse()
        except HttpError as exc:
            waiter = self._waiter
            self.close()
            if waiter is not None and not waiter.done():
                waiter.set_exception(exc)

    # -------------------------------------------------------------- one exchange

    def send(self, data: bytes) -> asyncio.Future[Response]:
        """Write one request; the future gets its answer."""
        assert self.transport is not None and self._waiter is None
        self._waiter = self.loop.create_future()
        self._head = None
        self._length = None
        self._chunked = False
        self._body.clear()
        self.transport.write(data)
        return self._waiter

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _response(self, body: bytes) -> Response:
        assert self._head is not None
        status, reason, content_type, _ = self._head
        return Response(status, content_type, body, reason)

    def _parse(self) -> None:
        buffer = self._buffer
        if self._head is None:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > MAX_HEAD:
                    raise HttpError("the answer's headers are too long")
                return
            self._read_head(bytes(buffer[:end]).decode("latin-1"))
            del buffer[: end + 4]
        if self._chunked:
            if not self._read_chunks():
                return
            body = bytes(self._body)
        elif self._length is not None:
            if len(buffer) < self._length:
                return
            body = bytes(buffer[: self._length])
            del buffer[: self._length]
        else:
            if len(buffer) > MAX_BODY:
                raise HttpError("the answer is too long")
            return  # read until the server closes the connection
        waiter = self._waiter
        assert self._head is not None
        keep = self._head[3] and not buffer
        self._waiter = None
        if not keep:
            self.close()
        if waiter is not None and not waiter.done():
            waiter.set_result(self._response(body))

    def _read_head(self, head: str) -> None:
        lines = head.split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise HttpError(f"no HTTP answer: {lines[0][:80]!r}")
        status = int(parts[1])
        reason = parts[2] if len(parts) > 2 else ""
        keep = parts[0] == "HTTP/1.1"
        content_type = ""
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep:
                continue
            name = name.strip().lower()
            value = value.strip()
            if name == "content-length":
                if not value.isdigit() or int(value) > MAX_BODY:
                    raise HttpError(f"a bad Content-Length: {value[:40]!r}")
                self._length = int(value)
            elif name == "transfer-encoding":
                self._chunked = value.lower().endswith("chunked")
            elif name == "content-type":
                content_type = value.split(";", 1)[0].strip().lower()
            elif name == "connection":
                tokens = {t.strip() for t in value.lower().split(",")}
                if "close" in tokens:
                    keep = False
                elif "keep-alive" in tokens:
                    keep = True
        if self._chunked:
            self._length = None
        elif self._length is None and (status in (204, 304) or 100 <= status < 200):
            self._length = 0
        elif self._length is None:
            keep = False  # the body ends with the connection
        self._head = (status, reason, content_type, keep)

    def _read_chunks(self) -> bool:
        """Move whole chunks from the buffer to the body; True once the last one came."""
        buffer = self._buffer
        while True:
            end = buffer.find(b"\r\n")
            if end < 0:
                return False
            size_text = bytes(buffer[:end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise HttpError(f"a bad chunk size: {size_text[:20]!r}") from None
            if size == 0:
                # the last chunk, then (trailers and) an empty line
                trailer_end = buffer.find(b"\r\n\r\n", end)
                if trailer_end < 0:
                    return False
                del buffer[: trailer_end + 4]
                return True
            if len(buffer) < end + 2 + size + 2:
                return False
            self._body += buffer[end + 2 : end + 2 + size]
            if len(self._body) > MAX_BODY:
                raise HttpError("the answer is too long")
            del buffer[: end + 2 + size + 2]


class HttpClient:
    """Kept-alive connections to Bot API servers, at most ``limit`` open at once to each."""

    def __init__(self, *, limit: int = 256, user_agent: str = "durak-bot") -> None:
        self._limit = limit
        self._user_agent = user_agent
        self._idle: dict[tuple[str, str, int], deque[_Connection]] = {}
        self._open: dict[tuple[str, str, int], int] = {}
        self._free: dict[tuple[str, str, int], deque[asyncio.Future[None]]] = {}
        self._ssl: ssl.SSLContext | None = None
        self._targets: dict[str, tuple[tuple[str, str, int], str, str]] = {}
        self.closed = False

    def _target(self, url: str) -> tuple[tuple[str, str, int], str, str]:
        """(scheme, host, port), the request's path, and its Host header, for a URL."""
        found = self._targets.get(url)
        if found is None:
            parts = urlsplit(url)
            scheme = parts.scheme.lower()
            if scheme not in ("http", "https") or not parts.hostname:
                raise HttpError(f"not an http(s) URL: {parts.scheme}://{parts.hostname}")
            port = parts.port or (443 if scheme == "https" else 80)
            path = parts.path or "/"
            if parts.query:
                path += "?" + parts.query
            host = parts.hostname
            shown = f"[{host}]" if ":" in host else host
            header = shown if parts.port is None else f"{shown}:{port}"
            found = ((scheme, host, port), path, header)
            if len(self._targets) < 1024:  # the bot's URLs: one per method
                self._targets[url] = found
        return found

    async def post(
        self,
        url: str,
        body: bytes,
        *,
        content_type: str = "application/json",
        connect_timeout: float | None = None,
        pool_timeout: float | None = None,
        read_timeout: float | None = None,
    ) -> Response:
        """POST ``body`` to ``url``; the answer. ``read_timeout``: the most seconds from
        the request written until its whole answer came."""
        if self.closed:
            raise HttpError("the client is closed")
        key, path, host = self._target(url)
        request = (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {self._user_agent}\r\n"
            f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            "Connection: keep-alive\r\n\r\n"
        ).encode("latin-1") + body
        connection = await self._connection(key, connect_timeout, pool_timeout)
        try:
            answer = connection.send(request)
            timer = (
                connection.loop.call_later(read_timeout, _time_out, answer)
                if read_timeout is not None
                else None
            )
            try:
                response = await answer
            finally:
                if timer is not None:
                    timer.cancel()
        except BaseException:
            connection.close()  # its answer may still come: never read as another's
            self._release(key, connection)
            raise
        self._release(key, connection)
        return response

    async def _connection(
        self, key: tuple[str, str, int], connect_timeout: float | None, pool_timeout: float | None
    ) -> _Connection:
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if not connection.closed and not (
                connection.transport is None or connection.transport.is_closing()
            ):
                return connection
            self._open[key] -= 1  # closed by the server while idle
        if self._open.get(key, 0) >= self._limit:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._free.setdefault(key, deque()).append(waiter)
            try:
                await asyncio.wait_for(waiter, pool_timeout)
            except TimeoutError:
                raise TimeoutError("no connection free in time") from None
            return await self._connection(key, connect_timeout, pool_timeout)
        self._open[key] = self._open.get(key, 0) + 1
        scheme, host, port = key
        context: ssl.SSLContext | None = None
        if scheme == "https":
            if self._ssl is None:
                self._ssl = ssl.create_default_context()
            context = self._ssl
        loop = asyncio.get_running_loop()
        try:
            _, connection = await asyncio.wait_for(
                loop.create_connection(
                    _Connection, host, port, ssl=context, server_hostname=host if context else None
                ),
                connect_timeout,
            )
        except TimeoutError:
            self._lost(key)
            raise
        except OSError as exc:
            self._lost(key)
            raise HttpError(f"cannot connect to {host}:{port}: {exc}") from exc
        except BaseException:
            self._lost(key)
            raise
        return connection

    def _lost(self, key: tuple[str, str, int]) -> None:
        self._open[key] -= 1
        self._wake(key)

    def _wake(self, key: tuple[str, str, int]) -> None:
        waiting = self._free.get(key)
        while waiting:
            waiter = waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def _release(self, key: tuple[str, str, int], connection: _Connection) -> None:
        if connection.closed or self.closed:
            self._open[key] -= 1
        else:
            self._idle.setdefault(key, deque()).append(connection)
        self._wake(key)

    async def close(self) -> None:
        """Close every idle connection; those in use close when their answer came."""
        self.closed = True
        for idle in self._idle.values():
            for connection in idle:
                connection.close()
            idle.clear()
        await asyncio.sleep(0)  # the transports' close callbacks run


def _time_out(answer: asyncio.Future[Response]) -> None:
    if not answer.done():
        answer.set_exception(TimeoutError("no answer in time"))
