"""State frames built from pinned positions: what each viewer is shown, with the very
callback data of the chat's keyboard on every button."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot import render as r
from bot.service import callbacks as cb
from bot.service.tables import Live
from bot.store import Seat, TableRow, TableStatus, Tourney, TourneyStatus
from bot.webapp.state import Private, Scene, plain, state_frame
from engine import Game, Rules, parse_cards
from engine.actions import Lead, Led, Take

CODEC = cb.CallbackCodec(b"k" * 32)
RULES = Rules.preset("podkidnoy")


def live_of(
    game: Game | None,
    status: TableStatus = TableStatus.PLAYING,
    version: int = 5,
    rules: Rules = RULES,
    names: tuple[str, ...] = ("Ann", "Вика <b>&"),
) -> Live:
    seats = tuple(Seat.human(i + 1, name) for i, name in enumerate(names))
    row = TableRow(
        table_id=7,
        chat_id=-100,
        thread_id=None,
        status=status,
        creator_id=1,
        seats=seats,
        rules=rules.model_dump_json(),
        game_no=1 if game is not None else 0,
        seed=1,
        game=game.to_json() if game is not None else None,
        version=version,
        moves=game.moves if game is not None else 0,
        group_message_id=None,
        hand_message_ids=(),
        deadline=1_000_060.0 if status == TableStatus.PLAYING else None,
        created_at=0.0,
        updated_at=0.0,
    )
    return Live(row=row, rules=rules, game=game, deadline=row.deadline)


def scene(live: Live) -> Scene:
    players = [r.Player(s.name) for s in live.row.seats]
    return Scene(live, players, "Friends", None, CODEC, now=1_000_000.0)


def frame(live: Live, seat: int | None, private: Private | None = None) -> dict[str, Any]:
    return state_frame(scene(live), seat, "en", private)


def two_on_the_table() -> Game:
    """Ann led 7♠ 7♣ against Bob, who holds the trump 8♥ that beats either."""
    game = Game.deal(
        RULES, [parse_cards("7S 7C 9D"), parse_cards("8H TD 6S")], parse_cards("6D KH"), 0
    )
    game.apply(Lead(0, tuple(parse_cards("7S 7C"))))
    return game


def at_the_lead() -> Game:
    return Game.deal(
        RULES, [parse_cards("7S 7C 9D"), parse_cards("8H TD 6S")], parse_cards("6D KH"), 0
    )


def codes(found: Any) -> set[str]:
    if isinstance(found, dict):
        return {v for k, v in found.items() if k == "code"} | {
            c for v in found.values() for c in codes(v)
        }
    if isinstance(found, list):
        return {c for v in found for c in codes(v)}
    return set()


def test_a_spectator_sees_the_public_table_only() -> None:
    game = two_on_the_table()
    shown = frame(live_of(game), None)
    assert shown["hand"] is None and shown["buttons"] == [] and shown["choice"] is None
    assert codes(shown) == {"7S", "7C", "KH"}  # the table's cards and the turn-up
    table = shown["table"]
    assert table["trump"]["code"] == "KH" and table["trump_suit"] == "H"
    assert table["stock"] == 2 and [p["cards"] for p in table["players"]] == [1, 3]
    assert [(p["attack"]["code"], p["cover"]) for p in table["pairs"]] == [
        ("7S", None),
        ("7C", None),
    ]
    assert table["deadline_ms"] == 1_000_060_000 and table["server_ms"] == 1_000_000_000
    assert [p["name"] for p in table["players"]] == ["Ann", "Вика <b>&"], "names as typed"
    assert "Вика <b>&" in table["status_line"]


def test_a_player_sees_his_hand_and_the_chats_buttons() -> None:
    game = two_on_the_table()
    live = live_of(game)
    shown = frame(live, 1)
    cards = {c["code"]: c for c in shown["hand"]["cards"]}
    assert set(cards) == {"8H", "TD", "6S"}
    assert codes(shown) == {"7S", "7C", "KH", "8H", "TD", "6S"}
    assert cards["8H"]["trump"] and cards["8H"]["playable"] and cards["8H"]["press"]
    assert not cards["TD"]["playable"] and cards["TD"]["press"] is None
    # a greyed card says why, in the chat's words
    assert cards["TD"]["why"] == r.alert("en", "does_not_beat")
    assert "why" not in cards["8H"]
    assert cards["TD"]["label"] == "10♦️" and cards["TD"]["rank"] == "10"
    assert shown["hand"]["your_turn"] is True
    assert [b["action"] for b in shown["buttons"]] == ["take"]
    # one clock, the page's: no time in the words beside it
    assert shown["table"]["deadline_ms"] == 1_000_060_000
    assert shown["table"]["last"] == []
    live.events.append((1, Led(0, tuple(parse_cards("7S 7C")), 1)))
    assert frame(live, 1)["table"]["last"] == ["7S", "7C"], "the cards just played"
    for words in (shown["table"]["status_line"], shown["hand"]["prompt"]):
        assert "1:00" not in words and "⏱" not in words, words
    # every press is callback data the chat's own keyboard carries
    screen = r.render_hand(
        game.view(1),
        [r.Player("Ann"), r.Player("Вика <b>&")],
        "en",
        r.TableContext(7, 5, "Friends", codec=CODEC),
        rules=RULES,
    )
    assert screen.keyboard is not None
    chat = {b.data for b in screen.keyboard.buttons()}
    presses = {c["press"] for c in shown["hand"]["cards"] if c["press"]}
    presses |= {b["press"] for b in shown["buttons"]}
    assert presses <= chat
    assert CODEC.decode(cards["8H"]["press"]) == cb.Tap(7, 5, parse_cards("8H")[0])
    # the attacker waits: no card of his can go, and no move button
    ann = frame(live, 0)
    assert all(c["press"] is None for c in ann["hand"]["cards"])
    assert all(c["why"] for c in ann["hand"]["cards"])
    assert ann["hand"]["your_turn"] is False


def test_a_choice_is_shown_to_the_page_that_opened_it() -> None:
    game = two_on_the_table()
    live = live_of(game)
    choice = r.resolve_tap(game.view(1), parse_cards("8H")[0])
    assert isinstance(choice, r.Choice)
    shown = frame(live, 1, Private(5, choice=choice))
    assert shown["choice"]["prompt"] == "Which card do you cover with 8♥️?"
    options = [CODEC.decode(b["press"]) for b in shown["choice"]["buttons"]]
    assert {b["action"] for b in shown["choice"]["buttons"]} == {"choose"}
    assert {(o.card.code, o.attack.code) for o in options} == {("8H", "7S"), ("8H", "7C")}  # type: ignore[union-attr]
    assert [b["action"] for b in shown["buttons"]] == ["cancel"]
    # made for an older state, it is gone
    assert frame(live, 1, Private(4, choice=choice))["choice"] is None


def test_a_selection_toggles_the_cards_that_can_go_together() -> None:
    game = at_the_lead()
    live = live_of(game)
    plain_view = frame(live, 0)
    assert "lead_several" in [b["action"] for b in plain_view["buttons"]]
    empty = frame(live, 0, Private(5, selection=frozenset()))
    cards = {c["code"]: c for c in empty["hand"]["cards"]}
    assert cards["7S"]["press"] and cards["7C"]["press"] and cards["9D"]["press"] is None
    assert [b["action"] for b in empty["buttons"]] == ["cancel"]
    both = frozenset(parse_cards("7S 7C"))
    chosen = frame(live, 0, Private(5, selection=both))
    assert [c["selected"] for c in chosen["hand"]["cards"]].count(True) == 2
    [play] = [b for b in chosen["buttons"] if b["action"] == "play"]
    assert CODEC.decode(play["press"]) == cb.Play(7, 5, both)


def test_the_defender_who_takes() -> None:
    game = Game.deal(
        RULES, [parse_cards("7S 7C 7D 9D"), parse_cards("8H TD 6S")], parse_cards("6D KH"), 0
    )
    game.apply(Lead(0, tuple(parse_cards("7S 7C"))))
    game.apply(Take(1))  # Ann may still throw in the 7♦
    shown = frame(live_of(game, version=6), None)
    bob = next(p for p in shown["table"]["players"] if p["seat"] == 1)
    assert bob["role"] == "taking" and bob["role_text"] == "taking"


def test_the_lobby() -> None:
    live = live_of(None, TableStatus.LOBBY, version=3)
    shown = frame(live, None)
    assert shown["status"] == "lobby" and shown["table"] is None and shown["hand"] is None
    assert shown["lobby"]["players"] == ["Ann", "Вика <b>&"]
    assert shown["lobby"]["problem"] is None and "36" in shown["lobby"]["rules"]
    # tailored to the viewer: a visitor may join, a seated player leave or start
    assert [b["action"] for b in shown["buttons"]] == ["join"]
    seated = frame(live, 1)
    assert [b["action"] for b in seated["buttons"]] == ["leave", "start"]
    assert CODEC.decode(seated["buttons"][1]["press"]) == cb.Start(7, 3)
    # a lobby that cannot start: Start greyed, and why
    alone = live_of(None, TableStatus.LOBBY, version=3, names=("Ann",))
    shown = frame(alone, 0)
    assert shown["lobby"]["problem"]
    assert [(b["action"], b["press"]) for b in shown["buttons"]] == [
        ("leave", shown["buttons"][0]["press"]),
        ("start", None),
    ]


def test_a_tournaments_sign_up_shows_its_games_and_offers_the_choice_to_the_seated() -> None:
    live = live_of(None, TableStatus.LOBBY, version=3)
    assert frame(live, 0)["lobby"]["tourney"] is None, "a lobby for one game"
    live.tourney = Tourney(7, -100, 7, TourneyStatus.OPEN, 0, (), None, None, None, 0.0, None)
    live.tourney_known = True
    for lang, games in (("en", "7 games"), ("ru", "7 партий"), ("uk", "7 партій")):
        shown = state_frame(scene(live), 0, lang, None)["lobby"]["tourney"]
        assert shown["games"] == 7 and games in shown["title"], shown
        assert "<" not in shown["title"] and shown["scoring"], "plain text"
    seated = frame(live, 0)
    tourney = seated["lobby"]["tourney"]
    assert [(b["action"], b["games"], b["chosen"]) for b in tourney["buttons"]] == [
        ("games", 3, False),
        ("games", 5, False),
        ("games", 7, True),
        ("games", 10, False),
    ]
    # each carries the chat's own button: the same press, checked there as there
    assert [CODEC.decode(b["press"]) for b in tourney["buttons"]] == [
        cb.TourneyGames(7, 3, n) for n in (3, 5, 7, 10)
    ]
    assert tourney["choose"], "says who may choose"
    assert [b["action"] for b in seated["buttons"]] == ["leave", "start"], "not in the bar"
    # a visitor sees the number of games, and no choice
    visitor = frame(live, None)["lobby"]["tourney"]
    assert visitor["games"] == 7 and visitor["buttons"] == [] and visitor["choose"] is None
    # started: its lobby (between two games) offers no choice any more
    live.tourney = replace(live.tourney, status=TourneyStatus.RUNNING, first_game=1)
    assert frame(live, 0)["lobby"]["tourney"] is None


def test_the_end_and_a_cancelled_table() -> None:
    game = Game.deal(RULES, [parse_cards("7S"), parse_cards("8S 9S")], (), 0, trump="H")
    game.apply(Lead(0, tuple(parse_cards("7S"))))
    while game.result is None:
        seat = game.to_act()[0]
        game.apply(game.legal_actions(seat)[0])
    live = live_of(game, TableStatus.FINISHED, version=9)
    shown = frame(live, 1)
    assert shown["status"] == "finished" and shown["end"]["text"].startswith("🏁 Game over")
    durak = game.result.durak
    assert shown["end"]["durak"] == ([["Ann", "Вика <b>&"][durak]] if durak is not None else [])
    assert [b["action"] for b in shown["buttons"]] == ["rematch", "replay"]
    assert all(c["press"] is None for c in shown["hand"]["cards"])
    assert shown["table"]["deadline_ms"] is None
    end = shown["end"]
    assert end["draw"] is (durak is None)
    assert "Game over" not in end["headline"] and end["headline"] in end["text"]
    places = end["places"]
    assert sorted(p["seat"] for p in places) == [0, 1]
    assert [p["durak"] for p in places] == [p["seat"] == durak for p in places]
    assert all(p["place"] is None for p in places if p["durak"])
    assert [p["place"] for p in places if not p["durak"]] == list(
        range(1, len(game.result.finish_order) + 1)
    )
    cancelled = frame(live_of(two_on_the_table(), TableStatus.CANCELLED), 1)
    assert cancelled["end"]["text"] == (
        "🛑 The game was cancelled.\n/newgame in the group opens a new table."
    )
    assert cancelled["buttons"] == [] and cancelled["hand"] is None
    assert cancelled["table"] is None, "no turn line, no roles of a game that stopped"


def test_plain_takes_the_html_off() -> None:
    assert plain("<b>Ann</b> &amp; <i>Bob</i> &lt;3") == "Ann & Bob <3"
    assert plain('⏱ <tg-time unix="5" format="r">in 1:35</tg-time>') == "⏱ in 1:35"


def test_teams_and_partners() -> None:
    rules = Rules.preset("podkidnoy").model_copy(update={"teams": "pairs"})
    hands = [parse_cards(h) for h in ("7S 7C", "8H TD", "6S 9D", "JC QC")]
    game = Game.deal(rules, hands, parse_cards("6D KH"), 0)
    live = live_of(game, rules=rules, names=("Ann", "Bob", "Cid", "Dan"))
    seats = frame(live, 1)["table"]["players"]
    teams = [p["team"] for p in seats]
    assert teams[0] == teams[2] != teams[1] == teams[3]
    assert [p["partner"] for p in seats] == [False, False, False, True]
    assert seats[1]["team_text"] == f"team {teams[1]}"
    assert all("team" not in p["role_text"] for p in seats), "the team is a badge of its own"
    # a spectator has no partner; a game without teams has no team
    assert not any(p["partner"] for p in frame(live, None)["table"]["players"])
    alone = frame(live_of(two_on_the_table()), 1)["table"]["players"]
    assert {p["team"] for p in alone} == {None} and not any(p["partner"] for p in alone)
