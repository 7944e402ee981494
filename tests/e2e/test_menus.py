"""The command menus and descriptions: set in the background, once, whatever Telegram says."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fake_telegram import FakeTelegramServer, Faults, Limits

from bot.base.i18n import tr
from bot.chat.menus import MENU_LANGUAGES, STATE_KEY, Menus

from .harness import bot_running, query

MENU_METHODS = ("setMyCommands", "setMyDescription", "setMyShortDescription")
CALLS = 4 * len(MENU_LANGUAGES)
FLOOD = 900
"""Seconds of a flood wait such as Telegram hands a bot that sets its menus at every start."""
PRIVATE = {"type": "all_private_chats"}


def menus_of(app: Any) -> Menus:
    found = app.bot_data["runtime"].extras["menus"]
    assert isinstance(found, Menus)
    return found


def kept(db: Path) -> dict[str, str]:
    """The digests of the menu calls the bot remembers as made."""
    rows = query(db, "SELECT value FROM bot_state WHERE key = ?", STATE_KEY)
    return json.loads(rows[0][0]) if rows else {}


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_long_flood_wait_on_the_menus_keeps_no_update_waiting(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "durak.sqlite3"
    caplog.set_level(logging.INFO)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        ann = await tg.create_user("Ann", language_code="en")
        chat = tg.private_chat(ann)
        tg.flood_wait(FLOOD, *MENU_METHODS)
        # the whole run, start to stop, is over long before the flood wait
        async with asyncio.timeout(FLOOD / 10), bot_running(tg, db) as app:
            sent = await tg.start_bot(ann)
            greeting = await tg.wait_for_message(chat, after=sent, timeout=10)
            assert greeting.plain_text, "the bot answers /start at once"
            await tg.wait_for(lambda: tg.rate_limited, timeout=10, what="the menus' first try")
            assert not menus_of(app).done, "the menus wait for Telegram"
            asked = await tg.send_command(ann, chat, "help")
            await tg.wait_for_message(chat, after=asked, timeout=10)
        # one try, then the wait is waited out in the background (and cut short at the stop)
        assert [(c.method, c.retry_after) for c in tg.calls_to(*MENU_METHODS)] == [
            ("setMyCommands", FLOOD)
        ]
        assert tg.my_commands(PRIVATE) == [] and kept(db) == {}
        assert errors(caplog) == []

        # the flood wait is over: the next start sets every menu and remembers each
        tg.flood_wait(0, *MENU_METHODS)
        async with bot_running(tg, db) as app:
            await tg.wait_for(lambda: menus_of(app).done, timeout=20, what="the menus")
        assert len(kept(db)) == CALLS
        assert len(tg.calls_to(*MENU_METHODS)) == 1 + CALLS
        commands = {c["command"]: c["description"] for c in tg.my_commands(PRIVATE, "uk")}
        assert commands["stats"] == tr("uk", "cmd.private.stats")
        commands = {c["command"]: c["description"] for c in tg.my_commands(PRIVATE, "be")}
        assert commands["stats"] == tr("ru", "cmd.private.stats")
        assert tg.world.bot_texts[("short_description", "")] == tr("en", "about.short")

        # a restart with the digests kept sends none of them again
        before = len(tg.calls_to(*MENU_METHODS, include_pending=True))
        async with bot_running(tg, db) as app:
            await tg.wait_for(lambda: menus_of(app).done, timeout=20, what="the menus")
            asked = await tg.send_command(ann, chat, "help")
            await tg.wait_for_message(chat, after=asked, timeout=10)
        assert len(tg.calls_to(*MENU_METHODS, include_pending=True)) == before
        assert errors(caplog) == []


async def test_the_menus_ride_out_network_failures_and_a_changed_text_is_sent_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "durak.sqlite3"
    caplog.set_level(logging.INFO)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        # the gateway fails every menu call until the test lifts it
        tg.set_faults(Faults(error=1.0, methods=frozenset(MENU_METHODS)))
        async with bot_running(tg, db) as app:
            await tg.wait_for(lambda: len(tg.faulted) >= 2, timeout=20, what="a second try")
            assert kept(db) == {}
            tg.set_faults(None)
            await tg.wait_for(lambda: menus_of(app).done, timeout=30, what="the menus")
        assert len(kept(db)) == CALLS
        assert errors(caplog) == [], "a network failure is not an error of the bot"
        retried = [r for r in caplog.records if r.getMessage().startswith("menus: ")]
        assert any("again in" in r.getMessage() for r in retried), "the retries are logged"

        # a digest that no longer matches (the text changed since): only that call is made
        digests = kept(db)
        digests["description.uk"] = "0" * 32
        with sqlite3.connect(db) as con:
            con.execute(
                "UPDATE bot_state SET value = ? WHERE key = ?", (json.dumps(digests), STATE_KEY)
            )
        con.close()
        before = len(tg.calls_to(*MENU_METHODS))
        async with bot_running(tg, db) as app:
            await tg.wait_for(lambda: menus_of(app).done, timeout=20, what="the menus")
        made = tg.calls_to(*MENU_METHODS)[before:]
        assert [(c.method, c.params.get("language_code")) for c in made] == [
            ("setMyDescription", "uk")
        ]
        assert len(kept(db)) == CALLS and kept(db)["description.uk"] != "0" * 32
