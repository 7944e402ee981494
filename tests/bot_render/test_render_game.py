"""The group table and the private hand: snapshots of pinned positions in both languages,
nothing secret in the group's text, limits kept."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from bot.base.i18n import LANGS, Lang, tr
from bot.render import (
    Player,
    ReplayFrame,
    TableContext,
    action_words,
    plain_clocks,
    render_hand,
    render_replay,
    render_table,
    resolve_tap,
    seconds_until,
    to_markup,
)
from bot.render.limits import MAX_TEXT, visible_length
from bot.service import callbacks as cb
from engine import Card, Event, Game, Rules, Suit
from engine.actions import (
    Cover,
    Covered,
    Dealt,
    Lead,
    Led,
    Pass,
    PickedUp,
    Take,
    Throw,
    Thrown,
    Transferred,
    TrumpChanged,
    TrumpShown,
    TrumpSwapped,
)

from .helpers import card, ctx, players, position, random_games
from .snapshots import assert_snapshot, shot

PODKIDNOY = Rules.preset("podkidnoy")
PEREVODNOY = Rules.preset("perevodnoy", proezdnoy=True)


def mid_bout() -> tuple[Game, list[Event]]:
    """Аня led 7♠ 7♣ against Боря, who covered 7♠ with 9♠; Вика threw in 9♣. Trump ♦."""
    game = position(
        PODKIDNOY,
        ["7S 7C 9D QC AH KD", "8S 9S JH KS 6H TD", "9H 9C TS JC QS 6C"],
        "6D 8C KH 8H AD",
        first_game=False,
        bouts=3,
    )
    events: list[Event] = []
    events += game.apply(Lead(0, (card("7S"), card("7C"))))
    events += game.apply(Cover(1, card("7S"), card("9S")))
    events += game.apply(Throw(2, card("9C")))
    return game, events


def transfer_spot() -> tuple[Game, list[Event]]:
    """Perevodnoy with proezdnoy: Аня led 7♠; Боря holds 7♦ and the trump 7♥."""
    game = position(
        PEREVODNOY,
        ["7S 7C 9D QC AH KD", "7D 8S 9S JH KS 7H", "8H 9C TD JC QS 6C"],
        "6D 8C KH 9H",
        first_game=False,
        bouts=1,
    )
    events = game.apply(Lead(0, (card("7S"),)))
    return game, events


@pytest.mark.parametrize("lang", LANGS)
def test_group_table_snapshot(lang: Lang) -> None:
    game, events = mid_bout()
    screen = render_table(game.public_view(), players(3), lang, ctx(game, events), rules=PODKIDNOY)
    assert_snapshot(f"table_mid_bout_{lang}", shot(screen))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("seat", [0, 1, 2])
def test_hand_snapshot(lang: Lang, seat: int) -> None:
    game, events = mid_bout()
    screen = render_hand(game.view(seat), players(3), lang, ctx(game, events), rules=PODKIDNOY)
    assert_snapshot(f"hand_mid_bout_seat{seat}_{lang}", shot(screen))


@pytest.mark.parametrize("lang", LANGS)
def test_a_plain_clock_is_the_live_one_without_its_tag(lang: Lang) -> None:
    # for a Bot API server older than live clocks: the same screen, the time left as text
    game, events = mid_bout()
    plain = ctx(game, events)
    live = dataclasses.replace(plain, deadline=1_767_225_695.0)
    for draw in (
        lambda c: render_table(game.public_view(), players(3), lang, c, rules=PODKIDNOY),
        lambda c: render_hand(game.view(1), players(3), lang, c, rules=PODKIDNOY),
    ):
        with_clock, without = draw(live), draw(plain)
        assert with_clock.text.count('<tg-time unix="1767225695" format="r">') == 1
        assert plain_clocks(with_clock.text) == without.text
        assert with_clock.keyboard == without.keyboard
    assert plain_clocks(without.text) == without.text


@pytest.mark.parametrize("lang", LANGS)
def test_hand_choice_snapshot(lang: Lang) -> None:
    game, events = transfer_spot()
    view = game.view(1)
    choice = resolve_tap(view, card("7H"))
    assert not isinstance(choice, Cover | None)
    screen = render_hand(view, players(3), lang, ctx(game, events), rules=PEREVODNOY, choice=choice)  # type: ignore[arg-type]
    assert_snapshot(f"hand_choice_transfer_{lang}", shot(screen))
    normal = render_hand(view, players(3), lang, ctx(game, events), rules=PEREVODNOY)
    assert_snapshot(f"hand_transfer_{lang}", shot(normal))


@pytest.mark.parametrize("lang", LANGS)
def test_hand_lead_and_selection_snapshots(lang: Lang) -> None:
    game = position(PODKIDNOY, ["7S 7C 7H 9D QC AH", "8S 9S JH KS 6H TD"], "6D 8C KH 8H AD")
    c = ctx(game, game_events_dealt(game), seconds=3725)
    view = game.view(0)
    assert_snapshot(f"hand_lead_{lang}", shot(render_hand(view, players(2), lang, c)))
    assert resolve_tap(view, card("7C")) == Lead(0, (card("7C"),)), "one tap leads it alone"
    picked = frozenset({card("7S"), card("7H")})
    screen = render_hand(view, players(2), lang, c, selection=picked)
    assert_snapshot(f"hand_lead_selection_{lang}", shot(screen))


def game_events_dealt(game: Game) -> list[Event]:
    return [Dealt(0, game.turnup)]


def test_hand_when_waiting_taking_out_and_over() -> None:
    game, _ = mid_bout()
    game.apply(Take(1))
    taking = render_hand(game.view(1), players(3), "en", ctx(game))
    assert "You take" in taking.text
    labels = [b.text for b in taking.keyboard.buttons()]  # type: ignore[union-attr]
    # grouped by suit, the trump (♦) last; nothing to play while he takes: none dimmed
    assert labels == ["8♠️", "K♠️", "6♥️", "J♥️", "10♦️", "🔄 Refresh"]
    thrower = render_hand(game.view(0), players(3), "en", ctx(game))
    assert "Боря takes" in thrower.text
    table = render_table(game.public_view(), players(3), "ru", ctx(game)).text
    assert "Боря берёт" in table
    over = position(PODKIDNOY, ["7S", "8S"], "", trump="D")
    over.apply(Lead(0, (card("7S"),)))
    over.apply(Cover(1, card("7S"), card("8S")))
    assert over.result is not None
    screen = render_hand(over.view(0), players(2), "ru", ctx(over))
    assert screen.keyboard is None and "Игра окончена" in screen.text
    assert "Игра окончена" in render_table(over.public_view(), players(2), "ru", ctx(over)).text


def test_names_are_escaped_and_cut() -> None:
    game, events = mid_bout()
    names = [Player("<script>&" * 20), Player("Боря"), Player("Вика", ai_level=2)]
    text = render_table(game.public_view(), names, "en", ctx(game, events)).text
    assert "<script>" not in text and "&lt;script&gt;&amp;" in text
    assert "🤖 Вика" in text
    assert max(len(line) for line in text.splitlines()) < 200


def test_turnup_is_named_while_under_the_stock_then_only_its_suit() -> None:
    game = position(PODKIDNOY, ["7S 8S", "9S TS"], "6D", first_game=False)
    assert "6♦" in render_table(game.public_view(), players(2), "en", ctx(game)).text
    empty = position(PODKIDNOY, ["7S 8S", "9S TS"], "", trump="6D")
    text = render_table(empty.public_view(), players(2), "en", ctx(empty)).text
    assert "6♦" not in text and "Trump ♦" in text and "Stock empty" in text


def test_seconds_until() -> None:
    from datetime import UTC, datetime, timedelta

    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert seconds_until(now + timedelta(seconds=90), now) == 90
    assert seconds_until(now - timedelta(seconds=5), now) == 0
    assert seconds_until(None, now) is None
    assert seconds_until(1000.0, 990.0) == 10


# ---------------------------------------------------------------- secrets and limits

CARD_RE = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9JQKA])[♠♣♦♥]|★[BR]")


def public_cards(events: list[Event], game: Game) -> set[str]:
    """Cards the whole table has seen: laid on the table or shown."""
    seen: set[Card] = set()
    for event in events:
        match event:
            case Led(cards=cards):
                seen.update(cards)
            case Thrown(card=c) | Transferred(card=c) | TrumpShown(card=c):
                seen.add(c)
            case Covered(attack=a, card=c):
                seen.update((a, c))
            case Dealt(trump_card=c) if c is not None:
                seen.add(c)
            case TrumpChanged(card=c):
                seen.add(c)
            case TrumpSwapped(card=c, taken=t):
                seen.update((c, t))
            case PickedUp(cards=cards):
                seen.update(cards)
    return {str(c) for c in seen}


LEAK_CONFIGS: list[tuple[Rules, int]] = [
    (Rules.preset("podkidnoy"), 2),
    (Rules.preset("podkidnoy"), 6),
    (Rules.preset("podkidnoy", teams="pairs"), 4),
    (Rules.preset("perevodnoy", proezdnoy=True, no_transfer_first_bout=False), 3),
    (Rules.preset("prostoy"), 4),
    (Rules.preset("prostoy5"), 3),
    (Rules.preset("podkidnoy", modifiers=("full",), deck_size=54), 4),
    (Rules.preset("podkidnoy", modifiers=("changing_trump",)), 3),
]


@pytest.mark.parametrize(("rules", "n"), LEAK_CONFIGS)
def test_group_text_never_shows_a_hand_card(rules: Rules, n: int) -> None:
    steps = 0
    for seed in range(8):
        for game, events in random_games(rules, n, seed=seed):
            view = game.public_view()
            in_hands = {str(c) for h in game.hands for c in h}
            for lang in LANGS:
                bare = render_table(view, players(n), lang, TableContext(1, game.moves)).text
                shown = set(CARD_RE.findall(bare))
                assert not shown & in_hands, (shown & in_hands, bare)
                full = render_table(view, players(n), lang, ctx(game, events[-12:])).text
                shown = set(CARD_RE.findall(full))
                assert not (shown & in_hands) - public_cards(events, game)
            steps += 1
    assert steps > 100


@pytest.mark.parametrize("lang", LANGS)
def test_screens_stay_within_telegram_limits(lang: Lang) -> None:
    long_names = [Player("Ж" * 200 + "&<>" * 50) for _ in range(6)]
    rules = Rules.preset("podkidnoy", bout_limit=12, first_bout_limit=None, hand_size=6)
    for seed in range(3):
        for game, events in random_games(rules, 6, seed=seed):
            big = TableContext(2**40, 10**6, "Г" * 300, 86_400, tuple(events), "b" * 32)
            table = render_table(game.public_view(), long_names, lang, big, events_shown=50)
            assert visible_length(table.text) <= MAX_TEXT
            for seat in range(6):
                hand = render_hand(game.view(seat), long_names, lang, big, events_shown=50)
                assert visible_length(hand.text) <= MAX_TEXT
                for button in hand.keyboard.buttons() if hand.keyboard else ():
                    assert button.data is None or len(button.data.encode()) <= 64
                    assert 0 < len(button.text) <= 64


def test_huge_event_log_is_cut_to_fit() -> None:
    game, events = mid_bout()
    many = tuple(events * 400)
    big = TableContext(1, 1, events=many)
    screen = render_table(game.public_view(), players(3), "ru", big, events_shown=10_000)
    assert visible_length(screen.text) <= MAX_TEXT
    assert "Последние ходы" in screen.text


def test_signed_buttons_and_markup() -> None:
    game, _events = mid_bout()
    codec = cb.CallbackCodec(b"k" * 32)
    c = TableContext(7, game.moves, codec=codec)
    screen = render_hand(game.view(1), players(3), "en", c)
    assert screen.keyboard is not None
    for button in screen.keyboard.buttons():
        if button.disabled:
            continue
        decoded: Any = codec.decode(button.data)
        assert (decoded.table, decoded.version) == (7, game.moves)
    markup = to_markup(screen.keyboard)
    assert markup is not None
    rows = markup.inline_keyboard
    assert [len(r) for r in rows] == [len(r) for r in screen.keyboard.rows]
    for ours, theirs in zip(screen.keyboard.buttons(), (b for r in rows for b in r), strict=True):
        assert theirs.callback_data == ours.data
        assert ("disabled" in theirs.api_kwargs) == ours.disabled
        assert theirs.api_kwargs.get("style") == ours.style
    assert to_markup(None) is None
    table = render_table(game.public_view(), players(3), "en", TableContext(7, 9, codec=codec))
    mine = to_markup(table.keyboard).inline_keyboard[0][0]  # type: ignore[union-attr]
    assert mine.text == "🃏 My cards" and codec.decode(mine.callback_data) == cb.MyCards(7, 9)


WILD_52 = Rules(deck_size=52, modifiers=("wild_sixes",))
GUS = [Player("Ann"), Player("Gus")]


def six_as_trump(moves: int = 3) -> tuple[Game, list[Event]]:
    """Trumps ♣: Ann leads 5♣, Gus covers it with 6♠ named as ♣ and Ann lets it go: the
    bout is beaten off. The game after ``moves`` of these, and their events."""
    game = position(WILD_52, ["5C 9H KD", "6S 8D TS"], "", trump="C", first_game=False)
    assert game.trump == Suit.CLUBS
    actions = (
        Lead(0, (card("5C"),)),
        Cover(1, card("5C"), card("6S"), int(Suit.CLUBS)),
        Pass(0),
    )
    events: list[Event] = []
    for action in actions[:moves]:
        events += game.apply(action)
    return game, events


@pytest.mark.parametrize("lang", LANGS)
def test_a_wild_six_is_told_as_named_once_the_bout_has_left_the_table(lang: Lang) -> None:
    game, events = six_as_trump()
    assert game.public_view().table == () and game.public_view().declared == ()
    line = {
        "en": "Gus covers 5♣️ with 6♠️ (as ♣️)",
        "ru": "Gus бьёт 5♣️ картой 6♠️ (как ♣️)",
        "uk": "Gus б’є 5♣️ картою 6♠️ (як ♣️)",
    }[lang]
    c = ctx(game, events)
    assert line in render_table(game.public_view(), GUS, lang, c).text, "the group's table"
    for seat in (0, 1):
        assert line in render_hand(game.view(seat), GUS, lang, c).text, f"seat {seat}'s hand"
    assert "6♠️→" not in render_table(game.public_view(), GUS, lang, c).text
    # the replay of the cover, and the coach's words for it
    at, before = six_as_trump(2)
    hands = tuple(at.view(s).hand for s in (0, 1))
    frame = ReplayFrame(1, 1, 2, 3, at.public_view(), hands, tuple(before[1:]))
    assert line in render_replay(frame, GUS, lang, WILD_52).text
    cover = Cover(1, card("5C"), card("6S"), int(Suit.CLUBS))
    assert tr(lang, "card.as_suit", card="6♠️", suit="♣️") in action_words(cover, lang)
    own = Cover(1, card("5C"), card("6C"), int(Suit.CLUBS))
    assert "(" not in action_words(own, lang), "a six named as its own suit is just a six"


@pytest.mark.parametrize("lang", LANGS)
def test_a_wild_six_shows_its_named_suit_everywhere(lang: Lang) -> None:
    rules = Rules(modifiers=("wild_sixes",))
    game = position(rules, ["6S 9C", "7H 8H AD"], "", trump="D", first_game=False)
    events = game.apply(Lead(0, (card("6S"),), (int(Suit.HEARTS),)))
    c = ctx(game, events)
    named = "6♠️→♥️"
    table = render_table(game.public_view(), players(2), lang, c).text
    assert f"<b>{named}</b> → ?" in table, "on the table"
    assert table.count(named) == 1, "on the table"
    assert tr(lang, "card.as_suit", card="6♠️", suit="♥️") in table, "in the move line"
    for seat in (0, 1):
        hand = render_hand(game.view(seat), players(2), lang, c).text
        assert named in hand, f"in seat {seat}'s hand"


def test_the_last_event_lines_are_those_of_all_the_events() -> None:
    """Only the events of the last lines are put in words: the same lines as putting them
    all in words and keeping the last ones, draws in a row merged across the cut."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from bot.render import Player
    from bot.render.events import event_lines
    from engine.actions import Drew, Passed, Transferred

    names = [Player("Ann"), Player("Bob"), Player("Cid")]
    seat = st.integers(0, 2)
    event = st.one_of(
        st.builds(Drew, seat, st.integers(1, 6)),
        st.builds(Passed, seat),
        st.builds(Transferred, seat, st.sampled_from([Card.parse("7♠"), Card.parse("10♥")])),
    )

    @settings(max_examples=300, deadline=None)
    @given(st.lists(event, max_size=12), st.integers(-1, 8), st.sampled_from(LANGS))
    def check(events: list[Event], limit: int, lang: Lang) -> None:
        every = event_lines(events, names, lang, limit=100)
        assert event_lines(events, names, lang, limit=limit) == (
            every[-limit:] if limit > 0 else []
        )
        assert event_lines(tuple(events), names, lang, limit=limit) == event_lines(
            events, names, lang, limit=limit
        )

    check()


@pytest.mark.parametrize("lang", LANGS)
def test_events_told_again_are_told_alike_and_never_mistaken(lang: Lang) -> None:
    from bot.render.events import event_lines
    from engine.actions import Passed, Taking

    who = players(3)
    # the same fields, another event: never the lines of the one told before
    taking = event_lines([Taking(seat=1)], who, lang)
    passed = event_lines([Passed(seat=1)], who, lang)
    assert taking != passed
    assert event_lines([Taking(seat=1)], who, lang) == taking
    assert event_lines([Taking(seat=1)], who, lang, limit=0) == []
    # another table's players: their names
    other = [dataclasses.replace(p, name=p.name + "x") for p in who]
    assert event_lines([Taking(seat=1)], other, lang) != taking
    # the lines handed out are the caller's own to change
    event_lines([Taking(seat=1)], who, lang).append("changed")
    assert event_lines([Taking(seat=1)], who, lang) == taking
