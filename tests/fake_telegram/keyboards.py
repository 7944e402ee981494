"""Reply markup: validation as Telegram does it, and buttons for tests to find and press."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import BUTTON_DATA_INVALID, BUTTON_TYPE_INVALID, REPLY_MARKUP_TOO_LONG, bad_request

MAX_CALLBACK_DATA_BYTES = 64
MAX_INLINE_BUTTONS = 100
MAX_MARKUP_JSON_BYTES = 10_000
_BUTTON_ACTIONS = (
    "callback_data",
    "url",
    "login_url",
    "web_app",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
_URL_RE = re.compile(r"^(?:(?:https?|tg)://\S+|[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?:/\S*)?)$")


@dataclass(frozen=True)
class Button:
    """One inline keyboard button as drawn (row and column count from 0)."""

    text: str
    callback_data: str | None = None
    url: str | None = None
    row: int = 0
    column: int = 0
    web_app: str | None = None
    """The URL of a ``web_app`` button (a Mini App opened in place)."""

    @property
    def pressable(self) -> bool:
        """Whether pressing it sends a callback query."""
        return self.callback_data is not None


def validate_reply_markup(markup: Any, *, private: bool = True) -> dict[str, Any] | None:
    """Check a reply_markup object for a message in a private chat (or, ``private``
    False, in a group); return it (or None) or raise a 400 like Telegram."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        _validate_inline(markup["inline_keyboard"], private)
    elif not any(k in markup for k in ("keyboard", "remove_keyboard", "force_reply")):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if len(json.dumps(markup, ensure_ascii=False).encode("utf-8")) > MAX_MARKUP_JSON_BYTES:
        raise bad_request(REPLY_MARKUP_TOO_LONG)
    return markup


def _validate_inline(rows: Any, private: bool) -> None:
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request(
            'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'
        )
    count = 0
    for row in rows:
        for button in row:
            count += 1
            if not isinstance(button, dict):
                raise bad_request("can't parse inline keyboard button: Object expected")
            if not isinstance(button.get("text"), str):
                raise bad_request(
                    'can\'t parse inline keyboard button: Field "text" must be of type String'
                )
            actions = [key for key in _BUTTON_ACTIONS if key in button]
            if not actions:
                raise bad_request(
                    "can't parse inline keyboard button: "
                    "Text buttons are unallowed in the inline keyboard"
                )
            if "callback_data" in button:
                data = button["callback_data"]
                if not isinstance(data, str):
                    raise bad_request(
                        "can't parse inline keyboard button: "
                        'Field "callback_data" must be of type String'
                    )
                if not 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES:
                    raise bad_request(BUTTON_DATA_INVALID)
            if "web_app" in button:
                web_app = button["web_app"]
                if not isinstance(web_app, dict) or not isinstance(web_app.get("url"), str):
                    raise bad_request(
                        "can't parse inline keyboard button: "
                        'Field "web_app" must be of type Object'
                    )
                # "Available only in private chats between a user and the bot" (Bot API,
                # InlineKeyboardButton.web_app); elsewhere Telegram answers 400
                # BUTTON_TYPE_INVALID (grammyjs/grammY#490, telegraf/telegraf#2031,
                # php-telegram-bot/core#1353).
                if not private:
                    raise bad_request(BUTTON_TYPE_INVALID)
            if "url" in button:
                url = button["url"]
                if not isinstance(url, str) or not _URL_RE.match(url):
                    raise bad_request(
                        f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL"
                    )
    if count > MAX_INLINE_BUTTONS:
        raise bad_request(REPLY_MARKUP_TOO_LONG)


def inline_buttons(markup: dict[str, Any] | None) -> list[list[Button]]:
    """The inline keyboard of a reply_markup as rows of Buttons ([] if none)."""
    if not markup or "inline_keyboard" not in markup:
        return []
    return [
        [
            Button(
                text=str(raw.get("text", "")),
                callback_data=raw.get("callback_data"),
                url=raw.get("url"),
                row=r,
                column=c,
                web_app=_web_app_url(raw),
            )
            for c, raw in enumerate(row)
        ]
        for r, row in enumerate(markup["inline_keyboard"])
    ]


def _web_app_url(raw: Any) -> str | None:
    web_app = raw.get("web_app") if isinstance(raw, dict) else None
    url = web_app.get("url") if isinstance(web_app, dict) else None
    return url if isinstance(url, str) else None


def select_button(
    buttons: Iterable[Button],
    *,
    text: str | None = None,
    text_contains: str | None = None,
    data: str | None = None,
    data_prefix: str | None = None,
) -> Button | None:
    """The first button matching every given criterion, or None."""
    for button in buttons:
        if text is not None and button.text != text:
            continue
        if text_contains is not None and text_contains.casefold() not in button.text.casefold():
            continue
        if data is not None and button.callback_data != data:
            continue
        if data_prefix is not None and not (button.callback_data or "").startswith(data_prefix):
            continue
        return button
    return None
