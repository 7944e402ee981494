"""The tables' timers (clocks, reminders, computer moves) on the event loop: each runs once
at its time unless cancelled or replaced; at the bot's stop none starts any more and those
running finish."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.base.loops import LoopRef
from bot.chat.presenter import Presenter, _unschedule
from bot.chat.tourneys import TourneyDesk


def bare() -> Presenter:
    """A presenter with nothing but its timers (they need nothing else)."""
    presenter = Presenter.__new__(Presenter)
    presenter._loop = LoopRef()
    presenter._clocks = {}
    presenter._nudges = {}
    presenter._ai_jobs = {}
    presenter._runs = set()
    presenter._stopped = False
    presenter.tourneys = TourneyDesk(
        None,  # type: ignore[arg-type]  # its next deals are timers too, none pending here
        lang_of=presenter._group_lang,
        dealt=presenter.next_game,
    )
    return presenter


async def test_a_timer_runs_once_at_its_time_unless_cancelled() -> None:
    presenter = bare()
    ran: list[tuple[Any, ...]] = []
    loop = asyncio.get_running_loop()

    async def run(data: tuple[Any, ...]) -> None:
        ran.append((*data, loop.time()))

    began = loop.time()
    presenter._later(presenter._clocks, 0.05, run, (1, 7), "clock:1")
    presenter._later(presenter._nudges, 0.01, run, (2, 3), "nudge:2")
    presenter._later(presenter._ai_jobs, 0.01, run, (3, 1), "ai:3")
    _unschedule(presenter._ai_jobs.pop(3))
    _unschedule(None)
    await asyncio.sleep(0.02)
    assert [r[:2] for r in ran] == [(2, 3)]
    assert 2 not in presenter._nudges, "a timer that ran leaves its table's place"
    await asyncio.sleep(0.06)
    assert [r[:2] for r in ran] == [(2, 3), (1, 7)]
    assert ran[1][2] - began >= 0.05
    assert presenter._clocks == {} and presenter._ai_jobs == {}


async def test_a_replaced_timer_is_the_only_one_left_to_run() -> None:
    presenter = bare()
    ran: list[tuple[Any, ...]] = []

    async def run(data: tuple[Any, ...]) -> None:
        ran.append(data)

    presenter._later(presenter._clocks, 0.01, run, (1, 1), "clock:1")
    _unschedule(presenter._clocks.pop(1))
    presenter._later(presenter._clocks, 0.02, run, (1, 2), "clock:1")
    await asyncio.sleep(0.05)
    assert ran == [(1, 2)]


async def test_at_the_stop_none_starts_and_those_running_finish() -> None:
    presenter = bare()
    finished: list[int] = []
    started = asyncio.Event()

    async def slow(data: tuple[Any, ...]) -> None:
        started.set()
        await asyncio.sleep(0.05)
        finished.append(data[0])

    async def failing(data: tuple[Any, ...]) -> None:
        raise RuntimeError("a bug")

    presenter._later(presenter._clocks, 0.0, slow, (1, 1), "clock:1")
    presenter._later(presenter._nudges, 0.0, failing, (3, 1), "nudge:3")  # logged, no more
    presenter._later(presenter._ai_jobs, 0.03, slow, (2, 1), "ai:2")
    await started.wait()
    await presenter.stop_clocks()
    assert finished == [1]
    await asyncio.sleep(0.05)
    assert finished == [1], "a pending timer never runs after the stop"
    assert presenter._ai_jobs == {}
