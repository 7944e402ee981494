"""Two bot processes in webhook mode behind a load balancer that hands Telegram's posts to
each in turn: every update reaches the process holding its table, whichever process
Telegram's post came to, and the games are played to their end as with one process."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
from aiohttp import web
from e2e.pages import free_port
from fake_telegram import FakeTelegramServer, Limits

from .processes import Cluster, Reader, cluster_env, finish, play_moves, tables_in_groups
from .test_processes import check_the_end

SECRET = "webhook-Secret_0123456789"


class Balancer:
    """A round-robin load balancer in front of the processes' webhook servers: each post
    goes on to the next process, and its answer comes back as it is."""

    def __init__(self, backends: list[str]) -> None:
        self.backends = backends
        self.posts = [0] * len(backends)
        self._next = 0
        self._session: aiohttp.ClientSession | None = None

    async def _forward(self, request: web.Request) -> web.Response:
        assert self._session is not None
        index = self._next
        self._next = (index + 1) % len(self.backends)
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower().startswith("x-telegram")}
        headers["Content-Type"] = request.headers.get("Content-Type", "application/json")
        try:
            async with self._session.post(
                self.backends[index] + request.path, data=body, headers=headers
            ) as answer:
                self.posts[index] += 1
                return web.Response(status=answer.status, body=await answer.read())
        except aiohttp.ClientError:
            return web.Response(status=502)

    @asynccontextmanager
    async def serving(self, port: int) -> AsyncIterator[Balancer]:
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._forward)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", port)
        await site.start()
        self._session = aiohttp.ClientSession()
        try:
            yield self
        finally:
            await self._session.close()
            await runner.cleanup()


async def test_two_processes_behind_a_load_balancer_play_every_game_to_its_end(
    tmp_path: Path, postgres_url: str
) -> None:
    front, ports = free_port(), [free_port(), free_port()]
    balancer = Balancer([f"http://127.0.0.1:{p}" for p in ports])
    async with (
        FakeTelegramServer(limits=Limits.fast()) as tg,
        balancer.serving(front),
    ):
        env = cluster_env(
            tg,
            postgres_url,
            tmp_path,
            DURAK_MODE="webhook",
            DURAK_WEBHOOK_URL=f"http://127.0.0.1:{front}/telegram",
            DURAK_WEBHOOK_SECRET=SECRET,
        )
        cluster = Cluster(env, tmp_path, postgres_url)
        db = Reader(postgres_url)
        rng = random.Random(12)
        try:
            for port in ports:
                await cluster.start(1, DURAK_WEBHOOK_PORT=str(port))
            await cluster.settled(2)
            await tg.wait_for(lambda: tg.webhook, timeout=30, what="setWebhook")
            # groups' ids come in turn, and so do their shards: two tables of each process
            tables, held = [], {id(b): 0 for b in cluster.live()}
            for table in await tables_in_groups(tg, 40):
                holder = id(await cluster.holder(table.group.id))
                if held[holder] < 2:
                    held[holder] += 1
                    tables.append(table)
            assert sorted(held.values()) == [2, 2], held
            for table in tables:
                await table.seat_everyone()
            await asyncio.gather(*(play_moves(t, db, rng, 6) for t in tables))
            await asyncio.gather(*(finish(t, db, rng) for t in tables))
            await check_the_end(tg, postgres_url, tables)
            # each process got half of Telegram's posts, half of them for the other's tables
            assert min(balancer.posts) >= sum(balancer.posts) // 2 - 1, balancer.posts
            for bot in cluster.live():
                assert " ERROR " not in bot.output and "Traceback" not in bot.output, bot.output
            for bot in list(cluster.live()):
                assert await cluster.stop(bot) == 0, bot.output
            assert tg.webhook, "the webhook stays set: Telegram keeps the updates meanwhile"
        finally:
            await db.close()
            await cluster.close()
