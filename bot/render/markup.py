"""Our keyboards as python-telegram-bot's ``InlineKeyboardMarkup``."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from .common import Button, Keyboard

__all__ = ["reply_markup", "to_button", "to_markup"]


def to_button(button: Button) -> InlineKeyboardButton:
    """One button as PTB's ``InlineKeyboardButton`` (PTB 22.8 speaks Bot API 10.0: the
    style and the disabled state, 9.4 and 10.3, go as extra fields)."""
    extra = _extra(button)
    if button.url is not None:
        return InlineKeyboardButton(button.text, url=button.url, api_kwargs=extra)
    if button.web_app is not None:
        return InlineKeyboardButton(
            button.text, web_app=WebAppInfo(button.web_app), api_kwargs=extra
        )
    return InlineKeyboardButton(button.text, callback_data=button.data, api_kwargs=extra)


def _extra(button: Button) -> dict[str, object]:
    """The fields PTB does not know: ``style`` (Bot API 9.4) and ``disabled`` (Bot API
    10.3: a ``DisabledButton`` object, empty, as the button's one kind)."""
    extra: dict[str, object] = {}
    if button.style is not None:
        extra["style"] = button.style
    if button.disabled:
        extra["disabled"] = {}
    return extra


def to_markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    """A keyboard as PTB's ``InlineKeyboardMarkup`` (None stays None: no keyboard)."""
    if keyboard is None:
        return None
    return InlineKeyboardMarkup([[to_button(b) for b in row] for row in keyboard.rows])


def _json(button: Button, disabled: bool) -> dict[str, object]:
    found: dict[str, object]
    if button.url is not None:
        found = {"text": button.text, "url": button.url}
    elif button.web_app is not None:
        found = {"text": button.text, "web_app": {"url": button.web_app}}
    elif button.disabled and not disabled and button.fallback is not None:
        return {"text": button.text, "callback_data": button.fallback}
    elif button.disabled:
        found = {"text": button.text}
    else:
        found = {"text": button.text, "callback_data": button.data or ""}
    return found | _extra(button) if button.style is not None or button.disabled else found


def reply_markup(
    keyboard: Keyboard, *, disabled: bool = True
) -> dict[str, list[list[dict[str, object]]]]:
    """A keyboard as the Bot API's ``reply_markup`` JSON object; ``disabled=False`` for a
    server older than Bot API 10.3: a disabled button goes as its fallback callback."""
    return {"inline_keyboard": [[_json(b, disabled) for b in row] for row in keyboard.rows]}
