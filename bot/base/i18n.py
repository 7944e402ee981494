"""Russian, English and Ukrainian: message catalogs, plural forms and the choice of language.

Every user-facing string lives in ``bot/base/locales/<lang>.toml``; code only names keys.

Catalog format (TOML, read with the standard library's ``tomllib``):

- Nested tables give dotted keys: ``[lobby.btn]`` + ``join = "..."`` is ``lobby.btn.join``.
- A value is a ``str.format`` template with named placeholders only: ``"{name} takes"``.
- A *plural* entry is a table whose keys are exactly the language's plural categories
  (Russian and Ukrainian ``one``/``few``/``many``, English ``one``/``other``); the form is
  chosen by the integer parameter ``n``: ``tr("uk", "card.count", n=21) == "21 карта"``.

Every catalog holds the same keys with the same placeholders (a test checks it). Catalog text
is trusted HTML; the caller escapes whatever it substitutes (user names, group titles).
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Final, Literal, TypeAlias, get_args

__all__ = [
    "DEFAULT_LANG",
    "LANGS",
    "PLURAL_CATEGORIES",
    "RUSSIAN_SPOKEN",
    "CatalogError",
    "Entry",
    "Lang",
    "Translator",
    "catalog",
    "has_key",
    "is_lang",
    "pick_lang",
    "placeholders",
    "plural_category",
    "tr",
]

Lang: TypeAlias = Literal["ru", "en", "uk"]
LANGS: Final[tuple[Lang, ...]] = get_args(Lang)
DEFAULT_LANG: Final[Lang] = "en"

PLURAL_CATEGORIES: Final[Mapping[Lang, tuple[str, ...]]] = {
    "ru": ("one", "few", "many"),
    "en": ("one", "other"),
    "uk": ("one", "few", "many"),
}
_ALL_CATEGORIES: Final = frozenset({"zero", "one", "two", "few", "many", "other"})

# Telegram language codes for which Russian is the better default than English (Ukrainian
# has its own catalog and is answered in Ukrainian).
RUSSIAN_SPOKEN: Final = frozenset({"ru", "be", "kk", "ky", "tg", "uz"})
"""Telegram language codes answered in Russian."""
_RUSSIAN_DEFAULT: Final = RUSSIAN_SPOKEN

_LOCALES: Final = Path(__file__).with_name("locales")

Entry: TypeAlias = str | Mapping[str, str]
"""A catalog value: a template, or a plural entry (category -> template)."""


class CatalogError(ValueError):
    """A catalog file is malformed (bad plural table, bad placeholder, unknown value type)."""


def is_lang(code: object) -> bool:
    """Whether ``code`` names a supported language exactly (``"ru"``, ``"en"`` or ``"uk"``)."""
    return code in LANGS


def pick_lang(language_code: str | None, *overrides: str | None) -> Lang:
    """The language to speak: the first supported override, else from Telegram's code.

    ``overrides`` are explicit choices in priority order (a user's /lang, then a chat's);
    ``None`` or unsupported ones are skipped. ``language_code`` is Telegram's IETF tag
    (``"ru"``, ``"uk-UA"``, ``"de"``): Ukrainian for Ukrainian, Russian for Russian and the
    languages of :data:`RUSSIAN_SPOKEN`, else English.
    """
    for choice in overrides:
        if choice is not None:
            base = _base(choice)
            if base in LANGS:
                return base
    if language_code:
        base = _base(language_code)
        if base in _RUSSIAN_DEFAULT:
            return "ru"
        if base in LANGS:
            return base
    return DEFAULT_LANG


def _base(code: str) -> str:
    return code.strip().replace("_", "-").split("-", 1)[0].lower()


def plural_category(lang: Lang, n: int) -> str:
    """The CLDR plural category of the integer ``n``: Russian and Ukrainian one/few/many
    (the same rule for integers), English one/other."""
    n = abs(n)
    if lang in ("ru", "uk"):
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    return "one" if n == 1 else "other"


def placeholders(template: str) -> frozenset[str]:
    """The named placeholders of a template; ``CatalogError`` on anything but ``{name}``."""
    names = set()
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise CatalogError(f"bad template {template!r}: {exc}") from None
    for _literal, field, spec, conversion in parsed:
        if field is None:
            continue
        if not field.isidentifier() or spec or conversion:
            raise CatalogError(f"only plain {{name}} placeholders are allowed: {template!r}")
        names.add(field)
    return frozenset(names)


def _flatten(lang: Lang, table: Mapping[str, object], prefix: str) -> Iterator[tuple[str, Entry]]:
    for key, value in table.items():
        path = f"{prefix}{key}"
        if isinstance(value, str):
            placeholders(value)
            yield path, value
        elif isinstance(value, dict):
            keys = set(value)
            if keys and keys <= _ALL_CATEGORIES:
                if keys != set(PLURAL_CATEGORIES[lang]) or not all(
                    isinstance(v, str) for v in value.values()
                ):
                    raise CatalogError(
                        f"{lang}:{path}: a plural entry needs exactly "
                        f"{', '.join(PLURAL_CATEGORIES[lang])} as strings"
                    )
                for form in value.values():
                    placeholders(form)
                yield path, dict(value)
            else:
                yield from _flatten(lang, value, f"{path}.")
        else:
            raise CatalogError(f"{lang}:{path}: a catalog value must be a string or a table")


@cache
def catalog(lang: Lang) -> Mapping[str, Entry]:
    """The flattened catalog of ``lang`` (read once, then cached)."""
    if lang not in LANGS:
        raise ValueError(f"unsupported language: {lang!r}")
    with (_LOCALES / f"{lang}.toml").open("rb") as fh:
        data = tomllib.load(fh)
    return dict(_flatten(lang, data, ""))


def has_key(lang: Lang, key: str) -> bool:
    """Whether the catalog of ``lang`` has ``key``."""
    return key in catalog(lang)


def tr(lang: Lang, key: str, /, **params: object) -> str:
    """The text of ``key`` in ``lang`` with ``params`` substituted.

    A plural entry picks its form by ``n``. A missing key or parameter raises ``KeyError``:
    the catalogs are complete and tested, so a miss is a programming error.
    """
    if not params:
        plain = _PLAIN.get((lang, key))
        if plain is not None:
            return plain
    entry = catalog(lang)[key]
    if not isinstance(entry, str):
        count = params.get("n")
        if not isinstance(count, int):
            raise KeyError(f"{key}: a plural entry needs an integer parameter n")
        entry = entry[plural_category(lang, count)]
    if params:
        return entry.format_map(params)
    plain = _PLAIN[(lang, key)] = entry.format_map({})
    return plain


_PLAIN: dict[tuple[str, str], str] = {}
"""The texts without parameters, worked out once (a catalog is read once and never
changes)."""


class Translator:
    """``tr`` bound to one language: ``t = Translator("ru"); t("lobby.btn.join")``."""

    __slots__ = ("lang",)

    def __init__(self, lang: Lang) -> None:
        if lang not in LANGS:
            raise ValueError(f"unsupported language: {lang!r}")
        self.lang: Lang = lang

    def __call__(self, key: str, /, **params: object) -> str:
        return tr(self.lang, key, **params)

    def has(self, key: str) -> bool:
        """Whether the catalog has ``key``."""
        return has_key(self.lang, key)

    def __repr__(self) -> str:
        return f"Translator({self.lang!r})"
