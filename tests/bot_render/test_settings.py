"""Settings menus over every Rules option: only valid values are offered, and every press
gives valid Rules holding the value asked for."""

from __future__ import annotations

import random

import pytest

from bot.base.i18n import LANGS, Lang
from bot.render import SettingError, apply_setting, render_option, render_settings
from bot.render.settings import (
    GROUPS,
    OptionSpec,
    offers,
    option_by_name,
    option_by_token,
    options,
    value_token,
    visible_options,
    with_value,
)
from bot.service import callbacks as cb
from engine import PRESETS, Rules

from .snapshots import assert_snapshot, shot

CODEC = cb.CallbackCodec(b"settings-test-key-0123456789")


def presses(rules: Rules, lang: Lang = "en") -> list[cb.Callback]:
    """Every button of every settings page for ``rules``."""
    found: list[cb.Callback] = []
    pages = [render_settings(rules, lang, 1, 2, "", CODEC)]
    pages += [render_settings(rules, lang, 1, 2, g, CODEC) for g in GROUPS]
    pages += [render_option(rules, lang, 1, 2, s.token, CODEC) for s in visible_options(rules)]
    for page in pages:
        assert page.keyboard is not None
        for button in page.keyboard.buttons():
            assert button.data is not None and len(button.data) <= 64
            found.append(CODEC.decode(button.data))
    return found


def test_every_field_is_an_option_with_a_stable_short_token() -> None:
    specs = options()
    assert [s.name for s in specs] == list(Rules.model_fields)
    assert len({s.token for s in specs}) == len(specs)
    assert all(len(s.token) == 4 and cb.is_token(s.token) for s in specs)
    assert option_by_name("game").token == option_by_token(option_by_name("game").token).token
    for spec in specs:
        if spec.kind != "set":
            assert spec.default in spec.choices, spec.name
            for value in spec.choices:
                assert spec.parse(value_token(value), Rules()) == value


def check_press(rules: Rules, press: cb.Callback) -> Rules | None:
    if not isinstance(press, cb.SetOption):
        return None
    spec = option_by_token(press.option)
    after = apply_setting(rules, press.option, press.value)
    assert isinstance(after, Rules)
    Rules.model_validate(after.model_dump())  # it really is valid
    wanted = spec.parse(press.value, rules)
    assert getattr(after, spec.name) == wanted
    for earlier in options()[: options().index(spec)]:
        if earlier.name not in ("modifiers",):  # the engine adds "full" for 52/54 cards
            assert getattr(after, earlier.name) == getattr(rules, earlier.name), earlier.name
    return after


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_offered_value_gives_valid_rules(preset: str) -> None:
    rules = Rules.preset(preset)
    for press in presses(rules):
        check_press(rules, press)


@pytest.mark.parametrize("seed", range(12))
def test_random_walks_through_the_menus_stay_valid(seed: int) -> None:
    rng = random.Random(seed)
    rules = Rules.preset(rng.choice(sorted(PRESETS)))
    for _ in range(40):
        choices = [p for p in presses(rules) if isinstance(p, cb.SetOption)]
        assert choices
        after = check_press(rules, rng.choice(choices))
        assert after is not None
        rules = after


def test_fix_ups_change_only_later_options() -> None:
    rules = Rules.preset("perevodnoy", proezdnoy=True, no_transfer_with_trump_on_table=True)
    podkidnoy = with_value(rules, "game", "podkidnoy")
    assert podkidnoy is not None
    assert not podkidnoy.proezdnoy and not podkidnoy.no_transfer_with_trump_on_table
    low = with_value(Rules(), "bout_limit", 4)
    assert low is not None and low.first_bout_limit == 4
    five = with_value(Rules(teams="pairs"), "game", "prostoy5")
    assert five is not None and five.hand_size == 5 and five.teams == "none"
    full = with_value(Rules(), "modifiers", ("full",))
    assert full is not None and full.deck_size == 52
    back = with_value(full, "modifiers", ())
    assert back is not None and back.deck_size == 36
    assert with_value(Rules(game="prostoy5"), "hand_size", 6) is None  # game comes first


def test_irrelevant_options_are_hidden() -> None:
    names = {s.name for s in visible_options(Rules.preset("podkidnoy"))}
    assert "proezdnoy" not in names and "throw_in_order" in names
    names = {s.name for s in visible_options(Rules.preset("perevodnoy"))}
    assert "proezdnoy" in names
    names = {s.name for s in visible_options(Rules.preset("prostoy"))}
    assert "throw_in_order" not in names
    names = {s.name for s in visible_options(Rules(turn_timeout=0))}
    assert "on_timeout" not in names


def test_modifier_toggles() -> None:
    spec = option_by_name("modifiers")
    rules = Rules(modifiers=("no_trump",))
    found = {o.member: o for o in offers(rules, spec)}
    assert found["no_trump"].chosen
    assert "japanese" not in found  # conflicts with no_trump
    on = apply_setting(rules, spec.token, found["poker"].token)
    assert on.modifiers == ("no_trump", "poker")
    off = apply_setting(on, spec.token, found["no_trump"].token)
    assert off.modifiers == ("poker",)


def test_bad_tokens_are_refused() -> None:
    game = option_by_name("game").token
    with pytest.raises(SettingError):
        apply_setting(Rules(), "zzzz", "1")
    with pytest.raises(SettingError):
        apply_setting(Rules(), game, "chess")
    with pytest.raises(SettingError):
        apply_setting(Rules(game="prostoy5"), option_by_name("hand_size").token, "6")
    with pytest.raises(SettingError):
        render_option(Rules(), "en", 1, 1, "zzzz")


def test_unknown_page_shows_the_root() -> None:
    assert (
        render_settings(Rules(), "en", 1, 1, "nope").text
        == render_settings(Rules(), "en", 1, 1).text
    )


@pytest.mark.parametrize("lang", LANGS)
def test_settings_snapshots(lang: Lang) -> None:
    rules = Rules.preset("perevodnoy", proezdnoy=True, turn_timeout=60)
    assert_snapshot(f"settings_root_{lang}", shot(render_settings(rules, lang, 9, 4)))
    assert_snapshot(f"settings_limits_{lang}", shot(render_settings(rules, lang, 9, 4, "limits")))
    spec: OptionSpec = option_by_name("turn_timeout")
    assert_snapshot(f"settings_timeout_{lang}", shot(render_option(rules, lang, 9, 4, spec.token)))
    mods = option_by_name("modifiers").token
    assert_snapshot(f"settings_modifiers_{lang}", shot(render_option(rules, lang, 9, 4, mods)))


def test_changing_the_game_brings_its_own_hand_size() -> None:
    five = Rules.preset("prostoy5")
    assert five.hand_size == 5
    back = with_value(five, "game", "podkidnoy")
    assert back is not None
    assert back.game == "podkidnoy" and back.hand_size == 6, "not the five-card game's 5"
    # chosen explicitly afterwards, the hand size stays
    seven = with_value(back, "hand_size", 7)
    assert seven is not None and seven.hand_size == 7
    assert with_value(seven, "bout_limit", 5) is not None
    assert with_value(seven, "bout_limit", 5).hand_size == 7  # type: ignore[union-attr]
    # turning the five-card lizard off gives six again; on, five
    lizard = with_value(Rules(), "modifiers", ("lizard",))
    assert lizard is not None and lizard.hand_size == 5
    plain = with_value(lizard, "modifiers", ())
    assert plain is not None and plain.hand_size == 6
