"""What every handler shares: what a refusal says, who may manage a table, answering
a press, the languages of users and groups.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from telegram import (
    Bot,
    CallbackQuery,
    Chat,
    Message,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import (
    ContextTypes,
)

from bot import render as r
from bot.base.i18n import Lang, pick_lang, tr
from bot.chat.presenter import AI_LEVELS, Presenter
from bot.chat.runtime import Runtime, runtime
from bot.service import callbacks as cb
from bot.service.inbox import handled_update
from bot.service.tables import Live, Refused
from bot.store import ChatRow, Seat, TableStatus, UserRow, is_private_chat, shard_of
from bot.transport import tgerrors
from bot.transport.request import call
from bot.transport.sender import Content
from engine import Rules

log = logging.getLogger(__name__)


ANSWER_TIMEOUT = 2.0
"""Seconds to wait for Telegram's answer to a callback answer before trying again."""

EARLIER_WAIT = 6.0
"""Seconds an update waits for an earlier one of its user's private chat (his /start):
longer than another process takes to take over the chat from one that died."""

EARLIER_LOOK = 0.05
"""Seconds between looks at whether that earlier update is done."""


# What each refusal or notice says: the catalog key, by the service's reason code.
SAYINGS: dict[str, str] = {
    "outdated": "cb.stale",
    "not_allowed": "lobby.alert.only_creator",
    "joined": "lobby.alert.joined",
    "joined_here": "lobby.alert.joined_here",
    "left": "lobby.alert.left",
    "already_seated": "lobby.alert.already_seated",
    "not_seated": "lobby.alert.not_seated",
    "table_full": "lobby.alert.full",
    "game_running": "lobby.alert.game_running",
    "table_open": "lobby.alert.table_open",
    "rematch_old": "lobby.alert.rematch_old",
    "too_few_players": "lobby.alert.cant_start",
    "rules_do_not_fit": "lobby.alert.cant_start",
    "open_private": "lobby.alert.need_private",
    "no_game": "err.no_game",
    "no_table": "err.no_lobby",
    "group_only": "err.group_only",
    "private_only": "err.private_only",
    "gone": "cb.no_table",
    "table_gone": "cb.no_table",
    "not_yours": "cb.not_your_game",
    "not_your_seat": "cb.not_your_game",
    "malformed": "cb.malformed",
    "expired": "lobby.alert.expired",
    "replay_none": "replay.alert.none",
    "replay_running": "replay.alert.running",
    "replay_broken": "replay.alert.broken",
    "replay_not_yours": "replay.alert.not_yours",
    "replay_sent": "replay.alert.sent",
    "replay_end": "replay.alert.end",
    "solo_only": "solo.alert.only_you",
    "as_channel": "err.as_channel",
    "no_solo": "solo.none",
    "tourney_running": "tourney.alert.running",
}


READ_THIS = frozenset({"too_few_players", "rules_do_not_fit"})
"""Refusals shown as an alert the player must dismiss: why the game cannot start."""


def say(lang: Lang, reason: str, **params: object) -> str:
    """What to tell a user for a reason code: an engine refusal (``illegal.<code>``), a
    service refusal, or a notice."""
    if reason.startswith("illegal."):
        return r.alert(lang, reason.removeprefix("illegal."))
    key = SAYINGS.get(reason)
    if key is None:
        return tr(lang, "err.generic")
    if key == "lobby.alert.cant_start":
        params.setdefault("problem", params.pop("detail", ""))
    if key == "lobby.alert.full":
        params.setdefault("max", 6)
    try:
        return tr(lang, key, **params)
    except (KeyError, IndexError, ValueError):
        return tr(lang, "err.generic")


def refusal_text(lang: Lang, exc: Refused) -> str:
    return say(lang, exc.reason, **exc.params)


def presenter_of(context: ContextTypes.DEFAULT_TYPE) -> Presenter:
    found = runtime(context).extras["presenter"]
    assert isinstance(found, Presenter)
    return found


def display_name(user: User) -> str:
    return user.full_name or user.username or str(user.id)


async def remember(
    rt: Runtime,
    user: User,
    *,
    started: bool | None = None,
    language: str | None = None,
    fresh: bool = False,
) -> UserRow:
    """Save the user's name (and whether we may write to him, and his /lang choice); his
    stored row. One user's updates in different chats run concurrently, so the read and
    the write happen under his lock, and a write that does not say whether we may write to
    him leaves that as the database has it: a /start is never undone by a group command,
    not even one handled by another process. ``fresh``: read him from the database, not
    as this process last knew him."""
    assert rt.store is not None
    async with rt.user_lock(user.id):
        known = await rt.store.get_user(user.id, fresh=fresh)
        can = started if started is not None else (known.can_message if known else False)
        # his /lang choice if he made one, else the language of his Telegram app
        if language is None and known is not None and known.language:
            language = known.language
        if language is None and user.language_code:
            language = pick_lang(user.language_code)
        row = UserRow(user.id, display_name(user), language, can)
        if known != row:
            row = await rt.store.save_user(row, keep_can_message=started is None)
        return row


async def reachable(rt: Runtime, user: User, known: UserRow) -> UserRow:
    """``known`` (a user we may not write to, as far as we know) read again from the
    database, once what he did before in his private chat with the bot is done.

    He may have pressed Start there just before this update: Telegram numbered his /start
    first, but it may still be handled (here, concurrently, or by the process holding his
    private chat, which may be slow or just taking over from one that died), so this update
    waits for it, at most :data:`EARLIER_WAIT` seconds. And when another process handled
    it, what this one knows of him may be older than its news of the change."""
    if known.can_message or rt.store is None:
        return known
    handling = handled_update()
    if handling is not None and handling.update_id > 0:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + EARLIER_WAIT
        while await rt.store.earlier_private_update(user.id, handling.update_id):
            if loop.time() >= deadline:
                log.warning("user %s: an earlier update of his is still not done", user.id)
                break
            await asyncio.sleep(EARLIER_LOOK)
    return await remember(rt, user, fresh=True)


async def user_lang(rt: Runtime, user: User | None) -> Lang:
    """The language to speak to a user: his /lang choice, else his Telegram language."""
    if user is None:
        return pick_lang(None, rt.settings.default_language)
    assert rt.store is not None
    known = await rt.store.get_user(user.id)
    return pick_lang(user.language_code, known.language if known else None)


async def chat_lang(rt: Runtime, chat_id: int, user: User | None = None) -> Lang:
    """The language of a group: its /lang choice, else the language of whoever asks."""
    assert rt.store is not None
    row = await rt.store.get_chat(chat_id)
    code = user.language_code if user is not None else rt.settings.default_language
    return pick_lang(code, row.language if row else None)


async def lang_here(rt: Runtime, update: Update, chat: Chat) -> Lang:
    """The language to answer in: the user's in private, else the group's."""
    if chat.type == ChatType.PRIVATE:
        return await user_lang(rt, update.effective_user)
    return await chat_lang(rt, chat.id, update.effective_user)


async def is_admin(bot: Bot, chat_id: int, user_id: int) -> bool:
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def may_manage(
    context: ContextTypes.DEFAULT_TYPE, live: Live, user_id: int, message: Message | None = None
) -> bool:
    """:func:`may_manage_as` for a handler's update."""
    return await may_manage_as(runtime(context), context.bot, live, user_id, message)


async def may_manage_as(
    rt: Runtime, bot: Bot, live: Live, user_id: int, message: Message | None = None
) -> bool:
    """The lobby's creator or a group admin may change settings, start and cancel; a
    command (``message``) posted as the group comes from an anonymous admin. A game against
    the computer is its player's alone."""
    if live.solo:
        return live.row.creator_id == user_id
    if message is not None and anonymous_admin(message, live.row.chat_id):
        return True
    if live.row.creator_id == user_id or user_id in rt.settings.admin_ids:
        return True
    return await is_admin(bot, live.row.chat_id, user_id)


def anonymous_admin(message: Message, chat_id: int) -> bool:
    """A command sent by an admin who posts as the group itself (GroupAnonymousBot): only
    admins can, so he is one; who he is stays hidden."""
    return message.sender_chat is not None and message.sender_chat.id == chat_id


async def answer(query: CallbackQuery, text: str | None = None, *, alert: bool = False) -> None:
    """Answer a press (free of any limit). A network failure is tried again twice: the
    spinner on the player's button stops only with an answer."""
    for attempt in range(3):
        try:
            # the thin path: PTB's answer_callback_query would build its request objects
            # for a True nobody reads
            params = {"callback_query_id": query.id, "text": text, "show_alert": alert}
            await call(
                query.get_bot(),
                "answerCallbackQuery",
                params,
                read_timeout=ANSWER_TIMEOUT,
                result=False,
            )
            return
        except TelegramError as exc:
            if not tgerrors.is_transient(exc) or attempt == 2:
                # too old, or answered already (maybe by a try that timed out)
                log.debug("callback answer refused: %s", exc)
                return
            await asyncio.sleep(0.2 * (attempt + 1))


def reply(
    rt: Runtime,
    message: Message,
    text: str,
    *,
    keyboard: r.Keyboard | None = None,
    html: bool = False,
) -> None:
    """Answer a command where it was sent (in its topic; in a group, quoting it). The
    answer goes through the publisher like every other message of the bot: paced in its
    chat, and tried again after a network failure, so it is never lost to one. ``text`` is
    plain unless ``html``."""
    chat = message.chat
    rt.out.post(
        chat.id,
        Content(text if html else r.esc(text), keyboard),
        thread_id=message.message_thread_id if message.is_topic_message else None,
        reply_to=message.message_id if chat.type != ChatType.PRIVATE else None,
    )


def answer_soon(context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery) -> None:
    """Answer a press without making the redraw that follows wait for it."""
    context.application.create_task(answer(query), name="answer")


def is_stray(rt: Runtime, query: CallbackQuery, shown: int | None) -> bool:
    """Whether the press came from a copy that is not the message the bot keeps current
    (a send that timed out and arrived anyway, an old copy): its buttons are taken off."""
    message = query.message
    if message is None or shown is None or message.message_id == shown:
        return False
    rt.out.strip(message.chat.id, message.message_id)
    return True


async def default_rules(rt: Runtime, chat_id: int, fallback: Rules | None = None) -> Rules:
    """The chat's last used rules (a group's; a private chat's are its player's for his
    games against the computer), else ``fallback``, else the operator's default rules."""
    assert rt.store is not None
    row = await rt.store.get_chat(chat_id)
    if row is not None and row.default_rules:
        try:
            return Rules.model_validate_json(row.default_rules)
        except ValueError:
            log.warning("chat %s: stored default rules unreadable", chat_id)
    return fallback if fallback is not None else rt.settings.default_rules


async def group_table(
    update: Update, context: ContextTypes.DEFAULT_TYPE
) -> tuple[Message, User, Lang, Live] | None:
    """For a group command about the open table: the message, its sender, the group's
    language and the table of this chat or topic (None, after saying so, if there is none)."""
    rt = runtime(context)
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return None
    thread = message.message_thread_id if message.is_topic_message else None
    lang = await chat_lang(rt, chat.id, user)
    live = await rt.tables.open_table(chat.id, thread)
    if live is None:
        reply(rt, message, say(lang, "no_table"))
        return None
    return message, user, lang, live


async def set_option(
    rt: Runtime,
    presenter: Presenter,
    live: Live,
    decoded: cb.SetOption,
    lang: Lang,
) -> None:
    """Change one of a lobby's rules, remember them as the chat's rules for its next table
    (a private chat's: its player's for his next game against the computer), and show the
    option's page again."""
    try:
        rules = r.apply_setting(live.rules, decoded.option, decoded.value)
    except r.SettingError:
        raise Refused("bad_setting") from None
    await rt.tables.set_rules(live, rules, decoded.version)
    assert rt.store is not None
    row = await rt.store.get_chat(live.row.chat_id)
    await rt.store.save_chat(
        ChatRow(
            live.row.chat_id,
            row.language if row else None,
            rules.model_dump_json(),
            row.thread_id if row else live.row.thread_id,
        )
    )
    presenter.show_lobby_page(live, cb.Option(live.table_id, live.version, decoded.option), lang)


BACK = "back"
"""Send a player his hand anew (``data["user"]``)."""


async def playing_tables(rt: Runtime, user_id: int) -> tuple[list[Live], int]:
    """The running tables ``user_id`` sits at that this process holds, and how many more
    other processes hold: each of those is asked to send him his hand anew."""
    if rt.cluster is None:
        return rt.tables.playing_at(user_id), 0
    assert rt.store is not None and rt.inbox is not None
    here, elsewhere = [], 0
    for table_id, chat_id in await rt.store.playing_tables_of(user_id):
        if rt.cluster.holds_chat(chat_id):
            live = await rt.tables.get(table_id)
            if live is not None and live.row.status == TableStatus.PLAYING:
                here.append(live)
        else:
            await rt.inbox.relay(BACK, table_id, shard_of(chat_id), user=user_id)
            elsewhere += 1
    return here, elsewhere


def computers(lang: Lang, count: int, level: int) -> tuple[Seat, ...]:
    """``count`` computer players of one level, named Computer 1, 2, ..."""
    return tuple(
        Seat.computer(tr(lang, "ai.name", n=i), AI_LEVELS[level]) for i in range(1, count + 1)
    )


async def private_table_of(rt: Runtime, user_id: int) -> Live | None:
    """The private table (a quick game, an invitation's) where he plays now, if any."""
    assert rt.store is not None
    for table_id, chat_id in await rt.store.playing_tables_of(user_id):
        if is_private_chat(chat_id):
            return await rt.tables.get(table_id)
    return None


def held_shard(rt: Runtime, users: Sequence[int]) -> int:
    """A shard this process holds to open these players' private table in: a player's own
    if it is held here (his presses come here first), else any held."""
    cluster = rt.cluster
    if cluster is None:
        return shard_of(users[0])
    held = cluster.shards
    return next((shard_of(u) for u in users if shard_of(u) in held), held[0])
