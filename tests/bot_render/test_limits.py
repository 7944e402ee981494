"""Telegram's text limits as the bot measures them, and the last guard that cuts a text
too long (every request passes it in the pacer)."""

from __future__ import annotations

import logging
from html import escape

import pytest
import regex
from fake_telegram.formatting import parse_html, utf16_len
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.render.limits import (
    MAX_ANSWER,
    MAX_TEXT,
    cut_html,
    cut_plain,
    fit_lines,
    fit_request,
    fits,
    visible_length,
)


def test_the_length_is_the_parsed_text_s_in_utf16_units() -> None:
    assert visible_length("<b>Ann</b> &lt;&amp;&gt; &quot;") == len('Ann <&> "')
    assert visible_length('<a href="tg://user?id=1">Bob</a>') == 3
    assert visible_length("&nbsp;") == 6, "Telegram decodes only &lt; &gt; &amp; &quot;"
    assert visible_length("&#1046;&#x416;") == 2
    assert visible_length("🃏") == 2 and visible_length("♥️") == 2
    text = "<b>" + "&lt;" * 4096 + "</b>"
    assert fits(text) and not fits(text + "x")


def test_a_long_text_is_cut_by_lines_and_stays_valid_html() -> None:
    lines = [f"<b>line {i}</b> · <i>{'Ж' * 50}</i>" for i in range(200)]
    text = "🃏 <b>Title</b>\n" + "\n".join(lines)
    cut = cut_html(text)
    parsed = parse_html(cut)  # as Telegram parses it: raises on unbalanced tags
    assert utf16_len(parsed.text) <= MAX_TEXT and cut.endswith("\n…")
    assert cut.startswith(text[: cut.index("\n…")])
    assert cut_html("<b>short</b>") == "<b>short</b>"


def test_tags_left_open_by_the_cut_are_closed() -> None:
    text = "<blockquote><b>head</b>\n" + "\n".join(["Ж" * 100] * 60) + "</blockquote>"
    cut = cut_html(text)
    assert cut.endswith("</blockquote>\n…")
    assert utf16_len(parse_html(cut).text) <= MAX_TEXT


def test_one_line_too_long_alone_becomes_its_plain_text_cut() -> None:
    text = "<b>" + "a&amp;" * 3000 + "</b>"
    cut = cut_html(text)
    assert utf16_len(parse_html(cut).text) <= MAX_TEXT
    assert parse_html(cut).text.startswith("a&a&") and cut.endswith("…")


@pytest.mark.parametrize("text", ["👨‍👩‍👧‍👦" * 100, "é" * 300, "🇺🇦" * 100])
def test_a_plain_text_is_cut_between_grapheme_clusters(text: str) -> None:
    cut = cut_plain(text, MAX_ANSWER)
    assert utf16_len(cut) <= MAX_ANSWER and cut.endswith("…")
    kept = cut[:-1]
    whole = regex.findall(r"\X", text)
    assert kept == "".join(whole[: len(regex.findall(r"\X", kept))])
    assert cut_plain("fine", MAX_ANSWER) == "fine"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.text(max_size=80), st.booleans()), max_size=60),
    st.integers(1, 500),
)
def test_any_text_cut_fits_and_parses(lines: list[tuple[str, bool]], limit: int) -> None:
    html = "\n".join(
        f"<b>{escape(t, quote=False)}</b>" if bold else escape(t, quote=False) for t, bold in lines
    )
    cut = cut_html(html, limit)
    assert visible_length(cut) <= limit
    assert utf16_len(parse_html(cut).text) <= limit
    if visible_length(html) <= limit:
        assert cut == html


def test_and_n_more_takes_the_place_of_the_lines_left_out() -> None:
    lines = [f"{i}. {'x' * 20}" for i in range(40)]
    more = fit_lines(lines, 10_000, lambda n: f"…and {n} more", shown=20)
    assert more[:20] == lines[:20] and more[20] == "…and 20 more" and len(more) == 21
    tight = fit_lines(lines, 100, lambda n: f"…and {n} more")
    assert sum(visible_length(line) + 1 for line in tight) <= 100
    assert tight[-1] == f"…and {40 - len(tight) + 1} more"
    assert fit_lines(lines[:3], 10_000, lambda n: "never") == lines[:3]


def test_the_guard_cuts_what_telegram_would_refuse(caplog: pytest.LogCaptureFixture) -> None:
    long = "\n".join(["<b>Ж</b>" * 100] * 50)
    data = {"chat_id": 1, "text": long, "parse_mode": "HTML"}
    with caplog.at_level(logging.WARNING, "bot.render.limits"):
        assert fit_request("sendMessage", data)
    assert utf16_len(parse_html(data["text"]).text) <= MAX_TEXT
    assert "cut to fit" in caplog.text
    plain = {"chat_id": 1, "text": "я" * 5000}
    assert fit_request("editMessageText", plain) and len(plain["text"]) <= MAX_TEXT
    answer = {"callback_query_id": "1", "text": "Нельзя начать: " + "x" * 300}
    assert fit_request("answerCallbackQuery", answer) and utf16_len(answer["text"]) <= 200
    kept = {"chat_id": 1, "text": "<b>fine</b>", "parse_mode": "HTML"}
    assert not fit_request("sendMessage", kept) and kept["text"] == "<b>fine</b>"
    other = {"chat_id": 1, "text": "x" * 5000}
    assert not fit_request("setMyDescription", other) and len(other["text"]) == 5000
