"""What tapping a card means: the obvious legal action, or a small choice.

Pure functions of a :class:`engine.SeatView`. Every action they return, and every option of
a :class:`Choice`, is one of ``view.actions``, so the keyboard never offers what the engine
refuses.

- Leading: a card that can only be led alone is led. Otherwise the player chooses: that card
  alone, all cards of its rank (when that is one legal lead), and — when there are other
  combinations (three or four of a rank, prostoy5 sets) — "choose…", which starts a toggle
  selection with that card; **Play** then leads the selection (:func:`resolve_play`).
- Throwing in: the card is thrown in (one card per action).
- Defending: the one thing the card can do is done (cover the only attack card it beats, or
  transfer with it); if it could cover several attack cards, or cover and transfer, or
  transfer by laying or showing it (proezdnoy), the player chooses.
- Wild sixes: when a six may take several suits, each suit is an option.
- A card with no legal action resolves to None; :func:`tap_refusal` says why.

Poker swaps and the prostoy5 trump swap have their own buttons, never a tap.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from bot.service import callbacks as cb
from engine import Card, SeatView
from engine.actions import (
    Action,
    Cover,
    Lead,
    Pass,
    PokerSwap,
    ShowTrump,
    SwapTrump,
    Take,
    Throw,
    Transfer,
)

__all__ = [
    "Choice",
    "leads_of",
    "play_callback",
    "resolve_play",
    "resolve_tap",
    "selectable",
    "tap_refusal",
    "to_action",
]

ChoiceKind = Literal["lead", "cover", "defend", "suit"]

MAX_SUIT_OPTIONS = 12
"""Most suit combinations offered for one wild-six lead (4**k exist for k sixes): those that
rename the fewest sixes come first."""


@dataclass(frozen=True, slots=True)
class Choice:
    """A tap (or a Play) that needs one more answer: ``actions``, all legal, and, if
    ``select``, the option to pick several cards with toggles, starting with ``card``."""

    card: Card
    actions: tuple[Action, ...]
    select: bool = False

    @property
    def kind(self) -> ChoiceKind:
        """``suit`` (one move, which suit for a wild six), ``lead`` (alone or with others),
        ``cover`` (which attack card), ``defend`` (cover or transfer)."""
        first = self.actions[0]
        if not self.select and all(
            type(a) is type(first) and _cards(a) == _cards(first) for a in self.actions
        ):
            return "suit"
        if any(isinstance(a, Lead) for a in self.actions):
            return "lead"
        if all(isinstance(a, Cover) for a in self.actions):
            return "cover"
        return "defend"


def _cards(action: Action) -> tuple[Card, ...]:
    if isinstance(action, Lead):
        return action.cards
    if isinstance(action, Cover):
        return (action.attack, action.card)
    if isinstance(action, Throw | Transfer | ShowTrump):
        return (action.card,)
    return ()


def _uses(action: Action, card: Card) -> bool:
    if isinstance(action, Lead):
        return card in action.cards
    if isinstance(action, Throw | Transfer | ShowTrump | Cover):
        return action.card == card
    return False


def _order(action: Action, table: list[Card]) -> tuple[int, int, int]:
    suit = getattr(action, "suit", None)
    rank = -1 if suit is None else suit
    if isinstance(action, Cover):
        return (0, table.index(action.attack) if action.attack in table else 0, rank)
    if isinstance(action, Transfer):
        return (1, 0, rank)
    return (2, 0, rank)


def leads_of(view: SeatView, cards: Iterable[Card]) -> tuple[Lead, ...]:
    """The legal leads of exactly these cards (several when wild sixes take suits)."""
    wanted = frozenset(cards)
    return tuple(a for a in view.actions if isinstance(a, Lead) and frozenset(a.cards) == wanted)


def resolve_tap(view: SeatView, card: Card) -> Action | Choice | None:
    """What tapping ``card`` does for this seat now (None: nothing legal)."""
    if card not in view.hand:
        return None
    acts = [a for a in view.actions if _uses(a, card)]
    if not acts:
        return None
    leads = [a for a in acts if isinstance(a, Lead)]
    if leads:
        singles = [a for a in leads if len(a.cards) == 1]
        sets = {frozenset(a.cards) for a in leads if len(a.cards) > 1}
        if len(singles) == 1:
            return singles[0]  # one tap leads the card; several go by "Lead several"
        if not sets:
            return Choice(card, tuple(singles))
        options: list[Action] = list(singles)
        same_rank = frozenset(c for c in view.hand if c >> 2 == card >> 2)
        whole = leads_of(view, same_rank) if same_rank in sets else ()
        if len(whole) == 1:
            options.append(whole[0])
        select = len(sets) > (1 if len(whole) == 1 else 0)
        if len(options) == 1 and not select:
            return options[0]
        return Choice(card, tuple(options), select=select)
    if len(acts) == 1:
        return acts[0]
    table = [a for a, _ in view.public.table]
    acts.sort(key=lambda a: _order(a, table))
    return Choice(card, tuple(acts))


def resolve_play(view: SeatView, cards: Iterable[Card]) -> Action | Choice | None:
    """What **Play** on a selection does: its lead, or a choice of suits (wild sixes);
    None if these cards are no legal lead."""
    leads = leads_of(view, cards)
    if not leads:
        return None
    if len(leads) == 1:
        return leads[0]
    return Choice(min(leads[0].cards), _fewest_renamed(leads))


def _fewest_renamed(leads: Iterable[Lead]) -> tuple[Lead, ...]:
    def renamed(lead: Lead) -> int:
        suits = lead.suits or ()
        return sum(1 for c, s in zip(lead.cards, suits, strict=False) if s not in (None, c & 3))

    return tuple(sorted(leads, key=renamed)[:MAX_SUIT_OPTIONS])


def tap_refusal(view: SeatView, card: Card) -> str:
    """Why tapping ``card`` does nothing: an :class:`engine.IllegalAction` reason code, or
    ``taking`` (he declared he takes), ``out`` (he is out) or ``not_playable``."""
    public = view.public
    if public.phase == "over":
        return "game_over"
    if card not in view.hand:
        return "card_not_in_hand"
    if public.roles[view.seat] == "out":
        return "out"
    moves = [a for a in view.actions if not isinstance(a, PokerSwap | SwapTrump)]
    if not moves:
        if view.seat == public.defender and public.taking:
            return "taking"
        return "not_your_turn"
    if view.seat == public.defender:
        return "does_not_beat"
    if any(isinstance(a, Throw) for a in moves):
        return "rank_not_on_table"
    return "not_playable"


def selectable(
    view: SeatView, selection: frozenset[Card], purpose: str = "lead"
) -> frozenset[Card]:
    """Cards that may be toggled given ``selection``: the selected ones, and those that with
    it are part of a legal lead of two or more cards (``purpose="lead"``) or of a legal poker
    swap (``purpose="swap"``)."""
    found = set(selection)
    for action in view.actions:
        if purpose == "swap":
            if isinstance(action, PokerSwap) and selection <= set(action.cards):
                found.update(action.cards)
        elif isinstance(action, Lead) and len(action.cards) > 1 and selection <= set(action.cards):
            found.update(action.cards)
    return frozenset(found & set(view.hand))


def to_action(callback: cb.HandCallback, seat: int) -> Action | None:
    """The engine action a hand button asks for, for the engine to judge. None for taps,
    selections, Cancel and Refresh: those are resolved with :func:`resolve_tap` or only
    redraw. A Play with suits lists its cards in ascending order, matching the suits."""
    match callback:
        case cb.Play(cards=cards, suits=suits):
            return Lead(seat, tuple(sorted(cards)), suits)
        case cb.CoverWith(card=card, attack=attack, suit=suit):
            return Cover(seat, attack, card, suit)
        case cb.Throw(card=card, suit=suit):
            return Throw(seat, card, suit)
        case cb.Take():
            return Take(seat)
        case cb.Pass():
            return Pass(seat)
        case cb.Transfer(card=card, suit=suit):
            return Transfer(seat, card, suit)
        case cb.ShowTrump(card=card):
            return ShowTrump(seat, card)
        case cb.SwapTrump(card=card):
            return SwapTrump(seat, card)
        case cb.PokerSwap(cards=cards):
            first, second = sorted(cards)
            return PokerSwap(seat, (first, second))
    return None


def play_callback(action: Lead, table: int, version: int) -> cb.Play:
    """The Play button for a legal lead, suits reordered to ascending card order."""
    suits = None
    if action.suits is not None:
        by_card = dict(zip(action.cards, action.suits, strict=True))
        suits = tuple(by_card[c] for c in sorted(action.cards))
    return cb.Play(table, version, frozenset(action.cards), suits)
