"""A finished game's replay: one message, stepped with ⏮ ◀ ▶ ⏭, every hand face up.

Each frame is the position after move ``step`` (0: the deal): the trump and the stock, every
seat with its cards, the bout on the table, and the move just made in words. The viewer's
moves that the coach marks carry its verdict; the deal carries the coach's summary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from bot.base.i18n import Lang, tr
from bot.service import callbacks as cb
from engine import Card, Event, PublicView, Rules, Suit
from engine.actions import (
    Action,
    Cover,
    Dealt,
    Lead,
    Pass,
    PokerSwap,
    ShowTrump,
    SwapTrump,
    Take,
    Throw,
    Transfer,
)
from engine.ai.coach import Mark

from .common import (
    Button,
    Keyboard,
    Player,
    Screen,
    card_list,
    card_text,
    name_of,
    named_card,
    named_cards,
)
from .events import event_lines
from .limits import fits
from .table import ROLE_ICONS, bout_lines, title_line, trump_line

__all__ = ["CoachNote", "ReplayFrame", "action_words", "render_replay", "replay_link"]


@dataclass(frozen=True, slots=True)
class CoachNote:
    """What the coach says about the viewer's moves: ``ready`` (with its marks),
    ``working`` (the analysis runs), or ``off`` (no coach for this game)."""

    state: Literal["ready", "working", "off"]
    marks: tuple[Mark, ...] = ()
    decisions: int = 0

    @property
    def biggest(self) -> Mark | None:
        """The mark with the largest drop."""
        return max(self.marks, key=lambda m: (m.drop, -m.move), default=None)


@dataclass(frozen=True, slots=True)
class ReplayFrame:
    """One position of a replay and what the renderer needs around it."""

    table_id: int
    game_no: int
    step: int
    """Moves made so far: 0 is the deal, ``total`` the end."""
    total: int
    public: PublicView
    hands: tuple[tuple[Card, ...], ...]
    """Every seat's cards, face up: the game is over."""
    events: tuple[Event, ...] = ()
    """What the last move caused (nothing at the deal)."""
    group_title: str = ""
    """The group's title (raw), or "" for a game against the computer."""
    viewer: int | None = None
    """The seat of whoever watches (his moves are the coach's subject)."""
    coach: CoachNote = field(default_factory=lambda: CoachNote("off"))
    codec: cb.CallbackCodec = field(default_factory=cb.CallbackCodec)


def replay_link(
    bot_username: str, table_id: int, game_no: int, codec: cb.CallbackCodec | None = None
) -> str:
    """``https://t.me/<bot>?start=<payload>``: opens the bot and the replay (for a player
    who never started it; usable as the ``url`` of ``answerCallbackQuery``)."""
    payload = (codec or cb.CallbackCodec()).replay_payload(table_id, game_no)
    return f"https://t.me/{bot_username}?start={payload}"


def action_words(action: Action, lang: Lang, declared: Mapping[Card, Suit] | None = None) -> str:
    """A move in words, as the coach suggests it: ``cover 7♠️ with 9♠️``, ``take``; a wild
    six as it is named in the move (``6♠️ (as ♣️)``). ``declared``: the suits the sixes on
    the table were named as (an attack card that is one)."""
    match action:
        case Lead(cards=cards, suits=suits):
            return tr(lang, "coach.act.lead", cards=named_cards(cards, suits, lang))
        case Throw(card=card, suit=suit):
            return tr(lang, "coach.act.throw", card=named_card(card, suit, lang))
        case Cover(attack=attack, card=card, suit=suit):
            named = (declared or {}).get(attack)
            return tr(
                lang,
                "coach.act.cover",
                attack=named_card(attack, named, lang),
                card=named_card(card, suit, lang),
            )
        case Take():
            return tr(lang, "coach.act.take")
        case Pass():
            return tr(lang, "coach.act.pass")
        case Transfer(card=card, suit=suit):
            return tr(lang, "coach.act.transfer", card=named_card(card, suit, lang))
        case ShowTrump(card=card):
            return tr(lang, "coach.act.show_trump", card=card_text(card))
        case SwapTrump(card=card):
            return tr(lang, "coach.act.swap_trump", card=card_text(card))
        case PokerSwap(cards=cards):
            return tr(lang, "coach.act.poker_swap", cards=card_list(cards))
    return tr(lang, "event.unknown")


def _percent(chance: float) -> str:
    return f"{round(chance * 100)}%"


def _verdict(
    mark: Mark, lang: Lang, *, summary: bool, declared: Mapping[Card, Suit] | None = None
) -> str:
    params = {
        "move": mark.move,
        "played": action_words(mark.played, lang, declared),
        "suggested": action_words(mark.suggested, lang, declared),
        "before": _percent(mark.before),
        "after": _percent(mark.after),
    }
    return tr(lang, "coach.biggest" if summary else "coach.mark", **params)


def _coach_lines(frame: ReplayFrame, lang: Lang) -> list[str]:
    note = frame.coach
    if frame.viewer is None or note.state == "off":
        return []
    if note.state == "working":
        return [tr(lang, "coach.working")] if frame.step == 0 else []
    if frame.step == 0:
        decisions = tr(lang, "coach.decisions", n=note.decisions)
        if not note.marks:
            return [tr(lang, "coach.clean", decisions=decisions)]
        lines = [tr(lang, "coach.summary", n=len(note.marks), decisions=decisions)]
        biggest = note.biggest
        if biggest is not None:
            lines.append(_verdict(biggest, lang, summary=True))
        return lines
    # the position right after the move: a wild six it covered is on the table still
    declared = dict(frame.public.declared)
    return [
        _verdict(m, lang, summary=False, declared=declared)
        for m in note.marks
        if m.move == frame.step
    ]


def _hand_lines(frame: ReplayFrame, players: Sequence[Player], lang: Lang) -> list[str]:
    view = frame.public
    places = {s: i + 1 for i, s in enumerate(view.finish_order)}
    lines = []
    for seat in range(view.players):
        role = view.roles[seat]
        name = name_of(players, seat)
        if seat == frame.viewer:
            name = tr(lang, "table.me", name=name)
        if role in ("attacker", "defender") and view.phase != "over":
            name = f"<b>{name}</b>"
        head = f"{ROLE_ICONS.get(role, '▫️')} {name}"
        cards = frame.hands[seat] if seat < len(frame.hands) else ()
        if cards:
            lines.append(f"{head}: {card_list(_ordered(cards, view.trump))}")
        elif role == "out" or seat in places:
            lines.append(f"{head} · {tr(lang, 'role.out', place=places.get(seat, 0))}")
        else:
            lines.append(f"{head}: —")
    return lines


def _ordered(cards: Sequence[Card], trump: Suit | None) -> list[Card]:
    """By suit, trumps last, jokers after them; low to high within a suit."""

    def key(card: Card) -> tuple[int, int, int]:
        if card.is_joker:
            return (2, 0, int(card))
        if trump is not None and card.suit == trump:
            return (1, 0, card >> 2)
        return (0, int(card.suit), card >> 2)

    return sorted(cards, key=key)


def _move_lines(frame: ReplayFrame, players: Sequence[Player], lang: Lang) -> list[str]:
    view = frame.public
    if frame.step == 0:
        first = view.attacker if view.attacker is not None else 0
        deal: tuple[Event, ...] = (Dealt(first, view.trump_card),)
        return [f"▶️ {line}" for line in event_lines(deal, players, lang, view.trump)]
    lines = event_lines(frame.events, players, lang, view.trump, limit=8)
    return [f"▶️ {line}" for line in lines]


def render_replay(
    frame: ReplayFrame, players: Sequence[Player], lang: Lang, rules: Rules | None = None
) -> Screen:
    """The replay message at ``frame.step``, with its step buttons (and a jump to the next
    move the coach marked, if any is ahead)."""
    view = frame.public
    where = frame.group_title or tr(lang, "solo.where")
    head = [
        tr(lang, "replay.title", where=title_line(lang, rules, where)),
        tr(lang, "replay.step", step=frame.step, total=frame.total)
        if frame.step
        else tr(lang, "replay.deal", n=frame.total),
        trump_line(view, lang),
    ]
    sections = [head, _hand_lines(frame, players, lang), bout_lines(view, lang)]
    sections.append(_move_lines(frame, players, lang))
    if frame.step == frame.total and view.result is not None:
        sections.append([tr(lang, "replay.end")])
    sections.append(_coach_lines(frame, lang))
    text = "\n\n".join("\n".join(s) for s in sections if s)
    while not fits(text) and len(sections[1]) > 0:
        sections[1] = sections[1][:-1]  # only a six-seat 54-card deal could get here
        text = "\n\n".join("\n".join(s) for s in sections if s)
    return Screen(text, _keyboard(frame, lang))


def _keyboard(frame: ReplayFrame, lang: Lang) -> Keyboard:
    t, g, codec, last = frame.table_id, frame.game_no, frame.codec, frame.total

    def to(label: str, step: int) -> Button:
        return Button.cb(label, codec, cb.ReplayStep(t, g, max(0, min(last, step))))

    rows: list[tuple[Button, ...]] = [
        (
            to("⏮", 0),
            to("◀️", frame.step - 1),
            to(f"{frame.step}/{last}", frame.step),
            to("▶️", frame.step + 1),
            to("⏭", last),
        )
    ]
    ahead = [m.move for m in frame.coach.marks if m.move > frame.step]
    if frame.coach.state == "ready" and ahead:
        rows.append((to(tr(lang, "coach.btn.next"), min(ahead)),))
    return Keyboard.of(rows)
