"""The thin path of the Bot API calls (``bot.transport.request.call``): what it sends, what
it returns, and that every answer of Telegram's, a refusal or a failure, raises exactly
what PTB's typed methods raise for it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from telegram import Bot
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.ext import ExtBot

from bot.render.limits import MAX_TEXT
from bot.transport.pacing import Pacer, Pacing, use_timedelta_periods
from bot.transport.request import AiohttpRequest, call, loads

TOKEN = "123:abc"


@dataclass
class Scripted:
    """A Bot API server that answers each call with the next scripted answer (status, body
    or None for no answer in time), and keeps what it was sent."""

    answers: list[tuple[int, bytes | None, str]] = field(default_factory=list)
    seen: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    url: str = ""

    async def handle(self, request: web.Request) -> web.Response:
        self.seen.append((request.match_info["method"], request.content_type, await request.json()))
        status, body, content_type = self.answers.pop(0)
        if body is None:
            await asyncio.sleep(5)  # longer than the client waits
            body = b"{}"
        return web.Response(status=status, body=body, content_type=content_type)


@pytest.fixture
async def server() -> AsyncIterator[Scripted]:
    scripted = Scripted()
    app = web.Application()
    app.router.add_post("/bot{token}/{method}", scripted.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    scripted.url = f"http://127.0.0.1:{port}/bot"
    try:
        yield scripted
    finally:
        await runner.cleanup()


async def _bot(url: str, limiter: Pacer | None = None) -> ExtBot[None]:
    bot: ExtBot[None] = ExtBot(TOKEN, base_url=url, request=AiohttpRequest(), rate_limiter=limiter)
    await bot.request.initialize()
    return bot


def _answer(status: int, payload: object) -> tuple[int, bytes, str]:
    return status, json.dumps(payload).encode(), "application/json"


MESSAGE = {
    "message_id": 77,
    "date": 1700000000,
    "chat": {"id": 5, "type": "private", "first_name": "Ann"},
    "text": "Your hand",
    "reply_markup": {"inline_keyboard": [[{"text": "7♠", "callback_data": "1t.x"}]]},
}

REFUSALS = [
    _answer(
        400,
        {
            "ok": False,
            "error_code": 400,
            "description": "Bad Request: message is "
            "not modified: specified new message content and reply markup are exactly "
            "the same",
        },
    ),
    _answer(
        400,
        {"ok": False, "error_code": 400, "description": "Bad Request: message to edit not found"},
    ),
    _answer(
        403,
        {"ok": False, "error_code": 403, "description": "Forbidden: bot was blocked by the user"},
    ),
    _answer(
        429,
        {
            "ok": False,
            "error_code": 429,
            "description": "Too Many Requests: retry after 7",
            "parameters": {"retry_after": 7},
        },
    ),
    _answer(
        400,
        {
            "ok": False,
            "error_code": 400,
            "description": "Bad Request: group chat was upgraded to a supergroup chat",
            "parameters": {"migrate_to_chat_id": -1001234},
        },
    ),
    _answer(
        409,
        {
            "ok": False,
            "error_code": 409,
            "description": "Conflict: terminated by other getUpdates request",
        },
    ),
    _answer(401, {"ok": False, "error_code": 401, "description": "Unauthorized"}),
    _answer(500, {"ok": False, "error_code": 500, "description": "Internal Server Error"}),
    (502, b"<html><body>502 Bad Gateway</body></html>", "text/html"),
    (400, b"not json at all", "application/json"),
]


@pytest.mark.parametrize("answer", REFUSALS, ids=lambda a: f"{a[0]}-{a[1][:40]!r}")
async def test_a_refusal_raises_what_ptb_raises(server: Scripted, answer: Any) -> None:
    use_timedelta_periods()
    bot = await _bot(server.url)
    raised: list[TelegramError] = []
    try:
        for way in ("typed", "thin", "result unread"):
            server.answers.append(answer)
            with pytest.raises(TelegramError) as caught:
                if way == "typed":
                    await bot.edit_message_text("x", chat_id=5, message_id=77)
                else:
                    await call(
                        bot,
                        "editMessageText",
                        {"chat_id": 5, "message_id": 77, "text": "x"},
                        result=way == "thin",
                    )
            raised.append(caught.value)
    finally:
        await bot.request.shutdown()
    typed, thin_one, unread = raised
    assert type(unread) is type(thin_one) and str(unread) == str(thin_one)
    assert type(thin_one) is type(typed)
    assert str(thin_one) == str(typed)
    if isinstance(typed, RetryAfter):
        assert isinstance(thin_one, RetryAfter) and thin_one.retry_after == typed.retry_after
    if isinstance(typed, ChatMigrated):
        assert isinstance(thin_one, ChatMigrated)
        assert thin_one.new_chat_id == typed.new_chat_id == -1001234
    if isinstance(typed, ChatMigrated):
        expected: type[TelegramError] = ChatMigrated
    else:
        expected = {
            400: BadRequest,
            403: Forbidden,
            429: RetryAfter,
            409: Conflict,
            401: InvalidToken,
            500: NetworkError,
            502: NetworkError,
        }[answer[0]]
    assert isinstance(thin_one, expected)


async def test_no_answer_in_time_is_timed_out(server: Scripted) -> None:
    bot = await _bot(server.url)
    server.answers.append((200, None, "application/json"))
    try:
        with pytest.raises(TimedOut):
            await call(bot, "deleteMessage", {"chat_id": 5, "message_id": 1}, read_timeout=0.2)
    finally:
        await bot.request.shutdown()


async def test_a_message_comes_back_as_plain_json_and_parameters_go_as_given(
    server: Scripted,
) -> None:
    bot = await _bot(server.url)
    server.answers.append(_answer(200, {"ok": True, "result": MESSAGE}))
    server.answers.append(_answer(200, {"ok": True, "result": True}))
    markup = {"inline_keyboard": [[{"text": "7♠ «é»", "callback_data": "1t.x"}]]}
    try:
        sent = await call(
            bot,
            "sendMessage",
            {
                "chat_id": 5,
                "text": "<b>Ваш</b> ход",
                "reply_markup": markup,
                "message_thread_id": None,
            },
        )
        answered = await call(
            bot,
            "answerCallbackQuery",
            {"callback_query_id": "q1", "text": None, "show_alert": False},
        )
    finally:
        await bot.request.shutdown()
    assert sent == MESSAGE and answered is True
    (m1, type1, params1), (m2, _, params2) = server.seen
    assert (m1, type1) == ("sendMessage", "application/json")
    # None is left out, as PTB leaves it out; the rest arrives as it was given
    assert params1 == {"chat_id": 5, "text": "<b>Ваш</b> ход", "reply_markup": markup}
    assert (m2, params2) == (
        "answerCallbackQuery",
        {"callback_query_id": "q1", "show_alert": False},
    )


async def test_it_passes_the_rate_limiter_which_cuts_a_text_too_long(server: Scripted) -> None:
    pacer = Pacer(Pacing(private_interval=0.2, private_burst=1))
    bot = await _bot(server.url, pacer)
    for _ in range(3):
        server.answers.append(_answer(200, {"ok": True, "result": True}))
    loop = asyncio.get_running_loop()
    try:
        began = loop.time()
        for _ in range(2):
            await call(bot, "editMessageText", {"chat_id": 5, "message_id": 1, "text": "a"})
        paced = loop.time() - began
        await call(
            bot,
            "editMessageText",
            {"chat_id": 5, "message_id": 1, "text": "x" * (MAX_TEXT + 50)},
        )
    finally:
        await bot.request.shutdown()
    # the second edit of the chat waited for its budget (one per 0.2 s, no burst)
    assert paced >= 0.15
    assert len(server.seen[2][2]["text"]) <= MAX_TEXT


async def test_another_network_layer_goes_ptb_s_way() -> None:
    class Answering(Bot):
        async def _post(self, endpoint: str, data: Any = None, **kwargs: Any) -> Any:
            return {"endpoint": endpoint, "data": data, **kwargs}

    bot = Answering(TOKEN)
    got = await call(
        bot, "deleteMessage", {"chat_id": 1, "message_id": 2, "x": None}, read_timeout=3.0
    )
    assert got == {
        "endpoint": "deleteMessage",
        "data": {"chat_id": 1, "message_id": 2},
        "read_timeout": 3.0,
    }


def test_loads_reads_broken_utf8_as_ptb_does() -> None:
    assert loads(b'{"ok": true, "result": "caf\xc3\xa9"}') == {"ok": True, "result": "café"}
    assert loads(b'{"ok": true, "result": "a\xffb"}') == {"ok": True, "result": "a\ufffdb"}
    with pytest.raises(ValueError):
        loads(b"<html>")


@pytest.mark.parametrize(
    "body",
    [
        b'{"ok":true,"result":{"message_id":77,"text":"' + b"x" * 3000 + b'"}}',
        b'{"ok": true, "result": true}',
        b'  {\n "ok" : true }',
    ],
)
async def test_a_success_whose_result_nobody_reads_is_true(server: Scripted, body: bytes) -> None:
    bot = await _bot(server.url)
    server.answers.append((200, body, "application/json"))
    try:
        got = await call(bot, "editMessageText", {"chat_id": 5, "text": "x"}, result=False)
    finally:
        await bot.request.shutdown()
    assert got is True


@pytest.mark.parametrize("body", [b"<html>ok</html>", b'{"ok":false}', b'{"okay":true}'])
async def test_a_200_that_is_no_success_is_read_as_ptb_reads_it(
    server: Scripted, body: bytes
) -> None:
    bot = await _bot(server.url)
    outcomes: list[str] = []
    try:
        for way in ("typed", "result unread"):
            server.answers.append((200, body, "application/json"))
            try:
                if way == "typed":
                    await bot.delete_message(5, 1)
                else:
                    await call(bot, "deleteMessage", {"chat_id": 5, "message_id": 1}, result=False)
                outcomes.append("returned")
            except (TelegramError, KeyError) as exc:
                outcomes.append(f"{type(exc).__name__}: {exc}")
    finally:
        await bot.request.shutdown()
    assert outcomes[0] == outcomes[1] != "returned"
