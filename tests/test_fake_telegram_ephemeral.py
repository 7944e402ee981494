"""Ephemeral messages (Bot API 10.2/10.3), disabled buttons (10.3) and button styles (9.4)
in the fake Bot API server, driven by the real python-telegram-bot over HTTP.

PTB 22.8 knows none of the ephemeral fields: sends go through ``Bot.send_message`` with
``api_kwargs`` (``do_api_request("sendMessage")`` draws a PTBUserWarning, an error here),
the new methods through ``Bot.do_api_request``, and the new fields of received objects
are in ``api_kwargs``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fake_telegram import (
    ADMINISTRATOR,
    CANT_REPLACE_EPHEMERAL,
    EPHEMERAL_IN_CHANNEL,
    EPHEMERAL_NOT_ALLOWED,
    EPHEMERAL_TEXT_TOO_LONG,
    MAX_EPHEMERAL_EDIT_LENGTH,
    MEMBER,
    RECEIVER_IS_BOT,
    RECEIVER_NOT_MEMBER,
    REPLACE_NEEDS_QUERY,
    FakeChat,
    FakeTelegramServer,
    FakeUser,
    Limits,
    running,
)
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
)
from telegram.error import BadRequest, RetryAfter
from telegram.ext import CallbackQueryHandler, CommandHandler, ContextTypes

QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"


def said(text: str) -> str:
    """A pattern for an error's message: PTB drops "Bad Request: " and capitalizes the
    rest (so "BOT_NOT_ADMIN" reads "Bot_not_admin")."""
    return "(?i)" + re.escape(text)


class ManualClock:
    """A clock that moves only when told."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    """A fake Telegram without flood control (the tests of it set their limits)."""
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
    """The server's 15-second window, TTL and query ages on a stopped clock (flood
    control keeps the real one)."""
    manual = ManualClock()
    server.set_clock(manual, limits=False)
    return manual


async def group_of(
    server: FakeTelegramServer, *, admin: bool = False
) -> tuple[FakeChat, FakeUser, FakeUser]:
    """A supergroup with Ann and Bob; the bot an administrator or a plain member."""
    ann, bob = await server.create_users("Ann", "Bob")
    group = await server.create_supergroup(
        "Durak night", members=[ann, bob], bot_status=ADMINISTRATOR if admin else MEMBER
    )
    return group, ann, bob


async def send_ephemeral(
    bot: Bot,
    chat: FakeChat | int,
    receiver: FakeUser | int,
    text: str = "only you",
    *,
    reply_to: int | None = None,
    reply_markup: Any = None,
    **parameters: Any,
) -> Message:
    """sendMessage with ephemeral_message_parameters (and a reply to an ephemeral one)."""
    chat_id = chat.id if isinstance(chat, FakeChat) else chat
    receiver_id = receiver.id if isinstance(receiver, FakeUser) else receiver
    api_kwargs: dict[str, Any] = {
        "ephemeral_message_parameters": {"receiver_user_id": receiver_id, **parameters}
    }
    if reply_to is not None:
        api_kwargs["reply_parameters"] = {"ephemeral_message_id": reply_to}
    return await bot.send_message(
        chat_id, text, reply_markup=reply_markup, api_kwargs=api_kwargs, parse_mode="HTML"
    )


def eid(message: Message) -> int:
    """The ephemeral_message_id PTB keeps in api_kwargs."""
    value = message.api_kwargs["ephemeral_message_id"]
    assert isinstance(value, int)
    return value


async def edit_text(bot: Bot, chat: FakeChat, user: FakeUser, ident: int, text: str, **more: Any):
    return await bot.do_api_request(
        "editEphemeralMessageText",
        api_kwargs={
            "chat_id": chat.id,
            "receiver_user_id": user.id,
            "ephemeral_message_id": ident,
            "text": text,
            **more,
        },
    )


async def delete(bot: Bot, chat: FakeChat, user: FakeUser, ident: int) -> Any:
    return await bot.do_api_request(
        "deleteEphemeralMessage",
        api_kwargs={"chat_id": chat.id, "receiver_user_id": user.id, "ephemeral_message_id": ident},
    )


def keyboard(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data) for text, data in row] for row in rows]
    )


# ---- sending -------------------------------------------------------------------------


async def test_an_admin_bot_shows_a_message_to_one_member_alone(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, bob = await group_of(server, admin=True)
    sent = await send_ephemeral(
        bot, group, ann, "<b>Your hand</b>: 6♠ 7♥", reply_markup=keyboard([("Play", "play")])
    )
    assert sent.message_id == 0
    assert eid(sent) >= 1
    assert sent.api_kwargs["receiver_user"]["id"] == ann.id
    assert sent.from_user is not None and sent.from_user.id == server.bot_user.id
    assert sent.chat.id == group.id and sent.date is not None
    assert sent.text == "Your hand: 6♠ 7♥"
    assert sent.entities[0].type == "bold"
    assert sent.reply_markup is not None
    assert sent.reply_markup.inline_keyboard[0][0].callback_data == "play"

    shown = server.last_ephemeral(group, ann)
    assert shown is not None and shown.is_ephemeral
    assert shown.ephemeral_message_id == eid(sent) and shown.message_id == 0
    assert shown.plain_text == "Your hand: 6♠ 7♥"
    assert shown.receiver is ann and shown.find_button("Play").callback_data == "play"
    # nobody else sees it, and it is none of the group's messages
    assert server.ephemeral_messages(group, bob) == []
    assert server.bot_messages(group) == [] and server.messages(group) == []
    assert shown not in server.seen_by(group, bob)
    assert shown in server.seen_by(group, ann)
    # recorded as any other call
    assert server.calls_to("sendMessage")[-1].ok


async def test_the_bot_api_10_2_form_of_the_parameters_is_taken_too(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, _ = await group_of(server, admin=True)
    sent = await bot.send_message(group.id, "hi", api_kwargs={"receiver_user_id": ann.id})
    assert sent.message_id == 0 and eid(sent) == 1


async def test_only_groups_and_their_non_bot_members(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, _ = await group_of(server, admin=True)
    await server.start_bot(ann)
    with pytest.raises(BadRequest, match=said(EPHEMERAL_NOT_ALLOWED)):
        await send_ephemeral(bot, ann.id, ann)  # a private chat
    channel = await server.create_channel("News", creator=ann)
    await server.add_bot(channel, by=ann)
    with pytest.raises(BadRequest, match=said(EPHEMERAL_IN_CHANNEL)):
        await send_ephemeral(bot, channel, ann)
    carl = await server.create_user("Carl")
    with pytest.raises(BadRequest, match=said(RECEIVER_NOT_MEMBER)):
        await send_ephemeral(bot, group, carl)
    await server.add_member(group, carl)
    await server.remove_member(group, carl)
    with pytest.raises(BadRequest, match=said(RECEIVER_NOT_MEMBER)):
        await send_ephemeral(bot, group, carl)  # he left
    with pytest.raises(BadRequest, match=said(RECEIVER_IS_BOT)):
        await send_ephemeral(bot, group, server.bot_user)
    with pytest.raises(BadRequest, match=said("User not found")):
        await send_ephemeral(bot, group, 424242)
    with pytest.raises(BadRequest, match=said("receiver_user_id")):
        await bot.send_message(group.id, "x", api_kwargs={"ephemeral_message_parameters": {}})
    basic = await server.create_group("Basic", members=[ann], bot_status=ADMINISTRATOR)
    assert eid(await send_ephemeral(bot, basic, ann)) == 1  # basic groups too
    assert server.failed_calls[0].description == f"Bad Request: {EPHEMERAL_NOT_ALLOWED}"


async def test_a_bot_that_is_no_admin_needs_an_eligible_action(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, _ = await group_of(server)
    with pytest.raises(BadRequest, match=said(EPHEMERAL_NOT_ALLOWED)):
        await send_ephemeral(bot, group, ann)
    with pytest.raises(BadRequest, match=said(QUERY_TOO_OLD)):
        await send_ephemeral(bot, group, ann, callback_query_id="no such query")
    with pytest.raises(BadRequest, match=said("Message to be replied not found")):
        await send_ephemeral(bot, group, ann, reply_to=1)
    assert server.all_ephemeral(group) == []  # refused sends leave nothing


# ---- the 15-second window ------------------------------------------------------------


async def test_a_callback_query_opens_a_15_second_window(
    server: FakeTelegramServer, bot: Bot, clock: ManualClock
) -> None:
    group, ann, bob = await group_of(server)
    lobby = await bot.send_message(group.id, "Lobby", reply_markup=keyboard([("Hand", "hand")]))
    press = await server.press(ann, server.message(group, lobby.message_id), "Hand")
    assert await bot.answer_callback_query(press.query_id, text="sent")  # answerable as usual
    clock.now += 14.9
    first = await send_ephemeral(bot, group, ann, callback_query_id=press.query_id)
    assert eid(first) == 1
    # the query is Ann's: it opens nothing for Bob
    with pytest.raises(BadRequest, match=said(QUERY_TOO_OLD)):
        await send_ephemeral(bot, group, bob, callback_query_id=press.query_id)
    clock.now += 0.1  # 15 s after the press
    with pytest.raises(BadRequest, match=said(EPHEMERAL_NOT_ALLOWED)):
        await send_ephemeral(bot, group, ann, callback_query_id=press.query_id)
    # an administrator may send at any time, the stale query notwithstanding
    await server.set_bot_admin(group, by=bob)
    later = await send_ephemeral(bot, group, ann, callback_query_id=press.query_id)
    assert eid(later) == 2


async def test_the_window_is_a_setting(server: FakeTelegramServer, bot: Bot) -> None:
    server.ephemeral_window = 0.0
    group, ann, _ = await group_of(server)
    lobby = await bot.send_message(group.id, "Lobby", reply_markup=keyboard([("Go", "go")]))
    press = await server.press(ann, server.message(group, lobby.message_id), "Go")
    with pytest.raises(BadRequest, match=said(EPHEMERAL_NOT_ALLOWED)):
        await send_ephemeral(bot, group, ann, callback_query_id=press.query_id)


# ---- ephemeral commands --------------------------------------------------------------


async def test_an_ephemeral_command_and_the_reply_to_it(
    server: FakeTelegramServer, bot: Bot, clock: ManualClock
) -> None:
    group, ann, bob = await group_of(server)
    assert server.privacy_mode  # commands reach a bot in privacy mode; so do these
    await bot.set_my_commands(
        [
            BotCommand("hand", "Your cards", api_kwargs={"is_ephemeral": True}),
            BotCommand("newgame", "Start a game"),
        ],
        scope=BotCommandScopeAllGroupChats(),
    )
    listed = await bot.get_my_commands(scope=BotCommandScopeAllGroupChats())
    assert listed[0].api_kwargs == {"is_ephemeral": True} and listed[1].api_kwargs == {}
    assert server.declares_ephemeral(group, ann, "hand")
    assert not server.declares_ephemeral(group, ann, "newgame")

    command = await server.send_command(ann, group, "hand", ephemeral=True)
    assert command.message_id == 0 and command.ephemeral_message_id == 1
    assert command.receiver is server.bot_user and command.sender is ann
    raw = server.updates[-1]["message"]
    assert raw["message_id"] == 0 and raw["ephemeral_message_id"] == 1
    assert raw["receiver_user"]["id"] == server.bot_user.id
    assert raw["from"]["id"] == ann.id and raw["text"] == "/hand"
    assert raw["entities"] == [{"type": "bot_command", "offset": 0, "length": 5}]
    [update] = await bot.get_updates()
    assert update.message is not None and update.message.message_id == 0
    assert update.message.api_kwargs["ephemeral_message_id"] == 1
    assert update.message.api_kwargs["receiver_user"]["id"] == server.bot_user.id
    # visible to the bot alone: no group message, nothing for Bob; Ann sees her command
    assert server.messages(group) == [] and server.seen_by(group, bob) == []
    assert server.ephemeral_messages(group, ann, from_bot=None) == [command]
    assert server.ephemeral_messages(group, ann) == []

    clock.now += 14
    reply = await send_ephemeral(bot, group, ann, "6♠ 7♥", reply_to=command.ephemeral_message_id)
    assert eid(reply) == 2  # ids are per chat and user, shared with his commands
    assert server.last_ephemeral(group, ann) is not None
    # the window is Ann's: her command opens nothing for Bob
    with pytest.raises(BadRequest, match=said("Message to be replied not found")):
        await send_ephemeral(bot, group, bob, reply_to=command.ephemeral_message_id)
    # a reply to the bot's own ephemeral message opens no window
    with pytest.raises(BadRequest, match=said(EPHEMERAL_NOT_ALLOWED)):
        await send_ephemeral(bot, group, ann, reply_to=eid(reply))
    clock.now += 1
    with pytest.raises(BadRequest, match=said(EPHEMERAL_NOT_ALLOWED)):
        await send_ephemeral(bot, group, ann, reply_to=command.ephemeral_message_id)
    # an ordinary message cannot answer an ephemeral one
    with pytest.raises(BadRequest, match=said("Message to be replied not found")):
        await bot.send_message(
            group.id, "x", api_kwargs={"reply_parameters": {"ephemeral_message_id": 1}}
        )


async def test_ephemeral_commands_as_a_users_app_sends_them(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, _ = await group_of(server)
    with pytest.raises(ValueError, match=said("declared no ephemeral /hand")):
        await server.send_command(ann, group, "hand", ephemeral=True)
    plain = await server.send_command(ann, group, "hand", ephemeral=None)
    assert not plain.is_ephemeral and plain.message_id == 1  # undeclared: ordinary
    await bot.set_my_commands(
        [BotCommand("hand", "Your cards", api_kwargs={"is_ephemeral": True})],
        scope=BotCommandScopeChat(group.id),
    )
    auto = await server.send_command(ann, group, "hand", ephemeral=None)
    assert auto.is_ephemeral and auto.ephemeral_message_id == 1
    forced = await server.send_ephemeral_command(ann, group, "rules", require_declared=False)
    assert forced.ephemeral_message_id == 2
    ann_private = server.private_chat(ann)
    with pytest.raises(ValueError, match=said("groups and supergroups only")):
        await server.send_ephemeral_command(ann, ann_private, "hand", require_declared=False)


async def test_a_bot_command_declared_with_a_wrong_is_ephemeral_is_refused(
    server: FakeTelegramServer, bot: Bot
) -> None:
    with pytest.raises(BadRequest, match=said("Can't parse BotCommand")):
        await bot.set_my_commands([BotCommand("hand", "x", api_kwargs={"is_ephemeral": "yes"})])


# ---- callback queries from ephemeral messages ------------------------------------------


async def test_pressing_an_ephemeral_message_and_answering(
    server: FakeTelegramServer, bot: Bot, clock: ManualClock
) -> None:
    group, ann, bob = await group_of(server, admin=True)
    await send_ephemeral(bot, group, ann, "Your turn", reply_markup=keyboard([("Take", "take")]))
    shown = server.last_ephemeral(group, ann)
    assert shown is not None
    with pytest.raises(ValueError, match=said("only its receiver")):
        await server.press(bob, shown, "Take")
    press = await server.press(ann, shown, "Take")
    query = server.updates[-1]["callback_query"]
    assert query["from"]["id"] == ann.id and query["data"] == "take"
    assert query["message"]["message_id"] == 0
    assert query["message"]["ephemeral_message_id"] == shown.ephemeral_message_id
    assert query["message"]["receiver_user"]["id"] == ann.id
    assert query["message"]["chat"]["id"] == group.id
    [update] = await bot.get_updates()
    assert update.callback_query is not None and update.callback_query.message is not None
    assert update.callback_query.message.message_id == 0
    assert update.callback_query.message.api_kwargs["ephemeral_message_id"] == 1
    assert await bot.answer_callback_query(press.query_id, text="Taken")
    assert (await press.answer()).text == "Taken"

    # the query opens the window even for a bot that is no longer an administrator
    await server.set_bot_admin(group, False, by=bob)
    clock.now += 10
    follow = await send_ephemeral(bot, group, ann, "Took 3 cards", callback_query_id=press.query_id)
    assert eid(follow) == 2
    # a query from an ephemeral message is answered by editing it, not by replacing it
    with pytest.raises(BadRequest, match=said(CANT_REPLACE_EPHEMERAL)):
        await send_ephemeral(
            bot,
            group,
            ann,
            callback_query_id=press.query_id,
            replace_callback_query_message=True,
        )


async def test_replace_callback_query_message_shows_it_in_place_of_the_group_message(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, bob = await group_of(server)
    lobby = await bot.send_message(group.id, "Lobby", reply_markup=keyboard([("Cards", "c")]))
    original = server.message(group, lobby.message_id)
    press = await server.press(ann, original, "Cards")
    with pytest.raises(BadRequest, match=said(REPLACE_NEEDS_QUERY)):
        await bot.send_message(
            group.id,
            "x",
            api_kwargs={
                "ephemeral_message_parameters": {
                    "receiver_user_id": ann.id,
                    "replace_callback_query_message": True,
                }
            },
        )
    await send_ephemeral(
        bot,
        group,
        ann,
        "Your cards",
        callback_query_id=press.query_id,
        replace_callback_query_message=True,
    )
    shown = server.last_ephemeral(group, ann)
    assert shown is not None and shown.replaces == original.message_id
    assert server.seen_by(group, ann) == [shown]  # in place of the lobby, for Ann
    assert server.seen_by(group, bob) == [original]  # Bob still sees the lobby
    with pytest.raises(ValueError, match=said("in place of message")):
        await server.press(ann, original, "Cards")
    await server.press(bob, original, "Cards")
    assert await delete(bot, group, ann, shown.ephemeral_message_id or 0) is True
    assert server.seen_by(group, ann) == [original]  # the lobby is back for her


# ---- edits and deletion -------------------------------------------------------------


async def test_edits_and_deletion_of_an_ephemeral_message(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, bob = await group_of(server, admin=True)
    sent = await send_ephemeral(bot, group, ann, "Hand", reply_markup=keyboard([("Play", "p")]))
    ident = eid(sent)
    shown = server.last_ephemeral(group, ann)
    assert shown is not None

    assert await edit_text(bot, group, ann, ident, "<i>Hand</i>", parse_mode="HTML") is True
    assert shown.plain_text == "Hand" and shown.entities[0]["type"] == "italic"
    assert shown.buttons == []  # no reply_markup: the keyboard goes, as with editMessageText
    with pytest.raises(BadRequest, match=said("Message is not modified")):
        await edit_text(bot, group, ann, ident, "<i>Hand</i>", parse_mode="HTML")
    markup = {"inline_keyboard": [[{"text": "Pass", "callback_data": "pass"}]]}
    assert await edit_text(bot, group, ann, ident, "Hand 2", reply_markup=markup) is True
    assert shown.find_button("Pass").callback_data == "pass"
    new_markup = {"inline_keyboard": [[{"text": "Done", "callback_data": "done"}]]}
    edited = await bot.do_api_request(
        "editEphemeralMessageReplyMarkup",
        api_kwargs={
            "chat_id": group.id,
            "receiver_user_id": ann.id,
            "ephemeral_message_id": ident,
            "reply_markup": new_markup,
        },
    )
    assert edited is True and shown.find_button("Done").callback_data == "done"
    with pytest.raises(BadRequest, match=said("Message is not modified")):
        await bot.do_api_request(
            "editEphemeralMessageReplyMarkup",
            api_kwargs={
                "chat_id": group.id,
                "receiver_user_id": ann.id,
                "ephemeral_message_id": ident,
                "reply_markup": new_markup,
            },
        )
    assert shown.edit_count == 3 and len(shown.history) == 3
    # another receiver's id: nothing there
    with pytest.raises(BadRequest, match=said("Message to edit not found")):
        await edit_text(bot, group, bob, ident, "x")
    with pytest.raises(BadRequest, match=said("Message to delete not found")):
        await delete(bot, group, bob, ident)

    assert await delete(bot, group, ann, ident) is True
    assert shown.deleted and server.ephemeral_messages(group, ann) == []
    with pytest.raises(BadRequest, match=said("Message to edit not found")):
        await edit_text(bot, group, ann, ident, "again")
    with pytest.raises(BadRequest, match=said("Message to delete not found")):
        await delete(bot, group, ann, ident)
    methods = [c.method for c in server.calls_to() if "Ephemeral" in c.method]
    assert methods[:2] == ["editEphemeralMessageText", "editEphemeralMessageText"]
    assert "deleteEphemeralMessage" in methods


async def test_an_edit_over_1024_characters_is_refused(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, _ = await group_of(server, admin=True)
    # sends take the documented 4096 characters
    ident = eid(await send_ephemeral(bot, group, ann, "x" * 4096))
    # edits: the real server's 1024 (after entity parsing), and a caption's answer
    assert MAX_EPHEMERAL_EDIT_LENGTH == 1024
    assert await edit_text(bot, group, ann, ident, "<b>" + "y" * 1024 + "</b>", parse_mode="HTML")
    with pytest.raises(BadRequest, match=said(EPHEMERAL_TEXT_TOO_LONG)):
        await edit_text(bot, group, ann, ident, "z" * 1025)
    with pytest.raises(BadRequest, match=said(EPHEMERAL_TEXT_TOO_LONG)):
        await edit_text(bot, group, ann, ident, "z" * 4000)
    with pytest.raises(BadRequest, match=said("Message text is empty")):
        await edit_text(bot, group, ann, ident, "   ")


async def test_ordinary_methods_never_reach_an_ephemeral_message(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, _ = await group_of(server, admin=True)
    ident = eid(await send_ephemeral(bot, group, ann, "Hand"))
    for message_id in (0, ident):
        with pytest.raises(BadRequest, match=said("Message to delete not found")):
            await bot.delete_message(group.id, message_id)
        with pytest.raises(BadRequest, match=said("Message to edit not found")):
            await bot.edit_message_text("x", chat_id=group.id, message_id=message_id)
        with pytest.raises(BadRequest, match=said("Message to edit not found")):
            await bot.edit_message_reply_markup(chat_id=group.id, message_id=message_id)
    shown = server.last_ephemeral(group, ann)
    assert shown is not None and shown.plain_text == "Hand" and shown.visible


async def test_a_users_ephemeral_command_cannot_be_edited_by_the_bot(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, _ = await group_of(server, admin=True)
    command = await server.send_ephemeral_command(ann, group, "hand", require_declared=False)
    with pytest.raises(BadRequest, match=said("Message can't be edited")):
        await edit_text(bot, group, ann, command.ephemeral_message_id or 0, "x")
    with pytest.raises(BadRequest, match=said("Message can't be deleted")):
        await delete(bot, group, ann, command.ephemeral_message_id or 0)


# ---- delivery, expiry and id reuse ---------------------------------------------------


async def test_an_offline_user_never_gets_it_though_every_call_succeeds(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, _ = await group_of(server, admin=True)
    await server.set_online(ann, False)
    assert not server.is_online(ann)
    sent = await send_ephemeral(bot, group, ann, "Lost", reply_markup=keyboard([("A", "a")]))
    assert eid(sent) == 1
    assert server.ephemeral_messages(group, ann) == []
    [lost] = server.all_ephemeral(group, ann)
    assert not lost.delivered and not lost.visible
    with pytest.raises(ValueError, match=said("offline")):
        await server.press(ann, lost, "A")
    with pytest.raises(ValueError, match=said("offline")):
        await server.send_text(ann, group, "hello")
    # edits and deletion of the message he never got succeed, unseen
    assert await edit_text(bot, group, ann, 1, "Still lost") is True
    assert lost.plain_text == "Still lost"
    await server.set_online(ann)
    assert server.ephemeral_messages(group, ann) == []  # it never comes
    with pytest.raises(ValueError, match=said("never reached him")):
        await server.press(ann, lost, force=True, data="a")
    assert await delete(bot, group, ann, 1) is True
    seen = await send_ephemeral(bot, group, ann, "Found")
    assert eid(seen) == 1  # the id of the deleted one, given out again
    assert [m.plain_text for m in server.ephemeral_messages(group, ann)] == ["Found"]


async def test_ids_are_reused_after_deletion_and_expiry(
    server: FakeTelegramServer, bot: Bot
) -> None:
    group, ann, bob = await group_of(server, admin=True)
    ids = [eid(await send_ephemeral(bot, group, ann, f"m{n}")) for n in range(3)]
    assert ids == [1, 2, 3]
    assert eid(await send_ephemeral(bot, group, bob, "b")) == 1  # per user
    assert await delete(bot, group, ann, 2) is True
    assert eid(await send_ephemeral(bot, group, ann, "again")) == 2  # the smallest free id
    gone = await server.expire_ephemeral(group, ann)  # his app restarted
    assert len(gone) == 3 and all(m.expired for m in gone)
    assert server.ephemeral_messages(group, ann) == []
    assert len(server.ephemeral_messages(group, bob)) == 1  # Bob's stay
    with pytest.raises(BadRequest, match=said("Message to edit not found")):
        await edit_text(bot, group, ann, 1, "x")
    with pytest.raises(BadRequest, match=said("Message to delete not found")):
        await delete(bot, group, ann, 3)
    assert eid(await send_ephemeral(bot, group, ann, "fresh")) == 1


async def test_expiry_the_server_does_not_know_of(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, _ = await group_of(server, admin=True)
    ident = eid(await send_ephemeral(bot, group, ann, "Hand"))
    [gone] = await server.expire_ephemeral(None, ann, known_to_server=False)
    assert server.ephemeral_messages(group, ann) == []
    assert await edit_text(bot, group, ann, ident, "Hand 2") is True  # succeeds, unseen
    assert gone.plain_text == "Hand 2" and not gone.visible
    assert eid(await send_ephemeral(bot, group, ann, "next")) == 2  # its id is still taken


async def test_messages_expire_by_themselves_after_the_ttl(
    server: FakeTelegramServer, bot: Bot, clock: ManualClock
) -> None:
    server.ephemeral_ttl = 60
    group, ann, _ = await group_of(server, admin=True)
    ident = eid(await send_ephemeral(bot, group, ann, "Hand"))
    command = await server.send_ephemeral_command(ann, group, "hand", require_declared=False)
    clock.now += 59
    assert len(server.ephemeral_messages(group, ann, from_bot=None)) == 2
    clock.now += 1
    assert server.ephemeral_messages(group, ann, from_bot=None) == []
    assert command.expired
    with pytest.raises(BadRequest, match=said("Message to edit not found")):
        await edit_text(bot, group, ann, ident, "x")
    assert eid(await send_ephemeral(bot, group, ann, "new")) == 1


# ---- waiting, with a running application ----------------------------------------------


async def test_a_bot_answers_an_ephemeral_command_and_a_press_ephemerally(
    server: FakeTelegramServer,
) -> None:
    async def hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        assert message is not None and message.from_user is not None
        await context.bot.send_message(
            message.chat.id,
            "Your cards: 6♠",
            reply_markup=keyboard([("Sort", "sort")]),
            api_kwargs={
                "ephemeral_message_parameters": {"receiver_user_id": message.from_user.id},
                "reply_parameters": {
                    "ephemeral_message_id": message.api_kwargs["ephemeral_message_id"]
                },
            },
        )

    async def sort(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and query.message is not None
        await query.answer("Sorted")
        await context.bot.do_api_request(
            "editEphemeralMessageText",
            api_kwargs={
                "chat_id": query.message.chat.id,
                "receiver_user_id": query.from_user.id,
                "ephemeral_message_id": query.message.api_kwargs["ephemeral_message_id"],
                "text": "Your cards: 6♠ (sorted)",
            },
        )

    server.set_limits(Limits.fast())
    app = server.application_builder().build()
    app.add_handler(CommandHandler("hand", hand))
    app.add_handler(CallbackQueryHandler(sort, pattern="^sort$"))
    group, ann, bob = await group_of(server)
    async with running(app):
        await app.bot.set_my_commands(
            [BotCommand("hand", "Your cards", api_kwargs={"is_ephemeral": True})]
        )
        await server.send_command(ann, group, "hand", ephemeral=None)
        cards = await server.wait_for_ephemeral(group, ann, lambda m: "6♠" in m.plain_text)
        press = await server.press(ann, cards, "Sort")
        assert (await press.answer()).text == "Sorted"
        await server.wait_for(lambda: "sorted" in cards.plain_text)
        later = await server.send_command(ann, group, "hand", ephemeral=True)
        newer = await server.wait_for_ephemeral(group, ann, after=cards)
        assert newer is not cards and newer.serial > later.serial
    assert server.ephemeral_messages(group, bob) == [] and server.bot_messages(group) == []
    assert server.rate_limited == []


# ---- flood control -------------------------------------------------------------------


async def test_rate_limits_each_pair_has_a_private_chats_budget(
    server: FakeTelegramServer, bot: Bot
) -> None:
    limiter_clock = ManualClock()
    server.limiter.clock = limiter_clock
    server.set_limits(Limits())  # Telegram's figures
    assert server.limits.ephemeral == "own"
    group, ann, bob = await group_of(server, admin=True)
    for _ in range(4):  # the private chats' burst
        await send_ephemeral(bot, group, ann)
    with pytest.raises(RetryAfter):
        await send_ephemeral(bot, group, ann)
    with pytest.raises(RetryAfter):
        await edit_text(bot, group, ann, 1, "edited")
    with pytest.raises(RetryAfter):
        await delete(bot, group, ann, 1)
    await send_ephemeral(bot, group, bob)  # another pair
    for n in range(20):  # the group's own window is untouched
        await bot.send_message(group.id, f"public {n}")
    limiter_clock.now += 1
    assert await edit_text(bot, group, ann, 1, "edited") is True
    assert server.rate_limited[-1].retry_after == 1


async def test_rate_limits_shared_with_the_group(server: FakeTelegramServer, bot: Bot) -> None:
    limiter_clock = ManualClock()
    server.limiter.clock = limiter_clock
    server.set_limits(Limits(ephemeral="group"))
    group, ann, bob = await group_of(server, admin=True)
    for n in range(15):
        await bot.send_message(group.id, f"public {n}")
    for _ in range(3):
        await send_ephemeral(bot, group, ann)
    await send_ephemeral(bot, group, bob)
    assert await edit_text(bot, group, ann, 1, "x") is True  # the 20th in the minute
    with pytest.raises(RetryAfter):
        await send_ephemeral(bot, group, bob)
    with pytest.raises(RetryAfter):
        await bot.send_message(group.id, "public")
    limiter_clock.now += 60
    await send_ephemeral(bot, group, ann)


async def test_fast_limits_scale_the_ephemeral_budget(server: FakeTelegramServer, bot: Bot) -> None:
    limiter_clock = ManualClock()
    server.limiter.clock = limiter_clock
    limits = Limits.fast()
    server.set_limits(limits)
    assert limits.ephemeral == "own"
    group, ann, _ = await group_of(server, admin=True)
    for _ in range(limits.chat_burst):
        await send_ephemeral(bot, group, ann)
    with pytest.raises(RetryAfter):
        await send_ephemeral(bot, group, ann)
    limiter_clock.now += limits.time_scale / limits.chat_per_second
    await send_ephemeral(bot, group, ann)
    with pytest.raises(ValueError, match=said("ephemeral")):
        Limits(ephemeral="everyone")


async def test_a_forced_429_meets_ephemeral_calls_too(server: FakeTelegramServer, bot: Bot) -> None:
    group, ann, _ = await group_of(server, admin=True)
    server.force_429(1, 7, chat=group, method="deleteEphemeralMessage")
    await send_ephemeral(bot, group, ann)
    with pytest.raises(RetryAfter):
        await delete(bot, group, ann, 1)
    assert await delete(bot, group, ann, 1) is True


# ---- disabled and styled buttons -----------------------------------------------------


async def test_disabled_and_styled_buttons(server: FakeTelegramServer, bot: Bot) -> None:
    ann = await server.create_user("Ann")
    await server.start_bot(ann)
    markup = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton("Take", callback_data="take", style="danger"),
                InlineKeyboardButton("Beat", callback_data="beat", style="Success"),
                InlineKeyboardButton("Pass", callback_data="pass", style="primary"),
            ],
            [
                InlineKeyboardButton("Waiting…", api_kwargs={"disabled": {}}),
                InlineKeyboardButton("Also off", api_kwargs={"disabled": True, "style": "danger"}),
                InlineKeyboardButton("Plain", callback_data="plain", style="default"),
            ],
        ]
    )
    sent = await bot.send_message(ann.id, "Your move", reply_markup=markup)
    message = server.message(ann.id, sent.message_id)
    top, bottom = message.buttons
    assert [b.style for b in top] == ["danger", "success", "primary"]
    assert [b.disabled for b in top] == [False, False, False]
    assert bottom[0].disabled and bottom[0].style is None and not bottom[0].pressable
    assert bottom[1].disabled and bottom[1].style == "danger"
    assert bottom[2].style is None and bottom[2].pressable
    with pytest.raises(ValueError, match=said("disabled")):
        await server.press(ann, message, "Waiting")
    await server.press(ann, message, "Take")

    def bad(button: dict[str, Any]) -> Any:
        return bot.send_message(
            ann.id, "x", api_kwargs={"reply_markup": {"inline_keyboard": [[button]]}}
        )

    with pytest.raises(BadRequest, match=said("Text buttons are unallowed")):
        await bad({"text": "Label"})  # still refused unless disabled
    with pytest.raises(BadRequest, match=said("Button_type_invalid")):
        await bad({"text": "Both", "disabled": {}, "callback_data": "x"})
    with pytest.raises(BadRequest, match=said("Button_type_invalid")):
        await bad({"text": "Both", "disabled": {}, "url": "https://example.com"})
    with pytest.raises(BadRequest, match=said('Field "disabled" must be of type Object')):
        await bad({"text": "Off", "disabled": "yes"})
    with pytest.raises(BadRequest, match=said("Invalid button style specified")):
        await bad({"text": "Red", "callback_data": "r", "style": "red"})
    with pytest.raises(BadRequest, match=said('Field "style" must be of type String')):
        await bad({"text": "Red", "callback_data": "r", "style": 1})
    # edits take them too, and so do ephemeral messages
    edited = InlineKeyboardMarkup([[InlineKeyboardButton("Done", api_kwargs={"disabled": {}})]])
    await bot.edit_message_reply_markup(ann.id, sent.message_id, reply_markup=edited)
    assert message.buttons[0][0].disabled
    group = await server.create_supergroup("G", members=[ann], bot_status=ADMINISTRATOR)
    await send_ephemeral(bot, group, ann, reply_markup=edited)
    shown = server.last_ephemeral(group, ann)
    assert shown is not None and shown.buttons[0][0].disabled


async def test_older_servers_ignore_what_they_do_not_know() -> None:
    async with FakeTelegramServer(limits=Limits.off(), api_version=(10, 1)) as server:
        app = server.application_builder().build()
        async with app:
            group, ann, _ = await group_of(server, admin=True)
            # no ephemeral messages before Bot API 10.2: an ordinary group message
            sent = await send_ephemeral(app.bot, group, ann, "for everyone")
            assert sent.message_id == 1 and "ephemeral_message_id" not in sent.api_kwargs
            assert server.bot_messages(group)[0].plain_text == "for everyone"
            # no disabled buttons before 10.3: a text button
            with pytest.raises(BadRequest, match=said("Text buttons are unallowed")):
                await app.bot.send_message(
                    group.id,
                    "x",
                    api_kwargs={
                        "reply_markup": {"inline_keyboard": [[{"text": "x", "disabled": {}}]]}
                    },
                )
    async with FakeTelegramServer(limits=Limits.off(), api_version=(10, 2)) as server:
        app = server.application_builder().build()
        async with app:
            group, ann, _ = await group_of(server, admin=True)
            # 10.2 takes receiver_user_id as a parameter, not the 10.3 object
            first = await send_ephemeral(app.bot, group, ann, "object")
            assert first.message_id == 1
            second = await app.bot.send_message(
                group.id, "parameter", api_kwargs={"receiver_user_id": ann.id}
            )
            assert second.message_id == 0 and eid(second) == 1
    async with FakeTelegramServer(limits=Limits.off(), api_version=(9, 3)) as server:
        app = server.application_builder().build()
        async with app:
            ann = await server.create_user("Ann")
            await server.start_bot(ann)
            # no styles before 9.4: an unknown one passes unread
            await app.bot.send_message(
                ann.id,
                "x",
                api_kwargs={
                    "reply_markup": {
                        "inline_keyboard": [[{"text": "x", "callback_data": "x", "style": "red"}]]
                    }
                },
            )
