"""Bot API errors as Telegram words them, raised by method handlers and served as JSON."""

from __future__ import annotations

from typing import Any

MESSAGE_NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
CHAT_NOT_FOUND = "chat not found"
MESSAGE_TO_EDIT_NOT_FOUND = "message to edit not found"
MESSAGE_TO_DELETE_NOT_FOUND = "message to delete not found"
#: deleteMessage refused: no right to delete it, or (in a private chat) older than 48 hours.
MESSAGE_CANT_BE_DELETED = "message can't be deleted"
#: deleteMessage of a message older than 48 hours in a group or supergroup.
MESSAGE_CANT_BE_DELETED_FOR_EVERYONE = "message can't be deleted for everyone"
MESSAGE_CANT_BE_EDITED = "message can't be edited"
#: An edit by an inline_message_id Telegram does not know (or of an inline message that
#: was deleted): telegram-bot-api passes the id to tdlib's editInlineMessageText without
#: looking at it (Client.cpp, process_edit_message_text_query) and Telegram's server
#: answers MESSAGE_ID_INVALID, which the Bot API passes on as it is (an MTProto error of
#: messages.editInlineBotMessage; the same answer for a message its user deleted,
#: chelaxian/tg-ytdlp-bot#453, over MTProto's messages.editMessage).
MESSAGE_ID_INVALID = "MESSAGE_ID_INVALID"
#: An inline_message_id that is no identifier at all (not base64url of 20 or 24 bytes
#: naming a data centre): tdlib's wording (InlineMessageManager.cpp,
#: get_input_bot_inline_message_id); older servers said "Wrong inline message identifier
#: specified" (rubenlagus/TelegramBots#144).
INLINE_MESSAGE_ID_MALFORMED = "invalid inline message identifier specified"
MESSAGE_TOO_LONG = "message is too long"
MESSAGE_TEXT_EMPTY = "message text is empty"
BUTTON_DATA_INVALID = "BUTTON_DATA_INVALID"
BUTTON_TYPE_INVALID = "BUTTON_TYPE_INVALID"
REPLY_MARKUP_TOO_LONG = "reply markup is too long"
THREAD_NOT_FOUND = "message thread not found"
#: A send into a closed forum topic (the General one too) by someone who may not post there
#: (rteixeirax/qbittorrent_telegram_notification#12, userbotindo/Anjani#366).
TOPIC_CLOSED = "TOPIC_CLOSED"
GROUP_UPGRADED = "group chat was upgraded to a supergroup chat"
CANT_INITIATE = "bot can't initiate conversation with a user"
BLOCKED_BY_USER = "bot was blocked by the user"
GET_UPDATES_CONFLICT = (
    "terminated by other getUpdates request; make sure that only one bot instance is running"
)
WEBHOOK_CONFLICT = (
    "can't use getUpdates method while webhook is active; use deleteWebhook to delete "
    "the webhook first"
)
# ---- ephemeral messages (Bot API 10.2/10.3; see README "Ephemeral messages") -----------
#: An ephemeral send the bot is not entitled to: no eligible action (a callback query or
#: an incoming ephemeral message of the receiver's in the last 15 seconds) and not a chat
#: administrator; also any ephemeral send to a private chat. Researched: "private chat +
#: the same parameters -> 400 BOT_NOT_ADMIN", "verified behaviour against
#: api.telegram.org" (github.com/i-execute/Arena, BOT/lm_bot.py); that the same answer
#: comes in a group for a bot without an eligible action is inferred from it.
EPHEMERAL_NOT_ALLOWED = "BOT_NOT_ADMIN"
#: An ephemeral send to a channel. ASSUMED wording (no source found).
EPHEMERAL_IN_CHANNEL = "ephemeral messages can't be sent to channel chats"
#: The receiver is no member of the chat (left, kicked or never joined). ASSUMED: the
#: MTProto error Telegram gives for a user who is not in the chat.
RECEIVER_NOT_MEMBER = "USER_NOT_PARTICIPANT"
#: The receiver is a bot ("to any non-bot member of the chat", Bot API, "Ephemeral
#: messages and commands"). ASSUMED: the MTProto error for a bot where a user is needed.
RECEIVER_IS_BOT = "USER_IS_BOT"
#: receiver_user_id names no user Telegram knows (the Bot API's usual wording).
USER_NOT_FOUND = "user not found"
#: replace_callback_query_message without a callback_query_id. ASSUMED wording.
REPLACE_NEEDS_QUERY = "callback_query_id must be specified to replace the message"
#: replace_callback_query_message for a query from an ephemeral message: "Must be False
#: for callback queries from ephemeral messages, which must be edited using regular
#: editEphemeralMessage… methods" (Bot API, EphemeralMessageParameters). ASSUMED wording.
CANT_REPLACE_EPHEMERAL = "ephemeral messages can't be replaced; edit them instead"
#: editEphemeralMessageText with more than 1024 characters: the real server's limit is a
#: caption's, and so is its answer, although the Bot API documents 1-4096 characters
#: (tdlib/telegram-bot-api#881, August 2026: "Fails at > 1024 characters; Returns
#: MEDIA_CAPTION_TOO_LONG").
EPHEMERAL_TEXT_TOO_LONG = "MEDIA_CAPTION_TOO_LONG"

# ---- inline mode (see README "Inline mode") --------------------------------------------
#: answerInlineQuery with more than 50 results (telegram-bot-api, Client.cpp,
#: get_inline_query_results: "Too many inline query results specified").
TOO_MANY_INLINE_RESULTS = "too many inline query results specified"
#: Telegram's server errors for messages.setInlineBotResults, passed on as they are
#: (core.telegram.org/method/messages.setInlineBotResults, "Possible errors"): two results
#: with one id; an article with an empty title; a message text over 4096 characters;
#: a next_offset over 64 bytes ("Offset length can't exceed 64 bytes", Bot API).
RESULT_ID_DUPLICATE = "RESULT_ID_DUPLICATE"
ARTICLE_TITLE_EMPTY = "ARTICLE_TITLE_EMPTY"
INLINE_MESSAGE_TOO_LONG = "MESSAGE_TOO_LONG"
NEXT_OFFSET_INVALID = "NEXT_OFFSET_INVALID"
#: A result id that is not 1-64 bytes ("Unique identifier for this result, 1-64 bytes",
#: Bot API). ASSUMED: the server error "One of the specified result IDs is invalid" that
#: core.telegram.org lists for messages.savePreparedInlineMessage.
RESULT_ID_INVALID = "RESULT_ID_INVALID"
#: answerCallbackQuery's url that is not a t.me link to this bot with a start parameter
#: (nor a game's): "Bad Request: URL_INVALID" (eternnoir/pyTelegramBotAPI#1732,
#: python-telegram-bot#4728: any other URL; TelegramBots/Telegram.Bot#329: another bot's
#: link; LonamiWebs/Telethon#1452: a link to the bot without a start parameter).
URL_INVALID = "URL_INVALID"

#: A long poll that was waiting when setWebhook set a webhook.
SET_WEBHOOK_CONFLICT = "terminated by setWebhook request"


class ApiError(Exception):
    """One failed Bot API call: HTTP status, Telegram's description, optional parameters."""

    def __init__(
        self, error_code: int, description: str, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.parameters = parameters

    def to_json(self) -> dict[str, Any]:
        """The response body Telegram would send."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(text: str) -> ApiError:
    """400 "Bad Request: <text>"."""
    return ApiError(400, f"Bad Request: {text}")


def forbidden(text: str) -> ApiError:
    """403 "Forbidden: <text>"."""
    return ApiError(403, f"Forbidden: {text}")


def too_many_requests(retry_after: int) -> ApiError:
    """429 with parameters.retry_after, which PTB raises as RetryAfter."""
    return ApiError(
        429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
    )


def chat_migrated(new_chat_id: int) -> ApiError:
    """400 with parameters.migrate_to_chat_id, which PTB raises as ChatMigrated."""
    return ApiError(400, f"Bad Request: {GROUP_UPGRADED}", {"migrate_to_chat_id": new_chat_id})


def not_found() -> ApiError:
    """404 for an unknown method (or a malformed token)."""
    return ApiError(404, "Not Found")


def unauthorized() -> ApiError:
    """401 for a well-formed but wrong token."""
    return ApiError(401, "Unauthorized")


def conflict(text: str) -> ApiError:
    """409 "Conflict: <text>"."""
    return ApiError(409, f"Conflict: {text}")
