"""Small shared pieces of the renderers: screens, keyboards, players, cards, times.

Everything here is pure and immutable. Text is Telegram HTML: catalog text is trusted, and
anything a user typed (names, group titles) goes through :func:`esc` first.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Final, Literal

import regex  # type: ignore[import-untyped]

from bot.base.i18n import Lang, tr
from bot.service.callbacks import MAX_BYTES, Callback, CallbackCodec
from engine import Card, Event, Suit

from .limits import MAX_TEXT, units

__all__ = [
    "MAX_BUTTON_TEXT",
    "MAX_NAME",
    "MAX_TEXT",
    "Button",
    "Keyboard",
    "Player",
    "Screen",
    "TableContext",
    "card_list",
    "card_text",
    "chunk",
    "clock",
    "duration",
    "esc",
    "name_of",
    "named_card",
    "named_cards",
    "plain_clocks",
    "seconds_until",
    "short_name",
    "suit_text",
    "text_length",
]

MAX_BUTTON_TEXT: Final = 64
"""Our own cap on a button's label: longer ones are cut (Telegram shows little more)."""
MAX_NAME: Final = 24
"""Names are cut to this many characters (grapheme clusters) before escaping, and to
twice as many UTF-16 units, so that screens stay in bounds whatever the names."""
MAX_CLUSTER: Final = 16
"""UTF-16 units one character of a name may take: enough for the longest emoji (a flag
of a region, a family joined by zero-width joiners); a letter under dozens of combining
marks keeps its first few."""


def esc(text: str) -> str:
    """Escape user text for Telegram's HTML parse mode."""
    return html.escape(text, quote=False)


_GRAPHEME: Final = regex.compile(r"\X")


@lru_cache(maxsize=4096)  # the same few names are drawn again at every move
def short_name(name: str, limit: int = MAX_NAME, width: int | None = None) -> str:
    """``name`` cut to ``limit`` characters as a reader counts them (grapheme clusters:
    a flag, an emoji with its modifiers and joiners, a letter with its accents) and to
    ``width`` UTF-16 units (twice ``limit`` by default), with an ellipsis, blanks
    collapsed. A cluster is never split, except one longer than :data:`MAX_CLUSTER`."""
    name = " ".join(name.split()) or "?"
    width = 2 * limit if width is None else width
    if len(name) <= limit and 2 * len(name) <= width:
        return name  # few code points: few clusters, and few units
    clusters = [_clipped(c) for c in _GRAPHEME.findall(name)]
    whole = "".join(clusters)
    if len(clusters) <= limit and units(whole) <= width:
        return whole
    kept: list[str] = []
    used = units("…")
    for cluster in clusters[: limit - 1]:
        used += units(cluster)
        if used > width:
            break
        kept.append(cluster)
    return "".join(kept).rstrip() + "…"


def _clipped(cluster: str) -> str:
    """A cluster within :data:`MAX_CLUSTER` units: its first code points (no dangling
    joiner)."""
    if len(cluster) <= MAX_CLUSTER // 2 or units(cluster) <= MAX_CLUSTER:
        return cluster
    kept, used = [], 0
    for point in cluster:
        used += units(point)
        if used > MAX_CLUSTER:
            break
        kept.append(point)
    return "".join(kept).rstrip("\u200d")


def text_length(text: str) -> int:
    """Length in UTF-16 code units of the text as written (what Telegram limits is its
    length after parsing: :func:`~bot.render.limits.visible_length`)."""
    return units(text)


@dataclass(frozen=True, slots=True)
class Player:
    """Who sits at a seat, as the screens show him: a name, and a level if a computer."""

    name: str
    ai_level: int | None = None

    @property
    def is_ai(self) -> bool:
        """Whether this seat is a computer player."""
        return self.ai_level is not None


@lru_cache(maxsize=4096)
def _shown(name: str) -> str:
    return esc(short_name(name))


def name_of(players: Sequence[Player], seat: int | None) -> str:
    """The escaped, shortened display name of ``seat`` (computer players marked 🤖)."""
    if seat is None or not 0 <= seat < len(players):
        return "?"
    player = players[seat]
    shown = _shown(player.name)
    return f"🤖 {shown}" if player.is_ai else shown


# ---------------------------------------------------------------- cards and times


EMOJI: Final = "\ufe0f"
"""Variation selector 16: the suit symbols in their colour emoji form on every client
(without it some draw ♥ and ♦ as black text)."""
_JOKERS: Final = {True: "🃏🔴", False: "🃏⚫"}


def suit_text(suit: Suit | int) -> str:
    """A suit's symbol, in colour: ``♥️``."""
    return Suit(suit).symbol + EMOJI


def card_text(card: Card, declared: Mapping[Card, Suit] | None = None) -> str:
    """A card as it shows: ``10♥️``; a joker ``🃏🔴``; a wild six that took a suit
    ``6♠️→♥️`` (``declared``: the suits named for the sixes on the table)."""
    if declared is not None and card in declared:
        return _card_text(card) + "→" + suit_text(declared[card])
    text = _CARD_TEXTS.get(card)
    if text is None:
        text = _CARD_TEXTS[card] = _card_text(card)
    return text


_CARD_TEXTS: dict[Card, str] = {}
"""Each card's text, worked out once (a hand draws every card at every move)."""


def _card_text(card: Card) -> str:
    if card.is_joker:
        return _JOKERS[card.is_red]
    return f"{card.rank.label}{suit_text(card.suit)}"


def named_card(card: Card, suit: Suit | int | None, lang: Lang) -> str:
    """A card as it was laid, in a line that outlives the table: ``6♠️ (as ♣️)`` for a wild
    six named as another suit (``suit``), else the card alone."""
    if suit is None or card.is_joker or Suit(suit) == card.suit:
        return card_text(card)
    return tr(lang, "card.as_suit", card=card_text(card), suit=suit_text(suit))


def named_cards(
    cards: Sequence[Card], suits: Sequence[Suit | int | None] | None, lang: Lang
) -> str:
    """Cards as they were laid, separated by spaces (``suits``: card by card, the suit a
    wild six was named as, or None)."""
    if suits is None:
        return card_list(cards)
    return " ".join(named_card(c, s, lang) for c, s in zip(cards, suits, strict=True))


def card_list(cards: Iterable[Card], declared: Mapping[Card, Suit] | None = None) -> str:
    """Cards separated by spaces: ``7♠️ 7♥️``."""
    return " ".join(card_text(c, declared) for c in cards)


def clock(seconds: float) -> str:
    """Time left as ``1:45``, or ``2:05:00`` from an hour up (never negative)."""
    total = max(0, int(seconds + 0.999))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def live_clock(lang: Lang, seconds: float, deadline: float | None) -> str:
    """Time left that every client counts down by itself, in the reader's own words: a
    ``date_time`` entity, relative to the deadline ("in 2 minutes"), around the time left
    when drawn (what a client without such entities shows). No deadline: that text alone."""
    shown = tr(lang, "fmt.in", time=clock(seconds))
    if deadline is None:
        return shown
    return f'<tg-time unix="{int(deadline)}" format="r">{shown}</tg-time>'


_LIVE_CLOCK: Final = regex.compile(r"<tg-time\b[^>]*>(.*?)</tg-time>", regex.DOTALL)


def plain_clocks(text: str) -> str:
    """``text`` with every live clock as the plain time left it was drawn with: what
    :func:`live_clock` draws without a deadline, for a Bot API server older than the
    ``date_time`` entity (Bot API 9.5), which refuses the ``<tg-time>`` tag."""
    return str(_LIVE_CLOCK.sub(r"\1", text))


def duration(lang: Lang, seconds: int) -> str:
    """A setting's duration in words: ``30 s``, ``2 min``, ``1 h 30 min``."""
    if seconds < 60 or seconds % 60:
        return tr(lang, "fmt.seconds", n=seconds)
    minutes = seconds // 60
    if minutes < 60:
        return tr(lang, "fmt.minutes", n=minutes)
    hours, minutes = divmod(minutes, 60)
    if minutes:
        return tr(lang, "fmt.hours_minutes", h=hours, m=minutes)
    return tr(lang, "fmt.hours", n=hours)


def seconds_until(deadline: datetime | float | None, now: datetime | float) -> float | None:
    """Seconds from ``now`` to ``deadline`` (datetimes or Unix times), or None."""
    if deadline is None:
        return None
    end = deadline.timestamp() if isinstance(deadline, datetime) else float(deadline)
    start = now.timestamp() if isinstance(now, datetime) else float(now)
    return max(0.0, end - start)


# ---------------------------------------------------------------- keyboards


ButtonStyle = Literal["danger", "success", "primary"]
"""A button's colour (Bot API 9.4): red, green, blue."""


@dataclass(slots=True, unsafe_hash=True)
class Button:
    """One inline button: a label and one of callback data, a URL to open, or the URL of
    a Mini App to open in place (``web_app``: Telegram allows those in private chats
    only) — or none of them when ``disabled``: shown, greyed, doing nothing (Bot API 10.3,
    ``InlineKeyboardButton.disabled``). ``style`` colours it (Bot API 9.4: ``danger`` red,
    ``success`` green, ``primary`` blue); a client that knows neither field shows a plain
    button, and a disabled one still does nothing there, having nothing to send.

    A value, never changed once made; not a frozen dataclass only because a frozen one
    takes three times as long to make, and every move makes a score of buttons."""

    text: str
    data: str | None = None
    url: str | None = None
    web_app: str | None = None
    disabled: bool = False
    style: ButtonStyle | None = None
    otherwise: tuple[CallbackCodec, Callback] | None = None
    """What a disabled button does on a Bot API server older than 10.3, which knows no
    disabled buttons (pressed there, the bot says why the card cannot go): encoded only if
    such a server is met (:attr:`fallback`), not for every card of every hand."""

    def __post_init__(self) -> None:
        data = self.data
        actions = (data is not None) + (self.url is not None) + (self.web_app is not None)
        if actions != (0 if self.disabled else 1):
            raise ValueError(
                "a button has exactly one of data, url and web_app, or none when disabled"
            )
        text = self.text
        if not text or len(text) > MAX_BUTTON_TEXT:
            raise ValueError(f"button text must be 1-{MAX_BUTTON_TEXT} characters")
        # a character is at most four bytes: only long data is measured in bytes
        if data is not None and len(data) * 4 > MAX_BYTES and len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback_data over {MAX_BYTES} bytes: {data!r}")

    @property
    def fallback(self) -> str | None:
        """A disabled button's callback data for a server that knows no disabled buttons."""
        if self.otherwise is None:
            return None
        codec, callback = self.otherwise
        return codec.encode(callback)

    @classmethod
    def cb(
        cls,
        text: str,
        codec: CallbackCodec,
        callback: Callback,
        *,
        style: ButtonStyle | None = None,
    ) -> Button:
        """A callback button (the label is cut to fit)."""
        return cls(_label(text), data=codec.encode(callback), style=style)

    @classmethod
    def off(
        cls, text: str, codec: CallbackCodec | None = None, fallback: Callback | None = None
    ) -> Button:
        """A disabled button: shown, greyed, doing nothing (``fallback``: what it does on a
        server that knows no disabled buttons)."""
        otherwise = (codec, fallback) if codec is not None and fallback is not None else None
        return cls(_label(text), disabled=True, otherwise=otherwise)

    @classmethod
    def link(cls, text: str, url: str) -> Button:
        """A URL button."""
        return cls(_label(text), url=url)

    @classmethod
    def app(cls, text: str, url: str) -> Button:
        """A button that opens the Mini App at ``url`` in place (private chats only)."""
        return cls(_label(text), web_app=url)


def _label(text: str) -> str:
    return text if len(text) <= MAX_BUTTON_TEXT else text[: MAX_BUTTON_TEXT - 1] + "…"


@dataclass(frozen=True, slots=True)
class Keyboard:
    """Rows of buttons (Telegram's inline keyboard)."""

    rows: tuple[tuple[Button, ...], ...] = ()

    def __post_init__(self) -> None:
        if any(not row for row in self.rows):
            raise ValueError("a keyboard row cannot be empty")

    @classmethod
    def of(cls, rows: Iterable[Iterable[Button]]) -> Keyboard:
        """Build from any iterables, dropping empty rows."""
        return cls(tuple(t for t in (tuple(r) for r in rows) if t))

    def buttons(self) -> tuple[Button, ...]:
        """Every button, row by row."""
        return tuple(b for row in self.rows for b in row)

    def layout(self) -> str:
        """A plain picture of the keyboard, one line per row: ``[Take] [Pass]``."""
        return "\n".join(" ".join(f"[{b.text}]" for b in row) for row in self.rows)


@dataclass(frozen=True, slots=True)
class Screen:
    """A message: HTML text and an optional inline keyboard. Renderers keep the text
    within Telegram's limit once parsed (:func:`~bot.render.limits.fits`)."""

    text: str
    keyboard: Keyboard | None = None


def chunk(items: Sequence[Button], width: int) -> list[tuple[Button, ...]]:
    """Buttons in rows of ``width``, the last row shorter; rows balanced when they wrap."""
    if not items:
        return []
    rows = -(-len(items) // width)
    per = -(-len(items) // rows)
    return [tuple(items[i : i + per]) for i in range(0, len(items), per)]


# ---------------------------------------------------------------- context


@dataclass(slots=True, unsafe_hash=True)
class TableContext:
    """What a game screen needs besides the view (a value, never changed once made: not
    frozen only because a frozen one takes three times as long to make, once per screen).

    ``version`` goes into every button (a stale press is refused); ``seconds_left`` is the
    time until the table's deadline (see :func:`seconds_until`); ``events`` are the last
    engine events, oldest first; ``bot_username`` (without ``@``) adds a button that opens
    the private chat.
    """

    table_id: int
    version: int
    group_title: str = ""
    seconds_left: float | None = None
    events: tuple[Event, ...] = ()
    bot_username: str | None = None
    codec: CallbackCodec = field(default_factory=CallbackCodec)
    deadline: float | None = None
    """The deadline as a Unix time: the time left is drawn as a live clock."""
    open_url: str | None = None
    """The Mini App's direct link to this table (a group's table message links to it)."""
    web_app_url: str | None = None
    """The Mini App's URL for this table (a hand opens it in place)."""
    reactions: tuple[tuple[str, str], ...] = ()
    """The other players' quick reactions to show, as (first name, emoji) (a private
    table)."""
    react: bool = False
    """Whether the hand has the row of quick reactions (a private table's running game)."""
