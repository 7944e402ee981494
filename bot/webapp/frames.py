"""The frames a page may send, read and checked at the boundary (PROTOCOL.md, "Frames").

A frame is a JSON object of at most :data:`MAX_FRAME` bytes whose ``t`` is ``hello``,
``press`` or ``ping``, each with fields of the right types. Anything that is not a JSON
object, or a known frame with a field missing or of the wrong type, is malformed: the
socket is closed (1008). A frame of an unknown ``t`` is answered with a notice, so that a
newer page talking to an older server learns it was not understood.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

__all__ = [
    "CLOSE_FLOOD",
    "CLOSE_MALFORMED",
    "CLOSE_NO_TABLE",
    "CLOSE_TOO_BIG",
    "CLOSE_TOO_MANY",
    "CLOSE_UNAUTHORIZED",
    "MAX_FRAME",
    "ClientFrame",
    "FrameError",
    "Hello",
    "Ping",
    "Press",
    "Share",
    "Unknown",
    "ack",
    "error",
    "notice",
    "parse",
]

MAX_FRAME: Final = 4096
"""The largest frame a page may send, in bytes."""
MAX_PRESS: Final = 64
"""A press is callback data: at most 64 characters."""

CLOSE_MALFORMED: Final = 1008
CLOSE_TOO_BIG: Final = 1009
CLOSE_FLOOD: Final = 1008
CLOSE_UNAUTHORIZED: Final = 4401
CLOSE_NO_TABLE: Final = 4404
CLOSE_TOO_MANY: Final = 4429


class FrameError(ValueError):
    """A frame that cannot be read: the socket is closed with ``code``."""

    def __init__(self, detail: str, code: int = CLOSE_MALFORMED) -> None:
        super().__init__(detail)
        self.code = code


@dataclass(frozen=True, slots=True)
class Hello:
    """The first frame: who the user is (Telegram's raw init data) and which table."""

    init_data: str
    start: str | None


@dataclass(frozen=True, slots=True)
class Press:
    """A tap: the button's press string, and the state version the page showed."""

    press: str
    v: int


@dataclass(frozen=True, slots=True)
class Ping:
    """Still there? (answered with a pong)."""


@dataclass(frozen=True, slots=True)
class Share:
    """Invite someone to the table: the page asks for a prepared message to share."""


@dataclass(frozen=True, slots=True)
class Unknown:
    """A frame of a kind this server does not know."""

    t: str


ClientFrame: TypeAlias = Hello | Press | Ping | Share | Unknown


def _text(data: dict[str, Any], name: str, limit: int, *, optional: bool = False) -> str | None:
    value = data.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise FrameError(f"{name} must be a string of at most {limit} characters")
    return value


def parse(text: str | bytes) -> ClientFrame:
    """The frame ``text`` holds; :class:`FrameError` if it cannot be one."""
    if len(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")) > MAX_FRAME:
        raise FrameError("frame too big", CLOSE_TOO_BIG)
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise FrameError("not JSON") from None
    except RecursionError:
        # a few thousand brackets nest deeper than the parser recurses: malformed, said
        # as the protocol says it, not a traceback and a broken socket
        raise FrameError("nested too deep") from None
    if not isinstance(data, dict):
        raise FrameError("not a JSON object")
    kind = data.get("t")
    if not isinstance(kind, str):
        raise FrameError("no frame type")
    if kind == "hello":
        init_data = _text(data, "init_data", MAX_FRAME)
        assert init_data is not None
        return Hello(init_data, _text(data, "start", 64, optional=True))
    if kind == "press":
        press = _text(data, "press", MAX_PRESS)
        version = data.get("v")
        if not isinstance(version, int) or isinstance(version, bool) or version < 0:
            raise FrameError("v must be a state version")
        assert press is not None
        return Press(press, version)
    if kind == "ping":
        return Ping()
    if kind == "share":
        return Share()
    return Unknown(kind[:32])


def ack(version: int, text: str | None = None) -> dict[str, Any]:
    """A press was taken: the state version now, and what the chat would have said."""
    frame: dict[str, Any] = {"t": "ack", "v": version}
    if text:
        frame["text"] = text
    return frame


def notice(reason: str, text: str) -> dict[str, Any]:
    """A press (or frame) was refused: why, in the user's words."""
    return {"t": "notice", "reason": reason, "text": text}


def error(reason: str, text: str) -> dict[str, Any]:
    """The page cannot go on (the socket closes next)."""
    return {"t": "error", "reason": reason, "text": text}
