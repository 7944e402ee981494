"""The bot's command menus and descriptions, set in the background and only when changed.

Nine languages, two menus and two descriptions each: 36 calls. Made before the first
update was handled, with every flood wait waited out in place, they kept a restarted bot
deaf for as long as Telegram asked (hundreds of seconds for a bot that sends them on every
start). So the bot handles updates at once, and a task of its own sets the menus: it skips
what it set before (a digest of each call, kept in the store per bot), and a flood wait or
a network failure only postpones the rest, in that task, until Telegram lets it go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Final

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
)
from telegram.error import RetryAfter, TelegramError

from bot import render as r
from bot.base.i18n import RUSSIAN_SPOKEN, pick_lang, tr
from bot.store import Store, StoreError
from bot.transport import tgerrors
from bot.transport.pacing import Priority, paced, retry_after_seconds

__all__ = ["MENU_LANGUAGES", "STATE_KEY", "MenuCall", "Menus", "menu_calls"]

log = logging.getLogger(__name__)

MENU_LANGUAGES: Final = (None, *sorted(RUSSIAN_SPOKEN), "uk", "en")
"""The language codes the command menus and descriptions are set for: the default (None,
English), every language answered in Russian (ru, be, kk...), Ukrainian, and English
itself."""

STATE_KEY: Final = "menus"
"""Where the store keeps the digests of the calls that succeeded (JSON: name -> digest)."""

_SCOPES: Final[dict[str, Callable[[], BotCommandScope]]] = {
    "group": BotCommandScopeAllGroupChats,
    "private": BotCommandScopeAllPrivateChats,
}


@dataclass(frozen=True, slots=True)
class MenuCall:
    """One of the calls that set the menus: its name, what it sets, and how it is sent."""

    name: str
    """``commands.private.uk``, ``description.-`` (``-``: the default language)..."""
    content: str
    """What the call sets, as JSON: with the bot's id, the source of its digest."""
    send: Callable[[Bot], Awaitable[object]]

    def digest(self, bot_id: int) -> str:
        """What a successful call is remembered by: another bot, or other content, differs."""
        source = f"{bot_id}\0{self.name}\0{self.content}".encode()
        return hashlib.sha256(source).hexdigest()[:32]


def menu_calls() -> list[MenuCall]:
    """Every call the menus and descriptions take, in the order they are made."""
    calls = []
    for code in MENU_LANGUAGES:
        lang = pick_lang(code)
        suffix = code or "-"
        for scope in _SCOPES:
            commands = r.bot_commands(lang, scope)  # type: ignore[arg-type]
            ephemeral = sorted(r.EPHEMERAL_COMMANDS[scope])  # type: ignore[index]
            send = partial(_set_commands, commands=commands, scope=scope, code=code)
            content = _json([commands, ephemeral] if ephemeral else commands)
            calls.append(MenuCall(f"commands.{scope}.{suffix}", content, send))
        for kind, key in (("description", "about.description"), ("short", "about.short")):
            text = tr(lang, key)
            send = partial(_set_text, kind=kind, text=text, code=code)
            calls.append(MenuCall(f"{kind}.{suffix}", _json(text), send))
    return calls


async def _set_commands(
    bot: Bot, *, commands: list[tuple[str, str]], scope: str, code: str | None
) -> object:
    ephemeral = r.EPHEMERAL_COMMANDS[scope]  # type: ignore[index]
    # BotCommand.is_ephemeral (Bot API 10.2) is newer than PTB 22.8: an extra field
    found = [
        BotCommand(name, text, api_kwargs={"is_ephemeral": True} if name in ephemeral else None)
        for name, text in commands
    ]
    return await bot.set_my_commands(found, scope=_SCOPES[scope](), language_code=code)


async def _set_text(bot: Bot, *, kind: str, text: str, code: str | None) -> object:
    if kind == "description":
        return await bot.set_my_description(text, language_code=code)
    return await bot.set_my_short_description(text, language_code=code)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Menus:
    """Sets whatever of :func:`menu_calls` the store has no digest of, in a task of its own.

    A flood wait postpones the next call until Telegram allows it; a network failure is
    tried again with backoff; a refusal skips that call (it is tried at the next start).
    Nothing is logged above WARNING for any of these: the bot works without its menus.
    """

    def __init__(
        self,
        bot: Bot,
        store: Store,
        *,
        calls: list[MenuCall] | None = None,
        backoff: tuple[float, float] = (1.0, 300.0),
    ) -> None:
        self._bot = bot
        self._store = store
        self._calls = menu_calls() if calls is None else calls
        self._backoff = backoff
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start setting the menus in the background."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="menus")

    @property
    def done(self) -> bool:
        """Whether the task has ended (every call made, or stopped)."""
        return self._task is not None and self._task.done()

    async def stop(self) -> None:
        """Cancel the task (a call under way is dropped; it is made at the next start)."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _kept(self) -> dict[str, str]:
        text = await self._store.get_state(STATE_KEY)
        try:
            found = json.loads(text) if text else {}
        except ValueError:
            found = None
        if not isinstance(found, dict):
            log.warning("menus: the kept digests are unreadable; every menu is set again")
            return {}
        return {str(k): str(v) for k, v in found.items()}

    async def _run(self) -> None:
        try:
            await self._set_missing()
        except StoreError as exc:  # the store closed under the task: the bot is stopping
            log.info("menus: stopped: %s", exc)

    async def _set_missing(self) -> None:
        bot_id = self._bot.id
        kept = await self._kept()
        pending = [c for c in self._calls if kept.get(c.name) != c.digest(bot_id)]
        if not pending:
            log.info("menus: all %d set before, none sent", len(self._calls))
            return
        log.info("menus: setting %d of %d", len(pending), len(self._calls))
        failures = 0
        sent = 0
        while pending:
            call = pending[0]
            try:
                # retry=False: a flood wait comes back here at once, to be waited out by
                # this task alone, never by a request held open meanwhile
                with paced(Priority.WATCH, retry=False):
                    await call.send(self._bot)
            except RetryAfter as exc:
                seconds = retry_after_seconds(exc)
                log.info(
                    "menus: %s waits %.0f s for Telegram's flood control (%d to set)",
                    call.name,
                    seconds,
                    len(pending),
                )
                await asyncio.sleep(seconds)
                continue
            except TelegramError as exc:
                if tgerrors.is_transient(exc):
                    failures += 1
                    delay = min(self._backoff[1], self._backoff[0] * 2.0 ** (failures - 1))
                    log.info("menus: %s failed (%s), again in %.0f s", call.name, exc, delay)
                    await asyncio.sleep(delay)
                    continue
                log.warning("menus: %s refused: %s", call.name, exc)
                pending.pop(0)
                continue
            failures = 0
            sent += 1
            pending.pop(0)
            kept[call.name] = call.digest(bot_id)
            await self._store.set_state(STATE_KEY, _json(kept))
        log.info("menus: %d set", sent)
