"""A fake Telegram Bot API server for end-to-end tests of the bot.

The real python-telegram-bot ``Application`` talks to it over HTTP on 127.0.0.1;
tests drive simulated users (private chats, groups, forum topics), press the inline
buttons the bot drew, and inspect every message and API call. ``README.md`` beside
this file has an example and lists what is faithful to Telegram and what is not.

Entry points: ``FakeTelegramServer`` (``server.py``; simulation methods come from
``simulation.py``, inspection and waiting from ``inspection.py``), ``Limits``
(``limits.py``, flood control), ``Faults`` (``faults.py``, network faults) and
``running`` (``ptb.py``). Inline mode (``inline_query``, ``choose_inline_result``,
``inline.py``) is described in the README's "Inline mode", guest mode (``mention_guest``,
``guest.py``) in its "Guest mode".
"""

from .api import MAX_EPHEMERAL_EDIT_LENGTH
from .errors import (
    ARTICLE_TITLE_EMPTY,
    CANT_REPLACE_EPHEMERAL,
    EPHEMERAL_IN_CHANNEL,
    EPHEMERAL_NOT_ALLOWED,
    EPHEMERAL_TEXT_TOO_LONG,
    INLINE_MESSAGE_ID_MALFORMED,
    INLINE_MESSAGE_TOO_LONG,
    MESSAGE_CANT_BE_DELETED,
    MESSAGE_CANT_BE_DELETED_FOR_EVERYONE,
    MESSAGE_ID_INVALID,
    NEXT_OFFSET_INVALID,
    QUERY_TOO_OLD,
    RECEIVER_IS_BOT,
    RECEIVER_NOT_MEMBER,
    REPLACE_NEEDS_QUERY,
    RESULT_ID_DUPLICATE,
    RESULT_ID_INVALID,
    TOO_MANY_INLINE_RESULTS,
    URL_INVALID,
    ApiError,
)
from .faults import Faults, Hold
from .formatting import MAX_TEXT_LENGTH, EntityParseError, ParsedText, parse_html, parse_text
from .guest import GuestQuery
from .inline import InlineAnswer, InlineQuery, InlineResult
from .inspection import GENERAL_TOPIC
from .keyboards import (
    BUTTON_STYLES,
    MAX_CALLBACK_DATA_BYTES,
    Button,
    inline_buttons,
    select_button,
)
from .limits import Limits, RateLimiter
from .models import (
    ADMINISTRATOR,
    CHANNEL,
    CREATOR,
    GROUP,
    KICKED,
    LEFT,
    MEMBER,
    PRIVATE,
    SUPERGROUP,
    ApiCall,
    CallbackAnswer,
    FakeChat,
    FakeMessage,
    FakeUser,
    MessageRevision,
    Press,
)
from .ptb import running
from .server import DEFAULT_TOKEN, FakeTelegramServer
from .webhook import SECRET_HEADER, post_update
from .world import WebhookConfig


def find_button(
    message: FakeMessage,
    text_contains: str | None = None,
    *,
    text: str | None = None,
    data: str | None = None,
    data_prefix: str | None = None,
) -> Button:
    """The first inline button of ``message`` matching the criteria (LookupError if none)."""
    return message.find_button(text_contains, text=text, data=data, data_prefix=data_prefix)


__all__ = [
    "ADMINISTRATOR",
    "ARTICLE_TITLE_EMPTY",
    "BUTTON_STYLES",
    "CANT_REPLACE_EPHEMERAL",
    "CHANNEL",
    "CREATOR",
    "DEFAULT_TOKEN",
    "EPHEMERAL_IN_CHANNEL",
    "EPHEMERAL_NOT_ALLOWED",
    "EPHEMERAL_TEXT_TOO_LONG",
    "GENERAL_TOPIC",
    "GROUP",
    "INLINE_MESSAGE_ID_MALFORMED",
    "INLINE_MESSAGE_TOO_LONG",
    "KICKED",
    "LEFT",
    "MAX_CALLBACK_DATA_BYTES",
    "MAX_EPHEMERAL_EDIT_LENGTH",
    "MAX_TEXT_LENGTH",
    "MEMBER",
    "MESSAGE_CANT_BE_DELETED",
    "MESSAGE_CANT_BE_DELETED_FOR_EVERYONE",
    "MESSAGE_ID_INVALID",
    "NEXT_OFFSET_INVALID",
    "PRIVATE",
    "QUERY_TOO_OLD",
    "RECEIVER_IS_BOT",
    "RECEIVER_NOT_MEMBER",
    "REPLACE_NEEDS_QUERY",
    "RESULT_ID_DUPLICATE",
    "RESULT_ID_INVALID",
    "SECRET_HEADER",
    "SUPERGROUP",
    "TOO_MANY_INLINE_RESULTS",
    "URL_INVALID",
    "ApiCall",
    "ApiError",
    "Button",
    "CallbackAnswer",
    "EntityParseError",
    "FakeChat",
    "FakeMessage",
    "FakeTelegramServer",
    "FakeUser",
    "Faults",
    "GuestQuery",
    "Hold",
    "InlineAnswer",
    "InlineQuery",
    "InlineResult",
    "Limits",
    "MessageRevision",
    "ParsedText",
    "Press",
    "RateLimiter",
    "WebhookConfig",
    "find_button",
    "inline_buttons",
    "parse_html",
    "parse_text",
    "post_update",
    "running",
    "select_button",
]
