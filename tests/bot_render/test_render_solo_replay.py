"""The screens of a game against the computer, of replays and of the coach, in both
languages: the setup, the end with Play again and Replay, the private /stats with the
games against the computer apart, and replay frames with and without the coach's marks."""

from __future__ import annotations

import pytest

from bot.base.i18n import LANGS, Lang, tr
from bot.render import (
    CoachNote,
    EndContext,
    LobbyContext,
    Player,
    ReplayFrame,
    action_words,
    render_end,
    render_player_stats,
    render_replay,
    render_solo_lobby,
)
from bot.render.common import card_text
from bot.render.limits import MAX_TEXT, visible_length
from bot.service import callbacks as cb
from engine import Event, Game, Rules
from engine.actions import Cover, Lead, Pass, Take, Throw, Transfer
from engine.ai import make_player
from engine.ai.coach import Mark

from .helpers import Tally, card, result
from .snapshots import assert_snapshot, shot

CODEC = cb.CallbackCodec()
PEOPLE = [Player("Аня"), Player("Computer 1", ai_level=2)]


def kinds(screen_keyboard: object) -> list[list[object]]:
    rows = getattr(screen_keyboard, "rows", ())
    return [[CODEC.decode(b.data) for b in row if b.data] for row in rows]


@pytest.mark.parametrize("lang", LANGS)
def test_solo_setup_snapshot(lang: Lang) -> None:
    ctx = LobbyContext(31, 4, codec=CODEC)
    screen = render_solo_lobby(Rules(turn_timeout=0), 2, 1, lang, ctx)
    assert_snapshot(f"solo_setup_{lang}", shot(screen))
    rows = kinds(screen.keyboard)
    counts, levels, last, quick = rows
    # each button keeps the other choice as it is
    assert counts == [cb.SoloSetup(31, 4, n, 1) for n in range(1, 6)]
    assert levels == [cb.SoloSetup(31, 4, 2, n) for n in range(3)]
    assert last == [cb.Settings(31, 4), cb.Start(31, 4)]
    assert quick == [cb.Quick("go")]  # or a human opponent
    assert screen.keyboard is not None
    marked = [b.text for row in screen.keyboard.rows for b in row if b.text.startswith("•")]
    assert marked == ["• 2 •", f"• {tr(lang, 'ai.level.1')} •"]


def test_solo_setup_plurals_and_problems() -> None:
    ctx = LobbyContext(1, 1, codec=CODEC)
    ru = {n: render_solo_lobby(Rules(), n, 0, "ru", ctx).text for n in (1, 2, 5)}
    assert "Соперник: 1 компьютер" in ru[1]
    assert "Соперники: 2 компьютера" in ru[2]
    assert "Соперники: 5 компьютеров" in ru[5]
    assert "Opponents: 5 computers" in render_solo_lobby(Rules(), 5, 0, "en", ctx).text
    # pairs need four or six players: two opponents make three, which the setup says
    pairs = render_solo_lobby(Rules(teams="pairs"), 2, 0, "en", ctx).text
    assert "⚠️" in pairs


@pytest.mark.parametrize("lang", LANGS)
def test_a_solo_end_plays_again_and_a_finished_game_offers_its_replay(lang: Lang) -> None:
    two = result(finish_order=(0,), points=(2, 0), dealer=1)
    solo = render_end(two, PEOPLE, lang, EndContext(9, 70, game_no=3, solo=True, codec=CODEC))
    assert_snapshot(f"end_solo_{lang}", shot(solo))
    assert kinds(solo.keyboard) == [[cb.Rematch(9, 70), cb.ReplayOpen(9, 3)]]
    assert solo.keyboard is not None
    assert solo.keyboard.rows[0][0].text == tr(lang, "end.btn.play_again")
    group = render_end(two, PEOPLE, lang, EndContext(9, 70, game_no=3, codec=CODEC))
    assert group.keyboard is not None
    assert group.keyboard.rows[0][0].text == tr(lang, "end.btn.rematch")


@pytest.mark.parametrize("lang", LANGS)
def test_private_stats_show_games_against_the_computer_apart(lang: Lang) -> None:
    rows = [
        Tally("Аня", 4, 1, 0, 0, 6, chat_id=-5),
        Tally("Аня", 7, 2, 1, 1, 9, chat_id=42),
        Tally("Аня", 2, 1, 0, 0, 2, chat_id=-6),
    ]
    text = render_player_stats(rows, {-5: "Дача", -6: "Work"}, lang, solo=42)
    assert_snapshot(f"stats_mine_solo_{lang}", text)
    # the group total leaves the games against the computer out
    assert tr(lang, "tally.games", n=6) in text and tr(lang, "tally.games", n=13) not in text
    alone = render_player_stats(rows[1:2], {}, lang, solo=42)
    assert tr(lang, "stats.no_groups") in alone
    assert tr(lang, "stats.mine_total", stats="X").removesuffix("X") not in alone, "no total"


def test_moves_in_words() -> None:
    seven, nine = card("7S"), card("9S")
    assert action_words(Cover(0, seven, nine), "en") == (
        f"cover {card_text(seven)} with {card_text(nine)}"
    )
    assert action_words(Cover(0, seven, nine), "ru") == (
        f"побить {card_text(seven)} картой {card_text(nine)}"
    )
    assert action_words(Take(0), "ru") == "взять"
    assert action_words(Pass(0), "en") == "throw in nothing more"
    assert action_words(Lead(0, (seven,)), "en") == f"lead {card_text(seven)}"
    assert action_words(Throw(0, nine), "ru") == f"подкинуть {card_text(nine)}"
    assert action_words(Transfer(0, seven), "en") == f"transfer with {card_text(seven)}"


EVENTS: dict[int, tuple[Event, ...]] = {}
"""What each move of :func:`played_game` caused, by move number."""


def played_game(seed: int = 5) -> tuple[Game, list[Game]]:
    """A seeded 2-player game played by two normal computer players: the deal and every
    position after it (what each move caused in :data:`EVENTS`)."""
    rules = Rules(hand_size=4)
    game = Game.new(rules, players=2, seed=seed)
    start = game.copy()
    positions = [game.copy()]
    player = make_player("normal")
    while game.result is None:
        seat = game.to_act()[0]
        events = game.apply(player.choose(game.view(seat), rules, seed=seed))
        positions.append(game.copy())
        EVENTS[len(positions) - 1] = tuple(events)
    return start, positions


def frame(game: Game, step: int, total: int, note: CoachNote, title: str = "") -> ReplayFrame:
    return ReplayFrame(
        table_id=12,
        game_no=2,
        step=step,
        total=total,
        public=game.public_view(),
        hands=tuple(game.view(s).hand for s in range(2)),
        events=EVENTS.get(step, ()),
        group_title=title,
        viewer=0,
        coach=note,
        codec=CODEC,
    )


MARK = Mark(
    move=3, played=Take(0), suggested=Cover(0, card("7S"), card("9S")), before=0.7, after=0.2
)


@pytest.mark.parametrize("lang", LANGS)
def test_replay_frames(lang: Lang) -> None:
    _, positions = played_game()
    total = len(positions) - 1
    note = CoachNote("ready", (MARK,), decisions=9)
    deal = render_replay(frame(positions[0], 0, total, note, "Дача"), PEOPLE, lang, Rules())
    assert_snapshot(f"replay_deal_{lang}", shot(deal))
    assert tr(lang, "coach.summary", n=1, decisions=tr(lang, "coach.decisions", n=9)) in deal.text
    marked = render_replay(frame(positions[3], 3, total, note), PEOPLE, lang, Rules())
    assert_snapshot(f"replay_marked_{lang}", shot(marked))
    assert "70% " in marked.text or "70%" in marked.text
    assert tr(lang, "solo.where") in marked.text, "a game against the computer names no group"
    end = render_replay(frame(positions[-1], total, total, note), PEOPLE, lang, Rules())
    assert tr(lang, "replay.end") in end.text
    # every hand is face up
    for seat in range(2):
        for c in positions[3].view(seat).hand:
            assert card_text(c) in marked.text


def test_replay_buttons_stay_inside_the_game() -> None:
    _, positions = played_game()
    total = len(positions) - 1
    note = CoachNote("ready", (MARK,), decisions=9)
    first = kinds(render_replay(frame(positions[0], 0, total, note), PEOPLE, "en").keyboard)
    assert [b.step for b in first[0]] == [0, 0, 0, 1, total]  # type: ignore[attr-defined]
    assert first[1] == [cb.ReplayStep(12, 2, 3)], "the jump to the marked move"
    last = kinds(render_replay(frame(positions[-1], total, total, note), PEOPLE, "en").keyboard)
    assert [b.step for b in last[0]] == [0, total - 1, total, total, total]  # type: ignore[attr-defined]
    assert len(last) == 1, "no marked move ahead"


@pytest.mark.parametrize("lang", LANGS)
def test_what_the_coach_says_while_working_clean_or_off(lang: Lang) -> None:
    _, positions = played_game()
    total = len(positions) - 1
    working = render_replay(frame(positions[0], 0, total, CoachNote("working")), PEOPLE, lang)
    assert tr(lang, "coach.working") in working.text
    clean = render_replay(
        frame(positions[0], 0, total, CoachNote("ready", (), 7)), PEOPLE, lang
    ).text
    assert tr(lang, "coach.clean", decisions=tr(lang, "coach.decisions", n=7)) in clean
    off = render_replay(frame(positions[0], 0, total, CoachNote("off")), PEOPLE, lang).text
    assert "🧑‍🏫" not in off
    assert (
        "проверено 7 решений"
        in render_replay(
            frame(positions[0], 0, total, CoachNote("ready", (), 7)), PEOPLE, "ru"
        ).text
    )


def test_a_six_player_frame_fits_a_message() -> None:
    rules = Rules(deck_size=54)
    game = Game.new(rules, players=6, seed=3)
    people = [Player(f"Игрок с очень длинным именем {i}") for i in range(6)]
    shown = ReplayFrame(
        table_id=1,
        game_no=1,
        step=0,
        total=200,
        public=game.public_view(),
        hands=tuple(game.view(s).hand for s in range(6)),
        coach=CoachNote("ready", (MARK,) * 3, 40),
        viewer=2,
        codec=CODEC,
    )
    assert visible_length(render_replay(shown, people, "ru", rules).text) <= MAX_TEXT


@pytest.mark.parametrize("lang", LANGS)
def test_the_settings_of_a_game_against_the_computer_speak_to_its_player(lang: Lang) -> None:
    from bot.render import render_settings

    solo = render_settings(Rules(), lang, 3, 1, codec=CODEC, solo=True)
    group = render_settings(Rules(), lang, 3, 1, codec=CODEC)
    assert tr(lang, "settings.hint_solo") in solo.text
    assert tr(lang, "settings.hint") in group.text and tr(lang, "settings.hint") not in solo.text
    assert solo.keyboard is not None and group.keyboard is not None
    assert solo.keyboard.rows[-1][0].text == tr(lang, "settings.btn.setup")
    assert kinds(solo.keyboard)[-1] == [cb.Lobby(3, 1)]
