"""The /me chart: a player's rating over time, a PNG drawn by matplotlib in a worker process.

Drawing takes a tenth of a second of CPU and importing matplotlib most of a second, so
neither happens in the bot's process: a worker (a fresh interpreter, started with the bot)
imports matplotlib with the Agg backend once, then draws each chart from plain data. The
event loop only awaits the PNG. Nothing here imports more than the standard library (and
:mod:`bot.base.lifeline`, which imports no more) at import time, so the worker starts light.
"""

from __future__ import annotations

import asyncio
import io
import logging
import multiprocessing
import os
import unicodedata
import warnings
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from bot.base.lifeline import die_with, stop_workers

__all__ = [
    "CHART_SIZE",
    "ChartLine",
    "ChartText",
    "Charts",
    "draw_png",
    "prepare",
    "start_worker",
]

log = logging.getLogger(__name__)

CHART_SIZE = (9.0, 5.0)
"""Inches; at :data:`DPI` a 900 × 500 picture, about a phone's screen across and well
inside Telegram's limits for a photo (width + height ≤ 10000, ratio ≤ 20)."""
DPI = 100
TIMEOUT = 10.0
"""Seconds the bot waits for a chart before it answers with the text alone."""
START_TIMEOUT = 60.0
"""Seconds the first chart may wait for the worker to start (and load matplotlib)."""


@dataclass(frozen=True, slots=True)
class ChartLine:
    """One line of the chart: its label and ``(game, rating)`` points, the games counted
    over all the chart's lines (1 for his first, 0 for where he started)."""

    label: str
    points: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class ChartText:
    """The words on the chart, in the reader's language."""

    title: str
    x_label: str
    y_label: str


def _printable(text: str) -> str:
    """``text`` without what the chart's font cannot draw (emoji, joiners, selectors)."""
    kept = [
        ch
        for ch in text
        if ord(ch) <= 0xFFFF and unicodedata.category(ch) not in ("So", "Cf", "Cs", "Mn", "Co")
    ]
    return " ".join("".join(kept).split()) or "?"


def prepare() -> None:
    """Worker start-up: import matplotlib with the Agg backend (no display), once."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
    from matplotlib.figure import Figure  # noqa: F401


def start_worker(parent: int) -> None:
    """Worker start-up: end when the bot (process ``parent``) ends, even killed outright or
    while this worker was still starting, then load matplotlib."""
    die_with(parent)
    prepare()


def draw_png(lines: Sequence[ChartLine], text: ChartText) -> bytes:
    """The chart as PNG bytes (in the worker)."""
    prepare()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=CHART_SIZE, dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    colours = ("#1f77b4", "#d62728", "#2ca02c")
    for i, line in enumerate(lines):
        if not line.points:
            continue
        games = [game for game, _ in line.points]
        rating = [value for _, value in line.points]
        axes.plot(
            games,
            rating,
            label=_printable(line.label),
            color=colours[i % len(colours)],
            linewidth=2.5,
        )
    axes.set_title(_printable(text.title), fontsize=17, fontweight="bold")
    axes.set_xlabel(_printable(text.x_label), fontsize=13)
    axes.set_ylabel(_printable(text.y_label), fontsize=13)
    axes.tick_params(labelsize=12)
    axes.grid(True, alpha=0.3)
    axes.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
    if any(line.points for line in lines):
        axes.legend(fontsize=12, loc="best")
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a glyph the font lacks is left out, quietly
        figure.subplots_adjust(left=0.1, right=0.98, top=0.9, bottom=0.13)
        # light compression: much quicker than the default, for a file of some 40 kB
        figure.savefig(out, format="png", pil_kwargs={"compress_level": 1})
    return out.getvalue()


class Charts:
    """Draws charts in one worker process; a chart that fails or takes too long is None
    (the caller answers with text)."""

    def __init__(self, *, timeout: float = TIMEOUT) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._timeout = timeout
        self._ready: asyncio.Future[Any] | None = None

    def start(self) -> None:
        """Start the worker now (at the bot's start-up), so that the first /me does not
        wait for matplotlib to load."""
        self._ready = asyncio.wrap_future(self._executor().submit(prepare))

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: a fresh interpreter, never a fork of a process with threads running.
            # The worker ends with the bot (the bot's pid is taken here, in the bot), and
            # with the coach's workers so does multiprocessing's resource tracker, which
            # both pools share.
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(),),
            )
        return self._pool

    async def draw(self, lines: Sequence[ChartLine], text: ChartText) -> bytes | None:
        """The chart as PNG, or None if it could not be drawn in time."""
        loop = asyncio.get_running_loop()
        try:
            if self._ready is not None:  # the worker is still starting: wait for it first
                await asyncio.wait_for(asyncio.shield(self._ready), START_TIMEOUT)
            job: Any = loop.run_in_executor(self._executor(), draw_png, tuple(lines), text)
            return bytes(await asyncio.wait_for(job, self._timeout))
        except BrokenProcessPool:
            log.exception("the chart worker died")
            self._pool = None
            self._ready = None
        except TimeoutError:
            log.warning("a chart took more than %s s", self._timeout)
        except Exception:
            log.exception("a chart could not be drawn")
        return None

    def close(self) -> None:
        """Stop the worker."""
        if self._pool is not None:
            stop_workers(self._pool)
            self._pool = None
