"""Our keyboards as python-telegram-bot's ``InlineKeyboardMarkup``."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from .common import Button, Keyboard

__all__ = ["reply_markup", "to_button", "to_markup"]


def to_button(button: Button) -> InlineKeyboardButton:
    """One button as PTB's ``InlineKeyboardButton``."""
    if button.url is not None:
        return InlineKeyboardButton(button.text, url=button.url)
    if button.web_app is not None:
        return InlineKeyboardButton(button.text, web_app=WebAppInfo(button.web_app))
    return InlineKeyboardButton(button.text, callback_data=button.data)


def to_markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    """A keyboard as PTB's ``InlineKeyboardMarkup`` (None stays None: no keyboard)."""
    if keyboard is None:
        return None
    return InlineKeyboardMarkup([[to_button(b) for b in row] for row in keyboard.rows])


def _json(button: Button) -> dict[str, object]:
    if button.url is not None:
        return {"text": button.text, "url": button.url}
    if button.web_app is not None:
        return {"text": button.text, "web_app": {"url": button.web_app}}
    return {"text": button.text, "callback_data": button.data or ""}


def reply_markup(keyboard: Keyboard) -> dict[str, list[list[dict[str, object]]]]:
    """A keyboard as the Bot API's ``reply_markup`` JSON object."""
    return {"inline_keyboard": [[_json(b) for b in row] for row in keyboard.rows]}
