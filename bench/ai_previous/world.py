"""Determinization: games consistent with what a seat can see, for the hard player's search.

:meth:`WorldBuilder.sample` deals the cards the seat cannot know at random, consistently
with the view: each opponent's hand size and the cards known to be in it; the stock size,
with the face-up trump card where the variant keeps it (under the stock, on top with
``albanian``, above a hidden card with ``changing_trump``); and who may act now, which tells
something only at a table with ``fast_throw_ins`` (a thrower offered a move holds a card of
a rank on the table, an eligible one not offered holds none); by default it tells nothing.
It builds a :class:`~engine.Game` of that position, mid-bout included, through the engine's
own saved-game format: a fresh game of the same rules serves as a template, so fields this
module does not fill keep a sound default, and :meth:`Game.from_json` checks the result
(every card exactly once, a table that fits the phase). A sample is kept only if the seats
that may act and the seat's own legal actions come out as in the view. Only public
attributes of the engine are used.

What a view does not tell, a sample guesses: how many poker swaps each seat has left (the
seat's own: none if none is offered), which trumps were already shown for proezdnoy, and
whether this is the first game of a series (for the no-transfer-in-the-first-bout rule).
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from typing import Any

from engine.actions import Action, PokerSwap, ShowTrump, Transfer
from engine.cards import Card
from engine.errors import InvalidState
from engine.game import Game
from engine.rules import Rules
from engine.views import SeatView

from .knowledge import Knowledge, card_sense

__all__ = ["WorldBuilder"]

PHASES = {"lead": 0, "bout": 1, "over": 2}


@lru_cache(maxsize=64)
def _template(rules: Rules, players: int) -> str:
    """A saved fresh game of these rules: the defaults for every saved field."""
    return Game.new(rules, players=players, seed=0).to_json()


def _codes(cards: Any) -> list[str]:
    return [c.code for c in cards]


class WorldBuilder:
    """Builds sampled games for one view. Everything the samples share is computed once."""

    def __init__(self, view: SeatView, rules: Rules, know: Knowledge) -> None:
        self.view = view
        self.rules = rules
        self.know = know
        pub = view.public
        template: dict[str, Any] = json.loads(_template(rules, pub.players))
        self.initial_stock = len(template["stock"])
        self.base = template
        self.ok = self._fill_public(template)
        self.legal = {_key(a) for a in view.actions}
        self.constraints = self._throw_in_constraints()

    def _fill_public(self, data: dict[str, Any]) -> bool:
        view, rules, know = self.view, self.rules, self.know
        pub = view.public
        n = pub.players
        if pub.phase not in ("lead", "bout") or pub.attacker is None or pub.defender is None:
            return False
        table = pub.table
        covers = sum(1 for _, c in table if c is not None)
        out = [r == "out" for r in pub.roles]
        moves = pub.moves
        emptied = [moves - 1 if pub.hand_sizes[s] == 0 and not out[s] else -1 for s in range(n)]
        first_bout = (
            pub.discard_size == 0
            and pub.stock_size == self.initial_stock
            and not any(pub.known[s] for s in range(n) if pub.known[s] != (pub.trump_card,))
        )
        may_transfer = any(type(a) in (Transfer, ShowTrump) for a in view.actions)
        turnup = pub.trump_card
        hidden = getattr(pub, "trump_hidden", None)
        if hidden is None:  # an engine whose view does not say: guess
            hidden = rules.has("changing_trump") and know.turnup_in_stock and pub.stock_size >= 2
        self.hidden = bool(hidden)
        self.albanian = rules.has("albanian")
        swaps = getattr(pub, "swaps", None)
        data.update(
            seed=None,
            discard=_codes(pub.discarded),
            trump=int(pub.trump) if pub.trump is not None else None,
            turnup=turnup.code if turnup is not None else None,
            hidden=self.hidden,
            table=[[a.code, c.code if c is not None else None] for a, c in table],
            phase=PHASES[pub.phase],
            attacker=pub.attacker,
            defender=pub.defender,
            taking=pub.taking,
            passed=list(pub.passed),
            def_start=pub.hand_sizes[pub.defender] + covers,
            out=out,
            finish=list(pub.finish_order),
            shown=_codes(self._shown_already()),
            first_game=first_bout and not may_transfer,
            bouts=0 if first_bout else 1,
            moves=moves,
            first_attacker=pub.attacker,
            emptied=emptied,
            seen=[_codes(k) for k in pub.known],
            last_bout=None,
            result=None,
        )
        if "swaps" in data:
            data["swaps"] = list(swaps) if swaps is not None else [0] * n
            if (
                swaps is None
                and rules.has("poker")
                and pub.phase == "lead"
                and pub.attacker == view.seat
                and not any(type(a) is PokerSwap for a in view.actions)
            ):
                data["swaps"][view.seat] = 3  # no swap offered: assume he has none left
        if "aside" in data:
            aside = [turnup] if rules.has("railway") and turnup is not None else []
            data["aside"] = _codes(aside)
        if "wild" in data:
            declared = getattr(pub, "declared", ())
            data["wild"] = [
                [c.code, Card.of(c >> 2, int(suit)).code]
                for c, suit in declared
                if int(suit) != c & 3
            ]
        return True

    def _shown_already(self) -> list[Card]:
        """Proezdnoy: the seat's trumps that were shown before, as far as its view tells
        (the other seats' shown trumps are not told): a trump it may transfer with but not
        show; and a trump of the attack's rank that everyone has seen in its hand (a shown
        card is seen) and that it is not offered to show."""
        view = self.view
        pub = view.public
        if not self.rules.proezdnoy or pub.defender != view.seat or not pub.table:
            return []
        trump = pub.trump
        trumps = card_sense(self.rules, int(trump) if trump is not None else None).trumps
        shown = {a.card for a in view.actions if type(a) is ShowTrump}
        rank = pub.table[0][0] >> 2
        seen = set(pub.known[view.seat])
        return sorted(
            {
                a.card
                for a in view.actions
                if type(a) is Transfer and a.card in trumps and a.card not in shown
            }
            | {c for c in view.hand if c in trumps and c >> 2 == rank and c in seen} - shown
        )

    def _throw_in_constraints(self) -> tuple[set[int], set[int], int]:
        """What the seats that may act now tell, with ``fast_throw_ins`` only: a thrower
        listed among them holds a card of a rank on the table, an eligible thrower not
        listed holds none. Returns the seats that must hold such a card, those that must
        not, and the ranks as a bit set."""
        pub = self.view.public
        must: set[int] = set()
        never: set[int] = set()
        if pub.phase != "bout" or pub.attacker is None or len(pub.table) >= pub.bout_cap:
            return must, never, 0
        if not self.rules.throw_ins or not self.rules.fast_throw_ins:
            return must, never, 0
        ranks = 0
        for a, c in pub.table:
            ranks |= 1 << (a >> 2)
            if c is not None:
                ranks |= 1 << (c >> 2)
        n = pub.players
        order = [(pub.attacker + k) % n for k in range(n)]
        eligible = [
            s
            for s in order
            if (s == pub.attacker or pub.roles[s] == "thrower") and s not in pub.passed
        ]
        acting = set(pub.to_act)
        clockwise = self.rules.throw_in_order == "clockwise"
        for s in eligible:
            if s in acting:
                must.add(s)
                if clockwise:
                    break
            else:
                never.add(s)
        must.discard(self.view.seat)
        never.discard(self.view.seat)
        return must, never, ranks

    def sample(self, rng: random.Random) -> Game | None:
        """One game consistent with the view (None if the engine refuses it, or if the
        seats that may act, or this seat's legal actions, are not those of the view)."""
        if not self.ok:
            return None
        view, know = self.view, self.know
        pub = view.public
        must, never, ranks = self.constraints
        pool = list(know.unknown)
        rng.shuffle(pool)
        hidden: dict[int, list[Card]] = {}
        # Seats that hold no card of a table rank draw first, from the other cards.
        for s in sorted(never):
            k = know.hidden[s]
            plain = [c for c in pool if not (ranks >> (c >> 2)) & 1][:k]
            if len(plain) < k:
                return None
            hidden[s] = plain
            taken = set(plain)
            pool = [c for c in pool if c not in taken]
        # Seats that must hold one get one first, unless a known card already matches.
        for s in sorted(must):
            if any((ranks >> (c >> 2)) & 1 for c in pub.known[s]) or know.hidden[s] == 0:
                continue
            match = next((c for c in pool if (ranks >> (c >> 2)) & 1), None)
            if match is None:
                return None
            hidden[s] = [match]
            pool.remove(match)
        hands: list[list[Card]] = []
        at = 0
        for s in range(pub.players):
            if s == view.seat:
                hands.append(list(view.hand))
                continue
            got = hidden.get(s, [])
            k = know.hidden[s] - len(got)
            hands.append([*pub.known[s], *got, *pool[at : at + k]])
            at += k
        stock = pool[at : at + know.stock_hidden]
        at += know.stock_hidden
        turnup = pub.trump_card
        if know.turnup_in_stock and turnup is not None:
            if self.albanian:
                stock = [turnup, *stock]
            elif self.hidden and stock:
                stock = [*stock[:-1], turnup, stock[-1]]
            else:
                stock = [*stock, turnup]
        data = dict(self.base)
        data["hands"] = [_codes(sorted(h)) for h in hands]
        data["stock"] = _codes(stock)
        if at < len(pool):  # cards a variant sets aside, face down
            where = "aside" if "aside" in data else "discard"
            data[where] = data[where] + _codes(pool[at:])
        try:
            game = Game.from_json(json.dumps(data))
        except (InvalidState, ValueError, KeyError):
            return None
        if game.to_act() != pub.to_act:
            return None
        if {_key(a) for a in game.legal_actions(view.seat)} != self.legal:
            return None
        return game


def _key(action: Action) -> tuple[Any, ...]:
    return (type(action).__name__, *action)
