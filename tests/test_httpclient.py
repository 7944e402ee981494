"""The lean HTTP/1.1 client of the Bot API's JSON calls, against a raw TCP server on
127.0.0.1 that answers byte by byte as it is told: bodies by length, in chunks or until the
connection ends, split anywhere; kept-alive connections, reused and dropped; timeouts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from bot.transport.httpclient import HttpClient, HttpError

CLOSE = b"<close>"


@dataclass
class Raw:
    """A TCP server: each connection reads requests (head and Content-Length body) and
    writes what ``answer`` returns for each, in the pieces given, pausing between them."""

    answer: Callable[[int, bytes], list[bytes] | None]
    """(the request's number over all connections, its body) -> the pieces to write (a
    piece :data:`CLOSE` closes the connection there), or None to close the connection
    without a word."""
    requests: list[tuple[int, bytes, bytes]] = field(default_factory=list)
    """(connection number, head, body) of each request read."""
    connections: int = 0
    url: str = ""

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = await reader.readexactly(length)
                self.requests.append((number, head, body))
                pieces = self.answer(len(self.requests), body)
                if pieces is None:
                    break
                for piece in pieces:
                    if piece == CLOSE:
                        await writer.drain()
                        return
                    writer.write(piece)
                    await writer.drain()
                    await asyncio.sleep(0.01)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


Answer = Callable[[int, bytes], list[bytes] | None]


@pytest.fixture
async def raw() -> AsyncIterator[Callable[[Answer], Awaitable[Raw]]]:
    """Starts raw servers (``await raw(answer)``), closed after the test."""
    servers: list[asyncio.Server] = []

    async def start(answer: Answer) -> Raw:
        made = Raw(answer)
        server = await asyncio.start_server(made.serve, "127.0.0.1", 0)
        servers.append(server)
        port = server.sockets[0].getsockname()[1]
        made.url = f"http://127.0.0.1:{port}/bot123:abc/sendMessage"
        return made

    yield start
    for server in servers:
        server.close()


def ok(body: bytes, *extra: str) -> bytes:
    headers = "".join(f"{h}\r\n" for h in extra)
    return (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{headers}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


async def test_a_request_goes_as_one_json_post_and_its_answer_comes_back(raw) -> None:  # type: ignore[no-untyped-def]
    server = await raw(lambda n, body: [ok(b'{"ok":true,"result":' + body + b"}")])
    client = HttpClient(user_agent="test-agent")
    try:
        answer = await client.post(server.url, b'{"x":"\xc3\xa9"}', read_timeout=5)
    finally:
        await client.close()
    assert answer.status == 200 and answer.content_type == "application/json"
    assert json.loads(answer.body) == {"ok": True, "result": {"x": "é"}}
    ((_, head, body),) = server.requests
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /bot123:abc/sendMessage HTTP/1.1"
    assert f"Host: {server.url.split('/')[2]}" in lines
    assert "Content-Type: application/json" in lines and "User-Agent: test-agent" in lines
    assert body == b'{"x":"\xc3\xa9"}'


async def test_a_kept_alive_connection_carries_the_next_requests(raw) -> None:  # type: ignore[no-untyped-def]
    server = await raw(lambda n, body: [ok(b'{"n":%d}' % n)])
    client = HttpClient()
    try:
        got = [json.loads((await client.post(server.url, b"{}")).body)["n"] for _ in range(3)]
    finally:
        await client.close()
    assert got == [1, 2, 3]
    assert server.connections == 1


@pytest.mark.parametrize(
    "pieces",
    [
        # the head and the body split at awkward places
        [
            b"HTTP/1.1 200 OK\r\nContent-Le",
            b"ngth: 11\r\nContent-Type: application/json",
            b"; charset=utf-8\r\n\r",
            b'\n{"a":',
            b'"bcd"}',
        ],
        # chunked, with a chunk split and an extension, then trailers
        [
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n",
            b'Content-Type: application/json\r\n\r\n5;x=y\r\n{"a":\r\n',
            b'6\r\n"bc',
            b'd"}\r\n0\r\nX-Trailer: 1\r\n\r\n',
        ],
        # chunked, the last chunk alone
        [
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json"
            b'\r\n\r\nb\r\n{"a":"bcd"}\r\n',
            b"0\r\n\r\n",
        ],
    ],
    ids=["split", "chunked-trailers", "chunked"],
)
async def test_an_answer_in_pieces_is_read_whole_and_the_connection_kept(raw, pieces) -> None:  # type: ignore[no-untyped-def]
    server = await raw(lambda n, body: pieces)
    client = HttpClient()
    try:
        first = await client.post(server.url, b"{}", read_timeout=5)
        second = await client.post(server.url, b"{}", read_timeout=5)
    finally:
        await client.close()
    for answer in (first, second):
        assert answer.status == 200 and answer.content_type == "application/json"
        assert json.loads(answer.body) == {"a": "bcd"}
    assert server.connections == 1


async def test_an_answer_that_ends_with_its_connection(raw) -> None:  # type: ignore[no-untyped-def]
    # HTTP/1.0 with no length: the body is all that comes until the server closes
    server = await raw(
        lambda n, body: [
            b"HTTP/1.0 502 Bad Gateway\r\nContent-Type: text/html\r\n\r\n<html>bad ",
            b"gateway</html>",
            CLOSE,
        ]
    )
    client = HttpClient()
    try:
        got = await client.post(server.url, b"{}", read_timeout=5)
        again = await client.post(server.url, b"{}", read_timeout=5)
    finally:
        await client.close()
    assert (got.status, got.reason, got.content_type) == (502, "Bad Gateway", "text/html")
    assert got.body == b"<html>bad gateway</html>" and again.body == got.body
    assert server.connections == 2


async def test_connection_close_is_not_reused(raw) -> None:  # type: ignore[no-untyped-def]
    server = await raw(lambda n, body: [ok(b"{}", "Connection: close")])
    client = HttpClient()
    try:
        for _ in range(2):
            assert (await client.post(server.url, b"{}", read_timeout=5)).body == b"{}"
    finally:
        await client.close()
    assert server.connections == 2


async def test_a_connection_the_server_dropped_while_idle_is_not_reused(raw) -> None:  # type: ignore[no-untyped-def]
    server = await raw(lambda n, body: [ok(b'{"n":%d}' % n), CLOSE])
    client = HttpClient()
    try:
        first = await client.post(server.url, b"{}")
        await asyncio.sleep(0.1)  # the server's close arrives while the connection is idle
        second = await client.post(server.url, b"{}")
    finally:
        await client.close()
    assert (first.body, second.body) == (b'{"n":1}', b'{"n":2}')
    assert server.connections == 2


async def test_a_connection_lost_before_the_answer_is_an_error(raw) -> None:  # type: ignore[no-untyped-def]
    server = await raw(lambda n, body: None if n == 1 else [ok(b"{}")])
    client = HttpClient()
    try:
        with pytest.raises(HttpError, match="closed the connection"):
            await client.post(server.url, b"{}", read_timeout=5)
        answer = await client.post(server.url, b"{}", read_timeout=5)  # a new connection
    finally:
        await client.close()
    assert answer.status == 200 and server.connections == 2


async def test_no_answer_in_time_is_a_timeout_and_a_late_answer_is_never_read(raw) -> None:  # type: ignore[no-untyped-def]
    def answer(n: int, body: bytes) -> list[bytes]:
        if n == 1:
            return [
                b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n",
                b"",
                b"",
                b"",
                b"",
                b"",
                b"",
                b"",
                b"",
                b"",
                b"",
                b'{"n":1}\n',
            ]
        return [ok(b'{"n":%d}' % n)]

    server = await raw(answer)
    client = HttpClient()
    try:
        with pytest.raises(TimeoutError):
            await client.post(server.url, b"{}", read_timeout=0.03)
        second = await client.post(server.url, b"{}", read_timeout=5)
    finally:
        await client.close()
    assert json.loads(second.body) == {"n": 2}
    assert server.connections == 2


@pytest.mark.parametrize(
    ("pieces", "said"),
    [
        ([b"SSH-2.0-OpenSSH\r\n\r\n"], "no HTTP answer"),
        ([b"HTTP/1.1 200 OK\r\nContent-Length: x1\r\n\r\n"], "bad Content-Length"),
        ([b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"], "bad chunk size"),
    ],
)
async def test_an_answer_that_is_no_http_is_an_error(raw, pieces, said) -> None:  # type: ignore[no-untyped-def]
    server = await raw(lambda n, body: pieces)
    client = HttpClient()
    try:
        with pytest.raises(HttpError, match=said):
            await client.post(server.url, b"{}", read_timeout=5)
    finally:
        await client.close()


async def test_no_server_is_an_error() -> None:
    probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = probe.sockets[0].getsockname()[1]
    probe.close()
    await probe.wait_closed()
    client = HttpClient()
    try:
        with pytest.raises(HttpError, match="cannot connect"):
            await client.post(f"http://127.0.0.1:{port}/x", b"{}", connect_timeout=5)
    finally:
        await client.close()


async def test_at_most_limit_connections_the_others_wait_their_turn(raw) -> None:  # type: ignore[no-untyped-def]
    server = await raw(lambda n, body: [b"", b"", ok(b'{"n":%d}' % n)])
    client = HttpClient(limit=2)
    try:
        got = await asyncio.gather(
            *(client.post(server.url, b"{}", read_timeout=5) for _ in range(6))
        )
        crowded = await asyncio.gather(
            *(client.post(server.url, b"{}", pool_timeout=0.001, read_timeout=5) for _ in range(3)),
            return_exceptions=True,
        )
    finally:
        await client.close()
    assert sorted(json.loads(a.body)["n"] for a in got) == [1, 2, 3, 4, 5, 6]
    assert sum(isinstance(a, TimeoutError) for a in crowded) == 1
    assert server.connections == 2


def test_only_http_urls() -> None:
    client = HttpClient()
    with pytest.raises(HttpError, match="not an http"):
        asyncio.run(client.post("ftp://example.org/x", b"{}"))


def test_on_uvloop_which_the_bot_runs_on() -> None:
    """uvloop's transports are no subclasses of asyncio's: the same exchanges on its loop
    (kept alive, in chunks, dropped while idle, timed out)."""
    import uvloop

    async def scenario() -> None:
        def answer(n: int, body: bytes) -> list[bytes]:
            if n == 2:
                return [
                    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                    b"3\r\n{}\n\r\n0\r\n\r\n",
                ]
            if n == 3:
                return [ok(b"{}"), CLOSE]
            if n == 4:
                return [b"", b"", b"", b"", b"", ok(b"late")]
            return [ok(b'{"n":%d}' % n)]

        server = Raw(answer)
        listening = await asyncio.start_server(server.serve, "127.0.0.1", 0)
        port = listening.sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{port}/bot1:a/getMe"
        client = HttpClient()
        try:
            assert (await client.post(url, b"{}", read_timeout=5)).body == b'{"n":1}'
            assert (await client.post(url, b"{}", read_timeout=5)).body == b"{}\n"
            assert (await client.post(url, b"{}", read_timeout=5)).body == b"{}"
            await asyncio.sleep(0.1)
            with pytest.raises(TimeoutError):
                await client.post(url, b"{}", read_timeout=0.02)
            assert (await client.post(url, b"{}", read_timeout=5)).body == b'{"n":5}'
        finally:
            await client.close()
            listening.close()
        # one connection for the first three, one for the one that timed out, one after
        assert server.connections == 3

    uvloop.run(scenario())
