"""The init data the harness signs is Telegram's: checked here by Telegram's documented
steps, written out independently of the signer."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import parse_qsl

from .browser import TelegramUser, init_data_fields, sign_init_data

TOKEN = "123456789:AAExampleTokenForSigning"
USER = TelegramUser(id=42, first_name="Иван", last_name="Ö", username="ivan", language_code="ru")


def telegram_accepts(init_data: str, token: str) -> bool:
    """Telegram's check, step by step as its Mini Apps page writes it."""
    pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    received = dict(pairs)
    given = received.pop("hash")
    data_check_string = "\n".join(f"{k}={received[k]}" for k in sorted(received))
    secret_key = hmac.new(key=b"WebAppData", msg=token.encode(), digestmod=hashlib.sha256)
    expected = hmac.new(secret_key.digest(), data_check_string.encode(), hashlib.sha256)
    return hmac.compare_digest(expected.hexdigest(), given)


def test_signed_init_data_passes_telegrams_check() -> None:
    fields = init_data_fields(USER, start_param="t1_Ab-cd", auth_date=1_733_100_000)
    raw = sign_init_data(TOKEN, fields)
    assert telegram_accepts(raw, TOKEN)
    data = dict(parse_qsl(raw))
    assert json.loads(data["user"])["first_name"] == "Иван"
    assert data["start_param"] == "t1_Ab-cd"
    assert data["auth_date"] == "1733100000"
    assert len(data["hash"]) == 64


def test_another_token_or_a_changed_field_fails_the_check() -> None:
    fields = init_data_fields(USER, start_param="t1_Ab-cd", auth_date=1_733_100_000)
    raw = sign_init_data(TOKEN, fields)
    assert not telegram_accepts(raw, TOKEN + "x")
    assert not telegram_accepts(raw.replace("auth_date=1733100000", "auth_date=1733100001"), TOKEN)
    other = sign_init_data(TOKEN, {**fields, "start_param": "t2"})
    assert telegram_accepts(other, TOKEN)
    assert other != raw
