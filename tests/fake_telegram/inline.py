"""Inline mode: inline queries, the bot's answers, and the ids of inline messages.

A user types ``@bot text`` in any chat; the bot gets an ``inline_query`` update and answers
it with answerInlineQuery; the user picks a result and it is posted in that chat as his
message "via @bot". See the README's "Inline mode" for what Telegram says about each step.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import re
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from .keyboards import Button, inline_buttons, select_button
from .models import CHANNEL, GROUP, PRIVATE, FakeChat, FakeUser

#: "No more than 50 results per query are allowed" (Bot API, answerInlineQuery).
MAX_INLINE_RESULTS = 50
#: answerInlineQuery's cache_time: "Defaults to 300"; telegram-bot-api takes 0 to 86400
#: (Client.cpp, process_answer_inline_query_query: get_integer_arg(..., 300, 0, 86400)).
DEFAULT_CACHE_TIME = 300
MAX_CACHE_TIME = 24 * 60 * 60
#: A result id: "Unique identifier for this result, 1-64 bytes"; next_offset: "Offset
#: length can't exceed 64 bytes" (Bot API).
MAX_RESULT_ID_BYTES = 64
MAX_OFFSET_BYTES = 64
#: Seconds within which a bot must answer an inline query; later the user's app has
#: given up and answerInlineQuery says "query is too old". Not published: a bot that took
#: 20 s was refused, "probably around 5-10 seconds" (eternnoir/pyTelegramBotAPI#1615);
#: a deadline of 6.5 s was used in NousResearch/hermes-agent#52683 (#78774).
DEFAULT_INLINE_TIMEOUT = 10.0
_START_PARAMETER_RE = re.compile(r"^[A-Za-z0-9_-]*$")
_BASE64URL_RE = re.compile(r"^[A-Za-z0-9_-]*={0,2}$")


def chat_type_for(chat: FakeChat, user: FakeUser) -> str:
    """InlineQuery.chat_type as telegram-bot-api writes it (Client.cpp, JsonInlineQuery):
    "sender" for the user's chat with himself, "private" for any other private chat (the
    bot's too), "group", "supergroup" or "channel"."""
    if chat.type == PRIVATE:
        return "sender" if chat.user is user and chat.peer is user else "private"
    if chat.type in (GROUP, CHANNEL):
        return chat.type
    return "supergroup"


def new_inline_message_id(serial: int, owner: int, dc_id: int = 2) -> str:
    """An inline_message_id as Telegram gives them: base64url (no padding) of an
    inputBotInlineMessageID64 (dc_id, owner_id, id, access_hash; 24 bytes, 32 characters;
    tdlib InlineQueriesManager.cpp, get_inline_message_id)."""
    access_hash = (serial * 0x9E3779B97F4A7C15 + owner) % (1 << 63)
    packed = struct.pack("<iqiq", dc_id, owner, serial, access_hash)
    return base64.urlsafe_b64encode(packed).rstrip(b"=").decode()


def is_inline_message_id(value: str) -> bool:
    """Whether tdlib would take ``value`` for an inline message id: base64url of 20 bytes
    (inputBotInlineMessageID) or 24 (inputBotInlineMessageID64) whose data centre id is
    valid (InlineMessageManager.cpp, parse_input_bot_inline_message_id). Anything else
    is "invalid inline message identifier specified"; a valid one Telegram does not
    know is MESSAGE_ID_INVALID."""
    if not value or not _BASE64URL_RE.match(value) or len(value.rstrip("=")) % 4 == 1:
        return False
    body = value.rstrip("=")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return False
    if len(raw) not in (20, 24):
        return False
    (dc_id,) = struct.unpack_from("<i", raw)
    return 1 <= dc_id <= 1000


def start_parameter_problem(value: str) -> str | None:
    """tdlib's objection to an InlineQueryResultsButton's start_parameter ("1-64
    characters, only A-Z, a-z, 0-9, _ and - are allowed", Bot API), in its wording
    (InlineQueriesManager.cpp, answer_inline_query), or None."""
    if not value:
        return "can't use empty start_parameter"
    if len(value) > 64:
        return "too long start_parameter specified"
    if not _START_PARAMETER_RE.match(value):
        return "unallowed characters in start_parameter are used"
    return None


@dataclass(eq=False)
class InlineResult:
    """One result of the bot's answer, as the user's app lists it (an article)."""

    id: str
    title: str
    #: The message the result sends: its text as given, and as the chat shows it.
    message_text: str
    plain_text: str
    parse_mode: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    #: The inline keyboard the sent message carries (None: none).
    reply_markup: dict[str, Any] | None = None
    description: str | None = None
    thumbnail_url: str | None = None
    url: str | None = None
    type: str = "article"
    #: The InlineQueryResult object as the bot sent it.
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def buttons(self) -> list[list[Button]]:
        """The keyboard of the message it sends, as rows of buttons ([] if none)."""
        return inline_buttons(self.reply_markup)

    @property
    def button_list(self) -> list[Button]:
        """All its buttons, row by row."""
        return [button for row in self.buttons for button in row]

    def find_button(self, text_contains: str | None = None, *, data: str | None = None) -> Button:
        """The first matching button (LookupError if none)."""
        found = select_button(self.button_list, text_contains=text_contains, data=data)
        if found is None:
            raise LookupError(f"no button {text_contains or data!r} in result {self.id!r}")
        return found


@dataclass(eq=False)
class InlineAnswer(Sequence[InlineResult]):
    """What a user's app shows after he typed ``@bot text``: the results (a sequence:
    ``answer[0]``, ``len(answer)``), and how they came.

    ``query`` is the inline query the bot was sent (None when a cached answer was served
    or inline mode is off: the bot saw nothing); ``cached`` says the answer came from
    Telegram's cache; ``timed_out`` that the bot did not answer in time (no results)."""

    results: list[InlineResult]
    user: FakeUser = field(repr=False)
    chat: FakeChat = field(repr=False)
    text: str
    offset: str = ""
    #: The id of the query the results belong to (the first asker's, for a cached answer).
    query_id: str | None = None
    query: InlineQuery | None = field(default=None, repr=False)
    cached: bool = False
    timed_out: bool = False
    next_offset: str = ""
    is_personal: bool = False
    cache_time: int = DEFAULT_CACHE_TIME
    #: The InlineQueryResultsButton above the results: {"text", "start_parameter"} or
    #: {"text", "web_app": {"url"}}; None if none.
    button: dict[str, Any] | None = None

    @overload
    def __getitem__(self, index: int) -> InlineResult: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[InlineResult]: ...

    def __getitem__(self, index: int | slice) -> InlineResult | Sequence[InlineResult]:
        return self.results[index]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[InlineResult]:
        return iter(self.results)

    @property
    def start_parameter(self) -> str | None:
        """The button's start parameter: pressing it opens the bot's private chat and sends
        ``/start <parameter>`` (``tg.start_bot(user, answer.start_parameter)``)."""
        return self.button.get("start_parameter") if self.button else None

    def result(self, which: int | str) -> InlineResult:
        """A result by position or by id (LookupError if there is none)."""
        if isinstance(which, int):
            if not 0 <= which < len(self.results):
                raise LookupError(f"no result {which}: the answer has {len(self.results)}")
            return self.results[which]
        for result in self.results:
            if result.id == which:
                return result
        raise LookupError(f"no result with id {which!r}: {[r.id for r in self.results]}")


@dataclass(eq=False)
class InlineQuery:
    """An inline query sent to the bot (an ``inline_query`` update) and its answer."""

    id: str
    update_id: int
    user: FakeUser
    chat: FakeChat = field(repr=False)
    query: str
    offset: str
    chat_type: str
    #: ``World.clock()`` when it was sent (its age decides whether it may be answered).
    created: float
    future: asyncio.Future[InlineAnswer] = field(repr=False)
    #: The user's app gave up waiting (``inline_timeout``): answering is refused.
    expired: bool = False

    @property
    def answered(self) -> bool:
        """Whether the bot answered it."""
        return self.future.done()

    @property
    def result(self) -> InlineAnswer | None:
        """The bot's answer, if it came."""
        return self.future.result() if self.future.done() else None
