"""The callback_data codec: typed, compact, versioned, length-checked, optionally signed.

Wire format (ASCII, at most 64 bytes, Telegram's limit)::

    1<kind>.<field>.<field>...[.<signature>]

- ``1`` is the format version; ``<kind>`` one character naming the dataclass.
- Integers (table id, state version, seat, level) are lowercase base 36, canonical (no
  leading zeros): a table id up to 2**40 takes 8 characters, a version up to 10**6 takes 4.
- A card is its two-letter code (``TH``, ``6S``); a set of cards is the base-36 bitmask
  ``sum(1 << card)`` over the engine's card codes (at most 12 characters, whatever the count).
- Tokens (settings pages, option and value names, languages) are ``[A-Za-z0-9_-]{1,16}``.
- A wild six's suit is one digit ``0``-``3`` (empty for none); a lead's suits are one such
  character per card, ``-`` for a card that names none (empty: no suits at all).
- With a key, the last field is a signature: an 8-byte keyed BLAKE2s of everything before
  it (its key derived from the codec's), base64url without padding (11 characters). A
  forged or mangled button is refused before any lookup. Buttons signed with the first 8
  bytes of HMAC-SHA256, as the bot signed them before, are still accepted.

Worst case, signed, with a 2**40 table id and a 10**6 version: ``SetOption`` with a
16-character option and a 16-character value is 2 + 9 + 5 + 17 + 17 + 12 = 62 bytes (the
settings menu uses 4-character options: 49); ``Play`` of any cards (the mask is at most 13
characters) with suits for five is 2 + 9 + 5 + 14 + 6 + 12 = 48; ``Toggle`` is
2 + 9 + 5 + 3 + 14 + 2 + 12 = 47. Encoding anything longer than 64 bytes raises
:class:`CallbackTooLong`; decoding anything malformed raises :class:`BadCallback`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from binascii import b2a_base64
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from hashlib import blake2s
from typing import Any, ClassVar, Final, TypeAlias

from bot.base.i18n import is_lang
from engine import Card
from engine.cards import card_from_code

__all__ = [
    "FORMAT",
    "MAX_BYTES",
    "AddAi",
    "AiMenu",
    "BadCallback",
    "Block",
    "Callback",
    "CallbackCodec",
    "CallbackTooLong",
    "Cancel",
    "CoverWith",
    "EndCallback",
    "HandCallback",
    "Invite",
    "Join",
    "Kick",
    "Leave",
    "Lobby",
    "LobbyCallback",
    "MyCards",
    "Option",
    "Pass",
    "Place",
    "Play",
    "PokerSwap",
    "Quick",
    "React",
    "Refresh",
    "Rematch",
    "ReplayCallback",
    "ReplayOpen",
    "ReplayStep",
    "Select",
    "SetLang",
    "SetOption",
    "Settings",
    "ShowTrump",
    "SoloSetup",
    "Start",
    "SwapTrump",
    "Take",
    "Tap",
    "Throw",
    "Toggle",
    "Top",
    "TourneyGames",
    "Transfer",
    "decode",
    "encode",
    "is_token",
    "toggled",
]

FORMAT: Final = "1"
MAX_BYTES: Final = 64
SIG_BYTES: Final = 8
_SIG_CHARS: Final = 11  # base64url of 8 bytes, no padding
_TOKEN_MAX: Final = 16

_INT_RE: Final = re.compile(r"0|[1-9a-z][0-9a-z]{0,15}")
_TOKEN_RE: Final = re.compile(rf"[A-Za-z0-9_-]{{1,{_TOKEN_MAX}}}")
_SIG_RE: Final = re.compile(rf"[A-Za-z0-9_-]{{{_SIG_CHARS}}}")
_DIGITS: Final = "0123456789abcdefghijklmnopqrstuvwxyz"


class BadCallback(ValueError):
    """callback_data that is not ours: malformed, unknown kind or version, or forged.

    ``reason`` is one of ``type``, ``length``, ``format``, ``kind``, ``field``,
    ``signature``.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


class CallbackTooLong(ValueError):
    """An encoded callback would exceed Telegram's 64 bytes."""


# ---------------------------------------------------------------- field codecs


_B36_MEMO: Final[dict[int, str]] = {}
"""Base 36 of the integers met lately: a table's id and version go into every button of
every redraw of it."""
_B36_MEMO_SIZE: Final = 8192


def _b36(n: int) -> str:
    text = _B36_MEMO.get(n)
    if text is not None:
        return text
    if n == 0:
        return "0"
    out = []
    m = n
    while m:
        m, r = divmod(m, 36)
        out.append(_DIGITS[r])
    text = "".join(reversed(out))
    if len(_B36_MEMO) >= _B36_MEMO_SIZE:
        _B36_MEMO.clear()
    _B36_MEMO[n] = text
    return text


def _enc_int(value: object) -> str:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"expected a non-negative int, got {value!r}")
    return _b36(value)


def _dec_int(text: str) -> int:
    if not _INT_RE.fullmatch(text):
        raise BadCallback("field", f"not a base-36 integer: {text!r}")
    return int(text, 36)


def _enc_card(value: object) -> str:
    if not isinstance(value, Card):
        raise ValueError(f"expected a Card, got {value!r}")
    return value.code


def _dec_card(text: str) -> Card:
    try:
        card = card_from_code(text)
    except ValueError:
        raise BadCallback("field", f"not a card: {text!r}") from None
    if card.code != text:
        raise BadCallback("field", f"not a canonical card code: {text!r}")
    return card


def _enc_cards(value: object) -> str:
    if not isinstance(value, frozenset) or not all(isinstance(c, Card) for c in value):
        raise ValueError(f"expected a frozenset of cards, got {value!r}")
    mask = 0
    for card in value:
        mask |= 1 << int(card)
    return _b36(mask)


def _dec_cards(text: str) -> frozenset[Card]:
    mask = _dec_int(text)
    cards = []
    bit = 0
    while mask:
        if mask & 1:
            try:
                cards.append(Card(bit))
            except ValueError:
                raise BadCallback("field", f"no card {bit} in the set {text!r}") from None
        mask >>= 1
        bit += 1
    return frozenset(cards)


def _enc_token(value: object) -> str:
    if not isinstance(value, str) or not _TOKEN_RE.fullmatch(value):
        raise ValueError(f"a token is 1-{_TOKEN_MAX} of [A-Za-z0-9_-], got {value!r}")
    return value


def is_token(text: str) -> bool:
    """Whether ``text`` can be a token field (``[A-Za-z0-9_-]``, 1-16 characters)."""
    return bool(_TOKEN_RE.fullmatch(text))


def _dec_token(text: str) -> str:
    if not _TOKEN_RE.fullmatch(text):
        raise BadCallback("field", f"not a token: {text!r}")
    return text


def _enc_suit(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3:
        raise ValueError(f"a suit is 0-3 or None, got {value!r}")
    return str(value)


def _dec_suit(text: str) -> int | None:
    if text == "":
        return None
    if len(text) != 1 or text not in "0123":
        raise BadCallback("field", f"not a suit: {text!r}")
    return int(text)


def _enc_suits(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, tuple) or not value:
        raise ValueError(f"suits are a non-empty tuple or None, got {value!r}")
    return "".join("-" if v is None else _enc_suit(v) for v in value)


def _dec_suits(text: str) -> tuple[int | None, ...] | None:
    if text == "":
        return None
    if len(text) > 13 or any(ch not in "0123-" for ch in text):
        raise BadCallback("field", f"not a list of suits: {text!r}")
    return tuple(None if ch == "-" else int(ch) for ch in text)


_PURPOSES: Final[dict[str, str]] = {"lead": "l", "swap": "s"}


def _enc_purpose(value: object) -> str:
    if value not in _PURPOSES:
        raise ValueError(f"a selection is for {' or '.join(_PURPOSES)}, got {value!r}")
    return _PURPOSES[str(value)]


def _dec_purpose(text: str) -> str:
    for purpose, code in _PURPOSES.items():
        if code == text:
            return purpose
    raise BadCallback("field", f"not a selection purpose: {text!r}")


def _enc_page(value: object) -> str:
    return "" if value == "" else _enc_token(value)


def _dec_page(text: str) -> str:
    return "" if text == "" else _dec_token(text)


_Codec: TypeAlias = tuple[Callable[[object], str], Callable[[str], Any]]
_CODECS: Final[dict[str, _Codec]] = {
    "int": (_enc_int, _dec_int),
    "card": (_enc_card, _dec_card),
    "cards": (_enc_cards, _dec_cards),
    "token": (_enc_token, _dec_token),
    "page": (_enc_page, _dec_page),  # a token, or "" for the root settings page
    "suit": (_enc_suit, _dec_suit),  # a wild six's suit: "" (none) or 0-3
    "suits": (_enc_suits, _dec_suits),  # per card of a lead, in card order: 0-3 or "-"
    "purpose": (_enc_purpose, _dec_purpose),  # what a selection is for: l(ead) or s(wap)
}


# ---------------------------------------------------------------- the kinds


@dataclass(frozen=True, slots=True)
class _TableButton:
    """A button drawn for ``table`` at state ``version`` (stale if the table moved on)."""

    table: int
    version: int

    KIND: ClassVar[str] = ""
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int")


# Lobby (group) --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Join(_TableButton):
    """Sit down at the table."""

    KIND: ClassVar[str] = "j"


@dataclass(frozen=True, slots=True)
class Leave(_TableButton):
    """Stand up from the table."""

    KIND: ClassVar[str] = "l"


@dataclass(frozen=True, slots=True)
class Start(_TableButton):
    """Start the game."""

    KIND: ClassVar[str] = "s"


@dataclass(frozen=True, slots=True)
class Lobby(_TableButton):
    """Show the lobby again (back from settings or the computer-player menu)."""

    KIND: ClassVar[str] = "y"


@dataclass(frozen=True, slots=True)
class AiMenu(_TableButton):
    """Open the menu of computer-player levels."""

    KIND: ClassVar[str] = "a"


@dataclass(frozen=True, slots=True)
class AddAi(_TableButton):
    """Seat a computer player of ``level``."""

    level: int
    KIND: ClassVar[str] = "b"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "int")


@dataclass(frozen=True, slots=True)
class Kick(_TableButton):
    """Remove whoever sits at ``seat``."""

    seat: int
    KIND: ClassVar[str] = "k"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "int")


@dataclass(frozen=True, slots=True)
class Settings(_TableButton):
    """Show a settings page: ``""`` the root, else a group of options."""

    page: str = ""
    KIND: ClassVar[str] = "g"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "page")


@dataclass(frozen=True, slots=True)
class Option(_TableButton):
    """Show the values of one option (``option`` is the settings module's token)."""

    option: str
    KIND: ClassVar[str] = "o"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "token")


@dataclass(frozen=True, slots=True)
class SetOption(_TableButton):
    """Set ``option`` to ``value`` (tokens of the settings module)."""

    option: str
    value: str
    KIND: ClassVar[str] = "v"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "token", "token")


# Hand (private) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tap(_TableButton):
    """A card was tapped: the bot does the obvious legal thing, or asks."""

    card: Card
    KIND: ClassVar[str] = "t"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "card")


@dataclass(frozen=True, slots=True)
class Select(_TableButton):
    """Start an empty multi-card selection for ``purpose``: ``lead`` or ``swap`` (poker)."""

    purpose: str = "lead"
    KIND: ClassVar[str] = "e"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "purpose")


@dataclass(frozen=True, slots=True)
class Toggle(_TableButton):
    """Toggle ``card`` in a multi-card selection that was ``selection`` when drawn;
    ``purpose`` is ``lead`` (a multi-card lead or a set) or ``swap`` (a poker swap)."""

    card: Card
    selection: frozenset[Card]
    purpose: str = "lead"
    KIND: ClassVar[str] = "x"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "card", "cards", "purpose")


@dataclass(frozen=True, slots=True)
class Play(_TableButton):
    """Lead ``cards`` (one card, several of one rank, or a prostoy5 set). ``suits`` names,
    for wild sixes, the suit of each card in ascending card order (None for the others)."""

    cards: frozenset[Card]
    suits: tuple[int | None, ...] | None = None
    KIND: ClassVar[str] = "p"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "cards", "suits")

    def __post_init__(self) -> None:
        if not self.cards:
            raise ValueError("a lead needs cards")
        if self.suits is not None and len(self.suits) != len(self.cards):
            raise ValueError("one suit (or None) per card")


@dataclass(frozen=True, slots=True)
class CoverWith(_TableButton):
    """Cover the attack card ``attack`` with ``card`` (``suit``: a wild six's suit)."""

    card: Card
    attack: Card
    suit: int | None = None
    KIND: ClassVar[str] = "c"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "card", "card", "suit")


@dataclass(frozen=True, slots=True)
class Throw(_TableButton):
    """Throw ``card`` in (``suit``: a wild six's suit). A plain tap does this too."""

    card: Card
    suit: int | None = None
    KIND: ClassVar[str] = "i"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "card", "suit")


@dataclass(frozen=True, slots=True)
class Take(_TableButton):
    """The defender takes."""

    KIND: ClassVar[str] = "q"


@dataclass(frozen=True, slots=True)
class Pass(_TableButton):
    """Nothing (more) to throw in: "бито" or pass."""

    KIND: ClassVar[str] = "n"


@dataclass(frozen=True, slots=True)
class Transfer(_TableButton):
    """Transfer the attack by laying ``card`` (``suit``: a wild six's suit)."""

    card: Card
    suit: int | None = None
    KIND: ClassVar[str] = "r"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "card", "suit")


@dataclass(frozen=True, slots=True)
class ShowTrump(_TableButton):
    """Transfer by showing the trump ``card`` (proezdnoy)."""

    card: Card
    KIND: ClassVar[str] = "h"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "card")


@dataclass(frozen=True, slots=True)
class SwapTrump(_TableButton):
    """Prostoy5: swap the lowest trump ``card`` for the face-up trump."""

    card: Card
    KIND: ClassVar[str] = "z"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "card")


@dataclass(frozen=True, slots=True)
class PokerSwap(_TableButton):
    """Poker: swap these two hand cards for the top two of the stock."""

    cards: frozenset[Card]
    KIND: ClassVar[str] = "d"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "cards")

    def __post_init__(self) -> None:
        if len(self.cards) != 2:
            raise ValueError("a poker swap is two cards")


@dataclass(frozen=True, slots=True)
class Cancel(_TableButton):
    """Drop the pending choice or selection and show the hand again."""

    KIND: ClassVar[str] = "u"


@dataclass(frozen=True, slots=True)
class Refresh(_TableButton):
    """Redraw the hand message."""

    KIND: ClassVar[str] = "f"


@dataclass(frozen=True, slots=True)
class MyCards(_TableButton):
    """Show the presser his hand in the group, to him alone (an ephemeral message)."""

    KIND: ClassVar[str] = "H"


@dataclass(frozen=True, slots=True)
class Place(_TableButton):
    """Where the presser's hand is drawn: ``group`` (in the group alone), ``both`` (and in
    private), ``private`` (no longer in the group)."""

    place: str
    KIND: ClassVar[str] = "P"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "token")


# End (group) ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rematch(_TableButton):
    """Play again with the same seats and rules."""

    KIND: ClassVar[str] = "m"


@dataclass(frozen=True, slots=True)
class ReplayOpen:
    """Open the replay of game ``game`` of ``table`` in the presser's private chat."""

    table: int
    game: int
    KIND: ClassVar[str] = "R"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int")


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """Show position ``step`` of a replay (0: the deal; n: after the n-th move) in the
    message pressed. It holds no state of its own, so it works for ever."""

    table: int
    game: int
    step: int
    KIND: ClassVar[str] = "F"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "int")


@dataclass(frozen=True, slots=True)
class TourneyGames(_TableButton):
    """A tournament's sign-up: play ``games`` games (one of 3, 5, 7, 10)."""

    games: int
    KIND: ClassVar[str] = "G"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "int")


# Solo (private) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SoloSetup(_TableButton):
    """A game against the computer: ``count`` opponents of level ``level`` (0 easy,
    1 normal, 2 hard)."""

    count: int
    level: int
    KIND: ClassVar[str] = "w"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "int", "int")


# Private tables and quick games --------------------------------------


@dataclass(frozen=True, slots=True)
class React:
    """A quick reaction at a private table: emoji number ``emoji`` of the row, shown to the
    other players."""

    table: int
    emoji: int
    KIND: ClassVar[str] = "E"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int")


@dataclass(frozen=True, slots=True)
class Block:
    """After game ``game`` of a private table: never be paired with seat ``seat`` again."""

    table: int
    game: int
    seat: int
    KIND: ClassVar[str] = "B"
    SPEC: ClassVar[tuple[str, ...]] = ("int", "int", "int")


@dataclass(frozen=True, slots=True)
class Invite:
    """A button of an invitation posted through inline mode: ``join``, ``leave``, ``start``
    or ``again`` (a rematch). The message names no table (Telegram tells the bot nothing
    when an inline result is chosen): the buttons carry what the invitation is —
    ``game`` for ``size`` players, from user ``inviter`` — and the table is the one its
    first press opens."""

    action: str
    game: str
    size: int
    inviter: int
    lang: str
    """The language the invitation is drawn in (its inviter's)."""
    KIND: ClassVar[str] = "I"
    SPEC: ClassVar[tuple[str, ...]] = ("token", "token", "int", "int", "token")


@dataclass(frozen=True, slots=True)
class Quick:
    """The quick game's queue: ``go`` (join it), ``cancel`` (leave it), ``computer`` (leave
    it for a game against the computer), ``wait`` (keep waiting)."""

    action: str
    KIND: ClassVar[str] = "Q"
    SPEC: ClassVar[tuple[str, ...]] = ("token",)


@dataclass(frozen=True, slots=True)
class Top:
    """/top's other view: ``season`` (this month's) or ``all`` (all time)."""

    view: str
    KIND: ClassVar[str] = "T"
    SPEC: ClassVar[tuple[str, ...]] = ("token",)


# Chat-level -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetLang:
    """Choose the language (of the user in private, of the group in a group): one the bot
    speaks, so a forged or outdated code is refused like any malformed button."""

    lang: str
    KIND: ClassVar[str] = "L"
    SPEC: ClassVar[tuple[str, ...]] = ("token",)

    def __post_init__(self) -> None:
        if not is_lang(self.lang):
            raise ValueError(f"not a language the bot speaks: {self.lang!r}")


LobbyCallback: TypeAlias = (
    Join
    | Leave
    | Start
    | Lobby
    | AiMenu
    | AddAi
    | Kick
    | Settings
    | Option
    | SetOption
    | SoloSetup
    | TourneyGames
)
HandCallback: TypeAlias = (
    Tap
    | Select
    | Toggle
    | Play
    | CoverWith
    | Throw
    | Take
    | Pass
    | Transfer
    | ShowTrump
    | SwapTrump
    | PokerSwap
    | Cancel
    | Refresh
)
EndCallback: TypeAlias = Rematch
ReplayCallback: TypeAlias = ReplayOpen | ReplayStep
Callback: TypeAlias = (
    LobbyCallback
    | HandCallback
    | MyCards
    | Place
    | EndCallback
    | ReplayCallback
    | SetLang
    | React
    | Block
    | Quick
    | Invite
    | Top
)

_KINDS: Final[tuple[type[Callback], ...]] = (
    Join,
    Leave,
    Start,
    Lobby,
    AiMenu,
    AddAi,
    Kick,
    Settings,
    Option,
    SetOption,
    Tap,
    Select,
    Toggle,
    Play,
    CoverWith,
    Throw,
    Take,
    Pass,
    Transfer,
    ShowTrump,
    SwapTrump,
    PokerSwap,
    Cancel,
    Refresh,
    MyCards,
    Place,
    Rematch,
    ReplayOpen,
    ReplayStep,
    SoloSetup,
    SetLang,
    React,
    Block,
    Quick,
    Invite,
    Top,
    TourneyGames,
)
_BY_KIND: Final[dict[str, type[Callback]]] = {k.KIND: k for k in _KINDS}
assert len(_BY_KIND) == len(_KINDS), "callback kinds must be distinct"
_Encoders: TypeAlias = tuple[str, tuple[tuple[str, Callable[[object], str]], ...]]
_ENCODERS: Final[dict[type[Callback], _Encoders]] = {
    k: (
        FORMAT + k.KIND,
        tuple(
            (field.name, _CODECS[spec][0]) for spec, field in zip(k.SPEC, fields(k), strict=True)
        ),
    )
    for k in _KINDS
}
"""Each kind's head and (field name, encoder) pairs, worked out once: a redraw encodes
dozens of buttons."""


def toggled(selection: Iterable[Card], card: Card) -> frozenset[Card]:
    """The selection after toggling ``card``."""
    return frozenset(selection).symmetric_difference((card,))


# ---------------------------------------------------------------- the codec

READ_REMEMBERED: Final = 64
"""How many pieces of data read (and checked) a codec remembers."""


def _sig_text(digest: bytes) -> str:
    """A signature's 8 bytes as they go into callback_data: base64url, no padding."""
    return b2a_base64(digest, newline=False).translate(_URLSAFE).rstrip(b"=").decode("ascii")


_URLSAFE: Final = bytes.maketrans(b"+/", b"-_")
"""base64 to base64url (what ``base64.urlsafe_b64encode`` does, without its two calls)."""


class CallbackCodec:
    """Encodes and decodes callback_data; signs and checks it when built with a ``key``."""

    __slots__ = ("_key", "_mac", "_read")

    def __init__(self, key: bytes | None = None) -> None:
        if key is not None and len(key) < 16:
            raise ValueError("an HMAC key should be at least 16 bytes")
        self._key = key
        mac_key = hashlib.sha256(b"callback_data " + key).digest() if key else b""
        self._mac = blake2s(key=mac_key, digest_size=SIG_BYTES)
        """BLAKE2s keyed with a key derived from ``key`` (at most 32 bytes), copied for
        each signature: the key's block is hashed once, not at every button."""
        self._read: dict[str, Callback] = {}
        """The data read last, checked (a press is read twice: to know its table's
        order, then by its handler)."""

    @property
    def signed(self) -> bool:
        """Whether this codec signs and requires signatures."""
        return self._key is not None

    def _sign(self, payload: str) -> str:
        """The payload's signature: keyed BLAKE2s, a MAC by design and a third of
        HMAC-SHA256's cost (a hand's every button is signed at every move)."""
        mac = self._mac.copy()
        mac.update(payload.encode("ascii"))
        return _sig_text(mac.digest())

    def _signed_before(self, payload: str) -> str:
        """The signature buttons had before BLAKE2s (HMAC-SHA256): a button drawn by the
        previous version of the bot still works after an upgrade."""
        assert self._key is not None
        return _sig_text(hmac.digest(self._key, payload.encode("ascii"), "sha256")[:SIG_BYTES])

    def encode(self, callback: Callback) -> str:
        """The callback_data of ``callback``; ``CallbackTooLong`` over 64 bytes,
        ``ValueError`` for a field out of range."""
        kind = type(callback)
        known = _ENCODERS.get(kind)
        if known is None:
            raise ValueError(f"not a callback: {callback!r}")
        head, encoders = known
        parts = [head]
        for name, encode in encoders:
            try:
                parts.append(encode(getattr(callback, name)))
            except ValueError as exc:
                raise ValueError(f"{kind.__name__}.{name}: {exc}") from None
        payload = ".".join(parts)
        if self._key is not None:
            payload = f"{payload}.{self._sign(payload)}"
        if len(payload) > MAX_BYTES:
            raise CallbackTooLong(f"{len(payload)} bytes > {MAX_BYTES}: {payload}")
        return payload

    def taps(self, table: int, version: int) -> Callable[[Card], str]:
        """The callback data of :class:`Tap` (``table``, ``version``, card) for each card of
        a hand: what :meth:`encode` gives, with the part every card shares worked out once."""
        if table < 0 or version < 0:
            raise ValueError("a table and a version are non-negative")
        prefix = f"{FORMAT}{Tap.KIND}.{_b36(table)}.{_b36(version)}."
        key = self._key

        def tap(card: Card) -> str:
            payload = prefix + card.code
            if key is not None:
                payload = f"{payload}.{self._sign(payload)}"
            if len(payload) > MAX_BYTES:
                raise CallbackTooLong(f"{len(payload)} bytes > {MAX_BYTES}: {payload}")
            return payload

        return tap

    def decode(self, data: object, *, verify: bool = True) -> Callback:
        """The callback that ``data`` encodes; ``BadCallback`` on anything else.
        ``verify=False`` skips the signature's check, for data this codec has just encoded
        itself (never for data that came from outside)."""
        if isinstance(data, str):
            known = self._read.get(data)
            if known is not None:
                return known
            found = self._decode(data, verify)
            if verify:
                if len(self._read) >= READ_REMEMBERED:
                    self._read.clear()
                self._read[data] = found
            return found
        return self._decode(data, verify)

    def _decode(self, data: object, verify: bool) -> Callback:
        if isinstance(data, bytes | bytearray):
            try:
                data = bytes(data).decode("ascii")
            except UnicodeDecodeError:
                raise BadCallback("format", "not ASCII") from None
        if not isinstance(data, str):
            raise BadCallback("type", type(data).__name__)
        if len(data) > MAX_BYTES:
            raise BadCallback("length", f"{len(data)} characters")
        if not data.isascii():
            raise BadCallback("format", "not ASCII")
        parts = data.split(".")
        head = parts[0]
        if len(head) != 2 or head[0] != FORMAT:
            raise BadCallback("format", f"unknown format {head[:2]!r}")
        kind = _BY_KIND.get(head[1])
        if kind is None:
            raise BadCallback("kind", f"unknown kind {head[1]!r}")
        if self._key is not None:
            if len(parts) < 2 or not _SIG_RE.fullmatch(parts[-1]):
                raise BadCallback("signature", "missing")
            payload = data[: -len(parts[-1]) - 1]
            if (
                verify
                and not hmac.compare_digest(self._sign(payload), parts[-1])
                and not hmac.compare_digest(self._signed_before(payload), parts[-1])
            ):
                raise BadCallback("signature", "does not match")
            parts = parts[:-1]
        values = parts[1:]
        if len(values) != len(kind.SPEC):
            raise BadCallback("field", f"{kind.__name__} takes {len(kind.SPEC)} fields")
        decoded = [_CODECS[spec][1](text) for spec, text in zip(kind.SPEC, values, strict=True)]
        try:
            return kind(*decoded)
        except (TypeError, ValueError) as exc:
            raise BadCallback("field", str(exc)) from None

    def _payload(self, body: str) -> str:
        if self._key is not None:
            digest = hmac.new(self._key, body.encode("ascii"), hashlib.sha256).digest()
            body = f"{body}_{digest[:SIG_BYTES].hex()}"
        return body

    def _payload_body(self, payload: object, prefix: str) -> str:
        """The body of a /start payload of ours that starts with ``prefix``, its signature
        checked; ``BadCallback`` otherwise."""
        if not isinstance(payload, str) or len(payload) > 64 or not payload.isascii():
            raise BadCallback("format", "not a start payload")
        body, _, sig = payload.partition("_")
        if not body.startswith(prefix):
            raise BadCallback("kind", f"not a {prefix!r} payload")
        if self._key is not None:
            digest = hmac.new(self._key, body.encode("ascii"), hashlib.sha256).digest()
            if not hmac.compare_digest(digest[:SIG_BYTES].hex(), sig):
                raise BadCallback("signature", "does not match")
        elif sig:
            raise BadCallback("format", "unexpected signature")
        return body[len(prefix) :]

    def join_payload(self, table: int) -> str:
        """A /start deep-link payload that seats its user at ``table`` (``[A-Za-z0-9_]``)."""
        return self._payload("j" + _enc_int(table))

    def parse_join_payload(self, payload: object) -> int:
        """The table a /start payload names; ``BadCallback`` if it is not one of ours."""
        return _dec_int(self._payload_body(payload, "j"))

    def replay_payload(self, table: int, game: int) -> str:
        """A /start deep-link payload that opens the replay of ``game`` of ``table``
        (``[A-Za-z0-9_-]``, as Telegram allows)."""
        return self._payload(f"r{_enc_int(table)}-{_enc_int(game)}")

    def parse_replay_payload(self, payload: object) -> tuple[int, int]:
        """The (table, game) a replay payload names; ``BadCallback`` if not one of ours."""
        table, sep, game = self._payload_body(payload, "r").partition("-")
        if not sep:
            raise BadCallback("field", "not a replay payload")
        return _dec_int(table), _dec_int(game)


_PLAIN: Final = CallbackCodec()


def encode(callback: Callback) -> str:
    """Encode without a signature (see :class:`CallbackCodec` for signed data)."""
    return _PLAIN.encode(callback)


def decode(data: object) -> Callback:
    """Decode unsigned data; ``BadCallback`` on anything malformed."""
    return _PLAIN.decode(data)
