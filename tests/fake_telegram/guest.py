"""Guest mode (Bot API 10.0): a user mentions ``@bot`` in a chat the bot is not in, the bot
gets a ``guest_message`` update and answers it with answerGuestQuery: one inline query
result, posted in that chat by the bot as a guest, an inline message from then on.

"Guest bots can be queried by username from any non-secret private chat, group and
supergroup (except for groups/supergroups with content protection enabled), posting their
results directly into the chat, even if they're not a member" (core.telegram.org/api/bots/
guest-mode). See the README's "Guest mode" for what each step follows.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import QUERY_TOO_OLD, bad_request, too_many_requests
from .inline import DEFAULT_INLINE_TIMEOUT
from .models import CHANNEL, PRIVATE, FakeChat, FakeMessage, FakeUser

if TYPE_CHECKING:
    from .api import BotApi, Params

#: The Bot API version that brought guest mode.
GUEST_MODE_SINCE = (10, 0)
#: Seconds within which the bot must answer a guest query. Not published anywhere found;
#: the inline queries' deadline is taken (``inline.DEFAULT_INLINE_TIMEOUT``).
DEFAULT_GUEST_TIMEOUT = DEFAULT_INLINE_TIMEOUT
#: "up to 3 guest bots can be mentioned at the same time" (core.telegram.org/api/bots/
#: guest-mode, "Invoking a guest bot").
MAX_GUEST_BOTS_PER_MESSAGE = 3


@dataclass(eq=False)
class GuestQuery:
    """A user's message that mentions the bot, and the guest query it made (if any).

    ``message`` is the user's message, posted in the chat as any. ``id`` is the
    ``guest_query_id`` the bot was sent in a ``guest_message`` update; None when no guest
    query was made (guest mode off, the bot a member of the chat, which then gets the
    message as an ordinary one if it sees it at all, or a group with content protection).
    ``reply`` is the message the bot posted with answerGuestQuery (None until it does)."""

    message: FakeMessage
    user: FakeUser = field(repr=False)
    chat: FakeChat = field(repr=False)
    id: str | None = None
    update_id: int | None = None
    #: ``World.clock()`` when it was sent (its age decides whether it may be answered).
    created: float = 0.0
    future: asyncio.Future[FakeMessage] | None = field(default=None, repr=False)

    @property
    def sent(self) -> bool:
        """Whether the bot was sent a guest query."""
        return self.id is not None

    @property
    def answered(self) -> bool:
        """Whether the bot answered it."""
        return self.future is not None and self.future.done()

    @property
    def reply(self) -> FakeMessage | None:
        """The message the bot posted in answer (None until it answers)."""
        return self.future.result() if self.future is not None and self.future.done() else None

    async def wait_reply(self, timeout: float = DEFAULT_GUEST_TIMEOUT) -> FakeMessage:
        """The bot's answer, once posted: waits ``timeout`` real seconds at most
        (TimeoutError), ValueError if no guest query was sent."""
        if self.future is None:
            raise ValueError("no guest query was sent for this message")
        return await asyncio.wait_for(asyncio.shield(self.future), timeout)


def guest_chat_qualifies(chat: FakeChat) -> bool:
    """Whether a guest bot can be summoned in ``chat``: "any non-secret private chat, group
    and supergroup (except for groups/supergroups with content protection enabled)"."""
    if chat.type == CHANNEL:
        return False
    return chat.type == PRIVATE or not chat.protected_content


def answer_guest_query(api: BotApi, p: Params) -> dict[str, Any]:
    """answerGuestQuery(guest_query_id, result): post the result's message in the chat
    of the query as the bot's, a guest's; a SentGuestMessage ``{inline_message_id}``.

    Read as telegram-bot-api reads it (Client.cpp, process_answer_guest_query_query and
    get_inline_query_result(const Query *)), checked as tdlib and Telegram's server check
    an inline query result (``inline_api``), then the query id (QUERY_ID_INVALID)."""
    from . import inline_api  # the inline results' reading, shared

    world = api.world
    raw = p.get("result")
    if raw is None or raw == "":
        raise bad_request("result isn't specified")
    if isinstance(raw, str):  # form-encoded: a JSON-encoded object
        try:
            raw = json.loads(raw)
        except ValueError:
            # sic: telegram-bot-api's wording (Client.cpp, get_inline_query_result)
            raise bad_request("can't parse JSON encoded web view query results") from None
    try:
        result, parsed = inline_api.read_result(api, raw)
    except inline_api.Unreadable as exc:
        text = str(exc)
        raise bad_request(text[:1].lower() + text[1:]) from None
    if not parsed.text.strip():
        raise bad_request("text must be non-empty")  # tdlib, fix_formatted_text
    query = world.guest_queries.get(p.string("guest_query_id") or "")
    if (
        query is None
        or query.answered
        or world.clock() - query.created > world.guest_timeout
        or query.message.deleted
        or query.chat.deleted
    ):
        raise bad_request(QUERY_TOO_OLD)
    inline_api.check_server_side(result, parsed)
    chat = query.chat
    retry_after = api.limiter.check("sendMessage", chat.id, chat.type)
    if retry_after is not None:
        raise too_many_requests(retry_after)
    caller = query.message
    extra: dict[str, Any] = {}
    sender_chat = caller.extra.get("sender_chat")
    if sender_chat is not None:
        # an anonymous admin or a channel called it: the caller is a chat (telegram-bot-api,
        # json_store_message_sender(..., "guest_bot_caller_user", "guest_bot_caller_chat"))
        extra["guest_bot_caller_chat"] = sender_chat
    else:
        extra["guest_bot_caller_user"] = caller.sender.to_api()
    message = world.add_message(
        chat,
        world.bot,
        text=result.message_text,
        parse_mode=result.parse_mode,
        plain_text=result.plain_text,
        entities=[dict(e) for e in result.entities],
        reply_markup=result.reply_markup,
        thread_id=caller.thread_id,
        reply_to=caller.message_id,
        extra=extra,
    )
    # messages.setBotGuestChatResult returns an InputBotInlineMessageID, whatever the
    # message carries: every guest answer is an inline message
    message.inline_message_id = world.new_inline_message_id(query.user)
    world.inline_messages[message.inline_message_id] = message
    api.limiter.consume("sendMessage", chat.id, chat.type)
    assert query.future is not None
    query.future.set_result(message)
    world.notifier.notify()
    return {"inline_message_id": message.inline_message_id}
