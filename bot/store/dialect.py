"""Where SQLite's and PostgreSQL's SQL differ: one small :class:`Dialect` per database.

The store's queries (:mod:`bot.store.core`), the ratings (:mod:`bot.store.ratings`) and the
migrations (:mod:`bot.store.migrations`) are written once, in the SQL both databases
share, with ``?`` placeholders; where the two truly differ they ask their dialect for the
fragment. :data:`bot.store.sqlite.SQLITE` and :data:`bot.store.postgres.POSTGRES` are the
two dialects.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from bot.store.steps import Fetch

_PLACEHOLDER: Final = re.compile(r"'(?:[^']|'')*'|\?")
"""A ``?`` placeholder, or a quoted text (whose ``?`` is a question mark)."""


@lru_cache(maxsize=2048)
def numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered as PostgreSQL wants them (``$1``...)."""
    numbers = iter(range(1, 100_000))

    def number(found: re.Match[str]) -> str:
        text = found.group()
        return text if text != "?" else f"${next(numbers)}"

    return _PLACEHOLDER.sub(number, sql)


def as_is(sql: str) -> str:
    """SQLite takes ``?`` placeholders as they are written."""
    return sql


@dataclass(frozen=True, slots=True)
class Trigger:
    """A trigger run after each update of a row: ``body`` (one statement, reading ``NEW``)
    runs when ``when`` holds. SQLite writes the statement in the trigger; PostgreSQL in a
    plpgsql function of the trigger's name."""

    name: str
    event: str
    table: str
    when: str
    body: str


@dataclass(frozen=True, slots=True)
class Dialect:
    """What one database says differently."""

    name: str
    prepare: Callable[[str], str]
    """The written SQL as the driver takes it (its placeholders)."""
    types: Mapping[str, str]
    """The words a migration's ``{id}``, ``{real}``, ``{serial}``... stand for."""
    trigger: Callable[[Trigger], tuple[str, ...]]
    """The statements that create a trigger."""
    same: str
    """``a {same} b``: equal, NULL equal to NULL."""
    greatest: Callable[[str, str], str]
    """The greater of two values, a NULL one ignored."""
    bytewise: str
    """What follows a text in ``ORDER BY`` to sort it by its bytes."""
    json_text: Callable[[str, tuple[str, ...]], str]
    """A JSON text column's value at a path, as text (NULL if missing)."""
    counts_moves: Callable[[str], str] | None
    """SQL deciding whether a logged action is a seat's own move, or None: the store
    counts them in Python (:func:`bot.store.rating_rows.own_move`)."""
    hold_ratings: tuple[Fetch, ...] = field(default=())
    """Statements that make a transaction the only one rating until it ends."""
    hold_queue: tuple[Fetch, ...] = field(default=())
    """Statements that make a transaction the only one changing the quick games' queue
    until it ends (SQLite has one writer: none)."""

    def ddl(self, template: str) -> str:
        """A migration's statement with its type words filled in."""
        return template.format_map(self.types)
