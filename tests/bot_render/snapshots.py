"""Snapshot files: ``tests/bot_render/snapshots/<name>.txt`` hold a screen's text and keyboard.

Run with ``UPDATE_SNAPSHOTS=1`` to rewrite them after a deliberate change, then review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

from bot.render import Screen

DIR = Path(__file__).with_name("snapshots")


def shot(screen: Screen) -> str:
    """A screen as text: the message, a rule, the keyboard's layout (one line per row)."""
    keyboard = screen.keyboard.layout() if screen.keyboard else "(no keyboard)"
    return f"{screen.text}\n{'─' * 20}\n{keyboard}\n"


def assert_snapshot(name: str, text: str) -> None:
    """Compare ``text`` with the stored snapshot ``name`` (write it when updating)."""
    path = DIR / f"{name}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1" or not path.exists():
        if os.environ.get("UPDATE_SNAPSHOTS") != "1":
            raise AssertionError(f"no snapshot {path.name}: run with UPDATE_SNAPSHOTS=1")
        path.write_text(text, encoding="utf-8")
        return
    assert text == path.read_text(encoding="utf-8"), f"snapshot {name} differs"
