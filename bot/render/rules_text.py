"""A :class:`engine.Rules` in words: the short lobby summary and the full /rules text."""

from __future__ import annotations

from bot.base.i18n import Lang, tr
from engine import Rules

from .common import duration
from .settings import GROUPS, is_relevant, option_name, options, value_label

__all__ = ["game_title", "render_rules", "rules_summary"]

_SUMMARY_FIELDS = frozenset({"game", "teams", "deck_size", "hand_size", "turn_timeout"})


def game_title(rules: Rules, lang: Lang) -> str:
    """The game's name, with the teams if any: ``Perevodnoy · in pairs``."""
    title = tr(lang, f"opt.game.v.{rules.game}")
    if rules.teams != "none":
        title = tr(
            lang, "rules.with_teams", game=title, teams=tr(lang, f"opt.teams.v.{rules.teams}")
        )
    return title


def rules_summary(rules: Rules, lang: Lang) -> str:
    """A few lines for the lobby: the game, deck, hand and clock, then what differs from
    the defaults."""
    clock = (
        tr(lang, "rules.summary.clock", time=duration(lang, rules.turn_timeout))
        if rules.turn_timeout
        else tr(lang, "rules.summary.no_clock")
    )
    lines = [
        f"🎲 <b>{game_title(rules, lang)}</b>",
        tr(lang, f"rules.game_desc.{rules.game}"),
        tr(
            lang,
            "rules.summary.basics",
            deck=tr(lang, "rules.summary.deck", n=rules.deck_size),
            hand=tr(lang, "rules.summary.hand", n=rules.hand_size),
            clock=clock,
        ),
    ]
    changed = [
        tr(lang, "rules.summary.item", name=option_name(lang, s), value=value_label(lang, s, v))
        for s in options()
        if s.name not in _SUMMARY_FIELDS
        and is_relevant(rules, s)
        and (v := s.value_of(rules)) != s.default
    ]
    if changed:
        lines.append(tr(lang, "rules.summary.changed", items=" · ".join(changed)))
    return "\n".join(lines)


def render_rules(rules: Rules, lang: Lang) -> str:
    """The /rules text: every option that applies, grouped as in the settings menu."""
    lines = [
        tr(lang, "rules.title"),
        "",
        f"🎲 <b>{game_title(rules, lang)}</b>",
        tr(lang, f"rules.game_desc.{rules.game}"),
    ]
    marked = False
    for group in GROUPS:
        specs = [s for s in options() if s.group == group and is_relevant(rules, s)]
        if not specs:
            continue
        lines += ["", f"<b>{tr(lang, f'settings.group.{group}')}</b>"]
        for spec in specs:
            value = spec.value_of(rules)
            line = tr(
                lang,
                "rules.line",
                name=option_name(lang, spec),
                value=value_label(lang, spec, value),
            )
            if value != spec.default:
                line = tr(lang, "rules.changed_mark", line=line)
                marked = True
            lines.append(line)
    # the footer explains the mark only where the text shows it
    lines += ["", tr(lang, "rules.footer_marked" if marked else "rules.footer")]
    return "\n".join(lines)
