"""Lobby, end of game, /stats, /rules, /help, /start, /lang, alerts and command lists."""

from __future__ import annotations

import pytest

from bot.base.i18n import LANGS, Lang, tr
from bot.render import (
    EndContext,
    LobbyContext,
    Player,
    alert,
    bot_commands,
    callback_problem,
    join_link,
    lobby_problem,
    render_ai_picker,
    render_blocked,
    render_cancelled,
    render_end,
    render_help,
    render_lang_picker,
    render_lobby,
    render_need_private,
    render_player_stats,
    render_rules,
    render_start,
    render_stats,
)
from bot.render.common import short_name
from bot.render.limits import MAX_TEXT, visible_length
from bot.render.texts import COMMANDS, ENGINE_REASONS
from bot.service import callbacks as cb
from engine import Rules

from .helpers import Tally, players, result
from .snapshots import assert_snapshot, shot

CODEC = cb.CallbackCodec()


TALLY = [
    Tally("Боря", 12, 5, 1, 0, 14),
    Tally("Аня", 12, 1, 0, 2, 20),
    Tally("Вика <b>&", 11, 3, 0, 1, 15),
    Tally("Computer", 2, 2, 2, 0, 0),
]


@pytest.mark.parametrize("lang", LANGS)
def test_lobby_snapshot(lang: Lang) -> None:
    rules = Rules.preset("perevodnoy", teams="pairs", turn_timeout=60)
    seats = [Player("Аня"), Player("Боря"), Player("Вася", ai_level=1)]
    screen = render_lobby(rules, seats, lang, LobbyContext(55, 3, creator="Аня"))
    assert_snapshot(f"lobby_{lang}", shot(screen))
    empty = render_lobby(Rules(), [], lang, LobbyContext(55, 0))
    assert_snapshot(f"lobby_empty_{lang}", shot(empty))


def test_lobby_buttons() -> None:
    seats = [Player("Аня"), Player("Бот 1", ai_level=0), Player("Бот 2", ai_level=2)]
    screen = render_lobby(Rules(), seats, "en", LobbyContext(55, 3))
    assert screen.keyboard is not None
    decoded = [CODEC.decode(b.data) for b in screen.keyboard.buttons()]
    kinds = [type(d).__name__ for d in decoded]
    assert kinds == ["Join", "Leave", "AiMenu", "Settings", "Kick", "Kick", "Start"]
    assert [d.seat for d in decoded if isinstance(d, cb.Kick)] == [1, 2]
    assert all(d.table == 55 and d.version == 3 for d in decoded)  # type: ignore[union-attr]
    assert "Ready to start" in screen.text


def test_lobby_problems() -> None:
    assert lobby_problem(Rules(), 1, "en") == "Needs 2 to 6 players."
    assert lobby_problem(Rules(), 2, "en") is None
    assert (
        lobby_problem(Rules(teams="pairs"), 5, "ru") == "Для режима «Парами» нужно 4 или 6 игроков."
    )
    assert lobby_problem(Rules(hand_size=8), 5, "en") == (
        "5 players × 8 cards do not fit a 36-card deck."
    )


def test_ai_picker_and_private_prompts() -> None:
    picker = render_ai_picker("ru", LobbyContext(5, 1))
    assert picker.keyboard is not None
    assert [b.text for b in picker.keyboard.rows[0]] == ["🤖 новичок", "🤖 любитель", "🤖 мастер"]
    assert [CODEC.decode(b.data).level for b in picker.keyboard.rows[0]] == [0, 1, 2]  # type: ignore[union-attr, arg-type]
    link = join_link("durak_bot", 2**40)
    assert link.startswith("https://t.me/durak_bot?start=j")
    assert CODEC.parse_join_payload(link.rsplit("=", 1)[1]) == 2**40
    prompt = render_need_private("en", "durak_bot", 5, name="Аня <3")
    assert "Аня &lt;3" in prompt.text and prompt.keyboard is not None
    assert prompt.keyboard.rows[0][0].url == join_link("durak_bot", 5)
    blocked = render_blocked("ru", "Боря", "durak_bot", 5)
    assert "Боря" in blocked.text and blocked.keyboard is not None


@pytest.mark.parametrize("lang", LANGS)
def test_end_snapshots(lang: Lang) -> None:
    ctx = EndContext(55, 40, tally=TALLY, games=12)
    durak = render_end(result(), players(3), lang, ctx)
    assert_snapshot(f"end_durak_{lang}", shot(durak))
    pogony = render_end(result(pogony=True), players(3), lang, EndContext(55, 40))
    assert_snapshot(f"end_pogony_{lang}", shot(pogony))


@pytest.mark.parametrize("lang", LANGS)
def test_every_ending_is_worded(lang: Lang) -> None:
    draw = render_end(
        result(durak=None, losers=(), draw=True, points=(2, 1, 1), finish_order=(0, 1, 2)),
        players(3),
        lang,
        EndContext(1, 1),
    ).text
    team = render_end(
        result(durak=1, durak_team=(1, 3), losers=(1, 3), points=(2, 0, 2, 0)),
        players(4),
        lang,
        EndContext(1, 1),
    ).text
    team_pogony = render_end(
        result(durak=1, durak_team=(1, 3), losers=(1, 3), points=(2, 0, 2, 0), pogony=True),
        players(4),
        lang,
        EndContext(1, 1),
    ).text
    timeout = render_end(result(timed_out=1), players(3), lang, EndContext(1, 1)).text
    surrender = render_end(result(), players(3), lang, EndContext(1, 1, surrendered=1)).text
    texts = {draw, team, team_pogony, timeout, surrender}
    assert len(texts) == 5
    assert "⏰" in timeout and "🏳" in surrender and "🤝" in draw
    assert "Гена" in team and "Боря" in team
    assert render_cancelled(lang) != render_cancelled(lang, by="Аня")


@pytest.mark.parametrize("lang", LANGS)
def test_stats_snapshot(lang: Lang) -> None:
    text = render_stats(TALLY, lang, chat_title="Дурачки & co")
    assert_snapshot(f"stats_{lang}", text + "\n")
    assert render_stats([], lang) != render_stats(TALLY, lang)


def test_stats_order_and_big_tally() -> None:
    text = render_stats(TALLY, "en")
    assert text.index("Аня") < text.index("Вика") < text.index("Боря") < text.index("Computer")
    many = [Tally(f"Player {i}" * 5, i, i, i, i, i) for i in range(300)]
    assert visible_length(render_stats(many, "ru")) <= MAX_TEXT
    end = render_end(result(), players(3), "ru", EndContext(1, 1, tally=many))
    assert visible_length(end.text) <= MAX_TEXT


@pytest.mark.parametrize("lang", LANGS)
def test_rules_text_snapshot(lang: Lang) -> None:
    rules = Rules.preset("perevodnoy", proezdnoy=True, modifiers=("japanese",), turn_timeout=0)
    assert_snapshot(f"rules_{lang}", render_rules(rules, lang) + "\n")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("preset", ["podkidnoy", "perevodnoy", "prostoy", "prostoy5"])
def test_rules_text_for_every_game(lang: Lang, preset: str) -> None:
    text = render_rules(Rules.preset(preset), lang)
    assert visible_length(text) < MAX_TEXT and "{" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_help_start_lang(lang: Lang) -> None:
    for scope in ("group", "private"):
        text = render_help(lang, scope)  # type: ignore[arg-type]
        assert "/help" not in text or scope == "group"
        assert "/newgame" in text
    start = render_start(lang, "durak_bot", CODEC)
    assert start.keyboard is not None and "startgroup" in (start.keyboard.rows[1][0].url or "")
    quick = start.keyboard.rows[0][0]
    assert quick.text.startswith("⚡") and CODEC.decode(quick.data) == cb.Quick("go")  # type: ignore[arg-type]
    alone = render_start(lang, codec=CODEC).keyboard
    assert alone is not None and [b.text for b in alone.buttons()] == [quick.text]
    picker = render_lang_picker(lang)
    assert picker.keyboard is not None
    assert [CODEC.decode(b.data).lang for b in picker.keyboard.buttons()] == ["ru", "en", "uk"]  # type: ignore[union-attr, arg-type]
    assert [len(row) for row in picker.keyboard.rows] == [1, 1, 1], "one language a row"
    labels = [b.text for b in picker.keyboard.buttons()]
    assert labels == [
        tr(lang, "settings.btn.chosen", value=name) if code == lang else name
        for code, name in zip(LANGS, ("Русский", "English", "Українська"), strict=True)
    ], "each language named in itself, the current one marked"


@pytest.mark.parametrize("lang", LANGS)
def test_commands_and_alerts(lang: Lang) -> None:
    for scope in ("group", "private"):
        commands = bot_commands(lang, scope)  # type: ignore[arg-type]
        assert [c for c, _ in commands] == list(COMMANDS[scope])  # type: ignore[index]
        assert all(c.islower() and 1 <= len(c) <= 32 and d for c, d in commands)
    for reason in ENGINE_REASONS:
        assert 0 < len(alert(lang, reason)) <= 200
    assert alert(lang, "no-such-reason") == alert(lang, "unknown")
    assert callback_problem(lang, "stale") != callback_problem(lang, "malformed")
    assert callback_problem(lang, "garbage") == callback_problem(lang, "malformed")


@pytest.mark.parametrize("lang", LANGS)
def test_a_player_s_own_stats_name_each_group_and_add_up(lang: Lang) -> None:
    rows = [
        Tally("Аня", 1, 1, 0, 0, 0, chat_id=-1),
        Tally("Аня", 21, 5, 1, 2, 30, chat_id=-2),
        Tally("Аня", 3, 0, 0, 0, 6, chat_id=-3),
    ]
    titles = {-1: "Дача", -2: "Work <b>"}
    text = render_player_stats(rows, titles, lang)
    assert_snapshot(f"stats_mine_{lang}", text)
    assert "Work &lt;b&gt;" in text and "Дача" in text
    assert tr(lang, "stats.some_group") in text, "a group whose title is unknown"
    assert tr(lang, "tally.games", n=25) in text, "the totals add up"
    assert "Аня" not in text, "his own name is not repeated per group"
    assert render_player_stats([], {}, lang).endswith(tr(lang, "stats.mine_empty"))


@pytest.mark.parametrize(
    "name",
    [
        "Ann 🇺🇦🇺🇦🇺🇦🇺🇦🇺🇦🇺🇦🇺🇦🇺🇦🇺🇦🇺🇦🇺🇦🇺🇦",  # flags: two code points each
        "👨‍👩‍👧‍👦" * 20,  # families: people joined by zero-width joiners
        "Zoe" + "é" * 30,  # e and a combining accent
        "👍🏽" * 20,  # a thumb with its skin tone
    ],
)
def test_names_are_cut_between_grapheme_clusters(name: str) -> None:
    import regex

    cut = short_name(name, 8)
    assert cut.endswith("…")
    kept = cut[:-1]
    assert name.startswith(kept)
    whole = regex.findall(r"\X", name)
    assert len(regex.findall(r"\X", kept)) <= 7
    assert kept == "".join(whole[: len(regex.findall(r"\X", kept))]), "no cluster split"
    assert not kept.endswith("\u200d"), "no dangling joiner"
