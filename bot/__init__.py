"""Durak for Telegram groups. Each folder is a layer; a layer imports only those below it
(``tests/ship/test_layers.py`` holds the order and checks every import). From the top:

* this folder's modules — the programs and the wiring: ``python -m bot`` (``__main__``),
  the PTB Application (``app``), start-up and shut-down (``lifecycle``: settings ->
  store -> service -> views -> transport), README's generated parts (``transcript``),
  ``python -m bot.rerate --rebuild`` (``rerate``);
* ``cluster/`` — several processes on one PostgreSQL database: shards, leases, relays;
* ``webapp/`` — the Mini App: the table as a live web page, a view over the chat's;
* ``chat/`` — the Telegram chat's views: the handlers of updates, the presenter (the
  group's table, private hands, clocks), in-group hands, what a press means, replays;
* ``transport/`` — Telegram's transport: requests paced per chat, updates received;
* ``render/`` — texts and buttons from what a viewer may see, pure;
* ``service/`` — the table service: tables under their locks, the callback codec, the
  inbox of kept updates, replays and the coach, the views' interface;
* ``base/`` — the settings, the words (i18n and catalogs), a worker's lifeline;
* ``store/`` — storage, SQLite or PostgreSQL; ``ratings/`` — the rating model, pure.

Below them all is ``engine/``, the rules, which imports nothing of the bot.
"""
