"""What every layer above storage uses.

* ``config`` — the settings: one pydantic-settings model read from the environment;
* ``i18n`` — the message catalogs (``locales/``), plural forms, the choice of language;
* ``lifeline`` — a worker process's life tied to the bot's (standard library only);
* ``collector`` — the garbage collector's full passes made rare (standard library only);
* ``loops`` — the event loop an object works on, found once (standard library only).

May import: ``bot.store`` (its database settings: ``bot.store.config``), ``bot.ratings``
and the engine. Must not import any layer above.
"""
