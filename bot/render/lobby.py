"""The lobby message in the group, the computer-player menu, and the "open a chat with me"
prompt with its deep link."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from bot.base.i18n import Lang, tr
from bot.ratings.odds import Odds
from bot.service import callbacks as cb
from engine import Rules
from engine.rules import TEAM_PLAYERS

from .common import Button, Keyboard, Player, Screen, chunk, esc, name_of, short_name
from .ratings import lobby_odds_lines
from .rules_text import rules_summary
from .tourney import tourney_games_row, tourney_lobby_lines

__all__ = [
    "AI_LEVELS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "LobbyContext",
    "join_link",
    "lobby_problem",
    "render_ai_picker",
    "render_lobby",
    "render_need_private",
]

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6
AI_LEVELS: Final[tuple[int, ...]] = (0, 1, 2)
"""Computer-player levels offered: easy, medium, hard (``ai.level.<n>`` in the catalogs)."""


@dataclass(frozen=True, slots=True)
class LobbyContext:
    """What the lobby screens need besides rules and seats."""

    table_id: int
    version: int
    creator: str | None = None
    """The lobby creator's name (raw), shown as the one who may change settings."""
    codec: cb.CallbackCodec = field(default_factory=cb.CallbackCodec)
    open_url: str | None = None
    """The Mini App's direct link to this table, if it has one."""
    tourney: int | None = None
    """A tournament's sign-up: the number of games chosen (None: a lobby for one game)."""


def lobby_problem(rules: Rules, players: int, lang: Lang) -> str | None:
    """Why these rules cannot start with ``players`` seated (None if they can)."""
    try:
        rules.check_players(players)
    except ValueError:
        pass
    else:
        return None
    allowed = TEAM_PLAYERS.get(rules.teams, tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)))
    if players not in allowed:
        if rules.teams != "none":
            counts = tr(lang, "lobby.or").join(str(n) for n in allowed)
            teams = tr(lang, f"opt.teams.v.{rules.teams}")
            return tr(lang, "lobby.warn_teams", teams=teams, counts=counts)
        return tr(lang, "lobby.warn_count", min=MIN_PLAYERS, max=MAX_PLAYERS)
    return tr(lang, "lobby.warn_deck", players=players, hand=rules.hand_size, deck=rules.deck_size)


def ai_level_name(lang: Lang, level: int | None) -> str:
    """A computer player's level in words."""
    key = f"ai.level.{level}"
    return tr(lang, key) if level in AI_LEVELS else tr(lang, "ai.level.other", level=level)


def render_lobby(
    rules: Rules,
    players: Sequence[Player],
    lang: Lang,
    ctx: LobbyContext,
    odds: Odds | None = None,
) -> Screen:
    """The lobby: rules summary, seated players (with their ratings and chances not to be
    the durak, given ``odds``), and Join/Leave/Settings/Add computer/Start (plus a remove
    button for each computer player)."""
    t, v, codec = ctx.table_id, ctx.version, ctx.codec
    lines = [tr(lang, "lobby.title"), "", rules_summary(rules, lang), ""]
    if ctx.tourney is not None:
        lines[:1] = tourney_lobby_lines(ctx.tourney, lang)
    lines.append(tr(lang, "lobby.players", n=len(players), max=MAX_PLAYERS))
    if players:
        names = []
        for i, player in enumerate(players):
            name = name_of(players, i)
            if player.is_ai:
                name = tr(
                    lang, "lobby.ai_seat", name=name, level=ai_level_name(lang, player.ai_level)
                )
            names.append(name)
        if odds is not None:
            lines.extend(lobby_odds_lines(odds, players, lang, names))
        else:
            lines.extend(tr(lang, "lobby.seat", i=i, name=name) for i, name in enumerate(names, 1))
    else:
        lines.append(tr(lang, "lobby.empty"))
    lines.append("")
    problem = lobby_problem(rules, len(players), lang)
    lines.append(f"⚠️ {problem}" if problem else tr(lang, "lobby.ready"))
    lines.append(tr(lang, "lobby.hint"))
    if ctx.creator:
        lines.append(tr(lang, "lobby.creator", name=esc(short_name(ctx.creator))))
    rows: list[tuple[Button, ...]] = [
        (
            Button.cb(tr(lang, "lobby.btn.join"), codec, cb.Join(t, v)),
            Button.cb(tr(lang, "lobby.btn.leave"), codec, cb.Leave(t, v)),
        ),
        (
            Button.cb(tr(lang, "lobby.btn.add_ai"), codec, cb.AiMenu(t, v)),
            Button.cb(tr(lang, "lobby.btn.settings"), codec, cb.Settings(t, v)),
        ),
    ]
    kicks = [
        Button.cb(tr(lang, "lobby.btn.kick", name=short_name(p.name, 16)), codec, cb.Kick(t, v, i))
        for i, p in enumerate(players)
        if p.is_ai
    ]
    rows.extend(chunk(kicks, 3))
    if ctx.tourney is not None:
        rows.append(tourney_games_row(ctx.tourney, t, v, lang, codec))
    rows.append((Button.cb(tr(lang, "lobby.btn.start"), codec, cb.Start(t, v)),))
    if ctx.open_url:
        rows.append((Button.link(tr(lang, "table.btn.open_app"), ctx.open_url),))
    return Screen("\n".join(lines), Keyboard.of(rows))


def with_seats(screen: Screen, players: Sequence[Player], lang: Lang, ctx: LobbyContext) -> Screen:
    """A settings page or the computer picker as the lobby's message: who is seated, and
    the Join and Leave buttons, so the others can still sit down while the creator
    browses the settings."""
    t, v, codec = ctx.table_id, ctx.version, ctx.codec
    names = ", ".join(name_of(players, i) for i in range(len(players)))
    seated = tr(lang, "lobby.players", n=len(players), max=MAX_PLAYERS)
    text = f"{screen.text}\n\n{seated} {names}" if names else f"{screen.text}\n\n{seated}"
    row = (
        Button.cb(tr(lang, "lobby.btn.join"), codec, cb.Join(t, v)),
        Button.cb(tr(lang, "lobby.btn.leave"), codec, cb.Leave(t, v)),
    )
    rows = screen.keyboard.rows if screen.keyboard is not None else ()
    return Screen(text, Keyboard.of([*rows, row]))


def render_ai_picker(lang: Lang, ctx: LobbyContext) -> Screen:
    """Choose the level of a computer player to seat."""
    t, v, codec = ctx.table_id, ctx.version, ctx.codec
    buttons = [
        Button.cb(tr(lang, "ai.btn.level", level=ai_level_name(lang, n)), codec, cb.AddAi(t, v, n))
        for n in AI_LEVELS
    ]
    rows = [tuple(buttons), (Button.cb(tr(lang, "settings.btn.lobby"), codec, cb.Lobby(t, v)),)]
    return Screen(tr(lang, "ai.picker"), Keyboard.of(rows))


def join_link(bot_username: str, table_id: int, codec: cb.CallbackCodec | None = None) -> str:
    """``https://t.me/<bot>?start=<payload>``: opens the bot and seats the user on the way
    (usable as the ``url`` of ``answerCallbackQuery`` too)."""
    payload = (codec or cb.CallbackCodec()).join_payload(table_id)
    return f"https://t.me/{bot_username}?start={payload}"


def render_need_private(
    lang: Lang,
    bot_username: str,
    table_id: int,
    name: str | None = None,
    codec: cb.CallbackCodec | None = None,
) -> Screen:
    """A group message for someone who must open the private chat first, with the button."""
    text = (
        tr(lang, "lobby.need_private_named", name=esc(short_name(name)))
        if name
        else tr(lang, "lobby.need_private")
    )
    button = Button.link(tr(lang, "lobby.btn.open_bot"), join_link(bot_username, table_id, codec))
    return Screen(text, Keyboard.of([[button]]))
