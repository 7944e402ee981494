"""Start tokens name a table, fit Telegram's start parameters, and cannot be forged."""

from __future__ import annotations

import pytest

from bot.service.links import TOKEN_RE, BadToken, StartTokens, WebAppLinks, start_key

TOKEN = "123456789:AAFakeTelegramTokenForTests-0123456789"
TOKENS = StartTokens(start_key(TOKEN))


@pytest.mark.parametrize("table", [0, 1, 35, 36, 4242, 2**40, 36**12 - 1])
def test_round_trip(table: int) -> None:
    token = TOKENS.token(table)
    assert TOKEN_RE.fullmatch(token) and len(token) <= 64
    assert TOKENS.table_of(token) == table


def test_it_tells_nothing_secret() -> None:
    token = TOKENS.token(4242)
    assert TOKEN not in token and TOKEN.partition(":")[2] not in token
    assert token.startswith("t" + "39u" + "_")  # 4242 in base 36, then the signature


def test_another_key_makes_other_tokens() -> None:
    other = StartTokens(start_key("987654321:AAAnotherBotsTokenForTests-9876543210"))
    with pytest.raises(BadToken):
        other.table_of(TOKENS.token(7))


def test_not_the_callback_datas_key() -> None:
    from bot.app import _codec_key
    from bot.base.config import Settings

    assert start_key(TOKEN) != _codec_key(Settings(bot_token=TOKEN))


def test_a_token_for_another_table_is_forged() -> None:
    token = TOKENS.token(7)
    sig = token.partition("_")[2]
    for body in ("t8", "t70", "t07", "T7"):
        with pytest.raises(BadToken):
            TOKENS.table_of(f"{body}_{sig}")


@pytest.mark.parametrize(
    "bad",
    [None, 7, "", "t7", "t7_", "t7_short", "x" * 65, "t7_" + "A" * 12, "t-1_abc", "t 7_abc"],
)
def test_malformed_tokens(bad: object) -> None:
    with pytest.raises(BadToken):
        TOKENS.table_of(bad)


def test_a_changed_signature_is_refused() -> None:
    token = TOKENS.token(99)
    flipped = token[:-1] + ("A" if token[-1] != "A" else "B")
    with pytest.raises(BadToken):
        TOKENS.table_of(flipped)


def test_links() -> None:
    links = WebAppLinks("https://durak.example.com/app", "table", TOKENS)
    token = TOKENS.token(12)
    assert links.web_app_url(12) == f"https://durak.example.com/app?startapp={token}"
    assert links.direct_link("DurakBot", 12) == f"https://t.me/DurakBot/table?startapp={token}"
    assert links.direct_link("", 12) is None
    assert WebAppLinks("https://x.example/app", None, TOKENS).direct_link("DurakBot", 12) is None
