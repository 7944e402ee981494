"""The Mini App's server side: the table as a web page inside Telegram, live for everyone.

The chat messages stay as they are; the page is another view of the same table, pushed
over its own WebSocket instead of Telegram's paced messages. Split by concept:

* ``auth`` — who opened the page: Telegram's init data, checked (its start token and
  links are the service's, :mod:`bot.service.links`);
* ``frames`` — what a page may send, read at the boundary, and the answers;
* ``state`` — the ``state`` frame: a table as one viewer may see it;
* ``hub`` — the open pages of each table, told of every change by the presenter;
* ``presses`` — a page's taps, run through the chat's own button code;
* ``server`` — the HTTP server: the page, its files and the socket, with their limits.

The wire protocol between the server and the page is ``PROTOCOL.md`` beside this file.

May import: the chat's views (a tap also redraws the chat, through the presenter and the
chat's own presses), ``bot.transport``, ``bot.render``, ``bot.service``, ``bot.base``,
``bot.store``. Must not import the cluster: a press relayed to another process goes
through the runtime's :class:`~bot.chat.runtime.Cluster`.
"""
