"""Network faults: calls that time out, connections reset, and 5xx pages from the gateway.

Between a bot and the Bot API there is a network and Telegram's front end (nginx), and
both fail now and then. A bot must survive three kinds of failure, each of which PTB
raises as ``telegram.error.NetworkError`` (``TimedOut`` for the first):

* timeout: no answer comes in time. The client gives up after its read timeout; the
  call may or may not have been carried out by Telegram, before the client gave up or
  (a slow server behind the gateway: ``late``) only after it, when the client may have
  sent the same call again already.
* reset: the connection drops before an answer ("connection reset by peer"); again the
  call may or may not have been carried out.
* error: the gateway answers an HTTP 5xx with its own HTML page (``502 Bad Gateway``
  when the Bot API server behind it is down); the call was not carried out.

``Faults`` holds the rates; the server draws for every call that may fault (getUpdates
only when named in ``methods``) from one ``random.Random(seed)``, so the same sequence of
calls meets the same faults. Faults are drawn before flood control; a forced 429
(``force_429``) comes first. ``force`` serves a fault on demand to the next matching calls,
before any drawn by the rates.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import ApiCall

TIMEOUT = "timeout"
RESET = "reset"
ERROR = "error"

#: How nginx spells the reason phrase on its error pages, where it differs from HTTP's.
_NGINX_PHRASES = {
    503: "Service Temporarily Unavailable",
    504: "Gateway Time-out",
}


@dataclass(frozen=True)
class Faults:
    """Rates of network faults (each a probability per call, 0 to 1, at most 1 together)."""

    #: Calls held without an answer (the client times out).
    timeout: float = 0.0
    #: Calls whose connection is reset without an answer.
    reset: float = 0.0
    #: Calls answered by the gateway with ``error_status`` and its HTML page.
    error: float = 0.0
    error_status: int = 502
    #: For a timed-out or reset call: the chance it was carried out all the same.
    applied: float = 0.5
    seed: int = 0
    #: Seconds a timed-out call is held before the gateway answers 504 (the client
    #: normally disconnects first).
    hang: float = 30.0
    #: Methods that may fault (any case); None: every method but getUpdates.
    methods: frozenset[str] | None = None
    #: For a timed-out call that is carried out: the chance it is carried out only
    #: ``late_by`` seconds after the client gave up (or the gateway answered 504).
    late: float = 0.0
    late_by: float = 0.5

    def __post_init__(self) -> None:
        for name in ("timeout", "reset", "error", "applied", "late"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
        if self.timeout + self.reset + self.error > 1.0 + 1e-9:
            raise ValueError("timeout + reset + error must not exceed 1")
        if not 500 <= self.error_status <= 599:
            raise ValueError("error_status must be a 5xx status")
        if self.hang < 0:
            raise ValueError("hang must not be negative")
        if self.late_by < 0:
            raise ValueError("late_by must not be negative")
        if self.methods is not None:
            methods: Iterable[str] = self.methods
            if isinstance(methods, str):
                raise TypeError("methods is a set of method names, not one string")
            object.__setattr__(self, "methods", frozenset(m.lower() for m in methods))

    @property
    def active(self) -> bool:
        """Whether any fault can happen."""
        return self.timeout > 0 or self.reset > 0 or self.error > 0

    def may_fault(self, method: str) -> bool:
        """Whether a call of ``method`` (any case) is subject to faults."""
        name = method.lower()
        if self.methods is None:
            return name != "getupdates"
        return name in self.methods


@dataclass(frozen=True)
class Fault:
    """The fault drawn for one call."""

    kind: str
    #: Whether the call is carried out before the fault (timeout and reset only).
    applied: bool
    #: A timeout carried out only after the client gave up (``applied`` is True too).
    late: bool = False


@dataclass
class ForcedFault:
    """A pending fault on demand: the next ``remaining`` matching calls meet it."""

    remaining: int
    fault: Fault
    chat_id: int | str | None = None
    method: str | None = None

    def matches(self, method: str, chat_id: object) -> bool:
        """Whether a call of ``method`` to ``chat_id`` is one of those to fault (without
        ``method``: any but getUpdates)."""
        if self.method is None:
            if method.lower() == "getupdates":
                return False
        elif self.method.lower() != method.lower():
            return False
        return self.chat_id is None or str(self.chat_id) == str(chat_id)


class FaultInjector:
    """Draws faults for calls from one seeded random stream; serves forced ones first."""

    def __init__(self, faults: Faults | None = None) -> None:
        self.faults = faults or Faults()
        self._random = random.Random(self.faults.seed)
        self._forced: list[ForcedFault] = []

    def force(
        self,
        kind: str,
        times: int = 1,
        *,
        applied: bool = False,
        chat_id: int | str | None = None,
        method: str | None = None,
        late: bool = False,
    ) -> None:
        """Serve fault ``kind`` to the next ``times`` matching calls (``applied``: a
        timeout or reset is carried out first; a gateway error never is; ``late``: a
        timeout is carried out only after the client gave up)."""
        if kind not in (TIMEOUT, RESET, ERROR):
            raise ValueError(f"unknown fault {kind!r}")
        if times < 1:
            raise ValueError("times must be at least 1")
        if late and kind != TIMEOUT:
            raise ValueError("only a timeout is carried out late")
        fault = Fault(kind, applied=(applied or late) and kind != ERROR, late=late)
        self._forced.append(ForcedFault(times, fault, chat_id, method))

    @property
    def forced_pending(self) -> int:
        """How many forced faults are still to be served."""
        return sum(forced.remaining for forced in self._forced)

    def set_faults(self, faults: Faults | None) -> None:
        """Install new rates and restart the random stream from their seed."""
        self.faults = faults or Faults()
        self._random = random.Random(self.faults.seed)

    def draw(self, method: str, chat_id: object = None) -> Fault | None:
        """The fault for one call of ``method`` (to ``chat_id``), or None: a forced one
        if it matches, else one drawn by the rates.

        Calls that cannot fault draw nothing, so a varying number of long polls does not
        shift the faults the other calls meet.
        """
        for forced in self._forced:
            if forced.matches(method, chat_id):
                forced.remaining -= 1
                if forced.remaining <= 0:
                    self._forced.remove(forced)
                return forced.fault
        faults = self.faults
        if not faults.active or not faults.may_fault(method):
            return None
        roll = self._random.random()
        if roll < faults.timeout:
            kind = TIMEOUT
        elif roll < faults.timeout + faults.reset:
            kind = RESET
        elif roll < faults.timeout + faults.reset + faults.error:
            return Fault(ERROR, applied=False)
        else:
            return None
        applied = self._random.random() < faults.applied
        late = kind == TIMEOUT and applied and faults.late > 0
        return Fault(kind, applied, late and self._random.random() < faults.late)


@dataclass(eq=False)
class Hold:
    """Calls of one method held unanswered until :meth:`release` (or the server stops):
    a fixed point at which a test knows the bot is waiting on that call (to kill it there,
    say). Other calls go on meanwhile."""

    method: str
    #: The calls held so far, in arrival order (each still pending while held).
    calls: list[ApiCall] = field(default_factory=list)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def matches(self, method: str) -> bool:
        """Whether a call of ``method`` (any case) is held."""
        return not self.released.is_set() and method.lower() == self.method.lower()

    def release(self) -> None:
        """Let the held calls (and every later one) through."""
        self.released.set()


def gateway_phrase(status: int) -> str:
    """The reason phrase nginx puts on its page for ``status``."""
    if status in _NGINX_PHRASES:
        return _NGINX_PHRASES[status]
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def gateway_page(status: int) -> str:
    """The HTML page Telegram's nginx front end serves for a 5xx of its own."""
    title = f"{status} {gateway_phrase(status)}"
    return (
        f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n"
        f"<center><h1>{title}</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n"
        "</body>\r\n</html>\r\n"
    )
