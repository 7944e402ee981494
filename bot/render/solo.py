"""A game against the computer in the private chat: the setup message before it starts."""

from __future__ import annotations

from bot.base.i18n import Lang, tr
from bot.service import callbacks as cb
from engine import Rules

from .common import Button, Keyboard, Screen
from .lobby import AI_LEVELS, LobbyContext, ai_level_name, lobby_problem
from .rules_text import rules_summary

__all__ = ["SOLO_COUNTS", "render_solo_lobby"]

SOLO_COUNTS = (1, 2, 3, 4, 5)
"""How many computer players the setup offers."""


def _mark(label: str, chosen: bool) -> str:
    return f"• {label} •" if chosen else label


def render_solo_lobby(
    rules: Rules, count: int, level: int, lang: Lang, ctx: LobbyContext
) -> Screen:
    """How many computer players, how strong, the rules, and Play."""
    t, v, codec = ctx.table_id, ctx.version, ctx.codec
    lines = [tr(lang, "solo.title"), "", rules_summary(rules, lang), ""]
    lines.append(tr(lang, "solo.opponents", n=count, level=ai_level_name(lang, level)))
    problem = lobby_problem(rules, count + 1, lang)
    lines.append(f"⚠️ {problem}" if problem else tr(lang, "solo.hint"))
    counts = tuple(
        Button.cb(_mark(str(n), n == count), codec, cb.SoloSetup(t, v, n, level))
        for n in SOLO_COUNTS
    )
    levels = tuple(
        Button.cb(_mark(ai_level_name(lang, n), n == level), codec, cb.SoloSetup(t, v, count, n))
        for n in AI_LEVELS
    )
    rows = [
        counts,
        levels,
        (
            Button.cb(tr(lang, "lobby.btn.settings"), codec, cb.Settings(t, v)),
            Button.cb(tr(lang, "solo.btn.play"), codec, cb.Start(t, v)),
        ),
        # or a human opponent, whoever is online
        (Button.cb(tr(lang, "quick.btn.go"), codec, cb.Quick("go")),),
    ]
    return Screen("\n".join(lines), Keyboard.of(rows))
