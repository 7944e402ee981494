"""Guest mode (Bot API 10.0) in the fake Bot API server, driven by the real
python-telegram-bot over HTTP: a user's ``@bot`` in a chat the bot is not in, the
guest_message update, answerGuestQuery posting the bot's answer as a guest, and that answer
as an inline message (presses with inline_message_id and no message, edits by its id)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from fake_telegram import (
    LEFT,
    MESSAGE_ID_INVALID,
    FakeChat,
    FakeTelegramServer,
    FakeUser,
    Limits,
    running,
)
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    SentGuestMessage,
    Update,
    WebAppInfo,
)
from telegram.error import BadRequest, RetryAfter, TelegramError
from telegram.ext import CallbackQueryHandler, ContextTypes, MessageHandler, filters

QUERY_TOO_OLD = "(?i)query is too old and response timeout expired or query id is invalid"
MENTION = "@durak_test_bot"


class ManualClock:
    """A clock that moves only when told."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    """A fake Telegram with guest mode on and no flood control."""
    async with FakeTelegramServer(limits=Limits.off(), guest_mode=True) as fake:
        yield fake


@pytest.fixture
async def bot(server: FakeTelegramServer) -> AsyncIterator[Bot]:
    """A real PTB bot talking to the fake over HTTP (no polling)."""
    app = server.application_builder().build()
    async with app:
        yield app.bot


def join_keyboard(data: str = "join:7") -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data=data)]])


def article(
    text: str = "A table of Durak",
    keyboard: InlineKeyboardMarkup | None = None,
    *,
    result_id: str = "t7",
    title: str = "New table",
    parse_mode: str | None = None,
) -> InlineQueryResultArticle:
    content = InputTextMessageContent(text, parse_mode=parse_mode)
    return InlineQueryResultArticle(result_id, title, content, reply_markup=keyboard)


async def group_without_bot(server: FakeTelegramServer) -> tuple[FakeChat, FakeUser, FakeUser]:
    """A group of Ann and Bob the bot is not in."""
    ann, bob = await server.create_users("Ann", "Bob")
    group = await server.create_group("Friends", members=[ann, bob], creator=ann, bot_status=LEFT)
    return group, ann, bob


def updates_of(server: FakeTelegramServer, kind: str) -> list[dict[str, Any]]:
    return [update[kind] for update in server.updates if kind in update]


async def raw_call(server: FakeTelegramServer, method: str, **params: Any) -> dict[str, Any]:
    """A Bot API call with a JSON body, as any HTTP client may send it."""
    url = f"{server.base_url}{server.token}/{method}"
    async with aiohttp.ClientSession() as session, session.post(url, json=params) as response:
        body: dict[str, Any] = await response.json()
        return body


# ---- the whole round trip through a PTB Application -------------------------------------


async def test_ptb_application_answers_a_guest_query(server: FakeTelegramServer) -> None:
    seen: dict[str, Any] = {}

    async def guest(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.guest_message
        assert message is not None and message.guest_query_id is not None
        seen["message"] = message
        seen["sent"] = await context.bot.answer_guest_query(
            message.guest_query_id,
            article(
                f"<b>{message.from_user.first_name}</b> opens a table",
                join_keyboard(),
                parse_mode="HTML",
            ),
        )

    async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        seen.update(press_message=query.message, inline_message_id=query.inline_message_id)
        await query.answer()
        seen["edited"] = await query.edit_message_text(
            f"{query.from_user.first_name} joined table 7", reply_markup=join_keyboard("leave:7")
        )

    app = server.application_builder().build()
    app.add_handler(MessageHandler(filters.UpdateType.GUEST_MESSAGE, guest))
    app.add_handler(CallbackQueryHandler(pressed))
    group, ann, bob = await group_without_bot(server)
    async with running(app):
        assert (await app.bot.get_me()).supports_guest_queries
        query = await server.mention_guest(ann, group, f"{MENTION} let's play")
        assert query.sent and query.message.plain_text == f"{MENTION} let's play"
        assert query.message.sender is ann and group.messages[query.message.message_id]
        reply = await query.wait_reply()
        assert query.answered and query.reply is reply
        # posted by the bot itself, as a guest, in answer to Ann's message
        assert reply.sender is server.bot_user and reply.from_bot and reply.via_bot is None
        assert reply.chat is group and reply.reply_to == query.message.message_id
        assert reply.plain_text == "Ann opens a table"
        api = reply.to_api()
        assert api["guest_bot_caller_user"]["id"] == ann.id
        assert "guest_bot_caller_chat" not in api and "via_bot" not in api
        assert api["reply_to_message"]["message_id"] == query.message.message_id
        got = seen["message"]
        assert got.guest_query_id == query.id and got.chat.id == group.id
        assert got.from_user.id == ann.id and got.text == f"{MENTION} let's play"
        assert got.guest_bot_caller_user is None and got.guest_bot_caller_chat is None
        sent: SentGuestMessage = await server.wait_for(lambda: seen.get("sent"))
        assert sent.inline_message_id == reply.inline_message_id
        assert server.inline_message(sent.inline_message_id) is reply

        press = await server.press(bob, reply, "Join")
        await press.answer()
        await server.wait_for(lambda: reply.plain_text == "Bob joined table 7", what="the edit")
        assert seen["press_message"] is None
        assert seen["inline_message_id"] == reply.inline_message_id
        assert await server.wait_for(lambda: seen.get("edited")) is True  # not a Message
        assert reply.find_button("Join").callback_data == "leave:7"
        await server.settle()
    assert updates_of(server, "message") == []  # the bot is not in the group
    assert server.internal_errors == [] and server.rate_limited == []


# ---- the guest query -------------------------------------------------------------------


async def test_guest_message_update_as_telegram_bot_api_writes_it(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, bob = await group_without_bot(server)
    first = await server.send_text(bob, group, "who plays?")
    query = await server.mention_guest(ann, group, f"me and {MENTION}", reply_to=first)
    [update] = updates_of(server, "guest_message")
    assert update["guest_query_id"] == query.id and update["message_id"] == query.message.message_id
    assert update["from"]["id"] == ann.id and update["chat"] == group.to_api()
    assert update["text"] == f"me and {MENTION}"
    assert update["entities"] == [{"type": "mention", "offset": 7, "length": len(MENTION)}]
    # the replied message comes along (updateBotGuestChatQuery.reference_messages)
    assert update["reply_to_message"]["message_id"] == first.message_id
    assert not {"guest_bot_caller_user", "guest_bot_caller_chat"} & set(update)
    assert server.guest_queries == [query] and not query.answered


async def test_where_a_guest_query_is_made(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, bob = await group_without_bot(server)
    supergroup = await server.create_supergroup("Club", members=[ann, bob], bot_status=LEFT)
    between = await server.create_private_chat(ann, bob)
    saved = await server.create_private_chat(ann)  # his Saved Messages
    for place in (group, supergroup, between, saved):
        query = await server.mention_guest(ann, place, f"{MENTION} hi")
        assert query.sent, place
    assert len(updates_of(server, "guest_message")) == 4
    assert updates_of(server, "message") == []

    # a member gets the mention as an ordinary message (privacy mode lets mentions by)
    with_bot = await server.create_group("Home", members=[ann, bob], creator=ann)
    await server.start_bot(ann)
    for place in (with_bot, server.private_chat(ann)):
        query = await server.mention_guest(ann, place, f"{MENTION} hi")
        assert not query.sent and query.id is None
        with pytest.raises(ValueError, match="no guest query"):
            await query.wait_reply()
    messages = [m["chat"]["id"] for m in updates_of(server, "message")]
    assert with_bot.id in messages and ann.id in messages
    assert len(updates_of(server, "guest_message")) == 4

    # content protection: no guest bots
    await server.protect_content(supergroup)
    assert not (await server.mention_guest(bob, supergroup, f"{MENTION} hi")).sent
    await server.protect_content(supergroup, False)
    assert (await server.mention_guest(bob, supergroup, f"{MENTION} hi")).sent

    with pytest.raises(ValueError, match="does not mention"):
        await server.mention_guest(ann, group, "@other_bot hi")
    channel = await server.create_channel("News", creator=ann)
    with pytest.raises(ValueError):
        await server.mention_guest(ann, channel, f"{MENTION} hi")
    outsider = await server.create_user("Eve")
    with pytest.raises(ValueError, match="not a member"):
        await server.mention_guest(outsider, group, f"{MENTION} hi")


async def test_guest_mode_is_off_unless_botfather_turned_it_on() -> None:
    async with FakeTelegramServer(limits=Limits.off()) as server:
        app = server.application_builder().build()
        async with app:
            assert (await app.bot.get_me()).supports_guest_queries is False
            group, ann, _ = await group_without_bot(server)
            query = await server.mention_guest(ann, group, f"{MENTION} hi")
            assert not query.sent and group.messages[query.message.message_id]
            assert updates_of(server, "guest_message") == []
            server.guest_mode = True
            assert (await app.bot.get_me()).supports_guest_queries is True
            assert (await server.mention_guest(ann, group, f"{MENTION} hi")).sent


async def test_a_server_older_than_bot_api_10_knows_no_guest_mode() -> None:
    async with FakeTelegramServer(limits=Limits.off(), guest_mode=True, api_version=(9, 6)) as tg:
        app = tg.application_builder().build()
        async with app:
            assert (await app.bot.get_me()).supports_guest_queries is None
            group, ann, _ = await group_without_bot(tg)
            assert not (await tg.mention_guest(ann, group, f"{MENTION} hi")).sent
            with pytest.raises(TelegramError, match="Not Found"):
                await app.bot.answer_guest_query("1", article())


# ---- answerGuestQuery ------------------------------------------------------------------


async def test_answer_guest_query_is_checked_as_telegram_checks_it(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, _ = await group_without_bot(server)
    query = await server.mention_guest(ann, group, f"{MENTION} play")
    assert query.id is not None

    async def refused(match: str, result: Any) -> None:
        with pytest.raises(BadRequest, match=match):
            await bot.answer_guest_query(query.id, result)  # type: ignore[arg-type]

    web_app = InlineKeyboardMarkup(
        [[InlineKeyboardButton("Play", web_app=WebAppInfo("https://example.com/app"))]]
    )
    await refused("Button_type_invalid", article(keyboard=web_app))
    await refused("Button_data_invalid", article(keyboard=join_keyboard("x" * 65)))
    await refused("Article_title_empty", article(title=""))
    await refused("Message_too_long", article("ж" * 4097))
    await refused("Result_id_invalid", article(result_id="x" * 65))
    await refused("Text must be non-empty", article("  "))
    await refused("Can't parse entities", article("<b>open", parse_mode="HTML"))
    for body, said in (
        ({}, "Result isn't specified"),
        ({"result": "{"}, "can't parse JSON encoded web view query results"),
        ({"result": {"type": "article", "id": "1"}}, 'can\'t find field "message_text"'),
        (
            {"result": {"type": "article", "id": "1", "message_text": "x"}},
            'can\'t find field "title"',
        ),
        ({"result": {"type": "chess", "id": "1"}}, 'type "chess" is unsupported'),
        ({"result": [1]}, "inline query result must be an object"),
    ):
        answer = await raw_call(server, "answerGuestQuery", guest_query_id=query.id, **body)
        assert not answer["ok"] and answer["error_code"] == 400
        assert said.lower() in answer["description"].lower(), (body, answer)
    assert not query.answered and server.bot_messages(group) == []


async def test_unknown_answered_and_late_queries_are_refused(
    server: FakeTelegramServer, bot: Bot
) -> None:
    clock = ManualClock()
    server.set_clock(clock, limits=False)
    group, ann, bob = await group_without_bot(server)
    with pytest.raises(BadRequest, match=QUERY_TOO_OLD):
        await bot.answer_guest_query("12345", article())  # never sent
    query = await server.mention_guest(ann, group, f"{MENTION} play")
    assert query.id is not None
    await bot.answer_guest_query(query.id, article())
    with pytest.raises(BadRequest, match=QUERY_TOO_OLD):
        await bot.answer_guest_query(query.id, article())  # answered already
    late = await server.mention_guest(bob, group, f"{MENTION} play")
    assert late.id is not None
    clock.now += server.guest_timeout + 0.5
    with pytest.raises(BadRequest, match=QUERY_TOO_OLD):
        await bot.answer_guest_query(late.id, article())
    with pytest.raises(TimeoutError):
        await late.wait_reply(timeout=0.01)
    gone = await server.mention_guest(bob, group, f"{MENTION} play")
    assert gone.id is not None
    await server.delete_message(group, gone.message)  # Bob took it back
    with pytest.raises(BadRequest, match=QUERY_TOO_OLD):
        await bot.answer_guest_query(gone.id, article())
    assert server.bot_messages(group) == [query.reply]


async def test_the_answer_is_an_inline_message(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, bob = await group_without_bot(server)
    between = await server.create_private_chat(ann, bob)
    replies = {}
    for place in (group, between):
        query = await server.mention_guest(ann, place, f"{MENTION} play")
        assert query.id is not None
        sent = await bot.answer_guest_query(query.id, article())  # no keyboard: an id all the same
        assert query.reply is not None and sent.inline_message_id == query.reply.inline_message_id
        replies[place.id] = query.reply
    inline_id = replies[group.id].inline_message_id
    assert await bot.edit_message_text("Table 7", inline_message_id=inline_id) is True
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_text("Table 7", inline_message_id=inline_id)
    assert (
        await bot.edit_message_reply_markup(
            inline_message_id=inline_id, reply_markup=join_keyboard()
        )
        is True
    )
    assert replies[group.id].find_button("Join")
    web_app = InlineKeyboardMarkup(
        [[InlineKeyboardButton("Play", web_app=WebAppInfo("https://example.com/app"))]]
    )
    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await bot.edit_message_reply_markup(inline_message_id=inline_id, reply_markup=web_app)
    # either side of a private chat deletes it; an admin in a group
    await server.delete_message(between, replies[between.id], by=bob)
    with pytest.raises(BadRequest, match=MESSAGE_ID_INVALID.capitalize()):
        await bot.edit_message_text("x", inline_message_id=replies[between.id].inline_message_id)
    await server.delete_message(group, replies[group.id], by=ann)
    with pytest.raises(BadRequest, match=MESSAGE_ID_INVALID.capitalize()):
        await bot.edit_message_text("x", inline_message_id=inline_id)


async def test_a_caller_posting_as_a_chat_is_the_guest_bot_caller_chat(
    server: FakeTelegramServer, bot: Bot
) -> None:
    ann, bob = await server.create_users("Ann", "Bob")
    club = await server.create_supergroup("Club", members=[ann, bob], creator=ann, bot_status=LEFT)
    query = await server.mention_guest(ann, club, f"{MENTION} play", anonymous=True)
    assert query.id is not None
    [update] = updates_of(server, "guest_message")
    assert update["sender_chat"]["id"] == club.id
    await bot.answer_guest_query(query.id, article())
    assert query.reply is not None
    api = query.reply.to_api()
    assert api["guest_bot_caller_chat"]["id"] == club.id and "guest_bot_caller_user" not in api


async def test_the_answer_counts_against_the_chat_it_is_posted_in() -> None:
    async with FakeTelegramServer(limits=Limits.telegram(), guest_mode=True) as server:
        app = server.application_builder().build()
        async with app:
            group, ann, _ = await group_without_bot(server)
            queries = [await server.mention_guest(ann, group, f"{MENTION} {n}") for n in range(21)]
            for query in queries[:20]:
                assert query.id is not None
                await app.bot.answer_guest_query(query.id, article())
            assert queries[20].id is not None
            with pytest.raises(RetryAfter):
                await app.bot.answer_guest_query(queries[20].id, article())
            assert not queries[20].answered
