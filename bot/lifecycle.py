"""Start-up and shut-down: the store opened, running games redrawn and their clocks set,
updates left from before handled again, the command menus, the daily purge of lobbies
nobody started. Here the layers are wired together: the store, then the table service,
the chat's presenter and publisher, the cluster's member and the Mini App's server.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from telegram.error import TelegramError
from telegram.ext import (
    Application,
    ContextTypes,
)

from bot.base.i18n import tr
from bot.chat.chart import Charts
from bot.chat.common import (
    chat_lang,
)
from bot.chat.invites import InviteDesk
from bot.chat.menus import Menus
from bot.chat.presenter import Presenter
from bot.chat.quick import QuickDesk
from bot.chat.replays import ReplayDesk
from bot.chat.runtime import Runtime, runtime
from bot.service.coach import Coach
from bot.service.inbox import Inbox
from bot.service.shards import NotHere
from bot.service.tables import Live, TableService
from bot.service.thinkers import Thinkers
from bot.store import TableStatus, open_store
from bot.store.postgres import PostgresStore
from bot.transport.pacing import Pacer
from bot.transport.sender import Publisher
from engine import Rules

log = logging.getLogger(__name__)


async def post_init(app: Application) -> None:  # type: ignore[type-arg]
    """Open the store, load running games, redraw them and set their clocks again, and
    queue the updates that were kept but not handled before the process stopped."""
    rt: Runtime = app.bot_data["runtime"]
    rt.store = await open_store(rt.settings.db_path, url=rt.settings.postgres_url)
    member = None
    if isinstance(rt.store, PostgresStore):
        # the same command started several times on one database forms one bot
        from bot.cluster.member import Member

        member = Member(rt, app, rt.store, poll=rt.settings.mode == "polling")
        rt.cluster = member
        inbox = Inbox(rt.store, routes=member.router, holds=member.ready)
    else:
        inbox = Inbox(rt.store)
    rt.inbox = rt.order.inbox = inbox
    if rt.updates_request is not None:
        rt.updates_request.keep = inbox.keep
    me = await app.bot.get_me()
    rt.bot_username = me.username or ""
    presenter = Presenter(rt, app)
    rt.extras["presenter"] = presenter
    rt.publisher = Publisher(
        app.bot,
        timeout=rt.settings.api_timeout,
        on_blocked=presenter.on_blocked,
        on_migrated=presenter.on_migrated,
        on_topic_gone=presenter.on_topic_gone,
    )
    rt.service = TableService(rt.store, holds=member.holds_chat if member else None)
    coach = Coach(rt.store, workers=rt.settings.coach_workers, budget=rt.settings.coach_budget)
    rt.extras["replays"] = ReplayDesk(rt, presenter, coach)
    # the menus are set in the background: a flood wait there never delays an update
    menus = Menus(app.bot, rt.store)
    rt.extras["menus"] = menus
    menus.start()
    pacer = app.bot.rate_limiter if isinstance(app.bot.rate_limiter, Pacer) else None
    if member is not None:
        if pacer is not None:
            pacer.shared = member.budgets
        # the shards this process takes: their running tables drawn, their updates queued
        await member.start()
    else:
        for live in await rt.service.load_running():
            if pacer is not None:
                # the process before may have spent these chats' bursts just now
                for chat in (live.row.chat_id, *(s.user_id for s in live.row.seats if s.user_id)):
                    pacer.assume_spent(chat)
            presenter.adopt_messages(live)
            await presenter.redraw(live, [])
            log.info("table %s: game resumed", live.table_id)
        # tournaments between two games: their next game is dealt after the pause
        await presenter.tourneys.resume()
        await resume_updates(app, inbox)
    coach.start()
    rt.thinkers = Thinkers(rt.settings.ai_workers)
    rt.thinkers.start()
    quick = rt.extras["quick"] = QuickDesk(rt, presenter)
    quick.start()
    rt.extras["invites"] = InviteDesk(rt, presenter, app.bot)
    if rt.settings.charts:
        charts = Charts()
        charts.start()  # the worker loads matplotlib now, not at the first /me
        rt.extras["charts"] = charts
    if app.job_queue is not None:
        app.job_queue.run_repeating(purge_lobbies, interval=3600, first=60, name="purge")
    if rt.webapp is not None:
        from bot.webapp.server import open_webapp

        server = rt.extras["webapp"] = await open_webapp(rt, presenter, app.bot, rt.webapp)
        if member is not None:
            from bot.cluster.views import SharedViews

            # a page may be connected to any process: the others are told of changes
            rt.views = SharedViews(server.hub, member)


async def resume_updates(app: Application, inbox: Inbox) -> None:  # type: ignore[type-arg]
    """Queue the updates kept but not done (the process stopped or crashed while they
    waited or ran), oldest first, ahead of any new one: each is handled once."""
    await inbox.prune()
    pending = await inbox.pending(app.bot)
    for update in pending:
        app.update_queue.put_nowait(update)
    if pending:
        log.info("%d updates received before the restart are handled now", len(pending))


async def purge_lobbies(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Remove lobbies nobody started within a day (their messages say they expired) and
    forget the updates done a day ago."""
    rt = runtime(context)
    assert rt.store is not None
    if rt.inbox is not None:
        await rt.inbox.prune()
    for row in await rt.store.purge_stale_lobbies():
        rt.tables.forget(row.table_id)
        # a page of it shows the lobby closed (a rematch's table: finished again)
        try:
            live = await rt.tables.get(row.table_id)
        except NotHere:
            live = None  # another process's table: its lobby message is edited all the same
        if live is None:
            gone = replace(row, status=TableStatus.CANCELLED, version=row.version + 1)
            live = Live(row=gone, rules=Rules(), game=None)
        rt.views.changed(live)
        if row.group_message_id is None:
            continue
        lang = await chat_lang(rt, row.chat_id)
        try:
            await context.bot.edit_message_text(
                tr(lang, "lobby.alert.expired"),
                chat_id=row.chat_id,
                message_id=row.group_message_id,
            )
        except TelegramError as exc:
            log.info(
                "table %s chat %s: expired lobby not edited: %s", row.table_id, row.chat_id, exc
            )
        log.info("table %s chat %s: lobby expired", row.table_id, row.chat_id)


async def post_stop(app: Application) -> None:  # type: ignore[type-arg]
    """Stop setting the menus; deliver what is pending while the connection to Telegram is
    still open."""
    rt: Runtime = app.bot_data["runtime"]
    await leave(app)
    await _stop_menus(rt)
    webapp = rt.extras.pop("webapp", None)
    if webapp is not None:
        from bot.webapp.server import WebAppServer

        assert isinstance(webapp, WebAppServer)
        await webapp.close()  # the pages reconnect to the next bot
    quick = rt.extras.get("quick")
    if isinstance(quick, QuickDesk):
        await quick.close()  # no table is dealt once the clocks stop
    presenter = rt.extras.get("presenter")
    if isinstance(presenter, Presenter):
        await presenter.stop_clocks()  # a move they make now is still drawn below
        await presenter.ingroup.close()
        await presenter.faces.flush()
        await presenter.faces.close()
    if rt.publisher is not None:
        await rt.publisher.close()


async def leave(app: Application) -> None:  # type: ignore[type-arg]
    """Several processes on one database: give this one's part back to the others (the
    updates in hand finish first). Before the application stops, so that they do."""
    rt: Runtime = app.bot_data["runtime"]
    from bot.cluster.member import Member

    if isinstance(rt.cluster, Member):
        await rt.cluster.leave()


async def post_shutdown(app: Application) -> None:  # type: ignore[type-arg]
    """Stop what still runs (the menus, the coach's workers) and close the store."""
    rt: Runtime = app.bot_data["runtime"]
    await _stop_menus(rt)
    desk = rt.extras.get("replays")
    if isinstance(desk, ReplayDesk) and desk.coach is not None:
        desk.coach.close()
    charts = rt.extras.get("charts")
    if isinstance(charts, Charts):
        charts.close()
    if rt.thinkers is not None:
        rt.thinkers.close()
    if rt.store is not None:
        await rt.store.close()


async def _stop_menus(rt: Runtime) -> None:
    menus = rt.extras.get("menus")
    if isinstance(menus, Menus):
        await menus.stop()
