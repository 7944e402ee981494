"""The /me chart: a PNG of a sane size, drawn in a worker that never outlives the bot."""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

from bot.chat.chart import ChartLine, ChartText, draw_png

ROOT = Path(__file__).resolve().parents[2]

LINES = (
    ChartLine("Дурачки 🃏", ((0, 1000), (1, 1040), (2, 1010))),
    ChartLine("Overall", ((0, 1000), (1, 1030), (2, 1005), (3, 1070))),
)


def test_the_chart_is_a_png_a_phone_shows_well() -> None:
    data = draw_png(LINES, ChartText("Рейтинг: Аня 🎉", "Игры", "Рейтинг"))
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (900, 500)
    assert 5_000 < len(data) < 500_000


def test_the_worker_leaves_when_the_bot_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "charting.py"
    script.write_text(
        "import asyncio, sys\n"
        "from bot.chat.chart import Charts, ChartLine, ChartText\n"
        "async def main():\n"
        "    charts = Charts()\n"
        "    charts.start()\n"
        "    line = ChartLine('x', ((0, 1000), (1, 1010)))\n"
        "    assert await charts.draw([line], ChartText('t', 'x', 'y'))\n"
        "    print(*[p.pid for p in charts._pool._processes.values()], flush=True)\n"
        "    await asyncio.sleep(600)\n"
        "if __name__ == '__main__':\n"
        "    asyncio.run(main())\n"
    )
    bot = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert bot.stdout is not None
        worker = int(bot.stdout.readline().split()[0])
        os.kill(worker, 0)  # it runs
    finally:
        bot.send_signal(signal.SIGKILL)
        bot.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(worker, signal.SIGKILL)
    raise AssertionError("the chart worker outlived the killed bot")
