"""The garbage collector's full passes: none of the collector's own, one of ours every so
often (bot.base.collector)."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator

import pytest

from bot.base import collector
from bot.base.collector import NEVER, YOUNG, make_full_passes_rare


class Node:
    """An object that can be part of a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> None:
    a, b = Node(), Node()
    a.other, b.other = b, a


@pytest.fixture
def thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if collector._started is not None:
            collector._started.stop()
            collector._started.join(5)
        collector._started = None


def test_no_full_pass_of_the_collectors_own(thresholds: None) -> None:
    _, before, _ = gc.get_threshold()
    make_full_passes_rare(every=3600)
    young, middle, oldest = gc.get_threshold()
    assert oldest == NEVER
    assert (young, middle) == (YOUNG, before)  # the young passes go on, less often
    full = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(info)

    gc.callbacks.append(note)
    try:
        for _ in range(young * middle * 20):
            cycle()
    finally:
        gc.callbacks.remove(note)
    assert full == []


def test_a_full_pass_every_so_often(thresholds: None) -> None:
    make_full_passes_rare(every=0.05)
    passes = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            passes.append(info["collected"])

    gc.callbacks.append(note)
    try:
        deadline = time.monotonic() + 10
        while len(passes) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        gc.callbacks.remove(note)
    assert len(passes) >= 2


def test_started_once(thresholds: None) -> None:
    first = make_full_passes_rare(every=3600)
    assert make_full_passes_rare(every=3600) is first
