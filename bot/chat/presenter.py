"""Turns table state into messages: the group's message, every hand, the end, the clocks.

Renderers are pure (``bot.render``); this module decides *which* screens to draw and
hands them to the :class:`~bot.transport.sender.Publisher`, which sends only the latest of each.
The group sees only the public view; each private chat sees only its seat's view.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError
from telegram.ext import Application

from bot import render as r
from bot.base.i18n import Lang, pick_lang, tr
from bot.base.loops import LoopRef
from bot.chat.ingroup import InGroupHands
from bot.chat.tourneys import TourneyDesk
from bot.ratings.odds import Odds, odds_for, scope_for
from bot.service import callbacks as cb
from bot.service.reactions import Reactions
from bot.service.seasons import season_of
from bot.service.shards import NotHere
from bot.service.tables import Live, Refused
from bot.store import Invitation, Seat, StoreError, TableStatus, TourneyStatus
from bot.transport.inline import InlineFaces
from bot.transport.sender import Content, Lazy, Priority
from bot.transport.tasks import settle
from engine import Card
from engine.actions import Event

if TYPE_CHECKING:
    from bot.chat.runtime import Runtime

__all__ = ["AI_LEVELS", "Presenter", "players_of", "solo_opponents"]

log = logging.getLogger(__name__)

AI_LEVELS = ("easy", "normal", "hard")
"""Computer players' levels, in the order the lobby's buttons number them."""

PLACES = ("both", "group")
"""Where a player who started the bot may choose to see his hands (see
:meth:`Presenter.hand_place`)."""


def players_of(seats: Sequence[Seat]) -> list[r.Player]:
    """The seats as the renderers name them (computer players with their level)."""
    return [r.Player(s.name, AI_LEVELS.index(s.ai) if s.ai in AI_LEVELS else None) for s in seats]


def solo_opponents(live: Live) -> tuple[int, int]:
    """A game against the computer: how many computer players, and the level (an index of
    :data:`AI_LEVELS`) of the first of them."""
    computers = [s for s in live.row.seats if s.ai is not None]
    level = computers[0].ai if computers else "normal"
    return len(computers), AI_LEVELS.index(level) if level in AI_LEVELS else 1


@dataclass(slots=True, eq=False)
class _Timer:
    """One pending run of a table's clock, reminder or computer move: a callback of the
    event loop (``loop.call_later``), which costs a fraction of a scheduler's job."""

    data: tuple[Any, ...]
    """What the run is for; ``data[0]`` is the table."""
    handle: asyncio.TimerHandle | None = None
    removed: bool = False
    """Cancelled, or its time came."""


def _unschedule(timer: _Timer | None) -> None:
    """Cancel a pending timer (one whose time came already is left be)."""
    if timer is None or timer.removed:
        return
    timer.removed = True
    if timer.handle is not None:
        timer.handle.cancel()
        timer.handle = None


class Presenter:
    """Draws tables for one running bot."""

    def __init__(self, rt: Runtime, app: Application) -> None:  # type: ignore[type-arg]
        self._rt = rt
        self._app = app
        self._loop = LoopRef()
        self._waiting: dict[int, frozenset[int]] = {}
        self._titles: dict[int, str] = {}
        self._langs: dict[int, Lang] = {}
        self._blocked: set[int] = set()
        """Users the bot cannot write to: their hands wait until they come back."""
        self._notified: dict[tuple[int, int], float] = {}
        """When each (table, seat) was last notified or last pressed a button."""
        self._clocks: dict[int, _Timer] = {}
        """Each table's pending clock (one at most)."""
        self._ai_jobs: dict[int, _Timer] = {}
        """Each table's pending computer move (one at most)."""
        self._thinking: set[tuple[int, int]] = set()
        """The (table, version) of each computer move being decided now."""
        self._nudges: dict[int, _Timer] = {}
        """Each table's pending reminder in the group (one per turn at most)."""
        self._runs: set[asyncio.Task[None]] = set()
        """The clocks, reminders and computer moves running now."""
        self._stopped = False
        self._private: dict[int, bool] = {}
        """Whether each user may be written to in private, as last read."""
        self._admin: dict[int, bool] = {}
        """Whether the bot is an administrator of each group, as last seen."""
        self._places: dict[int, str] = {}
        """Where each user chose to see his hands: ``both`` (the default) or ``group``."""
        self._seasons: dict[int, str] = {}
        """The season each group was last seen in (its news is looked for once a month)."""
        self._reactions = Reactions()
        """The quick reactions shown at private tables."""
        self.faces = InlineFaces(app.bot)
        """The invitations posted through inline mode, each showing its table."""
        self._invitations: dict[int, Invitation | None] = {}
        """The invitation of each private table, as read (None: a quick game's)."""
        self.ingroup = InGroupHands(
            app.bot,
            is_admin=self.bot_is_admin,
            on_not_admin=lambda chat: self._admin.pop(chat, None),
            timeout=rt.settings.api_timeout,
        )
        """The hands shown in the group, each to its holder alone."""
        self.tourneys = TourneyDesk(
            rt, lang_of=self._group_lang, dealt=self.next_game, pause=rt.settings.tourney_pause
        )
        """The tournaments: what follows each game's end, and the next deal."""

    # ------------------------------------------------------------------ helpers

    def _group_key(self, live: Live) -> Hashable:
        return ("group", live.table_id)

    def _mine(self, live: Live) -> bool:
        """Whether this process draws the table: with several processes, only the holder
        of its shard does (one that let it go, or is giving it back, has stopped)."""
        cluster = self._rt.cluster
        return cluster is None or cluster.holds_chat(live.row.chat_id)

    def _hand_key(self, live: Live, seat: int) -> Hashable:
        return ("hand", live.table_id, seat)

    def _group_hand_key(self, live: Live, seat: int) -> Hashable:
        return ("in-group hand", live.table_id, seat)

    async def private_ok(self, user_id: int) -> bool:
        """Whether the user's hand may go to his private chat: he started the bot and has
        not blocked it. One who never did plays through the group alone."""
        if user_id in self._blocked:
            return False
        found = self._private.get(user_id)
        if found is None:
            assert self._rt.store is not None
            row = await self._rt.store.get_user(user_id)
            found = self._private[user_id] = bool(row is not None and row.can_message)
        return found

    async def hand_place(self, user_id: int) -> str:
        """Where a player who may be written to in private sees his hands: ``both`` (in
        private, and in the group once he asks there; the default) or ``group`` (in the
        group alone, by his choice). Kept in the store, so that it lasts."""
        found = self._places.get(user_id)
        if found is None:
            assert self._rt.store is not None
            kept = await self._rt.store.get_state(f"hand_place:{user_id}")
            found = self._places[user_id] = kept if kept in PLACES else "both"
        return found

    async def set_place(
        self, live: Live, user_id: int, place: str, query_id: str, ephemeral_id: int | None
    ) -> None:
        """The player chose where his hand shows: ``group`` (there alone), ``both``, or
        ``private`` (no longer in the group: this table's in-group hand goes away)."""
        seat = live.seat_of(user_id)
        if seat is None or live.game is None:
            raise Refused("not_yours")
        if place not in (*PLACES, "private") or not await self.private_ok(user_id):
            raise Refused("outdated")
        await self._keep_place(user_id, "both" if place == "private" else place)
        key = self._group_hand_key(live, seat)
        if place == "private":
            self.ingroup.hide(key)
            await self._draw_hand(live, seat, user_id, fresh=True)
            return
        self.ingroup.pressed(key, live.row.chat_id, user_id, query_id, ephemeral_id=ephemeral_id)
        await self._draw_group_hand(live, seat, user_id, place=place)
        if place == "group":
            # his private hand says where his cards went, and stays as it is from now on
            lang = await self.user_lang(user_id)
            self._rt.out.show(
                self._hand_key(live, seat), user_id, Content(tr(lang, "hand.in_group"))
            )
        else:
            await self._draw_hand(live, seat, user_id, fresh=True)

    async def prefer_private(self, user_id: int) -> None:
        """He asked for his cards in private (/hand there): they show there again."""
        await self._keep_place(user_id, "both")

    async def _keep_place(self, user_id: int, place: str) -> None:
        """Remember (in the store too) where the user sees his hands, if it changed."""
        if place != await self.hand_place(user_id):
            assert self._rt.store is not None
            await self._rt.store.set_state(f"hand_place:{user_id}", place)
            self._places[user_id] = place

    def note_private(self, user_id: int, may: bool) -> None:
        """The user started the bot (or could not be written to): his hands follow."""
        self._private[user_id] = may

    async def bot_is_admin(self, chat_id: int) -> bool:
        """Whether the bot is an administrator of the group (asked of Telegram once, then
        kept as the bot's membership updates tell): an administrator may show a player his
        hand in the group at any time, not only just after he pressed a button there."""
        found = self._admin.get(chat_id)
        if found is None:
            bot = self._app.bot
            try:
                member = await bot.get_chat_member(chat_id, bot.id)
            except TelegramError as exc:
                log.info("chat %s: rights unknown: %s", chat_id, exc)
                return False  # asked again next time
            found = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
            self._admin[chat_id] = found
        return found

    def note_admin(self, chat_id: int, admin: bool) -> None:
        """The bot's rights in a group changed (a membership update said so)."""
        self._admin[chat_id] = admin

    def hand_message(self, live: Live, seat: int) -> int | None:
        """The message that shows a seat's hand now (None if it has none yet)."""
        shown = self._rt.out.message_id(self._hand_key(live, seat))
        if shown is None and seat < len(live.row.hand_message_ids):
            shown = live.row.hand_message_ids[seat]
        return shown

    def _players(self, live: Live) -> list[r.Player]:
        return players_of(live.row.seats)

    async def _group_lang(self, live: Live) -> Lang:
        if live.solo:
            return await self.user_lang(live.row.chat_id)  # his private chat speaks his
        if live.private:
            # no group: each player is spoken to in his own language
            return pick_lang(self._rt.settings.default_language)
        assert self._rt.store is not None
        row = await self._rt.store.get_chat(live.row.chat_id)
        lang = pick_lang(self._rt.settings.default_language, row.language if row else None)
        self._langs[live.row.chat_id] = lang
        return lang

    async def user_lang(self, user_id: int) -> Lang:
        """The language to speak to a user in private: his /lang choice, else his
        Telegram language."""
        assert self._rt.store is not None
        row = await self._rt.store.get_user(user_id)
        return pick_lang(None, row.language if row else None, self._rt.settings.default_language)

    def note_title(self, chat_id: int, title: str | None) -> None:
        """A group's title, as an update showed it (hands name their group)."""
        if title:
            self._titles[chat_id] = title

    def known_title(self, chat_id: int) -> str:
        """A group's title as last seen ("" if never)."""
        return self._titles.get(chat_id, "")

    async def title(self, chat_id: int) -> str:
        """A group's title: as last seen, else asked of Telegram once (a free read)."""
        title = self._titles.get(chat_id)
        if title is None:
            try:
                chat = await self._app.bot.get_chat(chat_id)
                title = chat.title or ""
            except TelegramError as exc:
                log.info("chat %s: no title: %s", chat_id, exc)
                title = ""
            self._titles.setdefault(chat_id, title)
        return title

    @staticmethod
    def _left(live: Live) -> float | None:
        """Seconds until the table's deadline (None: no clock runs)."""
        return None if live.deadline is None else max(0.0, live.deadline - time.time())

    def _open_url(self, live: Live) -> str | None:
        """The Mini App's direct link to the table, for a group's messages (None: no Mini
        App, no short name, or a game against the computer, which has no group)."""
        links = self._rt.webapp
        if links is None or live.own_chats:
            return None
        return links.direct_link(self._rt.bot_username, live.table_id)

    def _ctx(self, live: Live) -> r.TableContext:
        left = self._left(live)
        links = self._rt.webapp
        return r.TableContext(
            table_id=live.table_id,
            version=live.version,
            group_title=self._titles.get(live.row.chat_id, ""),
            seconds_left=left,
            deadline=live.deadline,
            events=tuple(e for _, e in live.events),
            bot_username=self._rt.bot_username or None,
            codec=self._rt.codec,
            open_url=self._open_url(live),
            web_app_url=links.web_app_url(live.table_id) if links is not None else None,
        )

    def adopt_messages(self, live: Live) -> None:
        """After a restart: edit the same messages as before."""
        out = self._rt.out
        # a game against the computer is drawn in its hand alone (the setup message became it)
        playing_solo = live.solo and live.row.status == TableStatus.PLAYING
        if live.row.group_message_id is not None and not playing_solo:
            out.adopt(
                self._group_key(live),
                live.row.chat_id,
                live.row.group_message_id,
                thread_id=live.row.thread_id,
            )
        for seat, message_id in enumerate(live.row.hand_message_ids):
            user = live.row.seats[seat].user_id if seat < len(live.row.seats) else None
            if message_id is not None and user is not None:
                out.adopt(self._hand_key(live, seat), user, message_id)
        if live.game is not None:
            self._waiting[live.table_id] = frozenset(live.game.waiting_on())

    # ------------------------------------------------------------------ drawing

    async def redraw(self, live: Live, events: list[Event]) -> None:
        """Draw the group message and every hand for the table's current state."""
        self._rt.views.changed(live)
        await self.draw_face(live)
        lang = await self._group_lang(live)
        if live.row.status == TableStatus.LOBBY or live.game is None:
            await self._draw_lobby(live, lang)
            return
        await self._draw_table(live, lang)
        await self._draw_hands(live, notify=False)
        self._arm_clock(live)
        self._schedule_ai(live)

    async def _season_news(self, live: Live, lang: Lang) -> None:
        """The group's first table or lobby message of a month follows a line naming last
        season's best, if the group played then (once, whichever process draws it)."""
        chat = live.row.chat_id
        if live.own_chats or self._rt.store is None:
            return
        season = season_of(time.time())
        if self._seasons.get(chat) == season.key:
            return
        self._seasons[chat] = season.key
        try:
            if not await self._rt.store.season_to_tell(chat, season.key):
                return
            last = season.previous()
            rows = await self._rt.store.season(chat, last.since, last.until)
        except StoreError:
            log.exception("chat %s: last season unreadable", chat)
            return
        if rows:
            name = r.season_name(lang, last.year, last.month)
            text = r.render_season_over(rows, lang, name)
            self._rt.out.post(chat, Content(text), thread_id=live.row.thread_id)

    async def _draw_lobby(self, live: Live, lang: Lang, *, fresh: bool = False) -> None:
        tourney = None if live.own_chats else await self._rt.tables.tourney_of(live)
        signing_up = tourney is not None and tourney.status == TourneyStatus.OPEN
        ctx = r.LobbyContext(
            table_id=live.table_id,
            version=live.version,
            creator=self._creator_name(live),
            codec=self._rt.codec,
            open_url=self._open_url(live),
            tourney=tourney.games if signing_up and tourney is not None else None,
        )
        if live.solo:
            count, level = solo_opponents(live)
            screen = r.render_solo_lobby(live.rules, count, level, lang, ctx)
        else:
            await self._season_news(live, lang)
            odds = await self._odds(live)
            screen = r.render_lobby(live.rules, self._players(live), lang, ctx, odds=odds)
        self._show_group(live, screen, lang, priority=Priority.OWN, fresh=fresh)

    async def _odds(self, live: Live) -> Odds | None:
        """The seated players' ratings (overall, or against the computer if a computer
        player sits there) and their chances not to be the durak."""
        store = self._rt.store
        seats = live.row.seats
        if store is None or len(seats) < 2:
            return None
        users = [s.user_id for s in seats if s.user_id is not None]
        try:
            ratings = await store.ratings_of(scope_for(seats), users)
        except StoreError:
            log.exception("table %s: ratings unreadable", live.table_id)
            return None
        return odds_for(seats, ratings, live.rules.teams)

    def _creator_name(self, live: Live) -> str | None:
        for seat in live.row.seats:
            if seat.user_id == live.row.creator_id:
                return seat.name
        return None

    def _show_group(
        self,
        live: Live,
        screen: r.Screen | Lazy,
        lang: Lang,
        *,
        priority: Priority = Priority.TABLE,
        fresh: bool = False,
    ) -> None:
        """The group's message: the table (paced behind the hands that wait on it) or
        the lobby and its pages (the presser's own screen)."""

        if not self._mine(live) or live.private:
            return  # a private table has no group message

        async def sent(message_id: int | None) -> None:
            if message_id is not None:
                await self._rt.tables.set_messages(live, group_message_id=message_id)

        self._rt.out.show(
            self._group_key(live),
            live.row.chat_id,
            screen if isinstance(screen, Lazy) else Content.of(screen),
            thread_id=live.row.thread_id,
            message_id=live.row.group_message_id,
            on_sent=sent,
            priority=priority,
            fresh=fresh,
            moved_note=tr(lang, "table.moved"),
        )

    async def _draw_table(self, live: Live, lang: Lang, *, fresh: bool = False) -> None:
        """The group's table message (a game against the computer has none: its hand
        shows the table)."""
        game = live.game
        assert game is not None
        if live.own_chats:
            return
        await self._season_news(live, lang)
        # the first message, at the deal, shows the odds; the moves take their place after
        odds = await self._odds(live) if game.moves == 0 else None
        players = self._players(live)

        def draw() -> Content:
            # the group sees its table once every few seconds: drawn when it goes, with
            # the newest state (the game's at that moment, the clock's time left too)
            now = live.game if live.game is not None else game
            screen = r.render_table(
                live.public_view(now),
                players,
                lang,
                self._ctx(live),
                rules=live.rules,
                odds=odds,
            )
            return Content.of(screen)

        if odds is not None:
            # the deal's message, with the odds: drawn now, as it stands at the deal
            first = draw()
            self._show_group(live, r.Screen(first.text, first.keyboard), lang, fresh=fresh)
        else:
            self._show_group(live, Lazy(draw), lang, fresh=fresh)

    async def _draw_hands(self, live: Live, *, notify: bool, actor: int | None = None) -> None:
        """Draw every hand. A hand whose player must answer now (the game waits on him, or
        he decides whether the bout ends), or who just moved (``actor``), goes at once; the
        others only watch, so their updates wait a little and merge with what follows."""
        game = live.game
        assert game is not None
        waiting = frozenset(game.waiting_on()) if game.result is None else frozenset()
        before = self._waiting.get(live.table_id, frozenset())
        self._waiting[live.table_id] = waiting
        # who must answer now: the seats waited on, else the throwers ending the bout
        answering = waiting or frozenset(game.throwers())
        for seat, who in enumerate(live.row.seats):
            if who.user_id is None:
                continue
            reachable = await self.private_ok(who.user_id)
            place = await self.hand_place(who.user_id) if reachable else None
            private = reachable and (live.own_chats or place != "group")
            in_group = not live.own_chats and (
                not private or self.ingroup.tracked(self._group_hand_key(live, seat))
            )
            turn = notify and seat in waiting and seat not in before
            if in_group:
                # his turn, and he plays in the group alone: a new message at the bottom,
                # where an administrator may send one (otherwise his hand is edited in
                # place and the group's table names him)
                new = turn and not private and await self.bot_is_admin(live.row.chat_id)
                priority = Priority.URGENT if seat in answering else Priority.OWN
                await self._draw_group_hand(
                    live, seat, who.user_id, new=new, priority=priority, place=place
                )
            if not private:
                continue
            fresh = turn
            if fresh:
                now = time.monotonic()
                last = self._notified.get((live.table_id, seat))
                fresh = last is None or now - last >= self._rt.settings.notify_after
                if fresh:
                    self._notified[(live.table_id, seat)] = now
            if seat in answering:
                priority = Priority.URGENT
            elif seat == actor or game.result is not None or live.own_chats:
                # at a table with no group his hand is the table he watches: nothing more
                # urgent waits for his chat's budget than it
                priority = Priority.OWN
            else:
                priority = Priority.WATCH
            await self._draw_hand(live, seat, who.user_id, fresh=fresh, priority=priority)

    async def _draw_hand(
        self,
        live: Live,
        seat: int,
        user_id: int,
        *,
        fresh: bool = False,
        priority: Priority = Priority.OWN,
        choice: r.Choice | None = None,
        selection: frozenset[Card] | None = None,
        purpose: str = "lead",
    ) -> None:
        game = live.game
        assert game is not None
        lang = await self.user_lang(user_id)
        if not live.own_chats:
            await self.title(live.row.chat_id)  # the hand names its group
        if not self._mine(live):
            return
        players = self._players(live)

        def context() -> r.TableContext:
            """The hand's context as the table stands now (its version, its clock)."""
            if live.solo:
                return replace(self._ctx(live), group_title=tr(lang, "solo.where"))
            if live.private:
                return replace(
                    self._ctx(live),
                    group_title=tr(lang, "private.where"),
                    reactions=self._reactions.shown_to(live.table_id, seat),
                    react=live.row.status == TableStatus.PLAYING,
                )
            return self._ctx(live)

        def draw() -> Content:
            now = live.game if live.game is not None else game
            ctx = context()
            screen = r.render_hand(
                now.view(seat, live.public_view(now)),
                players,
                lang,
                ctx,
                rules=live.rules,
                choice=choice,
                selection=selection,
                purpose=purpose,
            )
            return Content.of(screen)

        async def sent(message_id: int | None) -> None:
            await self._rt.tables.set_messages(live, hand=(seat, message_id))

        ids = live.row.hand_message_ids
        watching = priority == Priority.WATCH and choice is None and selection is None
        self._rt.out.show(
            self._hand_key(live, seat),
            user_id,
            # a watcher's hand waits and merges: drawn when it goes, with the newest state
            Lazy(draw) if watching else draw(),
            message_id=ids[seat] if seat < len(ids) else None,
            fresh=fresh,
            on_sent=sent,
            # a player who only watches sees the table at the group's pace (at a table
            # with no group, his hand is the table: at his chat's pace)
            interval=self._rt.settings.group_edit_interval
            if watching and not live.own_chats
            else 0.0,
            priority=priority,
            moved_note=tr(lang, "hand.moved"),
        )

    async def _draw_group_hand(
        self,
        live: Live,
        seat: int,
        user_id: int,
        *,
        new: bool = False,
        priority: Priority = Priority.OWN,
        choice: r.Choice | None = None,
        selection: frozenset[Card] | None = None,
        purpose: str = "lead",
        place: str | None = None,
    ) -> None:
        """A seat's hand in the group, shown to its player alone (in his language), with
        the buttons that choose where it shows (for one who may get it in private)."""
        game = live.game
        assert game is not None
        lang = await self.user_lang(user_id)
        if place is None and await self.private_ok(user_id):
            place = await self.hand_place(user_id)
        screen = r.render_group_hand(
            game.view(seat),
            lang,
            self._ctx(live),
            choice=choice,
            selection=selection,
            purpose=purpose,
            players=self._players(live),
            place=place,
        )
        if not self._mine(live):
            return
        self.ingroup.show(
            self._group_hand_key(live, seat),
            live.row.chat_id,
            user_id,
            Content.of(screen),
            thread_id=live.row.thread_id,
            new=new,
            priority=priority,
        )

    def show_in_group(
        self,
        live: Live,
        user_id: int,
        *,
        query_id: str | None = None,
        command_id: int | None = None,
        ephemeral_id: int | None = None,
        choice: r.Choice | None = None,
        selection: frozenset[Card] | None = None,
        purpose: str = "lead",
    ) -> None:
        """Show a player his hand in the group, to him alone: he pressed "My cards"
        (``query_id``; a new message below), sent /hand (``command_id``: the answer quotes
        it) or pressed a button of his in-group hand (``ephemeral_id``: that message is
        edited)."""
        seat = live.seat_of(user_id)
        if seat is None or live.game is None or live.own_chats:
            return
        key = self._group_hand_key(live, seat)
        chat = live.row.chat_id
        if query_id is not None:
            self.ingroup.pressed(key, chat, user_id, query_id, ephemeral_id=ephemeral_id)
        if command_id is not None:
            self.ingroup.commanded(key, chat, user_id, command_id)
        self._app.create_task(
            self._draw_group_hand(
                live,
                seat,
                user_id,
                new=ephemeral_id is None,
                # first in the chat's queue: his press allows a new message for 15 s only
                priority=Priority.URGENT,
                choice=choice,
                selection=selection,
                purpose=purpose,
            )
        )

    def pressed_in_group(self, live: Live, user_id: int, query_id: str, ephemeral_id: int) -> None:
        """A button of the player's in-group hand was pressed: that message is his hand
        from now on, and his press lets a new one be sent for a while if it is gone."""
        seat = live.seat_of(user_id)
        if seat is None or live.own_chats:
            return
        key = self._group_hand_key(live, seat)
        self.ingroup.pressed(key, live.row.chat_id, user_id, query_id, ephemeral_id=ephemeral_id)

    def looked(self, live: Live, user_id: int) -> None:
        """A player pressed one of his buttons: he has his hand before his eyes, so for
        a while his turn edits it in place instead of sending it anew."""
        seat = live.seat_of(user_id)
        if seat is not None:
            self._notified[(live.table_id, seat)] = time.monotonic()

    def redraw_for(
        self,
        live: Live,
        user_id: int,
        *,
        choice: r.Choice | None = None,
        selection: frozenset[Card] | None = None,
        purpose: str = "lead",
        fresh: bool = False,
        in_group: bool = False,
    ) -> None:
        """Redraw one player's hand (a choice, a selection, or a fresh copy); ``in_group``:
        his in-group hand, where he pressed."""
        seat = live.seat_of(user_id)
        if seat is None or live.game is None:
            return
        if in_group:
            self._app.create_task(
                self._draw_group_hand(
                    live, seat, user_id, choice=choice, selection=selection, purpose=purpose
                )
            )
            return
        self._app.create_task(
            self._draw_hand(
                live,
                seat,
                user_id,
                choice=choice,
                selection=selection,
                purpose=purpose,
                fresh=fresh,
            )
        )

    def back(self, live: Live, user_id: int) -> None:
        """A player who could not be written to opened the chat again: his cards, anew."""
        self._blocked.discard(user_id)
        self._private[user_id] = True
        self.redraw_for(live, user_id, fresh=True)

    def next_game(self, live: Live) -> None:
        """A tournament's next game was dealt at its table: drawn in new messages below
        the last game's end, the last game's left as they are."""
        self._rt.out.forget(self._group_key(live))
        self.game_started(live)

    def game_started(self, live: Live) -> None:
        """A new game: draw the table and send every hand (notifying the first mover)."""
        self._rt.views.changed(live)
        self._waiting.pop(live.table_id, None)
        for seat in range(len(live.row.seats)):
            self._rt.out.forget(self._hand_key(live, seat))
        self._app.create_task(self._start_drawing(live))

    async def _start_drawing(self, live: Live) -> None:
        self._rt.views.changed(live)
        if live.solo:
            # against the computer, the setup message becomes the hand, edited in place;
            # the player just pressed Play, so he is looking at it
            setup = self._rt.out.forget(self._group_key(live)) or live.row.group_message_id
            if setup is not None:
                await self._rt.tables.set_messages(live, hand=(0, setup))
            player = live.row.seats[0].user_id
            if player is not None:
                self.looked(live, player)
        lang = await self._group_lang(live)
        await self.draw_face(live)
        await self._draw_table(live, lang)
        await self._draw_hands(live, notify=True)
        self._arm_clock(live)
        self._schedule_ai(live)

    async def after_action(
        self,
        live: Live,
        events: list[Event],
        *,
        actor: int | None = None,
        surrendered_by: int | None = None,
    ) -> None:
        """Redraw after an applied action (``actor``'s; None: the clock's); announce the
        end if the game is over."""
        game = live.game
        assert game is not None
        self._rt.views.changed(live)  # the pages at once; the chat at Telegram's pace
        lang = await self._group_lang(live)
        await self.draw_face(live)
        await self._draw_table(live, lang)
        await self._draw_hands(live, notify=True, actor=actor)
        self._arm_clock(live)
        self._schedule_ai(live)
        if game.result is not None:
            await self._announce_end(live, lang, surrendered_by)

    async def _announce_end(self, live: Live, lang: Lang, surrendered_by: int | None) -> None:
        game = live.game
        assert game is not None and game.result is not None and self._rt.store is not None
        surrendered = live.seat_of(surrendered_by) if surrendered_by is not None else None
        if live.private:
            await self._announce_private_end(live, surrendered)
            return
        tourney = await self.tourneys.after_game(live) if not live.solo else None
        tally = await self._rt.store.chat_stats(live.row.chat_id) if tourney is None else ()
        ctx = r.EndContext(
            table_id=live.table_id,
            version=live.version,
            tally=tally,
            tourney=tourney,
            surrendered=surrendered,
            game_no=live.row.game_no,
            solo=live.solo,
            earned=live.earned_by_seat(),
            codec=self._rt.codec,
        )
        screen = r.render_end(game.result, self._players(live), lang, ctx)
        self._rt.out.post(live.row.chat_id, Content.of(screen), thread_id=live.row.thread_id)
        self._let_go(live)

    async def _announce_private_end(self, live: Live, surrendered: int | None) -> None:
        """The end of a private table's game, in each player's private chat, in his
        language: the result, the replay, a new quick game, and a button to block each of
        the others (never paired with him again)."""
        game = live.game
        assert game is not None and game.result is not None
        players = self._players(live)
        invited = await self.invitation(live) is not None
        for seat, who in enumerate(live.row.seats):
            if who.user_id is None:
                continue
            lang = await self.user_lang(who.user_id)
            ctx = r.EndContext(
                table_id=live.table_id,
                version=live.version,
                surrendered=surrendered,
                game_no=live.row.game_no,
                codec=self._rt.codec,
                private_seat=seat,
                # friends invited play again from the invitation; strangers may block
                blocks=not invited,
                earned=live.earned_by_seat(),
            )
            screen = r.render_end(game.result, players, lang, ctx)
            self._rt.out.post(who.user_id, Content.of(screen))
        self._reactions.forget(live.table_id)
        self._let_go(live)

    @property
    def reactions(self) -> Reactions:
        """The quick reactions shown at private tables."""
        return self._reactions

    def react(self, live: Live, seat: int, name: str, emoji: str) -> None:
        """A player's quick reaction (he is ``name``, his first name): shown in the others'
        table messages for a while."""
        self._reactions.add(live.table_id, seat, name, emoji)
        for other, who in enumerate(live.row.seats):
            if other != seat and who.user_id is not None and live.game is not None:
                self._app.create_task(
                    self._draw_hand(live, other, who.user_id, priority=Priority.OWN)
                )

    # ------------------------------------------------------------------ invitations

    async def invitation(self, live: Live) -> Invitation | None:
        """The invitation a private table was opened by (None: none, a quick game's)."""
        if not live.private:
            return None
        if live.table_id not in self._invitations:
            assert self._rt.store is not None
            self._invitations[live.table_id] = await self._rt.store.invitation_of(live.table_id)
        return self._invitations[live.table_id]

    def note_invitation(self, invitation: Invitation) -> None:
        """A table was just opened by this invitation."""
        self._invitations[invitation.table_id] = invitation

    async def invite_spec(self, live: Live, invitation: Invitation) -> r.InviteSpec:
        """What an invitation's buttons carry, and who invited, by name."""
        name = next((s.name for s in live.row.seats if s.user_id == invitation.inviter), None)
        if name is None:
            assert self._rt.store is not None
            found = await self._rt.store.get_user(invitation.inviter)
            name = found.name if found is not None else "?"
        return r.InviteSpec(
            invitation.game,
            invitation.size,
            invitation.inviter,
            pick_lang(invitation.lang),
            name,
            self._rt.codec,
        )

    async def draw_face(self, live: Live) -> None:
        """The invitation a private table was opened by shows the table: its lobby, the
        public table (never a hand's card), the end with a rematch."""
        invitation = await self.invitation(live)
        if invitation is None or not self._mine(live):
            return
        spec = await self.invite_spec(live, invitation)
        lang = spec.lang
        game = live.game
        status = live.row.status
        players = self._players(live)
        if status == TableStatus.LOBBY or game is None:
            seated = [s.name for s in live.row.seats]
            screen = r.render_invitation(lang, live.rules, spec, seated)
        elif status == TableStatus.PLAYING:
            screen = r.render_invitation_table(
                game.public_view(),
                players,
                lang,
                self._ctx(live),
                live.rules,
                self._rt.bot_username or None,
            )
        elif status == TableStatus.FINISHED and game.result is not None:
            ctx = r.EndContext(
                table_id=live.table_id,
                version=live.version,
                game_no=live.row.game_no,
                earned=live.earned_by_seat(),
                codec=self._rt.codec,
            )
            screen = r.render_invitation_end(game.result, players, lang, ctx, spec)
        else:
            screen = r.Screen(r.render_cancelled(lang))
        self.faces.show(invitation.inline_message_id, screen)

    def drop(self, live: Live) -> list[asyncio.Task[None]]:
        """Another process holds the table now (its shard's lease went there): stop drawing
        it and running its clocks here, at once. Its messages stay: the holder edits them.
        The requests already under way are not called back: their workers, which finish
        them, are returned."""
        out = self._rt.out
        keys = [
            self._group_key(live),
            *(self._hand_key(live, s) for s in range(len(live.row.seats))),
        ]
        under_way = [task for key in keys if (task := out.under_way(key)) is not None]
        out.forget(self._group_key(live))
        for seat in range(len(live.row.seats)):
            out.forget(self._hand_key(live, seat))
            # the holder knows no in-group hand of it: each comes back with My cards
            self.ingroup.forget(self._group_hand_key(live, seat))
            self._notified.pop((live.table_id, seat), None)
        self._waiting.pop(live.table_id, None)
        self._disarm(live)
        _unschedule(self._ai_jobs.pop(live.table_id, None))
        self.tourneys.forget(live.table_id)
        self._rt.tables.forget(live.table_id)
        return under_way

    def _let_go(self, live: Live) -> None:
        """A finished or cancelled table leaves memory once its messages are drawn; its
        buttons (Rematch, stale presses) load it again from the store."""
        out = self._rt.out
        out.retire(self._group_key(live))
        for seat in range(len(live.row.seats)):
            out.retire(self._hand_key(live, seat))
            self.ingroup.retire(self._group_hand_key(live, seat))
            self._notified.pop((live.table_id, seat), None)
        self._waiting.pop(live.table_id, None)
        self._disarm(live)
        _unschedule(self._ai_jobs.pop(live.table_id, None))
        self._rt.tables.forget(live.table_id)

    def show_lobby_page(self, live: Live, decoded: cb.Callback, lang: Lang) -> None:
        """Show a settings page, an option's values, the AI picker, or the lobby again."""
        self._rt.views.changed(live)  # a changed option shows on the pages too
        if isinstance(decoded, cb.Settings):
            screen = r.render_settings(
                live.rules,
                lang,
                live.table_id,
                live.version,
                decoded.page,
                self._rt.codec,
                solo=live.solo,
            )
        elif isinstance(decoded, cb.Option):
            try:
                screen = r.render_option(
                    live.rules, lang, live.table_id, live.version, decoded.option, self._rt.codec
                )
            except r.SettingError:
                raise Refused("bad_setting") from None
        elif isinstance(decoded, cb.AiMenu):
            ctx = r.LobbyContext(live.table_id, live.version, codec=self._rt.codec)
            screen = r.render_ai_picker(lang, ctx)
        else:
            self._app.create_task(self._draw_lobby(live, lang))
            return
        if not live.solo:  # a game against the computer has nobody else to seat
            ctx = r.LobbyContext(live.table_id, live.version, codec=self._rt.codec)
            screen = r.with_seats(screen, self._players(live), lang, ctx)
        self._show_group(live, screen, lang, priority=Priority.OWN)

    def rematch(self, live: Live) -> None:
        """A finished table became a lobby again: it is drawn in a new message below the
        end of the last game, and the last game's hands are left as they are."""
        self._rt.views.changed(live)
        self._rt.out.forget(self._group_key(live))
        for seat in range(len(live.row.seats)):
            self._rt.out.forget(self._hand_key(live, seat))
        self._app.create_task(self.redraw(live, []))

    def repost(self, live: Live) -> None:
        """/newgame while a table is open: show its message again at the bottom."""
        self._app.create_task(self._repost(live))

    async def _repost(self, live: Live) -> None:
        # the table moves to the bottom; the old copy is deleted, or where Telegram refuses
        # (older than 48 hours) it loses its buttons and points below
        lang = await self._group_lang(live)
        if live.game is not None and live.row.status == TableStatus.PLAYING:
            await self._draw_table(live, lang, fresh=True)
        elif live.row.status == TableStatus.FINISHED:
            # a tournament between two games: its next one is on its way
            text = tr(lang, "tourney.between")
            self._rt.out.post(live.row.chat_id, Content(text), thread_id=live.row.thread_id)
        else:
            await self._draw_lobby(live, lang, fresh=True)

    async def cancelled(self, live: Live, by: str | None, *, lobby: bool = False) -> None:
        """The lobby or game was cancelled: say so in the group and in every hand, whose
        buttons go away."""
        self._rt.views.changed(live)
        lang = await self._group_lang(live)
        text = r.render_cancelled(lang, by, lobby=lobby)
        await self.draw_face(live)
        if lobby or not live.own_chats:
            # a game against the computer that started shows it in its hand alone
            self._show_group(live, r.Screen(text), lang, priority=Priority.OWN)
        await self.close_hands(live, None if live.solo else by)
        self._disarm(live)
        self._let_go(live)

    async def close_hands(self, live: Live, by: str | None = None) -> None:
        """Replace every hand's keyboard by a note that the table is closed."""
        for seat, who in enumerate(live.row.seats):
            if who.user_id is None:
                continue
            text = r.render_cancelled(await self.user_lang(who.user_id), by)
            in_group = self._group_hand_key(live, seat)
            if self.ingroup.shown(in_group):
                self.ingroup.show(in_group, live.row.chat_id, who.user_id, Content(text))
            key = self._hand_key(live, seat)
            if self._rt.out.message_id(key) is None:
                continue
            self._rt.out.show(key, who.user_id, Content(text))

    async def removed(self, live: Live) -> None:
        """The bot left the group: close the hands; the group can no longer be written."""
        self._rt.out.forget(self._group_key(live))
        await self.close_hands(live)
        self._disarm(live)

    # ------------------------------------------------------------------ clocks

    def _job_name(self, live: Live) -> str:
        return f"clock:{live.table_id}"

    def _later(
        self,
        timers: dict[int, _Timer],
        delay: float,
        run: Callable[[Any], Awaitable[None]],
        data: tuple[Any, ...],
        name: str,
    ) -> None:
        """Run ``run(data)`` in ``delay`` seconds, as the table's (``data[0]``) pending
        timer in ``timers``."""
        timer = _Timer(data)
        timer.handle = self._loop().call_later(
            max(0.0, delay), self._fire, timers, timer, run, name
        )
        timers[data[0]] = timer

    def _fire(
        self,
        timers: dict[int, _Timer],
        timer: _Timer,
        run: Callable[[Any], Awaitable[None]],
        name: str,
    ) -> None:
        timer.handle = None
        timer.removed = True
        if timers.get(timer.data[0]) is timer:
            del timers[timer.data[0]]  # nothing to remove later
        if self._stopped:
            return
        task = self._loop().create_task(self._run_timer(run, timer.data), name=name)
        self._runs.add(task)
        task.add_done_callback(self._runs.discard)

    @staticmethod
    async def _run_timer(run: Callable[[Any], Awaitable[None]], data: tuple[Any, ...]) -> None:
        try:
            await run(data)
        except Exception:
            log.exception("table %s: a timer's run failed", data[0])

    async def stop_clocks(self, timeout: float = 10.0) -> None:
        """The bot stops: no clock, reminder or computer move starts any more; those that
        run now finish (their moves are saved and drawn), at most ``timeout`` seconds."""
        self._stopped = True
        await self.tourneys.stop()
        for timers in (self._clocks, self._nudges, self._ai_jobs):
            for timer in timers.values():
                _unschedule(timer)
            timers.clear()
        await settle(lambda: list(self._runs), timeout)

    def _disarm(self, live: Live) -> None:
        _unschedule(self._clocks.pop(live.table_id, None))
        _unschedule(self._nudges.pop(live.table_id, None))

    def _arm_clock(self, live: Live) -> None:
        """Set the table's clock to its deadline (replacing the previous one)."""
        if live.deadline is None or live.row.status != TableStatus.PLAYING:
            self._disarm(live)
            return
        data = (live.table_id, live.version, live.deadline)
        armed = self._clocks.get(live.table_id)
        if armed is not None and armed.data == data and not armed.removed:
            return  # a redraw without a move: the clock runs on
        self._disarm(live)
        delay = max(0.0, live.deadline - time.time())
        self._later(self._clocks, delay, self._clock_job, data, self._job_name(live))
        # after half his time, the player the game waits on is named in the group, once
        half = live.rules.turn_timeout / 2
        game = live.game
        if game is not None and game.waiting_on() and half > 0 and delay > half:
            self._later(
                self._nudges,
                delay - half,
                self._nudge_job,
                (live.table_id, live.version),
                f"nudge:{live.table_id}",
            )

    async def _nudge_job(self, data: tuple[int, int]) -> None:
        """Half the turn's time is gone: mention the awaited player in the group."""
        table_id, version = data
        live = self._rt.tables.cached(table_id)
        if live is None or live.version != version or live.game is None or live.own_chats:
            return  # a table with no group has none to remind in; its hands have a clock
        left = self._left(live)
        if live.row.status != TableStatus.PLAYING or left is None:
            return
        lang = await self._group_lang(live)
        for seat in live.game.waiting_on():
            who = live.row.seats[seat]
            if who.user_id is None:
                continue  # a computer player needs no reminder
            text = r.render_nudge(lang, who.name, who.user_id, left, live.deadline)
            self._rt.out.post(
                live.row.chat_id,
                Content(text),
                thread_id=live.row.thread_id,
                priority=Priority.TABLE,
            )

    async def _clock_job(self, data: tuple[int, int, float]) -> None:
        """The table's deadline came: the clock runs out for whoever the game waits on."""
        table_id, version, _deadline = data
        try:
            live = await self._rt.tables.get(table_id)
        except NotHere:
            return  # another process runs its clock now
        if live is None:
            return
        async with live.lock:
            try:
                events = await self._rt.tables.clock_ran_out(live, version)
            except Refused as exc:
                log.info("table %s: clock refused: %s", table_id, exc.reason)
                return
        if events:
            await self.after_action(live, events)

    # ------------------------------------------------------------------ computer players

    def _ai_seat(self, live: Live) -> int | None:
        """A computer seat that may act now (the one the game waits on first)."""
        game = live.game
        if game is None or game.result is not None or live.row.status != TableStatus.PLAYING:
            return None
        seats = live.row.seats
        acting = [*game.waiting_on(), *game.to_act()]
        for seat in acting:
            if seats[seat].ai is not None:
                return seat
        return None

    def _schedule_ai(self, live: Live) -> None:
        """Let a computer player move after a human-like pause."""
        seat = self._ai_seat(live)
        if seat is None:
            return
        _unschedule(self._ai_jobs.pop(live.table_id, None))
        delay = self._rt.settings.ai_delay
        self._later(
            self._ai_jobs, delay, self._ai_job, (live.table_id, live.version), f"ai:{live.table_id}"
        )

    async def _ai_job(self, data: tuple[int, int]) -> None:
        from engine.ai import make_player, think_floor

        table_id, version = data
        try:
            live = await self._rt.tables.get(table_id)
        except NotHere:
            return  # another process moves for its computer players now
        if live is None:
            return
        async with live.lock:
            seat = self._ai_seat(live)
            if seat is None or live.version != version or live.game is None:
                return
            if (table_id, version) in self._thinking:
                return  # scheduled again (a redraw) while this very move is being decided
            level = live.row.seats[seat].ai or "normal"
            view = live.game.view(seat)
            rules = live.rules
            self._thinking.add((table_id, version))
        # The decision is awaited without the table's lock: it may wait behind other
        # tables' decisions in the workers, and a press at this table meanwhile (a throw-in,
        # a card that does not go) is answered at once instead of holding one of the bot's
        # slots for updates until then. A move made meanwhile makes this one stale: it is
        # dropped below, and the next decision is scheduled for the new state.
        try:
            started = time.monotonic()
            thinkers = self._rt.thinkers
            if thinkers is not None:
                action = await thinkers.choose(level, view, rules, version)
            else:
                player = make_player(level)
                action = await asyncio.to_thread(player.choose, view, rules, seed=version)
            # every decision of a level takes as long: a forced pass (nothing to throw)
            # must not come sooner than a considered one
            rest = think_floor(level) - (time.monotonic() - started)
            if rest > 0:
                await asyncio.sleep(rest)
        finally:
            self._thinking.discard((table_id, version))
        try:
            current = await self._rt.tables.get(table_id)
        except NotHere:
            return  # another process took the table over meanwhile
        if current is not live:
            return  # the table left memory meanwhile (its game ended or was cancelled)
        async with live.lock:
            if live.version != version:
                return  # someone moved meanwhile
            try:
                events = await self._rt.tables.act(live, seat, action, version)
            except Refused as exc:
                log.warning("table %s: computer move refused: %s", table_id, exc.reason)
                return
        await self.after_action(live, events, actor=seat)

    # ------------------------------------------------------------------ troubles

    async def on_blocked(self, chat_id: int) -> None:
        """A player blocked the bot (or never started it): tell his table's group."""
        assert self._rt.store is not None
        user = await self._rt.store.get_user(chat_id)
        if user is not None and user.can_message:
            await self._rt.store.set_can_message(chat_id, False)
        self._private[chat_id] = False
        if chat_id in self._blocked:
            return  # the group has been told already
        self._blocked.add(chat_id)
        for live in self._rt.tables.loaded():
            if live.row.status != TableStatus.PLAYING or live.seat_of(chat_id) is None:
                continue
            if live.own_chats:
                continue  # no group to tell; the game waits for him, on his clock
            lang = await self._group_lang(live)
            name = user.name if user is not None else str(chat_id)
            seat = live.seat_of(chat_id)
            waited = live.game is not None and seat in live.game.waiting_on()
            left = self._left(live) if waited else None
            screen = r.render_blocked(
                lang,
                name,
                self._rt.bot_username,
                live.table_id,
                self._rt.codec,
                limited=live.rules.turn_timeout > 0,
                seconds=left,
                deadline=live.deadline if left is not None else None,
            )
            self._rt.out.post(live.row.chat_id, Content.of(screen), thread_id=live.row.thread_id)

    async def on_topic_gone(self, chat_id: int, thread_id: int) -> None:
        """A forum topic with a table in it was deleted, its messages with it: the table
        moves to the group's general chat for good, saying why there, and the game goes
        on (the publisher draws it there once this returns)."""
        moved = await self._rt.tables.leave_topic(chat_id, thread_id)
        for live in moved:
            log.info("table %s: its topic %s was deleted", live.table_id, thread_id)
        if not moved:
            return
        lang = await self._group_lang(moved[0])
        # said before the table is drawn again below it
        await self._rt.out.post(chat_id, Content(tr(lang, "table.topic_gone")))

    async def on_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: its tables and tallies move with it. The old
        group's messages stay behind; the publisher draws each table anew in the
        supergroup (:meth:`Publisher.migrate`)."""
        assert self._rt.store is not None
        await self._rt.store.migrate_chat(old_chat_id, new_chat_id)
        moved = [live for live in self._rt.tables.loaded() if live.row.chat_id == old_chat_id]
        for live in moved:
            live.row = replace(live.row, chat_id=new_chat_id, group_message_id=None, thread_id=None)
        cluster = self._rt.cluster
        if moved and cluster is not None and not cluster.holds_chat(new_chat_id):
            # the supergroup's shard is another process's: it draws them there from now on
            for live in moved:
                self.drop(live)
            await cluster.tables_moved(new_chat_id)
        if old_chat_id in self._langs:
            self._langs[new_chat_id] = self._langs.pop(old_chat_id)
        if old_chat_id in self._titles:
            self._titles[new_chat_id] = self._titles.pop(old_chat_id)
        log.info("chat %s is now %s", old_chat_id, new_chat_id)
