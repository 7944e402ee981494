"""The table service: every change to a table goes through here.

Under the table's lock: check who asks and that his button is current, apply the change
(to the lobby, or to the game through the engine), save it in one store transaction, and
only then tell people: the group's table message, each hand, the clocks. A refused change
(illegal move, stale button, a stranger's press) changes nothing and says why.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from bot.service.feats import finishing_feats
from bot.service.inbox import handled_update
from bot.service.replay import recent_moves
from bot.service.shards import NotHere
from bot.store import (
    GameRecord,
    Outcome,
    Seat,
    StaleVersionError,
    Store,
    StoreError,
    TableRow,
    TableStatus,
    Tourney,
    TourneyEnded,
    TourneyStatus,
    is_private_chat,
    shard_of,
)
from engine import Game, IllegalAction, InvalidState, PublicView, Result, Rules
from engine.actions import Action, Event, Resign, Timeout

__all__ = ["SOLO_OPPONENTS", "Live", "Refused", "TableService", "is_private", "is_solo"]

log = logging.getLogger(__name__)

MAX_SEATS = 6
MIN_SEATS = 2
EVENTS_KEPT = 8
SOLO_OPPONENTS = range(1, MAX_SEATS)
"""How many computer players a game against the computer may have."""


def is_solo(row: TableRow) -> bool:
    """Whether a table is a game against the computer in a player's private chat (a private
    chat's id is its user's id, which is positive; a group's id is negative)."""
    return row.chat_id > 0


def is_private(row: TableRow) -> bool:
    """Whether a table is a private table: no group; each player sees it in his private
    chat, one message with the table and his cards (its chat id is no Telegram chat's:
    :func:`bot.store.private_chat`)."""
    return is_private_chat(row.chat_id)


class Refused(Exception):
    """A request that changes nothing; ``reason`` is a catalog key for the alert."""

    def __init__(self, reason: str, **params: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.params = params


@dataclass(slots=True)
class Live:
    """A table as the service holds it in memory."""

    row: TableRow
    rules: Rules
    game: Game | None
    events: deque[tuple[int, Event]] = field(default_factory=lambda: deque(maxlen=EVENTS_KEPT))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    deadline: float | None = None
    tourney: Tourney | None = None
    """The tournament at this table, as last read (see ``tourney_known``)."""
    tourney_known: bool = False
    """Whether ``tourney`` was read from the store (a table's is read once, when asked)."""
    earned: tuple[tuple[int, str], ...] = ()
    """The achievements the last game's end gave: ``(user id, code)`` of each."""
    _public: tuple[Game, int, PublicView] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def public_view(self, game: Game) -> PublicView:
        """``game``'s public view as it stands, worked out once a move: the press that
        reads the hand, the hands drawn after it and the table share it."""
        last = self._public
        if last is not None and last[0] is game and last[1] == game.moves:
            return last[2]
        view = game.public_view()
        self._public = (game, game.moves, view)
        return view

    @property
    def table_id(self) -> int:
        """The table's id."""
        return self.row.table_id

    @property
    def version(self) -> int:
        """The table's state version: buttons carry it, saves compare-and-set on it."""
        return self.row.version

    @property
    def solo(self) -> bool:
        """Whether this is a game against the computer in a private chat."""
        return is_solo(self.row)

    @property
    def private(self) -> bool:
        """Whether this is a private table: several players, no group."""
        return is_private(self.row)

    @property
    def own_chats(self) -> bool:
        """Whether each player sees the table in his own private chat only (a game against
        the computer, a private table): no group message, his hand shows the table."""
        return self.row.chat_id > 0 or is_private(self.row)

    def earned_by_seat(self) -> tuple[tuple[int, tuple[str, ...]], ...]:
        """The achievements the last game's end gave, by seat: ``(seat, codes)``."""
        found: dict[int, list[str]] = {}
        for user_id, code in self.earned:
            seat = self.seat_of(user_id)
            if seat is not None:
                found.setdefault(seat, []).append(code)
        return tuple((seat, tuple(codes)) for seat, codes in sorted(found.items()))

    def seat_of(self, user_id: int) -> int | None:
        """The seat of a user at this table, or None."""
        for i, seat in enumerate(self.row.seats):
            if seat.user_id == user_id:
                return i
        return None


def _parse_rules(text: str) -> Rules:
    try:
        return Rules.model_validate_json(text)
    except ValueError:
        log.warning("stored rules unreadable, using the defaults: %r", text[:200])
        return Rules()


class TableService:
    """Owns the tables: loads them, changes them, saves them, and tells the listeners."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.time,
        on_change: Callable[[Live, list[Event]], Any] | None = None,
        holds: Callable[[int], bool] | None = None,
    ) -> None:
        self._store = store
        self._clock = clock
        self._tables: dict[int, Live] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self.on_change = on_change
        self.holds = holds
        """Whether this process holds a chat's shard, and so its tables (several processes
        on one database); None: it holds every table."""

    # ------------------------------------------------------------------ loading

    def lock(self, table_id: int) -> asyncio.Lock:
        """The lock that serialises every change to one table."""
        found = self._locks.get(table_id)
        if found is None:
            found = self._locks[table_id] = asyncio.Lock()
        return found

    def cached(self, table_id: int) -> Live | None:
        """The table if it is in memory."""
        return self._tables.get(table_id)

    async def get(self, table_id: int) -> Live | None:
        """The table, loaded from the store when needed; None if there is no such table."""
        live = self._tables.get(table_id)
        if live is not None:
            return live
        row = await self._store.get_table(table_id)
        if row is None:
            return None
        self.check_held(row.chat_id, table_id)
        live = self._adopt(row)
        await self._recall(live)
        return live

    async def peek(self, table_id: int) -> Live | None:
        """The table as the store has it now, held here or not, with its recent moves: to
        look at (another process's table shown on a page here), never to change; it is not
        kept in memory."""
        live = self._tables.get(table_id)
        if live is not None:
            return live
        row = await self._store.get_table(table_id)
        if row is None:
            return None
        game = None
        if row.game is not None:
            try:
                game = Game.from_json(row.game)
            except InvalidState:
                log.exception("table %s: saved game unreadable", row.table_id)
        live = Live(row=row, rules=_parse_rules(row.rules), game=game, deadline=row.deadline)
        await self._recall(live)
        return live

    def _adopt(self, row: TableRow) -> Live:
        game = None
        if row.game is not None:
            try:
                game = Game.from_json(row.game)
            except InvalidState:
                log.exception("table %s: saved game unreadable", row.table_id)
        live = Live(row=row, rules=_parse_rules(row.rules), game=game, deadline=row.deadline)
        live.lock = self.lock(row.table_id)
        if row.status in (TableStatus.LOBBY, TableStatus.PLAYING):
            # finished and cancelled tables are read from the store when a button asks
            self._tables[row.table_id] = live
        return live

    async def _recall(self, live: Live) -> None:
        """A running game loaded from the store: its recent moves, rebuilt from its log
        (memory held them only)."""
        if live.row.status == TableStatus.PLAYING and live.game is not None and not live.events:
            live.events.extend(await recent_moves(self._store, live.row, EVENTS_KEPT))

    async def load_running(self) -> list[Live]:
        """Every table with a game in progress (at start-up), with its recent moves."""
        tables = []
        for row in await self._store.running_tables():
            live = self._adopt(row)
            await self._recall(live)
            tables.append(live)
        return tables

    def check_held(self, chat_id: int, table_id: int | None = None) -> None:
        """Raise :class:`~bot.service.shards.NotHere` if another process holds the chat's
        tables: the update being handled is handed on to it."""
        if self.holds is None or self.holds(chat_id):
            return
        shard = shard_of(chat_id)
        handling = handled_update()
        if handling is not None:
            handling.forward = shard
        raise NotHere(table_id, shard)

    async def open_table(self, chat_id: int, thread_id: int | None) -> Live | None:
        """The chat's (or topic's) open lobby or running game, if any."""
        self.check_held(chat_id)
        for row in await self._store.chat_tables(chat_id):
            if row.thread_id == thread_id:
                live = self._tables.get(row.table_id)
                if live is None:
                    live = self._adopt(row)
                    await self._recall(live)
                return live
        if chat_id > 0 or is_private_chat(chat_id):
            return None  # tournaments are played in groups only
        # a tournament between two games is open too: its next game is on its way
        for row in await self._store.tourneys_between(chat_id=chat_id):
            if row.thread_id == thread_id:
                return self._tables.get(row.table_id) or self._adopt(row)
        return None

    # ------------------------------------------------------------------ lobby

    async def create(
        self,
        chat_id: int,
        thread_id: int | None,
        creator: Seat | None,
        rules: Rules,
        others: Sequence[Seat] = (),
    ) -> Live:
        """Open a lobby with its creator seated (None: an anonymous admin opened it; nobody
        is seated and the group's admins run it), and ``others`` after him."""
        self.check_held(chat_id)
        seats = (creator,) if creator is not None else ()
        row = await self._store.create_table(
            chat_id,
            rules=rules.model_dump_json(),
            thread_id=thread_id,
            creator_id=creator.user_id if creator is not None else None,
            seats=(*seats, *others),
        )
        live = self._adopt(row)
        log.info("table %s chat %s: lobby opened", row.table_id, chat_id)
        return live

    async def _update_lobby(
        self,
        live: Live,
        *,
        seats: Sequence[Seat] | None = None,
        rules: Rules | None = None,
        **extra: Any,
    ) -> None:
        kwargs: dict[str, Any] = dict(extra)
        if seats is not None:
            kwargs["seats"] = tuple(seats)
        if rules is not None:
            kwargs["rules"] = rules.model_dump_json()
        try:
            await self._store.update_lobby(live.table_id, live.version, **kwargs)
        except StaleVersionError:
            await self._reload(live)
            raise Refused("outdated") from None
        fresh = await self._store.get_table(live.table_id)
        if fresh is None:
            raise Refused("table_gone")
        live.row = fresh
        if rules is not None:
            live.rules = rules

    def _check_lobby(self, live: Live, version: int | None) -> None:
        if live.row.status not in (TableStatus.LOBBY, TableStatus.FINISHED):
            raise Refused("game_running")
        if version is not None and version != live.version:
            raise Refused("outdated")

    async def join(self, live: Live, seat: Seat, version: int | None = None) -> None:
        """Seat a user (or a computer player) in the lobby."""
        self._check_lobby(live, version)
        await self._check_signing_up(live)
        if seat.user_id is not None and live.seat_of(seat.user_id) is not None:
            raise Refused("already_seated")
        if len(live.row.seats) >= MAX_SEATS:
            raise Refused("table_full", max=MAX_SEATS)
        await self._update_lobby(live, seats=(*live.row.seats, seat))

    async def leave_lobby(self, live: Live, user_id: int, version: int | None = None) -> None:
        """Take a user's seat away in the lobby."""
        self._check_lobby(live, version)
        seat = live.seat_of(user_id)
        if seat is None:
            raise Refused("not_seated")
        seats = [s for i, s in enumerate(live.row.seats) if i != seat]
        extra: dict[str, Any] = {}
        if user_id == live.row.creator_id:
            # the creator's rights pass to the next person seated (none: admins only)
            heir = next((s.user_id for s in seats if s.user_id is not None), None)
            extra["creator_id"] = heir
        await self._update_lobby(live, seats=seats, **extra)

    async def remove_seat(self, live: Live, index: int, version: int | None = None) -> None:
        """Remove seat ``index`` (a computer player, by the creator or an admin)."""
        self._check_lobby(live, version)
        await self._check_signing_up(live)
        if not 0 <= index < len(live.row.seats):
            raise Refused("outdated")
        seats = [s for i, s in enumerate(live.row.seats) if i != index]
        await self._update_lobby(live, seats=seats)

    async def set_opponents(
        self, live: Live, computers: Sequence[Seat], version: int | None = None
    ) -> None:
        """A game against the computer: its player, then these computer players."""
        self._check_lobby(live, version)
        if len(computers) not in SOLO_OPPONENTS or any(s.ai is None for s in computers):
            raise Refused("outdated")
        player = [s for s in live.row.seats if s.user_id is not None][:1]
        await self._update_lobby(live, seats=(*player, *computers))

    async def set_rules(self, live: Live, rules: Rules, version: int | None = None) -> None:
        """Change the lobby's rules."""
        self._check_lobby(live, version)
        await self._check_signing_up(live)
        await self._update_lobby(live, rules=rules)

    def previous_result(self, live: Live) -> Result | None:
        """The result of the table's last finished game (for the series' next one)."""
        if live.row.status != TableStatus.PLAYING and live.game is not None:
            return live.game.result
        return None

    async def reopen(self, live: Live, creator: int, version: int | None = None) -> None:
        """A rematch: the finished table becomes a lobby again, its players seated, the
        one who asked for it its creator. It starts like any lobby."""
        if live.row.status != TableStatus.FINISHED:
            raise Refused("game_running" if live.row.status == TableStatus.PLAYING else "gone")
        if version is not None and version != live.version:
            raise Refused("rematch_old")
        await self._check_signing_up(live)
        self._tables[live.table_id] = live
        await self._update_lobby(live, creator_id=creator, reopen=True)
        log.info("table %s chat %s: rematch lobby", live.table_id, live.row.chat_id)

    async def latest(self, chat_id: int, thread_id: int | None) -> int | None:
        """The newest table of a chat (or topic), whatever its status."""
        return await self._store.latest_table(chat_id, thread_id)

    async def start(self, live: Live, version: int | None = None, seed: int | None = None) -> Game:
        """Start the table's next game (the first, or a rematch with the same seats)."""
        self._check_lobby(live, version)
        players = len(live.row.seats)
        if players < MIN_SEATS:
            raise Refused("too_few_players", min=MIN_SEATS)
        try:
            live.rules.check_players(players)
        except ValueError as exc:
            raise Refused("rules_do_not_fit", detail=str(exc)) from None
        previous = self.previous_result(live)
        if seed is None:
            seed = random.SystemRandom().randrange(2**62)
        game = Game.new(live.rules, players=players, seed=seed, previous=previous)
        deadline = self.deadline_for(live.rules, game)
        handling = handled_update()
        try:
            row = await self._store.start_game(
                live.table_id,
                live.version,
                seed=seed,
                game=game.to_json(),
                deadline=deadline,
                update_id=handling.update_id if handling is not None else None,
            )
        except StaleVersionError:
            await self._reload(live)
            raise Refused("outdated") from None
        if handling is not None:
            handling.done = True
        self._tables[live.table_id] = live
        live.row = row
        live.game = game
        live.deadline = deadline
        live.earned = ()
        live.events.clear()
        log.info(
            "table %s chat %s: game %s started, %s players, seed %s",
            live.table_id,
            row.chat_id,
            row.game_no,
            players,
            seed,
        )
        return game

    # ------------------------------------------------------------------ tournaments

    async def tourney_of(self, live: Live) -> Tourney | None:
        """The tournament at the table (read from the store the first time it is asked)."""
        if not live.tourney_known:
            return await self._fresh_tourney(live)
        return live.tourney

    async def _fresh_tourney(self, live: Live) -> Tourney | None:
        live.tourney = await self._store.tourney(live.table_id)
        live.tourney_known = True
        return live.tourney

    async def _check_signing_up(self, live: Live) -> None:
        """Refuse a change of seats or rules at a table whose tournament has started: its
        players are those who started it (a leaver goes, nobody comes)."""
        tourney = await self.tourney_of(live)
        if tourney is not None and tourney.status == TourneyStatus.RUNNING:
            raise Refused("tourney_running")

    async def open_tourney(self, live: Live, games: int) -> Tourney:
        """Make a lobby just opened a tournament's sign-up."""
        live.tourney = await self._store.open_tourney(live.table_id, live.row.chat_id, games)
        live.tourney_known = True
        return live.tourney

    async def set_tourney_games(self, live: Live, games: int, version: int) -> None:
        """Choose the number of games while signing up."""
        tourney = await self.tourney_of(live)
        if tourney is None or live.row.status != TableStatus.LOBBY:
            raise Refused("outdated")
        if tourney.status != TourneyStatus.OPEN:
            raise Refused("tourney_running")
        if version != live.version:
            raise Refused("outdated")
        # a new version: the buttons drawn before the choice are outdated
        await self._update_lobby(live)
        if not await self._store.set_tourney_games(live.table_id, games):
            await self._fresh_tourney(live)
            raise Refused("tourney_running")
        await self._fresh_tourney(live)

    async def start_tourney(self, live: Live, version: int | None = None) -> Game:
        """Start a tournament's first game. The tournament is marked started first, so
        that a crash between the two leaves it to be dealt at the next start-up."""
        tourney = await self.tourney_of(live)
        if tourney is None or tourney.status != TourneyStatus.OPEN:
            raise Refused("tourney_running")
        self._check_lobby(live, version)
        if not await self._store.start_tourney(live.table_id, live.row.game_no + 1):
            await self._fresh_tourney(live)
            raise Refused("tourney_running")
        try:
            game = await self.start(live, version)
        except Refused:
            await self._store.unstart_tourney(live.table_id)
            await self._fresh_tourney(live)
            raise
        await self._fresh_tourney(live)
        return game

    async def tourney_leave(self, live: Live, user_id: int) -> None:
        """A player left the table of a running tournament: he scores no more."""
        tourney = await self.tourney_of(live)
        if tourney is None or tourney.status != TourneyStatus.RUNNING:
            return
        seat = live.seat_of(user_id)
        player = live.row.seats[seat].player if seat is not None else f"u:{user_id}"
        live.tourney = await self._store.tourney_leave(live.table_id, player)

    def tourney_seats(self, live: Live) -> tuple[Seat, ...]:
        """Who plays the tournament's next game: the table's seats but those who left."""
        gone = set(live.tourney.gone) if live.tourney is not None else set()
        return tuple(s for s in live.row.seats if s.player not in gone)

    async def next_tourney_game(self, live: Live) -> Game:
        """Deal a running tournament's next game at its table (finished, or a lobby on the
        way): those who left stand up first."""
        tourney = await self._fresh_tourney(live)
        if tourney is None or tourney.status != TourneyStatus.RUNNING:
            raise Refused("outdated")
        if live.row.status == TableStatus.FINISHED:
            self._tables[live.table_id] = live
            await self._update_lobby(live, seats=self.tourney_seats(live), reopen=True)
        elif live.row.status == TableStatus.LOBBY and self.tourney_seats(live) != live.row.seats:
            await self._update_lobby(live, seats=self.tourney_seats(live))
        return await self.start(live)

    async def end_tourney(
        self, live: Live, status: TourneyStatus, champion: Seat | None = None
    ) -> TourneyEnded | None:
        """End the tournament (done, with its champion; or cancelled): for the one call
        that ended it, the champions it gave the tournament's achievement (None: it had
        ended already)."""
        ended = await self._store.end_tourney(live.table_id, status, champion)
        await self._fresh_tourney(live)
        return ended

    async def tourney_games(self, live: Live) -> list[GameRecord]:
        """The tournament's games played so far, with their results."""
        tourney = await self.tourney_of(live)
        return await self._store.tourney_games(tourney) if tourney is not None else []

    async def tourneys_between(self, shards: Sequence[int] | None = None) -> list[Live]:
        """The tables of running tournaments between two games (in ``shards``, if given):
        what start-up or a process taking shards over deals the next game of."""
        found = []
        for row in await self._store.tourneys_between(shards):
            if self.holds is not None and not self.holds(row.chat_id):
                continue
            found.append(self._tables.get(row.table_id) or self._adopt(row))
        return found

    # ------------------------------------------------------------------ playing

    def deadline_for(self, rules: Rules, game: Game) -> float | None:
        """When the table's clock runs out: the turn limit if the game waits on someone,
        the throw-in window if only throwers may act; None if no clock runs."""
        if game.result is not None:
            return None
        if game.waiting_on():
            return self._clock() + rules.turn_timeout if rules.turn_timeout > 0 else None
        if game.to_act():
            return self._clock() + rules.throw_in_window
        return None

    async def act(
        self, live: Live, seat: int | None, action: Action, version: int | None = None
    ) -> list[Event]:
        """Apply one engine action and save it; the events it caused.

        ``seat`` is the seat the request comes from (None for the clock); ``version`` the
        state the button was drawn for (None: the clock, which checks its own).
        """
        game = live.game
        if live.row.status != TableStatus.PLAYING or game is None:
            raise Refused("no_game")
        if version is not None and version != live.version:
            raise Refused("outdated")
        if seat is not None and action.seat != seat:
            raise Refused("not_your_seat")
        trial = game.copy()
        try:
            events = trial.apply(action)
        except IllegalAction as exc:
            raise Refused(f"illegal.{exc.reason}") from None
        deadline = self.deadline_for(live.rules, trial)
        outcome = Outcome.from_result(trial.result) if trial.result is not None else None
        feats = None
        if outcome is not None:  # what the log says of each seat, kept with the result
            try:
                feats = await finishing_feats(
                    self._store, live.table_id, live.row.game_no, action, trial
                )
            except StoreError:
                log.exception("table %s: the log was not read for the feats", live.table_id)
        # the press (or command) this move comes from is done in the move's transaction
        handling = handled_update()
        said = _action_json(action)
        try:
            saved = await self._store.save_action(
                live.table_id,
                live.version,
                game=trial.to_json(),
                action=said,
                seat=action.seat,
                deadline=deadline,
                outcome=outcome,
                update_id=handling.update_id if handling is not None else None,
                feats=feats,
            )
        except StaleVersionError:
            await self._reload(live)
            raise Refused("outdated") from None
        except StoreError:
            log.exception("table %s: saving an action failed", live.table_id)
            raise Refused("try_again") from None
        if handling is not None:
            handling.done = True
        live.game = trial
        live.deadline = deadline
        if outcome is not None:
            live.earned = saved.earned
        live.row = _replace_row(
            live.row,
            version=saved.version,
            moves=saved.seq,
            game=trial.to_json() if outcome is not None else live.row.game,
            status=TableStatus.FINISHED if outcome is not None else TableStatus.PLAYING,
            deadline=deadline,
        )
        for event in events:
            live.events.append((trial.moves, event))
        log.info(
            "table %s chat %s: move %s %s",
            live.table_id,
            live.row.chat_id,
            saved.seq,
            said,
        )
        if trial.result is not None:
            result = trial.result
            log.info(
                "table %s chat %s: game over, durak %s, draw %s, pogony %s",
                live.table_id,
                live.row.chat_id,
                result.durak,
                result.draw,
                result.pogony,
            )
        return events

    async def resign(self, live: Live, user_id: int) -> list[Event]:
        """A player leaves a running game: he is durak (RULES: surrender)."""
        seat = live.seat_of(user_id)
        if seat is None:
            raise Refused("not_seated")
        return await self.act(live, seat, Resign(seat))

    async def clock_ran_out(self, live: Live, version: int) -> list[Event]:
        """The table's deadline passed: apply the engine's Timeout for every seat the clock
        ran for. Ignored if anything happened since the clock was set."""
        game = live.game
        if game is None or game.result is not None or version != live.version:
            return []
        seats = game.waiting_on() or game.throwers()
        events: list[Event] = []
        for seat in seats:
            if live.game is None or live.game.result is not None:
                break
            events += await self.act(live, None, Timeout(seat))
        return events

    async def cancel(self, live: Live) -> None:
        """Stop the lobby or the game with no result and no tally."""
        if live.row.status not in (TableStatus.LOBBY, TableStatus.PLAYING):
            raise Refused("no_game")
        await self._store.cancel_table(live.table_id, live.version)
        await self._reload(live)
        live.deadline = None
        log.info("table %s chat %s: cancelled", live.table_id, live.row.chat_id)

    async def _reload(self, live: Live) -> None:
        row = await self._store.get_table(live.table_id)
        if row is None:
            self._tables.pop(live.table_id, None)
            return
        live.row = row
        live.rules = _parse_rules(row.rules)
        if row.game is not None:
            live.game = Game.from_json(row.game)
        live.deadline = row.deadline

    async def set_messages(
        self,
        live: Live,
        *,
        group_message_id: int | None = None,
        hand: tuple[int, int | None] | None = None,
    ) -> None:
        """Remember where the table's messages are (so a restart edits the same ones)."""
        kwargs: dict[str, Any] = {}
        if group_message_id is not None:
            kwargs["group_message_id"] = group_message_id
            live.row = _replace_row(live.row, group_message_id=group_message_id)
        if hand is not None:
            ids = list(live.row.hand_message_ids) + [None] * len(live.row.seats)
            ids = ids[: len(live.row.seats)]
            ids[hand[0]] = hand[1]
            kwargs["hand_message_ids"] = ids
            live.row = _replace_row(live.row, hand_message_ids=tuple(ids))
        # Two sends of one table end close together (the hands at a deal): their writes go
        # on two connections and may commit in either order, and each writes every seat's
        # message. A write that finds the table's messages changed meanwhile writes them
        # again, so that the last to commit holds them all (a process taking the table
        # over edits these messages; one it did not know of would keep its buttons).
        while kwargs:
            await self._store.set_messages(live.table_id, **kwargs)
            again: dict[str, Any] = {}
            if "group_message_id" in kwargs and live.row.group_message_id != group_message_id:
                group_message_id = live.row.group_message_id
                if group_message_id is not None:
                    again["group_message_id"] = group_message_id
            if (
                "hand_message_ids" in kwargs
                and list(live.row.hand_message_ids) != kwargs["hand_message_ids"]
            ):
                again["hand_message_ids"] = list(live.row.hand_message_ids)
            kwargs = again

    async def leave_topic(self, chat_id: int, thread_id: int) -> list[Live]:
        """A forum topic was deleted: its tables move to the group's general chat for good
        (their messages went with the topic). The tables in memory that moved."""
        await self._store.leave_topic(chat_id, thread_id)
        moved = []
        for live in self._tables.values():
            if live.row.chat_id == chat_id and live.row.thread_id == thread_id:
                live.row = _replace_row(live.row, thread_id=None, group_message_id=None)
                moved.append(live)
        return moved

    def adopt(self, row: TableRow) -> Live:
        """A table the store just opened (a quick game's, running already; an
        invitation's lobby): kept in memory as read, with no second read."""
        return self._adopt(row)

    def adopt_running(self, rows: Sequence[TableRow]) -> list[Live]:
        """Running tables just taken over from another process (their shard's lease was
        gained), those not in memory already."""
        return [self._adopt(row) for row in rows if row.table_id not in self._tables]

    async def recall(self, live: Live, *, again: bool = False) -> None:
        """Rebuild a loaded game's recent moves from its log; ``again``: also when some are
        known (moves made since it was loaded, which the log holds too). Under the table's
        lock, so that the log and the state agree."""
        if again and live.events and live.row.status == TableStatus.PLAYING:
            # the row in memory keeps the state as loaded: the log leads to the game's now
            now = live.game.to_json() if live.game is not None else live.row.game
            row = _replace_row(live.row, game=now)
            rebuilt = await recent_moves(self._store, row, EVENTS_KEPT)
            if rebuilt:
                live.events.clear()
                live.events.extend(rebuilt)
            return
        await self._recall(live)

    def playing_at(self, user_id: int) -> list[Live]:
        """The running tables in memory where ``user_id`` has a seat."""
        return [
            live
            for live in self._tables.values()
            if live.row.status == TableStatus.PLAYING and live.seat_of(user_id) is not None
        ]

    def loaded(self) -> list[Live]:
        """Every table in memory."""
        return list(self._tables.values())

    def forget(self, table_id: int) -> None:
        """Drop a table from memory (it stays in the store)."""
        self._tables.pop(table_id, None)


def _action_json(action: Action) -> str:
    # compact, as ``json.dumps(..., separators=(",", ":"))`` wrote it (an action is ASCII)
    return orjson.dumps(action.to_dict()).decode()


def _replace_row(row: TableRow, **changes: Any) -> TableRow:
    return replace(row, **changes)
