"""Several bot processes for ``bench/load.py``: the same command, ``python -m bot``, started
N times with the same settings. Each talks to the fake Bot API server through an address of
its own (``FakeTelegramServer.add_address``), so that the server tells their calls apart by
``ApiCall.port``: which process polls, which draws a table, all seen from outside. A member
can be killed (SIGKILL) or restarted (SIGTERM, then the same command again); its CPU is
summed over its lives.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from fake_telegram import ApiCall, FakeTelegramServer
from ship.process import BotProcess


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of a process itself (not its coach's workers); None once
    it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Member:
    """One of the processes, over its lives (a restart starts a new life on the same
    address)."""

    index: int
    base_url: str
    port: int
    bot: BotProcess | None = None
    spent: float = 0.0
    """CPU seconds of its ended lives."""
    last: float = 0.0
    """CPU seconds of the current life when last seen."""
    lives: list[tuple[float, float | None]] = field(default_factory=list)
    """(started, ended) of each life, on the fake server's clock."""

    @property
    def pid(self) -> int:
        assert self.bot is not None and self.bot.proc is not None
        return self.bot.proc.pid

    @property
    def alive(self) -> bool:
        return (
            self.bot is not None and self.bot.proc is not None and self.bot.proc.returncode is None
        )

    def cpu(self) -> float:
        """CPU seconds over all its lives so far (a dead life: as last seen)."""
        if self.alive:
            now = cpu_seconds(self.pid)
            if now is not None:
                self.last = now
        return self.spent + self.last


class Fleet:
    """N bot processes with the same settings against one fake server."""

    def __init__(
        self, tg: FakeTelegramServer, env: Mapping[str, str], cwd: Path, count: int
    ) -> None:
        self.tg = tg
        self.env = dict(env)
        self.cwd = cwd
        self.count = count
        self.members: list[Member] = []

    async def __aenter__(self) -> Fleet:
        for index in range(self.count):
            url = await self.tg.add_address()
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            self.members.append(Member(index, url, port))
        for member in self.members:
            await self._start(member)
        # every process has asked who it is (getMe), and one of them polls
        try:
            await self.tg.wait_for(
                lambda: (
                    all(self.calls(m, "getMe") for m in self.members)
                    and self.tg.calls_to("getUpdates", include_pending=True)
                ),
                timeout=120,
            )
        except TimeoutError:
            for member in self.members:  # what each said, to see why
                said = member.bot.lines[-20:] if member.bot is not None else []
                print(f"process {member.index} never got going; it said:", *said, sep="\n  ")
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.gather(*(self._stop(m) for m in self.members if m.alive))
        # with DURAK_LOG_LEVEL=INFO: what each process took over, and how fast
        for member in self.members:
            for line in member.bot.lines if member.bot is not None else []:
                if "cluster: shards" in line and " taken, " in line:
                    print(f"  process {member.index}: {line.split('cluster: ', 1)[1]}")
        for member in self.members:
            if member.bot is not None:
                await member.bot.__aexit__(None, None, None)

    async def _start(self, member: Member) -> None:
        if member.bot is not None:  # the life before: its output's reader ends
            await member.bot.__aexit__(None, None, None)
        env = {**self.env, "DURAK_BASE_URL": member.base_url}
        member.bot = BotProcess(env, self.cwd)
        await member.bot.__aenter__()
        member.last = 0.0
        member.lives.append((self.tg.world.elapsed(), None))

    def _ended(self, member: Member) -> None:
        started, _ = member.lives[-1]
        member.lives[-1] = (started, self.tg.world.elapsed())
        member.spent += member.last
        member.last = 0.0

    async def _stop(self, member: Member, timeout: float = 60.0) -> int:
        member.cpu()
        assert member.bot is not None and member.bot.proc is not None
        member.bot.proc.send_signal(signal.SIGTERM)
        try:
            code = await asyncio.wait_for(member.bot.proc.wait(), timeout)
        except TimeoutError:
            member.bot.proc.kill()
            code = await member.bot.proc.wait()
        self._ended(member)
        return code

    def member_of(self, call: ApiCall) -> Member | None:
        """The process a call came from."""
        return next((m for m in self.members if m.port == call.port), None)

    def calls(self, member: Member, *methods: str) -> list[ApiCall]:
        return [
            c for c in self.tg.calls_to(*methods, include_pending=True) if c.port == member.port
        ]

    def poller(self) -> Member | None:
        """The live process that asked for updates last."""
        for call in reversed(self.tg.world.calls):
            if call.method == "getUpdates":
                member = self.member_of(call)
                if member is not None and member.alive:
                    return member
        return None

    def kill(self, member: Member) -> float:
        """SIGKILL: the process ends at once, with whatever it held. Returns when, on the
        fake server's clock."""
        member.cpu()
        assert member.bot is not None and member.bot.proc is not None
        member.bot.proc.send_signal(signal.SIGKILL)
        at = self.tg.world.elapsed()
        self._ended(member)
        return at

    async def reap(self, member: Member) -> None:
        """Wait for a killed process to be gone."""
        assert member.bot is not None and member.bot.proc is not None
        await member.bot.proc.wait()

    async def restart(self, member: Member) -> tuple[float, float, float]:
        """SIGTERM, wait for the exit, start the same command again on the same address,
        and wait until it asked who it is (getMe). Returns (asked to stop, exited, back) on
        the fake server's clock."""
        asked = self.tg.world.elapsed()
        await self._stop(member)
        exited = self.tg.world.elapsed()
        await self.start_again(member)
        return asked, exited, self.tg.world.elapsed()

    async def start_again(self, member: Member) -> None:
        """Start a member whose process ended, and wait for its getMe."""
        since = len(self.tg.world.calls)
        await self._start(member)
        await self.tg.wait_for(
            lambda: any(
                c.method == "getMe" and c.port == member.port and c.ok
                for c in self.tg.world.calls[since:]
            ),
            timeout=120,
        )

    def cpu(self) -> dict[int, float]:
        """CPU seconds of each member so far, by index."""
        return {m.index: m.cpu() for m in self.members}
