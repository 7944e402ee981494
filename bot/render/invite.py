"""An invitation posted into any chat through inline mode: the inline results offered, the
lobby it is until the game starts (Join, Leave, Start), the public table while it runs
(never a card of a hand: the message is in a chat the bot cannot see into), and the end."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.base.i18n import Lang, tr
from bot.service import callbacks as cb
from engine import PublicView, Result, Rules

from .common import Button, Keyboard, Player, Screen, TableContext, esc, short_name
from .end import EndContext, render_end
from .rules_text import game_title, rules_summary
from .table import render_table

__all__ = [
    "INVITE_GAMES",
    "INVITE_SIZES",
    "InviteSpec",
    "invite_result",
    "render_invitation",
    "render_invitation_end",
    "render_invitation_table",
]

INVITE_GAMES: tuple[str, ...] = ("podkidnoy", "perevodnoy")
"""The games an invitation offers."""
INVITE_SIZES: tuple[int, ...] = (2, 3, 4)
"""For how many players."""


@dataclass(frozen=True, slots=True)
class InviteSpec:
    """What an invitation is: ``game`` for ``size`` players, from ``inviter``."""

    game: str
    size: int
    inviter: int
    lang: Lang
    inviter_name: str = ""
    codec: cb.CallbackCodec = field(default_factory=cb.CallbackCodec)

    def button(self, action: str) -> cb.Invite:
        """The callback of one of its buttons."""
        return cb.Invite(action, self.game, self.size, self.inviter, self.lang)


def _players(lang: Lang, n: int) -> str:
    return tr(lang, "invite.players", n=n)


def invite_result(lang: Lang, rules: Rules, spec: InviteSpec) -> tuple[str, str]:
    """An inline result's title and description."""
    title = tr(
        lang, "invite.result", game=game_title(rules, lang), players=_players(lang, spec.size)
    )
    return title, tr(lang, "invite.result_desc")


def render_invitation(
    lang: Lang, rules: Rules, spec: InviteSpec, seated: Sequence[str], *, started: bool = False
) -> Screen:
    """The lobby: who invites to what, who sits (raw names), how it starts; Join, Leave,
    Start. ``started``: the game runs already (a late Join is told so)."""
    names = ", ".join(esc(short_name(n)) for n in seated) or "—"
    lines = [
        tr(lang, "invite.title", game=game_title(rules, lang), players=_players(lang, spec.size)),
        tr(lang, "invite.by", name=esc(short_name(spec.inviter_name or "?"))),
        "",
        rules_summary(rules, lang),
        "",
        tr(lang, "invite.seated", n=len(seated), size=spec.size, names=names),
        tr(lang, "invite.hint", size=spec.size, name=esc(short_name(spec.inviter_name or "?"))),
    ]
    codec = spec.codec
    rows = [
        [
            Button.cb(tr(lang, "invite.btn.join"), codec, spec.button("join")),
            Button.cb(tr(lang, "invite.btn.leave"), codec, spec.button("leave")),
        ],
        [
            Button.cb(tr(lang, "invite.btn.computer"), codec, spec.button("ai")),
            Button.cb(tr(lang, "invite.btn.start"), codec, spec.button("start")),
        ],
    ]
    return Screen("\n".join(lines), Keyboard.of(rows))


def render_invitation_table(
    view: PublicView,
    players: Sequence[Player],
    lang: Lang,
    ctx: TableContext,
    rules: Rules,
    bot_username: str | None,
) -> Screen:
    """The running game as the chat of the invitation sees it: the public table alone, and
    a link to the bot's chat, where each player's cards are."""
    screen = render_table(view, players, lang, ctx, rules=rules)
    keyboard = None
    if bot_username and view.phase != "over":
        link = Button.link(tr(lang, "invite.btn.cards"), f"https://t.me/{bot_username}")
        keyboard = Keyboard.of([[link]])
    return Screen(screen.text, keyboard)


def render_invitation_end(
    result: Result, players: Sequence[Player], lang: Lang, ctx: EndContext, spec: InviteSpec
) -> Screen:
    """The end, in the invitation: the result, a rematch and the replay."""
    screen = render_end(result, players, lang, ctx)
    row = [Button.cb(tr(lang, "invite.btn.again"), spec.codec, spec.button("again"))]
    if ctx.game_no:
        replay = cb.ReplayOpen(ctx.table_id, ctx.game_no)
        row.append(Button.cb(tr(lang, "end.btn.replay"), spec.codec, replay))
    return Screen(screen.text, Keyboard.of([row]))
