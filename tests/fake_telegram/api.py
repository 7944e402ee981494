"""The Bot API methods the fake implements, with Telegram's checks and error wording."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

from .errors import (
    BLOCKED_BY_USER,
    CANT_INITIATE,
    CANT_REPLACE_EPHEMERAL,
    CHAT_NOT_FOUND,
    EPHEMERAL_IN_CHANNEL,
    EPHEMERAL_NOT_ALLOWED,
    EPHEMERAL_TEXT_TOO_LONG,
    GET_UPDATES_CONFLICT,
    MESSAGE_CANT_BE_DELETED,
    MESSAGE_CANT_BE_DELETED_FOR_EVERYONE,
    MESSAGE_CANT_BE_EDITED,
    MESSAGE_NOT_MODIFIED,
    MESSAGE_TEXT_EMPTY,
    MESSAGE_TO_DELETE_NOT_FOUND,
    MESSAGE_TO_EDIT_NOT_FOUND,
    MESSAGE_TOO_LONG,
    QUERY_TOO_OLD,
    RECEIVER_IS_BOT,
    RECEIVER_NOT_MEMBER,
    REPLACE_NEEDS_QUERY,
    SET_WEBHOOK_CONFLICT,
    THREAD_NOT_FOUND,
    TOPIC_CLOSED,
    URL_INVALID,
    USER_NOT_FOUND,
    WEBHOOK_CONFLICT,
    ApiError,
    bad_request,
    chat_migrated,
    conflict,
    forbidden,
    not_found,
    too_many_requests,
)
from .formatting import MAX_TEXT_LENGTH, EntityParseError, ParsedText, parse_text
from .guest import GUEST_MODE_SINCE, answer_guest_query
from .inline_api import (
    answer_inline_query,
    inline_markup,
    inline_target,
    names_inline_message,
)
from .keyboards import validate_reply_markup
from .limits import RateLimiter
from .media import Upload, image_size, photo_problem
from .models import (
    ADMINISTRATOR,
    CHANNEL,
    CREATOR,
    GROUP,
    KICKED,
    LEFT,
    MEMBER,
    PRESENT_STATUSES,
    PRIVATE,
    CallbackAnswer,
    FakeChat,
    FakeMessage,
    FakeUser,
    MessageRevision,
    member_to_api,
)
from .world import WebhookConfig, World

#: answerCallbackQuery's text: "0-200 characters" (core.telegram.org/bots/api
#: #answercallbackquery); over it Telegram answers 400 "Bad Request: MESSAGE_TOO_LONG"
#: (as reported in eternnoir/pyTelegramBotAPI#500).
MAX_CALLBACK_ANSWER_LENGTH = 200
#: The Bot API version that brought the date_time entity and its HTML tag <tg-time>
#: (core.telegram.org/bots/api-changelog, March 1, 2026). An older self-hosted server
#: refuses the tag as any unknown one: "can't parse entities: Unsupported start tag
#: "tg-time" at byte offset N" (tdlib's wording, as in kozalosev/DickGrowerBot#92).
LIVE_CLOCKS_SINCE = (9, 5)

#: Bot API versions that brought ephemeral messages (10.2: receiver_user_id and
#: callback_query_id parameters, BotCommand.is_ephemeral) and their
#: ephemeral_message_parameters object (10.3), core.telegram.org/bots/api-changelog.
EPHEMERAL_SINCE = (10, 2)
EPHEMERAL_PARAMETERS_SINCE = (10, 3)
#: editEphemeralMessageText's real limit (tdlib/telegram-bot-api#881; see errors.py).
MAX_EPHEMERAL_EDIT_LENGTH = 1024

#: A photo's caption: "0-1024 characters after entities parsing" (Bot API, sendPhoto).
MAX_CAPTION_LENGTH = 1024
#: Seconds after a 409 of getUpdates within which another is answered that late, not at
#: once (telegram-bot-api's Client::fail_query_conflict: 3.0; real time, not scaled).
CONFLICT_PACE = 3.0
#: A bot may delete a message only within this many seconds of its sending.
DELETE_WINDOW = 48 * 3600
_COMMAND_NAME_RE = re.compile(r"^[a-z0-9_]{1,32}$")
_SECRET_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
_ANSWER_URL_RE = re.compile(
    r"^(?:https?://)?(?:t\.me|telegram\.me)/(?P<bot>[A-Za-z0-9_]+)\?start=[^&#\s]*$",
    re.IGNORECASE,
)
_SCOPES = frozenset(
    {
        "default",
        "all_private_chats",
        "all_group_chats",
        "all_chat_administrators",
        "chat",
        "chat_administrators",
        "chat_member",
    }
)

Handler = Callable[["Params"], Awaitable[Any]]


class Params:
    """Typed access to one call's parameters, with Telegram-like errors."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def get(self, name: str) -> Any:
        """The raw value (None if absent)."""
        return self.raw.get(name)

    def integer(self, name: str) -> int | None:
        """An integer parameter."""
        value = self.raw.get(name)
        if value is None or value == "":
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            try:
                return int(str(value))
            except ValueError:
                raise bad_request(f"invalid {name} specified") from None
        return value

    def number(self, name: str) -> float | None:
        """A numeric parameter (int or float)."""
        value = self.raw.get(name)
        if value is None or value == "":
            return None
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def string(self, name: str) -> str | None:
        """A string parameter."""
        value = self.raw.get(name)
        return None if value is None else str(value)

    def flag(self, name: str) -> bool:
        """A boolean parameter (absent = False)."""
        value = self.raw.get(name)
        if isinstance(value, str):
            return value.lower() in ("true", "1")
        return bool(value)


def _as_int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.lower() in ("true", "1")
    return bool(value)


def _norm_markup(markup: dict[str, Any] | None) -> dict[str, Any] | None:
    if not markup:
        return None
    if "inline_keyboard" in markup and not any(markup["inline_keyboard"]):
        return None
    return markup


class BotApi:
    """Dispatches Bot API calls against a World; raises ApiError like Telegram."""

    def __init__(
        self,
        world: World,
        limiter: RateLimiter,
        *,
        allow_http_webhook: bool = True,
        on_webhook_change: Callable[[], None] | None = None,
    ) -> None:
        self.world = world
        self.limiter = limiter
        self.allow_http_webhook = allow_http_webhook
        self.on_webhook_change = on_webhook_change
        self.closing = False
        self._poll_generation = 0
        self._next_conflict = float("-inf")
        self._handlers: dict[str, tuple[str, Handler]] = {}
        for name in (
            "getMe",
            "logOut",
            "close",
            "getUpdates",
            "setWebhook",
            "deleteWebhook",
            "getWebhookInfo",
            "setMyCommands",
            "getMyCommands",
            "deleteMyCommands",
            "setMyDescription",
            "getMyDescription",
            "setMyShortDescription",
            "getMyShortDescription",
            "setMyName",
            "getMyName",
            "sendMessage",
            "sendPhoto",
            "editMessageText",
            "editMessageReplyMarkup",
            "editEphemeralMessageText",
            "editEphemeralMessageReplyMarkup",
            "deleteEphemeralMessage",
            "deleteMessage",
            "deleteMessages",
            "answerCallbackQuery",
            "answerInlineQuery",
            "answerGuestQuery",
            "sendChatAction",
            "getChat",
            "getChatMember",
            "getChatAdministrators",
            "getChatMemberCount",
            "pinChatMessage",
            "unpinChatMessage",
            "unpinAllChatMessages",
            "leaveChat",
            "savePreparedInlineMessage",
        ):
            handler: Handler = getattr(self, "_" + re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower())
            self._handlers[name.lower()] = (name, handler)

    def canonical(self, method: str) -> str:
        """Telegram's spelling of a method name (method names are case-insensitive)."""
        entry = self._handlers.get(method.lower())
        return entry[0] if entry else method

    async def call(self, method: str, raw: dict[str, Any]) -> Any:
        """Run one method and return its result, or raise ApiError (ForcedRetry if forced)."""
        self.take_forced(method, raw)
        return await self.run(method, raw)

    def take_forced(self, method: str, raw: dict[str, Any]) -> None:
        """Raise ForcedRetry if a forced 429 or a flood wait matches this call (unknown
        methods: never)."""
        entry = self._handlers.get(method.lower())
        if entry is None:
            return
        retry_after = self.limiter.take_forced(entry[0], self.world.chat_id_named(raw))
        if retry_after is None:
            retry_after = self.limiter.take_flood(entry[0])
        if retry_after is not None:
            raise ForcedRetry(retry_after)

    async def run(self, method: str, raw: dict[str, Any]) -> Any:
        """Run one method without looking at forced 429s; its result, or ApiError."""
        entry = self._handlers.get(method.lower())
        if entry is None:
            raise not_found()
        return await entry[1](Params(raw))

    # ---- shared checks -----------------------------------------------------------

    def _chat(self, p: Params, *, write: bool) -> FakeChat:
        raw = p.get("chat_id")
        if raw is None or raw == "":
            raise bad_request("chat_id is empty")
        chat = self.world.find_chat(raw)
        if chat is None:
            raise bad_request(CHAT_NOT_FOUND)
        if chat.migrated_to is not None:
            raise chat_migrated(chat.migrated_to)
        if chat.type == PRIVATE:
            if write and chat.user is not None:
                if chat.user.blocked:
                    raise forbidden(BLOCKED_BY_USER)
                if not chat.user.started:
                    raise forbidden(CANT_INITIATE)
        elif chat.bot_status not in PRESENT_STATUSES:
            kind = {GROUP: "group", CHANNEL: "channel"}.get(chat.type, "supergroup")
            if chat.bot_status == KICKED:
                raise forbidden(f"bot was kicked from the {kind} chat")
            raise forbidden(f"bot is not a member of the {kind} chat")
        return chat

    def _flood_check(self, method: str, chat: FakeChat) -> None:
        retry_after = self.limiter.check(method, chat.id, chat.type)
        if retry_after is not None:
            raise too_many_requests(retry_after)

    def _flood_consume(self, method: str, chat: FakeChat) -> None:
        self.limiter.consume(method, chat.id, chat.type)

    def _markup(self, p: Params, chat: FakeChat) -> dict[str, Any] | None:
        return validate_reply_markup(
            p.get("reply_markup"), private=chat.type == PRIVATE, api_version=self.world.api_version
        )

    def _thread(self, chat: FakeChat, p: Params) -> int | None:
        thread_id = p.integer("message_thread_id")
        if thread_id is None:
            return None
        if chat.is_forum and thread_id not in chat.topics:
            raise bad_request(THREAD_NOT_FOUND)
        return thread_id

    def _check_open(self, chat: FakeChat, thread_id: int | None) -> None:
        """A closed topic takes new messages only from those who manage topics or, for a
        topic that is not General, from its creator: "If the topic is closed, then the
        user must have can_manage_topics administrator right in the supergroup or must be
        the creator of the topic to send messages there" (tdlib td_api.tl,
        forumTopicInfo.is_closed). Telegram answers TOPIC_CLOSED. Editing the messages
        already there stays allowed."""
        if not chat.is_forum:
            return
        closed = chat.general_closed if thread_id is None else thread_id in chat.closed_topics
        if not closed or chat.bot_is_admin:  # the fake's admins may manage topics
            return
        if thread_id is not None and chat.topic_creators.get(thread_id) == self.world.bot.id:
            return
        raise bad_request(TOPIC_CLOSED)

    def _text(
        self, p: Params, *, limit: int = MAX_TEXT_LENGTH, too_long: str = MESSAGE_TOO_LONG
    ) -> tuple[str, str | None, ParsedText]:
        text = p.get("text")
        if text is None or str(text).strip() == "":
            raise bad_request(MESSAGE_TEXT_EMPTY)
        text = str(text)
        parse_mode = p.string("parse_mode") or None
        entities = p.get("entities")
        if entities is not None and not (
            isinstance(entities, list) and all(isinstance(e, dict) for e in entities)
        ):
            raise bad_request("can't parse entities JSON object")
        try:
            parsed = parse_text(
                text, parse_mode, entities, live_clocks=self.world.knows(LIVE_CLOCKS_SINCE)
            )
        except EntityParseError as exc:
            raise bad_request(f"can't parse entities: {exc}") from None
        except ValueError:
            raise bad_request("unsupported parse_mode") from None
        if not parsed.text:
            raise bad_request(MESSAGE_TEXT_EMPTY)
        # sendMessage's text and editMessageText's: "1-4096 characters after entities
        # parsing" (core.telegram.org/bots/api#sendmessage, #editmessagetext). tdlib, which
        # the Bot API server runs, counts a bot's text in code points (utf8_length against
        # message_text_length_max in td/telegram/MessageContent.cpp) and answers "Message
        # is too long"; the Bot API gives it as 400 "Bad Request: message is too long".
        if parsed.length > limit:
            raise bad_request(too_long)
        return text, parse_mode, parsed

    def _message(self, chat: FakeChat, p: Params, missing: str) -> FakeMessage:
        message_id = p.integer("message_id")
        if message_id is None:
            raise bad_request("message identifier is not specified")
        message = chat.messages.get(message_id)
        if message is None or message.deleted:
            raise bad_request(missing)
        return message

    def _edit_target(self, p: Params, method: str) -> tuple[FakeChat, FakeMessage]:
        chat = self._chat(p, write=True)
        self._flood_check(method, chat)
        message = self._message(chat, p, MESSAGE_TO_EDIT_NOT_FOUND)
        if not message.from_bot:
            # A bot edits only its own messages; a user's is refused with this wording
            # (yagop/node-telegram-bot-api#254, pengrad/java-telegram-bot-api#149).
            raise bad_request(MESSAGE_CANT_BE_EDITED)
        return chat, message

    def _apply_edit(
        self,
        message: FakeMessage,
        *,
        text: str | None,
        parse_mode: str | None,
        parsed: ParsedText | None,
        markup: dict[str, Any] | None,
    ) -> None:
        new_plain = parsed.text if parsed else message.plain_text
        new_entities = parsed.entities if parsed else message.entities
        if (
            new_plain == message.plain_text
            and new_entities == message.entities
            and _norm_markup(markup) == _norm_markup(message.reply_markup)
        ):
            raise bad_request(MESSAGE_NOT_MODIFIED)
        message.history.append(
            MessageRevision(
                message.text,
                message.parse_mode,
                message.entities,
                message.reply_markup,
                self.world.elapsed(),
            )
        )
        if parsed is not None:
            message.text = text
            message.parse_mode = parse_mode
            message.plain_text = parsed.text
            message.entities = parsed.entities
        message.reply_markup = markup
        message.edit_count += 1
        message.edit_date = self.world.now()

    # ---- bot and updates ---------------------------------------------------------

    async def _get_me(self, p: Params) -> Any:
        data = self.world.bot.to_api()
        data.update(
            can_join_groups=True,
            can_read_all_group_messages=not self.world.privacy_mode,
            supports_inline_queries=self.world.inline_mode,
            can_connect_to_business=False,
            has_main_web_app=False,
        )
        if self.world.knows(GUEST_MODE_SINCE):
            # "True, if the bot supports guest queries from chats it is not a member of.
            # Returned only in getMe" (Bot API 10.0, User)
            data["supports_guest_queries"] = self.world.guest_mode
        return data

    async def _log_out(self, p: Params) -> Any:
        return True

    async def _close(self, p: Params) -> Any:
        return True

    async def _get_updates(self, p: Params) -> Any:
        # As telegram-bot-api answers (tdlib/telegram-bot-api, telegram-bot-api/Client.cpp,
        # the server behind api.telegram.org: process_get_updates_query, do_get_updates,
        # abort_long_poll, fail_query_conflict), and the Bot API's getUpdates: "This method
        # will not work if an outgoing webhook is set up" (core.telegram.org/bots/api):
        # * with a webhook set, 409 WEBHOOK_CONFLICT at once;
        # * one long poll waits per token. A call that is going to wait itself (a timeout,
        #   and nothing to return yet) ends the one waiting with 409 GET_UPDATES_CONFLICT
        #   and waits in its place: the *older* poll is terminated, the new one proceeds.
        #   A call that returns at once (updates waiting, or timeout 0) leaves it waiting;
        # * setWebhook ends the waiting poll with 409 SET_WEBHOOK_CONFLICT;
        # * 409s are paced: one at once, then none sooner than 3 s after it; a conflict in
        #   those 3 s is answered 3 s late (two pollers fighting each see a 409 at most
        #   every few seconds).
        world = self.world
        if world.webhook is not None:
            await self._conflict(WEBHOOK_CONFLICT)
        offset = p.integer("offset")
        if offset:
            world.queue.confirm(offset)
        allowed = p.get("allowed_updates")
        if isinstance(allowed, list):
            world.queue.allowed = [str(kind) for kind in allowed]
        limit = p.integer("limit") or 100
        timeout = p.number("timeout") or 0.0
        batch = world.queue.take(limit)
        if batch or timeout <= 0 or self.closing:
            return batch
        self._poll_generation += 1
        generation = self._poll_generation
        world.notifier.notify()  # the long poll waiting until now ends with 409
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            event = world.notifier.current()
            if self._poll_generation != generation:
                await self._conflict(GET_UPDATES_CONFLICT)
            if world.webhook is not None:
                await self._conflict(SET_WEBHOOK_CONFLICT)
            if self.closing:
                return []
            batch = world.queue.take(limit)
            if batch:
                return batch
            remaining = deadline - loop.time()
            if remaining <= 0:
                return []
            await world.notifier.wait(event, remaining)

    async def _conflict(self, text: str) -> NoReturn:
        """Raise 409 "Conflict: ``text``": at once if none was answered in the last
        ``CONFLICT_PACE`` seconds, else that many seconds late (telegram-bot-api's
        fail_query_conflict)."""
        loop = asyncio.get_running_loop()
        if loop.time() >= self._next_conflict:
            self._next_conflict = loop.time() + CONFLICT_PACE
        else:
            await asyncio.sleep(CONFLICT_PACE)
        raise conflict(text)

    async def _set_webhook(self, p: Params) -> Any:
        url = p.string("url") or ""
        if not url:
            return await self._delete_webhook(p)
        if not url.startswith("https://") and not (
            self.allow_http_webhook and url.startswith("http://")
        ):
            raise bad_request("bad webhook: HTTPS url must be provided for webhook")
        secret = p.string("secret_token")
        if secret is not None and not _SECRET_TOKEN_RE.match(secret):
            raise bad_request("secret token contains unallowed characters")
        if p.flag("drop_pending_updates"):
            self.world.queue.drop_all()
        allowed = p.get("allowed_updates")
        if isinstance(allowed, list):
            self.world.queue.allowed = [str(kind) for kind in allowed]
        self.world.webhook = WebhookConfig(
            url=url,
            secret_token=secret,
            max_connections=p.integer("max_connections") or 40,
            allowed_updates=allowed if isinstance(allowed, list) else None,
            ip_address=p.string("ip_address"),
        )
        if self.on_webhook_change:
            self.on_webhook_change()
        self.world.notifier.notify()
        return True

    async def _delete_webhook(self, p: Params) -> Any:
        if p.flag("drop_pending_updates"):
            self.world.queue.drop_all()
        self.world.webhook = None
        if self.on_webhook_change:
            self.on_webhook_change()
        self.world.notifier.notify()
        return True

    async def _get_webhook_info(self, p: Params) -> Any:
        hook = self.world.webhook
        info: dict[str, Any] = {
            "url": hook.url if hook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self.world.queue.pending),
        }
        if hook:
            info["max_connections"] = hook.max_connections
            if hook.allowed_updates is not None:
                info["allowed_updates"] = hook.allowed_updates
            if hook.ip_address:
                info["ip_address"] = hook.ip_address
            if hook.last_error_date is not None:
                info["last_error_date"] = hook.last_error_date
                info["last_error_message"] = hook.last_error_message
        return info

    # ---- commands and bot texts --------------------------------------------------

    def _scope_key(self, p: Params) -> tuple[str, str]:
        scope = p.get("scope") or {"type": "default"}
        if not isinstance(scope, dict) or scope.get("type") not in _SCOPES:
            raise bad_request("can't parse BotCommandScope JSON object")
        if "chat_id" in scope:
            chat = self.world.find_chat(scope["chat_id"])
            if chat is None:
                raise bad_request(CHAT_NOT_FOUND)
            scope = {**scope, "chat_id": chat.id}
        return scope_key(scope), p.string("language_code") or ""

    async def _set_my_commands(self, p: Params) -> Any:
        commands = p.get("commands")
        if not isinstance(commands, list):
            raise bad_request("can't parse commands JSON object")
        if len(commands) > 100:
            raise bad_request("BOT_COMMANDS_TOO_MUCH")
        cleaned: list[dict[str, Any]] = []
        for command in commands:
            if not isinstance(command, dict):
                raise bad_request("can't parse BotCommand JSON object")
            name = str(command.get("command", ""))
            description = str(command.get("description", ""))
            if not _COMMAND_NAME_RE.match(name):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(description) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
            entry: dict[str, Any] = {"command": name, "description": description}
            # BotCommand.is_ephemeral (Bot API 10.2): "True, if the command sends an
            # ephemeral message, which can be seen only by the sender of the message and
            # the bot" (pengrad/java-telegram-bot-api#439 quoting core.telegram.org).
            # A server older than 10.2 ignores the field as any unknown one.
            ephemeral = command.get("is_ephemeral")
            if ephemeral is not None and self.world.knows(EPHEMERAL_SINCE):
                if not isinstance(ephemeral, bool):
                    raise bad_request("can't parse BotCommand JSON object")  # assumed wording
                if ephemeral:
                    entry["is_ephemeral"] = True
            cleaned.append(entry)
        key = self._scope_key(p)
        if cleaned:
            self.world.commands[key] = cleaned
        else:
            self.world.commands.pop(key, None)
        return True

    async def _get_my_commands(self, p: Params) -> Any:
        return list(self.world.commands.get(self._scope_key(p), []))

    async def _delete_my_commands(self, p: Params) -> Any:
        self.world.commands.pop(self._scope_key(p), None)
        return True

    def _set_text(self, kind: str, p: Params, limit: int) -> Any:
        value = p.string(kind) or ""
        if len(value) > limit:
            raise bad_request(f"{kind.upper()}_INVALID")
        key = (kind, p.string("language_code") or "")
        if value:
            self.world.bot_texts[key] = value
        else:
            self.world.bot_texts.pop(key, None)
        return True

    def _get_text(self, kind: str, p: Params) -> Any:
        lang = p.string("language_code") or ""
        texts = self.world.bot_texts
        value = texts.get((kind, lang), texts.get((kind, ""), ""))
        if kind == "name" and not value:
            value = self.world.bot.first_name
        return {kind: value}

    async def _set_my_description(self, p: Params) -> Any:
        return self._set_text("description", p, 512)

    async def _get_my_description(self, p: Params) -> Any:
        return self._get_text("description", p)

    async def _set_my_short_description(self, p: Params) -> Any:
        return self._set_text("short_description", p, 120)

    async def _get_my_short_description(self, p: Params) -> Any:
        return self._get_text("short_description", p)

    async def _set_my_name(self, p: Params) -> Any:
        return self._set_text("name", p, 64)

    async def _get_my_name(self, p: Params) -> Any:
        return self._get_text("name", p)

    # ---- messages ----------------------------------------------------------------

    async def _send_message(self, p: Params) -> Any:
        chat = self._chat(p, write=True)
        request = self._ephemeral_request(p)
        if request is not None:
            return self._send_ephemeral(p, chat, request)
        self._flood_check("sendMessage", chat)
        thread_id = self._thread(chat, p)
        text, parse_mode, parsed = self._text(p)
        markup = self._markup(p, chat)
        reply_to, thread_id = self._reply_to(chat, p, thread_id)
        self._check_open(chat, thread_id)
        message = self.world.add_message(
            chat,
            self.world.bot,
            text=text,
            parse_mode=parse_mode,
            plain_text=parsed.text,
            entities=parsed.entities,
            reply_markup=markup,
            thread_id=thread_id,
            reply_to=reply_to,
        )
        self._flood_consume("sendMessage", chat)
        return message.to_api()

    def _reply_to(
        self, chat: FakeChat, p: Params, thread_id: int | None
    ) -> tuple[int | None, int | None]:
        """The message replied to (reply_parameters or reply_to_message_id) and the
        thread the answer goes to."""
        reply_to: int | None = None
        reply = p.get("reply_parameters")
        if not isinstance(reply, dict) and p.integer("reply_to_message_id") is not None:
            reply = {"message_id": p.integer("reply_to_message_id")}
        if (
            isinstance(reply, dict)
            and reply.get("message_id") is None
            and reply.get("ephemeral_message_id") is not None
            and self.world.knows(EPHEMERAL_SINCE)
        ):
            # Only an ephemeral message may answer an ephemeral one (ReplyParameters.
            # ephemeral_message_id names one of the receiver's). ASSUMED wording.
            raise bad_request("message to be replied not found")
        if isinstance(reply, dict) and reply.get("message_id") is not None:
            target = chat.messages.get(_as_int(reply["message_id"]) or 0)
            if target is None or target.deleted:
                # ReplyParameters.allow_sending_without_reply: "Pass True if the message
                # should be sent even if the specified message to be replied to is not
                # found" (core.telegram.org/bots/api#replyparameters); without it Telegram
                # answers "Bad Request: message to be replied not found"
                if not (
                    reply.get("allow_sending_without_reply")
                    or p.flag("allow_sending_without_reply")
                ):
                    raise bad_request("message to be replied not found")
            else:
                reply_to = target.message_id
                if thread_id is None and chat.is_forum:
                    thread_id = target.thread_id
        return reply_to, thread_id

    # ---- ephemeral messages (Bot API 10.2/10.3) ----------------------------------
    #
    # core.telegram.org/bots/api#ephemeral-messages-and-commands: a bot shows a message
    # in a group or supergroup that one member alone sees ("Other members of the group
    # or supergroup chat will not see the message"). "Any bot can send an ephemeral
    # message to a user within 15 seconds of the incoming eligible action", given "The
    # callback_query_id from a received callback query, or The
    # reply_parameters.ephemeral_message_id from an incoming ephemeral message"; "If the
    # bot is a chat administrator, it can send an ephemeral message to any non-bot member
    # of the chat at any time". "It is not guaranteed that the ephemeral message will be
    # received, especially if the user is offline". The answer has message_id 0 and an
    # ephemeral_message_id (tdesktop#31196); edits and deletion go through the
    # editEphemeralMessage... and deleteEphemeralMessage methods only: deleteMessage with
    # 0 or with the ephemeral id answers "message to delete not found" (tdesktop#31196).

    def _ephemeral_request(self, p: Params) -> dict[str, Any] | None:
        """The ephemeral parameters of a send, or None for an ordinary message: Bot API
        10.3's ``ephemeral_message_parameters`` object, or 10.2's ``receiver_user_id`` and
        ``callback_query_id`` parameters (10.3 "replaced" them, DOFER998/
        telegram-bot-api-schema's 10.3 release notes; libraries keep sending them, e.g.
        harukasen/harukagram v2.3, so Telegram is taken to accept both). A server older
        than the version that brought a form ignores it, as any unknown parameter."""
        raw = p.get("ephemeral_message_parameters")
        if raw is not None and raw != "" and self.world.knows(EPHEMERAL_PARAMETERS_SINCE):
            if not isinstance(raw, dict):
                raise bad_request("object expected as ephemeral message parameters")
            if raw.get("receiver_user_id") is None:
                # ASSUMED wording, after "can't parse MessageEntity: Can't find field ..."
                raise bad_request(
                    "can't parse ephemeral message parameters: "
                    'Can\'t find field "receiver_user_id"'
                )
            return raw
        if p.get("receiver_user_id") not in (None, "") and self.world.knows(EPHEMERAL_SINCE):
            return {
                "receiver_user_id": p.get("receiver_user_id"),
                "callback_query_id": p.get("callback_query_id"),
            }
        return None

    def _receiver(self, chat: FakeChat, raw: Any) -> FakeUser:
        """The user an ephemeral message goes to: a non-bot member of ``chat``."""
        user_id = _as_int(raw)
        if user_id is None or isinstance(raw, bool):
            raise bad_request("invalid receiver_user_id specified")
        user = self.world.users.get(user_id)
        if user is None:
            raise bad_request(USER_NOT_FOUND)
        if user.is_bot:
            raise bad_request(RECEIVER_IS_BOT)
        if chat.status_of(user.id) not in PRESENT_STATUSES:
            raise bad_request(RECEIVER_NOT_MEMBER)
        return user

    def _ephemeral_flood(self, method: str, chat: FakeChat, receiver_id: int) -> None:
        retry_after = self.limiter.check(method, chat.id, chat.type, receiver=receiver_id)
        if retry_after is not None:
            raise too_many_requests(retry_after)

    def _send_ephemeral(self, p: Params, chat: FakeChat, request: dict[str, Any]) -> Any:
        if chat.type == CHANNEL:
            raise bad_request(EPHEMERAL_IN_CHANNEL)
        if chat.type == PRIVATE:
            # "for group and supergroup chats only"; a private chat answers BOT_NOT_ADMIN
            raise bad_request(EPHEMERAL_NOT_ALLOWED)
        receiver = self._receiver(chat, request.get("receiver_user_id"))
        self._ephemeral_flood("sendMessage", chat, receiver.id)
        thread_id = self._thread(chat, p)
        # sendMessage's 1-4096 characters: the 1024 of tdlib/telegram-bot-api#881 was
        # reported for editEphemeralMessageText only
        text, parse_mode, parsed = self._text(p)
        markup = self._markup(p, chat)
        now = self.world.clock()
        window = self.world.ephemeral_window
        fresh = False
        press = None
        query_id = request.get("callback_query_id")
        if query_id not in (None, ""):
            # A callback query by the receiver in this chat (from a group message or from
            # one of his ephemeral messages). Unknown, or another user's or chat's: the
            # wording of answerCallbackQuery's refusal (ASSUMED for this method).
            press = self.world.queries.get(str(query_id))
            if press is None or press.message.chat is not chat or press.user is not receiver:
                raise bad_request(QUERY_TOO_OLD)
            fresh = now - press.created < window
        reply = p.get("reply_parameters")
        reply_eid = reply.get("ephemeral_message_id") if isinstance(reply, dict) else None
        if reply_eid is not None:
            # An ephemeral message of the receiver's in this chat: his command opens the
            # window; a reply to one of the bot's own ephemeral messages opens none.
            target = self.world.find_ephemeral(chat, receiver.id, _as_int(reply_eid) or 0)
            if target is None:
                raise bad_request("message to be replied not found")
            fresh = fresh or (not target.from_bot and now - target.sent_at < window)
        replaces: int | None = None
        if _truthy(request.get("replace_callback_query_message")):
            # "Pass True if the ephemeral message must be shown in place of the original
            # message. Must be False for callback queries from ephemeral messages"
            if press is None:
                raise bad_request(REPLACE_NEEDS_QUERY)
            if press.message.is_ephemeral:
                raise bad_request(CANT_REPLACE_EPHEMERAL)
            replaces = press.message.message_id
        # Outside the window only an administrator may send (ASSUMED: a known but stale
        # identifier is no error for an administrator, who needs none).
        if not fresh and not chat.bot_is_admin:
            raise bad_request(EPHEMERAL_NOT_ALLOWED)
        message = self.world.add_ephemeral(
            chat,
            self.world.bot,
            receiver,
            text=text,
            parse_mode=parse_mode,
            plain_text=parsed.text,
            entities=parsed.entities,
            reply_markup=markup,
            thread_id=thread_id,
            delivered=receiver.online,
        )
        message.replaces = replaces
        self.limiter.consume("sendMessage", chat.id, chat.type, receiver=receiver.id)
        return message.to_api()

    def _ephemeral_target(self, p: Params, method: str, missing: str) -> FakeMessage:
        """The bot's ephemeral message an edit or deletion names (chat_id,
        receiver_user_id, ephemeral_message_id), as the server knows it: a message
        deleted, expired on the server, or of another receiver is ``missing``."""
        chat = self._chat(p, write=True)
        receiver_id = p.integer("receiver_user_id")
        if receiver_id is None:
            raise bad_request("invalid receiver_user_id specified")
        eid = p.integer("ephemeral_message_id")
        if eid is None:
            raise bad_request("ephemeral message identifier is not specified")  # assumed
        self._ephemeral_flood(method, chat, receiver_id)
        message = self.world.find_ephemeral(chat, receiver_id, eid)
        if message is None:
            raise bad_request(missing)
        return message

    def _ephemeral_consume(self, method: str, message: FakeMessage) -> None:
        receiver = message.receiver.id if message.receiver is not None else 0
        self.limiter.consume(method, message.chat.id, message.chat.type, receiver=receiver)

    async def _edit_ephemeral_message_text(self, p: Params) -> Any:
        message = self._ephemeral_target(p, "editEphemeralMessageText", MESSAGE_TO_EDIT_NOT_FOUND)
        if not message.from_bot:
            raise bad_request(MESSAGE_CANT_BE_EDITED)  # a user's ephemeral command
        # The real server takes at most 1024 characters here and answers as for a caption,
        # although the Bot API says 1-4096 (tdlib/telegram-bot-api#881, August 2026).
        text, parse_mode, parsed = self._text(
            p, limit=MAX_EPHEMERAL_EDIT_LENGTH, too_long=EPHEMERAL_TEXT_TOO_LONG
        )
        markup = self._markup(p, message.chat)  # none given: the keyboard goes, as in edits
        self._apply_edit(message, text=text, parse_mode=parse_mode, parsed=parsed, markup=markup)
        self._ephemeral_consume("editEphemeralMessageText", message)
        return True

    async def _edit_ephemeral_message_reply_markup(self, p: Params) -> Any:
        message = self._ephemeral_target(
            p, "editEphemeralMessageReplyMarkup", MESSAGE_TO_EDIT_NOT_FOUND
        )
        if not message.from_bot:
            raise bad_request(MESSAGE_CANT_BE_EDITED)
        markup = self._markup(p, message.chat)
        self._apply_edit(message, text=None, parse_mode=None, parsed=None, markup=markup)
        self._ephemeral_consume("editEphemeralMessageReplyMarkup", message)
        return True

    async def _delete_ephemeral_message(self, p: Params) -> Any:
        message = self._ephemeral_target(p, "deleteEphemeralMessage", MESSAGE_TO_DELETE_NOT_FOUND)
        if not message.from_bot:
            raise bad_request(MESSAGE_CANT_BE_DELETED)  # a user's ephemeral command
        message.deleted = True
        self.world.forget_ephemeral(message)
        self._ephemeral_consume("deleteEphemeralMessage", message)
        return True

    def _caption(self, p: Params) -> tuple[str | None, str | None, ParsedText | None]:
        caption = p.get("caption")
        if caption is None or str(caption) == "":
            return None, None, None
        text = str(caption)
        parse_mode = p.string("parse_mode") or None
        entities = p.get("caption_entities")
        if entities is not None and not (
            isinstance(entities, list) and all(isinstance(e, dict) for e in entities)
        ):
            raise bad_request("can't parse entities JSON object")
        try:
            parsed = parse_text(text, parse_mode, entities)
        except EntityParseError as exc:
            raise bad_request(f"can't parse entities: {exc}") from None
        except ValueError:
            raise bad_request("unsupported parse_mode") from None
        if parsed.length > MAX_CAPTION_LENGTH:
            raise bad_request("message caption is too long")
        return text, parse_mode, parsed

    def _photo(self, p: Params) -> tuple[bytes, str]:
        """The photo's bytes and file id: uploaded (judged by Telegram's rules, see
        ``media``), or a file id of a photo sent before. URLs are not simulated."""
        value = p.get("photo")
        if isinstance(value, str) and value.startswith("attach://"):
            value = p.get(value.removeprefix("attach://"))
        if isinstance(value, Upload):
            problem = photo_problem(value.data)
            if problem is not None:
                raise bad_request(problem)
            return value.data, self.world.keep_file(value.data)
        if value is None or value == "":
            raise bad_request("there is no photo in the request")
        if isinstance(value, str) and value in self.world.files:
            return self.world.files[value], value
        raise bad_request("wrong file identifier/HTTP URL specified")

    async def _send_photo(self, p: Params) -> Any:
        chat = self._chat(p, write=True)
        self._flood_check("sendPhoto", chat)
        thread_id = self._thread(chat, p)
        data, file_id = self._photo(p)
        caption, parse_mode, parsed = self._caption(p)
        markup = self._markup(p, chat)
        reply_to, thread_id = self._reply_to(chat, p, thread_id)
        self._check_open(chat, thread_id)
        message = self.world.add_message(
            chat,
            self.world.bot,
            text=caption,
            parse_mode=parse_mode,
            plain_text=parsed.text if parsed else "",
            entities=parsed.entities if parsed else [],
            reply_markup=markup,
            thread_id=thread_id,
            reply_to=reply_to,
        )
        message.photo = data
        message.photo_size = image_size(data)
        message.photo_file_id = file_id
        self._flood_consume("sendPhoto", chat)
        return message.to_api()

    async def _edit_message_text(self, p: Params) -> Any:
        if names_inline_message(p):
            return self._edit_inline_text(p)
        chat, message = self._edit_target(p, "editMessageText")
        if message.text is None or message.photo is not None:
            raise bad_request("there is no text in the message to edit")
        text, parse_mode, parsed = self._text(p)
        markup = self._markup(p, chat)
        self._apply_edit(message, text=text, parse_mode=parse_mode, parsed=parsed, markup=markup)
        self._flood_consume("editMessageText", chat)
        return message.to_api()

    async def _edit_message_reply_markup(self, p: Params) -> Any:
        if names_inline_message(p):
            return self._edit_inline_markup(p)
        chat, message = self._edit_target(p, "editMessageReplyMarkup")
        markup = self._markup(p, chat)
        self._apply_edit(message, text=None, parse_mode=None, parsed=None, markup=markup)
        self._flood_consume("editMessageReplyMarkup", chat)
        return message.to_api()

    # ---- inline mode (see inline_api.py) -------------------------------------------

    async def _answer_inline_query(self, p: Params) -> Any:
        return answer_inline_query(self, p)

    async def _answer_guest_query(self, p: Params) -> Any:
        """answerGuestQuery (Bot API 10.0, ``guest.py``); a server older than 10.0 does
        not know the method."""
        if not self.world.knows(GUEST_MODE_SINCE):
            raise not_found()
        return answer_guest_query(self, p)

    def _edit_inline_text(self, p: Params) -> Any:
        """editMessageText by ``inline_message_id``: ``True`` on success ("if the edited
        message is not an inline message, the edited Message is returned, otherwise True
        is returned", Bot API); charged to the chat the message is in."""
        text, parse_mode, parsed = self._text(p)
        markup = inline_markup(self, p)
        message = inline_target(self, p, "editMessageText")
        self._apply_edit(message, text=text, parse_mode=parse_mode, parsed=parsed, markup=markup)
        self._flood_consume("editMessageText", message.chat)
        return True

    def _edit_inline_markup(self, p: Params) -> Any:
        """editMessageReplyMarkup by ``inline_message_id`` (``True`` on success)."""
        markup = inline_markup(self, p)
        message = inline_target(self, p, "editMessageReplyMarkup")
        self._apply_edit(message, text=None, parse_mode=None, parsed=None, markup=markup)
        self._flood_consume("editMessageReplyMarkup", message.chat)
        return True

    def _can_delete(self, chat: FakeChat, message: FakeMessage) -> bool:
        return message.from_bot or chat.type == PRIVATE or chat.bot_is_admin

    def _too_old(self, message: FakeMessage) -> bool:
        return self.world.now() - message.date >= DELETE_WINDOW

    @staticmethod
    def _too_old_error(chat: FakeChat) -> str:
        """Telegram's wording for a message older than 48 hours."""
        if chat.type == PRIVATE:
            return MESSAGE_CANT_BE_DELETED
        return MESSAGE_CANT_BE_DELETED_FOR_EVERYONE

    async def _delete_message(self, p: Params) -> Any:
        chat = self._chat(p, write=True)
        self._flood_check("deleteMessage", chat)
        message = self._message(chat, p, MESSAGE_TO_DELETE_NOT_FOUND)
        if not self._can_delete(chat, message):
            raise bad_request(MESSAGE_CANT_BE_DELETED)
        if self._too_old(message):
            raise bad_request(self._too_old_error(chat))
        message.deleted = True
        self._flood_consume("deleteMessage", chat)
        return True

    async def _delete_messages(self, p: Params) -> Any:
        chat = self._chat(p, write=True)
        ids = p.get("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise bad_request("message identifiers are not specified")
        self._flood_check("deleteMessages", chat)
        deleted = 0
        too_old = False
        for message_id in ids:
            message = chat.messages.get(_as_int(message_id) or 0)
            if message is None or message.deleted or not self._can_delete(chat, message):
                continue
            if self._too_old(message):
                too_old = True
                continue
            message.deleted = True
            deleted += 1
        if not deleted:
            raise bad_request(self._too_old_error(chat) if too_old else MESSAGE_TO_DELETE_NOT_FOUND)
        self._flood_consume("deleteMessages", chat)
        return True

    async def _save_prepared_inline_message(self, p: Params) -> Any:
        """Bot API 8.0: keep an inline result for a Mini App's ``shareMessage``; a
        PreparedInlineMessage (``id``, ``expiration_date``). The user must be known; the
        result needs a ``type`` and an ``id``; at least one kind of chat must be allowed
        (wordings ASSUMED)."""
        user = self.world.users.get(p.integer("user_id") or 0)
        if user is None or user.is_bot:
            raise bad_request("user not found")
        result = p.get("result")
        if isinstance(result, str):
            try:
                result = json.loads(result)
            except ValueError:
                result = None
        if not isinstance(result, dict) or not result.get("type") or not result.get("id"):
            raise bad_request("can't parse inline query result")
        kinds = ("allow_user_chats", "allow_bot_chats", "allow_group_chats", "allow_channel_chats")
        if not any(p.flag(k) for k in kinds):
            raise bad_request("at least one chat type must be allowed")
        prepared = f"prepared{len(self.world.prepared) + 1}"
        self.world.prepared[prepared] = (user.id, result)
        return {"id": prepared, "expiration_date": int(time.time()) + 86_400}

    async def _answer_callback_query(self, p: Params) -> Any:
        query_id = p.string("callback_query_id") or ""
        press = self.world.queries.get(query_id)
        if (
            press is None
            or press.answered
            or self.world.clock() - press.created > self.world.callback_ttl
        ):
            raise bad_request(QUERY_TOO_OLD)
        text = p.string("text")
        if text is not None and len(text) > MAX_CALLBACK_ANSWER_LENGTH:
            raise bad_request("MESSAGE_TOO_LONG")
        url = p.string("url") or None
        if url is not None and not self._opens_this_bot(url):
            raise bad_request(URL_INVALID)
        press.future.set_result(
            CallbackAnswer(
                query_id=query_id,
                text=text,
                show_alert=p.flag("show_alert"),
                url=p.string("url"),
                cache_time=p.integer("cache_time") or 0,
            )
        )
        return True

    def _opens_this_bot(self, url: str) -> bool:
        """answerCallbackQuery's url: "If you have created a Game ... Otherwise, you may
        use links like t.me/your_bot?start=XXXX that open your bot with a parameter" (Bot
        API). Games are not simulated: only such a link to this bot passes."""
        match = _ANSWER_URL_RE.match(url)
        bot = (self.world.bot.username or "").lower()
        return match is not None and match.group("bot").lower() == bot

    async def _send_chat_action(self, p: Params) -> Any:
        chat = self._chat(p, write=True)
        self._thread(chat, p)
        if not p.string("action"):
            raise bad_request("action is empty")  # wording approximate
        return True

    # ---- chats -------------------------------------------------------------------

    async def _get_chat(self, p: Params) -> Any:
        return self._chat(p, write=False).full_info()

    async def _get_chat_member(self, p: Params) -> Any:
        chat = self._chat(p, write=False)
        user_id = p.integer("user_id")
        if user_id == self.world.bot.id:
            status = MEMBER if chat.type == PRIVATE else chat.bot_status
            return member_to_api(self.world.bot, status)
        user = self.world.users.get(user_id) if user_id is not None else None
        if user is None:
            raise bad_request("user not found")
        return member_to_api(user, chat.status_of(user.id))

    async def _get_chat_administrators(self, p: Params) -> Any:
        chat = self._chat(p, write=False)
        if chat.type == PRIVATE:
            raise bad_request("there are no administrators in the private chat")
        admins = [
            member_to_api(self.world.users[uid], status)
            for uid, status in chat.members.items()
            if status in (CREATOR, ADMINISTRATOR) and uid in self.world.users
        ]
        if chat.bot_status == ADMINISTRATOR:
            admins.append(member_to_api(self.world.bot, ADMINISTRATOR))
        return admins

    async def _get_chat_member_count(self, p: Params) -> Any:
        chat = self._chat(p, write=False)
        if chat.type == PRIVATE:
            return 2
        count = sum(1 for status in chat.members.values() if status in PRESENT_STATUSES)
        return count + (1 if chat.bot_status in PRESENT_STATUSES else 0)

    def _pin_rights(self, chat: FakeChat) -> None:
        if chat.type != PRIVATE and not chat.bot_is_admin:
            raise bad_request("not enough rights to manage pinned messages in the chat")

    async def _pin_chat_message(self, p: Params) -> Any:
        chat = self._chat(p, write=True)
        message = self._message(chat, p, "message to pin not found")
        self._pin_rights(chat)
        if message.message_id in chat.pinned:
            chat.pinned.remove(message.message_id)
        chat.pinned.append(message.message_id)
        return True

    async def _unpin_chat_message(self, p: Params) -> Any:
        chat = self._chat(p, write=True)
        self._pin_rights(chat)
        message_id = p.integer("message_id")
        if message_id is None:
            if chat.pinned:
                chat.pinned.pop()
        elif message_id in chat.pinned:
            chat.pinned.remove(message_id)
        else:
            raise bad_request("message to unpin not found")
        return True

    async def _unpin_all_chat_messages(self, p: Params) -> Any:
        chat = self._chat(p, write=True)
        self._pin_rights(chat)
        chat.pinned.clear()
        return True

    async def _leave_chat(self, p: Params) -> Any:
        chat = self._chat(p, write=False)
        if chat.type == PRIVATE:
            raise bad_request("chat member status can't be changed in private chats")
        old = chat.bot_status
        chat.bot_status = LEFT
        self.world.my_chat_member(chat, self.world.bot, old, LEFT)
        return True


class ForcedRetry(ApiError):
    """A 429 served by force_429 or flood_wait (recorded as forced)."""

    def __init__(self, retry_after: int) -> None:
        error = too_many_requests(retry_after)
        super().__init__(error.error_code, error.description, error.parameters)


def scope_key(scope: dict[str, Any]) -> str:
    """A stable key for a BotCommandScope dict."""
    parts = [str(scope.get("type", "default"))]
    for name in ("chat_id", "user_id"):
        if name in scope:
            parts.append(f"{name}={scope[name]}")
    return ";".join(parts)
