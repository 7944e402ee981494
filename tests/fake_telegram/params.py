"""Request parameters: JSON, form-encoded and multipart bodies, and query strings.

PTB v22's HTTPXRequest posts ``application/x-www-form-urlencoded`` (``multipart/form-data``
when files go along) where every non-string value is JSON-encoded (``reply_markup``,
``entities``, ``scope``...) and strings go as they are. Telegram accepts JSON bodies too.
Values are coerced by parameter name the way the Bot API reads them.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from .errors import ApiError, bad_request
from .media import Upload

_JSON_PARAMS = frozenset(
    {
        "reply_markup",
        "entities",
        "caption_entities",
        "commands",
        "scope",
        "allowed_updates",
        "link_preview_options",
        "reply_parameters",
        "ephemeral_message_parameters",
        "permissions",
        "media",
        "message_ids",
        "menu_button",
        "rights",
        "results",
        "button",
    }
)
#: telegram-bot-api's words for an unreadable JSON parameter, where they differ.
_JSON_WORDING = {
    "results": "can't parse JSON encoded inline query results",
    "button": "can't parse inline query results button JSON object",
}
_INT_PARAMS = frozenset(
    {
        "chat_id",
        "from_chat_id",
        "message_id",
        "message_thread_id",
        "reply_to_message_id",
        "offset",
        "limit",
        "timeout",
        "user_id",
        "receiver_user_id",
        "ephemeral_message_id",
        "cache_time",
        "max_connections",
        "until_date",
    }
)
_BOOL_PARAMS = frozenset(
    {
        "disable_notification",
        "protect_content",
        "show_alert",
        "drop_pending_updates",
        "disable_web_page_preview",
        "allow_sending_without_reply",
        "allow_paid_broadcast",
        "only_if_banned",
        "revoke_messages",
        "for_channels",
        "is_personal",
    }
)


def _coerce(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    if name in _JSON_PARAMS:
        try:
            return json.loads(value)
        except ValueError:
            if name == "reply_markup":
                raise bad_request("can't parse reply keyboard markup JSON object") from None
            if name in _JSON_WORDING:
                raise bad_request(_JSON_WORDING[name]) from None
            raise bad_request(f"can't parse {name} JSON object") from None
    if name in _INT_PARAMS:
        try:
            return int(value)
        except ValueError:
            return value  # "@username" chat ids stay strings
    if name in _BOOL_PARAMS:
        return value.lower() in ("true", "1")
    return value


def coerce_params(raw: dict[str, Any]) -> dict[str, Any]:
    """Parameters with JSON-encoded and numeric strings decoded by name."""
    params = {name: _coerce(name, value) for name, value in raw.items()}
    scope = params.get("scope")
    if isinstance(scope, dict) and "chat_id" in scope:
        params["scope"] = {**scope, "chat_id": _coerce("chat_id", scope["chat_id"])}
    return params


async def read_params(request: web.Request) -> dict[str, Any]:
    """All parameters of a Bot API request (query string first, then the body)."""
    raw: dict[str, Any] = dict(request.query)
    if request.can_read_body:
        content_type = request.content_type
        if content_type == "application/json":
            try:
                body = await request.json()
            except ValueError:
                raise bad_request("can't parse JSON encoded request body") from None
            if not isinstance(body, dict):
                raise bad_request("can't parse JSON encoded request body")
            raw.update(body)
        elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for name, value in form.items():
                if isinstance(value, str):
                    raw[name] = value
                else:  # an uploaded file: its name, type and bytes
                    raw[name] = Upload(
                        filename=value.filename or "",
                        content_type=value.content_type or "application/octet-stream",
                        data=value.file.read(),
                    )
        else:
            data = await request.read()
            if data.strip():
                raise ApiError(400, "Bad Request: unsupported Content-Type")
    return coerce_params(raw)
