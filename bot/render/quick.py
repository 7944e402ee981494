"""The quick game's messages in the private chat: looking for an opponent (with Cancel, and
once he has waited alone, the computer or more waiting), found, stopped."""

from __future__ import annotations

from bot.base.i18n import Lang, tr
from bot.service import callbacks as cb
from engine import Rules

from .common import Button, Keyboard, Screen, duration, esc, short_name
from .rules_text import game_title

__all__ = ["render_found", "render_looking"]


def render_looking(
    lang: Lang, rules: Rules, codec: cb.CallbackCodec | None = None, *, alone: bool = False
) -> Screen:
    """The waiting message: what game, and Cancel; ``alone``: he has waited alone long
    enough to be offered a game against the computer, or more waiting."""
    codec = codec or cb.CallbackCodec()
    cancel = Button.cb(tr(lang, "quick.btn.cancel"), codec, cb.Quick("cancel"))
    if alone:
        rows = [
            [Button.cb(tr(lang, "quick.btn.computer"), codec, cb.Quick("computer"))],
            [Button.cb(tr(lang, "quick.btn.wait"), codec, cb.Quick("wait")), cancel],
        ]
        return Screen(tr(lang, "quick.alone"), Keyboard.of(rows))
    text = tr(
        lang,
        "quick.looking",
        game=game_title(rules, lang),
        clock=duration(lang, rules.turn_timeout),
    )
    return Screen(text, Keyboard.of([[cancel]]))


def render_found(lang: Lang, opponent: str) -> Screen:
    """The waiting message once he is dealt a game (its buttons gone)."""
    return Screen(tr(lang, "quick.found", name=esc(short_name(opponent))))
