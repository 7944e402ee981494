"""The rules of one game: a frozen, self-validating pydantic model with named presets.

Every option of ``shared/RULES.md`` §1–5 is a field with the rule book's default. A
combination that cannot work is refused when the model is built, with a message that says
why, never halfway through a game.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["PRESETS", "GameKind", "Rules"]

GameKind = Literal["podkidnoy", "perevodnoy", "prostoy"]

PRESETS: dict[str, dict[str, Any]] = {
    "podkidnoy": {"game": "podkidnoy"},
    "perevodnoy": {"game": "perevodnoy"},
    "prostoy": {"game": "prostoy"},
}

TEAM_PLAYERS: dict[str, tuple[int, ...]] = {
    "none": (2, 3, 4, 5, 6),
    "pairs": (4, 6),
    "triples": (6,),
}


class Rules(BaseModel):
    """The options of one game. Build with ``Rules(...)`` or ``Rules.preset(name, **overrides)``."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    game: GameKind = Field("podkidnoy", description="Base game (RULES.md §5).")
    deck_size: Literal[36, 52] = Field(36, description="Cards in the deck.")
    hand_size: int = Field(6, ge=1, le=12, description="Cards dealt to and drawn up by each.")
    multi_card_lead: bool = Field(True, description="A lead may be several cards of one rank.")
    throw_in_order: Literal["any", "clockwise"] = Field(
        "any", description="Throw-ins as they arrive, or the attacker first then clockwise."
    )
    bout_limit: int = Field(6, ge=1, le=12, description="Most attack cards in one bout.")
    first_bout_limit: int | None = Field(
        5, ge=1, le=12, description="Most attack cards before the first discard (None: off)."
    )
    limit_lifts_when_stock_empty: bool = Field(
        False, description="With the stock empty only the defender's hand limits a bout."
    )
    draw_order: Literal["attacker_first", "defender_first"] = Field(
        "attacker_first", description="Who draws from the stock first after a bout."
    )
    next_first_attacker: Literal["left_of_loser", "right_of_loser", "winner", "lowest_trump"] = (
        Field("left_of_loser", description="Who attacks first in the next game of a series.")
    )
    draw: Literal["allowed", "not_allowed"] = Field(
        "allowed", description="Whether the game may end with nobody holding cards."
    )
    teams: Literal["none", "pairs", "triples"] = Field(
        "none", description="Play alone, in pairs (4 or 6 players) or in triples (6 players)."
    )
    turn_timeout: int = Field(
        120, ge=0, le=86_400, description="Seconds a waited-on player has to move (0: off)."
    )
    on_timeout: Literal["durak", "auto"] = Field(
        "durak", description="A player out of time is durak, or the game moves for him."
    )
    throw_in_window: int = Field(
        10, ge=1, le=3_600, description="Seconds a silent thrower has before he counts as passed."
    )
    no_transfer_first_bout: bool = Field(
        True, description="No transfer in the first bout of a series' first game."
    )
    no_transfer_with_trump_on_table: bool = Field(
        False, description="No transfer while a trump lies on the table."
    )
    proezdnoy: bool = Field(False, description="A trump of the rank may be shown to transfer.")

    @model_validator(mode="after")
    def _check(self) -> Rules:
        if self.first_bout_limit is not None and self.first_bout_limit > self.bout_limit:
            raise ValueError(
                f"first_bout_limit ({self.first_bout_limit}) cannot exceed "
                f"bout_limit ({self.bout_limit})"
            )
        if self.game != "perevodnoy":
            for name in ("proezdnoy", "no_transfer_with_trump_on_table"):
                if getattr(self, name):
                    raise ValueError(f"{name} needs transfers: it works only with perevodnoy")
        return self

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """The named preset of RULES.md §5 with any option overridden."""
        try:
            base = PRESETS[name]
        except KeyError:
            raise ValueError(
                f"unknown preset {name!r}; presets: {', '.join(sorted(PRESETS))}"
            ) from None
        return cls(**{**base, **overrides})

    @property
    def transfers(self) -> bool:
        """Whether the defender may transfer the attack."""
        return self.game == "perevodnoy"

    @property
    def throw_ins(self) -> bool:
        """Whether anyone may add attack cards after the lead."""
        return self.game != "prostoy"

    def check_players(self, players: int) -> None:
        """Raise ``ValueError`` if these rules cannot be played by that many players."""
        allowed = TEAM_PLAYERS[self.teams]
        if players not in allowed:
            wanted = ", ".join(map(str, allowed))
            raise ValueError(f"teams={self.teams} is for {wanted} players, not {players}")
        if players * self.hand_size > self.deck_size:
            raise ValueError(
                f"{players} players × {self.hand_size} cards need more than "
                f"a {self.deck_size}-card deck"
            )

    def team_count(self, players: int) -> int:
        """How many teams ``players`` seats form (each seat its own team without teams)."""
        if self.teams == "pairs":
            return players // 2
        if self.teams == "triples":
            return players // 3
        return players
