"""Inline mode's Bot API methods: answerInlineQuery, and edits by inline_message_id (of
messages sent via the bot and of guest messages, ``guest.py``).

Checks come in the order of the three programs a call passes through: telegram-bot-api
reads the JSON (Client.cpp: get_inline_query_results_button, get_inline_query_result;
its errors are "can't parse inline query result: ..."), tdlib checks the content
(InlineQueriesManager.cpp, answer_inline_query; ReplyMarkup.cpp), and Telegram's server
checks the rest, answering in its own words (QUERY_ID_INVALID, which the Bot API words
"query is too old and response timeout expired or query ID is invalid", RESULT_ID_DUPLICATE,
ARTICLE_TITLE_EMPTY, MESSAGE_TOO_LONG, BUTTON_DATA_INVALID, BUTTON_TYPE_INVALID, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    ARTICLE_TITLE_EMPTY,
    INLINE_MESSAGE_ID_MALFORMED,
    INLINE_MESSAGE_TOO_LONG,
    MESSAGE_ID_INVALID,
    NEXT_OFFSET_INVALID,
    QUERY_TOO_OLD,
    RESULT_ID_DUPLICATE,
    RESULT_ID_INVALID,
    TOO_MANY_INLINE_RESULTS,
    ApiError,
    bad_request,
    too_many_requests,
)
from .formatting import MAX_TEXT_LENGTH, EntityParseError, ParsedText, parse_text
from .inline import (
    DEFAULT_CACHE_TIME,
    MAX_CACHE_TIME,
    MAX_INLINE_RESULTS,
    MAX_OFFSET_BYTES,
    MAX_RESULT_ID_BYTES,
    InlineAnswer,
    InlineResult,
    is_inline_message_id,
    start_parameter_problem,
)
from .keyboards import validate_reply_markup
from .models import FakeMessage

if TYPE_CHECKING:
    from .api import BotApi, Params

#: Result types of the Bot API the fake does not simulate (an article is).
_OTHER_TYPES = frozenset(
    {
        "audio",
        "contact",
        "document",
        "game",
        "gif",
        "location",
        "mpeg4_gif",
        "photo",
        "sticker",
        "venue",
        "video",
        "voice",
    }
)


class _Unreadable(Exception):
    """telegram-bot-api could not read a result: "can't parse inline query result: ..."."""


def _string(obj: dict[str, Any], name: str, *, required: bool) -> str | None:
    """A string field as tdlib's JSON reader takes it: a string, or a number's text."""
    if name not in obj:
        if required:
            raise _Unreadable(f'Can\'t find field "{name}"')
        return None
    value = obj[name]
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise _Unreadable(f'Field "{name}" must be of type String')


def _results_button(raw: Any) -> dict[str, Any] | None:
    """answerInlineQuery's ``button`` (InlineQueryResultsButton), read as telegram-bot-api
    reads it: ``text`` and exactly one of ``start_parameter`` and ``web_app``."""
    if raw is None or raw == "":
        return None

    def unreadable(text: str) -> ApiError:
        return bad_request(f"can't parse inline query results button: {text}")

    if not isinstance(raw, dict):
        raise unreadable("InlineQueryResultsButton must be an Object")
    try:
        text = _string(raw, "text", required=True)
        if "start_parameter" in raw:
            return {"text": text, "start_parameter": _string(raw, "start_parameter", required=True)}
    except _Unreadable as exc:
        raise unreadable(str(exc)) from None
    if "web_app" in raw:
        web_app = raw["web_app"]
        if not isinstance(web_app, dict):
            raise unreadable('Field "web_app" must be of type Object')
        if not isinstance(web_app.get("url"), str):
            raise unreadable('Can\'t find field "url"')
        return {"text": text, "web_app": {"url": web_app["url"]}}
    raise unreadable("InlineQueryResultsButton must have exactly one optional field")


def _parse(api: BotApi, text: str, parse_mode: Any, entities: Any) -> ParsedText:
    """A result's message text parsed as sendMessage's is."""
    if entities is not None and not (
        isinstance(entities, list) and all(isinstance(e, dict) for e in entities)
    ):
        raise _Unreadable("Can't parse entities JSON object")
    try:
        return parse_text(
            text,
            str(parse_mode) if parse_mode else None,
            entities,
            live_clocks=api.world.knows((9, 5)),  # api.LIVE_CLOCKS_SINCE
        )
    except EntityParseError as exc:
        raise _Unreadable(f"Can't parse entities: {exc}") from None
    except ValueError:
        raise _Unreadable("Unsupported parse_mode") from None


def _message_content(api: BotApi, obj: dict[str, Any]) -> tuple[str, str | None, ParsedText]:
    """The text an article sends: its InputTextMessageContent, or the legacy
    ``message_text`` beside it. Other kinds of content are not simulated."""
    content = obj.get("input_message_content")
    if content is None:
        text = _string(obj, "message_text", required=True) or ""
        if not text:
            raise _Unreadable("Message text is empty")
        parse_mode = _string(obj, "parse_mode", required=False)
        return text, parse_mode, _parse(api, text, parse_mode, obj.get("entities"))
    if not isinstance(content, dict):
        raise _Unreadable('Field "input_message_content" must be of type Object')
    text = _string(content, "message_text", required=False) or ""
    if text:
        options = content.get("link_preview_options")
        if options is not None and not isinstance(options, dict):
            raise _Unreadable('Field "link_preview_options" must be of type Object')
        parse_mode = _string(content, "parse_mode", required=False)
        return text, parse_mode, _parse(api, text, parse_mode, content.get("entities"))
    if any(key in content for key in ("latitude", "phone_number", "payload")):
        raise bad_request(
            "the fake Telegram simulates only InputTextMessageContent in inline results"
        )
    raise _Unreadable("Input message content is not specified")


def _markup(api: BotApi, obj: dict[str, Any]) -> dict[str, Any] | None:
    """A result's reply_markup: an inline keyboard, with no ``web_app`` button (the message
    may end up in any chat; Telegram answers BUTTON_TYPE_INVALID, aiogram/aiogram#1569)."""
    raw = obj.get("reply_markup")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise _Unreadable('Field "reply_markup" must be of type Object')
    try:
        markup = validate_reply_markup(raw, private=False, api_version=api.world.api_version)
    except ApiError as error:
        # telegram-bot-api's own reading errors are part of the result's
        prefix = "Bad Request: can't parse "
        if error.description.startswith(prefix):
            raise _Unreadable("Can't parse " + error.description[len(prefix) :]) from None
        raise
    if markup is not None and "inline_keyboard" not in markup:
        raise bad_request("inline keyboard expected")  # tdlib, get_inline_reply_markup
    return markup


def _result(api: BotApi, raw: Any) -> tuple[InlineResult, ParsedText]:
    """One InlineQueryResult, read; only articles are simulated."""
    if not isinstance(raw, dict):
        raise _Unreadable("Inline query result must be an object")
    kind = (_string(raw, "type", required=True) or "").lower()
    result_id = _string(raw, "id", required=True) or ""
    if kind in _OTHER_TYPES:
        raise bad_request(f"the fake Telegram simulates only article inline results, not {kind}")
    if kind != "article":
        raise _Unreadable(f'type "{kind}" is unsupported for the inline query result')
    text, parse_mode, parsed = _message_content(api, raw)
    markup = _markup(api, raw)
    title = _string(raw, "title", required=True) or ""
    thumbnail = raw.get("thumbnail_url", raw.get("thumb_url"))
    result = InlineResult(
        id=result_id,
        title=title,
        message_text=text,
        plain_text=parsed.text,
        parse_mode=parse_mode,
        entities=parsed.entities,
        reply_markup=markup,
        description=_string(raw, "description", required=False),
        thumbnail_url=thumbnail if isinstance(thumbnail, str) else None,
        url=raw.get("url") if isinstance(raw.get("url"), str) else None,
        raw=raw,
    )
    return result, parsed


#: The names answerGuestQuery (``guest.py``) reads one result by.
Unreadable = _Unreadable


def read_result(api: BotApi, raw: Any) -> tuple[InlineResult, ParsedText]:
    """One InlineQueryResult as telegram-bot-api and tdlib read it (``Unreadable``: its
    reading error, without the prefix answerInlineQuery puts before it)."""
    return _result(api, raw)


def check_server_side(result: InlineResult, parsed: ParsedText) -> None:
    """Telegram's server's checks of one result, in its own words: RESULT_ID_INVALID
    (assumed for an id not 1-64 bytes), ARTICLE_TITLE_EMPTY, MESSAGE_TOO_LONG."""
    if not 1 <= len(result.id.encode("utf-8")) <= MAX_RESULT_ID_BYTES:
        raise bad_request(RESULT_ID_INVALID)
    if not result.title:
        raise bad_request(ARTICLE_TITLE_EMPTY)
    if parsed.length > MAX_TEXT_LENGTH:
        raise bad_request(INLINE_MESSAGE_TOO_LONG)


def _results(api: BotApi, raw: Any) -> list[tuple[InlineResult, ParsedText]]:
    if raw is None or raw == "":
        return []
    if not isinstance(raw, list):
        raise bad_request("expected an Array of inline query results")
    if len(raw) > MAX_INLINE_RESULTS:
        raise bad_request(TOO_MANY_INLINE_RESULTS)
    read = []
    for value in raw:
        try:
            read.append(_result(api, value))
        except _Unreadable as exc:
            raise bad_request(f"can't parse inline query result: {exc}") from None
    return read


def answer_inline_query(api: BotApi, p: Params) -> bool:
    """answerInlineQuery: keep the answer for the user who asked (and, by ``cache_time``,
    for anyone who types the same text, or with ``is_personal`` only for him)."""
    world = api.world
    button = _results_button(p.get("button"))
    if button is None and p.string("switch_pm_text"):
        # the parameters that InlineQueryResultsButton replaced, still taken
        button = {
            "text": p.string("switch_pm_text"),
            "start_parameter": p.string("switch_pm_parameter") or "",
        }
    read = _results(api, p.get("results"))
    # tdlib's checks
    if button is not None and "start_parameter" in button:
        problem = start_parameter_problem(button["start_parameter"])
        if problem is not None:
            raise bad_request(problem)
    for _, parsed in read:
        if not parsed.text.strip():
            raise bad_request("text must be non-empty")  # tdlib, fix_formatted_text
    # Telegram's server
    query = world.inline_queries.get(p.string("inline_query_id") or "")
    if (
        query is None
        or query.answered
        or query.expired
        or world.clock() - query.created > world.inline_timeout
    ):
        raise bad_request(QUERY_TOO_OLD)
    seen: set[str] = set()
    for result, parsed in read:
        if not 1 <= len(result.id.encode("utf-8")) <= MAX_RESULT_ID_BYTES:
            raise bad_request(RESULT_ID_INVALID)
        if result.id in seen:
            raise bad_request(RESULT_ID_DUPLICATE)
        seen.add(result.id)
        check_server_side(result, parsed)
    next_offset = p.string("next_offset") or ""
    if len(next_offset.encode("utf-8")) > MAX_OFFSET_BYTES:
        raise bad_request(NEXT_OFFSET_INVALID)
    cache_time = p.integer("cache_time")
    cache_time = DEFAULT_CACHE_TIME if cache_time is None else cache_time
    cache_time = min(max(cache_time, 0), MAX_CACHE_TIME)
    is_personal = p.flag("is_personal")
    answer = InlineAnswer(
        results=[result for result, _ in read],
        user=query.user,
        chat=query.chat,
        text=query.query,
        offset=query.offset,
        query_id=query.id,
        query=query,
        next_offset=next_offset,
        is_personal=is_personal,
        cache_time=cache_time,
        button=button,
    )
    if cache_time > 0:
        key = (query.user.id if is_personal else None, query.query, query.offset)
        world.inline_cache[key] = (answer, world.clock() + cache_time)
    query.future.set_result(answer)
    world.notifier.notify()
    return True


def names_inline_message(p: Params) -> bool:
    """An edit that names no chat and no message: telegram-bot-api then reads
    ``inline_message_id`` (Client.cpp, process_edit_message_text_query: ``chat_id.empty()
    && message_id == 0``)."""
    return p.get("chat_id") in (None, "") and not p.integer("message_id")


def inline_target(api: BotApi, p: Params, method: str) -> FakeMessage:
    """The inline message an edit names by ``inline_message_id``, checked as Telegram
    checks it: missing, "message identifier is not specified"; not an identifier at all,
    "invalid inline message identifier specified"; unknown or deleted, MESSAGE_ID_INVALID.
    Its chat's flood limits apply (the bot does not know which chat that is)."""
    raw = p.string("inline_message_id") or ""
    if not raw:
        raise bad_request("message identifier is not specified")
    if not is_inline_message_id(raw):
        raise bad_request(INLINE_MESSAGE_ID_MALFORMED)
    message = api.world.inline_messages.get(raw)
    if message is None or message.deleted or message.chat.deleted:
        raise bad_request(MESSAGE_ID_INVALID)
    retry_after = api.limiter.check(method, message.chat.id, message.chat.type)
    if retry_after is not None:
        raise too_many_requests(retry_after)
    return message


def inline_markup(api: BotApi, p: Params) -> dict[str, Any] | None:
    """An inline message's new keyboard: no ``web_app`` button, whatever the chat (the
    bot cannot know it), as in answerInlineQuery."""
    return validate_reply_markup(
        p.get("reply_markup"), private=False, api_version=api.world.api_version
    )
