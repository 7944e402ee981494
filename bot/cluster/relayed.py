"""What one process asks of the holder of a table (:class:`~bot.service.inbox.Relayed`): a player
who came back to his private chat gets his cards again at every table he sits at, which
may be held by other processes than the one that holds his chat; a press of a Mini App
page connected to another process is run here and answered there.
"""

from __future__ import annotations

import logging

from telegram.ext import ContextTypes

from bot.chat.common import BACK, presenter_of
from bot.chat.runtime import Runtime, runtime
from bot.service.inbox import Relayed
from bot.store import TableStatus
from bot.webapp.presses import PAGE_PRESS

__all__ = ["on_relayed"]

log = logging.getLogger(__name__)


async def on_relayed(update: Relayed, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A request of another process about a table held here."""
    rt = runtime(context)
    if update.kind == PAGE_PRESS:
        await _page_press(rt, update)
        return
    live = await rt.tables.get(update.table)  # held elsewhere by now: handed on
    if live is None:
        return
    if update.kind == BACK:
        user = update.data.get("user")
        playing = live.row.status == TableStatus.PLAYING
        if playing and isinstance(user, int) and live.seat_of(user) is not None:
            presenter_of(context).back(live, user)
        return
    log.warning("table %s: unknown request %r dropped", update.table, update.kind)


async def _page_press(rt: Runtime, update: Relayed) -> None:
    """A press of a page connected to another process: run here, answered there."""
    from bot.cluster.member import Member
    from bot.webapp.presses import PageDesk
    from bot.webapp.server import WebAppServer

    server = rt.extras.get("webapp")
    desk = server.desk if isinstance(server, WebAppServer) else None
    if not isinstance(desk, PageDesk) or not isinstance(rt.cluster, Member):
        log.warning("table %s: a page's press came, but no Mini App runs here", update.table)
        return
    # another process's table by now: NotHere hands it on, unanswered, to its holder
    answer = await desk.run_relayed(update.table, update.data)
    await rt.cluster.answer(update.data.get("reply"), answer)
