"""The Mini App with the real entry point, ``python -m bot``: served on its own port in
polling and in webhook mode, its pages closed as "going away" on SIGTERM, a clear line
when its port is taken, and no port at all when it is off."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import aiohttp
from e2e.harness import Table
from e2e.pages import PageClient, init_data, table_token
from fake_telegram import FakeTelegramServer, Limits

from .process import BotProcess, run_bot
from .test_entrypoint import SECRET, assert_clean_log, bot_settings, free_port


def webapp_env(port: int) -> dict[str, str]:
    return {
        "DURAK_WEBAPP_URL": f"http://127.0.0.1:{port}/app",
        "DURAK_WEBAPP_PORT": str(port),
        "DURAK_WEBAPP_SHORT_NAME": "table",
    }


async def a_page_follows_a_lobby(tg: FakeTelegramServer, port: int) -> PageClient:
    """A lobby opened in a group, and a page of it that shows Bob joining."""
    table = await Table.create(tg, 2)
    await table.start_bots()
    await table.open_lobby()
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}/app/") as response:
            assert response.status == 200 and "text/html" in response.headers["Content-Type"]
        page = await PageClient.open(
            session, port, init_data(table.users[0], tg.token), table_token(tg, table.table_id)
        )
        await page.wait_state(lambda s: s["lobby"]["players"] == ["Ann"])
        await table.join_all()
        await page.wait_state(lambda s: s["lobby"]["players"] == ["Ann", "Bob"])
        return page


async def test_polling_mode_serves_the_mini_app(tmp_path: Path) -> None:
    port = free_port()
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = bot_settings(tg, tmp_path, **webapp_env(port))
        async with BotProcess(env, tmp_path) as bot:
            await bot.wait_for_line("mini app: ")
            async with aiohttp.ClientSession() as session:
                table = await Table.create(tg, 2)
                await table.start_bots()
                await table.open_lobby()
                page = await PageClient.open(
                    session,
                    port,
                    init_data(table.users[0], tg.token),
                    table_token(tg, table.table_id),
                )
                await page.wait_state()
                code = await bot.stop()
                assert await page.closing() == 1001, "going away: the page reconnects"
        assert code == 0, bot.output
    assert f"webapp=http://127.0.0.1:{port}/app on 127.0.0.1:{port}" in bot.output
    assert_clean_log(bot.output, tg.token)


async def test_webhook_mode_serves_the_mini_app_on_its_own_port(tmp_path: Path) -> None:
    hook, port = free_port(), free_port()
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = bot_settings(
            tg,
            tmp_path,
            DURAK_MODE="webhook",
            DURAK_WEBHOOK_URL=f"http://127.0.0.1:{hook}/telegram",
            DURAK_WEBHOOK_PORT=str(hook),
            DURAK_WEBHOOK_SECRET=SECRET,
            **webapp_env(port),
        )
        async with BotProcess(env, tmp_path) as bot:
            await tg.wait_for(lambda: tg.webhook, timeout=30, what="setWebhook")
            await bot.wait_for_line("mini app: ")
            page = await a_page_follows_a_lobby(tg, port)
            assert [f["t"] for f in page.frames].count("error") == 0
            assert await bot.stop() == 0, bot.output
    assert_clean_log(bot.output, tg.token, SECRET)
    states = [f for f in page.frames if f["t"] == "state"]
    assert json.dumps(states[-1], ensure_ascii=False).count("Bob") >= 1


async def test_a_mini_app_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        async with FakeTelegramServer(limits=Limits.fast()) as tg:
            code, _, err = await run_bot(bot_settings(tg, tmp_path, **webapp_env(port)), tmp_path)
    assert code == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(
        f"durak-bot: DURAK_WEBAPP_LISTEN/DURAK_WEBAPP_PORT: cannot listen on 127.0.0.1:{port}"
    ), err
    assert "Traceback" not in err


async def test_with_the_mini_app_off_no_port_is_opened(tmp_path: Path) -> None:
    port = free_port()
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = bot_settings(tg, tmp_path, DURAK_WEBAPP_PORT=str(port))
        async with BotProcess(env, tmp_path) as bot:
            await tg.wait_for(lambda: tg.calls_to("getUpdates", include_pending=True), timeout=30)
            table = await Table.create(tg, 2)
            await table.start_bots()
            await table.open_lobby()
            assert table.lobby is not None
            assert all(b.url is None for row in table.lobby.buttons for b in row)
            with socket.socket() as probe:
                assert probe.connect_ex(("127.0.0.1", port)) != 0, "nothing listens"
            assert bot.proc is not None
            assert listening_ports(bot.proc.pid) == set(), "the bot listens on no port"
            assert await bot.stop() == 0
    assert "webapp=off" in bot.output


def listening_ports(pid: int) -> set[int]:
    """The TCP ports a process listens on (from /proc: its sockets' inodes in the tables
    of listening sockets)."""
    import os

    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            for line in fh.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports
