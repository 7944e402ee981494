"""The garbage collector's full passes: the survivors frozen after each, everything walked
again once in a while (bot.base.collector)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from bot.base.collector import FullPasses, keep_full_passes_short


class Node:
    """An object that can be part of a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def clock() -> Iterator[list[float]]:
    now = [0.0]
    yield now


@pytest.fixture
def passes(clock: list[float]) -> Iterator[FullPasses]:
    passes = FullPasses(rewalk=600.0, clock=lambda: clock[0])
    gc.callbacks.append(passes)
    try:
        yield passes
    finally:
        gc.callbacks.remove(passes)
        gc.unfreeze()


def cycles(n: int) -> list[Node]:
    nodes = []
    for _ in range(n):
        a, b = Node(), Node()
        a.other, b.other = b, a
        nodes.append(a)
    return nodes


def test_a_full_pass_freezes_its_survivors(passes: FullPasses) -> None:
    kept = cycles(100)
    gc.collect()
    frozen = gc.get_freeze_count()
    assert frozen >= 200
    # the next full pass walks only what came since
    more = cycles(10)
    gc.collect()
    assert gc.get_freeze_count() >= frozen + 20
    assert passes.whole_walks == 0
    del kept, more


def test_young_passes_freeze_nothing(passes: FullPasses) -> None:
    gc.collect()
    frozen = gc.get_freeze_count()
    kept = cycles(100)
    gc.collect(0)
    gc.collect(1)
    assert gc.get_freeze_count() == frozen
    del kept


def test_frozen_cycles_are_found_at_the_next_whole_walk(
    passes: FullPasses, clock: list[float]
) -> None:
    kept = cycles(100)
    gc.collect()  # they survive: frozen
    del kept  # now garbage, but frozen: a full pass misses them
    assert gc.collect() < 200
    clock[0] += 600.0  # time for the whole heap again
    assert gc.collect() >= 200
    assert passes.whole_walks == 1
    assert gc.collect() < 200  # and the clock starts over
    assert passes.whole_walks == 1


def test_installed_once() -> None:
    first = keep_full_passes_short()
    try:
        assert keep_full_passes_short() is first
        assert sum(isinstance(c, FullPasses) for c in gc.callbacks) == 1
    finally:
        gc.callbacks.remove(first)
        gc.unfreeze()
