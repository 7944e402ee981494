"""Reply markup: validation as Telegram does it, and buttons for tests to find and press."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import (
    BUTTON_DATA_INVALID,
    BUTTON_TYPE_INVALID,
    REPLY_MARKUP_TOO_LONG,
    ApiError,
    bad_request,
)

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
#: InlineKeyboardButton.style: "Must be one of "danger" (red), "success" (green) or
#: "primary" (blue). If omitted, then an app-specific style is used" (Bot API 9.4,
#: core.telegram.org/bots/api/types/inlinekeyboardbutton). telegram-bot-api's
#: Client::get_button_style (Client.cpp, Bot API 10.0) lower-cases the value and also takes
#: "" and "default" (the app's style); anything else is "invalid button style specified".
BUTTON_STYLES = frozenset({"primary", "danger", "success"})
#: Bot API versions that brought a button field: a self-hosted server older than that
#: ignores the field as any unknown one (``FakeTelegramServer(api_version=...)``).
STYLE_SINCE = (9, 4)
DISABLED_SINCE = (10, 3)
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
    disabled: bool = False
    """A disabled button (Bot API 10.3, ``disabled``): drawn, does nothing when pressed."""
    style: str | None = None
    """"primary", "danger" or "success" (Bot API 9.4); None: the app's own style."""

    @property
    def pressable(self) -> bool:
        """Whether pressing it sends a callback query."""
        return self.callback_data is not None and not self.disabled


def validate_reply_markup(
    markup: Any, *, private: bool = True, api_version: tuple[int, int] | None = None
) -> dict[str, Any] | None:
    """Check a reply_markup object for a message in a private chat (or, ``private``
    False, in a group); return it (or None) or raise a 400 like Telegram.
    ``api_version``: a self-hosted server of that Bot API version (None: Telegram's own)."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        _validate_inline(markup["inline_keyboard"], private, api_version)
    elif not any(k in markup for k in ("keyboard", "remove_keyboard", "force_reply")):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if len(json.dumps(markup, ensure_ascii=False).encode("utf-8")) > MAX_MARKUP_JSON_BYTES:
        raise bad_request(REPLY_MARKUP_TOO_LONG)
    return markup


def _knows(api_version: tuple[int, int] | None, since: tuple[int, int]) -> bool:
    return api_version is None or api_version >= since


def _button_error(text: str) -> ApiError:
    return bad_request(f"can't parse inline keyboard button: {text}")


def _validate_style(button: dict[str, Any]) -> None:
    """``style``: a string, one of BUTTON_STYLES, "default" or "" (any case)."""
    style = button["style"]
    if not isinstance(style, str):
        raise _button_error('Field "style" must be of type String')
    if style.lower() not in BUTTON_STYLES | {"", "default"}:
        raise _button_error("invalid button style specified")


def _validate_disabled(button: dict[str, Any], actions: list[str]) -> None:
    """``disabled``: a DisabledButton, "a disabled button which does nothing. Currently
    holds no information" (Bot API 10.3, grammy.dev/ref/types/disabledbutton): an object
    ({} as documented). ``true`` is taken too: telegram-bot-api tests the presence of the
    other empty-object button field, callback_game, with has_field (Client.cpp, Bot API
    10.0), not its type. Any other value is refused as a wrongly typed field.

    A disabled button with an action field too (callback_data, url, ...): the Bot API says
    "Exactly one of the fields other than text, icon_custom_emoji_id, and style must be
    used to specify the type of the button", so it is refused. ASSUMED wording:
    BUTTON_TYPE_INVALID, Telegram's error for a button of a kind it does not take here.
    (telegram-bot-api 10.0 takes the first field in a fixed order and ignores the rest,
    but where ``disabled`` stands in that order no public source says; refusing keeps a
    bot from drawing a button that is live in one reading and dead in the other.)"""
    value = button["disabled"]
    if value is not True and not isinstance(value, dict):
        raise _button_error('Field "disabled" must be of type Object')
    if actions:
        raise bad_request(BUTTON_TYPE_INVALID)


def _validate_inline(rows: Any, private: bool, api_version: tuple[int, int] | None) -> None:
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
            if "style" in button and _knows(api_version, STYLE_SINCE):
                _validate_style(button)
            actions = [key for key in _BUTTON_ACTIONS if key in button]
            if "disabled" in button and _knows(api_version, DISABLED_SINCE):
                _validate_disabled(button, actions)
                continue
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
                disabled=_is_disabled(raw),
                style=_style(raw),
            )
            for c, raw in enumerate(row)
        ]
        for r, row in enumerate(markup["inline_keyboard"])
    ]


def _is_disabled(raw: Any) -> bool:
    if not isinstance(raw, dict):
        return False
    value = raw.get("disabled")
    return value is True or isinstance(value, dict)


def _style(raw: Any) -> str | None:
    style = raw.get("style") if isinstance(raw, dict) else None
    if not isinstance(style, str) or style.lower() not in BUTTON_STYLES:
        return None
    return style.lower()


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
