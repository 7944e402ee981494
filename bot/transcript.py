"""README.md's generated parts: ``python -m bot.transcript`` writes them, ``--check`` checks.

Three blocks between marker comments (``<!-- NAME:start -->`` ... ``<!-- NAME:end -->``):

- ``transcript``: a real position of a game as the bot renders it, by the project's own
  renderers (:func:`bot.render.render_table`, :func:`bot.render.render_hand`), as the
  text a user sees (HTML tags removed) and the keyboard rows as ``[button] [button]``;
- ``games``: every game and modifier in one line, from :mod:`engine.describe`;
- ``settings``: the configuration table, from :class:`bot.base.config.Settings`.

``--check`` exits 1 (naming the stale blocks) if README.md differs from what the code
renders now; a test runs it, so the README cannot drift from the renderer.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.base.config import describe_settings
from bot.base.i18n import Lang
from bot.render import Player, Screen, TableContext, render_hand, render_table
from engine import GAMES, MODIFIER_INFO, Event, Game, Rules, parse_cards
from engine.actions import Cover, Lead, Throw

__all__ = ["BLOCKS", "README", "check", "main", "plain", "render_blocks", "splice"]

README = Path(__file__).resolve().parent.parent / "README.md"
_TAG = re.compile(r"<[^>]+>")


def plain(screen: Screen) -> str:
    """A screen as the user sees it: text without HTML tags, then the keyboard's rows."""
    text = html.unescape(_TAG.sub("", screen.text)).strip()
    if screen.keyboard is not None:
        text += "\n\n" + screen.keyboard.layout()
    return text


def sample_game() -> tuple[Game, list[Event], Rules]:
    """Podkidnoy for three, a fresh 36-card deal: Ann leads a pair of sevens against Bob,
    Bob covers one, Cid throws in a nine. Trump: diamonds."""
    rules = Rules.preset("podkidnoy")
    hands = ["7S 7C 9D QC AH KD", "8S 9S JH KS 6H TD", "9H 9C TS JC QS 6C"]
    stock = "6S TH 8D KC 7H AS QD JS 6D 8C KH QH TC 8H JD 7D AC AD"
    game = Game.deal(rules, [parse_cards(h) for h in hands], parse_cards(stock), first_attacker=0)
    events: list[Event] = []
    events += game.apply(Lead(0, tuple(parse_cards("7S 7C"))))
    events += game.apply(Cover(1, parse_cards("7S")[0], parse_cards("9S")[0]))
    events += game.apply(Throw(2, parse_cards("9C")[0]))
    return game, events, rules


def _screens(lang: Lang) -> tuple[str, str]:
    game, events, rules = sample_game()
    players = [Player("Ann"), Player("Bob"), Player("Cid")]
    ctx = TableContext(
        table_id=1,
        version=game.moves,
        group_title="Friends",
        seconds_left=95,
        events=tuple(events),
        bot_username="durak_bot",
    )
    table = render_table(game.public_view(), players, lang, ctx, rules=rules)
    hand = render_hand(game.view(1), players, lang, ctx, rules=rules)
    return plain(table), plain(hand)


def transcript_block() -> str:
    """The group's table message and Bob's hand, in English (and Russian, folded)."""
    table, hand = _screens("en")
    table_ru, hand_ru = _screens("ru")
    return "\n".join(
        [
            "In the group **Friends**, one message, edited in place as the game goes on:",
            "",
            "```text",
            table,
            "```",
            "",
            "In Bob's private chat with the bot, his hand: his cards and his moves are buttons.",
            "",
            "```text",
            hand,
            "```",
            "",
            "<details><summary>The same in Russian</summary>",
            "",
            "```text",
            table_ru,
            "```",
            "",
            "```text",
            hand_ru,
            "```",
            "",
            "</details>",
        ]
    )


def games_block() -> str:
    """Every base game and modifier, one line each."""
    lines = ["Games (the `game` rule):", ""]
    lines += [f"- `{key}` — **{name}**: {text}" for key, (name, text) in GAMES.items()]
    lines += ["", "Modifiers (any that fit together; the `modifiers` rule):", ""]
    lines += [f"- `{key}` — **{name}**: {text}" for key, (name, text) in MODIFIER_INFO.items()]
    return "\n".join(lines)


def settings_block() -> str:
    """The configuration table."""
    lines = ["| variable | default | what it does |", "|---|---|---|"]
    for name, default, text in describe_settings():
        cell = text.replace("|", "\\|")
        lines.append(f"| `{name}` | {default} | {cell} |")
    return "\n".join(lines)


BLOCKS: dict[str, Callable[[], str]] = {
    "transcript": transcript_block,
    "games": games_block,
    "settings": settings_block,
}


def render_blocks() -> dict[str, str]:
    """Each block's content as the code renders it now."""
    return {name: make() for name, make in BLOCKS.items()}


def splice(text: str, name: str, content: str) -> str:
    """``text`` with the block ``name`` replaced by ``content`` (ValueError if the markers
    are missing)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    head, found, rest = text.partition(start)
    if not found or end not in rest:
        raise ValueError(f"README has no {start} ... {end} block")
    _, _, tail = rest.partition(end)
    note = "<!-- generated by `python -m bot.transcript`: do not edit -->"
    return f"{head}{start}\n{note}\n{content}\n{end}{tail}"


def check(path: Path = README) -> list[str]:
    """Names of the blocks of ``path`` that differ from what the code renders now."""
    text = path.read_text(encoding="utf-8")
    stale = []
    for name, content in render_blocks().items():
        try:
            if splice(text, name, content) != text:
                stale.append(name)
        except ValueError:
            stale.append(name)
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    """Write README.md's generated blocks, or with ``--check`` only compare them."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.transcript", description="Generate README.md's generated parts."
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if README.md is stale")
    parser.add_argument("--readme", type=Path, default=README, help="the README to use")
    args = parser.parse_args(argv)
    path: Path = args.readme
    if args.check:
        stale = check(path)
        if stale:
            print(
                f"{path}: stale generated block(s): {', '.join(stale)}; "
                "run `python -m bot.transcript` and commit the result",
                file=sys.stderr,
            )
            return 1
        print(f"{path}: up to date")
        return 0
    text = path.read_text(encoding="utf-8")
    for name, content in render_blocks().items():
        text = splice(text, name, content)
    path.write_text(text, encoding="utf-8")
    print(f"{path}: written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
