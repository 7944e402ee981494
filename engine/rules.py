"""The rules of one game: a frozen, self-validating pydantic model with named presets.

Every option of ``shared/RULES.md`` §1–5 is a field with the rule book's default. A
combination that cannot work is refused when the model is built, with a message that says
why, never halfway through a game.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["MODIFIERS", "PRESETS", "GameKind", "Modifier", "Rules"]

GameKind = Literal["podkidnoy", "perevodnoy", "prostoy", "prostoy5"]
Modifier = Literal[
    "japanese",
    "spades_by_spades",
    "no_trump",
    "fallen_ace",
    "albanian",
    "changing_trump",
    "railway",
    "poker",
    "full",
    "wild_sixes",
    "lizard",
]
MODIFIERS: tuple[Modifier, ...] = get_args(Modifier)

PRESETS: dict[str, dict[str, Any]] = {
    "podkidnoy": {"game": "podkidnoy"},
    "perevodnoy": {"game": "perevodnoy"},
    "prostoy": {"game": "prostoy"},
    "prostoy5": {"game": "prostoy5"},
}

# Modifiers that cannot be played together, each pair with the reason.
_CONFLICTS: dict[frozenset[str], str] = {
    frozenset({"japanese", "no_trump"}): "japanese always has a trump (♦)",
    frozenset({"japanese", "spades_by_spades"}): "japanese already lets only spades beat spades",
    frozenset({"japanese", "changing_trump"}): "japanese fixes the trump to ♦",
    frozenset({"no_trump", "fallen_ace"}): "fallen_ace needs a trump ace",
    frozenset({"no_trump", "lizard"}): "lizard needs a jack of trumps",
    frozenset({"no_trump", "changing_trump"}): "there is no trump to change",
    frozenset({"no_trump", "spades_by_spades"}): "without trumps only spades beat spades anyway",
    frozenset({"railway", "poker"}): "railway has no stock to swap with",
    frozenset({"railway", "albanian"}): "railway has no stock to draw from",
    frozenset({"railway", "changing_trump"}): "railway never draws the trump card",
    frozenset({"albanian", "poker"}): "poker swaps take the top of the stock, where albanian "
    "keeps the turn-up",
    frozenset({"albanian", "changing_trump"}): "changing_trump hides a card under the turn-up, "
    "which albanian puts on top",
    frozenset({"wild_sixes", "fallen_ace"}): "both change what the six of trumps does",
    frozenset({"lizard", "fallen_ace"}): "lizard makes the jack the highest trump, not the ace",
}

# Base games and modifiers that play with five cards.
_FIVE_CARDS = ("prostoy5", "lizard")

TEAM_PLAYERS: dict[str, tuple[int, ...]] = {
    "none": (2, 3, 4, 5, 6),
    "pairs": (4, 6),
    "triples": (6,),
}


class Rules(BaseModel):
    """The options of one game. Build with ``Rules(...)`` or ``Rules.preset(name, **overrides)``."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    game: GameKind = Field("podkidnoy", description="Base game (RULES.md §5).")
    modifiers: tuple[Modifier, ...] = Field(
        (), description="Variant modifiers (RULES.md §6), in a fixed order."
    )
    deck_size: Literal[36, 52, 54] = Field(
        36, description="Cards in the deck: 52 and 54 (with two jokers) go with 'full'."
    )
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
    fast_throw_ins: bool = Field(
        False,
        description="A thrower with nothing that fits passes at once, so everyone sees who "
        "can throw in (off: every thrower passes himself, or when his window runs out).",
    )

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        """Sort and de-duplicate modifiers; fill in what a modifier implies."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        mods = data.get("modifiers", ())
        if isinstance(mods, str):
            mods = (mods,)
        if isinstance(mods, list | tuple | set | frozenset):
            found = set(mods)
            if data.get("deck_size") in (52, 54):
                found.add("full")
            if "full" in found and "deck_size" not in data:
                data["deck_size"] = 52
            order = {m: i for i, m in enumerate(MODIFIERS)}
            data["modifiers"] = tuple(sorted(found, key=lambda m: order.get(m, len(order))))
        five = data.get("game") in _FIVE_CARDS or any(
            m in _FIVE_CARDS for m in data.get("modifiers", ())
        )
        if five and "hand_size" not in data:
            data["hand_size"] = 5
        return data

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
        mods = set(self.modifiers)
        for pair, reason in _CONFLICTS.items():
            if pair <= mods:
                a, b = sorted(pair)
                raise ValueError(f"{a} and {b} cannot be combined: {reason}")
        if ("full" in mods) != (self.deck_size in (52, 54)):
            raise ValueError("the 52- and 54-card decks are the 'full' modifier")
        if self.proezdnoy and "no_trump" in mods:
            raise ValueError("proezdnoy shows a trump: it needs trumps")
        for five in _FIVE_CARDS:
            if (five == self.game or five in mods) and self.hand_size != 5:
                raise ValueError(f"{five} is played with 5 cards, not {self.hand_size}")
        if self.game == "prostoy5" and self.teams != "none":
            raise ValueError("prostoy5 has no teams: everyone plays for himself")
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

    def has(self, modifier: str) -> bool:
        """Whether ``modifier`` is on."""
        return modifier in self.modifiers

    @property
    def transfers(self) -> bool:
        """Whether the defender may transfer the attack."""
        return self.game == "perevodnoy"

    @property
    def throw_ins(self) -> bool:
        """Whether anyone may add attack cards after the lead."""
        return self.game not in ("prostoy", "prostoy5")

    def check_players(self, players: int) -> None:
        """Raise ``ValueError`` if these rules cannot be played by that many players."""
        allowed = TEAM_PLAYERS[self.teams]
        if players not in allowed:
            wanted = ", ".join(map(str, allowed))
            raise ValueError(f"teams={self.teams} is for {wanted} players, not {players}")
        if self.has("railway"):
            return  # the whole deck but one card is dealt, however many play
        needed = players * self.hand_size + (2 if self.has("changing_trump") else 0)
        if needed > self.deck_size:
            extra = " and two trump cards" if self.has("changing_trump") else ""
            raise ValueError(
                f"{players} players × {self.hand_size} cards{extra} need more than "
                f"a {self.deck_size}-card deck"
            )

    def team_count(self, players: int) -> int:
        """How many teams ``players`` seats form (each seat its own team without teams)."""
        if self.teams == "pairs":
            return players // 2
        if self.teams == "triples":
            return players // 3
        return players
