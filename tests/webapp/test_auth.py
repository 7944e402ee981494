"""Init data is checked as Telegram documents it: a signature over the sorted fields with a
key derived from the bot token, a fresh ``auth_date``, one value per key, a real user."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import parse_qsl, quote, urlencode

import pytest

from bot.webapp.auth import (
    MAX_SKEW,
    AuthError,
    InitDataChecker,
    check_init_data,
    claimed_language,
    data_check_string,
    secret_key,
    sign_init_data,
)

TOKEN = "123456789:AAFakeTelegramTokenForTests-0123456789"
OTHER = "987654321:AAAnotherBotsTokenForTests-9876543210"
NOW = 1_750_000_000
DAY = 86_400
USER = {
    "id": 4242,
    "first_name": "Ann",
    "last_name": "Lee",
    "username": "ann",
    "language_code": "ru",
    "allows_write_to_pm": True,
}


def fields(**changes: str) -> dict[str, str]:
    values = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(USER, separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(NOW - 100),
        "start_param": "t1c_abcdefghijkl",
        "signature": "c2lnbmF0dXJlLWZvci10aGlyZC1wYXJ0aWVz",
    }
    values.update(changes)
    return values


def check(raw: object, *, token: str = TOKEN, now: float = NOW) -> object:
    return check_init_data(raw, token, max_age=DAY, now=now)


def test_a_valid_init_data_names_its_user() -> None:
    found = check(sign_init_data(fields(), TOKEN))
    assert found.user.id == 4242  # type: ignore[attr-defined]
    assert found.user.first_name == "Ann" and found.user.last_name == "Lee"  # type: ignore[attr-defined]
    assert found.user.username == "ann" and found.user.language_code == "ru"  # type: ignore[attr-defined]
    assert found.user.full_name == "Ann Lee"  # type: ignore[attr-defined]
    assert found.auth_date == NOW - 100  # type: ignore[attr-defined]
    assert found.start_param == "t1c_abcdefghijkl"  # type: ignore[attr-defined]


def test_the_signature_is_telegrams() -> None:
    """Worked out here from the documentation's words, not from the module's helpers."""
    values = fields()
    check_string = "\n".join(f"{k}={values[k]}" for k in sorted(values))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check_string.encode(), hashlib.sha256).hexdigest()
    raw = urlencode({**values, "hash": digest}, quote_via=quote)
    assert check(raw).user.id == 4242  # type: ignore[attr-defined]
    assert secret_key(TOKEN) == secret
    assert data_check_string({**values, "hash": digest}) == check_string


def test_field_order_and_percent_encoding_do_not_matter() -> None:
    signed = dict(parse_qsl(sign_init_data(fields(), TOKEN)))
    shuffled = dict(reversed(list(signed.items())))
    assert check(urlencode(shuffled, quote_via=quote)).user.id == 4242  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", [*fields(), "hash"])
def test_each_field_tampered_is_refused(name: str) -> None:
    signed = dict(parse_qsl(sign_init_data(fields(), TOKEN)))
    signed[name] = signed[name][:-1] + ("0" if signed[name][-1] != "0" else "1")
    with pytest.raises(AuthError) as caught:
        check(urlencode(signed))
    assert caught.value.reason == "bad_hash"


def test_an_added_field_is_refused() -> None:
    signed = dict(parse_qsl(sign_init_data(fields(), TOKEN)))
    signed["chat_type"] = "group"
    with pytest.raises(AuthError, match="bad_hash"):
        check(urlencode(signed))


def test_a_removed_field_is_refused() -> None:
    signed = dict(parse_qsl(sign_init_data(fields(), TOKEN)))
    del signed["query_id"]
    with pytest.raises(AuthError, match="bad_hash"):
        check(urlencode(signed))


def test_another_bots_token_is_refused() -> None:
    with pytest.raises(AuthError, match="bad_hash"):
        check(sign_init_data(fields(), OTHER))
    with pytest.raises(AuthError, match="bad_hash"):
        check(sign_init_data(fields(), TOKEN), token=OTHER)


def test_expired() -> None:
    raw = sign_init_data(fields(auth_date=str(NOW - DAY - 1)), TOKEN)
    with pytest.raises(AuthError, match="expired"):
        check(raw)
    assert check(sign_init_data(fields(auth_date=str(NOW - DAY)), TOKEN))


def test_from_the_future() -> None:
    with pytest.raises(AuthError, match="future"):
        check(sign_init_data(fields(auth_date=str(NOW + MAX_SKEW + 1)), TOKEN))
    assert check(sign_init_data(fields(auth_date=str(NOW + MAX_SKEW)), TOKEN))


@pytest.mark.parametrize("date", ["", "soon", "-5", "1e9", "1" * 13])
def test_an_unreadable_auth_date_is_refused(date: str) -> None:
    with pytest.raises(AuthError, match="no_date"):
        check(sign_init_data(fields(auth_date=date), TOKEN))


def test_missing_auth_date() -> None:
    values = fields()
    del values["auth_date"]
    with pytest.raises(AuthError, match="no_date"):
        check(sign_init_data(values, TOKEN))


def test_missing_hash() -> None:
    raw = sign_init_data(fields(), TOKEN)
    without = "&".join(p for p in raw.split("&") if not p.startswith("hash="))
    with pytest.raises(AuthError, match="no_hash"):
        check(without)


@pytest.mark.parametrize("bad", ["", "ABC", "0" * 63, "G" * 64, "a" * 64 + "0"])
def test_a_malformed_hash_is_refused(bad: str) -> None:
    raw = urlencode({**fields(), "hash": bad})
    with pytest.raises(AuthError, match="bad_hash"):
        check(raw)


def test_duplicated_keys_are_refused() -> None:
    raw = sign_init_data(fields(), TOKEN)
    for extra in ("&auth_date=" + str(NOW), "&hash=" + "0" * 64, "&user=%7B%7D"):
        with pytest.raises(AuthError) as caught:
            check(raw + extra)
        assert caught.value.reason == "duplicate"


@pytest.mark.parametrize("raw", [None, "", 42, b"user=1"])
def test_no_init_data(raw: object) -> None:
    with pytest.raises(AuthError, match="empty"):
        check(raw)


@pytest.mark.parametrize("raw", ["no-equals-sign", "a=1&&b=2", "x=%FF%FE"])
def test_malformed_init_data(raw: str) -> None:
    with pytest.raises(AuthError, match="malformed"):
        check(raw)


def test_too_long() -> None:
    with pytest.raises(AuthError, match="malformed"):
        check(sign_init_data(fields(query_id="q" * 5000), TOKEN))


@pytest.mark.parametrize(
    ("user", "reason"),
    [
        (None, "no_user"),
        ("not json", "bad_user"),
        ("[1, 2]", "bad_user"),
        ('{"first_name": "Ann"}', "bad_user"),
        ('{"id": "4242", "first_name": "Ann"}', "bad_user"),
        ('{"id": true, "first_name": "Ann"}', "bad_user"),
        ('{"id": -1, "first_name": "Ann"}', "bad_user"),
        ('{"id": 4242}', "bad_user"),
    ],
)
def test_the_user_must_be_a_user(user: str | None, reason: str) -> None:
    values = fields()
    if user is None:
        del values["user"]
    else:
        values["user"] = user
    with pytest.raises(AuthError) as caught:
        check(sign_init_data(values, TOKEN))
    assert caught.value.reason == reason


def test_optional_user_fields() -> None:
    values = fields(user='{"id": 7, "first_name": "Bob", "username": 5}', start_param="")
    found = check(sign_init_data(values, TOKEN))
    assert found.user.username is None and found.user.language_code is None  # type: ignore[attr-defined]
    assert found.user.full_name == "Bob"  # type: ignore[attr-defined]
    assert found.start_param is None  # type: ignore[attr-defined]


def test_the_checker_keeps_its_age() -> None:
    checker = InitDataChecker(TOKEN, max_age=60)
    raw = sign_init_data(fields(auth_date=str(NOW - 61)), TOKEN)
    with pytest.raises(AuthError, match="expired"):
        checker.check(raw, now=NOW)
    assert checker.check(raw, now=NOW - 1).user.id == 4242


def test_the_language_a_refused_init_data_claims() -> None:
    # read for the words of the refusal only: whatever the signature
    assert claimed_language(sign_init_data(fields(), OTHER)) == "ru"
    english = json.dumps({**USER, "language_code": "en"})
    assert claimed_language(sign_init_data(fields(user=english), TOKEN)) == "en"
    assert claimed_language(urlencode(fields(user=english))) == "en", "no hash at all"
    for raw in ("", None, 5, "user=%7B", "a=1&a=2", urlencode(fields(user='{"id": 1}'))):
        assert claimed_language(raw) is None, raw
    assert claimed_language(urlencode(fields(user='{"id": 1, "first_name": "X"}'))) is None


def test_the_language_of_a_refused_init_data_is_read_without_a_crash() -> None:
    """A hostile page's unsigned user nested thousands deep: no language, no traceback."""
    raw = "user=" + "[" * 2000 + "]" * 2000  # brackets need no escape in a query string
    assert len(raw + "&hash=" + "0" * 64) <= 4096
    assert claimed_language(raw) is None
    with pytest.raises(AuthError) as caught:
        check(raw + "&hash=" + "0" * 64)
    assert caught.value.reason in ("bad_hash", "bad_user")
