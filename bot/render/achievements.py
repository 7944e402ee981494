"""Achievements on screen: the end message's "🏅 New" lines and /me's list."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Protocol

from bot.base.i18n import Lang, tr
from bot.ratings.achievements import BY_CODE, CATALOGUE

from .common import Player, name_of

__all__ = [
    "AchievementLike",
    "achievement_title",
    "earned_line",
    "earned_lines",
    "me_achievement_lines",
]


class AchievementLike(Protocol):
    """An achievement a player earned (``bot.store`` ``AchievementRow`` fits)."""

    @property
    def code(self) -> str: ...
    @property
    def earned_at(self) -> float: ...


def achievement_title(lang: Lang, code: str) -> str:
    """An achievement's emoji and name."""
    return tr(lang, "ach.item", emoji=BY_CODE[code].emoji, title=tr(lang, f"ach.{code}.name"))


def earned_lines(
    earned: Sequence[tuple[int, Sequence[str]]], players: Sequence[Player], lang: Lang
) -> list[str]:
    """One line per player who just earned something (``(seat, codes)``): "🏅 New for
    <name>: 🎉 First win, …". Codes not in the catalogue are left out."""
    return [
        line
        for seat, codes in earned
        if (line := earned_line(name_of(players, seat), codes, lang)) is not None
    ]


def earned_line(name: str, codes: Sequence[str], lang: Lang) -> str | None:
    """One player's line, "🏅 New for <name>: 🎉 First win, …" (``name`` escaped
    already); None if none of ``codes`` is in the catalogue."""
    known = [c for c in codes if c in BY_CODE]
    if not known:
        return None
    shown = ", ".join(achievement_title(lang, c) for c in known)
    return tr(lang, "ach.new", name=name, list=shown)


def _date(lang: Lang, when: float) -> str:
    day = datetime.fromtimestamp(when, tz=UTC)
    return tr(lang, "ach.date", y=day.year, m=f"{day.month:02d}", d=f"{day.day:02d}")


def me_achievement_lines(rows: Sequence[AchievementLike], lang: Lang) -> list[str]:
    """/me's achievements: how many of the catalogue, then each earned one with its date
    (UTC), in the catalogue's order."""
    total = len(CATALOGUE)
    when = {row.code: row.earned_at for row in rows if row.code in BY_CODE}
    if not when:
        return [tr(lang, "ach.me_none", total=total)]
    lines = [tr(lang, "ach.me_title", n=len(when), total=total)]
    for achievement in CATALOGUE:
        if achievement.code in when:
            lines.append(
                tr(
                    lang,
                    "ach.me_line",
                    emoji=achievement.emoji,
                    title=tr(lang, f"ach.{achievement.code}.name"),
                    date=_date(lang, when[achievement.code]),
                )
            )
    return lines
