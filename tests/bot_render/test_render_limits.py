"""Every screen fits Telegram's limits whatever the names and the counts: 4096 characters
after entities parsing (UTF-16 units, as the fake server's parser counts), and long lists
cut with "and N more" rather than left to the last guard."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from fake_telegram.formatting import parse_html, utf16_len
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.base.i18n import LANGS, Lang, tr
from bot.chat.common import SAYINGS, say
from bot.ratings.achievements import CATALOGUE
from bot.render import (
    CoachNote,
    EndContext,
    LobbyContext,
    Player,
    ReplayFrame,
    Screen,
    TableContext,
    lobby_problem,
    options,
    render_ai_picker,
    render_blocked,
    render_cancelled,
    render_end,
    render_hand,
    render_help,
    render_lobby,
    render_need_private,
    render_nudge,
    render_option,
    render_player_stats,
    render_replay,
    render_rules,
    render_settings,
    render_solo_lobby,
    render_stats,
    render_table,
    with_seats,
)
from bot.render.common import MAX_NAME, short_name
from bot.render.limits import MAX_ANSWER, MAX_TEXT, units, visible_length
from bot.render.settings import GROUPS
from bot.service import callbacks as cb
from engine import MODIFIERS, Event, Game, Result, Rules
from engine.actions import Cover, Take
from engine.ai.coach import Mark

from .helpers import Tally, card, random_games

CODEC = cb.CallbackCodec()
ZALGO = "a" + "\u0301" * 60
"""A letter under sixty combining marks: one character as a reader counts, 61 units."""


def within_limits(text: str) -> None:
    """Valid HTML that Telegram accepts: at most 4096 once parsed, by our measure and by
    the fake server's parser."""
    assert visible_length(text) <= MAX_TEXT
    assert utf16_len(parse_html(text).text) <= MAX_TEXT


def screen_fits(screen: Screen) -> None:
    within_limits(screen.text)
    for button in screen.keyboard.buttons() if screen.keyboard else ():
        assert 0 < len(button.text) <= 64
        assert button.data is None or len(button.data.encode()) <= 64


def tally(name: str, n: int, chat_id: int = 0) -> Tally:
    return Tally(name, n, n, n, n, n, chat_id=chat_id)


# ---------------------------------------------------------------- the two cases


@pytest.mark.parametrize("lang", LANGS)
def test_a_player_s_stats_in_forty_groups_fit_and_say_how_many_more(lang: Lang) -> None:
    rows = [tally("Аня", 123_456 + i, chat_id=-1000 - i) for i in range(40)]
    titles = {-1000 - i: f"№ {i:02} · клуб любителей подкидного дурака" for i in range(40)}
    text = render_player_stats(rows, titles, lang)
    within_limits(text)
    shown = [t for t in titles.values() if t[:5] in text]
    assert 0 < len(shown) <= 20 and shown == list(titles.values())[: len(shown)], "most recent"
    assert tr(lang, "stats.mine_more", n=40 - len(shown)) in text
    everything = sum(r.games for r in rows)
    assert tr(lang, "tally.games", n=everything) in text, "the totals count every group"
    assert tr(lang, "stats.footer") in text


@pytest.mark.parametrize("lang", LANGS)
def test_twenty_players_named_with_sixty_combining_marks_fit_the_group_stats(lang: Lang) -> None:
    rows = [tally(ZALGO * 24, 1_000_000 + i) for i in range(20)]
    text = render_stats(rows, lang, chat_title=ZALGO * 40)
    within_limits(text)
    assert text.count("</b> — ") == 20, "all twenty, each with a name cut to its length"
    assert units(short_name(ZALGO * 24)) <= 2 * MAX_NAME


def test_russian_plurals_of_and_n_more() -> None:
    assert tr("ru", "tally.more", n=1) == "…и ещё 1 игрок"
    assert tr("ru", "tally.more", n=3) == "…и ещё 3 игрока"
    assert tr("ru", "tally.more", n=12) == "…и ещё 12 игроков"
    assert tr("ru", "stats.mine_more", n=21) == "…и ещё 21 группа"
    assert tr("ru", "stats.mine_more", n=24) == "…и ещё 24 группы"
    assert tr("ru", "stats.mine_more", n=20) == "…и ещё 20 групп"
    assert tr("en", "tally.more", n=1) == "…and 1 more player"
    assert tr("en", "stats.mine_more", n=12) == "…and 12 more groups"


def test_a_long_tally_is_cut_with_and_n_more() -> None:
    rows = [tally(f"Игрок {i}", 100 - i) for i in range(45)]
    text = render_stats(rows, "ru")
    assert "30. " in text and "31. " not in text
    assert tr("ru", "tally.more", n=15) in text
    end = render_end(RESULT, PLAYERS, "ru", EndContext(1, 1, tally=rows, codec=CODEC))
    assert "20. " in end.text and tr("ru", "tally.more", n=25) in end.text


# ---------------------------------------------------------------- any names, any counts

NAMES = st.one_of(
    st.text(max_size=120),
    st.builds(
        lambda base, marks, times: (base + "\u0301" * marks) * times,
        st.sampled_from(["a", "Ж", "&", "<"]),
        st.integers(0, 120),
        st.integers(1, 60),
    ),
    st.lists(
        st.sampled_from(["👨‍👩‍👧‍👦", "🇺🇦", "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "&amp;", "<b>", "\u200d", " ", "Ж", "\u0301"]),
        max_size=80,
    ).map("".join),
)
COUNTS = st.integers(0, 10**9)
RULES = (
    Rules(),
    Rules(deck_size=54, modifiers=("full",), bout_limit=12, first_bout_limit=None),
    Rules.preset("perevodnoy", teams="pairs", proezdnoy=True),
)


def _positions() -> Iterator[tuple[Rules, Game, list[Event]]]:
    for i, rules in enumerate(RULES):
        for k, (game, events) in enumerate(random_games(rules, 6, seed=i)):
            if k % 15 == 0 or game.result is not None:
                yield rules, game.copy(), list(events)


POSITIONS = list(_positions())
PLAYERS = [Player(ZALGO * 30), Player("&<>" * 40, ai_level=2)] + [Player("👨‍👩‍👧‍👦" * 30)] * 4
RESULT = Result(
    durak=1,
    durak_team=(1, 3, 5),
    losers=(1, 3, 5),
    draw=False,
    pogony=True,
    finish_order=(0, 2, 4),
    points=(2, 0, 2, 0, 2, 0),
    first_attacker=0,
    dealer=5,
    timed_out=3,
)
MARK = Mark(
    move=1, played=Take(0), suggested=Cover(0, card("7S"), card("9S")), before=0.7, after=0.2
)
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(
    names=st.lists(NAMES, min_size=6, max_size=6),
    title=NAMES,
    at=st.sampled_from(POSITIONS),
    lang=st.sampled_from(LANGS),
)
def test_any_names_keep_the_table_hands_and_replay_within_limits(
    names: list[str], title: str, at: tuple[Rules, Game, list[Event]], lang: Lang
) -> None:
    rules, game, events = at
    people = [Player(n, ai_level=1 if i % 2 else None) for i, n in enumerate(names)]
    ctx = TableContext(2**40, 10**6, title, 86_399, tuple(events[-60:]), "b" * 32, CODEC, 2e9)
    screen_fits(render_table(game.public_view(), people, lang, ctx, rules=rules))
    for seat in range(6):
        screen_fits(render_hand(game.view(seat), people, lang, ctx, rules=rules))
    frame = ReplayFrame(
        table_id=2**40,
        game_no=10**6,
        step=len(events),
        total=10**6,
        public=game.public_view(),
        hands=tuple(tuple(h) for h in game.hands),
        events=tuple(events[-20:]),
        group_title=title,
        viewer=0,
        coach=CoachNote("ready", (MARK,) * 5, 10**6),
        codec=CODEC,
    )
    screen_fits(render_replay(frame, people, lang, rules))


@SLOW
@given(
    names=st.lists(NAMES, min_size=0, max_size=6),
    title=NAMES,
    rows=st.lists(st.tuples(NAMES, COUNTS, COUNTS, COUNTS, COUNTS, COUNTS), max_size=80),
    lang=st.sampled_from(LANGS),
)
def test_any_names_and_counts_keep_the_lobby_end_and_stats_within_limits(
    names: list[str],
    title: str,
    rows: list[tuple[str, int, int, int, int, int]],
    lang: Lang,
) -> None:
    people = [Player(n, ai_level=0 if i == 3 else None) for i, n in enumerate(names)]
    lobby = LobbyContext(2**40, 10**6, creator=title, codec=CODEC)
    for rules in RULES:
        screen_fits(render_lobby(rules, people, lang, lobby))
        screen_fits(
            with_seats(render_settings(rules, lang, 1, 1, codec=CODEC), people, lang, lobby)
        )
        screen_fits(with_seats(render_ai_picker(lang, lobby), people, lang, lobby))
    tallies = [Tally(*row, chat_id=-1 - i) for i, row in enumerate(rows)]
    seated = (people + [Player(n) for n in reversed(names)] + PLAYERS)[:6]
    every = tuple(a.code for a in CATALOGUE)  # each player earning everything at once
    earned = [(seat, every) for seat in range(len(seated))]
    for games in (None, 10**9):
        ctx = EndContext(2**40, 10**6, tally=tallies, games=games, surrendered=1, game_no=10**6)
        screen_fits(render_end(RESULT, seated, lang, ctx))
        screen_fits(render_end(RESULT, seated, lang, replace(ctx, earned=earned)))
    within_limits(render_stats(tallies, lang, chat_title=title))
    titles = {t.chat_id: name for t, name in zip(tallies, [title, *names] * 20, strict=False)}
    within_limits(render_player_stats(tallies, titles, lang))
    within_limits(render_player_stats(tallies, titles, lang, solo=-1))
    within_limits(render_cancelled(lang, by=title))
    within_limits(render_nudge(lang, title, 2**40, 86_399, 2e9))
    screen_fits(render_blocked(lang, title, "b" * 32, 2**40, CODEC, seconds=86_399))
    screen_fits(render_need_private(lang, "b" * 32, 2**40, title, CODEC))


def _rules_sets() -> list[Rules]:
    found = [Rules.preset(p) for p in ("podkidnoy", "perevodnoy", "prostoy", "prostoy5")]
    greedy: tuple[str, ...] = ()
    for modifier in MODIFIERS:
        try:
            Rules(modifiers=(*greedy, modifier))
        except ValueError:
            continue
        greedy = (*greedy, modifier)
    found.append(Rules(modifiers=greedy))
    found.append(
        Rules.preset(
            "perevodnoy",
            teams="triples",
            proezdnoy=True,
            no_transfer_with_trump_on_table=True,
            turn_timeout=3725,
            draw="not_allowed",
            modifiers=("spades_by_spades", "poker"),
        )
    )
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_rules_settings_pages_and_help_fit_with_six_long_names(lang: Lang) -> None:
    lobby = LobbyContext(2**40, 10**6, creator=ZALGO * 30, codec=CODEC)
    for rules in _rules_sets():
        within_limits(render_rules(rules, lang))
        screen_fits(render_lobby(rules, PLAYERS, lang, lobby))
        screen_fits(render_solo_lobby(rules, 5, 2, lang, lobby))
        for page in ("", *GROUPS):
            page_screen = render_settings(rules, lang, 1, 1, page, CODEC)
            screen_fits(with_seats(page_screen, PLAYERS, lang, lobby))
        for spec in options():
            option = render_option(rules, lang, 1, 1, spec.token, CODEC)
            screen_fits(with_seats(option, PLAYERS, lang, lobby))
    for scope in ("group", "private"):
        within_limits(render_help(lang, scope))  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", LANGS)
def test_every_answer_to_a_press_fits_two_hundred_characters(lang: Lang) -> None:
    problems = {
        lobby_problem(rules, players, lang) or "" for rules in _rules_sets() for players in range(8)
    }
    for reason in SAYINGS:
        for problem in problems:
            assert units(say(lang, reason, problem=problem, min=2)) <= MAX_ANSWER, reason
