"""The fake Bot API server, driven by the real python-telegram-bot over HTTP (no mocks)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from fake_telegram import (
    ADMINISTRATOR,
    GENERAL_TOPIC,
    MESSAGE_CANT_BE_DELETED,
    MESSAGE_CANT_BE_DELETED_FOR_EVERYONE,
    MESSAGE_ID_INVALID,
    SECRET_HEADER,
    FakeTelegramServer,
    FakeUser,
    Faults,
    Limits,
    find_button,
    parse_html,
    parse_text,
    running,
)
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    ReplyParameters,
    Update,
    WebAppInfo,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)
from telegram.request import BaseRequest, HTTPXRequest

AnyApp = Application[Any, Any, Any, Any, Any, Any]


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    """A fake Telegram with the fast (time-scaled) flood limits."""
    async with FakeTelegramServer(limits=Limits.fast()) as fake:
        yield fake


@pytest.fixture
async def bot(server: FakeTelegramServer) -> AsyncIterator[Bot]:
    """A real PTB bot talking to the fake over HTTP (no polling)."""
    app = server.application_builder().build()
    async with app:
        yield app.bot


def keyboard(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    """Inline keyboard from rows of (text, callback_data)."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data) for text, data in row] for row in rows]
    )


async def started_user(server: FakeTelegramServer, name: str = "Ann") -> FakeUser:
    """A user who pressed Start (his /start update is dropped)."""
    user = await server.create_user(name, username=name.lower())
    await server.start_bot(user)
    server.drop_pending_updates()
    return user


# ---- the basics -----------------------------------------------------------------------


async def test_get_me_and_unknown_method_and_bad_token(
    server: FakeTelegramServer, bot: Bot
) -> None:
    me = await bot.get_me()
    assert me.username == "durak_test_bot"
    assert me.is_bot and me.id == server.bot_user.id
    assert not me.can_read_all_group_messages  # privacy mode on, as by default
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("noSuchMethod")
    wrong = Bot("42:wrong", base_url=server.base_url)
    with pytest.raises(InvalidToken):
        await wrong.get_me()
    assert server.calls_to("getMe")[-1].ok


async def test_echo_app_with_button_roundtrip(server: FakeTelegramServer) -> None:
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Greets with a keyboard (and echoes the start payload)."""
        assert update.effective_message is not None
        payload = " ".join(context.args or [])
        await update.effective_message.reply_text(
            f"Hello {payload}".strip(), reply_markup=keyboard([("Play ♥", "play:1")])
        )

    async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Answers the press and edits the message."""
        query = update.callback_query
        assert query is not None
        await query.answer(f"you chose {query.data}", show_alert=True)
        await query.edit_message_text("Chosen", reply_markup=keyboard([("Again", "again")]))

    async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Echoes text."""
        assert update.effective_message is not None and update.effective_message.text
        await update.effective_message.reply_text(update.effective_message.text)

    app = server.application_builder().build()
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(pressed))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
    ann = await server.create_user("Ann", username="ann", language_code="ru")
    async with running(app):
        await server.open_link(ann, "https://t.me/durak_test_bot?start=table42")
        hello = await server.wait_for_message(ann.id, lambda m: m.text == "Hello table42")
        button = find_button(hello, "play")
        assert (button.text, button.callback_data, button.row, button.column) == (
            "Play ♥",
            "play:1",
            0,
            0,
        )
        press = await server.press(ann, hello, "Play")
        answer = await press.answer(timeout=5)
        assert answer.text == "you chose play:1" and answer.show_alert
        await server.wait_for(lambda: hello.text == "Chosen", what="the edit")
        assert hello.edit_count == 1 and hello.history[0].text == "Hello table42"
        assert [b.text for b in hello.button_list] == ["Again"]

        await server.send_text(ann, ann.id, "ping")
        pong = await server.wait_for_message(ann.id, lambda m: m.text == "ping", after=hello)
        assert pong.message_id > hello.message_id
        await server.settle()
    assert server.pending_updates == 0
    assert server.rate_limited == []
    assert server.internal_errors == []


async def test_group_commands_privacy_mode_and_entities(server: FakeTelegramServer) -> None:
    seen: list[str] = []

    async def record(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Records every message text."""
        if update.effective_message and update.effective_message.text:
            seen.append(update.effective_message.text)

    async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Replies to /newgame."""
        assert update.effective_message is not None
        await update.effective_message.reply_text(f"lobby {context.args}")

    app = server.application_builder().build()
    app.add_handler(CommandHandler("newgame", newgame))
    app.add_handler(MessageHandler(filters.ALL, record), group=1)
    ann, bob = await server.create_users("Ann", "Bob")
    group = await server.create_group("Friends", members=[ann, bob], creator=ann)
    async with running(app):
        await server.send_text(bob, group, "just chatting")  # not for the bot: never delivered
        command = await server.send_command(ann, group, "newgame", "fast", mention=True)
        assert command.entities == [
            {"type": "bot_command", "offset": 0, "length": len("/newgame@durak_test_bot")}
        ]
        await server.send_text(bob, group, "/help@other_bot")  # another bot's command
        lobby = await server.wait_for_message(group, lambda m: (m.text or "").startswith("lobby"))
        assert lobby.text == "lobby ['fast']"
        await server.send_text(bob, group, "reply to you", reply_to=lobby)
        await server.wait_for(lambda: "reply to you" in seen)
    assert seen == ["/newgame@durak_test_bot fast", "reply to you"]
    assert server.messages(group, from_bot=False)[0].text == "just chatting"


# ---- errors, as PTB exceptions -----------------------------------------------------------


async def test_edit_errors(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await started_user(server)
    markup = keyboard([("A", "a")])
    sent = await bot.send_message(ann.id, "<b>table</b>", parse_mode="HTML", reply_markup=markup)
    with pytest.raises(BadRequest, match="Message is not modified: specified new message"):
        await bot.edit_message_text(
            "<b>table</b>",
            chat_id=ann.id,
            message_id=sent.message_id,
            parse_mode="HTML",
            reply_markup=markup,
        )
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(ann.id, sent.message_id, reply_markup=markup)
    # Same text, other markup: fine. Same entities from other tags: not modified.
    await bot.edit_message_text(
        "<strong>table</strong>", chat_id=ann.id, message_id=sent.message_id, parse_mode="HTML"
    )
    state = server.message(ann.id, sent.message_id)
    assert state.reply_markup is None and state.text == "<strong>table</strong>"
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text(
            "<b>table</b>", chat_id=ann.id, message_id=sent.message_id, parse_mode="HTML"
        )
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", chat_id=ann.id, message_id=9999)
    assert await bot.delete_message(ann.id, sent.message_id)
    assert state.deleted
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", chat_id=ann.id, message_id=sent.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(ann.id, sent.message_id)
    assert server.messages(ann.id, from_bot=True) == []
    assert server.messages(ann.id, from_bot=True, include_deleted=True) == [state]


@pytest.mark.filterwarnings("ignore:Please use 'Bot.sendMessage'")
async def test_text_and_keyboard_validation(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await started_user(server)
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(ann.id, "x", reply_markup=keyboard([("A", "x" * 65)]))
    await bot.send_message(ann.id, "x", reply_markup=keyboard([("A", "я" * 32)]))  # 64 bytes
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(ann.id, "x", reply_markup=keyboard([("A", "я" * 32 + "z")]))
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(ann.id, "ж" * 4097)
    # Counted after parsing: tags and entities do not count.
    await bot.send_message(ann.id, "<b>" + "&lt;" * 4096 + "</b>", parse_mode="HTML")
    assert server.last_message(ann.id).plain_text == "<" * 4096  # type: ignore[union-attr]
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(ann.id, "  \n ")
    with pytest.raises(BadRequest, match="Can't parse entities: unsupported start tag"):
        await bot.send_message(ann.id, "a<br>b", parse_mode="HTML")
    with pytest.raises(BadRequest, match="can't find end tag"):
        await bot.send_message(ann.id, "<b>open", parse_mode="HTML")
    with pytest.raises(BadRequest, match="text buttons are unallowed"):
        await bot.do_api_request(
            "sendMessage",
            api_kwargs={
                "chat_id": ann.id,
                "text": "x",
                "reply_markup": json.dumps({"inline_keyboard": [[{"text": "no action"}]]}),
            },
        )
    many = [[(str(r * 10 + c), str(r * 10 + c)) for c in range(8)] for r in range(13)]
    with pytest.raises(BadRequest, match="Reply markup is too long"):
        await bot.send_message(ann.id, "x", reply_markup=keyboard(*many))


async def test_url_and_web_app_buttons(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await started_user(server)
    group = await server.create_group("Friends", members=[ann], creator=ann)
    app = InlineKeyboardMarkup(
        [[InlineKeyboardButton("Open", web_app=WebAppInfo("https://example.com/app?startapp=t1"))]]
    )
    link = InlineKeyboardMarkup(
        [[InlineKeyboardButton("Open", url="https://t.me/bot/app?startapp=t1")]]
    )
    sent = await bot.send_message(ann.id, "private", reply_markup=app)
    [[button]] = server.message(ann.id, sent.message_id).buttons
    assert button.web_app == "https://example.com/app?startapp=t1" and not button.pressable
    in_group = await bot.send_message(group.id, "group", reply_markup=link)
    [[button]] = server.message(group.id, in_group.message_id).buttons
    assert button.url == "https://t.me/bot/app?startapp=t1" and button.web_app is None
    # web_app buttons are for private chats only, in a send and in an edit alike
    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await bot.send_message(group.id, "group", reply_markup=app)
    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await bot.edit_message_text(
            "x", chat_id=group.id, message_id=in_group.message_id, reply_markup=app
        )
    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await bot.edit_message_reply_markup(group.id, in_group.message_id, reply_markup=app)
    assert server.message(group.id, in_group.message_id).text == "group", "nothing changed"


async def test_chat_errors(server: FakeTelegramServer, bot: Bot) -> None:
    stranger = await server.create_user("Stranger")
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(stranger.id, "hi")
    ann = await started_user(server)
    await bot.send_message(ann.id, "hi")
    await server.block_bot(ann)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(ann.id, "hi")
    await server.start_bot(ann)  # "Restart": unblocks and sends /start
    await bot.send_message(ann.id, "welcome back")
    kinds = [next(k for k in u if k != "update_id") for u in server.updates]
    assert kinds[-3:] == ["my_chat_member", "my_chat_member", "message"]
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(-100123, "hi")
    group = await server.create_group("Old", members=[ann], creator=ann)
    await bot.send_message(group.id, "before")
    supergroup = await server.migrate_to_supergroup(group)
    with pytest.raises(ChatMigrated) as migrated:
        await bot.send_message(group.id, "after")
    assert migrated.value.new_chat_id == supergroup.id
    await bot.send_message(supergroup.id, "after")
    assert server.last_message(supergroup).text == "after"  # type: ignore[union-attr]
    await server.remove_bot(supergroup, by=ann)
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await bot.send_message(supergroup.id, "still here?")
    # Every update the fake made parses as a PTB Update.
    parsed = [Update.de_json(u, bot) for u in server.updates]
    migration = [p.message for p in parsed if p.message and p.message.migrate_to_chat_id]
    assert migration[0].migrate_to_chat_id == supergroup.id
    assert parsed[-1].my_chat_member is not None
    assert parsed[-1].my_chat_member.new_chat_member.status == "kicked"


async def test_callback_query_answers(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await started_user(server)
    sent = await bot.send_message(ann.id, "pick", reply_markup=keyboard([("A", "a"), ("B", "b")]))
    message = server.message(ann.id, sent.message_id)
    press = await server.press(ann, message, data="b")
    [update] = await bot.get_updates(timeout=0)
    assert update.callback_query is not None
    assert update.callback_query.data == "b" and update.callback_query.from_user.id == ann.id
    assert update.callback_query.message.message_id == sent.message_id  # type: ignore[union-attr]
    assert update.callback_query.id == press.query_id
    assert await update.callback_query.answer("ok")
    assert press.result is not None and press.result.text == "ok"
    with pytest.raises(BadRequest, match="Query is too old"):
        await update.callback_query.answer("twice")
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query("12345")
    with pytest.raises(LookupError, match="buttons: \\[\\('A', 'a'\\), \\('B', 'b'\\)\\]"):
        await server.press(ann, message, data="zzz")
    stale = await server.press(ann, message, data="zzz", force=True)
    assert stale.data == "zzz"
    server.callback_ttl = 0.01
    late = await server.press(ann, message, "A")
    await asyncio.sleep(0.03)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(late.query_id)
    with pytest.raises(TimeoutError, match="did not answer"):
        await late.answer(timeout=0.01)
    fresh = await server.press(ann, message, "A")
    server.callback_ttl = 15.0
    with pytest.raises(BadRequest, match="Message_too_long"):
        await bot.answer_callback_query(fresh.query_id, "x" * 201)
    assert await bot.answer_callback_query(fresh.query_id, "я" * 200)


async def test_too_long_a_text_is_refused_for_sends_and_edits_after_parsing(
    server: FakeTelegramServer, bot: Bot
) -> None:
    ann = await started_user(server)
    sent = await bot.send_message(ann.id, "🃏" * 4096)  # 4096 code points, 8192 UTF-16 units
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(ann.id, "🃏" * 4097)
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.edit_message_text("ж" * 4097, chat_id=ann.id, message_id=sent.message_id)
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.edit_message_text(
            "<b>" + "&amp;" * 4097 + "</b>",
            chat_id=ann.id,
            message_id=sent.message_id,
            parse_mode="HTML",
        )
    await bot.edit_message_text(
        "<b>" + "&amp;" * 4096 + "</b>",
        chat_id=ann.id,
        message_id=sent.message_id,
        parse_mode="HTML",
    )
    assert server.last_message(ann.id).plain_text == "&" * 4096  # type: ignore[union-attr]


# ---- flood control ---------------------------------------------------------------------


class ManualClock:
    """A clock that moves only when told (for deterministic flood-control tests)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def stopped_clock(server: FakeTelegramServer, limits: Limits | None = None) -> ManualClock:
    """Put the server's flood control on a clock that only moves when the test says."""
    clock = ManualClock()
    server.limiter.clock = clock
    server.set_limits(limits or Limits.telegram())
    return clock


async def test_private_chat_burst_then_one_a_second(server: FakeTelegramServer, bot: Bot) -> None:
    clock = stopped_clock(server)
    ann = await started_user(server)
    for i in range(4):  # a short burst is tolerated
        await bot.send_message(ann.id, f"m{i}")
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(ann.id, "one too many")
    # whole seconds, at least 1, as Telegram says
    assert flood.value.retry_after == timedelta(seconds=1)
    for second in range(3):  # then one a second
        clock.now += 1
        await bot.send_message(ann.id, f"second {second}")
        with pytest.raises(RetryAfter):
            await bot.send_message(ann.id, "again too soon")
    clock.now += 0.8  # 0.25 s of tolerance: a call a little early goes through
    await bot.send_message(ann.id, "a bit early")
    flood_calls = server.rate_limited
    assert len(flood_calls) == 4 and not any(c.forced for c in flood_calls)
    assert flood_calls[0].description == "Too Many Requests: retry after 1"
    assert flood_calls[0].params["text"] == "one too many"
    # Free: reads, chat actions and callback answers never draw a 429.
    for _ in range(10):
        await bot.get_chat(ann.id)
        await bot.send_chat_action(ann.id, "typing")
    assert len(server.rate_limited) == 4


async def test_group_allows_20_in_any_minute(server: FakeTelegramServer, bot: Bot) -> None:
    clock = stopped_clock(server)
    ann = await started_user(server)
    group = await server.create_group("G", members=[ann])
    sent = await bot.send_message(group.id, "table")  # at 0 s
    clock.now += 30
    for i in range(17):  # edits count too
        await bot.edit_message_text(f"table {i}", chat_id=group.id, message_id=sent.message_id)
    extra = await bot.send_message(group.id, "to delete")
    assert await bot.delete_message(group.id, extra.message_id)  # and deletions: 20 at 30 s
    with pytest.raises(RetryAfter) as flood:
        await bot.edit_message_text("the 21st", chat_id=group.id, message_id=sent.message_id)
    # the call at 0 s leaves the window at 60 s
    assert flood.value.retry_after == timedelta(seconds=30)
    clock.now = 1000 + 59.7
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(group.id, "still within the minute")
    assert flood.value.retry_after == timedelta(seconds=1)
    clock.now = 1000 + 59.8  # 0.25 s early is tolerated
    await bot.send_message(group.id, "the window rolled")
    with pytest.raises(RetryAfter) as flood:  # the next slot: when the calls at 30 s leave
        await bot.send_message(group.id, "no slot yet")
    assert flood.value.retry_after == timedelta(seconds=30)
    assert [c.method for c in server.rate_limited] == [
        "editMessageText",
        "sendMessage",
        "sendMessage",
    ]
    # At 90 s the calls at 30 s have left: 19 slots, as the call at 59.8 s holds one.
    # Refused calls and a "message is not modified" cost nothing.
    clock.now = 1000 + 90 - 0.25
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text("table 16", chat_id=group.id, message_id=sent.message_id)
    for i in range(19):
        await bot.send_message(group.id, f"later {i}")
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(group.id, "the window is full again")
    # when the call at 59.8 s leaves (less slack)
    assert flood.value.retry_after == timedelta(seconds=30)


async def test_group_window_rolls_on_the_fast_scale(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await started_user(server)
    group = await server.create_supergroup("S", members=[ann])
    limits = server.limits
    started = time.monotonic()
    for i in range(limits.group_per_minute):
        await bot.send_message(group.id, f"m{i}")
    with pytest.raises(RetryAfter):
        await bot.send_message(group.id, "the 21st")
    window = limits.time_scale * 60  # 1.2 s on the fast scale
    await asyncio.sleep(max(0.0, started + window - time.monotonic()) + 0.05)
    await bot.send_message(group.id, "after a (scaled) minute")


async def test_sends_edits_and_deletes_share_a_chats_budget(
    server: FakeTelegramServer, bot: Bot
) -> None:
    stopped_clock(server)
    ann = await started_user(server)
    first = await bot.send_message(ann.id, "one")
    second = await bot.send_message(ann.id, "two")
    await bot.edit_message_text("one, edited", chat_id=ann.id, message_id=first.message_id)
    assert await bot.delete_messages(ann.id, [second.message_id])
    with pytest.raises(RetryAfter):
        await bot.delete_message(ann.id, first.message_id)
    with pytest.raises(RetryAfter):
        await bot.edit_message_text("again", chat_id=ann.id, message_id=first.message_id)
    assert [c.method for c in server.rate_limited] == ["deleteMessage", "editMessageText"]
    assert not server.message(ann.id, first.message_id).deleted


async def test_a_429_concerns_only_its_chat(server: FakeTelegramServer, bot: Bot) -> None:
    stopped_clock(server)
    ann = await started_user(server, "Ann")
    bob = await started_user(server, "Bob")
    one = await server.create_group("One", members=[ann])
    two = await server.create_supergroup("Two", members=[ann])
    for i in range(4):
        await bot.send_message(ann.id, f"a{i}")
    for i in range(20):
        await bot.send_message(one.id, f"g{i}")
    with pytest.raises(RetryAfter):
        await bot.send_message(ann.id, "ann is flooded")
    with pytest.raises(RetryAfter):
        await bot.send_message(one.id, "group one is flooded")
    for i in range(4):
        await bot.send_message(bob.id, f"b{i}")
    for i in range(20):
        await bot.send_message(two.id, f"t{i}")
    assert [c.chat_id for c in server.rate_limited] == [ann.id, one.id]


async def test_no_global_limit_by_default_but_a_broadcast_cap_on_demand(
    server: FakeTelegramServer, bot: Bot
) -> None:
    stopped_clock(server)
    assert Limits.telegram().global_per_second is None
    users = [await started_user(server, f"U{i}") for i in range(60)]
    results = await asyncio.gather(
        *(bot.send_message(u.id, "news") for u in users), return_exceptions=True
    )
    assert all(not isinstance(r, Exception) for r in results), results
    # A broadcast cap of 30 a second (plus 0.25 s of tolerance: 7 more).
    stopped_clock(server, Limits(global_per_second=30))
    results = await asyncio.gather(
        *(bot.send_message(u.id, "more news") for u in users[:40]), return_exceptions=True
    )
    assert sum(isinstance(r, RetryAfter) for r in results) == 40 - 37
    assert all(not isinstance(r, Exception) or isinstance(r, RetryAfter) for r in results)


async def test_rate_limits_fast_scale_recover(server: FakeTelegramServer, bot: Bot) -> None:
    clock = ManualClock()
    server.limiter.clock = clock
    ann = await started_user(server)
    limits = server.limits
    for i in range(limits.chat_burst):
        await bot.send_message(ann.id, f"m{i}")
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(ann.id, "too fast")
    assert flood.value.retry_after == timedelta(seconds=1)
    clock.now += limits.time_scale * limits.chat_burst / limits.chat_per_second
    for i in range(limits.chat_burst):  # time is shrunk: the whole burst came back
        await bot.send_message(ann.id, f"later {i}")


def test_limits_settings() -> None:
    assert Limits.telegram() == Limits()
    fast = Limits.fast()
    assert (fast.chat_burst, fast.group_per_minute, fast.global_per_second) == (4, 20, None)
    assert fast.time_scale == 0.02
    assert not Limits.off().enabled
    assert Limits().counts("deleteMessages") and Limits().counts("EDITMESSAGETEXT")
    assert not Limits().counts("answerCallbackQuery") and not Limits().counts("getChat")
    assert not Limits(count_deletes=False).counts("deleteMessage")
    with pytest.raises(ValueError):
        Limits(group_per_minute=0)
    with pytest.raises(ValueError):
        Limits(global_per_second=0)


async def test_group_token_bucket_option(server: FakeTelegramServer, bot: Bot) -> None:
    clock = stopped_clock(server, Limits(group_burst=20))
    ann = await started_user(server)
    group = await server.create_group("G", members=[ann])
    for i in range(20):
        await bot.send_message(group.id, f"m{i}")
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(group.id, "the 21st")
    assert flood.value.retry_after == timedelta(seconds=3)  # one every 60/20 s after the burst
    clock.now += 3
    await bot.send_message(group.id, "a bucket lets one through every 3 s")


async def test_force_429_on_demand(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await started_user(server, "Ann")
    bob = await started_user(server, "Bob")
    server.force_429(2, retry_after=7, chat=ann.id, method="sendMessage")
    await bot.send_message(bob.id, "bob is not affected")
    for _ in range(2):
        with pytest.raises(RetryAfter) as exc:
            await bot.send_message(ann.id, "hi")
        assert exc.value.retry_after == timedelta(seconds=7)
    await bot.send_message(ann.id, "now it works")
    server.force_429(retry_after=2)  # any method but getUpdates
    assert await bot.get_updates(timeout=0) == ()
    with pytest.raises(RetryAfter):
        await bot.get_chat(ann.id)
    assert [(c.method, c.forced, c.retry_after) for c in server.rate_limited] == [
        ("sendMessage", True, 7),
        ("sendMessage", True, 7),
        ("getChat", True, 2),
    ]


async def test_a_flood_wait_refuses_its_methods_counting_down(
    server: FakeTelegramServer, bot: Bot
) -> None:
    clock = stopped_clock(server)
    server.flood_wait(600, "setMyCommands", "setMyDescription")
    with pytest.raises(RetryAfter) as first:
        await bot.set_my_commands([BotCommand("help", "Help")])
    assert first.value.retry_after == timedelta(seconds=600)
    clock.now += 100.5
    with pytest.raises(RetryAfter) as later:
        await bot.set_my_description("A bot", language_code="en")
    assert later.value.retry_after == timedelta(seconds=500), "the seconds left, rounded up"
    assert await bot.set_my_short_description("Short") is True, "other methods go on"
    assert await bot.get_my_commands() == ()
    clock.now += 500
    assert await bot.set_my_commands([BotCommand("help", "Help")]) is True
    assert server.my_commands() == [{"command": "help", "description": "Help"}]
    server.flood_wait(300, "setMyDescription")
    server.flood_wait(0, "setMyDescription")  # lifted
    assert await bot.set_my_description("A bot") is True
    assert [(c.method, c.forced, c.retry_after) for c in server.rate_limited] == [
        ("setMyCommands", True, 600),
        ("setMyDescription", True, 500),
    ]
    with pytest.raises(TypeError):
        server.limiter.flood_wait(5, "setMyCommands")


async def test_aioratelimiter_keeps_a_burst_of_edits_clear_of_429(
    server: FakeTelegramServer,
) -> None:
    server.set_limits(Limits.off())
    users = [await started_user(server, f"P{i}") for i in range(20)]
    group = await server.create_group("Table", members=users)
    plain = server.application_builder().build()
    limited = server.application_builder().rate_limiter(AIORateLimiter()).build()
    async with plain, limited:
        hands = [await plain.bot.send_message(u.id, "hand") for u in users]
        table = await plain.bot.send_message(group.id, "table")
        server.set_limits(Limits.telegram())

        async def burst(app: AnyApp, tag: str, per_user: int, table_edits: int) -> list[Any]:
            edits = [
                app.bot.edit_message_text(f"{tag} {k}", chat_id=u.id, message_id=h.message_id)
                for k in range(per_user)
                for u, h in zip(users, hands, strict=True)
            ]
            edits += [
                app.bot.edit_message_text(
                    f"{tag} table {k}", chat_id=group.id, message_id=table.message_id
                )
                for k in range(table_edits)
            ]
            return await asyncio.gather(*edits, return_exceptions=True)

        # Open the connections first (getMe is not rate limited), as a running bot has.
        await asyncio.gather(*(limited.bot.get_me() for _ in range(60)))
        started = time.monotonic()
        results = await burst(limited, "limited", 2, 20)
        assert server.rate_limited == [], [
            (c.method, c.params["chat_id"], c.time, c.description) for c in server.rate_limited
        ]
        assert all(not isinstance(r, Exception) for r in results), results
        assert time.monotonic() - started < 10

        # A bigger burst without the limiter (on a stopped clock, so the count is exact):
        # 4 edits per private chat and 20 in the group go through, the rest draws 429.
        server.limiter.clock = ManualClock()
        server.reset_limits()
        results = await burst(plain, "plain", 5, 25)
        assert sum(isinstance(r, RetryAfter) for r in results) == 20 + 5
        assert len(server.rate_limited) == 25 and not server.rate_limited[0].forced


# ---- network faults --------------------------------------------------------------------


@pytest.fixture(params=["httpx", "aiohttp"])
async def faulty_bot(
    request: pytest.FixtureRequest, server: FakeTelegramServer
) -> AsyncIterator[Bot]:
    """A real PTB bot with a short read timeout, over PTB's httpx layer or the bot's own
    aiohttp one."""
    network: BaseRequest
    if request.param == "httpx":
        network = HTTPXRequest(read_timeout=0.3, connection_pool_size=8)
    else:
        aiohttp_request = pytest.importorskip("bot.transport.request")
        network = aiohttp_request.AiohttpRequest(read_timeout=0.3)
    async with Bot(server.token, base_url=server.base_url, request=network) as bot:
        yield bot


@pytest.mark.parametrize("applied", [True, False])
async def test_a_timed_out_call(server: FakeTelegramServer, faulty_bot: Bot, applied: bool) -> None:
    ann = await started_user(server)
    server.set_faults(Faults(timeout=1.0, applied=1.0 if applied else 0.0))
    started = time.monotonic()
    with pytest.raises(TimedOut):
        await faulty_bot.send_message(ann.id, "lost in the network")
    assert time.monotonic() - started < 5  # the client gave up, long before the 30 s hang
    [call] = await server.wait_for(lambda: [c for c in server.faulted if not c.pending])
    assert (call.fault, call.applied, call.ok, call.error_code) == ("timeout", applied, False, None)
    assert call.description == "timed out: the client disconnected"
    assert [m.text for m in server.bot_messages(ann.id)] == (
        ["lost in the network"] if applied else []
    )
    server.set_faults(None)
    await faulty_bot.send_message(ann.id, "through")
    assert server.calls_to("sendMessage")[-1].applied


async def test_a_call_held_past_hang_gets_504(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await started_user(server)
    server.set_faults(Faults(timeout=1.0, applied=0.0, hang=0.05))
    with pytest.raises(NetworkError, match=r"Gateway Timeout \(504\)") as exc:
        await bot.send_message(ann.id, "hi")
    assert not isinstance(exc.value, TimedOut)
    [call] = server.faulted
    assert (call.fault, call.error_code, call.description) == ("timeout", 504, "Gateway Time-out")


@pytest.mark.parametrize("applied", [True, False])
async def test_a_reset_connection(
    server: FakeTelegramServer, faulty_bot: Bot, applied: bool
) -> None:
    ann = await started_user(server)
    server.set_faults(Faults(reset=1.0, applied=1.0 if applied else 0.0))
    with pytest.raises(NetworkError) as exc:
        await faulty_bot.send_message(ann.id, "maybe sent")
    assert not isinstance(exc.value, TimedOut)
    [call] = await server.wait_for(lambda: [c for c in server.faulted if not c.pending])
    assert (call.fault, call.applied, call.ok) == ("reset", applied, False)
    assert call.description == "connection reset"
    assert len(server.bot_messages(ann.id)) == (1 if applied else 0)
    server.set_faults(Faults())
    await faulty_bot.send_message(ann.id, "the next call opens a new connection")


@pytest.mark.parametrize("status", [502, 503])
async def test_a_gateway_error(server: FakeTelegramServer, faulty_bot: Bot, status: int) -> None:
    ann = await started_user(server)
    server.set_faults(Faults(error=1.0, error_status=status))
    phrase = {502: "Bad Gateway", 503: "Service Unavailable"}[status]
    with pytest.raises(NetworkError, match=rf"{phrase} \({status}\)") as exc:
        await faulty_bot.send_message(ann.id, "never sent")
    assert not isinstance(exc.value, TimedOut)
    [call] = server.faulted
    assert (call.fault, call.applied, call.error_code) == ("error", False, status)
    assert server.bot_messages(ann.id) == []
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{server.base_url}{server.token}/getMe") as response,
    ):
        page = await response.text()
    assert response.status == status and response.content_type == "text/html"
    assert f"<title>{status} " in page and "nginx" in page


async def test_a_hanging_call_blocks_nobody(server: FakeTelegramServer) -> None:
    ann = await started_user(server, "Ann")
    bob = await started_user(server, "Bob")
    network = HTTPXRequest(read_timeout=10.0, connection_pool_size=8)
    async with Bot(server.token, base_url=server.base_url, request=network) as bot:
        first = await bot.send_message(ann.id, "first")
        server.set_faults(Faults(timeout=1.0, applied=1.0, methods=frozenset({"SENDMESSAGE"})))
        hanging = asyncio.create_task(bot.send_message(ann.id, "hangs"))
        await server.wait_for(lambda: server.faulted)
        # The same chat and another one, while the send is held.
        await bot.edit_message_text("edited", chat_id=ann.id, message_id=first.message_id)
        await bot.get_chat(bob.id)
        assert await bot.get_updates(timeout=0) == ()  # getUpdates never faults by default
        assert not hanging.done()
        assert server.faulted[0].pending and server.busy()
        hanging.cancel()
        with pytest.raises(asyncio.CancelledError):
            await hanging
    await server.wait_for(lambda: not server.faulted[0].pending)
    assert [m.text for m in server.bot_messages(ann.id)] == ["edited", "hangs"]


async def test_faults_repeat_for_the_same_seed(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await started_user(server)
    server.set_limits(Limits.off())
    faults = Faults(timeout=0.2, reset=0.2, error=0.2, hang=0.0, seed=7)

    async def run() -> list[tuple[str | None, bool]]:
        server.set_faults(faults)  # the random stream starts again from the seed
        since = len(server.calls)
        for i in range(30):
            with contextlib.suppress(NetworkError):
                await bot.send_message(ann.id, f"m{i}")
        await server.wait_for(lambda: not any(c.pending for c in server.calls[since:]))
        return [(c.fault, c.applied) for c in server.calls[since:]]

    first = await run()
    assert first == await run()
    kinds = {fault for fault, _ in first}
    assert kinds == {None, "timeout", "reset", "error"}
    assert {applied for fault, applied in first if fault in ("timeout", "reset")} == {True, False}
    assert server.internal_errors == []


async def test_forced_429_comes_before_a_fault(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await started_user(server)
    server.set_faults(Faults(error=1.0))
    server.force_429(retry_after=3, chat=ann.id)
    with pytest.raises(RetryAfter):
        await bot.send_message(ann.id, "429 first")
    with pytest.raises(NetworkError, match="Bad Gateway"):
        await bot.send_message(ann.id, "then the fault")
    assert [(c.error_code, c.fault) for c in server.calls_to("sendMessage")] == [
        (429, None),
        (502, "error"),
    ]
    with pytest.raises(ValueError):
        Faults(timeout=0.6, reset=0.6)
    assert Faults(methods=frozenset({"SendMessage"})).may_fault("sendmessage")
    assert not Faults().may_fault("getUpdates")


async def test_a_forced_fault_meets_only_the_calls_it_names(
    server: FakeTelegramServer, bot: Bot
) -> None:
    ann = await started_user(server, "Ann")
    bob = await started_user(server, "Bob")
    server.force_fault("reset", 2, chat=ann.id, method="sendMessage")
    server.force_fault("error")
    await bot.get_updates(timeout=0)  # getUpdates is never named by a fault without methods
    with pytest.raises(NetworkError, match="Bad Gateway"):
        await bot.send_message(bob.id, "the fault for any call")
    await bot.send_message(bob.id, "through")
    for _ in range(2):
        with pytest.raises(NetworkError):
            await bot.send_message(ann.id, "reset")
    await bot.send_message(ann.id, "through")
    assert [(c.chat_id, c.fault) for c in server.calls_to("sendMessage")] == [
        (bob.id, "error"),
        (bob.id, None),
        (ann.id, "reset"),
        (ann.id, "reset"),
        (ann.id, None),
    ]
    assert [m.text for m in server.bot_messages(ann.id)] == ["through"]
    server.force_fault("timeout", applied=True, method="sendMessage")
    server.set_faults(Faults(timeout=1.0, applied=0.0, hang=0.05))  # the forced one first
    with pytest.raises(NetworkError):
        await bot.send_message(ann.id, "carried out, the answer lost")
    assert [m.text for m in server.bot_messages(ann.id)][-1] == "carried out, the answer lost"
    with pytest.raises(ValueError):
        server.force_fault("flood")


async def test_a_late_timeout_is_carried_out_after_the_client_gave_up(
    server: FakeTelegramServer,
) -> None:
    """A slow server behind the gateway: the call times out, the client sends it again,
    and the first one is carried out after that (its message lies above the second)."""
    ann = await started_user(server)
    server.set_limits(Limits.off())
    network = HTTPXRequest(read_timeout=0.2, connection_pool_size=8)
    async with Bot(server.token, base_url=server.base_url, request=network) as bot:
        server.force_fault("timeout", chat=ann.id, method="sendMessage", late=True)
        with pytest.raises(TimedOut):
            await bot.send_message(ann.id, "first try")
        assert [m.text for m in server.bot_messages(ann.id)] == [], "not carried out yet"
        again = await bot.send_message(ann.id, "second try")
        await server.wait_for(lambda: server.faulted[0].applied, timeout=5)
        late = server.message(ann.id, server.faulted[0].result["message_id"])
        assert late.message_id > again.message_id and late.text == "first try"
        assert "late" in (server.faulted[0].description or "")
    # by the rates: a late one is a timeout that was carried out
    sends = frozenset({"sendMessage"})
    server.set_faults(
        Faults(timeout=1.0, applied=1.0, late=1.0, late_by=0.1, hang=0.0, methods=sends)
    )
    async with Bot(server.token, base_url=server.base_url) as bot:
        with pytest.raises(NetworkError):  # the gateway's 504 (hang 0): carried out after it
            await bot.send_message(ann.id, "504 first")
        await server.wait_for(lambda: server.faulted[-1].applied, timeout=5)
    assert [m.text for m in server.bot_messages(ann.id)][-1] == "504 first"
    with pytest.raises(ValueError):
        server.force_fault("reset", late=True)
    with pytest.raises(ValueError):
        Faults(late=2.0)


# ---- old messages ------------------------------------------------------------------------


async def test_messages_older_than_48_hours_cannot_be_deleted(
    server: FakeTelegramServer, bot: Bot
) -> None:
    ann = await started_user(server)
    group = await server.create_supergroup("G", members=[ann])
    old = await bot.send_message(group.id, "old")
    fresh = await bot.send_message(group.id, "fresh")
    server.age_message(group, old.message_id, 49)
    assert server.message(group, old.message_id).date <= fresh.date.timestamp() - 49 * 3600
    with pytest.raises(BadRequest, match=r"^Message can't be deleted for everyone$"):
        await bot.delete_message(group.id, old.message_id)
    with pytest.raises(BadRequest, match=r"^Message can't be deleted for everyone$"):
        await bot.delete_messages(group.id, [old.message_id])
    assert server.calls_to("deleteMessage")[-1].description == (
        f"Bad Request: {MESSAGE_CANT_BE_DELETED_FOR_EVERYONE}"
    )
    assert await bot.delete_messages(group.id, [old.message_id, fresh.message_id])
    assert not server.message(group, old.message_id).deleted  # skipped, like the others
    assert server.message(group, fresh.message_id).deleted
    edited = await bot.edit_message_text("old, edited", group.id, old.message_id)
    assert not isinstance(edited, bool) and edited.text == "old, edited"

    private = await bot.send_message(ann.id, "hand")
    server.age_message(ann.id, server.message(ann.id, private.message_id), 47.5)
    server.age_message(ann.id, private.message_id, 0.5)  # 48 hours: too old
    with pytest.raises(BadRequest, match=r"^Message can't be deleted$"):
        await bot.delete_message(ann.id, private.message_id)
    assert server.calls_to("deleteMessage")[-1].description == (
        f"Bad Request: {MESSAGE_CANT_BE_DELETED}"
    )
    await bot.edit_message_text("hand, edited", ann.id, private.message_id)
    younger = await bot.send_message(ann.id, "younger")
    server.age_message(ann.id, younger.message_id, 47)
    assert await bot.delete_message(ann.id, younger.message_id)
    with pytest.raises(BadRequest, match="Invalid inline message identifier specified"):
        await bot.edit_message_text("x", inline_message_id="abc")  # not an id at all
    with pytest.raises(BadRequest, match=MESSAGE_ID_INVALID.capitalize()):
        await bot.edit_message_text("x", inline_message_id="BAAAAO8RBQDskbUAmPbrZPeyYm4")


# ---- forums, admins, commands, pins ---------------------------------------------------------


async def test_forum_topics(server: FakeTelegramServer) -> None:
    async def rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Answers in the topic it was called from."""
        assert update.effective_message is not None
        await update.effective_message.reply_text("the rules", do_quote=False)

    app = server.application_builder().build()
    app.add_handler(CommandHandler("rules", rules))
    ann = (await server.create_users("Ann"))[0]
    forum = await server.create_supergroup("Club", forum=True, members=[ann], username="club")
    topic = await server.create_topic(forum, "Durak", by=ann)
    other = await server.create_topic(forum, "Chess")
    async with running(app):
        asked = await server.send_command(ann, forum, "rules", thread_id=topic)
        assert asked.thread_id == topic
        answer = await server.wait_for_message(forum, thread_id=topic)
        assert answer.text == "the rules" and answer.thread_id == topic
        await server.send_command(ann, forum, "rules")  # the General topic
        general = await server.wait_for_message(forum, thread_id=GENERAL_TOPIC)
        assert general.thread_id is None
        assert server.messages(forum, thread_id=other) == [server.message(forum, other)]
        sent = await app.bot.send_message("@club", "by username", message_thread_id=other)
        assert sent.message_thread_id == other and sent.is_topic_message
        with pytest.raises(BadRequest, match="Message thread not found"):
            await app.bot.send_message(forum.id, "nowhere", message_thread_id=424242)
        edited = await app.bot.edit_message_text("edited", forum.id, sent.message_id)
        assert not isinstance(edited, bool) and edited.message_thread_id == other
        assert server.message(forum, sent.message_id).thread_id == other
    topic_created = Update.de_json(server.updates[0], app.bot).message
    assert topic_created is not None and topic_created.forum_topic_created is not None
    assert topic_created.forum_topic_created.name == "Durak"


async def test_closed_and_deleted_forum_topics(server: FakeTelegramServer, bot: Bot) -> None:
    ann, bob = await server.create_users("Ann", "Bob")
    forum = await server.create_supergroup("Club", forum=True, members=[bob], creator=ann)
    topic = await server.create_topic(forum, "Durak", by=ann)
    own = await server.create_topic(forum, "The bot's own")  # created by the bot
    sent = await bot.send_message(forum.id, "table", message_thread_id=topic)
    with pytest.raises(ValueError):
        await server.close_topic(forum, topic, by=bob)  # neither an admin nor its creator
    await server.close_topic(forum, topic, by=ann)
    await server.close_topic(forum, own, by=ann)
    closed = Update.de_json(server.updates[-1], bot).message
    assert closed is not None and closed.forum_topic_closed is not None
    with pytest.raises(BadRequest, match="Topic_closed"):
        await bot.send_message(forum.id, "new", message_thread_id=topic)
    await bot.edit_message_text("edited in place", forum.id, sent.message_id)
    await bot.send_message(forum.id, "its creator may", message_thread_id=own)
    with pytest.raises(ValueError):
        await server.send_text(bob, forum, "a member may not", thread_id=topic)
    await server.send_text(ann, forum, "an admin may", thread_id=topic)
    await server.set_bot_admin(forum, by=ann)
    await bot.send_message(forum.id, "an admin bot may", message_thread_id=topic)
    await server.set_bot_admin(forum, False, by=ann)
    await server.reopen_topic(forum, topic, by=ann)
    await bot.send_message(forum.id, "open again", message_thread_id=topic)

    await server.close_general(forum, by=ann)
    with pytest.raises(BadRequest, match="Topic_closed"):
        await bot.send_message(forum.id, "in General")
    await bot.send_message(forum.id, "topics stay open", message_thread_id=topic)
    await server.close_general(forum, by=ann, closed=False)
    await bot.send_message(forum.id, "in General again")

    updates = len(server.world.queue.pending)
    with pytest.raises(ValueError):
        await server.delete_topic(forum, topic, by=bob)
    await server.delete_topic(forum, topic, by=ann)
    assert len(server.world.queue.pending) == updates, "the bot is not told"
    assert server.messages(forum, thread_id=topic) == []
    with pytest.raises(BadRequest, match="Message thread not found"):
        await bot.send_message(forum.id, "into the void", message_thread_id=topic)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("gone", forum.id, sent.message_id)


async def test_channels_and_posts_on_behalf_of_one(server: FakeTelegramServer, bot: Bot) -> None:
    ann, bob = await server.create_users("Ann", "Bob")
    channel = await server.create_channel("News", creator=ann, username="news")
    with pytest.raises(ValueError):
        await server.add_bot(channel, by=bob)  # only its admins add bots
    await server.add_bot(channel, by=ann)  # always as an administrator
    added = Update.de_json(server.updates[-1], bot).my_chat_member
    assert added is not None and added.chat.type == "channel"
    assert added.new_chat_member.status == "administrator"
    with pytest.raises(ValueError):
        await server.send_text(ann, channel, "channel posts are not simulated")

    group = await server.create_supergroup("G", members=[ann, bob], creator=bob)
    posted = await server.send_text(ann, group, "/help", as_channel=channel)
    message = Update.de_json(server.updates[-1], bot).message
    assert message is not None and message.message_id == posted.message_id
    assert message.from_user is not None and message.from_user.id == 136817688
    assert message.from_user.username == "Channel_Bot" and message.from_user.is_bot
    assert message.sender_chat is not None and message.sender_chat.id == channel.id
    with pytest.raises(ValueError):
        await server.send_text(bob, group, "not his channel", as_channel=channel)
    basic = await server.create_group("Basic", members=[ann], creator=bob)
    with pytest.raises(ValueError):
        await server.send_text(ann, basic, "only in supergroups", as_channel=channel)


async def test_a_reply_to_a_deleted_message(server: FakeTelegramServer, bot: Bot) -> None:
    ann, bob, cid = await server.create_users("Ann", "Bob", "Cid")
    group = await server.create_supergroup("G", members=[bob, cid], creator=ann)
    asked = await server.send_text(bob, group, "/rules")
    with pytest.raises(ValueError):
        await server.delete_message(group, asked, by=cid)  # a member, not its author
    await server.delete_message(group, asked, by=ann)  # an admin may
    updates = len(server.world.queue.pending)
    with pytest.raises(BadRequest, match="Message to be replied not found"):
        await bot.send_message(group.id, "quoting", reply_to_message_id=asked.message_id)
    sent = await bot.send_message(
        group.id,
        "unquoted",
        reply_parameters=ReplyParameters(asked.message_id, allow_sending_without_reply=True),
    )
    assert sent.reply_to_message is None
    assert len(server.world.queue.pending) == updates, "no update tells of a deletion"


async def test_admins_members_pins_and_leaving(server: FakeTelegramServer, bot: Bot) -> None:
    ann, bob, cid = await server.create_users("Ann", "Bob", "Cid")
    group = await server.create_supergroup("G", members=[bob, cid], creator=ann)
    await server.set_admin(group, bob)
    admins = await bot.get_chat_administrators(group.id)
    assert {(a.user.first_name, a.status) for a in admins} == {
        ("Ann", "creator"),
        ("Bob", "administrator"),
    }
    assert (await bot.get_chat_member(group.id, cid.id)).status == "member"
    assert (await bot.get_chat_member(group.id, bot.id)).status == "member"
    outsider = await server.create_user("Out")
    assert (await bot.get_chat_member(group.id, outsider.id)).status == "left"
    assert await bot.get_chat_member_count(group.id) == 4
    chat = await bot.get_chat(group.id)
    assert chat.title == "G" and chat.type == "supergroup"
    sent = await bot.send_message(group.id, "pin me")
    with pytest.raises(BadRequest, match="Not enough rights"):
        await bot.pin_chat_message(group.id, sent.message_id)
    await server.set_bot_admin(group, by=ann)
    assert group.bot_status == ADMINISTRATOR
    await bot.pin_chat_message(group.id, sent.message_id)
    assert server.pinned(group) == [sent.message_id]
    await bot.unpin_chat_message(group.id)
    assert server.pinned(group) == []
    assert await bot.leave_chat(group.id)
    with pytest.raises(Forbidden, match="bot is not a member of the supergroup chat"):
        await bot.send_message(group.id, "gone")
    last = Update.de_json(server.updates[-1], bot)
    assert last.my_chat_member is not None
    assert last.my_chat_member.new_chat_member.status == "left"


async def test_bot_added_to_group_updates(server: FakeTelegramServer) -> None:
    statuses: list[tuple[str, str]] = []

    async def member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Records the bot's status changes."""
        change = update.my_chat_member
        assert change is not None
        statuses.append((change.old_chat_member.status, change.new_chat_member.status))

    app = server.application_builder().build()
    app.add_handler(ChatMemberHandler(member, ChatMemberHandler.MY_CHAT_MEMBER))
    ann = await server.create_user("Ann")
    group = await server.create_group("New", members=[ann], creator=ann, bot_status="left")
    async with running(app):
        await server.add_bot(group, by=ann)
        await server.remove_bot(group, by=ann)
        await server.wait_for(lambda: len(statuses) == 2)
    assert statuses == [("left", "member"), ("member", "kicked")]


async def test_my_commands_per_scope_and_language(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await started_user(server)
    await bot.set_my_commands([BotCommand("newgame", "New game")])
    await bot.set_my_commands(
        [BotCommand("newgame", "Новая игра"), BotCommand("stats", "Счёт")],
        scope=BotCommandScopeAllGroupChats(),
        language_code="ru",
    )
    await bot.set_my_commands([BotCommand("hand", "Hand")], scope=BotCommandScopeChat(ann.id))
    assert server.my_commands() == [{"command": "newgame", "description": "New game"}]
    assert [c["command"] for c in server.my_commands({"type": "all_group_chats"}, "ru")] == [
        "newgame",
        "stats",
    ]
    assert server.my_commands({"type": "chat", "chat_id": ann.id}) == [
        {"command": "hand", "description": "Hand"}
    ]
    got = await bot.get_my_commands(scope=BotCommandScopeAllGroupChats(), language_code="ru")
    assert [c.description for c in got] == ["Новая игра", "Счёт"]
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([BotCommand("NewGame", "bad")])


# ---- polling, webhooks, encodings ---------------------------------------------------------


async def test_long_polling_timeout_offset_and_conflict(
    server: FakeTelegramServer, bot: Bot
) -> None:
    started = time.monotonic()
    assert await bot.get_updates(timeout=1) == ()
    assert time.monotonic() - started >= 0.9  # the timeout is honoured
    ann = await server.create_user("Ann")
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.05)
    started = time.monotonic()
    await server.start_bot(ann)
    [update] = await poll
    assert time.monotonic() - started < 3  # a new update ends the long poll at once
    assert (await bot.get_updates(timeout=0))[0].update_id == update.update_id  # unconfirmed
    assert await bot.get_updates(offset=update.update_id + 1, timeout=0) == ()
    assert server.pending_updates == 0


CONFLICT_BODY = {
    "ok": False,
    "error_code": 409,
    "description": "Conflict: terminated by other getUpdates request; make sure that only "
    "one bot instance is running",
}


async def raw_get_updates(server: FakeTelegramServer, **params: Any) -> tuple[int, Any]:
    """One getUpdates as a plain HTTP request: (status, JSON body)."""
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{server.base_url}{server.token}/getUpdates", json=params) as response,
    ):
        return response.status, await response.json()


async def waiting_polls(server: FakeTelegramServer, count: int) -> None:
    """Until ``count`` getUpdates calls have arrived."""
    await server.wait_for(lambda: len(server.calls_to("getUpdates", include_pending=True)) >= count)


async def test_a_second_long_poll_ends_the_waiting_one_and_takes_its_place(
    server: FakeTelegramServer, bot: Bot
) -> None:
    # PTB itself never overlaps its polls: a second poller is another process. Telegram
    # answers the older, waiting poll 409 and lets the new one wait in its place.
    first = asyncio.create_task(raw_get_updates(server, timeout=5))
    await waiting_polls(server, 1)
    second = asyncio.create_task(bot.get_updates(timeout=5))
    assert await first == (409, CONFLICT_BODY)
    assert not second.done()
    ann = await server.create_user("Ann")
    await server.start_bot(ann)
    [update] = await second
    assert update.message is not None and update.message.text == "/start"


async def test_a_poll_that_returns_at_once_leaves_the_waiting_one_alone(
    server: FakeTelegramServer, bot: Bot
) -> None:
    waiting = asyncio.create_task(bot.get_updates(timeout=5))
    await waiting_polls(server, 1)
    assert await raw_get_updates(server, timeout=0) == (200, {"ok": True, "result": []})
    ann = await server.create_user("Ann")
    await server.start_bot(ann)
    assert await raw_get_updates(server, timeout=5) == (  # updates waiting: no wait
        200,
        {"ok": True, "result": [server.updates[-1]]},
    )
    [update] = await waiting  # still waiting, it got the update too
    assert update.update_id == server.updates[-1]["update_id"]
    assert not [c for c in server.calls_to("getUpdates") if c.error_code == 409]


async def test_conflicts_are_paced_three_seconds_apart(server: FakeTelegramServer) -> None:
    first = asyncio.create_task(raw_get_updates(server, timeout=10))
    await waiting_polls(server, 1)
    second = asyncio.create_task(raw_get_updates(server, timeout=10))
    assert (await first)[0] == 409  # the first conflict is answered at once
    started = time.monotonic()
    third = asyncio.create_task(raw_get_updates(server, timeout=10))
    assert await second == (409, CONFLICT_BODY)  # the next one 3 s late
    assert time.monotonic() - started >= 2.9
    assert not third.done()  # the newest poll waits on
    third.cancel()


async def test_set_webhook_ends_the_waiting_long_poll(server: FakeTelegramServer, bot: Bot) -> None:
    waiting = asyncio.create_task(raw_get_updates(server, timeout=10))
    await waiting_polls(server, 1)
    await bot.set_webhook("http://127.0.0.1:9/hook")
    assert await waiting == (
        409,
        {
            "ok": False,
            "error_code": 409,
            "description": "Conflict: terminated by setWebhook request",
        },
    )
    await bot.delete_webhook()


async def test_get_updates_while_a_webhook_is_set(server: FakeTelegramServer, bot: Bot) -> None:
    await bot.set_webhook("http://127.0.0.1:9/hook")
    assert await raw_get_updates(server, timeout=5) == (
        409,
        {
            "ok": False,
            "error_code": 409,
            "description": "Conflict: can't use getUpdates method while webhook is active; "
            "use deleteWebhook to delete the webhook first",
        },
    )
    await bot.delete_webhook()
    assert await raw_get_updates(server) == (200, {"ok": True, "result": []})


async def test_another_address_of_the_same_server_tells_its_calls_apart(
    server: FakeTelegramServer,
) -> None:
    other = await server.add_address()
    assert other != server.base_url and other.endswith("/bot")
    ann = await started_user(server)
    async with (
        Bot(server.token, base_url=server.base_url) as one,
        Bot(server.token, base_url=other) as two,
    ):
        await one.send_message(ann.id, "one")
        await two.send_message(ann.id, "two")
    by_port = {c.params["text"]: c.port for c in server.calls_to("sendMessage")}
    assert by_port["one"] == server.port
    assert by_port["two"] == int(other.rsplit(":", 1)[1].split("/")[0]) != server.port
    assert [m.text for m in server.messages(ann.id, from_bot=True)] == ["one", "two"]


async def test_webhook_delivery_with_secret(server: FakeTelegramServer, bot: Bot) -> None:
    received: list[tuple[str | None, dict[str, Any]]] = []

    async def hook(request: web.Request) -> web.Response:
        received.append((request.headers.get(SECRET_HEADER), await request.json()))
        return web.Response(text="ok")

    receiver = web.Application()
    receiver.router.add_post("/hook", hook)
    runner = web.AppRunner(receiver)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        ann = await server.create_user("Ann")
        await bot.set_webhook(f"http://127.0.0.1:{port}/hook", secret_token="s3cret-Token_1")
        info = await bot.get_webhook_info()
        assert info.url.endswith("/hook")
        with pytest.raises(Conflict, match="webhook is active"):
            await bot.get_updates(timeout=0)
        await server.start_bot(ann)
        await server.wait_for(lambda: len(received) == 1 and server.pending_updates == 0)
        secret, update = received[0]
        assert secret == "s3cret-Token_1"
        assert update["message"]["text"] == "/start"
        await bot.delete_webhook()
        assert (await bot.get_webhook_info()).url == ""
    finally:
        await runner.cleanup()


async def test_json_and_multipart_bodies(server: FakeTelegramServer) -> None:
    ann = await started_user(server)
    method_url = f"{server.base_url}{server.token}/sendMessage"
    async with aiohttp.ClientSession() as session:
        markup = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
        async with session.post(
            method_url, json={"chat_id": str(ann.id), "text": "json", "reply_markup": markup}
        ) as response:
            body = await response.json()
        assert response.status == 200 and body["ok"] and body["result"]["text"] == "json"
        form = aiohttp.FormData()
        form.add_field("chat_id", str(ann.id))
        form.add_field("text", "multipart")
        form.add_field("document", b"bytes", filename="a.txt")
        async with session.post(method_url, data=form) as response:
            body = await response.json()
        assert body["result"]["text"] == "multipart"
        async with session.get(method_url, params={"chat_id": "1"}) as response:
            body = await response.json()
        assert response.status == 400
        assert body == {
            "ok": False,
            "error_code": 400,
            "description": "Bad Request: chat not found",
        }
    assert server.last_message(ann.id).text == "multipart"  # type: ignore[union-attr]
    assert server.message(ann.id, 2).find_button(data="a").text == "A"


async def test_wait_for_times_out_with_a_useful_message(server: FakeTelegramServer) -> None:
    with pytest.raises(TimeoutError, match=r"the impossible not met within 0\.05s"):
        await server.wait_for(lambda: False, timeout=0.05, what="the impossible")


async def test_a_server_older_than_bot_api_9_5_refuses_live_clocks() -> None:
    clock = '⏱ <tg-time unix="1767225600" format="r">in 1:35</tg-time>'  # ⏱: 3 bytes
    async with FakeTelegramServer(limits=Limits.fast(), api_version=(9, 4)) as old:
        app = old.application_builder().build()
        async with app:
            ann = await started_user(old, "Ann")
            with pytest.raises(BadRequest) as refused:
                await app.bot.send_message(ann.id, clock, parse_mode="HTML")
            assert str(refused.value) == (
                'Can\'t parse entities: unsupported start tag "tg-time" at byte offset 4'
            )
            sent = await app.bot.send_message(ann.id, "⏱ <b>in 1:35</b>", parse_mode="HTML")
            assert sent.text == "⏱ in 1:35"
    async with FakeTelegramServer(limits=Limits.fast()) as today:
        app = today.application_builder().build()
        async with app:
            ann = await started_user(today, "Ann")
            sent = await app.bot.send_message(ann.id, clock, parse_mode="HTML")
            assert [e.type for e in sent.entities] == ["date_time"]


def test_html_parser_utf16_offsets_and_nesting() -> None:
    source = (
        '  🂡 <b>bold <i>both</i></b> <a href="https://t.me/x">link</a> '
        '<pre><code class="language-python">x</code></pre>  '
    )
    parsed = parse_html(source)
    assert parsed.text == "  🂡 bold both link x  "
    assert parsed.entities == [
        {"type": "bold", "offset": 5, "length": 9},
        {"type": "italic", "offset": 10, "length": 4},
        {"type": "text_link", "offset": 15, "length": 4, "url": "https://t.me/x"},
        {"type": "pre", "offset": 20, "length": 1, "language": "python"},
    ]
    trimmed = parse_text(source, "HTML")
    assert trimmed.text == "🂡 bold both link x"
    assert trimmed.entities[0] == {"type": "bold", "offset": 3, "length": 9}
    assert parse_text("<b>x</b>", "MarkdownV2").text == "<b>x</b>"
