"""Flood control: Telegram's rate limits as settings, and 429s served on demand.

What Telegram's maintainers say about a bot's limits (tdlib/td#2592, tdlib/td#1834 and
the Bot API FAQ, https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this):

* The limits are per chat. Sending and editing messages share one limit: "avoid sending
  more than one message per second in a particular chat; short bursts are tolerated",
  and "no more than 20 messages per minute to the same group".
* A 429 ("Too Many Requests: retry after N", ``parameters.retry_after``) concerns only
  the chat it was drawn in; other chats are not affected.
* There is no global limit on a bot's interactive traffic. The "about 30 messages per
  second" figure is for bulk notifications (broadcasts to many users at once).
* answerCallbackQuery and reading methods (getMe, getChat, ...) are not limited.
* A flood wait can also fall on calls that name no chat: bots that set their command
  menus on every start meet 429s on setMyCommands with waits of hundreds of seconds
  (openclaw/openclaw#49569). While it lasts every such call is refused, each 429's
  ``retry_after`` "the number of seconds left to wait before the request can be
  repeated" (the Bot API's ResponseParameters): ``flood_wait`` models it.

The model:

* per private chat: a token bucket (GCRA) of ``chat_per_second`` with ``chat_burst``
  requests at once (Telegram publishes no burst size; 4 is a guess);
* per group or supergroup: at most ``group_per_minute`` counted calls in any 60-second
  window (a sliding window over the times of the last calls). With ``group_burst`` set,
  a token bucket of ``group_per_minute`` per minute and that burst is used instead;
* global (off by default): with ``global_per_second`` set, a token bucket of that rate
  and ``global_burst`` over all chats, to model a broadcast cap.

Counted calls: every send and edit method and deleteMessage/deleteMessages, all drawing
on the one budget of their chat. Ephemeral sends, edits and deletions (Bot API 10.2) have
no documented limits; ``Limits.ephemeral`` offers two readings: "own" (default), a private
chat's bucket per (group, receiver) pair, apart from the group's window; "group", the
group's window shared with its ordinary messages. Only calls that succeed consume
capacity; a refused call (4xx, "message is not modified" included) costs nothing.
``slack`` lets a call come that many seconds early, since requests a client released in
good time may arrive bunched up. ``time_scale`` multiplies every period, so tests can
run the same figures faster. Checking and charging a call costs O(1) whatever the number of chats.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

#: Methods that send a message; they count toward the chat's limit.
SEND_METHODS = frozenset(
    {
        "sendmessage",
        "sendphoto",
        "senddocument",
        "sendsticker",
        "sendanimation",
        "sendaudio",
        "sendvideo",
        "sendvideonote",
        "sendvoice",
        "senddice",
        "sendpoll",
        "sendlocation",
        "sendvenue",
        "sendcontact",
        "sendmediagroup",
        "sendpaidmedia",
        "sendinvoice",
        "sendgame",
        "forwardmessage",
        "forwardmessages",
        "copymessage",
        "copymessages",
    }
)
#: Methods that edit a message; they count when ``Limits.count_edits`` is set (default).
EDIT_METHODS = frozenset(
    {
        "editmessagetext",
        "editmessagereplymarkup",
        "editmessagecaption",
        "editmessagemedia",
        "editmessagelivelocation",
        "stopmessagelivelocation",
        "stoppoll",
        "editephemeralmessagetext",
        "editephemeralmessagecaption",
        "editephemeralmessagemedia",
        "editephemeralmessagereplymarkup",
    }
)
#: Methods that delete messages; they count when ``Limits.count_deletes`` is set (default).
DELETE_METHODS = frozenset({"deletemessage", "deletemessages", "deleteephemeralmessage"})
#: ``Limits.ephemeral``: each (group, receiver) pair has a private chat's budget.
EPHEMERAL_OWN = "own"
#: ``Limits.ephemeral``: ephemeral calls share the group's budget with its other messages.
EPHEMERAL_GROUP = "group"

#: The period of the group limit, in seconds (before ``time_scale``).
GROUP_WINDOW = 60.0


@dataclass(frozen=True)
class Limits:
    """Flood-control settings. ``time_scale`` multiplies every period (0.01 = 100x faster)."""

    enabled: bool = True
    time_scale: float = 1.0
    #: Private chats: one message a second, short bursts tolerated.
    chat_per_second: float = 1.0
    chat_burst: int = 4
    #: Groups and supergroups: no more than this many counted calls in any minute.
    group_per_minute: int = 20
    #: None: the sliding window above. A number: a token bucket of ``group_per_minute``
    #: per minute with this burst instead (lets a call through every 60/rate seconds
    #: after the burst, as PTB's ``AIORateLimiter`` paces groups).
    group_burst: int | None = None
    #: None: no global limit (Telegram has none for interactive traffic). A rate: a
    #: token bucket over all chats with ``global_burst``, modelling a broadcast cap.
    global_per_second: float | None = None
    global_burst: int = 30
    #: Seconds a call may come early: requests a client's limiter released in good time
    #: may arrive bunched up (new connections, a busy test machine). Not scaled by
    #: ``time_scale``. For a bucket it is a fraction of one more request; for the group
    #: window, a call counts as if made ``slack`` seconds later than it was.
    slack: float = 0.25
    #: Edits share the chat's limit with sends, as in Telegram.
    count_edits: bool = True
    #: Deletions share the chat's limit too.
    count_deletes: bool = True
    #: Also apply the private-chat bucket in groups (the group limit applies anyway).
    chat_limit_in_groups: bool = False
    #: Ephemeral sends, edits and deletions (Bot API 10.2), whose limits Telegram does
    #: not document. "own": each (group, receiver) pair has a private chat's budget
    #: (``chat_per_second``, ``chat_burst``), apart from the group's; "group": they share
    #: the group's budget (``group_per_minute``) with its ordinary messages.
    ephemeral: str = EPHEMERAL_OWN

    def __post_init__(self) -> None:
        if self.time_scale <= 0:
            raise ValueError("time_scale must be positive")
        if self.chat_per_second <= 0:
            raise ValueError("chat_per_second must be positive")
        if self.global_per_second is not None and self.global_per_second <= 0:
            raise ValueError("global_per_second must be positive (or None for no limit)")
        if self.group_per_minute < 1 or int(self.group_per_minute) != self.group_per_minute:
            raise ValueError("group_per_minute must be a whole number, at least 1")
        for name in ("chat_burst", "global_burst"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.group_burst is not None and self.group_burst < 1:
            raise ValueError("group_burst must be at least 1 (or None for the window)")
        if self.slack < 0:
            raise ValueError("slack must not be negative")
        if self.ephemeral not in (EPHEMERAL_OWN, EPHEMERAL_GROUP):
            raise ValueError('ephemeral must be "own" or "group"')

    @classmethod
    def telegram(cls) -> Limits:
        """Telegram's figures: 1/s per private chat (burst 4), 20 a minute per group."""
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
        return (
            name in SEND_METHODS
            or (self.count_edits and name in EDIT_METHODS)
            or (self.count_deletes and name in DELETE_METHODS)
        )


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
class Window:
    """At most ``limit`` requests in any ``period`` seconds: a sliding window.

    Only the times of the last ``limit`` requests matter (a new one fits when the oldest
    of them has left the window), so a bounded deque keeps check and charge O(1).
    """

    period: float
    limit: int
    slack: float
    times: deque[float] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self.times = deque(self.times, maxlen=self.limit)

    def wait(self, now: float) -> float:
        """Seconds until one more request fits (0 if it fits now)."""
        if len(self.times) < self.limit:
            return 0.0
        wait = self.times[0] + self.period - now - self.slack
        return wait if wait > 1e-9 else 0.0

    def consume(self, now: float) -> None:
        """Record one request (the oldest beyond ``limit`` drops out)."""
        self.times.append(now)


Limiter = Bucket | Window


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
    """The server's per-chat limits, the optional global one, and forced 429s."""

    limits: Limits = field(default_factory=Limits.telegram)
    clock: Callable[[], float] = time.monotonic
    _chats: dict[int, Bucket] = field(default_factory=dict)
    _groups: dict[int, Limiter] = field(default_factory=dict)
    _pairs: dict[tuple[int, int], Bucket] = field(default_factory=dict)
    _global: Bucket | None = None
    _forced: list[Forced429] = field(default_factory=list)
    _floods: dict[str, float] = field(default_factory=dict)

    def set_limits(self, limits: Limits) -> None:
        """Install new settings and forget all spent capacity."""
        self.limits = limits
        self.reset()

    def reset(self) -> None:
        """Forget all spent capacity (forced 429s stay)."""
        self._chats.clear()
        self._groups.clear()
        self._pairs.clear()
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

    def flood_wait(self, seconds: float, methods: Iterable[str]) -> None:
        """Refuse every call of ``methods`` (any case) with 429 for ``seconds`` from now,
        each 429's retry_after the whole seconds left; 0 lifts the wait."""
        if seconds < 0:
            raise ValueError("seconds must not be negative")
        if isinstance(methods, str):
            raise TypeError("methods is a set of method names, not one string")
        until = self.clock() + seconds
        for method in methods:
            if seconds > 0:
                self._floods[method.lower()] = until
            else:
                self._floods.pop(method.lower(), None)

    def take_flood(self, method: str) -> int | None:
        """The retry_after of a flood wait in force for ``method``, or None."""
        until = self._floods.get(method.lower())
        if until is None:
            return None
        left = until - self.clock()
        if left <= 0:
            del self._floods[method.lower()]
            return None
        return max(1, math.ceil(left))

    @property
    def forced_pending(self) -> int:
        """How many forced 429s are still to be served."""
        return sum(forced.remaining for forced in self._forced)

    def _limiters(self, chat_id: int, chat_type: str, receiver: int | None) -> list[Limiter]:
        lim = self.limits
        scale = lim.time_scale
        found: list[Limiter] = []
        if lim.global_per_second is not None:
            if self._global is None:
                interval = scale / lim.global_per_second
                self._global = Bucket(interval, lim.global_burst, lim.slack)
            found.append(self._global)
        if receiver is not None and lim.ephemeral == EPHEMERAL_OWN:
            pair = self._pairs.get((chat_id, receiver))
            if pair is None:
                interval = scale / lim.chat_per_second
                pair = Bucket(interval, lim.chat_burst, lim.slack)
                self._pairs[(chat_id, receiver)] = pair
            found.append(pair)
            return found
        is_group = chat_type in ("group", "supergroup", "channel")
        if is_group:
            group = self._groups.get(chat_id)
            if group is None:
                if lim.group_burst is None:
                    group = Window(scale * GROUP_WINDOW, int(lim.group_per_minute), lim.slack)
                else:
                    interval = scale * GROUP_WINDOW / lim.group_per_minute
                    group = Bucket(interval, lim.group_burst, lim.slack)
                self._groups[chat_id] = group
            found.append(group)
        if not is_group or lim.chat_limit_in_groups:
            chat = self._chats.get(chat_id)
            if chat is None:
                interval = scale / lim.chat_per_second
                chat = self._chats[chat_id] = Bucket(interval, lim.chat_burst, lim.slack)
            found.append(chat)
        return found

    def check(
        self, method: str, chat_id: int, chat_type: str, *, receiver: int | None = None
    ) -> int | None:
        """The retry_after (whole seconds, at least 1) if this call would flood, else None.
        ``receiver``: an ephemeral call to that user (see ``Limits.ephemeral``)."""
        if not self.limits.enabled or not self.limits.counts(method):
            return None
        now = self.clock()
        limiters = self._limiters(chat_id, chat_type, receiver)
        if not limiters:
            return None
        wait = max(limiter.wait(now) for limiter in limiters)
        if wait <= 0:
            return None
        return max(1, math.ceil(wait))

    def consume(
        self, method: str, chat_id: int, chat_type: str, *, receiver: int | None = None
    ) -> None:
        """Charge a call that succeeded (``receiver``: an ephemeral call to that user)."""
        if not self.limits.enabled or not self.limits.counts(method):
            return
        now = self.clock()
        for limiter in self._limiters(chat_id, chat_type, receiver):
            limiter.consume(now)
