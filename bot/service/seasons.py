"""Seasons: a calendar month (UTC) is a season of a group's games. /top shows the current
one by default; the first group message of a month names the last one's best."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = ["Season", "season_of"]


@dataclass(frozen=True, slots=True)
class Season:
    """One calendar month, UTC."""

    year: int
    month: int

    @property
    def key(self) -> str:
        """``YYYY-MM``."""
        return f"{self.year:04d}-{self.month:02d}"

    @property
    def since(self) -> float:
        """Its first second (Unix time)."""
        return datetime(self.year, self.month, 1, tzinfo=UTC).timestamp()

    @property
    def until(self) -> float:
        """The first second after it."""
        return self.next().since

    def next(self) -> Season:
        """The season after it."""
        return Season(self.year + self.month // 12, self.month % 12 + 1)

    def previous(self) -> Season:
        """The season before it."""
        return Season(self.year - (self.month == 1), (self.month - 2) % 12 + 1)


def season_of(when: float) -> Season:
    """The season a Unix time falls in."""
    global _last
    since, until, season = _last
    if since <= when < until:
        return season  # asked at every move: the month it is now, worked out once
    # whole seconds: the clock's rounding never carries a moment into the next month
    moment = datetime.fromtimestamp(when // 1, tz=UTC)
    season = Season(moment.year, moment.month)
    _last = (season.since, season.until, season)
    return season


_last: tuple[float, float, Season] = (0.0, 0.0, Season(1970, 1))
"""The season asked for last, with its first second and the first after it."""
