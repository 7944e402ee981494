"""Who opened the page: Telegram's init data, checked as Telegram documents it.

A Mini App page gets ``Telegram.WebApp.initData`` from the Telegram client: a query string
(``query_id=...&user=%7B...%7D&auth_date=...&hash=...``) signed with the bot's token. The
check (core.telegram.org/bots/webapps, "Validating data received via the Mini App"):

- the data-check-string is every received field but ``hash``, as ``key=<value>`` with the
  value URL-decoded, sorted by key, joined by line feeds;
- the secret key is HMAC-SHA256 of the bot token with the key ``WebAppData``;
- ``hash`` must be the hex HMAC-SHA256 of the data-check-string with the secret key,
  compared in constant time.

On top of that the bot refuses what a signature alone would let through: a key given
twice (which of the two would the signature cover?), an ``auth_date`` older than the
allowed age or more than :data:`MAX_SKEW` seconds in the future (the two clocks differ a
little), and a ``user`` that is not a JSON object with an integer ``id`` and a
``first_name``. Everything here is pure: no I/O, the time is passed in.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode

__all__ = [
    "MAX_INIT_DATA",
    "MAX_SKEW",
    "AuthError",
    "InitData",
    "InitDataChecker",
    "WebAppUser",
    "check_init_data",
    "claimed_language",
    "data_check_string",
    "secret_key",
    "sign_init_data",
]

MAX_SKEW: Final = 60
"""Seconds an ``auth_date`` may lie in the future: the client's clock may run ahead."""
MAX_INIT_DATA: Final = 4096
"""The longest init data accepted (Telegram's are a few hundred bytes)."""

_HASH_RE: Final = re.compile(r"[0-9a-f]{64}")
_DATE_RE: Final = re.compile(r"[0-9]{1,12}")


class AuthError(ValueError):
    """Init data that does not prove who the user is. ``reason`` is one of ``empty``,
    ``malformed``, ``duplicate``, ``no_hash``, ``bad_hash``, ``no_date``, ``expired``,
    ``future``, ``no_user``, ``bad_user``."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class WebAppUser:
    """The Telegram user the init data names."""

    id: int
    first_name: str
    last_name: str = ""
    username: str | None = None
    language_code: str | None = None

    @property
    def full_name(self) -> str:
        """First and last name, as Telegram shows them."""
        return f"{self.first_name} {self.last_name}".strip() or (self.username or str(self.id))


@dataclass(frozen=True, slots=True)
class InitData:
    """Checked init data: the user, when it was signed, the start parameter, every field."""

    user: WebAppUser
    auth_date: int
    start_param: str | None = None
    fields: Mapping[str, str] = field(default_factory=dict)


def secret_key(bot_token: str) -> bytes:
    """HMAC-SHA256 of the bot token with the key ``WebAppData``."""
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def data_check_string(fields: Mapping[str, str]) -> str:
    """Every field but ``hash`` as ``key=value``, sorted by key, one a line."""
    return "\n".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "hash")


def _signature(secret: bytes, fields: Mapping[str, str]) -> str:
    return hmac.new(secret, data_check_string(fields).encode(), hashlib.sha256).hexdigest()


def _fields(raw: object) -> dict[str, str]:
    if not isinstance(raw, str) or not raw:
        raise AuthError("empty")
    if len(raw) > MAX_INIT_DATA:
        raise AuthError("malformed", "too long")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True, errors="strict")
    except (ValueError, UnicodeDecodeError) as exc:
        raise AuthError("malformed", str(exc)) from None
    fields: dict[str, str] = {}
    for key, value in pairs:
        if key in fields:
            raise AuthError("duplicate", key)
        fields[key] = value
    return fields


def _user(text: str | None) -> WebAppUser:
    if text is None:
        raise AuthError("no_user")
    try:
        data: Any = json.loads(text)
    except ValueError:
        raise AuthError("bad_user", "not JSON") from None
    except RecursionError:
        raise AuthError("bad_user", "nested too deep") from None
    if not isinstance(data, dict):
        raise AuthError("bad_user", "not an object")
    uid, first = data.get("id"), data.get("first_name")
    if not isinstance(uid, int) or isinstance(uid, bool) or uid <= 0:
        raise AuthError("bad_user", "no id")
    if not isinstance(first, str):
        raise AuthError("bad_user", "no first_name")

    def text_of(name: str) -> str | None:
        value = data.get(name)
        return value if isinstance(value, str) and value else None

    return WebAppUser(
        id=uid,
        first_name=first,
        last_name=text_of("last_name") or "",
        username=text_of("username"),
        language_code=text_of("language_code"),
    )


def check_init_data(
    raw: object,
    bot_token: str,
    *,
    max_age: float,
    now: float | None = None,
    skew: float = MAX_SKEW,
) -> InitData:
    """The init data ``raw`` checked against ``bot_token`` (see the module's doc);
    :class:`AuthError` if it does not hold."""
    return InitDataChecker(bot_token, max_age=max_age, skew=skew).check(raw, now=now)


class InitDataChecker:
    """Checks init data for one bot (its secret key worked out once)."""

    __slots__ = ("_secret", "max_age", "skew")

    def __init__(self, bot_token: str, *, max_age: float, skew: float = MAX_SKEW) -> None:
        self._secret = secret_key(bot_token)
        self.max_age = max_age
        self.skew = skew

    def check(self, raw: object, *, now: float | None = None) -> InitData:
        """The checked init data; :class:`AuthError` if it does not hold."""
        fields = _fields(raw)
        given = fields.get("hash")
        if given is None:
            raise AuthError("no_hash")
        if not _HASH_RE.fullmatch(given) or not hmac.compare_digest(
            _signature(self._secret, fields), given
        ):
            raise AuthError("bad_hash")
        date = fields.get("auth_date")
        if date is None or not _DATE_RE.fullmatch(date):
            raise AuthError("no_date")
        signed = int(date)
        current = time.time() if now is None else now
        if signed > current + self.skew:
            raise AuthError("future")
        if current - signed > self.max_age:
            raise AuthError("expired")
        user = _user(fields.get("user"))
        return InitData(user, signed, fields.get("start_param") or None, fields)


def claimed_language(raw: object) -> str | None:
    """The ``language_code`` the init data's user names, read without any check: only to
    say in his language why his init data is refused, never to take him for anyone."""
    try:
        return _user(_fields(raw).get("user")).language_code
    except AuthError:
        return None


def sign_init_data(fields: Mapping[str, str], bot_token: str) -> str:
    """Init data as Telegram would send it for ``fields``: URL-encoded, with its ``hash``
    (for tests and benchmarks, which play Telegram's part)."""
    values = {k: v for k, v in fields.items() if k != "hash"}
    values["hash"] = _signature(secret_key(bot_token), values)
    return urlencode(values)
