"""What a table's button does, whoever pressed it and wherever: a button of the chat's
keyboards or the same button on a Mini App page (whose presses are that very callback
data). One place holds every check (who sits where, the state version, what is legal)
and every change; the chat's handler and the page's socket differ only in how they answer.

:func:`run_press` takes the table's lock, decides (:func:`decide_hand` for the hand's
buttons, :func:`decide_table` for the lobby's, the setup's and the end's), hands the
:class:`Outcome` to the caller's ``answer`` and then runs the redraws the change needs. A
refusal raises :class:`~bot.service.tables.Refused` and changes nothing; a choice or a selection
(a card that can do several things, Lead several) is an outcome to show to the presser
alone, which the chat draws in his hand message and a page on itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from telegram import Bot, User

from bot import render as r
from bot.base.i18n import Lang, tr
from bot.chat.common import (
    chat_lang,
    computers,
    may_manage_as,
    reachable,
    remember,
    say,
    set_option,
)
from bot.chat.presenter import AI_LEVELS, Presenter
from bot.chat.runtime import Runtime
from bot.service import callbacks as cb
from bot.service.tables import SOLO_OPPONENTS, Live, Refused
from bot.service.tourneys import TOURNEY_GAMES
from bot.store import Seat, TableStatus, TourneyStatus
from bot.transport.sender import Content
from engine import Card
from engine.actions import Action

__all__ = [
    "HAND_KINDS",
    "Answer",
    "Outcome",
    "Presser",
    "decide_hand",
    "decide_table",
    "run_press",
]

HAND_KINDS = (
    cb.Tap,
    cb.Select,
    cb.Toggle,
    cb.Play,
    cb.CoverWith,
    cb.Throw,
    cb.Take,
    cb.Pass,
    cb.Transfer,
    cb.ShowTrump,
    cb.SwapTrump,
    cb.PokerSwap,
    cb.Cancel,
    cb.Refresh,
)
"""The buttons of a player's hand."""


@dataclass(frozen=True, slots=True)
class Presser:
    """Who pressed: the Telegram user (for a page, as its checked init data names him),
    his language, and the bot (to ask who is a group's admin)."""

    user: User
    lang: Lang
    bot: Bot


@dataclass(slots=True)
class Outcome:
    """What a press came to when it was not refused."""

    text: str | None = None
    """What to tell the presser (a toast in the chat), if anything."""
    url: str | None = None
    """Open this link instead (the bot's private chat, for one who never started it)."""
    show: bool = False
    """Show the presser his own hand again, with ``choice`` or ``selection`` if set."""
    fresh: bool = False
    """...as a new message (the chat: he pressed a stray copy)."""
    choice: r.Choice | None = None
    selection: frozenset[Card] | None = None
    purpose: str = "lead"
    settle: Sequence[Callable[[], Awaitable[None] | None]] = ()
    """The table changed: the redraws to run once the presser has his answer."""

    @property
    def applied(self) -> bool:
        """Whether the table changed."""
        return bool(self.settle)


Answer = Callable[[Live, Outcome], Awaitable[None]]
"""How the caller answers the presser (the chat's callback answer, a page's ack)."""


async def run_press(
    rt: Runtime,
    presenter: Presenter,
    presser: Presser,
    decoded: cb.Callback,
    answer: Answer,
    *,
    stray: Callable[[int | None], bool] | None = None,
) -> Live:
    """Run one press of a table's button: decide under the table's lock, answer, redraw.
    ``stray`` tells whether the press came from another message than the one shown now
    (the chat's copies; a page has none). :class:`Refused` if it changes nothing."""
    table = getattr(decoded, "table", None)
    if not isinstance(table, int) or isinstance(decoded, cb.ReplayOpen | cb.ReplayStep):
        raise Refused("malformed")
    live = await rt.tables.get(table)
    if live is None:
        raise Refused("gone")
    if isinstance(decoded, HAND_KINDS):
        async with live.lock:
            outcome = await decide_hand(rt, presenter, live, presser, decoded, stray)
            await answer(live, outcome)
            await _settle(outcome)
        return live
    group_lang = presser.lang if live.own_chats else await chat_lang(rt, live.row.chat_id)
    async with live.lock:
        outcome = await decide_table(rt, presenter, live, presser, decoded, group_lang, stray)
        await answer(live, outcome)
    await _settle(outcome)
    return live


async def _settle(outcome: Outcome) -> None:
    for step in outcome.settle:
        done = step()
        if done is not None:
            await done


# -------------------------------------------------------------------- the hand


async def decide_hand(
    rt: Runtime,
    presenter: Presenter,
    live: Live,
    presser: Presser,
    decoded: cb.HandCallback,
    stray: Callable[[int | None], bool] | None = None,
) -> Outcome:
    """A button of a player's hand (under the table's lock)."""
    user_id = presser.user.id
    seat = live.seat_of(user_id)
    if seat is None:
        raise Refused("not_yours")
    presenter.looked(live, user_id)
    game = live.game
    playing = game is not None and live.row.status == TableStatus.PLAYING
    if playing and stray is not None and stray(presenter.hand_message(live, seat)):
        return Outcome(text=say(presser.lang, "outdated"), show=True, fresh=True)
    if game is None or not playing:
        raise Refused("illegal.game_over" if live.row.status == TableStatus.FINISHED else "gone")
    if decoded.version != live.version:
        raise Refused("outdated")
    view = game.view(seat, live.public_view(game))
    action: Action | None = None
    if isinstance(decoded, cb.Refresh | cb.Cancel):
        return Outcome(show=True)
    if isinstance(decoded, cb.Tap):
        resolved = r.resolve_tap(view, decoded.card)
        if resolved is None:
            raise Refused(f"illegal.{r.tap_refusal(view, decoded.card)}")
        if isinstance(resolved, r.Choice):
            return Outcome(show=True, choice=resolved)
        action = resolved
    elif isinstance(decoded, cb.Select):
        return Outcome(show=True, selection=frozenset(), purpose=decoded.purpose)
    elif isinstance(decoded, cb.Toggle):
        chosen = frozenset(set(decoded.selection) ^ {decoded.card})
        return Outcome(show=True, selection=chosen, purpose=decoded.purpose)
    elif isinstance(decoded, cb.Play):
        resolved = r.resolve_play(view, decoded.cards) if decoded.suits is None else None
        if isinstance(resolved, r.Choice):
            return Outcome(show=True, choice=resolved)
        action = resolved if resolved is not None else r.to_action(decoded, seat)
    else:
        action = r.to_action(decoded, seat)
    if action is None:
        raise Refused("outdated")
    events = await rt.tables.act(live, seat, action, decoded.version)
    return Outcome(settle=[lambda: presenter.after_action(live, events, actor=seat)])


# -------------------------------------------------------------------- lobby, setup, end


async def decide_table(
    rt: Runtime,
    presenter: Presenter,
    live: Live,
    presser: Presser,
    decoded: cb.Callback,
    group_lang: Lang,
    stray: Callable[[int | None], bool] | None = None,
) -> Outcome:
    """A button of a lobby, of a game against the computer's setup, or of an end message
    (under the table's lock)."""
    user, lang, bot = presser.user, presser.lang, presser.bot
    if live.private:
        # a private table has no lobby and no rematch: its end offers a new quick game
        raise Refused("outdated" if live.seat_of(user.id) is not None else "not_yours")
    if live.solo and user.id != live.row.creator_id:
        raise Refused("solo_only")  # a game against the computer is its player's alone
    copy = stray is not None and not isinstance(decoded, cb.Rematch)
    if copy and stray is not None and stray(live.row.group_message_id):
        raise Refused("outdated")
    if live.solo:
        return await _decide_solo(rt, presenter, live, presser, decoded)
    redraw = [lambda: presenter.redraw(live, [])]
    if isinstance(decoded, cb.SoloSetup):
        raise Refused("outdated")
    if isinstance(decoded, cb.Join):
        known = await reachable(rt, user, await remember(rt, user))
        if live.row.status == TableStatus.PLAYING and live.seat_of(user.id) is None:
            # an old Join during a game: tell him in private where to watch it
            if known.can_message:
                title = presenter.known_title(live.row.chat_id)
                text = tr(lang, "lobby.running_dm", group=r.esc(title))
                rt.out.post(user.id, Content(text))
            return Outcome(text=say(lang, "game_running"))
        await rt.tables.join(live, Seat.human(user.id, known.name), decoded.version)
        presenter.note_private(user.id, known.can_message)
        # one who never started the bot plays in the group: "My cards" shows his hand
        joined = "joined" if known.can_message else "joined_here"
        return Outcome(text=say(lang, joined), settle=redraw)
    if isinstance(decoded, cb.Leave):
        await rt.tables.leave_lobby(live, user.id, decoded.version)
        return Outcome(text=say(lang, "left"), settle=redraw)
    if isinstance(decoded, cb.Rematch):
        # anyone who sat at the table (or an admin) opens a lobby with the same seats;
        # one open table per group: only from the newest end, only with none open
        seated = live.seat_of(user.id) is not None
        if not seated and not await may_manage_as(rt, bot, live, user.id):
            raise Refused("not_allowed")
        open_now = await rt.tables.open_table(live.row.chat_id, live.row.thread_id)
        if open_now is not None:
            presenter.repost(open_now)
            raise Refused("table_open")
        latest = await rt.tables.latest(live.row.chat_id, live.row.thread_id)
        if latest != live.table_id:
            raise Refused("rematch_old")
        await rt.tables.reopen(live, user.id, decoded.version)
        return Outcome(settle=[lambda: presenter.rematch(live)])
    if isinstance(decoded, cb.Start):
        if not await may_manage_as(rt, bot, live, user.id):
            raise Refused("not_allowed")
        tourney = await rt.tables.tourney_of(live)
        if tourney is not None and tourney.status != TourneyStatus.OPEN:
            raise Refused("tourney_running" if live.seat_of(user.id) is not None else "outdated")
        problem = r.lobby_problem(live.rules, len(live.row.seats), lang)
        if problem is not None:
            raise Refused("too_few_players", problem=problem)
        if tourney is not None:
            await rt.tables.start_tourney(live, decoded.version)
        else:
            await rt.tables.start(live, decoded.version)
        return Outcome(settle=[lambda: presenter.game_started(live)])
    if isinstance(decoded, cb.TourneyGames):
        if decoded.games not in TOURNEY_GAMES:
            raise Refused("malformed")
        if not await may_manage_as(rt, bot, live, user.id):
            raise Refused("not_allowed")
        await rt.tables.set_tourney_games(live, decoded.games, decoded.version)
        games = tr(lang, "tourney.games", n=decoded.games)
        return Outcome(text=tr(lang, "tourney.alert.games", games=games), settle=redraw)
    if isinstance(decoded, cb.Settings | cb.Option | cb.Lobby | cb.AiMenu):
        if decoded.version != live.version:
            raise Refused("outdated")
        if not isinstance(decoded, cb.Lobby) and not await may_manage_as(rt, bot, live, user.id):
            raise Refused("not_allowed")
        presenter.show_lobby_page(live, decoded, group_lang)
        return Outcome()
    if isinstance(decoded, cb.SetOption):
        if not await may_manage_as(rt, bot, live, user.id):
            raise Refused("not_allowed")
        await set_option(rt, presenter, live, decoded, group_lang)
        return Outcome()
    if isinstance(decoded, cb.AddAi):
        if not await may_manage_as(rt, bot, live, user.id):
            raise Refused("not_allowed")
        if not 0 <= decoded.level < len(AI_LEVELS):
            raise Refused("outdated")
        number = 1 + sum(1 for seat in live.row.seats if seat.ai is not None)
        name = tr(group_lang, "ai.name", n=number)
        computer = Seat.computer(name, AI_LEVELS[decoded.level])
        await rt.tables.join(live, computer, decoded.version)
        return Outcome(text=tr(lang, "lobby.alert.ai_added", name=name), settle=redraw)
    if isinstance(decoded, cb.Kick):
        if not await may_manage_as(rt, bot, live, user.id):
            raise Refused("not_allowed")
        await rt.tables.remove_seat(live, decoded.seat, decoded.version)
        return Outcome(settle=redraw)
    raise Refused("outdated")


async def _decide_solo(
    rt: Runtime, presenter: Presenter, live: Live, presser: Presser, decoded: cb.Callback
) -> Outcome:
    """A button of a game against the computer's setup or end, pressed by its player."""
    lang = presser.lang
    if isinstance(decoded, cb.SoloSetup):
        if decoded.count not in SOLO_OPPONENTS or not 0 <= decoded.level < len(AI_LEVELS):
            raise Refused("outdated")
        await rt.tables.set_opponents(
            live, computers(lang, decoded.count, decoded.level), decoded.version
        )
        return Outcome(settle=[lambda: presenter.redraw(live, [])])
    if isinstance(decoded, cb.Start):
        problem = r.lobby_problem(live.rules, len(live.row.seats), lang)
        if problem is not None:
            raise Refused("too_few_players", problem=problem)
        await rt.tables.start(live, decoded.version)
        return Outcome(settle=[lambda: presenter.game_started(live)])
    if isinstance(decoded, cb.Rematch):
        # Play again: the same opponents and rules, dealt at once
        open_now = await rt.tables.open_table(live.row.chat_id, None)
        if open_now is not None and open_now.table_id != live.table_id:
            presenter.repost(open_now)
            raise Refused("table_open")
        latest = await rt.tables.latest(live.row.chat_id, None)
        if latest != live.table_id:
            raise Refused("rematch_old")
        await rt.tables.reopen(live, presser.user.id, decoded.version)
        try:
            await rt.tables.start(live)
        except Refused:
            presenter.rematch(live)  # the setup, to change what stops the deal
            raise
        return Outcome(settle=[lambda: presenter.game_started(live)])
    if isinstance(decoded, cb.Settings | cb.Option | cb.Lobby):
        if decoded.version != live.version:
            raise Refused("outdated")
        presenter.show_lobby_page(live, decoded, lang)
        return Outcome()
    if isinstance(decoded, cb.SetOption):
        await set_option(rt, presenter, live, decoded, lang)
        return Outcome()
    # Join, Leave, computer players one by one: not at a table of one player
    raise Refused("outdated")
