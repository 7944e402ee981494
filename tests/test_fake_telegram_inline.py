"""Inline mode in the fake Bot API server, driven by the real python-telegram-bot over HTTP:
inline queries and answerInlineQuery, Telegram's cache of answers, the chosen result's
message "via @bot", presses on it (inline_message_id, no message) and its edits."""

from __future__ import annotations

import asyncio
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
    InlineAnswer,
    InlineQuery,
    Limits,
    running,
)
from telegram import (
    Bot,
    ChosenInlineResult,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Message,
    Update,
    WebAppInfo,
)
from telegram.error import BadRequest, RetryAfter
from telegram.ext import (
    CallbackQueryHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

QUERY_TOO_OLD = "(?i)query is too old and response timeout expired or query id is invalid"


class ManualClock:
    """A clock that moves only when told."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    """A fake Telegram without flood control (the flood test sets its own)."""
    async with FakeTelegramServer(limits=Limits.off()) as fake:
        yield fake


@pytest.fixture
async def bot(server: FakeTelegramServer) -> AsyncIterator[Bot]:
    """A real PTB bot talking to the fake over HTTP (no polling)."""
    app = server.application_builder().build()
    async with app:
        yield app.bot


@pytest.fixture
def clock(server: FakeTelegramServer) -> ManualClock:
    """Inline query ages and cached answers on a stopped clock."""
    manual = ManualClock()
    server.set_clock(manual, limits=False)
    return manual


def join_keyboard(data: str = "join:7") -> InlineKeyboardMarkup:
    """The invitation's keyboard: its button names the table."""
    return InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data=data)]])


def article(
    result_id: str = "t7",
    title: str = "New table",
    text: str = "Ann invites you to Durak",
    keyboard: InlineKeyboardMarkup | None = None,
    *,
    parse_mode: str | None = None,
    **kwargs: Any,
) -> InlineQueryResultArticle:
    """An article result sending ``text`` with ``keyboard``."""
    content = InputTextMessageContent(text, parse_mode=parse_mode)
    return InlineQueryResultArticle(result_id, title, content, reply_markup=keyboard, **kwargs)


async def pending(server: FakeTelegramServer, text: str) -> InlineQuery:
    """The newest inline query with ``text`` the bot has not answered yet."""

    def find() -> InlineQuery | None:
        for query in reversed(server.inline_queries):
            if query.query == text and not query.answered and not query.expired:
                return query
        return None

    return await server.wait_for(find, what=f"an inline query {text!r}")


async def ask(
    server: FakeTelegramServer,
    bot: Bot,
    user: FakeUser,
    chat: FakeChat,
    text: str,
    results: list[InlineQueryResultArticle],
    **answer: Any,
) -> InlineAnswer:
    """The user types ``@bot text`` in ``chat``; the bot answers with ``results``."""
    task = asyncio.create_task(server.inline_query(user, chat, text))
    query = await pending(server, text)
    assert await bot.answer_inline_query(query.id, results, **answer)
    return await task


async def raw_call(server: FakeTelegramServer, method: str, **params: Any) -> dict[str, Any]:
    """A Bot API call with a JSON body, as any HTTP client may send it."""
    url = f"{server.base_url}{server.token}/{method}"
    async with aiohttp.ClientSession() as session, session.post(url, json=params) as response:
        body: dict[str, Any] = await response.json()
        return body


async def group_without_bot(server: FakeTelegramServer) -> tuple[FakeChat, FakeUser, FakeUser]:
    """A group of Ann and Bob the bot is not in."""
    ann, bob = await server.create_users("Ann", "Bob")
    group = await server.create_group("Friends", members=[ann, bob], creator=ann, bot_status=LEFT)
    return group, ann, bob


def updates_of(server: FakeTelegramServer, kind: str) -> list[dict[str, Any]]:
    """Every update of one kind queued for the bot."""
    return [update[kind] for update in server.updates if kind in update]


# ---- the whole round trip through a PTB Application -------------------------------------


async def test_ptb_application_invites_through_inline_mode(server: FakeTelegramServer) -> None:
    seen: dict[str, Any] = {}

    async def invite(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Answers with a personal, uncached invitation whose button names the table."""
        query = update.inline_query
        assert query is not None
        seen["chat_type"] = query.chat_type
        name = query.from_user.first_name
        await query.answer(
            [
                article(
                    text=f"<b>{name}</b> invites you to Durak",
                    parse_mode="HTML",
                    keyboard=join_keyboard(),
                    description="2-6 players",
                )
            ],
            is_personal=True,
            cache_time=0,
        )

    async def chosen(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        seen["chosen"] = update.chosen_inline_result

    async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A press on the invitation: no message, no chat; the bot answers with a link to
        itself and edits the invitation by its inline_message_id."""
        query = update.callback_query
        assert query is not None
        seen.update(
            message=query.message,
            chat=update.effective_chat,
            inline_message_id=query.inline_message_id,
            chat_instance=query.chat_instance,
        )
        await query.answer(url=f"https://t.me/{context.bot.username}?start=join7")
        seen["edited"] = await query.edit_message_text(
            f"{query.from_user.first_name} joined table 7", reply_markup=join_keyboard("leave:7")
        )

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        await update.effective_message.reply_text(f"Welcome {' '.join(context.args or [])}")

    async def message(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        seen.setdefault("messages", []).append(update.effective_message)

    app = server.application_builder().build()
    app.add_handler(InlineQueryHandler(invite))
    app.add_handler(ChosenInlineResultHandler(chosen))
    app.add_handler(CallbackQueryHandler(pressed))
    app.add_handler(CommandHandler("start", start))
    app.add_handler(MessageHandler(filters.ALL, message))
    group, ann, bob = await group_without_bot(server)
    server.inline_feedback = 1  # BotFather's /setinlinefeedback: 100%
    async with running(app):
        assert app.bot.supports_inline_queries
        results = await server.inline_query(ann, group, "new")
        assert not results.cached and results.query is not None
        [result] = results
        assert (result.id, result.title, result.description) == ("t7", "New table", "2-6 players")
        assert result.plain_text == "Ann invites you to Durak" and result.entities
        assert result.find_button("Join").callback_data == "join:7"
        assert seen["chat_type"] == "group"

        sent = await server.choose_inline_result(ann, group, results, "t7")
        assert sent.sender is ann and sent.via_bot is server.bot_user
        assert sent.inline_message_id is not None and not sent.from_bot
        assert server.inline_message(sent.inline_message_id) is sent
        chosen_result: ChosenInlineResult = await server.wait_for(lambda: seen.get("chosen"))
        assert chosen_result.result_id == "t7" and chosen_result.query == "new"
        assert chosen_result.inline_message_id == sent.inline_message_id
        assert chosen_result.from_user.id == ann.id

        press = await server.press(bob, sent, "Join")
        answer = await press.answer()
        assert answer.url == "https://t.me/durak_test_bot?start=join7"
        await server.wait_for(lambda: sent.plain_text == "Bob joined table 7", what="the edit")
        assert seen["message"] is None and seen["chat"] is None
        assert seen["inline_message_id"] == sent.inline_message_id
        assert seen["chat_instance"]
        assert await server.wait_for(lambda: seen.get("edited")) is True  # not a Message
        assert sent.history[0].text == "<b>Ann</b> invites you to Durak"
        assert sent.find_button("Join").callback_data == "leave:7"

        await server.open_link(bob, answer.url)  # he follows the link: /start join7
        await server.wait_for_message(bob.id, lambda m: m.text == "Welcome join7")
        await server.settle()
    assert "messages" not in seen or all(m.chat.id == bob.id for m in seen["messages"])
    assert server.internal_errors == [] and server.rate_limited == []


# ---- inline queries ------------------------------------------------------------------


async def test_inline_query_update_and_chat_types(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, bob = await group_without_bot(server)
    supergroup = await server.create_supergroup("Club", members=[ann])
    channel = await server.create_channel("News", creator=ann)
    places = {
        "group": group,
        "supergroup": supergroup,
        "channel": channel,
        "private": await server.create_private_chat(ann, bob),
        "sender": await server.create_private_chat(ann),  # his Saved Messages
    }
    for expected, place in places.items():
        answer = await server.inline_query(ann, place, "hi", timeout=0.01)
        assert answer.timed_out and list(answer) == []
        assert updates_of(server, "inline_query")[-1]["chat_type"] == expected
    # the bot's own private chat with him is "private" too (the chat is not the sender's)
    await server.inline_query(ann, server.private_chat(ann), "hi", timeout=0.01)
    update = updates_of(server, "inline_query")[-1]
    assert update["chat_type"] == "private"
    assert set(update) == {"id", "from", "query", "offset", "chat_type"}
    assert update["from"]["id"] == ann.id and update["query"] == "hi" and update["offset"] == ""
    outsider = await server.create_user("Eve")
    with pytest.raises(ValueError, match="may not write"):
        await server.inline_query(outsider, group, "hi")
    with pytest.raises(ValueError, match="not in private chat"):
        await server.inline_query(outsider, places["private"], "hi")
    with pytest.raises(ValueError, match="may not write"):
        await server.inline_query(bob, channel, "hi")  # only its admins post


async def test_inline_mode_off_sends_nothing(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, _ = await group_without_bot(server)
    assert (await bot.get_me()).supports_inline_queries
    server.inline_mode = False  # BotFather's /setinline: off
    assert not (await bot.get_me()).supports_inline_queries
    answer = await server.inline_query(ann, group, "new")
    assert list(answer) == [] and answer.query is None and not answer.timed_out
    assert updates_of(server, "inline_query") == []


async def test_late_answer_is_refused_and_shows_nothing(
    server: FakeTelegramServer, bot: Bot, clock: ManualClock
) -> None:
    group, ann, _ = await group_without_bot(server)
    answer = await server.inline_query(ann, group, "slow", timeout=0.05)  # the bot is slow
    assert answer.timed_out and len(answer) == 0 and answer.query is not None
    with pytest.raises(BadRequest, match=QUERY_TOO_OLD):
        await bot.answer_inline_query(answer.query.id, [article()])
    # on the server's clock: older than inline_timeout (10 s) is too old
    task = asyncio.create_task(server.inline_query(ann, group, "later", timeout=0.3))
    query = await pending(server, "later")
    clock.now += server.inline_timeout + 0.5
    with pytest.raises(BadRequest, match=QUERY_TOO_OLD):
        await bot.answer_inline_query(query.id, [article()])
    assert (await task).timed_out
    with pytest.raises(BadRequest, match=QUERY_TOO_OLD):
        await bot.answer_inline_query("12345", [article()])  # never sent


async def test_answering_twice_is_refused(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, _ = await group_without_bot(server)
    task = asyncio.create_task(server.inline_query(ann, group, "new"))
    query = await pending(server, "new")
    assert await bot.answer_inline_query(query.id, [article()], cache_time=0)
    with pytest.raises(BadRequest, match=QUERY_TOO_OLD):
        await bot.answer_inline_query(query.id, [article()])
    assert [r.id for r in await task] == ["t7"]


# ---- Telegram's cache of answers -----------------------------------------------------


async def test_cached_answer_is_served_to_anyone_without_an_update(
    server: FakeTelegramServer, bot: Bot, clock: ManualClock
) -> None:
    group, ann, bob = await group_without_bot(server)
    first = await ask(server, bot, ann, group, "new", [article(keyboard=join_keyboard())])
    assert not first.cached and first.cache_time == 300 and not first.is_personal
    queries = len(updates_of(server, "inline_query"))
    elsewhere = await server.create_private_chat(bob, ann)
    again = await server.inline_query(bob, elsewhere, "new")  # Bob, another chat, same text
    assert again.cached and again.query is None and again.query_id == first.query_id
    assert [r.id for r in again] == ["t7"] and again[0].plain_text == "Ann invites you to Durak"
    assert len(updates_of(server, "inline_query")) == queries, "the bot was not asked"
    # Bob sends Ann's invitation: the button names the same table for both
    sent = await server.choose_inline_result(bob, elsewhere, again)
    assert sent.find_button("Join").callback_data == "join:7" and sent.sender is bob
    # another text is asked anew; after cache_time the same text is too
    await server.inline_query(bob, group, "other", timeout=0.01)
    assert len(updates_of(server, "inline_query")) == queries + 1
    clock.now += 299
    assert (await server.inline_query(bob, group, "new")).cached
    clock.now += 1
    assert (await server.inline_query(bob, group, "new", timeout=0.01)).timed_out
    assert len(updates_of(server, "inline_query")) == queries + 2


async def test_personal_answer_is_cached_for_its_user_only(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, bob = await group_without_bot(server)
    mine = await ask(server, bot, ann, group, "new", [article()], is_personal=True)
    assert mine.is_personal
    assert (await server.inline_query(ann, group, "new")).cached  # his own, again
    before = len(updates_of(server, "inline_query"))
    task = asyncio.create_task(server.inline_query(bob, group, "new"))
    query = await pending(server, "new")
    assert query.user is bob and len(updates_of(server, "inline_query")) == before + 1
    await bot.answer_inline_query(query.id, [article("t8", text="Bob invites you")], cache_time=0)
    assert [r.id for r in await task] == ["t8"]
    # cache_time 0: nothing kept; Bob is asked again
    await server.inline_query(bob, group, "new", timeout=0.01)
    assert len(updates_of(server, "inline_query")) == before + 2


async def test_pages_and_the_button_above_the_results(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, _ = await group_without_bot(server)
    first = await ask(
        server,
        bot,
        ann,
        group,
        "tables",
        [article(str(n), f"Table {n}") for n in range(50)],
        next_offset="50",
        button=InlineQueryResultsButton("Open the bot", start_parameter="inline"),
        cache_time=0,
    )
    assert len(first) == 50 and first.next_offset == "50"
    assert first.button == {"text": "Open the bot", "start_parameter": "inline"}
    task = asyncio.create_task(server.inline_query(ann, group, "tables", offset=first.next_offset))
    query = await pending(server, "tables")
    assert query.offset == "50" and updates_of(server, "inline_query")[-1]["offset"] == "50"
    await bot.answer_inline_query(query.id, [article("50", "Table 50")], cache_time=0)
    assert [r.title for r in await task] == ["Table 50"]
    assert first.start_parameter == "inline"
    await server.start_bot(ann, first.start_parameter)  # he presses the button
    assert updates_of(server, "message")[-1]["text"] == "/start inline"


# ---- answerInlineQuery's checks ------------------------------------------------------


async def test_answer_inline_query_is_checked_as_telegram_checks_it(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, _ = await group_without_bot(server)
    task = asyncio.create_task(server.inline_query(ann, group, "new", timeout=5))
    query = await pending(server, "new")

    async def refused(match: str, results: list[Any], **answer: Any) -> None:
        with pytest.raises(BadRequest, match=match):
            await bot.answer_inline_query(query.id, results, **answer)

    await refused("Too many inline query results specified", [article(str(n)) for n in range(51)])
    await refused("Result_id_duplicate", [article("a"), article("a")])
    await refused("Result_id_invalid", [article("x" * 65)])
    await refused("Article_title_empty", [article(title="")])
    await refused("Message_too_long", [article(text="ж" * 4097)])
    await refused("Button_data_invalid", [article(keyboard=join_keyboard("x" * 65))])
    web_app = InlineKeyboardMarkup(
        [[InlineKeyboardButton("Play", web_app=WebAppInfo("https://example.com/app"))]]
    )
    await refused("Button_type_invalid", [article(keyboard=web_app)])
    await refused("Next_offset_invalid", [article()], next_offset="9" * 65)
    await refused(
        "Unallowed characters in start_parameter are used",
        [article()],
        button=InlineQueryResultsButton("Open", start_parameter="a b"),
    )
    await refused("Text must be non-empty", [article(text="  ")])
    for body, said in (
        ({"type": "article", "id": "1", "input_message_content": {"message_text": "x"}},
         'can\'t parse inline query result: Can\'t find field "title"'),
        ({"type": "article", "id": "1", "title": "T",
          "input_message_content": {"message_text": ""}},
         "can't parse inline query result: Input message content is not specified"),
        ({"type": "article", "id": "1", "title": "T", "message_text": ""},
         "can't parse inline query result: Message text is empty"),
        ({"type": "article", "id": "1", "title": "T", "input_message_content":
          {"message_text": "<b>x", "parse_mode": "HTML"}},
         "can't parse inline query result: Can't parse entities"),
        ({"type": "poll", "id": "1"},
         'can\'t parse inline query result: type "poll" is unsupported'),
    ):  # fmt: skip
        reply = await raw_call(
            server, "answerInlineQuery", inline_query_id=query.id, results=[body]
        )
        assert reply["error_code"] == 400 and reply["description"].startswith(
            f"Bad Request: {said}"
        ), reply
    reply = await raw_call(
        server,
        "answerInlineQuery",
        inline_query_id=query.id,
        results=[],
        button={"text": "Open"},
    )
    assert reply["description"] == (
        "Bad Request: can't parse inline query results button: "
        "InlineQueryResultsButton must have exactly one optional field"
    )
    assert not query.answered, "a refused answer answers nothing"
    assert await bot.answer_inline_query(query.id, [article(text="ж" * 4096)], cache_time=0)
    assert (await task)[0].plain_text == "ж" * 4096


# ---- the chosen result's message -----------------------------------------------------


async def test_chosen_message_reaches_the_bot_only_where_it_is(
    server: FakeTelegramServer, bot: Bot
) -> None:
    ann, bob = await server.create_users("Ann", "Bob")
    await server.start_bot(ann)
    with_bot = await server.create_supergroup("Club", members=[ann, bob])  # privacy mode on
    without_bot = await server.create_group("Friends", members=[ann, bob], bot_status=LEFT)
    between = await server.create_private_chat(ann, bob)
    own = server.private_chat(ann)
    for place in (with_bot, without_bot, between, own):
        answer = await ask(server, bot, ann, place, f"in {place.id}", [article()], cache_time=0)
        sent = await server.choose_inline_result(ann, place, answer)
        assert sent.inline_message_id is None, "no keyboard: no inline_message_id"
        assert sent.to_api()["via_bot"]["id"] == server.bot_user.id
    delivered = [u["chat"]["id"] for u in updates_of(server, "message") if "via_bot" in u]
    assert delivered == [with_bot.id, own.id]  # "Messages sent via this bot"
    assert updates_of(server, "chosen_inline_result") == [], "inline feedback is off"
    assert [m.chat for m in server.inline_messages()] == [with_bot, without_bot, between, own]
    assert server.messages(between)[0].sender is ann
    with pytest.raises(ValueError, match="shown to Ann"):
        await server.choose_inline_result(bob, between, answer)


async def test_inline_feedback_reports_chosen_results(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, _ = await group_without_bot(server)
    server.inline_feedback = True
    plain = await ask(server, bot, ann, group, "plain", [article()], cache_time=0)
    await server.choose_inline_result(ann, group, plain)
    invite = await ask(server, bot, ann, group, "new", [article(keyboard=join_keyboard())])
    sent = await server.choose_inline_result(ann, group, invite, 0)
    first, second = updates_of(server, "chosen_inline_result")
    assert first == {"result_id": "t7", "from": first["from"], "query": "plain"}
    assert second["inline_message_id"] == sent.inline_message_id and second["query"] == "new"
    assert "chat" not in second, "the bot learns not where it was sent"
    with pytest.raises(ValueError):
        server.inline_feedback = 2


# ---- presses on inline messages ------------------------------------------------------


async def test_press_on_inline_message_has_no_message(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, bob = await group_without_bot(server)
    other = await server.create_private_chat(ann, bob)
    answer = await ask(server, bot, ann, group, "new", [article(keyboard=join_keyboard())])
    sent = await server.choose_inline_result(ann, group, answer)
    await server.press(bob, sent, "Join")
    await server.press(ann, sent, "Join")
    copy_answer = await server.inline_query(ann, other, "new")  # cached: same results
    copy = await server.choose_inline_result(ann, other, copy_answer)
    await server.press(bob, copy, "Join")
    first, second, third = updates_of(server, "callback_query")
    assert set(first) == {"id", "from", "inline_message_id", "chat_instance", "data"}
    assert first["inline_message_id"] == sent.inline_message_id and first["data"] == "join:7"
    assert first["chat_instance"] == second["chat_instance"] != third["chat_instance"]
    assert copy.inline_message_id != sent.inline_message_id
    outsider = await server.create_user("Eve")
    with pytest.raises(ValueError, match="not a member"):
        await server.press(outsider, sent, "Join")


async def test_answer_callback_query_url_opens_only_this_bot(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, bob = await group_without_bot(server)
    answer = await ask(server, bot, ann, group, "new", [article(keyboard=join_keyboard())])
    sent = await server.choose_inline_result(ann, group, answer)
    for url in (
        "https://example.com",
        "https://t.me/other_bot?start=x",
        "https://t.me/durak_test_bot",
        "tg://resolve?domain=durak_test_bot&start=x",
    ):
        press = await server.press(bob, sent, "Join")
        with pytest.raises(BadRequest, match="Url_invalid"):
            await bot.answer_callback_query(press.query_id, url=url)
    press = await server.press(bob, sent, "Join")
    assert await bot.answer_callback_query(press.query_id, url="t.me/Durak_Test_Bot?start=j7")
    assert (await press.answer()).url == "t.me/Durak_Test_Bot?start=j7"


# ---- edits by inline_message_id ------------------------------------------------------


async def test_edits_by_inline_message_id(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, _ = await group_without_bot(server)
    answer = await ask(server, bot, ann, group, "new", [article(keyboard=join_keyboard())])
    sent = await server.choose_inline_result(ann, group, answer)
    iid = sent.inline_message_id
    assert iid is not None
    edited = await bot.edit_message_text(
        "<b>Bob</b> joined", inline_message_id=iid, parse_mode="HTML", reply_markup=join_keyboard()
    )
    assert edited is True and sent.plain_text == "Bob joined" and sent.edit_count == 1
    assert sent.entities == [{"type": "bold", "offset": 0, "length": 3}]
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text(
            "<b>Bob</b> joined",
            inline_message_id=iid,
            parse_mode="HTML",
            reply_markup=join_keyboard(),
        )
    assert await bot.edit_message_reply_markup(inline_message_id=iid, reply_markup=None) is True
    assert sent.buttons == [] and len(sent.history) == 2
    web_app = InlineKeyboardMarkup(
        [[InlineKeyboardButton("Play", web_app=WebAppInfo("https://example.com/app"))]]
    )
    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await bot.edit_message_reply_markup(inline_message_id=iid, reply_markup=web_app)
    with pytest.raises(BadRequest, match=MESSAGE_ID_INVALID.capitalize()):
        await bot.edit_message_text("x", inline_message_id=iid[:-4] + "AAAA")  # unknown
    with pytest.raises(BadRequest, match="Invalid inline message identifier specified"):
        await bot.edit_message_text("x", inline_message_id="not-an-id!")
    with pytest.raises(BadRequest, match="Message identifier is not specified"):
        await bot.edit_message_text("x")
    # deleteMessage has no inline_message_id parameter
    reply = await raw_call(server, "deleteMessage", inline_message_id=iid)
    assert reply["description"] == "Bad Request: chat_id is empty" and not sent.deleted


async def test_web_app_buttons_are_refused_in_an_inline_message_even_in_private(
    server: FakeTelegramServer, bot: Bot
) -> None:
    ann = await server.create_user("Ann")
    own = server.private_chat(ann)
    answer = await ask(server, bot, ann, own, "new", [article(keyboard=join_keyboard())])
    sent = await server.choose_inline_result(ann, own, answer)
    web_app = InlineKeyboardMarkup(
        [[InlineKeyboardButton("Play", web_app=WebAppInfo("https://example.com/app"))]]
    )
    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await bot.edit_message_text(
            "x", inline_message_id=sent.inline_message_id, reply_markup=web_app
        )
    delivered = updates_of(server, "message")[-1]
    assert delivered["via_bot"]["username"] == "durak_test_bot"
    parsed = Message.de_json(delivered, bot)
    assert parsed.via_bot is not None and parsed.via_bot.id == server.bot_user.id


async def test_edit_fails_once_the_message_or_its_chat_is_deleted(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, bob = await group_without_bot(server)
    between = await server.create_private_chat(ann, bob)
    sent = {}
    for place in (group, between):
        answer = await ask(
            server, bot, ann, place, f"in {place.id}", [article(keyboard=join_keyboard())]
        )
        sent[place.id] = await server.choose_inline_result(ann, place, answer)
    await server.delete_message(group, sent[group.id], by=ann)
    with pytest.raises(BadRequest, match=MESSAGE_ID_INVALID.capitalize()):
        await bot.edit_message_text("x", inline_message_id=sent[group.id].inline_message_id)
    await server.delete_chat(between, by=bob)
    with pytest.raises(BadRequest, match=MESSAGE_ID_INVALID.capitalize()):
        await bot.edit_message_text("x", inline_message_id=sent[between.id].inline_message_id)
    with pytest.raises(ValueError, match="deleted"):
        await server.press(bob, sent[between.id], "Join")
    assert server.inline_messages() == []
    assert len(server.inline_messages(include_deleted=True)) == 2
    fresh = await server.create_private_chat(ann, bob)  # they write again: a new chat
    assert fresh is not between and not fresh.deleted


async def test_inline_edits_count_against_the_chat_they_are_in() -> None:
    async with FakeTelegramServer(limits=Limits.telegram()) as server:
        app = server.application_builder().build()
        async with app:
            bot = app.bot
            ann, bob = await server.create_users("Ann", "Bob")
            await server.start_bot(ann)
            group = await server.create_supergroup("Club", members=[ann, bob])  # with the bot
            between = await server.create_private_chat(ann, bob)
            sent = {}
            for place in (group, between):
                answer = await ask(
                    server, bot, ann, place, f"in {place.id}", [article(keyboard=join_keyboard())]
                )
                sent[place.id] = await server.choose_inline_result(ann, place, answer)
            # a group's 20 a minute, shared with the bot's own sends there
            for n in range(15):
                await bot.send_message(group.id, f"move {n}")
            group_id = sent[group.id].inline_message_id
            for n in range(5):
                await bot.edit_message_text(f"round {n}", inline_message_id=group_id)
            with pytest.raises(RetryAfter) as refused:
                await bot.edit_message_text("round 5", inline_message_id=group_id)
            assert refused.value.retry_after.total_seconds() >= 50  # type: ignore[union-attr]
            with pytest.raises(RetryAfter):
                await bot.send_message(group.id, "move 15")
            # a private chat's one a second (burst 4), apart from the group's
            between_id = sent[between.id].inline_message_id
            for n in range(4):
                await bot.edit_message_text(f"turn {n}", inline_message_id=between_id)
            with pytest.raises(RetryAfter):
                await bot.edit_message_text("turn 4", inline_message_id=between_id)
            await bot.send_message(ann.id, "the bot's own chat with Ann is not affected")
            assert len(server.rate_limited) == 3
            # a 429 forced on the group reaches its inline edits too
            server.reset_limits()
            server.force_429(chat=group)
            with pytest.raises(RetryAfter):
                await bot.edit_message_text("forced", inline_message_id=group_id)
            assert server.rate_limited[-1].forced
