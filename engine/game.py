"""The game: state, the actions legal now, and applying them.

``Game`` is pure and synchronous. It mutates in place on :meth:`Game.apply`, but only after
every check has passed: an illegal action raises :class:`IllegalAction` and leaves the
state exactly as it was. :meth:`legal_actions` and :meth:`apply` share the same checks, so a
keyboard built from the first never offers what the second refuses.

Seats are numbered 0..n-1 clockwise; "to the left" is the next seat number.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations, product
from typing import TYPE_CHECKING, Any

from .actions import (
    Action,
    Beaten,
    Cover,
    Covered,
    Drew,
    Event,
    GameOver,
    Lead,
    Led,
    Pass,
    Passed,
    PickedUp,
    PlayerOut,
    PokerSwap,
    PokerSwapped,
    Resign,
    Resigned,
    ShowTrump,
    SwapTrump,
    Take,
    Taking,
    Throw,
    Thrown,
    TimedOut,
    Timeout,
    Transfer,
    Transferred,
    TrumpChanged,
    TrumpShown,
    TrumpSwapped,
)
from .cards import Card, Suit, deck
from .errors import IllegalAction
from .result import Result
from .rules import Rules
from .variants import CardModel, attack_sets, card_model, is_attack_set

if TYPE_CHECKING:
    from .views import PublicView, SeatView

__all__ = ["BOUT", "LEAD", "OVER", "Game"]

LEAD = 0  # the principal attacker must open the bout
BOUT = 1  # cards are on the table
OVER = 2  # the game has ended

SIX = 6


class Game:
    """One game of durak. Build with :meth:`new` (seeded deal) or :meth:`deal` (a position)."""

    __slots__ = (
        "_beats",
        "_bout_cache",
        "_capv",
        "_clockwise",
        "_emptied",
        "_extras",
        "_fast",
        "_fbl",
        "_instant",
        "_last_bout",
        "_model",
        "_multi",
        "_p5",
        "_pend",
        "_ranks",
        "_seen",
        "_team",
        "_throw_ins",
        "_throwers",
        "_transfers",
        "_turn",
        "_wild",
        "aside",
        "att",
        "attacker",
        "bouts",
        "cov",
        "dealer",
        "def_start",
        "defender",
        "discard",
        "eff",
        "finish",
        "first_attacker",
        "first_game",
        "hands",
        "hidden",
        "moves",
        "n",
        "out",
        "passed",
        "phase",
        "result",
        "rules",
        "seed",
        "shown",
        "stock",
        "swaps",
        "taking",
        "trump",
        "turnup",
    )

    rules: Rules
    n: int
    seed: int | None
    hands: list[list[Card]]
    stock: list[Card]
    trump: int | None
    turnup: Card | None
    discard: list[Card]
    att: list[Card]
    cov: list[Card | None]
    attacker: int
    defender: int
    phase: int
    taking: bool
    passed: set[int]
    def_start: int
    out: list[bool]
    finish: list[int]
    shown: set[Card]
    first_game: bool
    bouts: int
    moves: int
    result: Result | None
    first_attacker: int
    dealer: int
    _team: tuple[int, ...]
    _beats: dict[int, frozenset[int]]
    _ranks: int
    _seen: list[set[Card]]
    _throwers: tuple[int, ...]
    _emptied: list[int]
    _fbl: int | None
    _last_bout: tuple[int, Sequence[Card]] | None
    _turn: int
    """``throw_in_order: clockwise``: the seat that holds the turn to throw in (or held it
    last). It moves on only when he passes or has nothing to throw, never back because a
    card was laid or covered (RULES.md §3.3)."""
    _pend: list[int] | None
    _model: CardModel
    _extras: bool
    _p5: bool
    _wild: bool
    aside: list[Card]
    eff: dict[Card, Card]
    hidden: bool
    swaps: list[int]
    _capv: int
    _bout_cache: dict[int, tuple[int, tuple[int, ...]]]
    _throw_ins: bool
    _fast: bool
    """``fast_throw_ins``: a thrower holding nothing of a table rank is skipped at once
    (everyone can tell). Off, the default: who may throw in depends on public facts alone."""
    _clockwise: bool
    _transfers: bool
    _instant: bool
    _multi: bool

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        rules: Rules,
        players: int,
        seed: int | None = None,
        previous: Result | None = None,
    ) -> Game:
        """Shuffle from ``seed`` and deal. ``previous`` is the last game of the series, if any.

        Cards are dealt one at a time clockwise, starting left of the dealer (the last durak;
        after a draw the dealer stays; seat n-1 in a series' first game). The next card is
        turned up and goes under the stock. When the deck is dealt out (6 × 6 of 36), the
        last card dealt, the dealer's, is shown and sets trump.
        """
        rules.check_players(players)
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        rng = random.Random(seed)
        cards = deck(rules.deck_size)
        _shuffle(cards, rng)
        railway = rules.has("railway")
        dealt = len(cards) - 1 if railway else players * rules.hand_size
        if rules.has("spades_by_spades"):
            # House rule: trump is never spades; the card that would set it is re-dealt.
            up = dealt - 1 if dealt == len(cards) else dealt
            while cards[up] & 3 == Suit.SPADES:
                _shuffle(cards, rng)
        if previous is not None and len(previous.points) == players:
            dealer = previous.durak if previous.durak is not None else previous.dealer
        elif rules.game == "prostoy5":
            dealer = rng.randrange(players)  # seed 002: the first dealer is chosen by lot
        else:
            dealer = players - 1
        hands: list[list[Card]] = [[] for _ in range(players)]
        for i in range(dealt):
            hands[(dealer + 1 + i) % players].append(cards[i])
        rest = cards[dealt:]
        aside: list[Card] = []
        hidden = False
        turnup: Card | None
        if railway:
            turnup = rest[0]
            aside = [turnup]  # sets trump and is never drawn
            stock: list[Card] = []
        elif rules.has("no_trump"):
            turnup = None
            stock = rest
        elif not rest:
            turnup = cards[dealt - 1]  # the last card dealt is shown
            stock = []
        elif rules.has("changing_trump"):
            turnup = rest[0]
            hidden = True  # rest[1] lies face down under it
            stock = [*rest[2:], turnup, rest[1]]
        elif rules.has("albanian"):
            turnup = rest[0]
            stock = [turnup, *rest[1:]]  # on top: drawn first
        else:
            turnup = rest[0]
            stock = [*rest[1:], turnup]
        return cls._setup(
            rules,
            hands,
            stock,
            [],
            turnup,
            first_attacker=None,
            seed=seed,
            previous=previous,
            dealer=dealer,
            first_game=previous is None,
            bouts=0,
            aside=aside,
            hidden=hidden,
        )

    @classmethod
    def deal(
        cls,
        rules: Rules,
        hands: Sequence[Sequence[Card | str]],
        stock: Sequence[Card | str] = (),
        first_attacker: int | None = None,
        *,
        trump: Card | Suit | str | None = None,
        first_game: bool = True,
        bouts: int = 0,
        previous: Result | None = None,
        set_aside: bool = False,
    ) -> Game:
        """A pinned position for tests and replays.

        ``stock[0]`` is drawn first and ``stock[-1]`` is the turn-up that sets trump (with
        ``albanian`` the turn-up is ``stock[0]``; with ``changing_trump`` it is
        ``stock[-2]`` and ``stock[-1]`` lies face down under it; with ``no_trump`` nothing
        is turned up). With an empty stock, ``trump`` names the trump: a shown card or a
        suit (with ``railway``, the card set aside). Cards of the deck given to nobody lie
        in the discard, as in a game under way; with ``set_aside`` they are set aside out
        of play instead, and the game is before its first discard (the first bout's limit
        applies: RULES.md §3.4). ``bouts`` counts bouts already played, and ``first_game`` says
        whether this is a series' first game (both matter to the no-transfer-in-the-first-
        bout rule).
        """
        rules.check_players(len(hands))
        parsed_hands = [[_card(c) for c in h] for h in hands]
        parsed_stock = [_card(c) for c in stock]
        seen: set[Card] = set()
        full = set(deck(rules.deck_size))
        for c in (c for h in parsed_hands for c in h):
            _claim(c, seen, full)
        for c in parsed_stock:
            _claim(c, seen, full)
        if isinstance(trump, str):
            text = trump
            try:
                trump = Card.parse(text)
            except ValueError:
                trump = Suit.parse(text)
        turnup: Card | None = None
        trump_suit: int | None = None
        hidden = False
        aside: list[Card] = []
        if rules.has("railway"):
            if parsed_stock or not isinstance(trump, Card):
                raise ValueError("railway has no stock: give the card set aside as trump")
            _claim(trump, seen, full)
            turnup, aside = trump, [trump]
        elif rules.has("no_trump"):
            if trump is not None:
                raise ValueError("no_trump has no trump")
        elif parsed_stock:
            if trump is not None:
                raise ValueError("with a stock, the turn-up sets trump")
            if rules.has("albanian"):
                turnup = parsed_stock[0]
            elif rules.has("changing_trump") and len(parsed_stock) >= 2:
                turnup, hidden = parsed_stock[-2], True
            else:
                turnup = parsed_stock[-1]
        elif trump is None:
            raise ValueError("with an empty stock, say which card or suit is trump")
        elif isinstance(trump, Card):
            turnup = trump
        else:
            trump_suit = int(trump)
        if rules.has("spades_by_spades") and (
            (turnup is not None and turnup & 3 == Suit.SPADES) or trump_suit == Suit.SPADES
        ):
            raise ValueError("spades_by_spades: trump is never spades")
        discard = [c for c in deck(rules.deck_size) if c not in seen]
        if set_aside:
            aside, discard = [*aside, *discard], []
        return cls._setup(
            rules,
            parsed_hands,
            parsed_stock,
            discard,
            turnup,
            first_attacker=first_attacker,
            seed=None,
            previous=previous,
            dealer=len(hands) - 1,
            first_game=first_game,
            bouts=bouts,
            trump_suit=trump_suit,
            aside=aside,
            hidden=hidden,
        )

    @classmethod
    def _setup(
        cls,
        rules: Rules,
        hands: list[list[Card]],
        stock: list[Card],
        discard: list[Card],
        turnup: Card | None,
        *,
        first_attacker: int | None,
        seed: int | None,
        previous: Result | None,
        dealer: int,
        first_game: bool,
        bouts: int,
        trump_suit: int | None = None,
        aside: list[Card] | None = None,
        hidden: bool = False,
    ) -> Game:
        g = cls.__new__(cls)
        n = len(hands)
        for hand in hands:
            hand.sort()
        g.rules = rules
        g.n = n
        g.seed = seed
        g.hands = hands
        g.stock = stock
        g.discard = discard
        g.turnup = turnup
        g.aside = aside or []
        g.hidden = hidden
        g.eff = {}
        g.swaps = [0] * n
        if rules.has("japanese"):
            trump_suit = int(Suit.DIAMONDS)
        elif rules.has("no_trump"):
            trump_suit = None
        elif turnup is not None:
            trump_suit = turnup & 3
        g._set_trump(trump_suit)
        g.att = []
        g.cov = []
        g.taking = False
        g.passed = set()
        g.out = [False] * n
        g.finish = []
        g.shown = set()
        g.first_game = first_game
        g.bouts = bouts
        g.moves = 0
        g.result = None
        g.dealer = dealer
        g._fbl = rules.first_bout_limit
        teams = rules.team_count(n)
        g._team = tuple(s % teams for s in range(n))
        g._ranks = 0
        g._emptied = [-1] * n
        g._seen = [set() for _ in range(n)]
        if not stock and turnup is not None:
            for seat, hand in enumerate(hands):
                if turnup in hand:
                    g._seen[seat].add(turnup)  # the card shown to set trump
        g._last_bout = None
        g._pend = None
        g._init_derived()
        if first_attacker is None:
            first_attacker = g._choose_first_attacker(previous)
        elif not 0 <= first_attacker < n:
            raise ValueError(f"first_attacker must be a seat 0..{n - 1}")
        g.first_attacker = first_attacker
        g.attacker = first_attacker
        g.defender = first_attacker
        g.phase = LEAD
        g.def_start = 0
        g._throwers = ()
        # A hand dealt empty (only in a pinned position) is out at once if the stock is empty.
        g._outs([])
        if g.result is None:
            if g.out[first_attacker]:
                first_attacker = g._next_active(first_attacker)
            g._start_bout(first_attacker)
        return g

    def _set_trump(self, trump: int | None) -> None:
        """Set the trump suit and the card model that goes with it."""
        self.trump = trump
        self._model = card_model(self.rules, trump)
        self._beats = self._model.beats

    def _init_derived(self) -> None:
        """Set the fields derived from the rules (flags read on every step)."""
        rules = self.rules
        self._p5 = rules.game == "prostoy5"
        self._wild = rules.has("wild_sixes")
        self._extras = self._wild or self._p5 or rules.has("poker")
        self._throw_ins = rules.throw_ins
        self._fast = rules.fast_throw_ins
        self._clockwise = rules.throw_in_order == "clockwise"
        self._transfers = rules.transfers
        self._instant = rules.draw == "not_allowed"
        self._multi = rules.multi_card_lead
        self._fbl = rules.first_bout_limit
        self._bout_cache = {}
        self._capv = 0

    def _choose_first_attacker(self, previous: Result | None) -> int:
        rule = self.rules.next_first_attacker
        n = self.n
        if self._p5:
            return (self.dealer + 1) % n  # seed 002: left of the dealer leads
        if previous is not None and len(previous.points) == n and rule != "lowest_trump":
            if previous.draw or previous.durak is None:
                return previous.first_attacker
            if rule == "left_of_loser":
                return (previous.durak + 1) % n
            if rule == "right_of_loser":
                return (previous.durak - 1) % n
            if previous.finish_order:
                return previous.finish_order[0]
            return previous.first_attacker
        return self._lowest_trump_holder()

    def _lowest_trump_holder(self) -> int:
        """The holder of the lowest trump; with no trump in any hand, of the lowest card
        (house tie-break: suit order ♠ ♣ ♦ ♥)."""
        key = self._model.key
        best: tuple[int, int, int] | None = None
        holder = 0
        for seat, hand in enumerate(self.hands):
            for c in hand:
                k = key[c]
                rank = (_TRUMPS_FIRST[k[0]], k[1], k[2])  # trumps first, weakest first
                if best is None or rank < best:
                    best, holder = rank, seat
        return holder

    def copy(self) -> Game:
        """An independent copy (cheap: lists are copied, cards are shared)."""
        g = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(g, name, getattr(self, name))
        g.hands = [list(h) for h in self.hands]
        g.stock = list(self.stock)
        g.discard = list(self.discard)
        g.att = list(self.att)
        g.cov = list(self.cov)
        g.passed = set(self.passed)
        g.out = list(self.out)
        g.finish = list(self.finish)
        g.shown = set(self.shown)
        g._emptied = list(self._emptied)
        g._bout_cache = dict(self._bout_cache)
        g._seen = [set(x) for x in self._seen]
        g.eff = dict(self.eff)
        g.aside = list(self.aside)
        g.swaps = list(self.swaps)
        return g

    # ------------------------------------------------------------------ saving and views

    def to_json(self) -> str:
        """The game as JSON with a format version; :meth:`from_json` reads it back exactly."""
        return _state.game_to_json(self)

    @staticmethod
    def from_json(text: str | bytes) -> Game:
        """Load a game saved by :meth:`to_json`; raises ``InvalidState`` if it is not sound."""
        return _state.game_from_json(text)

    def view(self, seat: int, public: PublicView | None = None) -> SeatView:
        """What ``seat`` may see: his hand, every count, the table, trump, stock, discard.
        ``public``: this game's :meth:`public_view` as it stands, if it is at hand already
        (several seats' views share it)."""
        return _views.seat_view(self, seat, public)

    def public_view(self) -> PublicView:
        """What the group may see: never a card of anyone's hand."""
        return _views.public_view(self)

    # ------------------------------------------------------------------ queries

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.n

    @property
    def trump_suit(self) -> Suit | None:
        """The trump suit."""
        return Suit(self.trump) if self.trump is not None else None

    def known_cards(self, seat: int) -> list[Card]:
        """Cards everyone knows ``seat`` holds: picked up from the table, shown, or dealt
        face up, and still in his hand (what a player with perfect memory knows)."""
        seen = self._seen[seat]
        return [c for c in self.hands[seat] if c in seen]

    def team_of(self, seat: int) -> int:
        """The team index of a seat (each seat is its own team without teams)."""
        return self._team[seat]

    def _cap(self) -> int:
        """How many attack cards this bout may hold in all (RULES.md §3.4)."""
        return self._capv

    def _recap(self) -> None:
        """Recompute the bout's cap after the defender, his hand at the start, or a take
        changed. The stock and discard change only between bouts."""
        self._capv = self._limit(self.def_start, self.taking)

    def _lead_cap(self, defender: int) -> int:
        """The limit on the number of attack cards against ``defender``, at a bout's start."""
        return self._limit(len(self.hands[defender]), taking=False)

    def _limit(self, hand: int, taking: bool) -> int:
        """Most attack cards against a defender who held ``hand`` cards when the bout began
        (RULES.md §3.4); the first-bout limit lifts once he takes."""
        rules = self.rules
        if self._p5 or (rules.limit_lifts_when_stock_empty and not self.stock):
            return hand  # prostoy5: never more than the defender holds
        cap = rules.bout_limit if rules.bout_limit < hand else hand
        fbl = self._fbl
        if fbl is not None and fbl < cap and not self.discard and not taking:
            cap = fbl
        return cap

    def _pending_throwers(self) -> list[int]:
        """Throwers who may still throw in, in clockwise order: eligible, not passed, the
        bout below its limits, a card in hand. Whether a card of his fits is his secret, so
        it counts only with ``fast_throw_ins`` (RULES.md §3.6: a player with no legal
        throw-in counts as passed — at once only when the table chose to show it).

        Cached between mutations: every change of state ends in :meth:`_settle` or
        :meth:`_start_bout`, which clear the cache; a refused action changes nothing."""
        pend = self._pend
        if pend is None:
            pend = self._pend = self._find_pending()
        return pend

    def _find_pending(self) -> list[int]:
        if not self._throw_ins or len(self.att) >= self._capv:
            return []
        passed = self.passed
        hands = self.hands
        if not self._fast:
            # an empty hand is public: nobody waits for a player who holds no card at all
            return [s for s in self._throwers if s not in passed and hands[s]]
        ranks = self._ranks
        found = []
        for s in self._throwers:
            if s in passed:
                continue
            for c in hands[s]:
                if (ranks >> (c >> 2)) & 1:
                    found.append(s)
                    break
        return found

    def _current_throwers(self) -> list[int]:
        """Throwers who may act now: all pending ones, or (clockwise) the one who holds the
        turn: the first pending seat from the turn's holder on, clockwise."""
        pending = self._pending_throwers()
        if len(pending) > 1 and self._clockwise:
            n = self.n
            turn = self._turn
            return [min(pending, key=lambda s: (s - turn) % n)]
        return pending

    def uncovered(self) -> list[Card]:
        """Attack cards on the table not yet covered."""
        return [a for a, c in zip(self.att, self.cov, strict=True) if c is None]

    def to_act(self) -> tuple[int, ...]:
        """Seats that may act now."""
        if self.phase == LEAD:
            return (self.attacker,)
        if self.phase == OVER:
            return ()
        seats = list(self._current_throwers())
        if not self.taking and None in self.cov:
            seats.append(self.defender)
        return tuple(sorted(seats))

    def waiting_on(self) -> tuple[int, ...]:
        """Seats the game waits on (their turn clock runs): the attacker to lead, the
        defender to cover or take. Throwers are never waited on; their window runs instead."""
        if self.phase == LEAD:
            return (self.attacker,)
        if self.phase == BOUT and not self.taking and None in self.cov:
            return (self.defender,)
        return ()

    def throwers(self) -> tuple[int, ...]:
        """Seats that may throw in or pass now (the ones the throw-in window applies to)."""
        if self.phase != BOUT:
            return ()
        return tuple(self._current_throwers())

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now; one card per throw-in. Never lists Timeout
        or Resign, which are not moves of the game but the bot's clock and a player leaving."""
        if self.phase == OVER or not 0 <= seat < self.n:
            return []
        hand = self.hands[seat]
        acts: list[Action]
        if self.phase == LEAD:
            if seat != self.attacker:
                return []
            if self._p5:
                acts = [Lead(seat, cards) for cards in attack_sets(hand, self._capv)]
            else:
                acts = self._lead_actions(seat, hand)
        elif seat == self.defender:
            if self.taking or None not in self.cov:
                return []
            if self._wild:
                acts = self._wild_covers(seat, hand)
            else:
                new = tuple.__new__
                beats = self._beats
                acts = []
                for a, cv in zip(self.att, self.cov, strict=False):
                    if cv is None:
                        beaten_by = beats[a]
                        for c in hand:
                            if c in beaten_by:
                                acts.append(new(Cover, (seat, a, c, None)))
            if self._transfers:
                acts += self._transfer_actions(seat, hand)
            acts.append(_TAKE[seat])
        elif seat in self._current_throwers():
            ranks = self._ranks
            throws = _THROW[seat]
            acts = [throws[c] for c in hand if (ranks >> (c >> 2)) & 1]
            acts.append(_PASS[seat])
        else:
            return []
        if self._extras:
            acts = self._extra_actions(seat, hand, acts)
        return acts

    def _wild_covers(self, seat: int, hand: list[Card]) -> list[Action]:
        """Covers when sixes are wild: a six may cover as any suit that beats."""
        acts: list[Action] = []
        for a, cv in zip(self.att, self.cov, strict=False):
            if cv is None:
                beaten_by = self._beats[self.eff.get(a, a)]
                for c in hand:
                    if c >> 2 == SIX:
                        for suit in range(4):
                            if _SIXES[suit] in beaten_by:
                                acts.append(Cover(seat, a, c, suit))
                    elif c in beaten_by:
                        acts.append(Cover(seat, a, c))
        return acts

    def _extra_actions(self, seat: int, hand: list[Card], acts: list[Action]) -> list[Action]:
        """The modifiers' actions: wild sixes' suits, poker swaps, the prostoy5 trump swap."""
        if self._wild:
            acts = [x for a in acts for x in _wild_variants(a)]
        if self._poker_refusal(seat) is None:
            acts += [PokerSwap(seat, pair) for pair in combinations(hand, 2)]
        swap = self._swap_card(seat)
        if swap is not None:
            acts.append(SwapTrump(seat, swap))
        return acts

    def _swap_card(self, seat: int) -> Card | None:
        """Prostoy5: the lowest trump ``seat`` may swap for the turn-up now, if any."""
        lowest = self._model.lowest_trump
        stock = self.stock
        if (
            not self._p5
            or lowest is None
            or not stock
            or stock[-1] != self.turnup
            or lowest == self.turnup
            or lowest not in self.hands[seat]
            or seat not in self.to_act()
        ):
            return None
        return lowest

    def _reserved(self) -> int:
        """Cards at the bottom of the stock that poker swaps leave in place."""
        stock = self.stock
        bottom = 1 if self.turnup is not None and stock and stock[-1] == self.turnup else 0
        return bottom + (1 if self.hidden else 0)

    def _poker_refusal(self, seat: int) -> str | None:
        """Why ``seat`` may not make a poker swap now, or None if he may."""
        if not self.rules.has("poker") or self.phase != LEAD or seat != self.attacker:
            return "no_swap"
        if self.swaps[seat] >= POKER_SWAPS:
            return "no_swaps_left"
        if len(self.stock) - self._reserved() < 2:
            return "no_swap"
        return None

    def _transfer_actions(self, seat: int, hand: list[Card]) -> list[Action]:
        """Transfers by laying a card of the attack's rank and (proezdnoy) by showing a
        trump of it; a show adds no card, so it may fit where a laid card would not."""
        lay = self._transfer_target(seat) is not None
        show = self.rules.proezdnoy and self._transfer_target(seat, show=True) is not None
        if not (lay or show):
            return []
        rank = self.att[0] >> 2
        trumps = self._model.trumps
        acts: list[Action] = []
        for c in hand:
            if c >> 2 == rank:
                if lay:
                    acts.append(Transfer(seat, c))
                if show and c in trumps and c not in self.shown:
                    acts.append(ShowTrump(seat, c))
        return acts

    def _lead_actions(self, seat: int, hand: list[Card]) -> list[Action]:
        singles = _LEAD1[seat]
        acts: list[Action] = [singles[c] for c in hand]
        cap = self._capv
        if not self._multi or cap == 1:
            return acts
        # The hand is sorted, so cards of one rank stand together.
        start = 0
        rank = hand[0] >> 2 if hand else 0
        count = len(hand)
        for i in range(1, count + 1):
            if i == count or hand[i] >> 2 != rank:
                if i - start > 1:
                    for lead in _multi_leads(seat, tuple(hand[start:i])):
                        if len(lead[1]) > cap:
                            break
                        acts.append(lead)
                if i < count:
                    start = i
                    rank = hand[i] >> 2
        return acts

    def _transfer_target(self, seat: int, show: bool = False) -> int | None:
        """The seat a transfer by ``seat`` would pass the attack to, or None if none is legal."""
        if self._transfer_refusal(seat, show) is not None:
            return None
        return self._next_active(seat, opponent_of=seat)

    def _transfer_refusal(self, seat: int, show: bool) -> str | None:
        """Why ``seat`` may not transfer now (a reason code), or None if he may."""
        rules = self.rules
        if not rules.transfers or self.taking or seat != self.defender:
            return "transfer_not_allowed"
        if any(c is not None for c in self.cov):
            return "transfer_not_allowed"
        if rules.no_transfer_first_bout and self.first_game and self.bouts == 0:
            return "transfer_not_allowed"
        trumps = self._model.trumps
        eff = self.eff
        if rules.no_transfer_with_trump_on_table and any(eff.get(a, a) in trumps for a in self.att):
            return "transfer_not_allowed"
        target = self._next_active(seat, opponent_of=seat)
        if target == seat:
            return "transfer_not_allowed"
        count = len(self.att) + (0 if show else 1)
        if count > self._lead_cap(target):
            return "transfer_limit"
        return None

    def _next_active(self, seat: int, opponent_of: int | None = None) -> int:
        """The next active seat to the left of ``seat`` (an opponent of ``opponent_of``)."""
        n = self.n
        out = self.out
        team = self._team
        for k in range(1, n + 1):
            s = (seat + k) % n
            if not out[s] and (opponent_of is None or team[s] != team[opponent_of]):
                return s
        return seat

    # ------------------------------------------------------------------ applying

    def apply(self, action: Action) -> list[Event]:
        """Apply ``action``; return the events it caused. Illegal: raise, change nothing."""
        if self.phase == OVER:
            raise IllegalAction("game_over", "the game is over")
        seat = action[0]
        if not isinstance(seat, int) or not 0 <= seat < self.n:
            raise IllegalAction("no_such_seat", f"no seat {seat!r} at this table")
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction("unknown_action", f"not an action: {action!r}")
        events: list[Event] = []
        handler(self, action, events)
        self.moves += 1
        return events

    def _apply_lead(self, action: Lead, events: list[Event]) -> None:
        seat, cards, suits = action
        if self.phase != LEAD or seat != self.attacker:
            raise IllegalAction("not_your_turn", "only the attacker leads, before the bout")
        if type(cards) is not tuple or not cards:
            raise IllegalAction("empty_lead", "a lead needs at least one card")
        hand = self.hands[seat]
        if suits is not None or self._wild:
            declared = self._declared(cards, suits)
        if len(cards) == 1:
            card = cards[0]
            if type(card) is not Card or card not in hand:
                raise IllegalAction("card_not_in_hand", f"{card} is not in your hand")
            hand.remove(card)
            ranks = 1 << (card >> 2)
        else:
            self._check_own(hand, cards)
            if self._p5:
                if not is_attack_set(cards):
                    raise IllegalAction("not_a_set", "attack with 1, 3 or 5 cards: see the sets")
                ranks = 0
                for c in cards:
                    ranks |= 1 << (c >> 2)
            else:
                rank = cards[0] >> 2
                if any(c >> 2 != rank for c in cards):
                    raise IllegalAction("mixed_ranks", "a lead is one card or several of one rank")
                if not self._multi:
                    raise IllegalAction("limit_reached", "these rules allow leading one card only")
                ranks = 1 << rank
            if len(cards) > self._capv:
                raise IllegalAction("limit_reached", "more cards than this bout allows")
            for c in cards:
                hand.remove(c)
        if suits is not None or self._wild:
            self.eff = declared
        if not hand:
            self._emptied[seat] = self.moves
        self.att = list(cards)
        self.cov = [None] * len(cards)
        self._ranks = ranks
        self.phase = BOUT
        named = None
        if (suits is not None or self._wild) and declared:
            named = tuple(Suit(declared[c] & 3) if c in declared else None for c in cards)
        events.append(tuple.__new__(Led, (seat, cards, self.defender, named)))
        if self._p5:
            self._draw(seat, events)  # seed 002: the attacker refills at once
        self._settle(events)

    def _declared(self, cards: tuple[Card, ...], suits: Any) -> dict[Card, Card]:
        """Wild sixes: the card each laid six stands for, from the suits named with it."""
        if suits is None:
            suits = (None,) * len(cards)
        if type(suits) is not tuple or len(suits) != len(cards):
            raise IllegalAction("suit_needed", "name one suit for each six")
        declared: dict[Card, Card] = {}
        for c, suit in zip(cards, suits, strict=True):
            stands = self._stands_for(c, suit)
            if stands != c:
                declared[c] = stands
        return declared

    def _stands_for(self, card: Card, suit: Any) -> Card:
        """The card ``card`` counts as when laid: itself, or for a wild six the six of the
        suit named with it."""
        if self._wild and card >> 2 == SIX and type(card) is Card:
            if type(suit) is not int or not 0 <= suit <= 3:
                raise IllegalAction("suit_needed", "name the suit this six takes")
            return _SIXES[suit]
        if suit is not None:
            raise IllegalAction("suit_needed", "only a wild six takes a suit")
        return card

    def _apply_throw(self, action: Throw, events: list[Event]) -> None:
        seat, card, suit = action
        if self.phase != BOUT or not self._throw_ins or seat == self.defender:
            raise IllegalAction("not_your_turn", "you cannot throw in now")
        if seat not in self._throwers:
            raise IllegalAction("not_your_turn", "you cannot throw in to this defender")
        hand = self.hands[seat]
        if type(card) is not Card or card not in hand:
            raise IllegalAction("card_not_in_hand", f"{card} is not in your hand")
        if not (self._ranks >> (card >> 2)) & 1:
            raise IllegalAction("rank_not_on_table", f"nothing of {card}'s rank on the table")
        if len(self.att) >= self._capv:
            raise IllegalAction("limit_reached", "no more cards may be thrown in this bout")
        if seat not in self._current_throwers():
            raise IllegalAction("not_your_turn", "wait for your turn to throw in")
        named = None
        if suit is not None or self._wild:
            stands = self._stands_for(card, suit)
            if stands != card:
                self.eff[card] = stands
                named = Suit(stands & 3)
        hand.remove(card)
        if not hand:
            self._emptied[seat] = self.moves
        self.att.append(card)
        self.cov.append(None)
        self.passed.clear()
        events.append(tuple.__new__(Thrown, (seat, card, named)))
        self._settle(events)

    def _apply_cover(self, action: Cover, events: list[Event]) -> None:
        seat, attack, card, suit = action
        if self.phase != BOUT or seat != self.defender or self.taking:
            raise IllegalAction("not_your_turn", "you are not defending now")
        hand = self.hands[seat]
        if type(card) is not Card or card not in hand:
            raise IllegalAction("card_not_in_hand", f"{card} is not in your hand")
        try:
            i = self.att.index(attack)
        except ValueError:
            raise IllegalAction("not_on_table", f"{attack} is not an attack card") from None
        if self.cov[i] is not None:
            raise IllegalAction("already_covered", f"{attack} is already covered")
        named = attack_named = None
        if suit is not None or self._wild:
            stands = self._stands_for(card, suit)
            attack_stands = self.eff.get(attack, attack)
            if stands not in self._beats[attack_stands]:
                raise IllegalAction("does_not_beat", f"{card} does not beat {attack}")
            if stands != card:
                self.eff[card] = stands
                named = Suit(stands & 3)
            if attack_stands != attack:
                attack_named = Suit(attack_stands & 3)
        elif card not in self._beats[attack]:
            raise IllegalAction("does_not_beat", f"{card} does not beat {attack}")
        hand.remove(card)
        if not hand:
            self._emptied[seat] = self.moves
        self.cov[i] = card
        self._ranks |= 1 << (card >> 2)
        self.passed.clear()
        events.append(tuple.__new__(Covered, (seat, self.att[i], card, named, attack_named)))
        self._settle(events)

    def _apply_take(self, action: Take, events: list[Event]) -> None:
        seat = action[0]
        if self.phase != BOUT or seat != self.defender or self.taking:
            raise IllegalAction("not_your_turn", "you are not defending now")
        if None not in self.cov:
            raise IllegalAction("not_your_turn", "everything is covered: nothing to take")
        self.taking = True
        self._recap()
        self.passed.clear()
        events.append(tuple.__new__(Taking, (seat,)))
        self._settle(events)

    def _apply_pass(self, action: Pass, events: list[Event]) -> None:
        seat = action[0]
        if self.phase != BOUT or seat not in self._current_throwers():
            raise IllegalAction("not_your_turn", "you have nothing to pass on now")
        self.passed.add(seat)
        if self._clockwise and seat == self._turn:
            # the turn goes on to the next thrower clockwise, whatever he holds
            throwers = self._throwers
            if seat in throwers:
                self._turn = throwers[(throwers.index(seat) + 1) % len(throwers)]
        events.append(tuple.__new__(Passed, (seat,)))
        self._settle(events)

    def _apply_transfer(self, action: Transfer, events: list[Event]) -> None:
        seat, card, suit = action
        self._check_transfer(seat, card, show=False)
        named = None
        if suit is not None or self._wild:
            stands = self._stands_for(card, suit)
            if stands != card:
                self.eff[card] = stands
                named = Suit(stands & 3)
        hand = self.hands[seat]
        hand.remove(card)
        if not hand:
            self._emptied[seat] = self.moves
        self.att.append(card)
        self.cov.append(None)
        target = self._pass_attack(seat)
        events.append(Transferred(seat, card, target, named))
        self._settle(events)

    def _apply_show_trump(self, action: ShowTrump, events: list[Event]) -> None:
        seat, card = action
        if not self.rules.proezdnoy:
            raise IllegalAction("transfer_not_allowed", "these rules have no proezdnoy")
        if self.phase == BOUT and seat == self.defender and type(card) is Card:
            if card not in self._model.trumps:
                raise IllegalAction("not_a_trump", f"{card} is not a trump")
            if card in self.shown:
                raise IllegalAction("already_shown", f"{card} was shown already this game")
        self._check_transfer(seat, card, show=True)
        self.shown.add(card)
        self._seen[seat].add(card)
        target = self._pass_attack(seat)
        events.append(TrumpShown(seat, card, target))
        self._settle(events)

    def _check_transfer(self, seat: int, card: Card, show: bool) -> None:
        if self.phase != BOUT or seat != self.defender:
            raise IllegalAction("not_your_turn", "you are not defending now")
        if type(card) is not Card or card not in self.hands[seat]:
            raise IllegalAction("card_not_in_hand", f"{card} is not in your hand")
        reason = self._transfer_refusal(seat, show)
        if reason is not None:
            raise IllegalAction(reason, "you cannot transfer now")
        if card >> 2 != self.att[0] >> 2:
            raise IllegalAction("transfer_rank", f"{card} is not of the attack's rank")

    def _pass_attack(self, seat: int) -> int:
        """The defender ``seat`` becomes principal attacker; the next opponent defends."""
        target = self._next_active(seat, opponent_of=seat)
        self.attacker = seat
        self.defender = target
        self.def_start = len(self.hands[target])
        self._recap()
        self._throwers = self._throwers_for(seat, target)
        self._turn = seat
        self.passed.clear()
        return target

    def _apply_resign(self, action: Resign, events: list[Event]) -> None:
        seat = action[0]
        if self.out[seat]:
            raise IllegalAction("not_your_turn", "you are out of this game already")
        events.append(Resigned(seat))
        self._finish([seat], events, resigned=True)

    def _apply_timeout(self, action: Timeout, events: list[Event]) -> None:
        seat = action[0]
        if seat in self.waiting_on() and self.rules.turn_timeout > 0:
            if self.rules.on_timeout == "durak":
                events.append(TimedOut(seat, "durak"))
                self._finish([seat], events, timed_out=seat)
                return
            events.append(TimedOut(seat, "auto"))
            if self.phase == LEAD:
                low = min(self.hands[seat], key=self._model.key.__getitem__)
                suits = (low & 3,) if self._wild and low >> 2 == SIX else None
                self._apply_lead(Lead(seat, (low,), suits), events)
            else:
                self._apply_take(Take(seat), events)
            return
        if self.phase == BOUT and seat in self._current_throwers():
            # the throw-in window cannot be switched off: a silent thrower has passed
            events.append(TimedOut(seat, "pass"))
            self._apply_pass(Pass(seat), events)
            return
        if self.rules.turn_timeout <= 0:
            raise IllegalAction("not_your_turn", "these rules have no time limit")
        raise IllegalAction("not_your_turn", "no clock runs for that seat")

    def _apply_swap_trump(self, action: SwapTrump, events: list[Event]) -> None:
        seat, card = action
        if self._swap_card(seat) != card or type(card) is not Card:
            raise IllegalAction(
                "no_swap", "only the lowest trump, for the turn-up, while stock lasts"
            )
        hand = self.hands[seat]
        taken = self.stock[-1]
        hand.remove(card)
        hand.append(taken)
        hand.sort()
        self.stock[-1] = card
        self.turnup = card
        self._seen[seat].add(taken)
        self._pend = None
        events.append(TrumpSwapped(seat, card, taken))

    def _apply_poker_swap(self, action: PokerSwap, events: list[Event]) -> None:
        seat, cards = action
        reason = self._poker_refusal(seat)
        if reason is not None:
            raise IllegalAction(reason, "no poker swap now")
        if type(cards) is not tuple or len(cards) != 2:
            raise IllegalAction("no_swap", "a poker swap takes two cards")
        hand = self.hands[seat]
        self._check_own(hand, cards)
        stock = self.stock
        top = stock[:2]
        del stock[:2]
        for c in cards:
            hand.remove(c)
            self._seen[seat].discard(c)
        hand.extend(top)
        hand.sort()
        keep = self._reserved()
        body = [*stock[: len(stock) - keep], *cards]
        random.Random(f"{self.seed}:{self.moves}").shuffle(body)
        stock[:] = [*body, *stock[len(stock) - keep :]]
        self.swaps[seat] += 1
        self._pend = None
        events.append(PokerSwapped(seat, POKER_SWAPS - self.swaps[seat]))

    @staticmethod
    def _check_own(hand: list[Card], cards: Sequence[Card]) -> None:
        if len(set(cards)) != len(cards):
            raise IllegalAction("duplicate_card", "the same card twice")
        for c in cards:
            if type(c) is not Card or c not in hand:
                raise IllegalAction("card_not_in_hand", f"{c} is not in your hand")

    # ------------------------------------------------------------------ bout flow

    def _throwers_for(self, attacker: int, defender: int) -> tuple[int, ...]:
        """Active opponents of the defender other than him, clockwise from the attacker."""
        n = self.n
        team = self._team
        out = self.out
        dt = team[defender]
        return tuple(
            s
            for s in ((attacker + k) % n for k in range(n))
            if s != defender and not out[s] and team[s] != dt
        )

    def _start_bout(self, attacker: int) -> None:
        self.phase = LEAD
        self.attacker = attacker
        seats = self._bout_cache.get(attacker)
        if seats is None:
            defender = self._next_active(attacker, opponent_of=attacker)
            seats = self._bout_cache[attacker] = (
                defender,
                self._throwers_for(attacker, defender),
            )
        self.defender, self._throwers = seats
        self._turn = attacker
        self.def_start = len(self.hands[self.defender])
        self.taking = False
        self.passed = set()
        self.att = []
        self.cov = []
        self._ranks = 0
        self._pend = None
        self._recap()

    def _settle(self, events: list[Event]) -> None:
        """After a card or a word: end the bout (or the game) if nothing more can happen."""
        self._pend = None
        if self._clockwise:
            # the turn stays with its holder; it passes on only past those who passed
            holder = self._current_throwers()
            if holder:
                self._turn = holder[0]
        if self._instant and not self.stock and self._instant_end(events):
            return
        if self._pending_throwers():
            return
        if self.taking:
            self._end_bout(events, taken=True)
        elif None not in self.cov:
            self._end_bout(events, taken=False)

    def _instant_end(self, events: list[Event]) -> bool:
        """``draw: not_allowed``: the game ends the instant one side alone holds cards."""
        holders = [s for s in range(self.n) if not self.out[s] and self.hands[s]]
        if len({self._team[s] for s in holders}) > 1:
            return False
        if self.phase == BOUT:
            self._last_bout = (self.defender, tuple(self.att))
        # Everyone else has emptied his hand: they are out, in the order they emptied it.
        self._outs(events, everyone_empty=True)
        self._finish(holders, events)
        return True

    def _end_bout(self, events: list[Event], taken: bool) -> None:
        defender = self.defender
        attack = self.att
        table = attack + [c for c in self.cov if c is not None]
        self._last_bout = (defender, attack)
        if taken and self._p5:
            self._end_partial_defence(events)
        elif taken:
            hand = self.hands[defender]
            hand.extend(table)
            hand.sort()
            self._seen[defender].update(table)
            events.append(tuple.__new__(PickedUp, (defender, tuple(table))))
        else:
            self.discard.extend(table)
            events.append(tuple.__new__(Beaten, (tuple(table),)))
        self.att = []
        self.cov = []
        self._ranks = 0
        if self.eff:
            self.eff = {}
        self.bouts += 1
        self._draw_all(events)
        self._outs(events)
        if self.result is not None:
            return
        if taken:
            nxt = self._next_active(defender)
        else:
            nxt = defender if not self.out[defender] else self._next_active(defender)
        self._start_bout(nxt)

    def _end_partial_defence(self, events: list[Event]) -> None:
        """Prostoy5 (seed 002 §04): covered pairs go to the discard; the defender takes only
        the uncovered cards and keeps the rest of his hand."""
        covered: list[Card] = []
        uncovered: list[Card] = []
        for a, c in zip(self.att, self.cov, strict=True):
            if c is None:
                uncovered.append(a)
            else:
                covered += (a, c)
        if covered:
            self.discard.extend(covered)
            events.append(Beaten(tuple(covered)))
        hand = self.hands[self.defender]
        hand.extend(uncovered)
        hand.sort()
        self._seen[self.defender].update(uncovered)
        events.append(PickedUp(self.defender, tuple(uncovered)))

    def _draw_all(self, events: list[Event]) -> None:
        stock = self.stock
        if not stock:
            return
        key = (self.n, self.attacker, self.defender, self.rules.draw_order)
        order = _DRAW_ORDERS.get(key)
        if order is None:
            order = _DRAW_ORDERS[key] = _draw_order(*key)
        size = self.rules.hand_size
        hands = self.hands
        for s in order:
            if len(hands[s]) < size:
                self._draw(s, events)
                if not stock:
                    break

    def _draw(self, seat: int, events: list[Event]) -> None:
        """``seat`` draws up to the hand size. Drawing the face-up card is public; with
        changing trump, drawing it turns the hidden card, which sets the new trump."""
        stock = self.stock
        hand = self.hands[seat]
        need = self.rules.hand_size - len(hand)
        if need <= 0 or not stock:
            return
        got = stock[:need]
        del stock[:need]
        hand.extend(got)
        hand.sort()
        events.append(tuple.__new__(Drew, (seat, len(got))))
        turnup = self.turnup
        if turnup is not None and turnup in got:
            self._seen[seat].add(turnup)
            if self.hidden:
                revealed = stock[-1] if stock else got[-1]
                self.hidden = False
                self.turnup = revealed
                self._set_trump(revealed & 3)
                events.append(TrumpChanged(revealed))
                if revealed in got:
                    self._seen[seat].add(revealed)

    def _outs(self, events: list[Event], everyone_empty: bool = False) -> None:
        """With the stock empty, players without cards go out, earliest-emptied first."""
        if self.stock:
            return
        empty = [s for s in range(self.n) if not self.out[s] and not self.hands[s]]
        if not empty:
            if not everyone_empty:
                self._check_end(events)
            return
        empty.sort(key=lambda s: self._emptied[s])
        self._bout_cache.clear()
        for s in empty:
            self.out[s] = True
            self.finish.append(s)
            events.append(PlayerOut(s, len(self.finish)))
        if not everyone_empty:
            self._check_end(events)

    def _check_end(self, events: list[Event]) -> None:
        active = [s for s in range(self.n) if not self.out[s]]
        if len({self._team[s] for s in active}) <= 1:
            self._finish(active, events)

    def _finish(
        self,
        holders: list[int],
        events: list[Event],
        timed_out: int | None = None,
        resigned: bool = False,
    ) -> None:
        """End the game. ``holders`` are the seats left holding cards (one side at most)."""
        n = self.n
        teams = self.rules.teams != "none"
        if not holders:
            # A draw: those who ran out in the final bout share it.
            tied = set(self.finish[-2:]) if not teams else set(range(n))
            points = tuple(1 if s in tied else 2 for s in range(n))
            result = Result(
                durak=None,
                durak_team=None,
                losers=(),
                draw=True,
                pogony=False,
                finish_order=tuple(self.finish),
                points=points,
                first_attacker=self.first_attacker,
                dealer=self.dealer,
            )
        else:
            # Pogony: two sixes in the final bout, made against a player left holding
            # cards (in team play any of the losing team's; not a partner who ran out).
            last = self._last_bout
            pogony = (
                timed_out is None
                and not resigned
                and last is not None
                and last[0] in holders
                and sum(1 for c in last[1] if c >> 2 == SIX) >= 2
            )
            if pogony:
                assert last is not None
                durak = last[0]  # the one the pogony bout was made against
            else:
                durak = max(holders, key=lambda s: (len(self.hands[s]), -((s - self.attacker) % n)))
            team = self._team[durak]
            durak_team = tuple(s for s in range(n) if self._team[s] == team) if teams else None
            losers = durak_team if durak_team is not None else (durak,)
            result = Result(
                durak=durak,
                durak_team=durak_team,
                losers=tuple(losers),
                draw=False,
                pogony=pogony,
                finish_order=tuple(self.finish),
                points=tuple(0 if s in losers else 2 for s in range(n)),
                first_attacker=self.first_attacker,
                dealer=self.dealer,
                timed_out=timed_out,
            )
        self.result = result
        self.phase = OVER
        events.append(GameOver(result.durak, result.draw, result.pogony))


POKER_SWAPS = 3  # poker: swaps each player may make in a game
_SIXES = tuple(Card.of(SIX, s) for s in range(4))

_TRUMPS_FIRST = (1, 0, 2)  # card-model groups (plain, trump, joker) in first-attacker order

MAX_SEATS = 6
# Prebuilt single-card actions, indexed [seat][card code]: the hot path looks them up
# instead of building a new tuple each time.
_LEAD1: list[list[Lead]] = [
    [Lead(s, (Card(code),)) if code in Card._by_code else Lead(s, ()) for code in range(64)]
    for s in range(MAX_SEATS)
]
_THROW: list[list[Throw]] = [
    [Throw(s, Card._by_code.get(code, Card(8))) for code in range(64)] for s in range(MAX_SEATS)
]
_TAKE = [Take(s) for s in range(MAX_SEATS)]
_PASS = [Pass(s) for s in range(MAX_SEATS)]


def _shuffle(cards: list[Card], rng: random.Random) -> None:
    """Fisher–Yates from ``rng.random()``: the same permutation for the same seed, faster
    than ``Random.shuffle`` (the bias of scaling a 53-bit float is below 2**-47)."""
    rnd = rng.random
    for i in range(len(cards) - 1, 0, -1):
        j = int(rnd() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def _wild_variants(action: Action) -> list[Action]:
    """Wild sixes: an action laying a six, once for every suit it may take."""
    if isinstance(action, Throw | Transfer) and action.card >> 2 == SIX and action.suit is None:
        return [action._replace(suit=s) for s in range(4)]
    if isinstance(action, Lead) and action.suits is None:
        sixes = [i for i, c in enumerate(action.cards) if c >> 2 == SIX]
        if sixes:
            found: list[Action] = []
            for named in product(range(4), repeat=len(sixes)):
                suits: list[int | None] = [None] * len(action.cards)
                for i, suit in zip(sixes, named, strict=True):
                    suits[i] = suit
                found.append(Lead(action.seat, action.cards, tuple(suits)))
            return found
    return [action]


_MULTI_LEADS: dict[tuple[int, tuple[Card, ...]], tuple[Lead, ...]] = {}


def _multi_leads(seat: int, cards: tuple[Card, ...]) -> tuple[Lead, ...]:
    """Leads of two or more of ``cards`` (one rank, sorted), fewest cards first; memoised."""
    key = (seat, cards)
    found = _MULTI_LEADS.get(key)
    if found is None:
        found = _MULTI_LEADS[key] = tuple(
            Lead(seat, combo) for k in range(2, len(cards) + 1) for combo in combinations(cards, k)
        )
    return found


_DRAW_ORDERS: dict[tuple[int, int, int, str], tuple[int, ...]] = {}


def _draw_order(n: int, attacker: int, defender: int, rule: str) -> tuple[int, ...]:
    """Who draws in what order (RULES.md §3.7). Nobody is out while the stock lasts."""
    others = [s for s in ((attacker + k) % n for k in range(1, n)) if s != defender]
    if rule == "defender_first":
        return (defender, attacker, *others)
    return (attacker, *others, defender)


def _card(c: Card | str) -> Card:
    return c if isinstance(c, Card) else Card.parse(c)


def _claim(c: Card, seen: set[Card], full: set[Card]) -> None:
    if c not in full:
        raise ValueError(f"{c} is not in this deck")
    if c in seen:
        raise ValueError(f"{c} is dealt twice")
    seen.add(c)


_HANDLERS: dict[type, Any] = {
    Lead: Game._apply_lead,
    Throw: Game._apply_throw,
    Cover: Game._apply_cover,
    Take: Game._apply_take,
    Pass: Game._apply_pass,
    Transfer: Game._apply_transfer,
    ShowTrump: Game._apply_show_trump,
    SwapTrump: Game._apply_swap_trump,
    PokerSwap: Game._apply_poker_swap,
    Resign: Game._apply_resign,
    Timeout: Game._apply_timeout,
}

# The views and the saved form are built on Game: imported once it is defined (not in the
# methods, where each call would look the module up again).
from . import state as _state  # noqa: E402
from . import views as _views  # noqa: E402
