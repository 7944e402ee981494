"""Telegram's limits on what a message and a button's answer may say, and the last guard.

A message's text may hold 4096 characters *after entities parsing* (the Bot API's
sendMessage and editMessageText), a callback query's answer 200. Telegram's own code
counts a bot's text in code points (tdlib's ``utf8_length``); we count in UTF-16 code
units, the unit of entity offsets, which is never less, so whatever fits here fits there.

Every screen is designed to fit (names capped, long lists cut with "and N more"). Should
one not, :func:`fit_request`, which every request passes on its way out, cuts it to the
limit rather than let Telegram refuse it: whole lines from the end, an ellipsis, and the
tags left open closed again.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, Final

import regex  # type: ignore[import-untyped]

__all__ = [
    "MAX_ANSWER",
    "MAX_TEXT",
    "cut_html",
    "cut_plain",
    "fit_lines",
    "fit_request",
    "fits",
    "units",
    "visible_length",
    "visible_text",
]

log = logging.getLogger(__name__)

MAX_TEXT: Final = 4096
"""A message's text, after entities parsing (sendMessage, editMessageText)."""
MAX_ANSWER: Final = 200
"""The text of a callback query's answer (answerCallbackQuery)."""
ELLIPSIS: Final = "…"

_TAG: Final = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*>")
# The entities Telegram decodes in HTML; any other "&...;" stays as written.
_ENTITY: Final = re.compile(r"&(?:lt|gt|amp|quot|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")
_NAMED: Final = {"&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"'}
_GRAPHEME: Final = regex.compile(r"\X")


def units(text: str) -> int:
    """Length in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def _decode(match: re.Match[str]) -> str:
    entity = match.group(0)
    if entity in _NAMED:
        return _NAMED[entity]
    body = entity[2:-1]
    code = int(body[1:], 16) if body[:1] in "xX" else int(body)
    return chr(code) if code <= 0x10FFFF else entity


def visible_text(html: str) -> str:
    """What a reader sees of our HTML: without its tags, entities decoded."""
    return _ENTITY.sub(_decode, _TAG.sub("", html))


def visible_length(html: str) -> int:
    """The length Telegram limits: of the text after entities parsing, in UTF-16 units."""
    return units(visible_text(html))


def fits(html: str, limit: int = MAX_TEXT) -> bool:
    """Whether ``html`` is within ``limit`` once parsed (cheap for short texts)."""
    return 2 * len(html) <= limit or visible_length(html) <= limit


def cut_plain(text: str, limit: int) -> str:
    """``text`` within ``limit`` UTF-16 units: cut between grapheme clusters, with an
    ellipsis, if it is longer."""
    if 2 * len(text) <= limit or units(text) <= limit:
        return text
    kept: list[str] = []
    room = limit - units(ELLIPSIS)
    for cluster in _GRAPHEME.findall(text):
        room -= units(cluster)
        if room < 0:
            break
        kept.append(cluster)
    return "".join(kept).rstrip() + ELLIPSIS


def _unclosed(html: str) -> list[str]:
    """The tags ``html`` leaves open, innermost last."""
    stack: list[str] = []
    for match in _TAG.finditer(html):
        closing, name = match.group(1), match.group(2).lower()
        if not closing:
            stack.append(name)
        elif name in stack:
            while stack and stack.pop() != name:
                pass
    return stack


def cut_html(html: str, limit: int = MAX_TEXT) -> str:
    """Our HTML within ``limit`` once parsed: whole lines kept from the top, then an
    ellipsis, and the tags left open closed. A first line too long alone becomes its
    plain text, cut."""
    if fits(html, limit):
        return html
    kept: list[str] = []
    used = units(ELLIPSIS)
    for line in html.split("\n"):
        used += visible_length(line) + 1  # and its line break
        if used > limit:
            break
        kept.append(line)
    if not kept:
        return _escape(cut_plain(visible_text(html), limit))
    text = "\n".join(kept)
    closing = "".join(f"</{name}>" for name in reversed(_unclosed(text)))
    return f"{text}{closing}\n{ELLIPSIS}"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def fit_lines(
    lines: Sequence[str], budget: int, more: Callable[[int], str], shown: int | None = None
) -> list[str]:
    """At most ``shown`` of ``lines`` (all if None) and no more than fit in ``budget``
    UTF-16 units (line breaks counted), then ``more(n)`` ("and 12 more") for the ``n``
    left out, within the budget too."""
    limit = len(lines) if shown is None else min(shown, len(lines))
    lengths = [visible_length(line) + 1 for line in lines[:limit]]
    total = sum(lengths)
    if limit == len(lines) and total <= budget:
        return list(lines)
    count = limit
    while count > 0 and total + visible_length(more(len(lines) - count)) + 1 > budget:
        count -= 1
        total -= lengths[count]
    return [*lines[:count], more(len(lines) - count)]


_TEXT_METHODS: Final = frozenset({"sendmessage", "editmessagetext", "editephemeralmessagetext"})
EPHEMERAL_TEXT: Final = 1024
"""The longest text of an ephemeral message: ``editEphemeralMessageText`` refuses more than
1024 characters, although the Bot API's page says "1-4096 characters after entity parsing"
(tdlib/telegram-bot-api#881, August 2026); sends are kept to the same, so that what is sent
can always be edited."""


def _ephemeral(name: str, data: dict[str, Any]) -> bool:
    return name == "editephemeralmessagetext" or (
        name == "sendmessage" and "ephemeral_message_parameters" in data
    )


def fit_request(endpoint: str, data: dict[str, Any]) -> bool:
    """Cut, in place, a request's text that Telegram would refuse as too long: a message's
    (sendMessage, editMessageText) to 4096 after parsing, a callback answer's to 200.
    Whether it had to (then it is logged: a screen that should have been designed to fit).
    """
    text = data.get("text")
    if not isinstance(text, str) or "entities" in data:
        return False
    name = endpoint.lower()
    if name in _TEXT_METHODS:
        html = str(data.get("parse_mode") or "").upper() == "HTML"
        limit = EPHEMERAL_TEXT if _ephemeral(name, data) else MAX_TEXT
        fitted = cut_html(text, limit) if html else cut_plain(text, limit)
    elif name == "answercallbackquery":
        fitted = cut_plain(text, MAX_ANSWER)
    else:
        return False
    if fitted == text:
        return False
    log.warning(
        "%s: a text of %d characters cut to fit Telegram's limit: %.60r",
        endpoint,
        visible_length(text) if name in _TEXT_METHODS else units(text),
        text,
    )
    data["text"] = fitted
    return True
