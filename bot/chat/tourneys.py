"""Tournaments in a group: what follows each game's end, and the next deal.

A tournament is a table whose games follow one another (:mod:`bot.service.tourneys`
scores them). After each game the end message carries the standings (one message: the
group's budget is twenty a minute); a few seconds later the next game is dealt at the
same table, in a new message below, with the rematch machinery (the table reopened with
its players but those who left, and started). After the last game, or once fewer than
two players are left, the tournament ends and names its champion; /cancel stops it and
says what was played.

The next deal is not a memory of this process only: a tournament between two games is a
running tournament whose table is not playing, which the store finds
(:meth:`~bot.store.Store.tourneys_between`). At start-up, and when a process takes a shard
over, each such table is dealt its next game (or the tournament is ended, if it should be)
by whichever process holds it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING

from bot import render as r
from bot.base.i18n import Lang
from bot.ratings.achievements import TOURNAMENT
from bot.service.shards import NotHere
from bot.service.tables import MIN_SEATS, Live, Refused
from bot.service.tourneys import TOURNEY_PAUSE, Standing, standings
from bot.store import StoreError, TableStatus, TourneyStatus
from bot.transport.sender import Content

if TYPE_CHECKING:
    from bot.chat.runtime import Runtime

__all__ = ["TourneyDesk"]

log = logging.getLogger(__name__)


class TourneyDesk:
    """The tournaments of one running bot: their ends and their next deals."""

    def __init__(
        self,
        rt: Runtime,
        *,
        lang_of: Callable[[Live], Awaitable[Lang]],
        dealt: Callable[[Live], None],
        pause: float = TOURNEY_PAUSE,
    ) -> None:
        """``lang_of``: the language of a table's group; ``dealt``: draws a table whose
        next game was just dealt (the presenter's, which owns this desk)."""
        self._rt = rt
        self._lang_of = lang_of
        self._dealt = dealt
        self.pause = pause
        self._deals: dict[int, asyncio.TimerHandle] = {}
        self._runs: set[asyncio.Task[None]] = set()
        self._stopped = False

    # ------------------------------------------------------------------ a game's end

    async def after_game(self, live: Live) -> r.TourneyView | None:
        """A game of the table just ended: if it was a running tournament's, its standings
        for the end message, the tournament ended if that was its last game (or too few
        players are left), else its next deal set for a few seconds from now."""
        tables = self._rt.tables
        tourney = await tables.tourney_of(live)
        if tourney is None or tourney.status != TourneyStatus.RUNNING:
            return None
        games = await tables.tourney_games(live)
        rows = standings(tourney, games)
        played = len(games)
        early = self._why_over(live, played, tourney.games)
        if early is None:
            self.schedule(live.table_id, self.pause)
            return r.TourneyView(rows, played, tourney.games)
        champion, awarded = await self._end(live, rows)
        # the champion's achievement, given as the tournament ended, is new in this game's
        # end message like the game's own: on his seat's line if he played it
        unseated = []
        for user_id in awarded:
            if live.seat_of(user_id) is not None:
                live.earned = (*live.earned, (user_id, TOURNAMENT))
            elif champion is not None:
                unseated.append((champion, (TOURNAMENT,)))
        return r.TourneyView(
            rows,
            played,
            tourney.games,
            over=True,
            champion=champion,
            early=None if early == "done" else early,
            earned=tuple(unseated),
        )

    def _why_over(self, live: Live, played: int, total: int) -> str | None:
        """Why the tournament ends now (``done``: its games are played; ``players``,
        ``people``, ``rules``: it cannot go on), or None if it goes on."""
        if played >= total:
            return "done"
        seats = self._rt.tables.tourney_seats(live)
        if len(seats) < MIN_SEATS:
            return "players"
        if all(seat.user_id is None for seat in seats):
            return "people"
        try:
            live.rules.check_players(len(seats))
        except ValueError:
            return "rules"
        return None

    async def _end(self, live: Live, rows: list[Standing]) -> tuple[str | None, tuple[int, ...]]:
        """End the tournament with its leader as champion: his name (None: no games), and
        the users this call gave the tournament's achievement (none if another call had
        ended it, or he had it already)."""
        champion = rows[0] if rows else None
        ended = await self._rt.tables.end_tourney(
            live, TourneyStatus.DONE, champion.seat if champion is not None else None
        )
        if ended is not None:
            log.info(
                "table %s chat %s: tournament over, champion %s",
                live.table_id,
                live.row.chat_id,
                champion.player if champion is not None else None,
            )
        awarded = ended.awarded if ended is not None else ()
        return (champion.name if champion is not None else None), awarded

    # ------------------------------------------------------------------ the next deal

    def schedule(self, table_id: int, delay: float) -> None:
        """Deal the table's next tournament game in ``delay`` seconds."""
        if self._stopped:
            return
        old = self._deals.pop(table_id, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self._deals[table_id] = loop.call_later(max(0.0, delay), self._fire, table_id)

    def _fire(self, table_id: int) -> None:
        self._deals.pop(table_id, None)
        if self._stopped:
            return
        task = asyncio.get_running_loop().create_task(self._advance(table_id))
        self._runs.add(task)
        task.add_done_callback(self._runs.discard)

    async def _advance(self, table_id: int) -> None:
        """Deal a running tournament's next game, or end it if it cannot go on."""
        tables = self._rt.tables
        try:
            live = await tables.get(table_id)
        except NotHere:
            return  # its holder deals it
        except StoreError:
            log.exception("table %s: the tournament's next game waits", table_id)
            self.schedule(table_id, self.pause)
            return
        if live is None:
            return
        ended: r.TourneyView | None = None
        async with live.lock:
            live.tourney_known = False  # read it again: a leaver, a /cancel meanwhile
            tourney = await tables.tourney_of(live)
            if tourney is None or tourney.status != TourneyStatus.RUNNING:
                return
            if live.row.status not in (TableStatus.FINISHED, TableStatus.LOBBY):
                return  # dealt already
            games = await tables.tourney_games(live)
            early = self._why_over(live, len(games), tourney.games)
            if early is not None:
                rows = standings(tourney, games)
                champion, awarded = await self._end(live, rows)
                # no game's end message follows: the stop message shows what is new
                ended = r.TourneyView(
                    rows,
                    len(games),
                    tourney.games,
                    over=True,
                    champion=champion,
                    early=None if early == "done" else early,
                    earned=((champion, (TOURNAMENT,)),) if awarded and champion else (),
                )
            else:
                try:
                    await tables.next_tourney_game(live)
                except Refused as exc:
                    log.warning("table %s: next tournament game refused: %s", table_id, exc)
                    return
                log.info("table %s: tournament game %s dealt", table_id, live.row.game_no)
        if ended is not None:
            await self._say(live, r.render_tourney_stop(ended, await self._lang(live)))
            return
        self._dealt(live)

    async def resume(self, shards: Collection[int] | None = None) -> None:
        """The tournaments between two games in ``shards`` (None: all), just taken up at
        start-up or from another process: each is dealt its next game after a pause."""
        try:
            found = await self._rt.tables.tourneys_between(
                sorted(shards) if shards is not None else None
            )
        except StoreError:
            log.exception("tournaments between two games not read")
            return
        for live in found:
            log.info("table %s: tournament resumed between two games", live.table_id)
            self.schedule(live.table_id, self.pause / 2)

    # ------------------------------------------------------------------ stops

    async def stopped(self, live: Live, *, announce: bool = True) -> bool:
        """/cancel at a tournament's table (its game or sign-up cancelled, or between two
        games): the tournament is stopped with no champion; the group is told what was
        played (``announce``). False if no tournament was running or signing up there."""
        tables = self._rt.tables
        tourney = await tables.tourney_of(live)
        if tourney is None or tourney.status not in (TourneyStatus.OPEN, TourneyStatus.RUNNING):
            return False
        was_running = tourney.status == TourneyStatus.RUNNING
        handle = self._deals.pop(live.table_id, None)
        if handle is not None:
            handle.cancel()
        games = await tables.tourney_games(live) if was_running else []
        if await tables.end_tourney(live, TourneyStatus.CANCELLED) is None:
            return False
        log.info("table %s: tournament stopped after %d games", live.table_id, len(games))
        if was_running and announce:
            view = r.TourneyView(standings(tourney, games), len(games), tourney.games, over=True)
            await self._say(live, r.render_tourney_stop(view, await self._lang(live)))
        return True

    async def stop(self) -> None:
        """The bot stops: no next deal starts here any more (the next start-up deals it)."""
        self._stopped = True
        for handle in self._deals.values():
            handle.cancel()
        self._deals.clear()
        if self._runs:
            await asyncio.wait(list(self._runs), timeout=10.0)

    def forget(self, table_id: int) -> None:
        """Another process holds the table now: its next deal is that one's."""
        handle = self._deals.pop(table_id, None)
        if handle is not None:
            handle.cancel()

    # ------------------------------------------------------------------ helpers

    async def _lang(self, live: Live) -> Lang:
        return await self._lang_of(live)

    async def _say(self, live: Live, text: str) -> None:
        self._rt.out.post(live.row.chat_id, Content(text), thread_id=live.row.thread_id)
