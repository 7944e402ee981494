"""The settings pages a lobby's creator browses: the root, one group's options, one
option's values. Built from the option model (:mod:`.settings`) and the rules' summary."""

from __future__ import annotations

from bot.base.i18n import Lang, tr
from bot.service import callbacks as cb
from engine import Rules

from .common import Button, Keyboard, Screen, chunk
from .rules_text import rules_summary
from .settings import (
    GROUPS,
    member_desc,
    offers,
    option_by_token,
    option_desc,
    option_name,
    value_label,
    visible_options,
)

__all__ = ["render_option", "render_settings"]


def _group_title(lang: Lang, group: str) -> str:
    return tr(lang, f"settings.group.{group}")


def render_settings(
    rules: Rules,
    lang: Lang,
    table_id: int,
    version: int,
    page: str = "",
    codec: cb.CallbackCodec | None = None,
    *,
    solo: bool = False,
) -> Screen:
    """The settings root (``page=""``, or any unknown page) or one group's page; ``solo``:
    of a game against the computer (whose player alone sets them)."""
    codec = codec or cb.CallbackCodec()
    back = cb.Settings(table_id, version)
    if page not in GROUPS:
        lines = [
            tr(lang, "settings.title"),
            "",
            rules_summary(rules, lang),
            "",
            tr(lang, "settings.hint_solo" if solo else "settings.hint"),
        ]
        buttons = []
        for group in GROUPS:
            shown = visible_options(rules, group)
            if len(shown) == 1 and shown[0].kind == "set":  # straight to its toggles
                press: cb.Callback = cb.Option(table_id, version, shown[0].token)
            else:
                press = cb.Settings(table_id, version, group)
            if shown:
                buttons.append(Button.cb(_group_title(lang, group), codec, press))
        rows = chunk(buttons, 2)
        lobby = cb.Lobby(table_id, version)
        back_label = tr(lang, "settings.btn.setup" if solo else "settings.btn.lobby")
        rows.append((Button.cb(back_label, codec, lobby),))
        return Screen("\n".join(lines), Keyboard.of(rows))
    lines = [f"{tr(lang, 'settings.title')} › <b>{_group_title(lang, page)}</b>", ""]
    rows = []
    for spec in visible_options(rules, page):
        current = spec.value_of(rules)
        name = option_name(lang, spec)
        label = value_label(lang, spec, current)
        lines.append(tr(lang, "settings.line", name=name, value=label))
        lines.append(tr(lang, "settings.desc", desc=option_desc(lang, spec)))
        text = tr(lang, "settings.btn.option", name=name, value=label)
        # every option, on/off ones too, opens its page: a tap never changes a rule
        # without saying what it sets
        press = cb.Option(table_id, version, spec.token)
        rows.append((Button.cb(text, codec, press),))
    if not rows:
        lines.append(tr(lang, "settings.nothing"))
    rows.append((Button.cb(tr(lang, "settings.btn.back"), codec, back),))
    return Screen("\n".join(lines), Keyboard.of(rows))


def render_option(
    rules: Rules,
    lang: Lang,
    table_id: int,
    version: int,
    option: str,
    codec: cb.CallbackCodec | None = None,
) -> Screen:
    """The values of one option (``option`` is its token); ``SettingError`` if unknown.
    A set option (the modifiers) shows one on/off toggle per member."""
    codec = codec or cb.CallbackCodec()
    spec = option_by_token(option)
    current = spec.value_of(rules)
    alone = visible_options(rules, spec.group) == (spec,) and spec.kind == "set"
    trail = [tr(lang, "settings.title")]
    if not alone:
        trail.append(_group_title(lang, spec.group))
    lines = [
        " › ".join([*trail, f"<b>{option_name(lang, spec)}</b>"]),
        tr(lang, "settings.desc", desc=option_desc(lang, spec)),
        "",
        tr(lang, "settings.current", value=value_label(lang, spec, current)),
    ]
    if spec.kind != "set":
        lines.append(tr(lang, "settings.default", value=value_label(lang, spec, spec.default)))
    buttons = []
    found = offers(rules, spec)
    for offer in found:
        shown = offer.member if offer.member is not None else offer.value
        label = value_label(lang, spec, shown)
        if offer.chosen:
            label = tr(lang, "settings.btn.chosen", value=label)
        press = cb.SetOption(table_id, version, spec.token, offer.token)
        buttons.append(Button.cb(label, codec, press))
    if spec.kind == "set":
        lines.append("")
        for offer in found:
            assert offer.member is not None
            name = value_label(lang, spec, offer.member)
            desc = member_desc(lang, spec, offer.member)
            lines.append(tr(lang, "settings.member", name=name, desc=desc))
    wide = spec.kind in ("choice", "set") and any(len(b.text) > 14 for b in buttons)
    rows = chunk(buttons, 2 if wide else 3)
    group = cb.Settings(table_id, version, "" if alone else spec.group)
    rows.append((Button.cb(tr(lang, "settings.btn.back"), codec, group),))
    return Screen("\n".join(lines), Keyboard.of(rows))
