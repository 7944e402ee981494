"""The table service, free of the views that show it.

* ``tables`` — every change to a table: under its lock, checked, saved in one store
  transaction, and only then told (:class:`~bot.service.tables.TableService`);
* ``callbacks`` — the callback data codec: what a button names, typed and signed;
* ``views`` — the interface through which the views beyond the chat learn of changes;
* ``inbox`` — every update kept before Telegram is told, done with the move it made;
  ``decoding`` — a press read into PTB's objects from a message and user built before;
* ``shards`` — :class:`~bot.service.shards.NotHere`, a table held by another process;
* ``links`` — the Mini App's start token naming a table, and the links that carry it;
* ``quick`` — the quick games' queue and how it pairs players; ``reactions`` — the quick
  reactions at private tables, one every few seconds;
* ``tourneys`` — tournaments: a game's points by the order players went out, and the
  standings of a tournament's games;
* ``replay`` — finished games dealt again from their seed and log; ``feats`` — what a
  game's log says of each seat, for the achievements; ``coach`` and
  ``coach_worker`` — reviews of a player's moves in worker processes.

May import: ``bot.base``, ``bot.store``, ``bot.ratings`` and the engine. Must not import
the renderers, the transport, the chat, the Mini App or the cluster.
"""
