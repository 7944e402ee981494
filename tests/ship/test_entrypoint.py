"""The real entry point, ``python -m bot`` as a subprocess, against the fake Bot API server:
a short game end to end in polling mode and in webhook mode, a clean stop on SIGTERM, and
the token never in the logs (DEBUG logging on)."""

from __future__ import annotations

import asyncio
import random
import re
import socket
import time
from pathlib import Path
from typing import Any

import aiohttp
from e2e.harness import Table, replay_games
from fake_telegram import FakeTelegramServer, FakeUser, Limits, post_update

from .process import BotProcess, run_bot

SECRET = "webhook-Secret_0123456789"
LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")


def bot_settings(tg: FakeTelegramServer, tmp: Path, **extra: str) -> dict[str, str]:
    """The environment of a bot talking to the fake server, logging everything."""
    return {
        "BOT_TOKEN": tg.token,
        "DURAK_BASE_URL": tg.base_url,
        "DURAK_DB_PATH": str(tmp / "data" / "durak.sqlite3"),
        "DURAK_LOG_LEVEL": "DEBUG",
        "DURAK_DEFAULT_LANGUAGE": "en",
        # Telegram's figures at the fake's Limits.fast() speed
        "DURAK_GROUP_EDIT_INTERVAL": "0.08",
        "DURAK_PRIVATE_EDIT_INTERVAL": "0.02",
        **extra,
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def play_a_game(tg: FakeTelegramServer, seed: int) -> Table:
    """Two players start the bot, open a table, join, start and press buttons to the end."""
    table = await Table.create(tg, 2)
    await table.start_bots()
    await table.open_lobby()
    await table.join_all()
    await table.start()
    end = await table.play_to_end(random.Random(seed), timeout=45)
    assert "Game over" in end.plain_text
    return table


def assert_clean_log(output: str, token: str, *secrets: str) -> None:
    """One line per event, no traceback, and no secret anywhere."""
    assert output.strip(), "the bot logged something"
    for secret in (token, token.partition(":")[2], *secrets):
        assert secret not in output, "a secret leaked into the log"
    assert "bot***/" in output, "request URLs are logged (DEBUG) with the token redacted"
    for line in output.splitlines():
        assert LINE.match(line), f"not a log line: {line!r}"
    assert "Traceback" not in output
    assert " ERROR " not in output and " CRITICAL " not in output, output


async def test_polling_mode_plays_a_game(tmp_path: Path) -> None:
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = bot_settings(tg, tmp_path)
        async with BotProcess(env, tmp_path) as bot:
            await tg.wait_for(lambda: tg.calls_to("getUpdates", include_pending=True), timeout=30)
            await play_a_game(tg, 1)
            code = await bot.stop()
        assert code == 0, bot.output
        assert tg.rate_limited == []
        assert tg.webhook is None
    assert "starting: mode=polling" in bot.output
    assert_clean_log(bot.output, tg.token)
    games = replay_games(tmp_path / "data" / "durak.sqlite3")
    assert len(games) == 1 and games[0].result is not None


def forged_help(user: FakeUser, update_id: int) -> dict[str, Any]:
    """A /help in ``user``'s private chat, as Telegram would post it."""
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "from": user.to_api(),
            "chat": {"id": user.id, "type": "private", "first_name": user.first_name},
            "date": int(time.time()),
            "text": "/help",
            "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
        },
    }


async def test_webhook_mode_plays_a_game_and_refuses_posts_without_the_secret(
    tmp_path: Path,
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram/hook"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = bot_settings(
            tg,
            tmp_path,
            DURAK_MODE="webhook",
            DURAK_WEBHOOK_URL=url,
            DURAK_WEBHOOK_LISTEN="127.0.0.1",
            DURAK_WEBHOOK_PORT=str(port),
            DURAK_WEBHOOK_SECRET=SECRET,
        )
        async with BotProcess(env, tmp_path) as bot:
            hook = await tg.wait_for(lambda: tg.webhook, timeout=30, what="setWebhook")
            assert hook.url == url and hook.secret_token == SECRET
            code, _, err = await run_bot(env, tmp_path, "--check")
            assert code == 0 and "webhook server answers" in err, err

            table = await play_a_game(tg, 2)
            assert hook.delivered > 0, "the updates came through the webhook"

            # Posts without the secret, or with a wrong one, are refused and do nothing.
            ann = table.users[0]
            chat = tg.private_chat(ann)
            before = len(tg.bot_messages(chat))
            assert await post_update(url, forged_help(ann, 900_001)) == 403
            assert await post_update(url, forged_help(ann, 900_002), "wrong-secret") == 403
            await asyncio.sleep(1.0)
            assert len(tg.bot_messages(chat)) == before, "a refused post had an effect"
            # The same post with the secret is served (so the refusals above were real).
            assert await post_update(url, forged_help(ann, 900_003), SECRET) == 200
            await tg.wait_for(lambda: len(tg.bot_messages(chat)) > before, timeout=10)
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                    assert response.status == 200
                async with http.get(url) as response:
                    assert response.status == 405

            code = await bot.stop()
        assert code == 0, bot.output
        assert tg.webhook is not None, "the webhook stays registered over a restart"
    assert "starting: mode=webhook" in bot.output
    assert bot.output.count("refused a post") == 2
    assert_clean_log(bot.output, tg.token, SECRET)
    games = replay_games(tmp_path / "data" / "durak.sqlite3")
    assert len(games) == 1 and games[0].result is not None


async def test_a_token_the_server_refuses(tmp_path: Path) -> None:
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        wrong = tg.token.partition(":")[0] + ":AAWrongTokenWrongTokenWrongToken-42"
        env = {**bot_settings(tg, tmp_path), "BOT_TOKEN": wrong}
        code, out, err = await run_bot(env, tmp_path)
    assert code == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("durak-bot: BOT_TOKEN is invalid: the Bot API at ")
    assert wrong not in out + err and wrong.partition(":")[2] not in out + err
    assert "Traceback" not in err


async def test_a_webhook_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {
            "BOT_TOKEN": "123456789:AAFakeTelegramTokenForTests-0123456789",
            "DURAK_DB_PATH": str(tmp_path / "durak.sqlite3"),
            "DURAK_MODE": "webhook",
            "DURAK_WEBHOOK_URL": "https://durak.example.com/telegram",
            "DURAK_WEBHOOK_PORT": str(port),
            "DURAK_WEBHOOK_SECRET": SECRET,
        }
        code, _, err = await run_bot(env, tmp_path)
    assert code == 2
    assert err.splitlines()[-1].startswith(
        f"durak-bot: DURAK_WEBHOOK_LISTEN/DURAK_WEBHOOK_PORT: cannot listen on 127.0.0.1:{port}"
    )


async def test_default_rules_set_the_first_table(tmp_path: Path) -> None:
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = bot_settings(tg, tmp_path, DURAK_DEFAULT_RULES='{"game": "prostoy"}')
        async with BotProcess(env, tmp_path) as bot:
            table = await Table.create(tg, 2)
            await table.start_bots()
            lobby = await table.open_lobby()
            assert "Prostoy" in lobby.plain_text, lobby.plain_text
            assert await bot.stop() == 0


async def test_a_database_of_another_bot_is_refused(tmp_path: Path) -> None:
    await refused_as_another_bots(tmp_path, None)


async def test_a_postgresql_database_of_another_bot_is_refused(
    tmp_path: Path, postgres_url: str
) -> None:
    await refused_as_another_bots(tmp_path, postgres_url)


async def refused_as_another_bots(tmp_path: Path, url: str | None) -> None:
    """The first bot's database, opened with another bot's token: refused, left as it was."""
    from bot.store import open_store

    path = tmp_path / "durak.sqlite3"
    env = {
        "BOT_TOKEN": "123456789:AAFakeTelegramTokenForTests-0123456789",
        "DURAK_DB_PATH": str(path),
        "DURAK_BASE_URL": "http://127.0.0.1:9/bot{token}",  # never reached
        **({"DURAK_DATABASE_URL": url} if url else {}),
    }
    store = await open_store(path, url=url)
    try:
        await store.set_state("bot_id", "987654321")  # the first bot on this database
    finally:
        await store.close()
    code, out, err = await run_bot(env, tmp_path)
    assert code == 2
    setting = "DURAK_DATABASE_URL" if url else "DURAK_DB_PATH"
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"durak-bot: {setting}: cannot open the database ")
    assert last.endswith("it belongs to the bot 987654321, and BOT_TOKEN is the bot 123456789's")
    assert "AAFakeTelegramTokenForTests" not in out + err
    store = await open_store(path, url=url)
    try:
        assert await store.get_state("bot_id") == "987654321", "the database is left as it was"
    finally:
        await store.close()
