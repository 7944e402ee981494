"""The ``state`` frame: one table as one viewer may see it (PROTOCOL.md, "The state frame").

Built from the engine's views only: ``game.view(seat)`` for a seated player,
``game.public_view()`` for anyone else, so no card of a hand can reach a page that is not
its holder's. The words come from the chat's own renderers and catalogs (``bot.render``,
``bot.base.i18n``) in the viewer's language, with their HTML taken off (the page sets text, never
markup). Every button of the page carries the very callback data the chat's keyboard has
for the same button: the hand's buttons are read off the keyboard :func:`render_hand` draws
for that seat, so the page offers exactly the moves the chat offers, and a press from the
page runs the chat's code path.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from bot import render as r
from bot.base.i18n import Lang, tr
from bot.chat.presenter import solo_opponents
from bot.render.end import tally_lines
from bot.render.hand import INERT, hand_keyboard, playable_cards, prompt_lines, suit_groups
from bot.render.lobby import lobby_problem
from bot.render.table import role_words, title_line, turn_line
from bot.service import callbacks as cb
from bot.service.tables import Live
from bot.store import TableStatus, TallyRow, TourneyStatus
from engine import Card, PublicView, SeatView, Suit
from engine.actions import Covered, Led, Thrown, Transferred, TrumpShown
from engine.result import Result

__all__ = ["TEXT_KEYS", "Private", "Scene", "card_info", "plain", "state_frame"]

TEXT_KEYS: Final = (
    "stock",
    "trump",
    "no_trump",
    "discard",
    "table",
    "empty",
    "recent",
    "tally",
    "hand",
    "your_turn",
    "players",
    "spectator",
    "reconnecting",
    "you",
    "partner",
    "home_screen",
    "invite",
)
"""The page's words of the table (``webapp.<key>`` in the catalogs), sent in every state:
the page looks each up in a state's ``texts`` (PROTOCOL.md), its own copy before the first."""
EVENTS_SHOWN: Final = 5
TEAM_LETTERS: Final = "ABC"
"""A team's letter, as the chat's table names it (``team A``)."""

_TAG: Final = re.compile(r"<[^>]*>")


def plain(text: str) -> str:
    """Telegram HTML as plain text: tags taken off, entities decoded."""
    return html.unescape(_TAG.sub("", text))


@dataclass(slots=True)
class Private:
    """A page's own pending choice or selection (what a tap on that page asked), valid
    for the state ``version`` it was made at and shown to that page only."""

    version: int
    choice: r.Choice | None = None
    selection: frozenset[Card] | None = None
    purpose: str = "lead"


@dataclass(frozen=True, slots=True)
class Scene:
    """What every viewer's frame of one table at one moment is built from."""

    live: Live
    players: Sequence[r.Player]
    group_title: str
    """The group's title (raw); a game against the computer has none."""
    tally: Sequence[TallyRow] | None
    """The chat's series, if known."""
    codec: cb.CallbackCodec
    now: float
    """Unix time the frame is built at."""
    invitable: bool = False
    """Whether the table has a direct link to invite to (a group's, with the Mini App's
    short name)."""
    shared: dict[Lang, dict[str, Any]] = field(default_factory=dict)
    """The public table of this moment, in each language drawn so far (every viewer's
    frame has it)."""


def card_info(
    card: Card, trump: Suit | None, declared: dict[Card, Suit] | None = None
) -> dict[str, Any]:
    """A card as the page draws it."""
    return {
        "code": card.code,
        "label": r.card_text(card, declared),  # no markup in a card's text
        "suit": "X" if card.is_joker else card.suit.letter,
        "rank": "" if card.is_joker else card.rank.label,
        "trump": not card.is_joker and trump is not None and card.suit == trump,
    }


def _name(players: Sequence[r.Player], seat: int) -> str:
    return plain(r.common.name_of(players, seat))


def _texts(lang: Lang) -> dict[str, str]:
    return {key: tr(lang, f"webapp.{key}") for key in TEXT_KEYS}


def _where(scene: Scene, lang: Lang) -> str:
    """Where the table is: its group's title, or what a table with no group is."""
    if scene.live.solo:
        return tr(lang, "solo.where")
    if scene.live.private:
        return tr(lang, "private.where")
    return scene.group_title


def _context(scene: Scene, lang: Lang) -> r.TableContext:
    live = scene.live
    left = None if live.deadline is None else max(0.0, live.deadline - scene.now)
    title = _where(scene, lang)
    return r.TableContext(
        table_id=live.table_id,
        version=live.version,
        group_title=title,
        seconds_left=left,
        deadline=live.deadline,
        events=tuple(e for _, e in live.events),
        codec=scene.codec,
    )


def _table(scene: Scene, public: PublicView, lang: Lang, me: int | None) -> dict[str, Any]:
    live, players = scene.live, scene.players
    declared = dict(public.declared)
    ctx = _context(scene, lang)
    playing = live.row.status == TableStatus.PLAYING
    acting = set(public.waiting_on or public.to_act)
    shown_trump = public.trump_card if public.trump_card is not None and public.stock_size else None
    seats = []
    for seat in range(public.players):
        role = public.roles[seat]
        words = role_words(public, seat, lang)
        team = None
        if public.teams is not None:
            words = words[:-1]  # the team is a badge of its own
            team = TEAM_LETTERS[public.teams[seat] % len(TEAM_LETTERS)]
        seats.append(
            {
                "seat": seat,
                "name": _name(players, seat),
                "cards": public.hand_sizes[seat],
                "role": "taking" if role == "defender" and public.taking else role,
                "role_text": plain(" · ".join(words)),
                "team": team,
                "team_text": plain(tr(lang, "table.team", team=team)) if team else None,
                "partner": False,
                "you": seat == me,
                "acting": playing and seat in acting,
            }
        )
    events = r.event_lines(ctx.events, players, lang, public.trump, limit=EVENTS_SHOWN)
    return {
        "trump": card_info(shown_trump, public.trump, declared) if shown_trump else None,
        "trump_suit": public.trump.letter if public.trump is not None else None,
        "stock": public.stock_size,
        "discard": public.discard_size,
        "players": seats,
        "pairs": [
            {
                "attack": card_info(attack, public.trump, declared),
                "cover": card_info(cover, public.trump, declared) if cover is not None else None,
            }
            for attack, cover in public.table
        ],
        "deadline_ms": int(live.deadline * 1000) if playing and live.deadline else None,
        "server_ms": int(scene.now * 1000),
        # no time in the words: the page's own clock counts down deadline_ms
        "status_line": plain(turn_line(public, players, lang, None)),
        "last": _last_played(ctx.events, public),
        "recent": [plain(e) for e in events],
    }


_PLAYS: Final = (Led, Thrown, Covered, Transferred, TrumpShown)


def _last_played(events: Sequence[object], public: PublicView) -> list[str]:
    """The codes of the cards of the last move that laid cards, those still on the table."""
    on_table = {c for pair in public.table for c in pair if c is not None}
    for event in reversed(events):
        if isinstance(event, _PLAYS):
            cards = event.cards if isinstance(event, Led) else (event.card,)
            return [c.code for c in cards if c in on_table]
    return []


def _button(action: str, button: r.Button) -> dict[str, Any]:
    return {"action": action, "label": button.text, "press": button.data}


def _hand(
    scene: Scene, view: SeatView, lang: Lang, private: Private | None
) -> tuple[dict[str, Any], dict[str, Any] | None, list[dict[str, Any]]]:
    """The hand, the pending choice, and the move buttons of ``view.seat``: read off the
    keyboard the chat's hand message has (or would have) for the same moment."""
    live = scene.live
    ctx = _context(scene, lang)
    choice = private.choice if private is not None else None
    selection = private.selection if private is not None and choice is None else None
    purpose = private.purpose if private is not None else "lead"
    keyboard = hand_keyboard(view, lang, ctx, choice=choice, selection=selection, purpose=purpose)
    public = view.public
    playable = playable_cards(view)
    presses: dict[Card, str] = {}
    selected: frozenset[Card] = selection or frozenset()
    buttons: list[dict[str, Any]] = []
    choice_buttons: list[dict[str, Any]] = []
    done_label = tr(lang, "hand.btn.pass_done")
    for button in keyboard.buttons() if keyboard is not None else ():
        if button.data is None:
            continue  # the Mini App's own button
        # callback data this codec has just made: read, not checked again
        decoded = scene.codec.decode(button.data, verify=False)
        if choice is not None:
            if isinstance(decoded, cb.Cancel):
                buttons.append(_button("cancel", button))
            else:
                choice_buttons.append(_button("choose", button))
            continue
        match decoded:
            case cb.Tap(card=card) if button.text in (
                r.card_text(card),
                INERT.format(card=r.card_text(card)),
            ):
                if card in playable:
                    presses[card] = button.data
            case cb.Toggle(card=card):
                presses[card] = button.data
            case cb.Tap() | cb.Transfer():
                buttons.append(_button("transfer", button))
            case cb.Take():
                buttons.append(_button("take", button))
            case cb.Pass():
                buttons.append(_button("done" if button.text == done_label else "pass", button))
            case cb.ShowTrump():
                buttons.append(_button("show_trump", button))
            case cb.SwapTrump():
                buttons.append(_button("swap_trump", button))
            case cb.Select(purpose="swap") | cb.PokerSwap():
                buttons.append(_button("poker", button))
            case cb.Select():
                buttons.append(_button("lead_several", button))
            case cb.Play():
                buttons.append(_button("play", button))
            case cb.Cancel():
                buttons.append(_button("cancel", button))
            case cb.Refresh():
                pass  # the page is live: nothing to refresh
    playing = live.row.status == TableStatus.PLAYING
    cards = []
    for group in suit_groups(view):
        for card in group:
            info = card_info(card, public.trump)
            info["playable"] = card in playable
            info["selected"] = card in selected
            info["press"] = presses.get(card)
            if info["press"] is None and choice is None and selection is None and playing:
                # what a tap on this greyed card would be told (the chat's alert)
                info["why"] = plain(r.alert(lang, r.tap_refusal(view, card)))
            cards.append(info)
    # no time in the words: the page's own clock counts down deadline_ms
    prompt = prompt_lines(view, scene.players, lang, None)
    if choice is not None:
        prompt.append(tr(lang, f"hand.choice.{choice.kind}", card=r.card_text(choice.card)))
    elif selection is not None:
        shown = r.common.card_list(c for c in view.hand if c in selection) or "—"
        prompt.append(tr(lang, f"hand.select.{purpose}", cards=shown))
    your_turn = bool(view.actions) and view.seat in (public.waiting_on or public.to_act)
    hand = {
        "prompt": plain("\n".join(prompt)),
        "your_turn": your_turn and playing,
        "cards": cards,
    }
    pending = None
    if choice is not None:
        pending = {
            "prompt": plain(tr(lang, f"hand.choice.{choice.kind}", card=r.card_text(choice.card))),
            "buttons": choice_buttons,
        }
    return hand, pending, buttons


_LOBBY_ACTIONS: Final[dict[type[object], str]] = {
    cb.Join: "join",
    cb.Leave: "leave",
    cb.Start: "start",
}
_END_ACTIONS: Final[dict[type[object], str]] = {cb.Rematch: "rematch", cb.ReplayOpen: "replay"}


def _keyboard_buttons(
    scene: Scene, screen: r.Screen, actions: dict[type[object], str]
) -> list[dict[str, Any]]:
    found = []
    keyboard = screen.keyboard.buttons() if screen.keyboard is not None else ()
    for button in keyboard:
        if button.data is None:
            continue
        action = actions.get(type(scene.codec.decode(button.data)))
        if action is not None:
            found.append(_button(action, button))
    return found


def _signing_up(live: Live) -> int | None:
    """The number of games of the tournament signing up at a group's table (None: no
    tournament, or it is not signing up). The tournament as the table service last read
    it: the hub reads it before a table's first page, and a choice reads it again."""
    tourney = live.tourney if live.tourney_known and not live.own_chats else None
    if tourney is None or tourney.status != TourneyStatus.OPEN:
        return None
    return tourney.games


def _tourney(
    scene: Scene, screen: r.Screen, games: int, lang: Lang, seat: int | None
) -> dict[str, Any]:
    """The lobby's tournament: its number of games in words, how it scores, and for a
    seated viewer the choice of the number, read off the chat's sign-up keyboard (the
    lobby's creator or an admin may choose; another's tap is refused as in the chat)."""
    title, scoring, choose = r.tourney_lobby_lines(games, lang)
    choices = []
    if seat is not None:
        keyboard = screen.keyboard.buttons() if screen.keyboard is not None else ()
        for button in keyboard:
            # the codec's own data, just drawn: no signature to check
            data = button.data
            decoded = scene.codec.decode(data, verify=False) if data is not None else None
            if isinstance(decoded, cb.TourneyGames):
                choices.append(
                    {
                        **_button("games", button),
                        "games": decoded.games,
                        "chosen": decoded.games == games,
                    }
                )
    return {
        "games": games,
        "title": plain(title),
        "scoring": plain(scoring),
        "choose": plain(choose) if choices else None,
        "buttons": choices,
    }


def _lobby(
    scene: Scene, lang: Lang, seat: int | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    live = scene.live
    games = _signing_up(live)
    ctx = r.LobbyContext(live.table_id, live.version, codec=scene.codec, tourney=games)
    if live.solo:
        count, level = solo_opponents(live)
        screen = r.render_solo_lobby(live.rules, count, level, lang, ctx)
    else:
        screen = r.render_lobby(live.rules, list(scene.players), lang, ctx)
    problem = lobby_problem(live.rules, len(live.row.seats), lang)
    lobby = {
        "players": [_name(scene.players, i) for i in range(len(scene.players))],
        "rules": plain(r.rules_summary(live.rules, lang)),
        "problem": plain(problem) if problem else None,
        "tourney": _tourney(scene, screen, games, lang, seat) if games is not None else None,
    }
    # tailored to the viewer: Join for those not seated, Leave and Start for the seated;
    # Start without its press (greyed) while the lobby cannot start, lobby.problem says why
    buttons = []
    for button in _keyboard_buttons(scene, screen, _LOBBY_ACTIONS):
        action = button["action"]
        if (action == "join") == (seat is not None) and not live.solo:
            continue
        if action == "start" and seat is None and not live.solo:
            continue
        if action == "start" and problem:
            button = {**button, "press": None}
        buttons.append(button)
    return lobby, buttons


def _end(scene: Scene, lang: Lang) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    live = scene.live
    game = live.game
    if live.row.status == TableStatus.CANCELLED:
        # what comes next, where a new game is opened
        after = tr(lang, "end.cancelled_next_solo" if live.solo else "end.cancelled_next")
        return {"text": plain(f"{r.render_cancelled(lang)}\n{after}"), "durak": []}, []
    if game is None or game.result is None:
        return None, []
    result = game.result
    ctx = r.EndContext(
        table_id=live.table_id,
        version=live.version,
        game_no=live.row.game_no,
        solo=live.solo,
        earned=live.earned_by_seat(),
        codec=scene.codec,
    )
    screen = r.render_end(result, list(scene.players), lang, ctx)
    losers = result.durak_team if result.durak_team is not None else ()
    if not losers and result.durak is not None and not result.draw:
        losers = (result.durak,)
    draw = result.draw or result.durak is None
    end = {
        "text": plain(screen.text),
        "durak": [_name(scene.players, s) for s in losers],
        "draw": draw,
        "headline": plain("\n".join(_headline(result, scene.players, lang))),
        "places": _places(result, scene.players, losers),
    }
    if live.private:
        return end, []  # a new quick game, Block: in the chat, where they are answered
    return end, _keyboard_buttons(scene, screen, _END_ACTIONS)


def _headline(result: Result, players: Sequence[r.Player], lang: Lang) -> list[str]:
    """The end's banner: who lost (or a draw), as the chat's end message says it."""
    lines = []
    if result.timed_out is not None:
        lines.append(tr(lang, "end.timeout", name=r.common.name_of(players, result.timed_out)))
    if result.draw or result.durak is None:
        lines.append(tr(lang, "end.draw"))
    elif result.durak_team is not None:
        names = tr(lang, "end.and").join(r.common.name_of(players, s) for s in result.durak_team)
        key = "end.team_lost_pogony" if result.pogony else "end.team_lost"
        lines.append(tr(lang, key, names=names))
    else:
        key = "end.durak_pogony" if result.pogony else "end.durak"
        lines.append(tr(lang, key, name=r.common.name_of(players, result.durak)))
    return lines


def _places(
    result: Result, players: Sequence[r.Player], losers: Sequence[int]
) -> list[dict[str, Any]]:
    """The standings: who went out first, second..., then those left holding cards."""
    order = list(result.finish_order)
    order += [s for s in range(len(result.points)) if s not in order]
    out = set(result.finish_order)
    return [
        {
            "seat": seat,
            "name": _name(players, seat),
            "place": order.index(seat) + 1 if seat in out else None,
            "durak": seat in losers,
            "points": result.points[seat],
        }
        for seat in order
    ]


def state_frame(
    scene: Scene, seat: int | None, lang: Lang, private: Private | None
) -> dict[str, Any]:
    """The ``state`` frame of ``scene`` for a viewer at ``seat`` (None: a spectator) in
    ``lang``, with his page's pending choice or selection; ``you`` is the caller's to add."""
    live = scene.live
    status = live.row.status
    game = live.game
    if private is not None and private.version != live.version:
        private = None  # made for a state that is gone: its buttons would be outdated
    frame: dict[str, Any] = {
        "t": "state",
        "v": live.version,
        "lang": lang,
        "status": str(status),
        "title": plain(title_line(lang, live.rules, _where(scene, lang))),
        "texts": _texts(lang),
        "lobby": None,
        "table": None,
        "hand": None,
        "choice": None,
        "buttons": [],
        "end": None,
        "tally": [plain(line) for line in tally_lines(scene.tally, lang)] if scene.tally else None,
        # the page may offer to invite (Telegram's shareMessage) to an open or running table
        "share": scene.invitable
        and not live.own_chats
        and status in (TableStatus.LOBBY, TableStatus.PLAYING),
    }
    if status == TableStatus.LOBBY or game is None:
        if status == TableStatus.LOBBY:
            frame["lobby"], frame["buttons"] = _lobby(scene, lang, seat)
        else:
            frame["end"], frame["buttons"] = _end(scene, lang)
        return frame
    if status == TableStatus.CANCELLED:
        # nothing of the stopped game stays on the page: no turn line, no roles, no hand
        frame["end"], frame["buttons"] = _end(scene, lang)
        return frame
    table = scene.shared.get(lang)
    if table is None:
        table = scene.shared[lang] = _table(scene, game.public_view(), lang, None)
    mine = None
    if seat is not None and seat < len(table["players"]):
        mine = table["players"][seat]["team"]
    players = [
        {
            **p,
            "you": p["seat"] == seat,
            "partner": mine is not None and p["seat"] != seat and p["team"] == mine,
        }
        for p in table["players"]
    ]
    frame["table"] = {**table, "players": players}
    if seat is not None and seat < game.n and status != TableStatus.CANCELLED:
        hand, pending, buttons = _hand(scene, game.view(seat), lang, private)
        frame["hand"], frame["choice"] = hand, pending
        if status == TableStatus.PLAYING:
            frame["buttons"] = buttons
    if status in (TableStatus.FINISHED, TableStatus.CANCELLED):
        end, buttons = _end(scene, lang)
        frame["end"] = end
        frame["buttons"] = buttons
    return frame
