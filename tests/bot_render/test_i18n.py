"""Catalogs: parity of keys and placeholders, plural forms, language choice, coverage."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import get_args

import pytest

from bot.base.i18n import (
    LANGS,
    PLURAL_CATEGORIES,
    Lang,
    Translator,
    catalog,
    has_key,
    pick_lang,
    placeholders,
    plural_category,
    tr,
)
from bot.render.events import event_line
from bot.render.settings import options, value_label
from bot.render.texts import CALLBACK_PROBLEMS, COMMANDS, ENGINE_REASONS
from engine import Rules
from engine import actions as engine_actions

from .helpers import players

ENGINE_DIR = Path(__file__).resolve().parents[2] / "engine"


def _placeholders(entry: object) -> frozenset[str]:
    if isinstance(entry, str):
        return placeholders(entry)
    assert isinstance(entry, dict)
    return frozenset().union(*(placeholders(v) for v in entry.values()))


def test_every_language_has_a_catalog_and_plural_categories() -> None:
    assert LANGS == ("ru", "en", "uk")
    assert set(PLURAL_CATEGORIES) == set(LANGS)
    assert PLURAL_CATEGORIES["uk"] == ("one", "few", "many")


@pytest.mark.parametrize("lang", [x for x in LANGS if x != "en"])
def test_catalogs_have_the_same_keys(lang: Lang) -> None:
    other, en = catalog(lang), catalog("en")
    assert sorted(set(other) - set(en)) == []
    assert sorted(set(en) - set(other)) == []


@pytest.mark.parametrize("lang", [x for x in LANGS if x != "en"])
def test_catalogs_have_the_same_placeholders_per_key(lang: Lang) -> None:
    other, en = catalog(lang), catalog("en")
    differ = {k: (_placeholders(other[k]), _placeholders(en[k])) for k in other}
    assert {k: v for k, v in differ.items() if v[0] != v[1]} == {}


@pytest.mark.parametrize("lang", [x for x in LANGS if x != "en"])
def test_plural_entries_are_plural_in_every_language_and_take_n(lang: Lang) -> None:
    other, en = catalog(lang), catalog("en")
    for key, entry in other.items():
        assert isinstance(entry, dict) == isinstance(en[key], dict), key
        if isinstance(entry, dict):
            assert set(entry) == set(PLURAL_CATEGORIES[lang]), key
            assert set(en[key]) == set(PLURAL_CATEGORIES["en"]), key
            assert "n" in _placeholders(entry), key


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_names_every_language_in_itself(lang: Lang) -> None:
    names = {code: tr(lang, f"lang.name.{code}") for code in LANGS}
    assert names == {"ru": "Русский", "en": "English", "uk": "Українська"}


def test_ukrainian_keeps_the_russian_markup_and_emoji() -> None:
    """The same HTML tags and the same emoji as the Russian text, key by key."""
    emoji = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2190-\u21FF\u23E9-\u23FA]")

    def marks(entry: object) -> list[tuple[list[str], list[str]]]:
        texts = [entry] if isinstance(entry, str) else list(entry.values())  # type: ignore[attr-defined]
        return [(re.findall(r"</?[a-z]+>", t), emoji.findall(t)) for t in texts]

    ru, uk = catalog("ru"), catalog("uk")
    assert {k: marks(uk[k]) for k in ru if marks(uk[k]) != marks(ru[k])} == {}


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (0, "0 карт"),
        (1, "1 карта"),
        (2, "2 карты"),
        (3, "3 карты"),
        (4, "4 карты"),
        (5, "5 карт"),
        (10, "10 карт"),
        (11, "11 карт"),
        (12, "12 карт"),
        (14, "14 карт"),
        (21, "21 карта"),
        (22, "22 карты"),
        (25, "25 карт"),
        (101, "101 карта"),
        (111, "111 карт"),
        (112, "112 карт"),
        (122, "122 карты"),
        (1001, "1001 карта"),
    ],
)
def test_russian_plural_forms(n: int, expected: str) -> None:
    assert tr("ru", "card.count", n=n) == expected


@pytest.mark.parametrize(
    ("n", "expected"), [(0, "0 cards"), (1, "1 card"), (2, "2 cards"), (21, "21 cards")]
)
def test_english_plural_forms(n: int, expected: str) -> None:
    assert tr("en", "card.count", n=n) == expected


UKRAINIAN_NUMBERS = (0, 1, 2, 5, 11, 21, 22, 25, 111)


@pytest.mark.parametrize(
    ("key", "template", "words"),
    [
        ("card.count", "{n} {w}", "карт карта карти карт карт карта карти карт карт"),
        ("hand.count", "У вас {n} {w}.", "карт карта карти карт карт карта карти карт карт"),
        ("tally.games", "{n} {w}", "ігор гра гри ігор ігор гра гри ігор ігор"),
        ("tally.points", "{n} {w}", "очок очко очки очок очок очко очки очок очок"),
        ("tally.durak", "дурень {n} {w}", "разів раз рази разів разів раз рази разів разів"),
        ("tally.draws", "{n} {w}", "нічиїх нічия нічиї нічиїх нічиїх нічия нічиї нічиїх нічиїх"),
        (
            "tally.more",
            "…і ще {n} {w}",
            "гравців гравець гравці гравців гравців гравець гравці гравців гравців",
        ),
        ("stats.mine_more", "…і ще {n} {w}", "груп група групи груп груп група групи груп груп"),
        (
            "replay.deal",
            "Роздача · у партії {n} {w}",
            "ходів хід ходи ходів ходів хід ходи ходів ходів",
        ),
        (
            "coach.decisions",
            "перевірено {n} {w}",
            "рішень рішення рішення рішень рішень рішення рішення рішень рішень",
        ),
        ("rules.summary.hand", "{n} {w}", "карт карті карти карт карт карті карти карт карт"),
        ("event.drew", "Ann добирає {n} {w}", "карт карту карти карт карт карту карти карт карт"),
    ],
)
def test_ukrainian_plural_forms(key: str, template: str, words: str) -> None:
    """Each form for 0, 1, 2, 5, 11, 21, 22, 25, 111: the word that follows the number."""
    expected = [
        template.format(n=n, w=w) for n, w in zip(UKRAINIAN_NUMBERS, words.split(), strict=True)
    ]
    assert [tr("uk", key, n=n, name="Ann") for n in UKRAINIAN_NUMBERS] == expected


def test_every_ukrainian_plural_renders_for_every_number() -> None:
    params = {"name": "Ann", "decisions": "x", "level": "y"}
    for key, entry in catalog("uk").items():
        if isinstance(entry, dict):
            for n in UKRAINIAN_NUMBERS:
                text = tr("uk", key, n=n, **params)
                assert str(n) in text and "{" not in text, (key, n)


def test_plural_categories() -> None:
    assert [plural_category("ru", n) for n in (1, 2, 5, 11, 21, 22, 25, 111)] == [
        "one",
        "few",
        "many",
        "many",
        "one",
        "few",
        "many",
        "many",
    ]
    assert [plural_category("en", n) for n in (0, 1, 2)] == ["other", "one", "other"]
    assert [plural_category("uk", n) for n in UKRAINIAN_NUMBERS] == [
        "many",
        "one",
        "few",
        "many",
        "many",
        "one",
        "few",
        "many",
        "many",
    ]
    assert [plural_category("uk", n) for n in (3, 4, 12, 14, 24, 101, 112, 1001)] == [
        "few",
        "few",
        "many",
        "many",
        "few",
        "one",
        "many",
        "one",
    ]


def test_russian_plurals_in_other_phrases() -> None:
    assert tr("ru", "tally.durak", n=3) == "дурак 3 раза"
    assert tr("ru", "tally.points", n=21) == "21 очко"
    assert tr("ru", "tally.draws", n=5) == "5 ничьих"
    assert tr("ru", "rules.summary.hand", n=6) == "6 карт"
    assert tr("ru", "event.beaten", n=2) == "✅ Бито: 2 карты ушли в отбой"


@pytest.mark.parametrize(
    ("code", "overrides", "expected"),
    [
        ("ru", (), "ru"),
        ("ru-RU", (), "ru"),
        ("uk", (), "uk"),
        ("uk-UA", (), "uk"),
        ("UK_ua", (), "uk"),
        ("be", (), "ru"),
        ("kk", (), "ru"),
        ("uz", (), "ru"),
        ("en", (), "en"),
        ("en-GB", (), "en"),
        ("de", (), "en"),
        (None, (), "en"),
        ("", (), "en"),
        ("ru", ("en",), "en"),
        ("en", (None, "ru"), "ru"),
        ("en", ("xx", "ru"), "ru"),
        ("de", ("EN_us",), "en"),
        ("ru", ("uk",), "uk"),
        ("uk", ("ru",), "ru"),
        ("uk", ("xx",), "uk"),
    ],
)
def test_pick_lang(code: str | None, overrides: tuple[str | None, ...], expected: str) -> None:
    assert pick_lang(code, *overrides) == expected


def test_translator_and_missing_keys() -> None:
    t = Translator("en")
    assert t("hand.btn.take") == "🫴 Take"
    assert t.has("hand.btn.take") and not t.has("no.such.key")
    with pytest.raises(KeyError):
        tr("en", "no.such.key")
    with pytest.raises(KeyError):
        tr("en", "card.count")  # a plural entry needs n
    with pytest.raises(ValueError):
        Translator("de")  # type: ignore[arg-type]


PLAIN_PREFIXES = ("err.", "cb.", "lobby.alert.", "settings.alert.", "lang.set")


@pytest.mark.parametrize("lang", LANGS)
def test_alerts_are_short_plain_text(lang: str) -> None:
    for key, entry in catalog(lang).items():  # type: ignore[arg-type]
        if key.startswith(PLAIN_PREFIXES) and key != "err.blocked":
            assert isinstance(entry, str)
            assert "<" not in entry and len(entry) <= 200, key


@pytest.mark.parametrize("lang", LANGS)
def test_html_tags_are_balanced_and_known(lang: str) -> None:
    for key, entry in catalog(lang).items():  # type: ignore[arg-type]
        for text in [entry] if isinstance(entry, str) else entry.values():
            tags = re.findall(r"</?([a-z]+)>", text)
            assert set(tags) <= {"b", "i", "code"}, key
            for tag in set(tags):
                assert text.count(f"<{tag}>") == text.count(f"</{tag}>"), key
            assert "&" not in text, key


def _engine_reason_codes() -> set[str]:
    """Reason codes the engine can raise: the documented ones, every literal
    ``IllegalAction("…")``, and what its ``*_refusal`` helpers return."""
    codes = set(re.findall(r"``([a-z_]+)``", (ENGINE_DIR / "errors.py").read_text()))
    for path in ENGINE_DIR.glob("*.py"):
        source = path.read_text()
        codes |= set(re.findall(r'IllegalAction\(\s*"([a-z_]+)"', source))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef) and node.name.endswith("_refusal"):
                for ret in ast.walk(node):
                    value = ret.value if isinstance(ret, ast.Return) else None
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        codes.add(value.value)
    return codes - {"reason"}


@pytest.mark.parametrize("lang", LANGS)
def test_every_engine_reason_has_an_alert(lang: str) -> None:
    codes = _engine_reason_codes() | set(ENGINE_REASONS)
    assert sorted(c for c in codes if not has_key(lang, f"err.{c}")) == []  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", LANGS)
def test_every_callback_problem_and_command_is_worded(lang: str) -> None:
    for problem in CALLBACK_PROBLEMS:
        assert has_key(lang, f"cb.{problem}")  # type: ignore[arg-type]
    for scope, names in COMMANDS.items():
        for name in names:
            description = tr(lang, f"cmd.{scope}.{name}")  # type: ignore[arg-type]
            assert 3 <= len(description) <= 256


@pytest.mark.parametrize("lang", LANGS)
def test_every_rules_option_and_value_is_worded(lang: str) -> None:
    assert {s.name for s in options()} == set(Rules.model_fields)
    for spec in options():
        assert has_key(lang, f"opt.{spec.name}.name"), spec.name  # type: ignore[arg-type]
        assert has_key(lang, f"opt.{spec.name}.desc"), spec.name  # type: ignore[arg-type]
        for value in spec.choices:
            label = value_label(lang, spec, value)  # type: ignore[arg-type]
            assert (label and label != str(value)) or isinstance(value, int), (spec.name, value)
            if spec.kind == "set":
                assert has_key(lang, f"opt.{spec.name}.d.{value}"), value  # type: ignore[arg-type]
        if spec.kind == "int" and not spec.duration:
            assert has_key(lang, f"opt.{spec.name}.n"), spec.name  # type: ignore[arg-type]
    for game in get_args(Rules.model_fields["game"].annotation):
        assert has_key(lang, f"rules.game_desc.{game}")  # type: ignore[arg-type]


def _event_types() -> tuple[type, ...]:
    return get_args(engine_actions.Event)


@pytest.mark.parametrize("lang", LANGS)
def test_every_engine_event_type_has_its_own_line(lang: str) -> None:
    from engine import Card, Suit

    some = Card.parse("7S")
    values = {"seat": 1, "defender": 2, "first_attacker": 0, "durak": 1, "place": 1, "amount": 2}
    values |= {"left": 2, "effect": "durak", "draw": False, "pogony": True}
    # a wild six named as another suit, and the attack card it covered as itself
    values |= {"suits": (Suit.HEARTS,), "suit": Suit.HEARTS, "attack_suit": None}
    assert len(_event_types()) >= 14
    for kind in _event_types():
        fields = kind._fields  # type: ignore[attr-defined]
        args = []
        for name in fields:
            if name in values:
                args.append(values[name])
            elif name == "cards":
                args.append((some,))
            else:
                args.append(some)
        line = event_line(kind(*args), players(3), lang)  # type: ignore[arg-type]
        assert line and line != tr(lang, "event.unknown"), kind.__name__  # type: ignore[arg-type]
