"""Pacing per chat, as Telegram limits a bot: every request the bot makes passes here.

Telegram has no global limit on a bot's interactive traffic (the ~30 messages a second of
its FAQ concern bulk broadcasts). What it limits is each chat: sends, edits and deletes
share one budget of about one message a second in a private chat, short bursts
tolerated, and twenty a minute in a group (tdlib/td#2592, td#1834, td#3034). A 429
("retry after N") concerns the chat it was drawn in.

So each chat has its own token bucket (GCRA: ``burst`` requests at once, then one per
``interval``), and a 429 pauses only that chat. A group's figures keep ``burst`` plus a
minute's refill within twenty (5 at once, then one every 4 s), so even a strict reading of
"twenty in any minute" is never exceeded, and a lobby tap still shows at once.

Inside a chat's budget requests queue by :class:`Priority`: the hand of a seat the game
waits on goes first, then the presser's own screen, then the group table, then hands that
only watch. Content that can wait leaves ``reserve`` tokens untouched, so the urgent edit
that follows it is not kept waiting for the bucket to refill.

Answers to callback queries, reads and other calls that name no chat are never delayed.
An overall cap (``overall_rate``) is there for broadcasts; it is off by default.

Being the one place every request passes, the pacer is also the last guard on texts: one
that Telegram would refuse as too long is cut to fit first
(:func:`bot.render.limits.fit_request`), so that a screen too long by mistake arrives.
It is also where the messages the bot sent are noted
(:class:`~bot.transport.sent.SentLog`), for the publisher to tell its own messages from copies
that arrived although their send timed out.
"""

from __future__ import annotations

import asyncio
import collections
import heapq
import itertools
import logging
import os
from collections.abc import Callable, Coroutine
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from datetime import timedelta
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Protocol

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from bot.base.loops import LoopRef
from bot.render.limits import fit_request
from bot.transport.sent import SentLog

if TYPE_CHECKING:
    from bot.base.config import Settings

__all__ = [
    "Pacer",
    "Pacing",
    "Priority",
    "ephemeral_receiver",
    "inline_budget",
    "paced",
    "pacing_of",
    "retry_after_seconds",
    "use_timedelta_periods",
]

log = logging.getLogger(__name__)


class Priority(IntEnum):
    """Who gets a chat's next free slot first (lower goes first)."""

    URGENT = 0
    """The hand of a seat the game waits on now."""
    OWN = 1
    """The presser's own screen: his hand after his move, a lobby he changed, a reply."""
    TABLE = 2
    """The group's table: edited again and again as the game goes, so it leaves the
    reserve alone, and a post (a game's end, a lobby's answer) never waits behind it."""
    WATCH = 3
    """A hand whose player only watches: it can wait, and leaves the reserve alone."""


COUNTED_PREFIXES: Final = ("send", "edit", "delete", "copy", "forward")
"""Methods that spend a chat's budget: what sends, edits or deletes a message."""
FREE: Final = frozenset({"sendchataction"})
"""Methods with those prefixes that spend nothing."""


EPHEMERAL_METHODS: Final = frozenset(
    {"editephemeralmessagetext", "editephemeralmessagereplymarkup", "deleteephemeralmessage"}
)


def ephemeral_receiver(endpoint: str, data: dict[str, Any]) -> int | None:
    """The user an ephemeral message call is for (Bot API 10.2: a send with
    ``ephemeral_message_parameters``, an edit or a delete naming ``receiver_user_id``);
    None for any other call."""
    name = endpoint.lower()
    found: Any = None
    if name in EPHEMERAL_METHODS:
        found = data.get("receiver_user_id")
    elif name == "sendmessage":
        params = data.get("ephemeral_message_parameters")
        if isinstance(params, dict):
            found = params.get("receiver_user_id")
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def counts(endpoint: str) -> bool:
    """Whether a call of ``endpoint`` spends its chat's budget."""
    name = endpoint.lower()
    return name.startswith(COUNTED_PREFIXES) and name not in FREE


def use_timedelta_periods() -> None:
    """Have python-telegram-bot give time periods, a 429's ``retry_after`` among them, as
    ``timedelta``: its form from the next major version on. The int form is deprecated
    since v22.2 and warns each time a ``RetryAfter`` is built; PTB reads the opt-in,
    ``PTB_TIMEDELTA``, from the environment at every use. An operator's own value stays."""
    os.environ.setdefault("PTB_TIMEDELTA", "true")


def retry_after_seconds(exc: RetryAfter) -> float:
    """The seconds a 429 asks to wait."""
    wait = exc.retry_after
    return wait.total_seconds() if isinstance(wait, timedelta) else float(wait)


@dataclass(frozen=True, slots=True)
class Pacing:
    """The figures the bot paces itself by (seconds; a burst is a number of requests)."""

    private_interval: float = 1.0
    private_burst: int = 3
    group_interval: float = 4.0
    group_burst: int = 5
    overall_rate: float = 0.0
    """Requests a second over all chats; 0 = no overall cap."""
    reserve: int = 1
    """Tokens that content of :attr:`Priority.TABLE` and :attr:`Priority.WATCH` leaves for
    more urgent content."""
    max_retries: int = 3
    """How often a request that drew a 429 is tried again (after the wait) before its
    caller is told."""
    enabled: bool = True
    """False: no pacing at all (a 429 still pauses its chat)."""

    def __post_init__(self) -> None:
        for name in ("private_interval", "group_interval", "overall_rate"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        for name in ("private_burst", "group_burst"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.reserve < 0 or self.max_retries < 0:
            raise ValueError("reserve and max_retries must not be negative")

    @classmethod
    def off(cls) -> Pacing:
        """No pacing: only 429s are waited out, in their own chat."""
        return cls(enabled=False)


@dataclass(slots=True)
class _Budget:
    """One chat's bucket, kept as a theoretical arrival time, and its queue."""

    interval: float
    burst: int
    tat: float = 0.0
    paused_until: float = 0.0
    waiting: list[tuple[int, int, asyncio.Future[None]]] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None

    def wait(self, now: float, reserve: int) -> float:
        """Seconds until a request that must leave ``reserve`` tokens may go."""
        spare = max(0, self.burst - 1 - min(reserve, self.burst - 1))
        ready = max(self.paused_until, self.tat - spare * self.interval)
        return max(0.0, ready - now)

    def take(self, now: float) -> None:
        self.tat = max(self.tat, now) + self.interval

    def idle(self, now: float) -> bool:
        return not self.waiting and self.tat <= now and self.paused_until <= now


class _Request(NamedTuple):
    priority: Priority
    retry: bool
    prepaid: bool


_CURRENT: ContextVar[_Request | None] = ContextVar("durak_pacing", default=None)


class paced:  # used as a function: ``with paced(...)``
    """Requests made inside this block queue at ``priority``; with ``retry=False`` a 429
    is raised at once (after pausing its chat) for the caller to retry with newer
    content; ``prepaid`` says the caller spent the chat's budget already
    (:meth:`Pacer.acquire`), so the first try goes at once. (A class, not a generator:
    every edit of every hand enters one.)"""

    __slots__ = ("_request", "_token")

    def __init__(self, priority: Priority, *, retry: bool = True, prepaid: bool = False) -> None:
        self._request = _Request(priority, retry, prepaid)
        self._token: Token[_Request | None] | None = None

    def __enter__(self) -> None:
        self._token = _CURRENT.set(self._request)

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _CURRENT.reset(self._token)
            self._token = None


_SWEEP_EVERY: Final = 4096


class SharedBudget(Protocol):
    """Chats' budgets shared with other processes (:mod:`bot.cluster.pace`)."""

    def shared(self, chat_id: int | str) -> bool:
        """Whether other processes may write to ``chat_id`` too."""
        ...

    async def reserve(self, chat_id: int) -> float:
        """Take the chat's next shared slot: the seconds to wait for it."""
        ...

    async def pause(self, chat_id: int, seconds: float) -> None:
        """Telegram asked the chat to wait ``seconds``."""
        ...


class Pacer(BaseRateLimiter[int]):
    """Per-chat token buckets with priorities, a per-chat pause for 429s, and an optional
    overall cap, as python-telegram-bot's rate limiter. ``rate_limit_args`` may name a
    :class:`Priority`; :func:`paced` does the same for a block of code."""

    __slots__ = (
        "_budgets",
        "_ephemeral_recent",
        "_ephemeral_shared",
        "_loop",
        "_overall",
        "_pacing",
        "_pauses",
        "_seq",
        "_since_sweep",
        "sent",
        "shared",
    )

    def __init__(self, pacing: Pacing | None = None, *, sent: SentLog | None = None) -> None:
        self._pacing = pacing or Pacing()
        self._loop = LoopRef()
        self.sent = sent
        """Where every message sent through here is noted (every request passes here)."""
        self._budgets: dict[int | str, _Budget] = {}
        self._overall: _Budget | None = None
        if self._pacing.enabled and self._pacing.overall_rate > 0:
            rate = self._pacing.overall_rate
            self._overall = _Budget(1.0 / rate, max(1, int(rate)))
        self._seq = itertools.count()
        self._since_sweep = 0
        self.shared: SharedBudget | None = None
        """Budgets shared with other processes (several processes on one database): a
        request to such a chat also waits for its shared slot, just before it goes."""
        self._pauses: set[asyncio.Task[None]] = set()
        self._ephemeral_shared = False
        """Whether ephemeral messages were found to share their group's budget."""
        self._ephemeral_recent: dict[int, collections.deque[float]] = {}
        """Until then, when each group's ephemeral messages went, over the last minute."""

    @property
    def pacing(self) -> Pacing:
        """The figures in force."""
        return self._pacing

    async def initialize(self) -> None:
        """Nothing to open."""

    async def shutdown(self) -> None:
        """Release every request still queued (they go out unpaced rather than hang)."""
        for budget in [*self._budgets.values(), *([self._overall] if self._overall else [])]:
            if budget.timer is not None:
                budget.timer.cancel()
                budget.timer = None
            for _, _, future in budget.waiting:
                if not future.done():
                    future.set_result(None)
            budget.waiting.clear()

    # ------------------------------------------------------------------ the buckets

    def _now(self) -> float:
        return self._loop().time()

    def ephemeral_budget(self, chat_id: int, user_id: int) -> int | str:
        """The budget an ephemeral message to ``user_id`` in group ``chat_id`` spends.
        Telegram does not say; each (group, receiver) pair is paced like a private chat
        until one draws a 429, which is taken to mean that ephemeral messages share their
        group's budget — a rule of the server, so for every group: from then on they queue
        behind the group's (twenty a minute)."""
        if self._ephemeral_shared:
            return chat_id
        return f"e{chat_id}:{user_id}"

    def ephemeral_shared(self, chat_id: int) -> bool:
        """Whether the group's ephemeral messages were found to share its budget."""
        return self._ephemeral_shared

    def _ephemeral_went(self, chat_id: int) -> None:
        """An ephemeral message went to group ``chat_id`` (remembered for a minute, while
        they are paced apart from the group)."""
        if self._ephemeral_shared:
            return
        now = self._now()
        went = self._ephemeral_recent.setdefault(chat_id, collections.deque())
        went.append(now)
        while went and went[0] < now - 60.0:
            went.popleft()
        if len(self._ephemeral_recent) > _SWEEP_EVERY:
            for chat in [c for c, w in self._ephemeral_recent.items() if w[-1] < now - 60.0]:
                del self._ephemeral_recent[chat]

    def _share_ephemeral(self) -> None:
        """Ephemeral messages share their group's budget after all: each group's bucket is
        charged with those that went there in the last minute, so that the group's own
        next message does not draw a 429 of its own."""
        if self._ephemeral_shared:
            return
        self._ephemeral_shared = True
        log.info("ephemeral messages share their group's budget: they are paced with it")
        now = self._now()
        for chat, went in self._ephemeral_recent.items():
            count = sum(1 for at in went if at >= now - 60.0)
            if count:
                budget = self._budget(chat)
                budget.tat = max(budget.tat, now) + count * budget.interval
                self._schedule(budget)
        self._ephemeral_recent.clear()

    def _budget(self, chat: int | str) -> _Budget:
        budget = self._budgets.get(chat)
        if budget is None:
            pacing = self._pacing
            if not pacing.enabled:
                budget = _Budget(0.0, 1)
            elif (isinstance(chat, int) and chat > 0) or (
                isinstance(chat, str) and chat.startswith("e")
            ):
                # a private chat, or one user's ephemeral messages in a group
                budget = _Budget(pacing.private_interval, pacing.private_burst)
            else:
                budget = _Budget(pacing.group_interval, pacing.group_burst)
            self._budgets[chat] = budget
            self._since_sweep += 1
            if self._since_sweep >= _SWEEP_EVERY:
                self._sweep()
        return budget

    def _sweep(self) -> None:
        """Forget chats whose budget is full again: they start afresh if they come back."""
        self._since_sweep = 0
        now = self._now()
        for chat in [c for c, b in self._budgets.items() if b.idle(now)]:
            del self._budgets[chat]

    def _reserve(self, priority: int) -> int:
        return self._pacing.reserve if priority >= Priority.TABLE else 0

    def delay(self, chat: int | str, priority: Priority = Priority.URGENT) -> float:
        """Seconds a request to ``chat`` at ``priority`` would wait now (0: it goes at
        once); what is queued ahead of it counts."""
        budget = self._budgets.get(chat)
        if budget is None:
            return 0.0
        now = self._now()
        ahead = sum(1 for p, _, f in budget.waiting if p <= priority and not f.done())
        return budget.wait(now, self._reserve(priority)) + ahead * budget.interval

    async def acquire(self, chat: int | str, priority: Priority = Priority.OWN) -> None:
        """Wait until ``chat``'s budget (and the overall cap, if any) lets one more
        request go, in priority order."""
        await self._acquire(self._budget(chat), priority)
        if self._overall is not None:
            await self._acquire(self._overall, priority)

    async def _shared_slot(self, chat: int | str) -> None:
        """A request is about to go to ``chat``: if other processes may write there too,
        wait for the chat's shared slot (taken only for a request that goes: a budget
        acquired for content that turned out unchanged costs the database nothing)."""
        shared = self.shared
        if shared is not None and isinstance(chat, int) and shared.shared(chat):
            wait = await shared.reserve(chat)
            if wait > 0:
                await asyncio.sleep(wait)

    async def _acquire(self, budget: _Budget, priority: int) -> None:
        now = self._now()
        if not budget.waiting and budget.wait(now, self._reserve(priority)) <= 0:
            budget.take(now)
            return
        future: asyncio.Future[None] = self._loop().create_future()
        heapq.heappush(budget.waiting, (int(priority), next(self._seq), future))
        self._schedule(budget)
        await future

    def _schedule(self, budget: _Budget) -> None:
        if budget.timer is not None:
            budget.timer.cancel()
            budget.timer = None
        while budget.waiting and budget.waiting[0][2].done():
            heapq.heappop(budget.waiting)  # cancelled while waiting
        if not budget.waiting:
            return
        wait = budget.wait(self._now(), self._reserve(budget.waiting[0][0]))
        budget.timer = self._loop().call_later(wait, self._wake, budget)

    def _wake(self, budget: _Budget) -> None:
        budget.timer = None
        now = self._now()
        while budget.waiting:
            priority, _, future = budget.waiting[0]
            if future.done():
                heapq.heappop(budget.waiting)
                continue
            if budget.wait(now, self._reserve(priority)) > 0:
                break
            heapq.heappop(budget.waiting)
            budget.take(now)
            future.set_result(None)
        self._schedule(budget)

    def assume_spent(self, chat: int | str) -> None:
        """Pace ``chat`` as if its burst were spent: after a restart, the process before
        may have spent it moments ago, and Telegram remembers. One request may go at
        once, the rest at the interval."""
        budget = self._budget(chat)
        now = self._now()
        budget.tat = max(budget.tat, now + (budget.burst - 1) * budget.interval)

    def pause(self, chat: int | str, seconds: float) -> None:
        """Telegram asked ``chat`` to wait: nothing goes there for ``seconds``, then the
        bucket refills from empty. Other chats go on."""
        budget = self._budget(chat)
        until = self._now() + max(0.0, seconds)
        budget.paused_until = max(budget.paused_until, until)
        budget.tat = max(budget.tat, until + (budget.burst - 1) * budget.interval)
        self._schedule(budget)
        shared = self.shared
        if shared is not None and isinstance(chat, int) and shared.shared(chat):
            task = self._loop().create_task(shared.pause(chat, seconds))
            self._pauses.add(task)
            task.add_done_callback(self._pauses.discard)

    # ------------------------------------------------------------------ PTB's hook

    async def _noted(
        self,
        chat: int,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        """A send, noted in :attr:`sent` while under way and once answered."""
        assert self.sent is not None
        with self.sent.sending(chat):
            result = await callback(*args, **kwargs)
            if isinstance(result, dict) and isinstance(result.get("message_id"), int):
                self.sent.sent(chat, result["message_id"])
        return result

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        """Queue a request that spends a chat's budget; send anything else at once. A 429
        pauses its chat and is retried (``max_retries`` times) unless the caller said it
        retries itself (:func:`paced` with ``retry=False``). A text too long for Telegram
        is cut to fit first."""
        fit_request(endpoint, data)
        chat = data.get("chat_id")
        if not isinstance(chat, int | str) or isinstance(chat, bool):
            chat = None
        elif isinstance(chat, str) and chat.lstrip("-").isdigit():
            chat = int(chat)
        inline = data.get("inline_message_id") if chat is None else None
        counted = (chat is not None or isinstance(inline, str)) and counts(endpoint)
        receiver = ephemeral_receiver(endpoint, data) if isinstance(chat, int) else None
        key: int | str | None = chat
        if chat is None and isinstance(inline, str):
            # an inline message is in a chat the bot is not told of, whose budget its edits
            # spend: each is paced as a group's
            key = inline_budget(inline)
        if receiver is not None:
            assert isinstance(chat, int)
            key = self.ephemeral_budget(chat, receiver)
        current = _CURRENT.get()
        prepaid = False
        if current is not None:
            priority, retry, prepaid = current.priority, current.retry, current.prepaid
        else:
            priority = Priority(rate_limit_args) if rate_limit_args is not None else Priority.OWN
            retry = True
        attempts = 0
        while True:
            if counted and not (prepaid and attempts == 0):
                assert key is not None
                await self.acquire(key, priority)
            if counted and self.shared is not None:
                assert key is not None
                await self._shared_slot(key)
            try:
                noted = self.sent is not None and endpoint == "sendMessage" and receiver is None
                if noted and isinstance(chat, int):
                    return await self._noted(chat, callback, args, kwargs)
                done = await callback(*args, **kwargs)
                if receiver is not None and isinstance(chat, int):
                    self._ephemeral_went(chat)
                return done
            except RetryAfter as exc:
                seconds = retry_after_seconds(exc)
                log.warning("chat %s: %s drew a flood wait of %.0f s", key, endpoint, seconds)
                attempts += 1
                if receiver is not None and isinstance(chat, int):
                    # one user's ephemeral messages were stopped: every group's are paced
                    # with the group from now on, and this one waits as its group waits
                    self._share_ephemeral()
                    self.pause(chat, seconds)
                if key is not None:
                    self.pause(key, seconds)
                if not retry or attempts > self._pacing.max_retries:
                    raise
                if chat is None:
                    await asyncio.sleep(seconds)


def inline_budget(inline_message_id: str) -> str:
    """The budget an inline message's edits spend: its own, a group's figures."""
    return f"i{inline_message_id}"


def pacing_of(settings: Settings) -> Pacing:
    """The per-chat pacing the bot's settings ask for (``DURAK_RATE_LIMITS`` and the
    intervals and bursts beside it)."""
    if settings.rate_limits == "retry-only":
        return Pacing.off()
    return Pacing(
        private_interval=settings.private_edit_interval,
        private_burst=settings.private_burst,
        group_interval=settings.group_edit_interval,
        group_burst=settings.group_burst,
        overall_rate=settings.overall_rate,
    )
