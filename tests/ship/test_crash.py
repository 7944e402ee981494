"""A bot killed outright (SIGKILL: a crash, the OOM killer) takes every process it started
along: the coach's worker, the /me chart's worker and multiprocessing's resource tracker
end with it, whether they were at work or still starting, and the next bot starts as if
the killed one had never run."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from .process import ROOT, BotProcess, Proc, children, poll, running, with_environment
from .test_entrypoint import assert_clean_log, bot_settings

WORKER = "--multiprocessing-fork"
"""What the command line of a worker started by multiprocessing holds."""
TRACKER = "multiprocessing.resource_tracker"
"""What the command line of multiprocessing's resource tracker holds."""

HOLD = """\
import os, sys, time
if {worker!r} in sys.orig_argv:
    while not os.path.exists({gate!r}):
        time.sleep(0.05)
"""
"""A ``sitecustomize`` that holds each worker at the start of its interpreter until the
file ``gate`` exists (the bot itself runs on)."""


def held_workers(tmp_path: Path) -> tuple[Path, str]:
    """A :data:`HOLD` in ``tmp_path``: the gate file to create to let the workers go, and
    the ``PYTHONPATH`` that holds them."""
    gate = tmp_path / "gate"
    hold = tmp_path / "hold"
    hold.mkdir()
    (hold / "sitecustomize.py").write_text(HOLD.format(worker=WORKER, gate=str(gate)))
    return gate, f"{hold}{os.pathsep}{ROOT}"


def in_idle_class(proc: Proc) -> bool:
    """Whether this worker is past its start-up as the coach's and the computer players'
    workers end it: in the idle scheduling class."""
    try:
        return os.sched_getscheduler(proc.pid) == os.SCHED_IDLE
    except OSError:
        return False


def chart_started(proc: Proc) -> bool:
    """Whether this worker is the chart's, past its start-up (it loaded matplotlib)."""
    try:
        return "matplotlib" in Path(f"/proc/{proc.pid}/maps").read_text()
    except OSError:
        return False


def helpers(pid: int, *, started: bool) -> list[Proc] | None:
    """The bot's helper processes once its three workers (the coach's, the chart's, the
    computer players') and the resource tracker run (and, if ``started``, the workers are
    past their start-up); None before."""
    found = children(pid)
    workers = [p for p in found if WORKER in p.cmdline]
    if len(workers) < 3 or not any(TRACKER in p.cmdline for p in found):
        return None
    idle = sum(map(in_idle_class, workers))
    if started and not (idle >= 2 and any(map(chart_started, workers))):
        return None
    return found


@contextlib.contextmanager
def killed_at_the_end(tree: str) -> Iterator[None]:
    """Whatever of the tree (the processes with ``tree`` in their environment) outlives the
    test is killed after it, so that a failure leaves nothing running."""
    try:
        yield
    finally:
        for proc in with_environment(tree):
            if running(proc):
                with contextlib.suppress(OSError):
                    os.kill(proc.pid, signal.SIGKILL)


async def kill(bot: BotProcess) -> None:
    """SIGKILL the bot and wait for its end (not ``proc.wait()``: that also waits for the
    output pipe, which a surviving helper would hold open)."""
    assert bot.proc is not None
    proc = bot.proc
    os.kill(proc.pid, signal.SIGKILL)
    code = await poll(lambda: proc.returncode, 30, "the bot dies")
    assert code == -signal.SIGKILL


async def nothing_left(tree: str) -> None:
    """Every process of the tree ends."""
    await poll(
        lambda: not with_environment(tree),
        30,
        lambda: f"the killed bot's processes end: {with_environment(tree)}",
    )


async def test_a_killed_bot_leaves_no_process_behind(tmp_path: Path) -> None:
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = bot_settings(tg, tmp_path, DURAK_COACH_WORKERS="1")
        tree = f"DURAK_DB_PATH={env['DURAK_DB_PATH']}"
        ann = await tg.create_user("Ann", language_code="en")
        chat = tg.private_chat(ann)
        with killed_at_the_end(tree):
            async with BotProcess(env, tmp_path) as bot:
                assert bot.proc is not None
                pid = bot.proc.pid
                await bot.wait_for_line("getUpdates")
                left = await poll(
                    lambda: helpers(pid, started=True), 60, "the workers and the tracker run"
                )
                await kill(bot)
                await nothing_left(tree)
                # a process in its last moments has no environment left to read, but is not
                # gone yet: each helper seen before the kill must end too
                await poll(
                    lambda: not any(running(p) for p in left),
                    30,
                    lambda: f"the helpers end: {[p for p in left if running(p)]}",
                )

            # the next bot, on the same database, works and stops cleanly, its helpers too
            async with BotProcess(env, tmp_path) as again:
                assert again.proc is not None
                pid = again.proc.pid
                await again.wait_for_line("getUpdates")
                sent = await tg.start_bot(ann)
                await tg.wait_for_message(chat, after=sent, timeout=20)
                await poll(lambda: helpers(pid, started=True), 60, "the new bot's workers")
                assert await again.stop() == 0, again.output
                await nothing_left(tree)
        assert_clean_log(again.output, tg.token)


async def test_a_bot_killed_while_its_workers_start_leaves_no_process_behind(
    tmp_path: Path,
) -> None:
    # The workers are held at their very start until the bot is dead: by the time they
    # look, their parent is another process. (A bot killed during its own start-up.)
    gate, path = held_workers(tmp_path)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = bot_settings(tg, tmp_path, DURAK_COACH_WORKERS="1", PYTHONPATH=path)
        tree = f"DURAK_DB_PATH={env['DURAK_DB_PATH']}"
        with killed_at_the_end(tree):
            async with BotProcess(env, tmp_path) as bot:
                assert bot.proc is not None
                pid = bot.proc.pid
                await bot.wait_for_line("getUpdates")
                await poll(lambda: helpers(pid, started=False), 60, "the workers are started")
                await kill(bot)
                gate.touch()
                await nothing_left(tree)
