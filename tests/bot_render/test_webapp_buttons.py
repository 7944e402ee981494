"""The Mini App's buttons in the renderers' keyboards: a link in the group's messages, a
``web_app`` button in a hand; none when the context has no Mini App."""

from __future__ import annotations

from dataclasses import replace

import pytest
from telegram import InlineKeyboardButton, WebAppInfo

from bot import render as r
from bot.render.common import Button, Keyboard
from engine import Rules

from .helpers import ctx, players, position

LINK = "https://t.me/durak_test_bot/table?startapp=t39u_abcdefghijkl"
APP = "https://durak.example.com/app?startapp=t39u_abcdefghijkl"


def game() -> object:
    return position("podkidnoy", ["7S 8S 9H", "6D TD JC"], "6H KH")


def test_the_group_table_links_to_the_mini_app() -> None:
    g = game()
    plain = r.render_table(g.public_view(), players(2), "en", ctx(g))  # type: ignore[attr-defined]
    linked = r.render_table(
        g.public_view(),  # type: ignore[attr-defined]
        players(2),
        "en",
        replace(ctx(g), open_url=LINK),
    )
    assert plain.text == linked.text
    assert plain.keyboard is not None and linked.keyboard is not None
    assert [b.text for b in plain.keyboard.buttons()] == ["🃏 My cards"]
    assert [(b.text, b.url) for b in linked.keyboard.buttons()][1] == ("🃏 Open the table", LINK)


def test_a_hand_opens_the_mini_app_in_place() -> None:
    g = game()
    view = g.view(0)  # type: ignore[attr-defined]
    plain = r.render_hand(view, players(2), "ru", ctx(g))
    opened = r.render_hand(view, players(2), "ru", replace(ctx(g), web_app_url=APP))
    assert plain.keyboard is not None and opened.keyboard is not None
    assert plain.keyboard.rows[:-1] == opened.keyboard.rows[:-1]
    last = opened.keyboard.rows[-1]
    assert [b.text for b in last] == ["🔄 Обновить", "🃏 Открыть стол"]
    assert last[1].web_app == APP and last[1].data is None and last[1].url is None


def test_the_lobby_links_to_the_mini_app() -> None:
    ctx0 = r.LobbyContext(4242, 3)
    plain = r.render_lobby(Rules(), players(2), "en", ctx0)
    linked = r.render_lobby(Rules(), players(2), "en", r.LobbyContext(4242, 3, open_url=LINK))
    assert plain.keyboard is not None and linked.keyboard is not None
    assert linked.keyboard.rows[:-1] == plain.keyboard.rows
    assert [(b.text, b.url) for b in linked.keyboard.rows[-1]] == [("🃏 Open the table", LINK)]


def test_markup_of_a_web_app_button() -> None:
    keyboard = Keyboard.of([[Button.app("🃏 Open the table", APP), Button.link("x", LINK)]])
    markup = r.to_markup(keyboard)
    assert markup is not None
    first, second = markup.inline_keyboard[0]
    assert first == InlineKeyboardButton("🃏 Open the table", web_app=WebAppInfo(APP))
    assert second.url == LINK
    assert r.reply_markup(keyboard) == {
        "inline_keyboard": [
            [
                {"text": "🃏 Open the table", "web_app": {"url": APP}},
                {"text": "x", "url": LINK},
            ]
        ]
    }


@pytest.mark.parametrize(
    "kinds", [{}, {"data": "1q.1.2", "url": LINK}, {"url": LINK, "web_app": APP}]
)
def test_a_button_has_exactly_one_action(kinds: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Button("x", **kinds)
