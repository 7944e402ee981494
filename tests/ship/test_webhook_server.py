"""The webhook server alone: secret checked, bad requests refused, keep-alive, health."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from fake_telegram import DEFAULT_TOKEN, SECRET_HEADER, post_update

from bot.app import build_application
from bot.base.config import Settings
from bot.service.inbox import Inbox
from bot.store import SqliteStore
from bot.transport.webhook import WebhookServer

SECRET = "s3cret-token_XYZ"
UPDATE = {
    "update_id": 7,
    "message": {
        "message_id": 1,
        "date": 0,
        "chat": {"id": 5, "type": "private", "first_name": "Ann"},
        "from": {"id": 5, "is_bot": False, "first_name": "Ann"},
        "text": "/help",
    },
}


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[WebhookServer]:
    settings = Settings(bot_token=DEFAULT_TOKEN, db_path=tmp_path / "db.sqlite3")
    app = build_application(settings)
    hook = WebhookServer(app, "/hook", SECRET)
    await hook.start("127.0.0.1", 0)
    try:
        yield hook
    finally:
        await hook.close()


def url(server: WebhookServer, path: str = "/hook") -> str:
    return f"http://127.0.0.1:{server.port}{path}"


async def test_only_posts_with_the_secret_are_queued(server: WebhookServer) -> None:
    queue: asyncio.Queue[Any] = server.app.update_queue
    assert await post_update(url(server), UPDATE) == 403
    assert await post_update(url(server), UPDATE, "wrong") == 403
    assert await post_update(url(server), UPDATE, SECRET[:-1]) == 403
    assert queue.empty() and server.refused == 3
    assert await post_update(url(server), UPDATE, SECRET) == 200
    update = queue.get_nowait()
    assert update.update_id == 7 and update.message.text == "/help"


async def test_bad_requests(server: WebhookServer) -> None:
    headers = {SECRET_HEADER: SECRET}
    async with aiohttp.ClientSession() as http:
        async with http.post(url(server, "/other"), json=UPDATE, headers=headers) as r:
            assert r.status == 404
        async with http.get(url(server)) as r:
            assert r.status == 405 and r.headers["Allow"] == "POST"
        async with http.post(url(server), data=b"{not json", headers=headers) as r:
            assert r.status == 400
        async with http.post(url(server), data=b"[1, 2]", headers=headers) as r:
            assert r.status == 400
        async with http.get(url(server, "/healthz")) as r:
            assert r.status == 503, "the application is not running"
    assert server.app.update_queue.empty()


async def test_a_body_too_large_is_refused_unread(server: WebhookServer) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    head = f"POST /hook HTTP/1.1\r\n{SECRET_HEADER}: {SECRET}\r\nContent-Length: {2 << 20}"
    writer.write(f"{head}\r\n\r\n".encode())
    await writer.drain()
    answer = await reader.readuntil(b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 413 ") and b"Connection: close" in answer
    writer.close()


async def test_keep_alive(server: WebhookServer) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    body = json.dumps(UPDATE).encode()
    request = (
        f"POST /hook HTTP/1.1\r\nHost: x\r\n{SECRET_HEADER}: {SECRET}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    for _ in range(2):
        writer.write(request)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK") and b"keep-alive" in head
    writer.close()
    assert server.app.update_queue.qsize() == 2


async def test_a_post_is_kept_before_it_is_answered_and_a_copy_is_dropped(tmp_path: Path) -> None:
    settings = Settings(bot_token=DEFAULT_TOKEN, db_path=tmp_path / "db.sqlite3")
    app = build_application(settings)
    hook = WebhookServer(app, "/hook", SECRET, durable=True)
    await hook.start("127.0.0.1", 0)
    try:
        store = await SqliteStore.open(tmp_path / "db.sqlite3")
        hook.attach(Inbox(store))
        assert await post_update(url(hook), UPDATE, SECRET) == 200
        assert [u.update_id for u in await store.pending_updates()] == [7], "kept first"
        assert app.update_queue.qsize() == 1
        # Telegram posts it again (our answer was lost): answered, not queued twice
        assert await post_update(url(hook), UPDATE, SECRET) == 200
        assert app.update_queue.qsize() == 1
        # one that cannot be kept is refused, for Telegram to post it again later
        await store.close()
        assert await post_update(url(hook), {**UPDATE, "update_id": 8}, SECRET) == 503
        assert app.update_queue.qsize() == 1
    finally:
        await hook.close()
