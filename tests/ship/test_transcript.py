"""README.md's generated parts (the transcript of a game as the bot renders it, the games
and modifiers, the configuration table) match what the code renders now."""

from __future__ import annotations

import re
from pathlib import Path

from bot import transcript
from bot.base.config import Settings, env_name
from engine import GAMES, MODIFIER_INFO

from .process import ROOT, run_module


def test_the_committed_readme_matches_the_renderer() -> None:
    stale = transcript.check(ROOT / "README.md")
    assert stale == [], f"README.md is stale ({stale}): run `python -m bot.transcript`"


async def test_the_check_command_fails_on_a_stale_readme(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    readme.write_text(text, encoding="utf-8")

    async def run(*args: str) -> int:
        code, _, _ = await run_module(
            "bot.transcript", {}, tmp_path, *args, "--readme", str(readme)
        )
        return code

    assert await run("--check") == 0
    readme.write_text(text.replace("Trump A♦", "Trump K♦", 1), encoding="utf-8")
    assert await run("--check") == 1
    assert await run() == 0
    assert readme.read_text(encoding="utf-8") == text


def test_the_transcript_shows_the_table_and_a_hand() -> None:
    block = transcript.transcript_block()
    assert "<b>" not in block and "&lt;" not in block, "HTML is rendered as text"
    assert "Bob (you)" in block and "[🫴 Take]" in block and "[🃏 My cards]" in block
    # by suit, trumps (♦) last; only the trump can beat the clubs: the rest shown inert
    assert re.search(r"^\[·8♠️·\] \[·K♠️·\] \[·6♥️·\] \[·J♥️·\] \[10♦️\]$", block, re.MULTILINE)


def test_every_game_modifier_and_setting_is_in_the_readme() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for key in [*GAMES, *MODIFIER_INFO]:
        assert f"- `{key}` — " in text
    for field in Settings.model_fields:
        assert f"| `{env_name(field)}` |" in text
    for command in ("newgame", "leave", "cancel", "stats", "rules", "help", "lang", "start"):
        assert f"| `/{command}` |" in text
    assert "./scripts/run.sh" in text and "./scripts/test.sh" in text
