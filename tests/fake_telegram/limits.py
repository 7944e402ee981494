"""Flood control: Telegram's rate limits as settings, and 429s served on demand.

Each limit is a token bucket (GCRA): ``burst`` requests may go at once, then one
every ``1 / rate`` seconds. Three buckets are checked for a counted call:

* per private chat: ``chat_per_second`` with ``chat_burst`` ("avoid sending more than
  one message per second in a particular chat; short bursts are tolerated");
* per group or supergroup: ``group_per_minute`` with ``group_burst`` ("no more than
  20 messages per minute to the same group");
* global: ``global_per_second`` with ``global_burst`` ("about 30 messages per second").

The bucket model is the same leaky bucket that PTB's ``AIORateLimiter`` uses, so a bot
that stays under that limiter's figures never draws a 429 here for groups and for the
global limit (the limiter has no per-private-chat bucket). Telegram does not publish
burst sizes; the defaults are guesses, and every figure is a setting.

Only calls that succeed consume capacity; a refused call (4xx) costs nothing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

#: Methods that send a message and so count toward every limit.
SEND_METHODS = frozenset(
    {
        "sendmessage",
        "sendphoto",
        "senddocument",
        "sendsticker",
        "sendanimation",
        "sendaudio",
        "sendvideo",
        "sendvoice",
        "senddice",
        "sendpoll",
        "sendlocation",
        "sendcontact",
        "sendmediagroup",
        "forwardmessage",
        "copymessage",
    }
)
#: Methods that edit a message; they count as well when ``Limits.count_edits`` is set.
EDIT_METHODS = frozenset(
    {"editmessagetext", "editmessagereplymarkup", "editmessagecaption", "editmessagemedia"}
)


@dataclass(frozen=True)
class Limits:
    """Flood-control settings. ``time_scale`` multiplies every period (0.01 = 100x faster)."""

    enabled: bool = True
    time_scale: float = 1.0
    chat_per_second: float = 1.0
    chat_burst: int = 5
    group_per_minute: float = 20.0
    group_burst: int = 20
    global_per_second: float = 30.0
    global_burst: int = 30
    #: Seconds of tolerance for jitter: requests a client's limiter released in good time
    #: may arrive bunched up (new connections, a busy test machine). Not scaled by
    #: ``time_scale``. 0.25 s is 7 extra requests at 30/s, and a quarter of one at 1/s.
    slack: float = 0.25
    #: Edits count toward the limits, as in Telegram.
    count_edits: bool = True
    #: Also apply the per-chat bucket in groups (the group bucket applies anyway).
    chat_limit_in_groups: bool = False

    def __post_init__(self) -> None:
        if self.time_scale <= 0:
            raise ValueError("time_scale must be positive")
        for name in ("chat_per_second", "group_per_minute", "global_per_second"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        for name in ("chat_burst", "group_burst", "global_burst"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")

    @classmethod
    def telegram(cls) -> Limits:
        """Telegram's published figures: 1/s per chat, 20/min per group, 30/s overall."""
        return cls()

    @classmethod
    def fast(cls, time_scale: float = 0.02) -> Limits:
        """The same figures with time shrunk (default 50x), for quick tests."""
        return replace(cls(), time_scale=time_scale, slack=0.01)

    @classmethod
    def off(cls) -> Limits:
        """No flood control at all (forced 429s still apply)."""
        return cls(enabled=False)

    def counts(self, method: str) -> bool:
        """Whether a call of ``method`` (any case) counts toward the limits."""
        name = method.lower()
        return name in SEND_METHODS or (self.count_edits and name in EDIT_METHODS)


@dataclass
class Bucket:
    """A token bucket kept as a theoretical arrival time (GCRA)."""

    interval: float
    burst: int
    slack: float
    tat: float = 0.0

    def wait(self, now: float) -> float:
        """Seconds until one more request fits (0 if it fits now)."""
        tat = max(self.tat, now)
        wait = tat + self.interval - now - self.burst * self.interval - self.slack
        return wait if wait > 1e-9 else 0.0  # no float noise at the exact boundary

    def consume(self, now: float) -> None:
        """Take one request's worth of capacity."""
        self.tat = max(self.tat, now) + self.interval


@dataclass
class Forced429:
    """A pending "429 on demand": the next ``remaining`` matching calls are refused."""

    remaining: int
    retry_after: int
    chat_id: int | str | None = None
    method: str | None = None

    def matches(self, method: str, chat_id: int | str | None) -> bool:
        """Whether a call of ``method`` to ``chat_id`` is one of those to refuse."""
        if self.remaining <= 0:
            return False
        if self.method is None:
            if method.lower() == "getupdates":
                return False
        elif self.method.lower() != method.lower():
            return False
        return self.chat_id is None or self.chat_id == chat_id


@dataclass
class RateLimiter:
    """The server's buckets and forced 429s."""

    limits: Limits = field(default_factory=Limits.telegram)
    clock: Callable[[], float] = time.monotonic
    _chats: dict[int, Bucket] = field(default_factory=dict)
    _groups: dict[int, Bucket] = field(default_factory=dict)
    _global: Bucket | None = None
    _forced: list[Forced429] = field(default_factory=list)

    def set_limits(self, limits: Limits) -> None:
        """Install new settings and forget all spent capacity."""
        self.limits = limits
        self.reset()

    def reset(self) -> None:
        """Forget all spent capacity (forced 429s stay)."""
        self._chats.clear()
        self._groups.clear()
        self._global = None

    def force(
        self,
        times: int = 1,
        retry_after: int = 1,
        *,
        chat_id: int | str | None = None,
        method: str | None = None,
    ) -> None:
        """Refuse the next ``times`` matching calls with 429 and ``retry_after``."""
        if times < 1 or retry_after < 1:
            raise ValueError("times and retry_after must be at least 1")
        self._forced.append(Forced429(times, retry_after, chat_id, method))

    def take_forced(self, method: str, chat_id: int | str | None) -> int | None:
        """If a forced 429 matches this call, use it up and return its retry_after."""
        for forced in self._forced:
            if forced.matches(method, chat_id):
                forced.remaining -= 1
                if forced.remaining <= 0:
                    self._forced.remove(forced)
                return forced.retry_after
        return None

    @property
    def forced_pending(self) -> int:
        """How many forced 429s are still to be served."""
        return sum(forced.remaining for forced in self._forced)

    def _buckets(self, chat_id: int, chat_type: str) -> list[Bucket]:
        lim = self.limits
        scale = lim.time_scale
        if self._global is None:
            self._global = Bucket(scale / lim.global_per_second, lim.global_burst, lim.slack)
        buckets = [self._global]
        is_group = chat_type in ("group", "supergroup", "channel")
        if is_group:
            group = self._groups.get(chat_id)
            if group is None:
                interval = scale * 60.0 / lim.group_per_minute
                group = self._groups[chat_id] = Bucket(interval, lim.group_burst, lim.slack)
            buckets.append(group)
        if not is_group or lim.chat_limit_in_groups:
            chat = self._chats.get(chat_id)
            if chat is None:
                interval = scale / lim.chat_per_second
                chat = self._chats[chat_id] = Bucket(interval, lim.chat_burst, lim.slack)
            buckets.append(chat)
        return buckets

    def check(self, method: str, chat_id: int, chat_type: str) -> int | None:
        """The retry_after (whole seconds, at least 1) if this call would flood, else None."""
        if not self.limits.enabled or not self.limits.counts(method):
            return None
        now = self.clock()
        wait = max(bucket.wait(now) for bucket in self._buckets(chat_id, chat_type))
        if wait <= 0:
            return None
        return max(1, math.ceil(wait))

    def consume(self, method: str, chat_id: int, chat_type: str) -> None:
        """Charge a call that succeeded."""
        if not self.limits.enabled or not self.limits.counts(method):
            return
        now = self.clock()
        for bucket in self._buckets(chat_id, chat_type):
            bucket.consume(now)
