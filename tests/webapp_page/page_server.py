"""A stand-in for the bot's Mini App server, for tests of the page alone.

It serves the real static files (``bot/webapp/static``) at ``/app`` as PROTOCOL.md says, and
a WebSocket at ``/app/ws`` that the test speaks through: each page that connects becomes a
:class:`Peer`; the test reads the frames the page sent and sends it frames of its own
choosing. No rule of the game lives here: it is a fixture of frames, not the bot.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

STATIC = Path(__file__).resolve().parents[2] / "bot" / "webapp" / "static"
TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
WAIT = 15.0  # how long a test waits for the page at most (a hang fails, never a slow page)


class Peer:
    """One page's socket: the frames it sent, and a way to answer."""

    def __init__(self, socket: web.WebSocketResponse) -> None:
        self.socket = socket
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.closed = asyncio.Event()
        # as the real server does; False plays a line gone dead without a word
        self.answer_pings = True
        self.pings = 0

    async def recv(self) -> dict[str, Any]:
        """The next frame the page sent (a ping is skipped)."""
        while True:
            frame = await asyncio.wait_for(self.frames.get(), WAIT)
            if frame.get("t") != "ping":
                return frame

    async def send(self, frame: dict[str, Any]) -> None:
        await self.socket.send_str(json.dumps(frame, ensure_ascii=False))

    async def close(self, code: int = 1001) -> None:
        await self.socket.close(code=code)
        self.closed.set()

    def pending(self) -> list[dict[str, Any]]:
        """The frames received and not read yet (pings aside), without waiting."""
        out = []
        while not self.frames.empty():
            frame = self.frames.get_nowait()
            if frame.get("t") != "ping":
                out.append(frame)
        return out


class PageServer:
    """The page at ``self.url`` and its socket; ``await server.peer()`` for each page."""

    def __init__(self, path: str = "/app") -> None:
        self.path = path
        self.port = 0
        self.peers: asyncio.Queue[Peer] = asyncio.Queue()
        self.requests: list[str] = []
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    async def peer(self) -> Peer:
        """The next page that connected."""
        return await asyncio.wait_for(self.peers.get(), WAIT)

    async def hello(self) -> tuple[Peer, dict[str, Any]]:
        """The next page that connected, and its first frame (which must be its hello)."""
        peer = await self.peer()
        frame = await peer.recv()
        assert frame.get("t") == "hello", frame
        return peer, frame

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get(self.path, self._index)
        app.router.add_get(self.path + "/", self._index)
        app.router.add_get(self.path + "/static/{name}", self._static)
        app.router.add_get(self.path + "/ws", self._socket)
        return app

    async def _index(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(request.path_qs)
        return web.FileResponse(
            STATIC / "index.html",
            headers={"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"},
        )

    async def _static(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(request.path_qs)
        name = request.match_info["name"]
        file = STATIC / name
        if "/" in name or name.startswith(".") or not file.is_file():
            raise web.HTTPNotFound()
        kind = TYPES.get(file.suffix, "application/octet-stream")
        return web.FileResponse(file, headers={"Content-Type": f"{kind}; charset=utf-8"})

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        peer = Peer(socket)
        self.peers.put_nowait(peer)
        async for message in socket:
            if message.type == WSMsgType.TEXT:
                frame = json.loads(message.data)
                peer.frames.put_nowait(frame)
                if isinstance(frame, dict) and frame.get("t") == "ping":
                    peer.pings += 1
                    if peer.answer_pings:
                        await peer.send({"t": "pong"})
        peer.closed.set()
        return socket

    @asynccontextmanager
    async def running(self) -> AsyncIterator[PageServer]:
        # a socket left open by a page must not hold the test's end up
        runner = web.AppRunner(self.app(), handler_cancellation=True, shutdown_timeout=1.0)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        self.port = int(runner.addresses[0][1])
        self._runner = runner
        try:
            yield self
        finally:
            await runner.cleanup()
