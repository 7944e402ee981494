"""The outcome of a finished game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Result"]


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended.

    ``durak`` is the seat left holding cards (None on a draw). In team play the whole team
    loses: ``durak_team`` lists its seats and ``losers`` equals it; otherwise ``losers`` is
    ``(durak,)``. When several of the team still hold cards, ``durak`` names the one the
    final bout was made against if it gave ``pogony`` (RULES.md §4), else the one holding
    the most cards; ``pogony`` belongs to the whole team, as the loss does.
    ``finish_order`` lists the seats in the order they went out. ``points`` gives every
    seat its score (RULES.md §4: a win 2, a draw 1, a loss 0). ``first_attacker`` and
    ``dealer`` are kept so the next game of a series can be set up from this one.
    """

    durak: int | None
    durak_team: tuple[int, ...] | None
    losers: tuple[int, ...]
    draw: bool
    pogony: bool
    finish_order: tuple[int, ...]
    points: tuple[int, ...]
    first_attacker: int
    dealer: int
    timed_out: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "durak": self.durak,
            "durak_team": list(self.durak_team) if self.durak_team is not None else None,
            "losers": list(self.losers),
            "draw": self.draw,
            "pogony": self.pogony,
            "finish_order": list(self.finish_order),
            "points": list(self.points),
            "first_attacker": self.first_attacker,
            "dealer": self.dealer,
            "timed_out": self.timed_out,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        """Rebuild from :meth:`to_dict` output."""
        team = data["durak_team"]
        return cls(
            durak=data["durak"],
            durak_team=tuple(team) if team is not None else None,
            losers=tuple(data["losers"]),
            draw=bool(data["draw"]),
            pogony=bool(data["pogony"]),
            finish_order=tuple(data["finish_order"]),
            points=tuple(data["points"]),
            first_attacker=data["first_attacker"],
            dealer=data["dealer"],
            timed_out=data.get("timed_out"),
        )
