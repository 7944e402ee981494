"""The Mini App's HTTP side: the page and its files under the path of DURAK_WEBAPP_URL,
nothing else; frames read at the boundary; the flood bucket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from bot.base.config import Settings
from bot.chat.runtime import Runtime
from bot.service import callbacks as cb
from bot.service.links import StartTokens, start_key
from bot.transport.ordering import TableOrder
from bot.webapp import frames as f
from bot.webapp.hub import Hub
from bot.webapp.server import STATIC, Bucket, WebAppServer

TOKEN = "123456789:AAFakeTelegramTokenForTests-0123456789"


class NoPresses:
    async def press(self, page: object, frame: object) -> dict[str, object]:
        raise AssertionError("no press here")


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[tuple[aiohttp.ClientSession, str]]:
    settings = Settings(
        bot_token=TOKEN,
        DURAK_DB_PATH=tmp_path / "x.sqlite3",
        webapp_url="https://durak.example.com/durak/app/",
    )
    rt = Runtime(settings=settings, codec=cb.CallbackCodec(b"k" * 32), order=TableOrder())
    hub = Hub(rt, None)  # type: ignore[arg-type]
    server = WebAppServer(rt, hub, NoPresses(), tokens=StartTokens(start_key(TOKEN)))
    test = TestServer(server.application())
    await test.start_server()
    async with aiohttp.ClientSession() as session:
        yield session, str(test.make_url("/durak/app"))
    await test.close()


async def test_the_page_under_the_urls_path(http: tuple[aiohttp.ClientSession, str]) -> None:
    session, base = http
    index = (STATIC / "index.html").read_bytes()
    # the files' place written in, so that the browser looks for them there at once
    page = index.replace(b"<head>", b'<head>\n<base href="/durak/app/">', 1)
    assert page != index
    for url in (base, base + "/", base + "?startapp=t1_x&tgWebAppStartParam=t1_x"):
        async with session.get(url) as response:
            assert response.status == 200
            assert response.headers["Content-Type"] == "text/html; charset=utf-8"
            assert response.headers["Cache-Control"] == "no-cache"
            assert await response.read() == page
    async with session.get(base + "/static/index.html") as response:
        assert response.status == 200 and await response.read() == index


@pytest.mark.parametrize(
    "path",
    [
        "/static/",
        "/static/missing.js",
        "/static/../server.py",
        "/static/%2e%2e/server.py",
        "/static/.hidden",
        "/static/a/../../hub.py",
        "/ws/../static/index.html/x",
        "/other",
    ],
)
async def test_nothing_else_is_served(http: tuple[aiohttp.ClientSession, str], path: str) -> None:
    session, base = http
    async with session.get(base + path) as response:
        assert response.status == 404, path
    async with session.get(base.removesuffix("/durak/app") + "/") as response:
        assert response.status == 404, "only the URL's path"


async def test_the_socket_wants_an_upgrade(http: tuple[aiohttp.ClientSession, str]) -> None:
    session, base = http
    async with session.get(base + "/ws") as response:
        assert response.status in (400, 426)


def test_frames_are_read_at_the_boundary() -> None:
    assert f.parse('{"t": "ping"}') == f.Ping()
    assert f.parse('{"t": "press", "press": "1q.1.2.abc", "v": 41}') == f.Press("1q.1.2.abc", 41)
    assert f.parse('{"t": "hello", "init_data": "a=1", "start": "t1_x"}') == f.Hello("a=1", "t1_x")
    assert f.parse('{"t": "hello", "init_data": "a=1"}') == f.Hello("a=1", None)
    assert f.parse('{"t": "later"}') == f.Unknown("later")
    for bad in (
        "",
        "{",
        "null",
        "[]",
        '"ping"',
        '{"t": 5}',
        '{"t": "hello"}',
        '{"t": "press", "press": "x"}',
        '{"t": "press", "press": "x", "v": -1}',
        '{"t": "hello", "init_data": "a", "start": 7}',
    ):
        with pytest.raises(f.FrameError) as caught:
            f.parse(bad)
        assert caught.value.code == 1008, bad
    with pytest.raises(f.FrameError) as caught:
        f.parse('{"t": "ping", "x": "' + "é" * 2048 + '"}')
    assert caught.value.code == 1009, "the limit is in bytes"
    # nested deeper than the parser recurses, within the size limit: malformed, not a crash
    for deep in ("[" * 2000 + "]" * 2000, '{"t": "ping", "x": ' + "[" * 2030 + "]" * 2030 + "}"):
        assert len(deep) <= f.MAX_FRAME
        with pytest.raises(f.FrameError) as caught:
            f.parse(deep)
        assert caught.value.code == 1008


def test_the_bucket_lets_a_person_through_and_stops_a_flood() -> None:
    bucket = Bucket(0.0, rate=20, burst=40, limit=60)
    assert [bucket.take(0.0) for _ in range(40)] == ["ok"] * 40
    assert bucket.take(0.0) == "drop"
    assert bucket.take(0.05) == "drop", "what comes in pays the debt first"
    assert bucket.take(0.2) == "ok"
    later = Bucket(0.0, rate=20, burst=40, limit=60)
    # a person tapping fast for a minute: 10 taps a second
    assert all(later.take(t / 10) == "ok" for t in range(600))
    flood = Bucket(0.0, rate=20, burst=40, limit=60)
    verdicts = [flood.take(0.0) for _ in range(200)]
    assert verdicts.count("ok") == 40 and verdicts[-1] == "close"
    assert verdicts.index("close") == 40 + 60
