"""A transaction's body, written once for both databases, and the two ways it is run.

A body is a generator: it yields the statements it wants run (:class:`Fetch`, :class:`Many`,
their SQL with ``?`` placeholders) and is sent each one's rows back; a statement's error is
thrown into it, so a body may catch one (a savepoint rolled back alone). It never touches
a connection itself, so the same body runs synchronously on SQLite, inside one call on the
database thread or on the event loop (:func:`run_sync`), and asynchronously on asyncpg
(:func:`run_async`), each database numbering its placeholders its own way (``prepare``)::

    def body() -> Body[int]:
        rows = yield Fetch("UPDATE tables SET ... WHERE table_id = ? RETURNING version", (7,))
        yield Many("INSERT INTO tallies ... VALUES (?, ?)", [(1, 2), (3, 4)])
        return int(rows[0][0])
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Fetch:
    """Run one statement; its rows are sent back (an empty list for none)."""

    sql: str
    params: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class Many:
    """Run one statement once per row of parameters (nothing when there are none)."""

    sql: str
    rows: Sequence[Sequence[Any]]


Step: TypeAlias = Fetch | Many
Body: TypeAlias = Generator[Step, Any, T]


def each(steps: Iterable[Step]) -> Body[None]:
    """Yield each of ``steps`` in turn, its rows dropped: ``yield from each(steps)``.
    (``yield from`` a list would fail on the rows sent back.)"""
    for step in steps:  # noqa: UP028 (not ``yield from steps``: see above)
        yield step


class SyncConnection(Protocol):
    """What :func:`run_sync` needs of a connection: :class:`sqlite3.Connection`'s calls."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, sql: str, parameters: Any, /) -> Any: ...


class AsyncConnection(Protocol):
    """What :func:`run_async` needs of a connection: :class:`asyncpg.Connection`'s calls."""

    async def fetch(self, query: str, *args: Any, timeout: float | None = None) -> list[Any]: ...

    async def executemany(
        self, command: str, args: Any, *, timeout: float | None = None
    ) -> None: ...


def run_sync(conn: SyncConnection, body: Body[T]) -> T:
    """Run ``body`` on a sqlite3 connection, each statement as it is yielded: the one
    driver (:func:`run_async`), over calls that never suspend, run to its end at once."""
    driving = run_async(_Immediate(conn), body, _as_written)
    try:
        driving.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    driving.close()
    raise RuntimeError("a synchronous connection suspended a transaction's body")


async def run_async(conn: AsyncConnection, body: Body[T], prepare: Callable[[str], str]) -> T:
    """Run ``body`` on an asyncpg connection, its SQL passed through ``prepare``."""
    send: Any = None
    error: BaseException | None = None
    while True:
        try:
            step = body.send(send) if error is None else body.throw(error)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        send, error = None, None
        try:
            if isinstance(step, Fetch):
                send = await conn.fetch(prepare(step.sql), *step.params)
            elif step.rows:
                await conn.executemany(prepare(step.sql), step.rows)
        except Exception as exc:
            error = exc


def _as_written(sql: str) -> str:
    return sql


class _Immediate:
    """A sqlite3 connection with asyncpg's calls, which return without suspending."""

    __slots__ = ("_conn",)

    def __init__(self, conn: SyncConnection) -> None:
        self._conn = conn

    async def fetch(self, query: str, *args: Any, timeout: float | None = None) -> list[Any]:
        rows: list[Any] = self._conn.execute(query, args).fetchall()
        return rows

    async def executemany(self, command: str, args: Any, *, timeout: float | None = None) -> None:
        self._conn.executemany(command, args)
