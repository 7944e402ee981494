"""Updates read into python-telegram-bot's objects, a press's from parts built before.

PTB builds a ``Message`` by setting each of its hundred and fifty attributes one by one,
through a check that the object is not frozen yet: for a pressed button, whose update is a
``CallbackQuery`` with the message it was pressed on and the user who pressed, that is
nearly all of the time it takes to read the update, at every move. Yet a player presses
the same message (his hand) again and again, and is the same user each time: once the
bot has trimmed what no handler reads (:func:`bot.transport.request.trim_update`: the
text, the keyboard), the message's JSON is the same at every press on it.

PTB's objects are frozen once built, so one ``Message`` and one ``User`` can serve every
update that carries exactly their JSON: :class:`UpdateReader` remembers the ones it built
(keyed by their JSON, so any difference builds a new one) and builds a press's
``CallbackQuery`` and ``Update`` around them with their constructors, as PTB's
``de_json`` does. Any other update, or a press with a field it does not know, is read by
PTB's ``Update.de_json`` as always.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

import orjson
from telegram import Bot, CallbackQuery, Message, TelegramObject, Update, User

__all__ = ["UpdateReader"]

_QUERY_FIELDS: Final = frozenset(
    {"id", "from", "message", "inline_message_id", "chat_instance", "data", "game_short_name"}
)
"""A callback query's fields (Bot API 10.0) that the fast way passes to the constructor;
any other goes into ``api_kwargs``, as PTB does with what it does not know."""
REMEMBERED: Final = 4096
"""How many messages (and users) are remembered; all are forgotten at once beyond that."""

_T = TypeVar("_T", bound=TelegramObject)


class UpdateReader:
    """Reads updates for one bot (see the module doc)."""

    __slots__ = ("_messages", "_users")

    def __init__(self) -> None:
        self._messages: dict[tuple[int, bytes], Message] = {}
        self._users: dict[tuple[int, bytes], User] = {}

    def read(self, data: dict[str, Any], bot: Bot | None) -> Update:
        """``data`` (an update's JSON, not changed) as PTB's :class:`Update`."""
        query = data.get("callback_query")
        if (
            len(data) != 2
            or not isinstance(query, dict)
            or not isinstance(data.get("update_id"), int)
        ):
            return Update.de_json(data, bot)
        sender, pressed = query.get("from"), query.get("message")
        if not isinstance(sender, dict) or not (pressed is None or isinstance(pressed, dict)):
            return Update.de_json(data, bot)
        message = (
            self._remembered(self._messages, pressed, Message, bot) if pressed is not None else None
        )
        extra = {k: v for k, v in query.items() if k not in _QUERY_FIELDS}
        try:
            built = CallbackQuery(
                id=query["id"],
                from_user=self._remembered(self._users, sender, User, bot),
                chat_instance=query["chat_instance"],
                message=message,
                data=query.get("data"),
                inline_message_id=query.get("inline_message_id"),
                game_short_name=query.get("game_short_name"),
                api_kwargs=extra or None,
            )
        except KeyError:
            return Update.de_json(data, bot)  # a field missing: as PTB reads (or fails) it
        built.set_bot(bot)
        update = Update(update_id=data["update_id"], callback_query=built)
        update.set_bot(bot)
        return update

    def _remembered(
        self,
        memo: dict[tuple[int, bytes], Any],
        data: dict[str, Any],
        kind: type[_T],
        bot: Bot | None,
    ) -> _T:
        # an object is the bot's it was built for: the bot is part of the key (and, held by
        # the objects remembered, its id is not reused while they are)
        key = (id(bot), orjson.dumps(data, option=orjson.OPT_SORT_KEYS))
        found = memo.get(key)
        if found is None:
            if len(memo) >= REMEMBERED:
                memo.clear()
            found = memo[key] = kind.de_json(data, bot)
        return found  # type: ignore[no-any-return]
