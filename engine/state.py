"""Saving and loading a game as JSON, with a format version.

The saved form is validated twice on load: its shape by pydantic, then its meaning (every
card of the deck in exactly one place, seats in range, a table that fits the phase). A
saved game that fails either is refused with :class:`InvalidState`, never half-loaded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from .cards import _CODES, Card, Suit, card_from_code, deck
from .errors import InvalidState
from .game import BOUT, LEAD, OVER, Game
from .result import Result
from .rules import Rules

__all__ = ["FORMAT_VERSION", "game_from_json", "game_to_json"]

FORMAT_VERSION = 1


class _SavedResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    durak: int | None
    durak_team: list[int] | None
    losers: list[int]
    draw: bool
    pogony: bool
    finish_order: list[int]
    points: list[int]
    first_attacker: int
    dealer: int
    timed_out: int | None


class _Saved(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: int
    rules: Rules
    seed: int | None
    hands: list[list[str]]
    stock: list[str]
    discard: list[str]
    trump: int | None
    turnup: str | None
    hidden: bool
    aside: list[str]
    swaps: list[int]
    wild: list[tuple[str, str]]
    table: list[tuple[str, str | None]]
    phase: int
    attacker: int
    defender: int
    taking: bool
    passed: list[int]
    def_start: int
    out: list[bool]
    finish: list[int]
    shown: list[str]
    first_game: bool
    bouts: int
    moves: int
    first_attacker: int
    dealer: int
    emptied: list[int]
    seen: list[list[str]]
    last_bout: tuple[int, list[str]] | None
    result: _SavedResult | None
    turn: int | None = None
    """Who holds the turn to throw in (``throw_in_order: clockwise``); older saves have
    none: the principal attacker."""


_code = _CODES.__getitem__
"""A card's code (:attr:`Card.code`), looked up without the property."""


def _codes(cards: Iterable[Card]) -> list[str]:
    return list(map(_code, cards))


_RULES_TEXT: dict[Rules, bytes] = {}
"""Each set of rules as JSON, worked out once (rules are frozen; a table's game is saved
with them at every move, and they are half of its bytes)."""


def _rules_text(rules: Rules) -> bytes:
    try:
        found = _RULES_TEXT.get(rules)
    except TypeError:  # rules that cannot be a key
        return orjson.dumps(rules.model_dump(mode="json"))
    if found is None:
        if len(_RULES_TEXT) >= 256:
            _RULES_TEXT.clear()
        found = _RULES_TEXT[rules] = orjson.dumps(rules.model_dump(mode="json"))
    return found


def game_to_json(game: Game) -> str:
    """The game as compact JSON (see :func:`game_from_json`): the format version, the
    rules, then the state."""
    last = game._last_bout
    state: dict[str, Any] = {
        "seed": game.seed,
        "hands": [_codes(h) for h in game.hands],
        "stock": _codes(game.stock),
        "discard": _codes(game.discard),
        "trump": game.trump,
        "turnup": _code(game.turnup) if game.turnup is not None else None,
        "hidden": game.hidden,
        "aside": _codes(game.aside),
        "swaps": game.swaps,
        "wild": [[_code(c), _code(e)] for c, e in sorted(game.eff.items())],
        "table": [
            [_code(a), _code(c) if c is not None else None]
            for a, c in zip(game.att, game.cov, strict=True)
        ],
        "phase": game.phase,
        "attacker": game.attacker,
        "defender": game.defender,
        "taking": game.taking,
        "passed": sorted(game.passed),
        "turn": game._turn,
        "def_start": game.def_start,
        "out": game.out,
        "finish": game.finish,
        "shown": sorted(_codes(game.shown)),
        "first_game": game.first_game,
        "bouts": game.bouts,
        "moves": game.moves,
        "first_attacker": game.first_attacker,
        "dealer": game.dealer,
        "emptied": game._emptied,
        "seen": [sorted(_codes(x)) for x in game._seen],
        "last_bout": [last[0], _codes(last[1])] if last is not None else None,
        "result": game.result.to_dict() if game.result is not None else None,
    }
    # the rules' JSON is kept, the state's written by orjson: a save at every move costs a
    # few microseconds instead of some twenty
    text = b"".join((_HEAD, _rules_text(game.rules), b",", orjson.dumps(state)[1:]))
    return text.decode()


_HEAD = b'{"format":%d,"rules":' % FORMAT_VERSION


def _peek_format(text: str | bytes) -> None:
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise InvalidState(f"not JSON: {exc}") from None
    if not isinstance(raw, dict) or "format" not in raw:
        raise InvalidState("not a saved game: no format version")
    if raw["format"] != FORMAT_VERSION:
        raise InvalidState(
            f"saved game format {raw['format']!r} is not supported (this engine reads "
            f"format {FORMAT_VERSION})"
        )


def game_from_json(text: str | bytes) -> Game:
    """Load a game saved by :func:`game_to_json`; :class:`InvalidState` if it is not sound."""
    try:
        saved = _Saved.model_validate_json(text)
    except ValidationError as exc:
        _peek_format(text)
        raise InvalidState(f"malformed saved game: {exc.error_count()} error(s): {exc}") from None
    if saved.format != FORMAT_VERSION:
        _peek_format(text)
    try:
        return _build(saved)
    except (ValueError, KeyError, IndexError) as exc:
        raise InvalidState(f"inconsistent saved game: {exc}") from None


def _cards(codes: list[str]) -> list[Card]:
    return [card_from_code(c) for c in codes]


def _build(s: _Saved) -> Game:
    rules = s.rules
    n = len(s.hands)
    rules.check_players(n)

    def seat(i: int, what: str) -> int:
        if not 0 <= i < n:
            raise ValueError(f"{what} {i} is not a seat")
        return i

    g = Game.__new__(Game)
    g.rules = rules
    g.n = n
    g.seed = s.seed
    g.hands = [_cards(h) for h in s.hands]
    g.stock = _cards(s.stock)
    g.discard = _cards(s.discard)
    g.att = [card_from_code(a) for a, _ in s.table]
    g.cov = [card_from_code(c) if c is not None else None for _, c in s.table]
    g.turnup = card_from_code(s.turnup) if s.turnup is not None else None
    g.hidden = s.hidden
    g.aside = _cards(s.aside)
    if s.trump is not None and not 0 <= s.trump <= 3:
        raise ValueError("trump is not a suit")
    if rules.has("japanese"):
        expected = int(Suit.DIAMONDS)
    elif rules.has("no_trump"):
        expected = None
    else:
        expected = (g.turnup & 3) if g.turnup is not None else s.trump
    if s.trump != expected:
        raise ValueError("the turn-up does not match the trump")
    if g.hidden and (not rules.has("changing_trump") or len(g.stock) < 2):
        raise ValueError("only changing_trump hides a card under the turn-up")
    if len(s.swaps) != n or any(not 0 <= x <= 3 for x in s.swaps):
        raise ValueError("poker swaps out of range")
    g.swaps = list(s.swaps)
    g.eff = {card_from_code(c): card_from_code(e) for c, e in s.wild}
    everywhere = [*(c for h in g.hands for c in h), *g.stock, *g.discard, *g.att, *g.aside]
    everywhere += [c for c in g.cov if c is not None]
    if sorted(everywhere) != deck(rules.deck_size):
        raise ValueError("the cards are not exactly one deck")
    if s.phase not in (LEAD, BOUT, OVER):
        raise ValueError("unknown phase")
    g.phase = s.phase
    if (g.phase == LEAD) != (not g.att) and g.phase != OVER:
        raise ValueError("the table does not fit the phase")
    if (g.phase == OVER) != (s.result is not None):
        raise ValueError("a result goes with a finished game only")
    g.attacker = seat(s.attacker, "attacker")
    g.defender = seat(s.defender, "defender")
    g.taking = s.taking
    g.passed = {seat(p, "passed") for p in s.passed}
    g.def_start = s.def_start
    if len(s.out) != n or len(s.emptied) != n:
        raise ValueError("per-seat lists have the wrong length")
    g.out = list(s.out)
    g.finish = [seat(f, "finished") for f in s.finish]
    if sorted(g.finish) != [i for i in range(n) if g.out[i]]:
        raise ValueError("finish order and out seats disagree")
    g.shown = {card_from_code(c) for c in s.shown}
    g.first_game = s.first_game
    g.bouts = s.bouts
    g.moves = s.moves
    g.first_attacker = seat(s.first_attacker, "first attacker")
    g.dealer = seat(s.dealer, "dealer")
    g._emptied = list(s.emptied)
    if len(s.seen) != n:
        raise ValueError("per-seat lists have the wrong length")
    g._seen = [{card_from_code(c) for c in x} for x in s.seen]
    g._last_bout = (
        (seat(s.last_bout[0], "last defender"), tuple(_cards(s.last_bout[1])))
        if s.last_bout is not None
        else None
    )
    g.result = Result.from_dict(s.result.model_dump()) if s.result is not None else None
    g._init_derived()
    g._set_trump(s.trump)
    teams = rules.team_count(n)
    g._team = tuple(i % teams for i in range(n))
    on_table = set(g.att) | {c for c in g.cov if c is not None}
    if any(c not in on_table or c >> 2 != 6 or e >> 2 != 6 for c, e in g.eff.items()):
        raise ValueError("only sixes on the table take a named suit")
    ranks = 0
    for c in g.att:
        ranks |= 1 << (c >> 2)
    for cv in g.cov:
        if cv is not None:
            ranks |= 1 << (cv >> 2)
    g._ranks = ranks
    g._pend = None
    g._recap()
    g._throwers = g._throwers_for(g.attacker, g.defender) if g.phase != OVER else ()
    g._turn = seat(s.turn, "turn") if s.turn is not None else g.attacker
    if g.phase != OVER and (g.out[g.attacker] or g.out[g.defender] or g.attacker == g.defender):
        raise ValueError("attacker and defender must be two active seats")
    return g
