"""A player's private hand message: the table as he sees it, his cards as buttons, his moves.

Three modes, all drawn from the same :class:`engine.SeatView`:

- normal: every card is a :class:`~bot.service.callbacks.Tap` button (sorted, trumps last), then
  the moves open to him (Take, Pass / Бито, Transfer, Show trump, the swaps) and Refresh;
- a pending :class:`~bot.render.tap.Choice`: its options and Cancel;
- a selection (several cards to lead, or two to swap in poker): toggles (✅ marks the
  chosen), Play / Swap when the selection is legal, and Cancel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from bot.base.i18n import Lang, tr
from bot.service import callbacks as cb
from bot.service.reactions import EMOJI
from engine import Card, Rules, SeatView, Suit
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

from .common import (
    Button,
    Keyboard,
    Player,
    Screen,
    TableContext,
    card_list,
    card_text,
    chunk,
    esc,
    live_clock,
    name_of,
    short_name,
    suit_text,
)
from .events import event_lines
from .limits import EPHEMERAL_TEXT, cut_html, visible_length
from .table import bout_lines, fit, seat_lines, title_line, trump_line
from .tap import Choice, leads_of, play_callback, selectable

__all__ = [
    "CARDS_PER_ROW",
    "GROUP_HAND_MAX",
    "INERT",
    "hand_keyboard",
    "playable_cards",
    "prompt_lines",
    "render_group_hand",
    "render_hand",
]

CARDS_PER_ROW = 6


def _as(lang: Lang, card: Card, suit: int | None) -> str:
    """``6♠`` or, for a wild six taking a suit, ``6♠ as ♥``."""
    if suit is None:
        return card_text(card)
    return tr(lang, "hand.card_as", card=card_text(card), suit=suit_text(suit))


def _lead_label(lang: Lang, action: Lead) -> str:
    suits = action.suits or (None,) * len(action.cards)
    shown = " ".join(_as(lang, c, s) for c, s in zip(action.cards, suits, strict=True))
    key = "hand.btn.lead_alone" if len(action.cards) == 1 else "hand.btn.lead_cards"
    return tr(lang, key, cards=shown)


def prompt_lines(
    view: SeatView,
    players: Sequence[Player],
    lang: Lang,
    seconds: float | None,
    deadline: float | None = None,
) -> list[str]:
    """What the hand asks of its player now (his move, or whom he waits for), with the
    time left when the clock runs for him."""
    public = view.public
    me = view.seat
    if public.phase == "over":
        return [tr(lang, "hand.prompt.over")]
    if public.roles[me] == "out":
        return [tr(lang, "hand.prompt.out")]
    lines: list[str] = []
    acts = view.actions
    if me in public.to_act and acts:
        if public.phase == "lead":
            lines.append(tr(lang, "hand.prompt.lead", defender=name_of(players, public.defender)))
        elif me == public.defender:
            lines.append(tr(lang, "hand.prompt.defend"))
            transfers = sorted({a.card for a in acts if isinstance(a, Transfer | ShowTrump)})
            if transfers:
                lines.append(tr(lang, "hand.prompt.can_transfer", cards=card_list(transfers)))
        else:
            # a thrower with nothing that fits is offered Pass alone: only he knows why
            empty = not any(isinstance(a, Throw) for a in acts)
            if public.taking:
                key = "nothing_taking" if empty else "throw_taking"
                lines.append(tr(lang, f"hand.prompt.{key}", name=name_of(players, public.defender)))
            elif all(c is not None for _, c in public.table):
                lines.append(
                    tr(lang, "hand.prompt.nothing_done" if empty else "hand.prompt.throw_done")
                )
            else:
                lines.append(tr(lang, "hand.prompt.nothing" if empty else "hand.prompt.throw"))
        # The table's one clock runs for the waited-on seat, else for the throwers.
        mine = me in public.waiting_on or not public.waiting_on
        if seconds is not None and mine:
            lines.append(tr(lang, "hand.time_left", time=live_clock(lang, seconds, deadline)))
    elif me == public.defender and public.taking:
        lines.append(tr(lang, "hand.prompt.you_take"))
    else:
        names = ", ".join(name_of(players, s) for s in public.to_act) or "…"
        lines.append(tr(lang, "hand.prompt.wait", names=names))
    return lines


def _pass_label(view: SeatView, lang: Lang) -> str:
    public = view.public
    if not public.taking and all(c is not None for _, c in public.table):
        return tr(lang, "hand.btn.pass_done")
    return tr(lang, "hand.btn.pass")


def _action_button(action: Action, lang: Lang, ctx: TableContext) -> Button:
    """The button of one option of a choice."""
    t, v, codec = ctx.table_id, ctx.version, ctx.codec
    if isinstance(action, Cover):
        label = tr(
            lang,
            "hand.btn.cover",
            card=_as(lang, action.card, action.suit),
            attack=card_text(action.attack),
        )
        return Button.cb(label, codec, cb.CoverWith(t, v, action.card, action.attack, action.suit))
    if isinstance(action, Transfer):
        label = tr(lang, "hand.btn.transfer", card=_as(lang, action.card, action.suit))
        return Button.cb(label, codec, cb.Transfer(t, v, action.card, action.suit))
    if isinstance(action, ShowTrump):
        label = tr(lang, "hand.btn.show_trump", card=card_text(action.card))
        return Button.cb(label, codec, cb.ShowTrump(t, v, action.card))
    if isinstance(action, Throw):
        label = tr(lang, "hand.btn.throw", card=_as(lang, action.card, action.suit))
        return Button.cb(label, codec, cb.Throw(t, v, action.card, action.suit))
    if isinstance(action, Lead):
        return Button.cb(_lead_label(lang, action), codec, play_callback(action, t, v))
    raise ValueError(f"no choice button for {action!r}")


def _choice_keyboard(choice: Choice, lang: Lang, ctx: TableContext) -> Keyboard:
    t, v, codec = ctx.table_id, ctx.version, ctx.codec
    buttons = [_action_button(a, lang, ctx) for a in choice.actions]
    rows = chunk(buttons, 2 if choice.kind == "suit" else 1)
    if choice.select:
        choose = cb.Toggle(t, v, choice.card, frozenset(), "lead")
        rows.append((Button.cb(tr(lang, "hand.btn.choose"), codec, choose),))
    rows.append((Button.cb(tr(lang, "hand.btn.cancel"), codec, cb.Cancel(t, v)),))
    return Keyboard.of(rows)


def _selection_keyboard(
    view: SeatView, lang: Lang, ctx: TableContext, selection: frozenset[Card], purpose: str
) -> Keyboard:
    t, v, codec = ctx.table_id, ctx.version, ctx.codec
    allowed = selectable(view, selection, purpose)
    cards = [
        Button.cb(
            tr(lang, "hand.btn.selected", card=card_text(c)) if c in selection else card_text(c),
            codec,
            cb.Toggle(t, v, c, selection, purpose),
        )
        for group in suit_groups(view)
        for c in group
        if c in allowed
    ]
    rows = chunk(cards, CARDS_PER_ROW)
    bottom = []
    shown = card_list(c for c in view.hand if c in selection)
    if purpose == "swap":
        if any(isinstance(a, PokerSwap) and set(a.cards) == selection for a in view.actions):
            bottom.append(
                Button.cb(
                    tr(lang, "hand.btn.poker_swap_cards", cards=shown),
                    codec,
                    cb.PokerSwap(t, v, selection),
                )
            )
    elif selection and leads_of(view, selection):
        label = tr(lang, "hand.btn.play", cards=shown)
        bottom.append(Button.cb(label, codec, cb.Play(t, v, selection)))
    bottom.append(Button.cb(tr(lang, "hand.btn.cancel"), codec, cb.Cancel(t, v)))
    rows.append(tuple(bottom))
    return Keyboard.of(rows)


_SUIT_ORDER: Final = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)
"""Suits in the hand, black and red in turn; the trump suit goes last."""
_SUIT_PLACE: Final = {int(suit): place for place, suit in enumerate(_SUIT_ORDER)}
INERT: Final = "·{card}·"
"""How a card that cannot be played now is shown, when some card can."""


def suit_groups(view: SeatView) -> list[list[Card]]:
    """The hand grouped by suit (trumps last, jokers after them), low to high within."""
    trump = -1 if view.public.trump is None else int(view.public.trump)
    groups: dict[tuple[int, int], list[Card]] = {}
    # a card is the int rank * 4 + suit: in int order, low to high within a suit
    for card in sorted(view.hand):
        if card.is_joker:
            key = (2, 0)
        elif card & 3 == trump:
            key = (1, 0)
        else:
            key = (0, _SUIT_PLACE[card & 3])
        found = groups.get(key)
        if found is None:
            groups[key] = [card]
        else:
            found.append(card)
    return [groups[k] for k in sorted(groups)]


def playable_cards(view: SeatView) -> frozenset[Card]:
    """The cards some legal move of his plays now (a lead, a cover, a throw, a transfer)."""
    found: set[Card] = set()
    for action in view.actions:
        if isinstance(action, Lead):
            found.update(action.cards)
        elif isinstance(action, Throw | Transfer | Cover):
            found.add(action.card)
    return frozenset(found)


def _normal_keyboard(view: SeatView, lang: Lang, ctx: TableContext) -> Keyboard:
    t, v, codec = ctx.table_id, ctx.version, ctx.codec
    playable = playable_cards(view)
    # one pass over his moves for the buttons they need, in their order
    moves: list[Button] = []
    extra: list[Button] = []
    transfers: set[tuple[Card, bool]] = set()
    swap = several = False
    for action in view.actions:
        if type(action) is Lead:
            several = several or len(action.cards) > 1
        elif type(action) is Take:
            moves.append(Button.cb(tr(lang, "hand.btn.take"), codec, cb.Take(t, v), style="danger"))
        elif type(action) is Pass:
            label = _pass_label(view, lang)
            moves.append(Button.cb(label, codec, cb.Pass(t, v), style="success"))
        elif type(action) is Transfer:
            transfers.add((action.card, False))
        elif type(action) is ShowTrump:
            transfers.add((action.card, True))
        elif type(action) is SwapTrump:
            label = tr(
                lang,
                "hand.btn.swap_trump",
                card=card_text(action.card),
                turnup=card_text(view.public.trump_card) if view.public.trump_card else "?",
            )
            extra.append(Button.cb(label, codec, cb.SwapTrump(t, v, action.card)))
        elif type(action) is PokerSwap:
            swap = True
    tap = codec.taps(t, v)
    taps = []
    for group in suit_groups(view):  # suit by suit, in rows of CARDS_PER_ROW
        for c in group:
            label = card_text(c)
            if c in playable:
                taps.append(Button(label, data=tap(c)))  # a card's text always fits
                continue
            if playable:
                label = INERT.format(card=label)  # visibly inert beside the playable ones
            # it cannot go now: greyed, doing nothing (on an old server, it says why)
            taps.append(Button.off(label, codec, cb.Tap(t, v, c)))
    rows = chunk(taps, CARDS_PER_ROW)
    for card, show in sorted(transfers):
        # One button per card; a wild six's suit is asked for when it is tapped.
        if show:
            extra.append(
                Button.cb(
                    tr(lang, "hand.btn.show_trump", card=card_text(card)),
                    codec,
                    cb.ShowTrump(t, v, card),
                    style="primary",
                )
            )
        else:
            label = tr(lang, "hand.btn.transfer", card=card_text(card))
            transfer: cb.Callback = (
                cb.Tap(t, v, card) if _needs_suit(view, card) else cb.Transfer(t, v, card)
            )
            extra.append(Button.cb(label, codec, transfer, style="primary"))
    if several:
        extra.append(Button.cb(tr(lang, "hand.btn.lead_several"), codec, cb.Select(t, v, "lead")))
    if swap:
        extra.append(Button.cb(tr(lang, "hand.btn.poker_swap"), codec, cb.Select(t, v, "swap")))
    rows.append(tuple(moves))
    rows.extend(chunk(extra, 2))
    last = [Button.cb(tr(lang, "hand.btn.refresh"), codec, cb.Refresh(t, v))]
    if ctx.web_app_url:
        last.append(Button.app(tr(lang, "table.btn.open_app"), ctx.web_app_url))
    rows.append(tuple(last))
    return Keyboard.of(rows)


def _needs_suit(view: SeatView, card: Card) -> bool:
    return any(
        isinstance(a, Transfer) and a.card == card and a.suit is not None for a in view.actions
    )


def hand_keyboard(
    view: SeatView,
    lang: Lang,
    ctx: TableContext,
    *,
    choice: Choice | None = None,
    selection: frozenset[Card] | None = None,
    purpose: str = "lead",
) -> Keyboard | None:
    """The keyboard of :func:`render_hand` alone (None once the seat is out or the game
    over)."""
    public = view.public
    if public.phase == "over" or public.roles[view.seat] == "out":
        return None
    if choice is not None:
        return _choice_keyboard(choice, lang, ctx)
    if selection is not None:
        return _selection_keyboard(view, lang, ctx, selection, purpose)
    return _normal_keyboard(view, lang, ctx)


def _asks(
    view: SeatView,
    players: Sequence[Player],
    lang: Lang,
    ctx: TableContext,
    choice: Choice | None,
    selection: frozenset[Card] | None,
    purpose: str,
    *,
    gap: bool,
) -> list[str]:
    """A hand's lines below the table: how many cards he holds, what he may do now (with
    the clock), and the open choice or selection (after a blank line if ``gap``)."""
    lines = [tr(lang, "hand.count", n=len(view.hand))] if view.hand else []
    lines += prompt_lines(view, players, lang, ctx.seconds_left, ctx.deadline)
    public = view.public
    if public.phase == "over" or public.roles[view.seat] == "out":
        return lines
    before = [""] if gap else []
    if choice is not None:
        lines += [*before, tr(lang, f"hand.choice.{choice.kind}", card=card_text(choice.card))]
    elif selection is not None:
        shown = card_list(c for c in view.hand if c in selection) or "—"
        lines += [*before, tr(lang, f"hand.select.{purpose}", cards=shown)]
    return lines


def render_hand(
    view: SeatView,
    players: Sequence[Player],
    lang: Lang,
    ctx: TableContext,
    *,
    rules: Rules | None = None,
    choice: Choice | None = None,
    selection: frozenset[Card] | None = None,
    purpose: str = "lead",
    events_shown: int = 3,
) -> Screen:
    """The private hand message of ``view.seat``: text and keyboard (see the module doc).

    ``choice`` shows a pending :class:`Choice`; ``selection`` (possibly empty) shows the
    toggles of a selection for ``purpose`` (``lead`` or ``swap``)."""
    public = view.public
    head = [title_line(lang, rules, ctx.group_title), trump_line(public, lang)]
    sections = [head, seat_lines(public, players, lang, me=view.seat), bout_lines(public, lang)]
    footer = _asks(view, players, lang, ctx, choice, selection, purpose, gap=True)
    if ctx.reactions:
        said = ", ".join(f"{esc(short_name(name))}: {emoji}" for name, emoji in ctx.reactions)
        footer = [tr(lang, "hand.reactions", said=said), *footer]
    keyboard = hand_keyboard(view, lang, ctx, choice=choice, selection=selection, purpose=purpose)
    if ctx.react and choice is None and selection is None and public.phase != "over":
        row = [Button.cb(e, ctx.codec, cb.React(ctx.table_id, i)) for i, e in enumerate(EMOJI)]
        keyboard = Keyboard.of([*(keyboard.rows if keyboard is not None else ()), row])
    events = event_lines(ctx.events, players, lang, public.trump, limit=events_shown)
    text = fit(sections, events, tr(lang, "table.recent"), "\n".join(footer))
    return Screen(text, keyboard)


GROUP_HAND_MAX: Final = EPHEMERAL_TEXT
"""The longest text of an in-group hand (see :data:`bot.render.limits.EPHEMERAL_TEXT`)."""


def render_group_hand(
    view: SeatView,
    lang: Lang,
    ctx: TableContext,
    *,
    choice: Choice | None = None,
    selection: frozenset[Card] | None = None,
    purpose: str = "lead",
    players: Sequence[Player] = (),
    place: str | None = None,
) -> Screen:
    """The hand shown in the group to its holder alone (an ephemeral message). ``place``:
    where he chose to see it (``both``, ``group``), with the buttons that change it; None
    for a player the bot cannot write to in private. The table's
    message is right above it, so it shows what is his: the trump and the bout, his card
    count, what he may do now and the clock, and the same buttons, with the same callback
    data, as the private hand (without the Mini App's, which Telegram allows in private
    chats only). At most :data:`GROUP_HAND_MAX` characters."""
    public = view.public
    lines = [trump_line(public, lang), *bout_lines(public, lang), ""]
    lines += _asks(view, players, lang, ctx, choice, selection, purpose, gap=False)
    text = "\n".join(lines)
    if visible_length(text) > GROUP_HAND_MAX:
        text = "\n".join(lines[: 1 if public.table else 0] + lines[lines.index("") :])
    text = cut_html(text, GROUP_HAND_MAX)
    keyboard = hand_keyboard(
        view,
        lang,
        replace(ctx, web_app_url=None),
        choice=choice,
        selection=selection,
        purpose=purpose,
    )
    if keyboard is not None and place is not None and choice is None and selection is None:
        t, v, codec = ctx.table_id, ctx.version, ctx.codec
        if place == "group":
            row = [Button.cb(tr(lang, "hand.btn.also_private"), codec, cb.Place(t, v, "both"))]
        else:
            row = [
                Button.cb(tr(lang, "hand.btn.only_here"), codec, cb.Place(t, v, "group")),
                Button.cb(tr(lang, "hand.btn.hide_here"), codec, cb.Place(t, v, "private")),
            ]
        keyboard = Keyboard.of([*keyboard.rows, row])
    return Screen(text, keyboard)
