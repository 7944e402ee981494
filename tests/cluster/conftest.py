"""A PostgreSQL server of a test's own, for a test that restarts it (the shared one of the
run serves other tests meanwhile)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER_SCRIPT = ROOT / "scripts" / "_postgres.sh"


@dataclass
class OwnServer:
    """A throwaway server started by scripts/_postgres.sh, and how to restart it."""

    url: str

    @property
    def folder(self) -> Path:
        return Path(self.url.rsplit("host=", 1)[1].split("&", 1)[0])

    def _pg_ctl(self, *args: str) -> None:
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
        pg_ctl = str(found[-1]) if found else "pg_ctl"
        log = str(self.folder / "server.log")
        command = [pg_ctl, "-D", str(self.folder / "data"), "-l", log, "-w", *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        # the server started keeps no pipe of ours open: it logs to its file
        subprocess.run(
            command,
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )

    async def stop(self) -> None:
        """Stop the server at once: every connection is cut, none is let in."""
        await asyncio.to_thread(self._pg_ctl, "-m", "fast", "stop")

    async def kill(self) -> None:
        """SIGKILL the postmaster, as a crash would: its backends end by themselves once
        they see it gone, and the next start runs crash recovery."""
        pid = int((self.folder / "data" / "postmaster.pid").read_text().split()[0])
        backends = await asyncio.to_thread(_children, pid)
        os.kill(pid, signal.SIGKILL)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        # the next start waits for no backend of the old one (they share its memory)
        while _alive(backends):
            assert loop.time() < deadline, "the killed server's backends did not end"
            await asyncio.sleep(0.05)

    async def start(self) -> None:
        """Start it again, as scripts/_postgres.sh started it."""
        folder = self.folder
        options = (
            f"-c listen_addresses='' -c unix_socket_directories='{folder}' -c fsync=off "
            "-c full_page_writes=off -c max_connections=300"
        )
        await asyncio.to_thread(self._pg_ctl, "-o", options, "start")


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pids: set[int]) -> set[int]:
    return {p for p in pids if Path(f"/proc/{p}").exists()}


@pytest.fixture
def own_postgres() -> Iterator[OwnServer]:
    started = subprocess.run(
        ["bash", str(SERVER_SCRIPT), "start"], capture_output=True, text=True, check=False, cwd=ROOT
    )
    if started.returncode != 0:
        lines = started.stderr.strip().splitlines() or ["scripts/_postgres.sh start failed"]
        pytest.fail(lines[-1], pytrace=False)
    server = OwnServer(started.stdout.strip().splitlines()[-1])
    try:
        yield server
    finally:
        subprocess.run(["bash", str(SERVER_SCRIPT), "stop", server.url], check=False)
