"""Short texts: /help, /start, /lang, command lists for setMyCommands, alerts, errors."""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

from bot.base.i18n import LANGS, Lang, has_key, tr
from bot.service import callbacks as cb

from .common import Button, Keyboard, Screen, esc, live_clock, short_name
from .lobby import join_link

__all__ = [
    "COMMANDS",
    "ENGINE_REASONS",
    "Scope",
    "alert",
    "bot_commands",
    "callback_problem",
    "render_blocked",
    "render_help",
    "render_lang_picker",
    "render_start",
]

Scope: TypeAlias = Literal["group", "private"]

COMMANDS: Final[dict[Scope, tuple[str, ...]]] = {
    "group": (
        "newgame",
        "tournament",
        "hand",
        "leave",
        "cancel",
        "rules",
        "stats",
        "top",
        "me",
        "lang",
        "help",
    ),
    "private": (
        "start",
        "quick",
        "play",
        "hand",
        "replay",
        "rules",
        "stats",
        "me",
        "lang",
        "help",
    ),
}
"""Commands per scope, in menu order; descriptions are ``cmd.<scope>.<command>``."""

EPHEMERAL_COMMANDS: Final[dict[Scope, frozenset[str]]] = {
    "group": frozenset({"hand"}),
    "private": frozenset(),
}
"""Commands sent as ephemeral commands (``BotCommand.is_ephemeral``, Bot API 10.2): seen by
the bot alone, answered to the sender alone."""

ENGINE_REASONS: Final[tuple[str, ...]] = (
    "game_over",
    "no_such_seat",
    "not_your_turn",
    "card_not_in_hand",
    "duplicate_card",
    "empty_lead",
    "mixed_ranks",
    "rank_not_on_table",
    "limit_reached",
    "not_on_table",
    "already_covered",
    "does_not_beat",
    "transfer_not_allowed",
    "transfer_rank",
    "transfer_limit",
    "not_a_trump",
    "already_shown",
    "unknown_action",
    "no_swap",
    "no_swaps_left",
    "not_a_set",
    "suit_needed",
)
"""The reason codes of :class:`engine.IllegalAction` (engine/errors.py)."""

CALLBACK_PROBLEMS: Final[tuple[str, ...]] = (
    "stale",
    "not_your_game",
    "malformed",
    "no_table",
    "not_seated",
    "not_allowed",
)


def bot_commands(lang: Lang, scope: Scope) -> list[tuple[str, str]]:
    """``(command, description)`` pairs for ``setMyCommands`` in ``lang`` and ``scope``."""
    return [(name, tr(lang, f"cmd.{scope}.{name}")) for name in COMMANDS[scope]]


def alert(lang: Lang, reason: str) -> str:
    """A short plain-text alert (≤ 200 characters) for an ``IllegalAction`` reason code or a
    :func:`bot.render.tap.tap_refusal` reason; unknown codes get a generic line."""
    key = f"err.{reason}"
    return tr(lang, key) if has_key(lang, key) else tr(lang, "err.unknown")


def callback_problem(lang: Lang, problem: str) -> str:
    """The alert for a button that cannot be used: ``stale``, ``not_your_game``,
    ``malformed``, ``no_table``, ``not_seated``, ``not_allowed`` (creator or admin only)."""
    key = f"cb.{problem}"
    return tr(lang, key) if has_key(lang, key) else tr(lang, "cb.malformed")


def render_help(lang: Lang, scope: Scope) -> str:
    """The /help text for a group or the private chat."""
    return tr(lang, f"help.{scope}")


def render_start(
    lang: Lang, bot_username: str | None = None, codec: cb.CallbackCodec | None = None
) -> Screen:
    """The /start greeting in the private chat: a quick game, and "add me to a group"."""
    codec = codec or cb.CallbackCodec()
    rows = [[Button.cb(tr(lang, "quick.btn.go"), codec, cb.Quick("go"))]]
    if bot_username:
        rows.append(
            [
                Button.link(
                    tr(lang, "help.btn.add_to_group"),
                    f"https://t.me/{bot_username}?startgroup=new",
                )
            ]
        )
    return Screen(tr(lang, "help.start"), Keyboard.of(rows))


def render_lang_picker(lang: Lang, codec: cb.CallbackCodec | None = None) -> Screen:
    """The /lang menu: one language a row, each named in itself, the current one marked."""
    codec = codec or cb.CallbackCodec()
    rows = []
    for code in LANGS:
        label = tr(lang, f"lang.name.{code}")
        if code == lang:
            label = tr(lang, "settings.btn.chosen", value=label)
        rows.append([Button.cb(label, codec, cb.SetLang(code))])
    return Screen(tr(lang, "lang.picker"), Keyboard.of(rows))


def render_nudge(
    lang: Lang, name: str, user_id: int, seconds: float, deadline: float | None
) -> str:
    """The group's reminder, at half time, to the player the game waits on: a mention
    (it notifies him) and the time left as a live clock."""
    mention = f'<a href="tg://user?id={user_id}">{esc(short_name(name))}</a>'
    return tr(lang, "table.nudge", name=mention, time=live_clock(lang, seconds, deadline))


def render_blocked(
    lang: Lang,
    name: str,
    bot_username: str,
    table_id: int,
    codec: cb.CallbackCodec | None = None,
    *,
    limited: bool = True,
    seconds: float | None = None,
    deadline: float | None = None,
) -> Screen:
    """A group message when the bot cannot write to a player (blocked, or never started):
    how to get back, with the button that reopens the chat, and the truth about his clock:
    without a time limit the game waits for him; else it does not, and if the game waits
    on him now, his time left (``seconds``) runs as a live clock."""
    shown = esc(short_name(name))
    text = tr(lang, "err.blocked", name=shown)
    if not limited:
        text += " " + tr(lang, "err.blocked_no_clock", name=shown)
    elif seconds is not None:
        clock = live_clock(lang, seconds, deadline)
        text += " " + tr(lang, "err.blocked_clock", name=shown, time=clock)
    else:
        text += " " + tr(lang, "err.blocked_later", name=shown)
    button = Button.link(tr(lang, "lobby.btn.open_bot"), join_link(bot_username, table_id, codec))
    return Screen(text, Keyboard.of([[button]]))
