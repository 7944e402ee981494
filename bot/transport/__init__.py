"""Telegram's transport: every request paced per chat, every update received and kept.

* ``request`` — PTB's network layer on aiohttp; getUpdates hands its updates to the inbox
  before PTB sees them; ``extbot`` — PTB's ``ExtBot``, reading each press from parts it
  has built before; ``webhook`` — the webhook's server and run loop; ``serving`` —
  running the application until a signal; ``ordering`` — updates of one table in order;
* ``pacing`` — each chat's budget (~1 message/s in private, ~20/min in a group; a 429
  concerns its own chat); ``sender`` — one slot per message, only the latest content
  sent; ``inline`` — inline messages (invitations) kept current by their inline id, each
  paced as a group's; ``sent`` — the bot's own messages in each chat; ``tgerrors`` —
  Telegram's answers read by their wording; ``tasks`` — the deliverers' background tasks.

May import: ``bot.render``, ``bot.service``, ``bot.base``, ``bot.store``, ``bot.ratings``.
Must not import the chat's views, the Mini App, the cluster or the wiring.
"""
