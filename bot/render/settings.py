"""Settings menus over every option of :class:`engine.Rules`, read from ``Rules.model_fields``.

Each option gets a short stable *token* for callback data (4 base-36 characters of a hash
of its field name, so adding a field never shifts the others), and each value a token
(``1``/``0`` for booleans, ``-`` for None, the number or the literal itself). The menus
offer only values that give valid ``Rules``: a change may reset *later* options (in field
order) that it conflicts with — choosing podkidnoy turns proezdnoy off, lowering the bout
limit lowers the first-bout limit — but never earlier ones. Options that do not apply to the
current game (transfer options outside perevodnoy) or that have no other valid value are
not shown.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations
from types import NoneType, UnionType
from typing import Any, Final, Literal, TypeAlias, Union, get_args, get_origin

from annotated_types import Ge, Le
from pydantic import ValidationError

from bot.base.i18n import Lang, has_key, tr
from bot.service import callbacks as cb
from engine import Rules

from .common import duration

__all__ = [
    "GROUPS",
    "Offer",
    "OptionSpec",
    "SettingError",
    "Value",
    "apply_setting",
    "member_desc",
    "offers",
    "option_by_name",
    "option_by_token",
    "option_desc",
    "option_name",
    "options",
    "toggle_token",
    "valid_values",
    "value_label",
    "value_token",
    "visible_options",
    "with_value",
]

Value: TypeAlias = str | int | bool | tuple[str, ...] | None

GROUPS: Final[tuple[str, ...]] = (
    "game",
    "variants",
    "transfer",
    "limits",
    "order",
    "time",
    "other",
)
"""Settings pages, in menu order; ``other`` collects options this module does not know."""

_GROUP_OF: Final[dict[str, str]] = {
    "game": "game",
    "modifiers": "variants",
    "deck_size": "game",
    "hand_size": "game",
    "teams": "game",
    "multi_card_lead": "game",
    "no_transfer_first_bout": "transfer",
    "no_transfer_with_trump_on_table": "transfer",
    "proezdnoy": "transfer",
    "bout_limit": "limits",
    "first_bout_limit": "limits",
    "limit_lifts_when_stock_empty": "limits",
    "throw_in_order": "limits",
    "fast_throw_ins": "limits",
    "draw_order": "order",
    "next_first_attacker": "order",
    "draw": "order",
    "turn_timeout": "time",
    "on_timeout": "time",
    "throw_in_window": "time",
}

# Values offered for integer options (filtered by the field's bounds; the current value and
# the default are always added). Unknown integer fields get a generic list.
_INT_CHOICES: Final[dict[str, tuple[int, ...]]] = {
    "hand_size": (4, 5, 6, 7, 8),
    "bout_limit": (3, 4, 5, 6, 8, 10, 12),
    "first_bout_limit": (3, 4, 5, 6, 8, 10, 12),
    "turn_timeout": (0, 30, 60, 120, 180, 300, 600, 3600, 86_400),
    "throw_in_window": (5, 10, 15, 20, 30, 60),
}
_NICE_INTS: Final = (0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 60, 120, 300, 600, 3600)
_DURATIONS: Final = frozenset({"turn_timeout", "throw_in_window"})

# When an option matters at all; options not listed always do.
_RELEVANT: Final[dict[str, Callable[[Rules], bool]]] = {
    "no_transfer_first_bout": lambda r: r.transfers,
    "no_transfer_with_trump_on_table": lambda r: r.transfers,
    "proezdnoy": lambda r: r.transfers,
    "throw_in_order": lambda r: r.throw_ins,
    "fast_throw_ins": lambda r: r.throw_ins,
    "multi_card_lead": lambda r: r.game != "prostoy5",
    "on_timeout": lambda r: r.turn_timeout > 0,
}


class SettingError(ValueError):
    """An unknown option or value token, or a value these rules cannot take."""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of :class:`Rules` as the menus see it."""

    name: str
    token: str
    kind: Literal["choice", "bool", "int", "set"]
    choices: tuple[Value, ...]
    """The values offered (before the validity filter); for a set, its possible members."""
    default: Value
    duration: bool
    group: str
    description: str

    def value_of(self, rules: Rules) -> Value:
        """This option's value in ``rules``."""
        value: Value = getattr(rules, self.name)
        return value

    def parse(self, token: str, rules: Rules) -> Value:
        """The value a value token asks for under ``rules`` (a set option's tokens toggle
        one member); ``SettingError`` if it is none of the choices."""
        if self.kind == "set":
            current = self.value_of(rules)
            assert isinstance(current, tuple)
            for member in self.choices:
                assert isinstance(member, str)
                for on in (True, False):
                    if toggle_token(member, on) == token:
                        return self.toggled(current, member, on)
            raise SettingError(f"{self.name} has no member toggle {token!r}")
        for value in self.choices:
            if value_token(value) == token:
                return value
        raise SettingError(f"{self.name} has no value {token!r}")

    def toggled(self, current: tuple[str, ...], member: str, on: bool) -> tuple[str, ...]:
        """A set option's value with ``member`` turned on or off (in the field's order)."""
        chosen = (set(current) | {member}) if on else (set(current) - {member})
        return tuple(m for m in self.choices if isinstance(m, str) and m in chosen)


def toggle_token(member: str, on: bool) -> str:
    """The value token that turns a set option's ``member`` on (``1…``) or off (``0…``)."""
    text = f"{1 if on else 0}{member}"
    return text if cb.is_token(text) else _hash_token(f"t:{text}", 8)


def value_token(value: Value) -> str:
    """A value's token in callback data (not for set options: see :func:`toggle_token`)."""
    if isinstance(value, tuple):
        raise TypeError("a set option's values are toggled: use toggle_token")
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "1" if value else "0"
    text = str(value)
    if cb.is_token(text):
        return text
    return _hash_token(f"v:{text}", 8)


def _hash_token(text: str, size: int) -> str:
    digest = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    out = ""
    while len(out) < size:
        digest, r = divmod(digest, 36)
        out += "0123456789abcdefghijklmnopqrstuvwxyz"[r]
    return out


def _bounds(metadata: list[Any]) -> tuple[int, int]:
    lo, hi = 0, 1_000_000
    for item in metadata:
        if isinstance(item, Ge):
            lo = int(item.ge)  # type: ignore[call-overload]
        elif isinstance(item, Le):
            hi = int(item.le)  # type: ignore[call-overload]
    return lo, hi


def _spec(name: str, index: int) -> OptionSpec:
    field = Rules.model_fields[name]
    annotation = field.annotation
    default: Value = field.default
    origin = get_origin(annotation)
    args = get_args(annotation)
    choices: tuple[Value, ...]
    kind: Literal["choice", "bool", "int", "set"]
    if (
        origin is tuple
        and len(args) == 2
        and args[1] is Ellipsis
        and get_origin(args[0]) is Literal
    ):
        kind, choices = "set", tuple(get_args(args[0]))
    elif origin is Literal:
        kind, choices = "choice", tuple(args)
    elif annotation is bool:
        kind, choices = "bool", (False, True)
    elif annotation is int or (origin in (Union, UnionType) and set(args) == {int, NoneType}):
        kind = "int"
        lo, hi = _bounds(field.metadata)
        wanted = _INT_CHOICES.get(name)
        if wanted is None:
            wanted = tuple(range(lo, hi + 1)) if hi - lo < 12 else _NICE_INTS
        ints = sorted({v for v in (*wanted, default) if isinstance(v, int) and lo <= v <= hi})
        choices = ((None,) if annotation is not int else ()) + tuple(ints)
    else:
        raise TypeError(f"Rules.{name}: the settings menu cannot offer {annotation!r}")
    token = _hash_token(f"o:{name}", 4)
    return OptionSpec(
        name=name,
        token=token,
        kind=kind,
        choices=choices,
        default=default,
        duration=name in _DURATIONS or (field.description or "").startswith("Seconds"),
        group=_GROUP_OF.get(name, "other"),
        description=field.description or "",
    )


@cache
def options() -> tuple[OptionSpec, ...]:
    """Every option of :class:`Rules`, in field order."""
    specs = tuple(_spec(name, i) for i, name in enumerate(Rules.model_fields))
    tokens = {s.token for s in specs}
    if len(tokens) != len(specs) or tokens & set(GROUPS):
        raise RuntimeError("option tokens collide; change _hash_token's salt")
    return specs


def option_by_token(token: str) -> OptionSpec:
    """The option of a token; ``SettingError`` if none."""
    for spec in options():
        if spec.token == token:
            return spec
    raise SettingError(f"no option {token!r}")


def option_by_name(name: str) -> OptionSpec:
    """The option of a ``Rules`` field name."""
    for spec in options():
        if spec.name == name:
            return spec
    raise SettingError(f"no option {name!r}")


def _later(spec: OptionSpec) -> tuple[OptionSpec, ...]:
    specs = options()
    return specs[specs.index(spec) + 1 :]


def _build(data: dict[str, Any], name: str) -> Rules | None:
    try:
        rules = Rules(**data)
    except (ValidationError, ValueError):
        return None
    # The engine normalises some values (a 52-card deck turns "full" on): a result that
    # does not hold what was asked for is no answer.
    return rules if getattr(rules, name) == data[name] else None


def _candidates(spec: OptionSpec, current: Value) -> Iterator[Value]:
    yield spec.default
    if spec.kind == "set" and isinstance(current, tuple):
        for member in current:
            yield tuple(m for m in current if m != member)
    elif spec.kind == "int" and isinstance(current, int):
        ints = [v for v in spec.choices if isinstance(v, int)]
        yield from sorted(ints, key=lambda v: (abs(v - current), v))
        yield from (v for v in spec.choices if v is None)
    else:
        yield from spec.choices


FIVE_CARD_GAMES: Final = frozenset({"prostoy5", "lizard"})
"""A game or modifier played with five cards each."""


def _five(data: dict[str, Any]) -> bool:
    return data.get("game") in FIVE_CARD_GAMES or any(
        m in FIVE_CARD_GAMES for m in data.get("modifiers", ())
    )


@lru_cache(maxsize=8192)
def with_value(rules: Rules, name: str, value: Value) -> Rules | None:
    """``rules`` with option ``name`` set to ``value``, later options adjusted if they
    conflict; None when no such valid ``Rules`` exists."""
    spec = option_by_name(name)
    data = rules.model_dump()
    data[name] = value
    if name == "game" or (name == "modifiers" and _five(data) != _five(rules.model_dump())):
        # what belongs to the game goes with it: the hand size is the new game's own
        # (5 for the five-card games, else 6) until chosen again
        data["hand_size"] = 5 if _five(data) else Rules.model_fields["hand_size"].default
    found = _build(data, name)
    if found is not None:
        return found
    later = _later(spec)
    fixes = {
        o.name: [c for c in dict.fromkeys(_candidates(o, data[o.name])) if c != data[o.name]]
        for o in later
    }
    for other in later:  # one later option changed to its default or a near value
        for candidate in fixes[other.name]:
            found = _build({**data, other.name: candidate}, name)
            if found is not None:
                return found
    changed = [o for o in later if data[o.name] != o.default]
    for other in later:  # that, and another later option back to its default
        for candidate in fixes[other.name]:
            for reset in changed:
                if reset is not other:
                    attempt = {**data, other.name: candidate, reset.name: reset.default}
                    found = _build(attempt, name)
                    if found is not None:
                        return found
    for size in range(2, min(len(changed), 6) + 1):  # several back to their defaults
        for group in combinations(changed, size):
            found = _build({**data, **{o.name: o.default for o in group}}, name)
            if found is not None:
                return found
    return None


@dataclass(frozen=True, slots=True)
class Offer:
    """One button of an option's menu: the value it sets, its token, and whether it is the
    current choice (for a set option: one member, on or off)."""

    value: Value
    token: str
    chosen: bool
    member: str | None = None


def offers(rules: Rules, spec: OptionSpec) -> tuple[Offer, ...]:
    """The buttons the menu offers for ``spec``: every value that gives valid rules (the
    current one included); for a set option, every member that can be turned on or off."""
    current = spec.value_of(rules)
    found = []
    if spec.kind == "set":
        assert isinstance(current, tuple)
        for member in spec.choices:
            assert isinstance(member, str)
            on = member not in current
            toggled = spec.toggled(current, member, on)
            if with_value(rules, spec.name, toggled) is not None:
                found.append(Offer(toggled, toggle_token(member, on), not on, member))
        return tuple(found)
    for value in spec.choices:
        if with_value(rules, spec.name, value) is not None:
            same = value == current and type(value) is type(current)
            found.append(Offer(value, value_token(value), same))
    return tuple(found)


def valid_values(rules: Rules, spec: OptionSpec) -> tuple[Value, ...]:
    """The values the menu can set ``spec`` to (for a set option: the resulting sets)."""
    return tuple(o.value for o in offers(rules, spec))


def is_relevant(rules: Rules, spec: OptionSpec) -> bool:
    """Whether ``spec`` matters under ``rules`` (transfer options only in perevodnoy, …)."""
    check = _RELEVANT.get(spec.name)
    return check is None or check(rules)


def visible_options(rules: Rules, group: str | None = None) -> tuple[OptionSpec, ...]:
    """Options shown in the menu (of ``group``): relevant ones with another valid value."""
    return tuple(
        s
        for s in options()
        if (group is None or s.group == group)
        and is_relevant(rules, s)
        and any(not o.chosen or s.kind == "set" for o in offers(rules, s))
    )


def apply_setting(rules: Rules, option: str, value: str) -> Rules:
    """The rules after a :class:`bot.service.callbacks.SetOption` press; ``SettingError`` if the
    tokens are unknown or the value does not fit these rules."""
    spec = option_by_token(option)
    parsed = spec.parse(value, rules)
    result = with_value(rules, spec.name, parsed)
    if result is None:
        raise SettingError(f"{spec.name}={parsed!r} does not fit these rules")
    return result


# ---------------------------------------------------------------- words


def _value_key(value: Value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def option_name(lang: Lang, spec: OptionSpec) -> str:
    """The option's name in ``lang`` (the field name if the catalog lacks it)."""
    key = f"opt.{spec.name}.name"
    return tr(lang, key) if has_key(lang, key) else spec.name


def option_desc(lang: Lang, spec: OptionSpec) -> str:
    """The option's one-line description in ``lang`` (the field's own if the catalog lacks it)."""
    key = f"opt.{spec.name}.desc"
    return tr(lang, key) if has_key(lang, key) else spec.description


def member_desc(lang: Lang, spec: OptionSpec, member: str) -> str:
    """A set option member's one-line description (empty if the catalog lacks it)."""
    key = f"opt.{spec.name}.d.{member}"
    return tr(lang, key) if has_key(lang, key) else ""


def value_label(lang: Lang, spec: OptionSpec, value: Value) -> str:
    """A value in words: ``Podkidnoy``, ``6 cards``, ``2 min``, ``Off``, ``Japanese, Full``."""
    if isinstance(value, tuple):
        if not value:
            return tr(lang, f"opt.{spec.name}.empty")
        return ", ".join(value_label(lang, spec, m) for m in value)
    key = f"opt.{spec.name}.v.{_value_key(value)}"
    if has_key(lang, key):
        return tr(lang, key)
    if spec.duration and isinstance(value, int) and not isinstance(value, bool):
        return duration(lang, value)
    count_key = f"opt.{spec.name}.n"
    if isinstance(value, int) and not isinstance(value, bool) and has_key(lang, count_key):
        return tr(lang, count_key, n=value)
    return str(value)


# ---------------------------------------------------------------- screens
