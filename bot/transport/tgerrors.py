"""Telegram's answers that the bot acts on, recognised by their exact wording.

python-telegram-bot raises every 400 as ``BadRequest`` and keeps only Telegram's
description (without "Bad Request: ", first letter capitalised, the rest lowered), so the
cause must be read from that text. Each answer below is matched whole, never as a loose
substring: "message to edit not found" must not also catch "message thread not found".
"""

from __future__ import annotations

import re
from typing import Final

from telegram.error import BadRequest, NetworkError

__all__ = [
    "EDIT_NOT_FOUND",
    "GONE",
    "THREAD_GONE",
    "TOPIC_CLOSED",
    "UNDELETABLE",
    "describe",
    "is_clock_refused",
    "is_gone",
    "is_inline_gone",
    "is_not_modified",
    "is_thread_gone",
    "is_topic_closed",
    "is_transient",
    "is_undeletable",
]

NOT_MODIFIED: Final = "message is not modified"
"""The start of Telegram's answer to an edit that changes nothing (the rest explains)."""

GONE: Final = frozenset(
    {
        "message to edit not found",
        "message to delete not found",
        "message_id_invalid",
        "message can't be edited",
    }
)
"""The message is no longer there to edit (deleted by the user, or never was)."""

EDIT_NOT_FOUND: Final = "message to edit not found"
"""No message has that id in the chat (deleted, or not made yet)."""

UNDELETABLE: Final = frozenset(
    {
        "message can't be deleted",
        "message can't be deleted for everyone",
    }
)
"""Telegram refuses the delete: a bot may delete only messages sent less than 48 h ago."""

CLOCK_REFUSED: Final = re.compile(
    r"can't parse entities: unsupported start tag \"tg-time\" at byte offset \d+"
)
"""A Bot API server older than 9.5 (a self-hosted telegram-bot-api not updated) knows no
``<tg-time>`` tag and refuses it as it refuses any unknown tag, in tdlib's words, e.g.
"Bad Request: can't parse entities: Unsupported start tag "tg-time" at byte offset 84"
(the same answer for another tag: kozalosev/DickGrowerBot#92)."""


THREAD_GONE: Final = "message thread not found"
"""A send into a forum topic that does not exist (any more): an admin deleted it, and every
message in it with it."""

TOPIC_CLOSED: Final = "topic_closed"
"""A send into a closed forum topic (or a closed General topic): only members who manage
topics, and a topic's creator, may post there. Its messages can still be edited."""


def describe(exc: BaseException) -> str:
    """Telegram's description in the form it is compared in: lower case, no prefix."""
    text = str(exc).strip().lower()
    return text.removeprefix("bad request: ")


def is_not_modified(exc: BaseException) -> bool:
    """An edit that would change nothing: the message already shows that content."""
    return isinstance(exc, BadRequest) and describe(exc).startswith(NOT_MODIFIED)


def is_gone(exc: BaseException) -> bool:
    """The message to edit or delete does not exist (any more)."""
    return isinstance(exc, BadRequest) and describe(exc) in GONE


INLINE_INVALID: Final = "invalid inline message identifier specified"
"""An ``inline_message_id`` that is no id at all (tdlib's words)."""


def is_inline_gone(exc: BaseException) -> bool:
    """An inline message that cannot be edited any more: deleted, with its chat or alone
    (Telegram's MESSAGE_ID_INVALID), or an id that names none."""
    return isinstance(exc, BadRequest) and (
        describe(exc) in GONE or describe(exc) == INLINE_INVALID
    )


def is_thread_gone(exc: BaseException) -> bool:
    """The forum topic a message was sent to is gone (deleted)."""
    return isinstance(exc, BadRequest) and describe(exc) == THREAD_GONE


def is_topic_closed(exc: BaseException) -> bool:
    """The forum topic a message was sent to is closed to the bot."""
    return isinstance(exc, BadRequest) and describe(exc) == TOPIC_CLOSED


def is_undeletable(exc: BaseException) -> bool:
    """The message exists but may not be deleted (older than 48 hours)."""
    return isinstance(exc, BadRequest) and describe(exc) in UNDELETABLE


def is_transient(exc: BaseException) -> bool:
    """A network failure (timeout, reset connection, a 5xx from the gateway): the same
    request may succeed later. A timed-out request may also have been carried out."""
    return isinstance(exc, NetworkError) and not isinstance(exc, BadRequest)


DISABLED_REFUSED: Final = "text buttons are unallowed in the inline keyboard"
"""A Bot API server older than 10.3 (a self-hosted telegram-bot-api not updated) knows no
disabled buttons: it takes one for a button with nothing to do, which it refuses ("can't
parse inline keyboard button: text buttons are unallowed in the inline keyboard")."""


def is_disabled_refused(exc: BaseException) -> bool:
    """The server does not know disabled buttons: it is older than Bot API 10.3."""
    return isinstance(exc, BadRequest) and describe(exc).endswith(DISABLED_REFUSED)


def is_clock_refused(exc: BaseException) -> bool:
    """The server does not know live clocks (``<tg-time>``): it is older than Bot API 9.5."""
    return isinstance(exc, BadRequest) and CLOCK_REFUSED.fullmatch(describe(exc)) is not None
