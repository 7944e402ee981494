"""Renders the Mini App mid-game, light and dark, to PNG for the README.

    python -m tests.webapp_page.screenshot [--out docs] [--lang en|ru]

It serves the real page with the stand-in server and the README's game (frames.mid_game),
opens it in the system Chromium as Bob on a 360 px wide phone, and saves
``webapp-light.png`` and ``webapp-dark.png``. Emoji in the texts need a colour emoji font
on the machine (Debian: ``fonts-noto-color-emoji``).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from . import frames
from .browser import TelegramUser, chromium, open_telegram_page
from .page_server import PageServer

ROOT = Path(__file__).resolve().parents[2]


async def shoot(out: Path, lang: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    user = TelegramUser(id=1002, first_name="Bob", language_code=lang)
    saved = []
    async with PageServer().running() as server, chromium() as browser:
        for scheme in ("light", "dark"):
            async with open_telegram_page(
                browser,
                server.url,
                bot_token="123456789:AAScreenshot",
                user=user,
                start="t1_README",
                color_scheme=scheme,  # type: ignore[arg-type]
                width=360,
                height=560,
                scale=2,
            ) as tp:
                peer, _hello = await server.hello()
                await peer.send(frames.mid_game(41, lang))
                await tp.page.locator("[data-role=state][data-version='41']").wait_for()
                # the page's own blink of the acting player held still for the picture
                await tp.page.add_style_tag(content="*{animation:none!important}")
                path = out / f"webapp-{scheme}.png"
                await tp.page.screenshot(path=str(path), full_page=True)
                saved.append(path)
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--lang", choices=("en", "ru"), default="en")
    args = parser.parse_args()
    for path in asyncio.run(shoot(args.out, args.lang)):
        print(path)


if __name__ == "__main__":
    main()
