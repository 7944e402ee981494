"""The ways into the Mini App: the start token that names a table, and the links that carry it.

The token is ``t<table id in base 36>_<signature>``: the signature is the first 9 bytes of
HMAC-SHA256 over ``t<id>`` with a key derived from the bot token (another label than the
callback data's), base64url without padding. It fits Telegram's start parameters
(``[A-Za-z0-9_-]``, 1-64 characters; 22 at most here) and tells nothing but the table's
number, which the callback data of its buttons shows too. A token cannot be made for
another table without the key: the server refuses it before looking anything up.

- In a group, inline ``web_app`` buttons are refused by Telegram, so the table message
  and the lobby link to the Mini App's direct link
  ``https://t.me/<bot username>/<short name>?startapp=<token>``, which opens the app's
  URL (set in @BotFather) with ``tgWebAppStartParam=<token>`` and the token as
  ``start_param`` in the init data.
- In a private chat a ``web_app`` button opens ``DURAK_WEBAPP_URL?startapp=<token>``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Final

__all__ = ["TOKEN_RE", "BadToken", "StartTokens", "WebAppLinks", "start_key"]

TOKEN_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What Telegram allows in a start parameter."""
_SIG_BYTES: Final = 9
_BODY_RE: Final = re.compile(r"t(0|[1-9a-z][0-9a-z]{0,11})")
_DIGITS: Final = "0123456789abcdefghijklmnopqrstuvwxyz"


class BadToken(ValueError):
    """A start token that is not one of ours (malformed, or its signature does not match)."""


def start_key(bot_token: str) -> bytes:
    """The start tokens' signing key, derived from the bot token (never shown anywhere)."""
    return hashlib.sha256(b"durak mini app start token\0" + bot_token.encode()).digest()


def _b36(n: int) -> str:
    out = []
    while True:
        n, rest = divmod(n, 36)
        out.append(_DIGITS[rest])
        if not n:
            return "".join(reversed(out))


class StartTokens:
    """Makes and reads start tokens with one key."""

    __slots__ = ("_key",)

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("an HMAC key should be at least 16 bytes")
        self._key = key

    def _sign(self, body: str) -> str:
        digest = hmac.new(self._key, body.encode("ascii"), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:_SIG_BYTES]).decode("ascii")

    def token(self, table_id: int) -> str:
        """The start token of ``table_id``."""
        if table_id < 0:
            raise ValueError(f"a table id is not negative, got {table_id}")
        body = "t" + _b36(table_id)
        return f"{body}_{self._sign(body)}"

    def table_of(self, token: object) -> int:
        """The table a token names; :class:`BadToken` if it is not one of ours."""
        if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
            raise BadToken("not a start parameter")
        body, sep, sig = token.partition("_")
        if not sep or not _BODY_RE.fullmatch(body):
            raise BadToken("not a table's token")
        if not hmac.compare_digest(self._sign(body), sig):
            raise BadToken("its signature does not match")
        return int(body[1:], 36)


@dataclass(frozen=True, slots=True)
class WebAppLinks:
    """Where the Mini App is, and the links into it for a table."""

    url: str
    """``DURAK_WEBAPP_URL``."""
    short_name: str | None
    """``DURAK_WEBAPP_SHORT_NAME``: without it groups get no link."""
    tokens: StartTokens

    def web_app_url(self, table_id: int) -> str:
        """The URL of a ``web_app`` button (private chats only)."""
        return f"{self.url}?startapp={self.tokens.token(table_id)}"

    def direct_link(self, bot_username: str, table_id: int) -> str | None:
        """The Mini App's direct link for a group's message; None without a short name or
        a bot username."""
        if not self.short_name or not bot_username:
            return None
        token = self.tokens.token(table_id)
        return f"https://t.me/{bot_username}/{self.short_name}?startapp={token}"
