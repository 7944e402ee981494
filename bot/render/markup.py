"""Our keyboards as python-telegram-bot's ``InlineKeyboardMarkup``."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from .common import Button, Keyboard

__all__ = ["reply_markup", "to_button", "to_markup"]


def to_button(button: Button) -> InlineKeyboardButton:
    """One button as PTB's ``InlineKeyboardButton``."""
    if button.url is not None:
        return InlineKeyboardButton(button.text, url=button.url)
    return InlineKeyboardButton(button.text, callback_data=button.data)


def to_markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    """A keyboard as PTB's ``InlineKeyboardMarkup`` (None stays None: no keyboard)."""
    if keyboard is None:
        return None
    return InlineKeyboardMarkup([[to_button(b) for b in row] for row in keyboard.rows])


def reply_markup(keyboard: Keyboard) -> dict[str, list[list[dict[str, str]]]]:
    """A keyboard as the Bot API's ``reply_markup`` JSON object."""
    return {
        "inline_keyboard": [
            [
                {"text": b.text, "url": b.url}
                if b.url is not None
                else {"text": b.text, "callback_data": b.data or ""}
                for b in row
            ]
            for row in keyboard.rows
        ]
    }
