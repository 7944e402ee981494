"""An object's loop is found once and kept while it is open; a closed one is replaced."""

from __future__ import annotations

import asyncio

import pytest

from bot.base.loops import LoopRef


def test_the_running_loop_is_found_and_kept_then_replaced_once_closed() -> None:
    ref = LoopRef()

    async def seen() -> tuple[asyncio.AbstractEventLoop, asyncio.AbstractEventLoop]:
        return ref(), asyncio.get_running_loop()

    first = asyncio.new_event_loop()
    try:
        found, running = first.run_until_complete(seen())
        assert found is running is first
        assert ref() is first, "kept, even asked outside the loop while it is open"
    finally:
        first.close()
    second = asyncio.new_event_loop()
    try:
        found, running = second.run_until_complete(seen())
        assert found is running is second, "the closed loop is never handed out again"
    finally:
        second.close()


def test_outside_any_loop_with_none_found_it_says_so() -> None:
    with pytest.raises(RuntimeError):
        LoopRef()()
