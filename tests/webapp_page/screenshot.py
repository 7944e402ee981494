"""Renders the Mini App mid-game, light and dark, to PNG for the README.

    python -m tests.webapp_page.screenshot [--out docs] [--lang en|ru|uk]

It serves the real page with the stand-in server and the README's game, opens it in the
system Chromium as Bob on a 360×740 phone, and saves, light and dark: two players
(``webapp-2p-light.png``...), six players with a twenty-card hand (``webapp-6p-...``) and
the end (``webapp-end-...``). Emoji in the texts need a colour emoji font
on the machine (Debian: ``fonts-noto-color-emoji``).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import frames
from .browser import TelegramUser, chromium, open_telegram_page
from .page_server import PageServer

ROOT = Path(__file__).resolve().parents[2]


def two_players(v: int, lang: str) -> dict[str, Any]:
    state = frames.mid_game(v, lang)
    state["table"]["players"] = state["table"]["players"][:2]
    return state


def six_players(v: int, lang: str) -> dict[str, Any]:
    state = frames.crowded(v)
    names = ["Alexandra", "Bob", "Maximilian", "Cid", "Zhenya", "Eve"]
    for p, name in zip(state["table"]["players"], names, strict=True):
        p["name"] = name
        p["role_text"] = "may throw in"
    state["table"]["status_line"] = "Bob to defend; may throw in: Alexandra, Maximilian"
    state["table"]["recent"] = ["Alexandra leads 7♠️ against Bob"]
    state["tally"] = None
    state["buttons"] = state["buttons"][:1]
    state["buttons"][0]["label"] = "🫴 Take"
    state["texts"] = frames.TEXTS[lang]
    state["lang"] = lang
    return state


SHOTS: dict[str, Callable[[int, str], dict[str, Any]]] = {
    "2p": two_players,
    "6p": six_players,
    "end": frames.finished,
}


async def shoot(out: Path, lang: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    user = TelegramUser(id=1002, first_name="Bob", language_code=lang)
    saved = []
    async with PageServer().running() as server, chromium() as browser:
        for name, make in SHOTS.items():
            for scheme in ("light", "dark"):
                async with open_telegram_page(
                    browser,
                    server.url,
                    bot_token="123456789:AAScreenshot",
                    user=user,
                    start="t1_README",
                    color_scheme=scheme,  # type: ignore[arg-type]
                    width=360,
                    height=740,
                    scale=2,
                ) as tp:
                    peer, _hello = await server.hello()
                    await peer.send(make(41, lang))
                    await tp.page.locator("[data-role=state][data-version='41']").wait_for()
                    # the page's own blink of the acting player held still for the picture
                    await tp.page.add_style_tag(content="*{animation:none!important}")
                    path = out / f"webapp-{name}-{scheme}.png"
                    await tp.page.screenshot(path=str(path))
                    saved.append(path)
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--lang", choices=("en", "ru", "uk"), default="en")
    args = parser.parse_args()
    for path in asyncio.run(shoot(args.out, args.lang)):
        print(path)


if __name__ == "__main__":
    main()
