"""The real entry point, ``python -m bot``, run as a subprocess with a crafted environment."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[2]


def bot_env(extra: Mapping[str, str]) -> dict[str, str]:
    """A clean environment: no inherited ``BOT_TOKEN``/``DURAK_*``, just what is given."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT),
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update(extra)
    return env


async def run_bot(
    env: Mapping[str, str], cwd: Path, *args: str, timeout: float = 30.0
) -> tuple[int, str, str]:
    """Run ``python -m bot ARGS`` to its end: (exit status, stdout, stderr)."""
    return await run_module("bot", env, cwd, *args, timeout=timeout)


async def run_module(
    module: str, env: Mapping[str, str], cwd: Path, *args: str, timeout: float = 30.0
) -> tuple[int, str, str]:
    """Run ``python -m MODULE ARGS`` to its end: (exit status, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        module,
        *args,
        cwd=cwd,
        env=bot_env(env),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


class BotProcess:
    """``python -m bot`` running in the background; its standard error is collected."""

    command: tuple[str, ...] = ("-m", "bot")
    """What follows the interpreter on its command line."""

    def __init__(self, env: Mapping[str, str], cwd: Path) -> None:
        self.env = bot_env(env)
        self.cwd = cwd
        self.proc: asyncio.subprocess.Process | None = None
        self.lines: list[str] = []
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    async def __aenter__(self) -> BotProcess:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *self.command,
            cwd=self.cwd,
            env=self.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        async for raw in self.proc.stdout:
            self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
            self._changed.set()
        self._changed.set()

    @property
    def output(self) -> str:
        """Everything the bot wrote so far."""
        return "\n".join(self.lines)

    async def wait_for_line(self, needle: str, timeout: float = 20.0) -> str:
        """The first output line containing ``needle`` (fails if the bot exits first)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for line in self.lines:
                if needle in line:
                    return line
            assert self.proc is not None
            if self.proc.returncode is not None or (self._reader and self._reader.done()):
                raise AssertionError(f"the bot exited before {needle!r}:\n{self.output}")
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"no line with {needle!r} within {timeout}s:\n{self.output}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.5))

    async def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, then wait for the exit status (killed if it takes too long)."""
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
            raise AssertionError(f"the bot did not stop on SIGTERM:\n{self.output}") from None
        if self._reader is not None:
            await self._reader
        return code

    async def __aexit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader


# -------------------------------------------------------------------- processes in /proc


@dataclass(frozen=True)
class Proc:
    """One process as ``/proc`` shows it: its pid, when it started (clock ticks after boot,
    which tells it from a later process given the same pid) and its command line."""

    pid: int
    started: int
    cmdline: str


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of a process, or None if there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
    return fields[0], int(fields[1]), int(fields[19])


def children(parent: int) -> list[Proc]:
    """The live processes whose parent is ``parent``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        stat = _stat(int(entry.name))
        if stat is None or stat[1] != parent or stat[0] == "Z":
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        found.append(Proc(int(entry.name), stat[2], cmdline.strip()))
    return found


def with_environment(variable: str) -> list[Proc]:
    """The live processes whose environment holds ``variable`` (``NAME=value``): a
    process and everything it started, however deep, those handed to another parent
    after theirs died included (each inherits the environment)."""
    needle = variable.encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        stat = _stat(int(entry.name))
        if stat is None or stat[0] == "Z" or needle not in environ.split(b"\0"):
            continue
        found.append(Proc(int(entry.name), stat[2], cmdline.strip()))
    return found


def running(proc: Proc) -> bool:
    """Whether that very process still runs (a zombie has ended; so has a process whose pid
    now belongs to another)."""
    stat = _stat(proc.pid)
    return stat is not None and stat[0] != "Z" and stat[2] == proc.started


async def poll(check: Callable[[], T | None], timeout: float, what: str | Callable[[], str]) -> T:
    """``check()``'s first truthy value, asked every 50 ms; AssertionError after ``timeout``
    (``what`` says what did not happen; a function is asked then, to tell how things are
    at that moment)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = check()
        if found:
            return found
        if loop.time() > deadline:
            raise AssertionError(f"not within {timeout} s: {what() if callable(what) else what}")
        await asyncio.sleep(0.05)
