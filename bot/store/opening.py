"""Opening a store: ``await Store.open(...)`` or ``async with Store.open(...) as store``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar


class Closable(Protocol):
    """What :class:`Opening` closes on leaving its ``async with`` block."""

    async def close(self) -> None: ...


S = TypeVar("S", bound=Closable, covariant=True)


class Opening(Generic[S]):
    """``await Store.open(...)`` or ``async with Store.open(...) as store``."""

    def __init__(self, opener: Callable[[], Awaitable[S]]) -> None:
        self._opener = opener
        self._store: S | None = None

    def __await__(self) -> Generator[Any, None, S]:
        return self._opener().__await__()

    async def __aenter__(self) -> S:
        self._store = await self._opener()
        return self._store

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._store is not None:
            await self._store.close()
