"""The Telegram chat's views of a table, and the handlers of what arrives from Telegram.

* ``handlers/`` — one PTB handler per command and button, by what the user is doing;
* ``presses`` — what a table's button means, whoever pressed it: the chat's keyboards
  and the Mini App's pages (same callback data) run :func:`~bot.chat.presses.run_press`;
* ``common`` — what the handlers and the presses share: refusal texts, rights, answering
  a press, languages, a player's tables across processes, the computer players;
* ``presenter`` — which screens to draw after a change: the group's table, each private
  hand, the end, the clocks; ``ingroup`` — hands as ephemeral messages in the group;
* ``replays`` — replay messages and the coach's notes in the private chat;
* ``quick`` — quick games: /quick, the waiting message, the passes over the queue, the
  reactions and blocks at private tables; ``invites`` — invitations into any chat through
  inline mode (and guest mode): the results offered, their Join, Leave, Start, Rematch;
* ``tourneys`` — tournaments in a group: the standings joined to each game's end, the
  next deal after a pause (at start-up and on a shard taken over too), an early end, a stop;
* ``menus`` — the command menus and descriptions; ``chart`` — the /me chart's worker;
* ``runtime`` — what the handlers, the pages and the processes share at run time.

May import: ``bot.transport``, ``bot.render``, ``bot.service``, ``bot.base``, ``bot.store``,
``bot.ratings`` and the engine. Must not import the Mini App, the cluster or the wiring:
they build on this (a tap on a page redraws the chat through the presenter).
"""
