"""The bot's ``ExtBot``: PTB's, reading the presses of each ``getUpdates`` itself.

A press is most of what a busy bot receives, and PTB's reading of it is mostly the
building of a ``Message`` attribute by attribute (:mod:`bot.service.decoding`). The
bot's :class:`~bot.transport.request.UpdatesRequest` takes the presses out of each answer,
PTB reads the rest as always (and builds nothing for a press), and
:meth:`DurakBot.get_updates` puts each press back in its place, read by the
:class:`~bot.service.decoding.UpdateReader`: the same objects, built from parts it has
built before. While updates keep coming, it waits ``gather`` seconds after an answer
that brought some before it asks again, so that one request brings several: a busy bot
makes far fewer requests for the same presses, and an idle one is told of a press at once.
Everything else is PTB's ``ExtBot``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from telegram import Update
from telegram._utils.defaultvalue import DEFAULT_NONE
from telegram._utils.types import JSONDict, ODVInput, TimePeriod
from telegram.ext import ExtBot

from bot.service.decoding import UpdateReader
from bot.transport.request import UpdatesRequest

__all__ = ["DurakBot"]


class DurakBot(ExtBot[None]):
    """PTB's ``ExtBot`` whose ``getUpdates`` reads presses with an :class:`UpdateReader`
    (when its updates request is an :class:`UpdatesRequest`)."""

    __slots__ = ("_busy_at", "_gather", "_presses", "_reader")

    def __init__(self, *args: Any, gather: float = 0.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._gather = gather
        self._busy_at: float | None = None
        """When the last answer that brought updates came (None: the last brought none)."""
        self._reader = UpdateReader()
        polling = kwargs.get("get_updates_request")
        self._presses = polling if isinstance(polling, UpdatesRequest) else None
        if self._presses is not None:
            self._presses.hold_presses = True

    @property
    def reader(self) -> UpdateReader:
        """How this bot reads a press (also a webhook's)."""
        return self._reader

    async def get_updates(
        self,
        offset: int | None = None,
        limit: int | None = None,
        timeout: TimePeriod | None = None,
        allowed_updates: Sequence[str] | None = None,
        *,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
        api_kwargs: JSONDict | None = None,
    ) -> tuple[Update, ...]:
        """PTB's ``getUpdates``, each held-back press read here and put in its place; after
        an answer that brought updates, not asked before ``gather`` seconds have passed."""
        loop = asyncio.get_running_loop()
        if self._busy_at is not None:
            wait = self._busy_at + self._gather - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
        presses = self._presses
        updates = await super().get_updates(
            offset=offset,
            limit=limit,
            timeout=timeout,
            allowed_updates=allowed_updates,
            read_timeout=read_timeout,
            write_timeout=write_timeout,
            connect_timeout=connect_timeout,
            pool_timeout=pool_timeout,
            api_kwargs=api_kwargs,
        )
        held, order = presses.take_presses() if presses is not None else ({}, [])
        # the presses taken out count: an answer of presses alone brought updates too
        came = bool(updates or held)
        self._busy_at = loop.time() if came and self._gather > 0 else None
        if not held:
            return updates
        # every update in the place Telegram gave it: the presses read here, the rest by PTB
        others = {update.update_id: update for update in updates}
        read = []
        for update_id in order:
            data = held.get(update_id)
            if data is not None:
                update = self._reader.read(data, self)
                self.insert_callback_data(update)
                read.append(update)
            else:
                found = others.pop(update_id, None)
                if found is not None:
                    read.append(found)
        read.extend(others.values())  # one whose id was no number in the answer, read by PTB
        return tuple(read)
