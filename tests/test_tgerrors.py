"""Telegram's answers recognised by their exact wording, as python-telegram-bot raises them."""

from __future__ import annotations

import pytest
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TimedOut

from bot.transport import tgerrors


def bad(description: str) -> BadRequest:
    """A 400 as PTB builds it from Telegram's description."""
    return BadRequest(f"Bad Request: {description}")


@pytest.mark.parametrize(
    "description",
    [
        "message to edit not found",
        "message to delete not found",
        "MESSAGE_ID_INVALID",
        "message can't be edited",
    ],
)
def test_a_message_that_is_gone(description: str) -> None:
    assert tgerrors.is_gone(bad(description))
    assert not tgerrors.is_undeletable(bad(description))


@pytest.mark.parametrize(
    "description",
    [
        "message thread not found",
        "chat not found",
        "message to be replied not found",
        "can't parse entities: unsupported start tag",
    ],
)
def test_other_refusals_are_not_taken_for_a_gone_message(description: str) -> None:
    assert not tgerrors.is_gone(bad(description))
    assert not tgerrors.is_not_modified(bad(description))


def test_a_forum_topic_deleted_or_closed() -> None:
    gone, closed = bad("message thread not found"), bad("TOPIC_CLOSED")
    assert tgerrors.is_thread_gone(gone) and not tgerrors.is_topic_closed(gone)
    assert tgerrors.is_topic_closed(closed) and not tgerrors.is_thread_gone(closed)
    for other in ("message to edit not found", "chat not found", "message thread not found!"):
        assert not tgerrors.is_thread_gone(bad(other))
    assert not tgerrors.is_thread_gone(Forbidden("message thread not found"))


@pytest.mark.parametrize(
    "description", ["message can't be deleted", "message can't be deleted for everyone"]
)
def test_a_message_too_old_to_delete(description: str) -> None:
    assert tgerrors.is_undeletable(bad(description))
    assert not tgerrors.is_gone(bad(description))


def test_not_modified_is_recognised_with_telegram_s_explanation() -> None:
    exc = bad(
        "message is not modified: specified new message content and reply markup are "
        "exactly the same as a current content and reply markup of the message"
    )
    assert tgerrors.is_not_modified(exc)


def test_what_may_succeed_later() -> None:
    assert tgerrors.is_transient(TimedOut())
    assert tgerrors.is_transient(NetworkError("Bad Gateway"))
    assert not tgerrors.is_transient(bad("message to edit not found"))
    assert not tgerrors.is_transient(Forbidden("Forbidden: bot was blocked by the user"))
    assert not tgerrors.is_transient(RetryAfter(3))
    assert not tgerrors.is_transient(ChatMigrated(-100123))


def test_a_server_older_than_live_clocks() -> None:
    older = 'can\'t parse entities: Unsupported start tag "tg-time" at byte offset 84'
    assert tgerrors.is_clock_refused(bad(older))
    for other in (
        'can\'t parse entities: Unsupported start tag "p" at byte offset 84',
        'can\'t parse entities: Invalid "tg-time" tag at byte offset 84',
        "message is too long",
    ):
        assert not tgerrors.is_clock_refused(bad(other)), other
    assert not tgerrors.is_clock_refused(NetworkError(older))
