"""The fake Bot API's sendPhoto: multipart uploads, captions, and Telegram's rules for a
photo (at most 10 MB; width + height at most 10000; ratio at most 20), driven by a real
PTB bot over both of its network layers."""

from __future__ import annotations

import struct
import zlib
from collections.abc import AsyncIterator

import pytest
from fake_telegram import FakeTelegramServer, Limits
from telegram import Bot
from telegram.error import BadRequest
from telegram.request import BaseRequest, HTTPXRequest

from bot.transport.request import AiohttpRequest


def png(width: int, height: int, padding: int = 0) -> bytes:
    """A real PNG of that size (black and white, one bit a pixel); ``padding`` bytes of an
    ancillary chunk make it as big as wanted."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    row = b"\x00" + b"\x55" * ((width + 7) // 8)
    pixels = zlib.compress(row * height, 9)
    head = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    extra = chunk(b"zzZz", b"\x00" * padding) if padding else b""
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", head)
        + extra
        + chunk(b"IDAT", pixels)
        + chunk(b"IEND", b"")
    )


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    async with FakeTelegramServer(limits=Limits.off()) as fake:
        yield fake


@pytest.fixture(params=["aiohttp", "httpx"])
async def bot(request: pytest.FixtureRequest, server: FakeTelegramServer) -> AsyncIterator[Bot]:
    """A real PTB bot over the bot's own aiohttp layer, or PTB's httpx one."""
    network: BaseRequest = (
        AiohttpRequest(read_timeout=20)
        if request.param == "aiohttp"
        else HTTPXRequest(read_timeout=20, write_timeout=20)
    )
    app = server.application_builder().request(network).build()
    async with app:
        yield app.bot


async def test_a_photo_with_its_caption_arrives(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await server.create_user("Ann")
    await server.start_bot(ann)
    picture = png(1080, 600)
    sent = await bot.send_photo(
        ann.id, photo=picture, caption="<b>Ann</b> · 1523", parse_mode="HTML"
    )
    assert sent.caption == "Ann · 1523"
    assert [e.type for e in sent.caption_entities] == ["bold"]
    assert (sent.photo[-1].width, sent.photo[-1].height) == (1080, 600)
    stored = server.last_message(server.private_chat(ann))
    assert stored is not None and stored.photo == picture and stored.plain_text == "Ann · 1523"
    # the file id sends it again, no upload needed
    again = await bot.send_photo(ann.id, photo=sent.photo[-1].file_id)
    assert again.photo[-1].file_id == sent.photo[-1].file_id and again.caption is None
    # a photo message has no text to edit
    with pytest.raises(BadRequest, match="no text in the message to edit"):
        await bot.edit_message_text("x", chat_id=ann.id, message_id=sent.message_id)


@pytest.mark.parametrize(
    ("width", "height"),
    [(5000, 5000), (2000, 100), (100, 2000)],
)
async def test_photos_at_the_limits_are_taken(
    server: FakeTelegramServer, bot: Bot, width: int, height: int
) -> None:
    ann = await server.create_user("Ann")
    await server.start_bot(ann)
    sent = await bot.send_photo(ann.id, photo=png(width, height))
    assert (sent.photo[-1].width, sent.photo[-1].height) == (width, height)


@pytest.mark.parametrize(
    ("picture", "error"),
    [
        (png(5001, 5000), "PHOTO_INVALID_DIMENSIONS"),  # width + height over 10000
        (png(2001, 100), "PHOTO_INVALID_DIMENSIONS"),  # wider than 20 times its height
        (png(50, 1001), "PHOTO_INVALID_DIMENSIONS"),
        (png(100, 100, padding=10 * 1024 * 1024), "PHOTO_SAVE_FILE_INVALID"),  # over 10 MB
        (b"GIF89a not what it says", "IMAGE_PROCESS_FAILED"),
    ],
)
async def test_photos_telegram_refuses(
    server: FakeTelegramServer, bot: Bot, picture: bytes, error: str
) -> None:
    ann = await server.create_user("Ann")
    await server.start_bot(ann)
    with pytest.raises(BadRequest, match=f"(?i){error}"):  # PTB capitalises it
        await bot.send_photo(ann.id, photo=picture)
    assert server.last_message(server.private_chat(ann)) is None or not any(
        m.photo for m in server.bot_messages(server.private_chat(ann))
    )


async def test_a_caption_is_at_most_1024_characters(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await server.create_user("Ann")
    await server.start_bot(ann)
    await bot.send_photo(ann.id, photo=png(10, 10), caption="<b>x</b>" * 1024, parse_mode="HTML")
    with pytest.raises(BadRequest, match="caption is too long"):
        await bot.send_photo(ann.id, photo=png(10, 10), caption="x" * 1025)
    with pytest.raises(BadRequest, match=r"(?i)wrong file identifier"):
        await bot.send_photo(ann.id, photo="no-such-file-id")
