"""Telegram handlers: commands, lobby and hand buttons, chat changes, clocks.

Each handler decodes what arrived, asks the table service to change the table (under the
table's lock), answers the user, and has the presenter redraw what changed. Every callback
query is answered exactly once, also when it is refused.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

from telegram import (
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    CallbackQuery,
    Chat,
    ChatMemberUpdated,
    InlineKeyboardMarkup,
    Message,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import callbacks as cb
from bot import render as r
from bot import tgerrors
from bot.app import Runtime, runtime
from bot.i18n import RUSSIAN_SPOKEN, Lang, pick_lang, tr
from bot.ordering import default_key
from bot.pacing import Pacer
from bot.presenter import AI_LEVELS, Presenter
from bot.sender import Content, Publisher
from bot.store import ChatRow, Seat, SqliteStore, TableStatus, UserRow
from bot.tables import Live, Refused, TableService
from engine import Rules
from engine.actions import Action

__all__ = ["install", "post_init", "post_shutdown", "post_stop"]

log = logging.getLogger(__name__)

ANSWER_TIMEOUT = 2.0
"""Seconds to wait for Telegram's answer to a callback answer before trying again."""

HAND_KINDS = (
    cb.Tap,
    cb.Select,
    cb.Toggle,
    cb.Play,
    cb.CoverWith,
    cb.Throw,
    cb.Take,
    cb.Pass,
    cb.Transfer,
    cb.ShowTrump,
    cb.SwapTrump,
    cb.PokerSwap,
    cb.Cancel,
    cb.Refresh,
)


# What each refusal or notice says: the catalog key, by the service's reason code.
SAYINGS: dict[str, str] = {
    "outdated": "cb.stale",
    "not_allowed": "lobby.alert.only_creator",
    "joined": "lobby.alert.joined",
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
    "gone": "cb.no_table",
    "table_gone": "cb.no_table",
    "not_yours": "cb.not_your_game",
    "not_your_seat": "cb.not_your_game",
    "malformed": "cb.malformed",
    "expired": "lobby.alert.expired",
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


# ---------------------------------------------------------------- wiring


def install(app: Application, rt: Runtime) -> None:  # type: ignore[type-arg]
    """Register every handler."""
    group = filters.ChatType.GROUPS
    private = filters.ChatType.PRIVATE
    app.add_handler(TypeHandler(Update, note_chat), group=-1)
    app.add_handler(CommandHandler("newgame", cmd_newgame, filters=group))
    app.add_handler(CommandHandler("leave", cmd_leave, filters=group))
    app.add_handler(CommandHandler("cancel", cmd_cancel, filters=group))
    app.add_handler(CommandHandler("stats", cmd_stats))
    app.add_handler(CommandHandler("rules", cmd_rules))
    app.add_handler(CommandHandler("help", cmd_help))
    app.add_handler(CommandHandler("lang", cmd_lang))
    app.add_handler(CommandHandler("start", cmd_start, filters=private))
    app.add_handler(CommandHandler("hand", cmd_hand, filters=private))
    app.add_handler(CommandHandler(["newgame", "leave", "cancel"], cmd_group_only, filters=private))
    app.add_handler(CallbackQueryHandler(on_button))
    app.add_handler(ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_error_handler(on_error)
    rt.order.set_key(lambda update: _order_key(rt, update))


async def note_chat(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every update from a group: remember its title (the hands name their group)."""
    chat = update.effective_chat
    if (
        chat is not None
        and chat.type != ChatType.PRIVATE
        and "presenter" in runtime(context).extras
    ):
        _presenter(context).note_title(chat.id, chat.title)


def _order_key(rt: Runtime, update: object) -> object:
    """Updates of one table run in order: a button names its table; anything else is keyed
    by its chat."""
    if isinstance(update, Update) and update.callback_query is not None:
        try:
            decoded = rt.codec.decode(update.callback_query.data)
        except cb.BadCallback:
            return None
        table = getattr(decoded, "table", None)
        if isinstance(table, int):
            return ("table", table)
    return default_key(update)


async def post_init(app: Application) -> None:  # type: ignore[type-arg]
    """Open the store, load running games, redraw them and set their clocks again."""
    rt: Runtime = app.bot_data["runtime"]
    rt.store = await SqliteStore.open(rt.settings.db_path)
    me = await app.bot.get_me()
    rt.bot_username = me.username or ""
    presenter = Presenter(rt, app)
    rt.extras["presenter"] = presenter
    rt.publisher = Publisher(
        app.bot,
        timeout=rt.settings.api_timeout,
        on_blocked=presenter.on_blocked,
        on_migrated=presenter.on_migrated,
    )
    rt.service = TableService(rt.store)
    await _set_commands(app)
    pacer = app.bot.rate_limiter if isinstance(app.bot.rate_limiter, Pacer) else None
    for live in await rt.service.load_running():
        if pacer is not None:
            # the process before may have spent these chats' bursts just now
            for chat in (live.row.chat_id, *(s.user_id for s in live.row.seats if s.user_id)):
                pacer.assume_spent(chat)
        presenter.adopt_messages(live)
        await presenter.redraw(live, [])
        log.info("table %s: game resumed", live.table_id)
    if app.job_queue is not None:
        app.job_queue.run_repeating(purge_lobbies, interval=3600, first=60, name="purge")


async def purge_lobbies(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Remove lobbies nobody started within a day; their messages say they expired."""
    rt = runtime(context)
    assert rt.store is not None
    for row in await rt.store.purge_stale_lobbies():
        rt.tables.forget(row.table_id)
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
    """Deliver what is pending while the connection to Telegram is still open."""
    rt: Runtime = app.bot_data["runtime"]
    if rt.publisher is not None:
        await rt.publisher.close()


async def post_shutdown(app: Application) -> None:  # type: ignore[type-arg]
    """Close the store."""
    rt: Runtime = app.bot_data["runtime"]
    if rt.store is not None:
        await rt.store.close()


MENU_LANGUAGES: Final = (None, *sorted(RUSSIAN_SPOKEN), "en")
"""The language codes the command menus and descriptions are set for: the default (None,
English), every language answered in Russian (uk, be, kk...), and English itself."""


async def _set_commands(app: Application) -> None:  # type: ignore[type-arg]
    """The command menus of both scopes and the bot's descriptions, per language."""
    for code in MENU_LANGUAGES:
        lang = pick_lang(code)
        for scope, telegram_scope in (
            ("group", BotCommandScopeAllGroupChats()),
            ("private", BotCommandScopeAllPrivateChats()),
        ):
            commands = r.bot_commands(lang, scope)  # type: ignore[arg-type]
            try:
                await app.bot.set_my_commands(commands, scope=telegram_scope, language_code=code)
            except TelegramError as exc:
                log.warning("could not set the %s %s commands: %s", code, scope, exc)
        try:
            await app.bot.set_my_description(tr(lang, "about.description"), language_code=code)
            await app.bot.set_my_short_description(tr(lang, "about.short"), language_code=code)
        except TelegramError as exc:
            log.warning("could not set the %s descriptions: %s", code, exc)


def _presenter(context: ContextTypes.DEFAULT_TYPE) -> Presenter:
    found = runtime(context).extras["presenter"]
    assert isinstance(found, Presenter)
    return found


# ---------------------------------------------------------------- who is who


def _name(user: User) -> str:
    return user.full_name or user.username or str(user.id)


async def _remember(
    rt: Runtime, user: User, *, started: bool | None = None, language: str | None = None
) -> UserRow:
    """Save the user's name (and whether we may write to him, and his /lang choice); his
    stored row. One user's updates in different chats run concurrently, so the read and
    the write happen under his lock: a /start is never undone by a group command."""
    assert rt.store is not None
    async with rt.user_lock(user.id):
        known = await rt.store.get_user(user.id)
        can = started if started is not None else (known.can_message if known else False)
        # his /lang choice if he made one, else the language of his Telegram app
        if language is None and known is not None and known.language:
            language = known.language
        if language is None and user.language_code:
            language = pick_lang(user.language_code)
        row = UserRow(user.id, _name(user), language, can)
        if known != row:
            await rt.store.save_user(row)
        return row


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


async def _lang_here(rt: Runtime, update: Update, chat: Chat) -> Lang:
    """The language to answer in: the user's in private, else the group's."""
    if chat.type == ChatType.PRIVATE:
        return await user_lang(rt, update.effective_user)
    return await chat_lang(rt, chat.id, update.effective_user)


async def _is_admin(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def _may_manage(context: ContextTypes.DEFAULT_TYPE, live: Live, user_id: int) -> bool:
    """The lobby's creator or a group admin may change settings, start and cancel."""
    if live.row.creator_id == user_id or user_id in runtime(context).settings.admin_ids:
        return True
    return await _is_admin(context, live.row.chat_id, user_id)


# ---------------------------------------------------------------- commands


async def cmd_newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Open a lobby in this group or topic (or point to the one that is open)."""
    rt = runtime(context)
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    thread = message.message_thread_id if message.is_topic_message else None
    lang = await chat_lang(rt, chat.id, user)
    presenter = _presenter(context)
    async with rt.tables.lock(-chat.id):
        live = await rt.tables.open_table(chat.id, thread)
        if live is not None:
            presenter.repost(live)
            return
        rules = await _default_rules(rt, chat.id)
        chat_row = await rt.store.get_chat(chat.id) if rt.store else None
        if chat_row is None and rt.store is not None:
            await rt.store.save_chat(ChatRow(chat.id, lang, None, thread))
        if _anonymous_admin(message, chat.id):
            # posted as the group: nobody to seat; the admins run the lobby
            live = await rt.tables.create(chat.id, thread, None, rules)
            await presenter.redraw(live, [])
            return
        known = await _remember(rt, user)
        creator = Seat.human(user.id, known.name)
        live = await rt.tables.create(chat.id, thread, creator, rules)
        if not known.can_message:
            await rt.tables.leave_lobby(live, user.id)
            rt.out.post(
                chat.id,
                Content.of(
                    r.render_need_private(
                        lang, rt.bot_username, live.table_id, known.name, rt.codec
                    )
                ),
                thread_id=thread,
            )
    await presenter.redraw(live, [])


async def _default_rules(rt: Runtime, chat_id: int) -> Rules:
    """The group's last used rules, else the operator's default rules."""
    assert rt.store is not None
    row = await rt.store.get_chat(chat_id)
    if row is not None and row.default_rules:
        try:
            return Rules.model_validate_json(row.default_rules)
        except ValueError:
            log.warning("chat %s: stored default rules unreadable", chat_id)
    return rt.settings.default_rules


async def _group_table(
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
        await message.reply_text(say(lang, "no_table"))
        return None
    return message, user, lang, live


async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Leave the lobby; during a game, surrender (he is durak)."""
    rt = runtime(context)
    found = await _group_table(update, context)
    if found is None:
        return
    message, user, lang, live = found
    async with live.lock:
        try:
            if live.row.status == TableStatus.PLAYING:
                events = await rt.tables.resign(live, user.id)
                await _presenter(context).after_action(live, events, surrendered_by=user.id)
                return
            await rt.tables.leave_lobby(live, user.id)
        except Refused as exc:
            await message.reply_text(say(lang, exc.reason, **exc.params))
            return
    await _presenter(context).redraw(live, [])


async def cmd_cancel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Abort the lobby or game with no tally (the creator or an admin)."""
    rt = runtime(context)
    found = await _group_table(update, context)
    if found is None:
        return
    message, user, lang, live = found
    anonymous = _anonymous_admin(message, live.row.chat_id)
    if not anonymous and not await _may_manage(context, live, user.id):
        await message.reply_text(say(lang, "not_allowed"))
        return
    async with live.lock:
        lobby = live.row.status == TableStatus.LOBBY
        try:
            await rt.tables.cancel(live)
        except Refused as exc:
            await message.reply_text(say(lang, exc.reason, **exc.params))
            return
    by = None if anonymous else _name(user)
    await _presenter(context).cancelled(live, by, lobby=lobby)


def _anonymous_admin(message: Message, chat_id: int) -> bool:
    """A command sent by an admin who posts as the group itself (GroupAnonymousBot): only
    admins can, so he is one; who he is stays hidden."""
    return message.sender_chat is not None and message.sender_chat.id == chat_id


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The group's series: games, times durak, pogony, draws, points."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None or rt.store is None:
        return
    if chat.type == ChatType.PRIVATE:
        lang = await user_lang(rt, update.effective_user)
        rows = await rt.store.player_tallies(chat.id)
        presenter = _presenter(context)
        titles = {row.chat_id: await presenter.title(row.chat_id) for row in rows}
        await message.reply_html(r.render_player_stats(rows, titles, lang))
        return
    lang = await chat_lang(rt, chat.id, update.effective_user)
    rows = await rt.store.chat_stats(chat.id)
    await message.reply_html(r.render_stats(rows, lang, chat.title or ""))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The rules of the open table (or the group's default) in words."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    if chat.type == ChatType.PRIVATE:
        lang = await user_lang(rt, update.effective_user)
        await message.reply_html(r.render_rules(rt.settings.default_rules, lang))
        return
    lang = await chat_lang(rt, chat.id, update.effective_user)
    thread = message.message_thread_id if message.is_topic_message else None
    live = await rt.tables.open_table(chat.id, thread)
    rules = live.rules if live is not None else await _default_rules(rt, chat.id)
    await message.reply_html(r.render_rules(rules, lang))


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """How to play with the bot."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    private = chat.type == ChatType.PRIVATE
    lang = await _lang_here(rt, update, chat)
    await message.reply_html(r.render_help(lang, "private" if private else "group"))


async def cmd_lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Choose the language (of the group, or of the user in private)."""
    rt = runtime(context)
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    lang = await _lang_here(rt, update, chat)
    if chat.type != ChatType.PRIVATE and not await _may_set_group_lang(context, chat.id, update):
        await message.reply_text(tr(lang, "lang.not_allowed"))
        return
    text, markup = _screen(r.render_lang_picker(lang, rt.codec))
    await message.reply_html(text, reply_markup=markup)


async def _may_set_group_lang(
    context: ContextTypes.DEFAULT_TYPE, chat_id: int, update: Update
) -> bool:
    """A group's language is chosen by an admin (anonymous ones too), the bot's
    operators, or the creator of the table open there."""
    rt = runtime(context)
    user = update.effective_user
    message = update.effective_message
    if message is not None and message.sender_chat is not None:
        return message.sender_chat.id == chat_id  # an anonymous admin of this group
    if user is None:
        return False
    if user.id in rt.settings.admin_ids:
        return True
    assert rt.store is not None
    if any(row.creator_id == user.id for row in await rt.store.chat_tables(chat_id)):
        return True
    return await _is_admin(context, chat_id, user.id)


async def cmd_group_only(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Group commands sent in private: say where they belong."""
    rt = runtime(context)
    if update.effective_message is not None:
        lang = await user_lang(rt, update.effective_user)
        await update.effective_message.reply_text(say(lang, "group_only"))


async def cmd_hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /hand: send his cards again, at the bottom of the chat."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    await _remember(rt, user, started=True)
    tables = rt.tables.playing_at(user.id)
    for live in tables:
        _presenter(context).back(live, user.id)
    if not tables:
        await message.reply_text(say(await user_lang(rt, user), "no_game"))


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /start: remember that we may write; with a join payload, seat the user."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    known = await _remember(rt, user, started=True)
    lang = await user_lang(rt, user)
    if context.args:
        try:
            table_id = rt.codec.parse_join_payload(context.args[0])
        except cb.BadCallback:
            table_id = None
        if table_id is not None:
            live = await rt.tables.get(table_id)
            if live is not None and live.seat_of(user.id) is not None:
                if live.row.status == TableStatus.PLAYING:
                    _presenter(context).back(live, user.id)  # back from a blocked chat
                else:
                    await message.reply_text(say(lang, "already_seated"))
                return
            if live is not None:
                async with live.lock:
                    try:
                        await rt.tables.join(live, Seat.human(user.id, known.name))
                    except Refused as exc:
                        await message.reply_text(say(lang, exc.reason, **exc.params))
                        if exc.reason != "already_seated":
                            return
                await _presenter(context).redraw(live, [])
                await message.reply_text(say(lang, "joined"))
                return
    for live in rt.tables.playing_at(user.id):
        _presenter(context).back(live, user.id)  # his cards, if a game waited for him
    text, markup = _screen(r.render_start(lang, rt.bot_username))
    await message.reply_html(text, reply_markup=markup)


# ---------------------------------------------------------------- buttons


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every inline button: decode, check, act, answer exactly once."""
    rt = runtime(context)
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    lang = await user_lang(rt, user)
    try:
        decoded = rt.codec.decode(query.data)
    except cb.BadCallback:
        await _answer(query, say(lang, "malformed"))
        return
    if isinstance(decoded, cb.SetLang):
        await _set_lang(context, rt, update, query, decoded.lang)
        return
    live = await rt.tables.get(decoded.table)
    if live is None:
        await _answer(query, say(lang, "gone"))
        return
    presenter = _presenter(context)
    try:
        if isinstance(decoded, HAND_KINDS):
            await _hand_button(context, rt, presenter, live, query, decoded, lang)
        else:
            await _table_button(context, rt, presenter, live, query, decoded, lang)
    except Refused as exc:
        # routine refusals are a short toast; an alert only where there is more to read
        await _answer(query, _refusal_text(lang, exc), alert=exc.reason in READ_THIS)
        if exc.reason == "outdated":
            presenter.redraw_for(live, user.id)


def _refusal_text(lang: Lang, exc: Refused) -> str:
    return say(lang, exc.reason, **exc.params)


async def _answer(query: CallbackQuery, text: str | None = None, *, alert: bool = False) -> None:
    """Answer a press (free of any limit). A network failure is tried again twice: the
    spinner on the player's button stops only with an answer."""
    for attempt in range(3):
        try:
            await query.answer(text, show_alert=alert, read_timeout=ANSWER_TIMEOUT)
            return
        except TelegramError as exc:
            if not tgerrors.is_transient(exc) or attempt == 2:
                # too old, or answered already (maybe by a try that timed out)
                log.debug("callback answer refused: %s", exc)
                return
            await asyncio.sleep(0.2 * (attempt + 1))


def _answer_soon(context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery) -> None:
    """Answer a press without making the redraw that follows wait for it."""
    context.application.create_task(_answer(query), name="answer")


def _stray(rt: Runtime, query: CallbackQuery, shown: int | None) -> bool:
    """Whether the press came from a copy that is not the message the bot keeps current
    (a send that timed out and arrived anyway, an old copy): its buttons are taken off."""
    message = query.message
    if message is None or shown is None or message.message_id == shown:
        return False
    rt.out.strip(message.chat.id, message.message_id)
    return True


async def _set_lang(
    context: ContextTypes.DEFAULT_TYPE, rt: Runtime, update: Update, query: CallbackQuery, lang: str
) -> None:
    assert rt.store is not None
    message = query.message
    chat_id = message.chat.id if message is not None else query.from_user.id
    if chat_id > 0:
        await _remember(rt, query.from_user, language=lang)
    else:
        if not await _may_set_group_lang(context, chat_id, update):
            here = await chat_lang(rt, chat_id, query.from_user)
            await _answer(query, tr(here, "lang.not_allowed"))
            return
        row = await rt.store.get_chat(chat_id)
        await rt.store.save_chat(
            ChatRow(
                chat_id, lang, row.default_rules if row else None, row.thread_id if row else None
            )
        )
    chosen = pick_lang(lang)
    await _answer(query, tr(chosen, "lang.set", name=tr(chosen, f"lang.name.{chosen}")))
    if message is not None:
        # the picker now marks the language chosen, and speaks it
        key = ("lang", chat_id, message.message_id)
        screen = r.render_lang_picker(chosen, rt.codec)
        rt.out.show(key, chat_id, Content.of(screen), message_id=message.message_id)
        rt.out.retire(key)


async def _table_button(
    context: ContextTypes.DEFAULT_TYPE,
    rt: Runtime,
    presenter: Presenter,
    live: Live,
    query: CallbackQuery,
    decoded: cb.Callback,
    lang: Lang,
) -> None:
    user = query.from_user
    group_lang = await chat_lang(rt, live.row.chat_id)
    async with live.lock:
        if not isinstance(decoded, cb.Rematch) and _stray(rt, query, live.row.group_message_id):
            raise Refused("outdated")
        if isinstance(decoded, cb.Join):
            known = await _remember(rt, user)
            if not known.can_message:
                link = r.join_link(rt.bot_username, live.table_id, rt.codec)
                try:
                    await query.answer(url=link)
                except TelegramError:
                    await _answer(query, say(lang, "open_private"), alert=True)
                return
            if live.row.status == TableStatus.PLAYING and live.seat_of(user.id) is None:
                # an old Join during a game: tell him in private where to watch it
                await _answer(query, say(lang, "game_running"))
                title = query.message.chat.title if query.message is not None else None
                text = tr(lang, "lobby.running_dm", group=r.esc(title or ""))
                rt.out.post(user.id, Content(text))
                return
            await rt.tables.join(live, Seat.human(user.id, known.name), decoded.version)
            await _answer(query, say(lang, "joined"))
        elif isinstance(decoded, cb.Leave):
            await rt.tables.leave_lobby(live, user.id, decoded.version)
            await _answer(query, say(lang, "left"))
        elif isinstance(decoded, cb.Rematch):
            # anyone who sat at the table (or an admin) opens a lobby with the same seats;
            # one open table per group: only from the newest end, only with none open
            seated = live.seat_of(user.id) is not None
            if not seated and not await _may_manage(context, live, user.id):
                raise Refused("not_allowed")
            open_now = await rt.tables.open_table(live.row.chat_id, live.row.thread_id)
            if open_now is not None:
                presenter.repost(open_now)
                raise Refused("table_open")
            latest = await rt.tables.latest(live.row.chat_id, live.row.thread_id)
            if latest != live.table_id:
                raise Refused("rematch_old")
            await rt.tables.reopen(live, user.id, decoded.version)
            await _answer(query)
            presenter.rematch(live)
            return
        elif isinstance(decoded, cb.Start):
            if not await _may_manage(context, live, user.id):
                raise Refused("not_allowed")
            problem = r.lobby_problem(live.rules, len(live.row.seats), lang)
            if problem is not None:
                raise Refused("too_few_players", problem=problem)
            await rt.tables.start(live, decoded.version)
            await _answer(query)
            presenter.game_started(live)
            return
        elif isinstance(decoded, cb.Settings | cb.Option | cb.Lobby | cb.AiMenu):
            if decoded.version != live.version:
                raise Refused("outdated")
            if not isinstance(decoded, cb.Lobby) and not await _may_manage(context, live, user.id):
                raise Refused("not_allowed")
            await _answer(query)
            presenter.show_lobby_page(live, decoded, group_lang)
            return
        elif isinstance(decoded, cb.SetOption):
            if not await _may_manage(context, live, user.id):
                raise Refused("not_allowed")
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
            await _answer(query)
            presenter.show_lobby_page(
                live, cb.Option(live.table_id, live.version, decoded.option), group_lang
            )
            return
        elif isinstance(decoded, cb.AddAi):
            if not await _may_manage(context, live, user.id):
                raise Refused("not_allowed")
            if not 0 <= decoded.level < len(AI_LEVELS):
                raise Refused("outdated")
            number = 1 + sum(1 for seat in live.row.seats if seat.ai is not None)
            name = tr(group_lang, "ai.name", n=number)
            computer = Seat.computer(name, AI_LEVELS[decoded.level])
            await rt.tables.join(live, computer, decoded.version)
            await _answer(query, tr(lang, "lobby.alert.ai_added", name=name))
        elif isinstance(decoded, cb.Kick):
            if not await _may_manage(context, live, user.id):
                raise Refused("not_allowed")
            await rt.tables.remove_seat(live, decoded.seat, decoded.version)
            await _answer(query)
        else:
            raise Refused("outdated")
    await presenter.redraw(live, [])


async def _hand_button(
    context: ContextTypes.DEFAULT_TYPE,
    rt: Runtime,
    presenter: Presenter,
    live: Live,
    query: CallbackQuery,
    decoded: cb.HandCallback,
    lang: Lang,
) -> None:
    user = query.from_user
    async with live.lock:
        seat = live.seat_of(user.id)
        if seat is None:
            await _answer(query, say(lang, "not_yours"))
            return
        presenter.looked(live, user.id)
        stray = _stray(rt, query, presenter.hand_message(live, seat))
        game = live.game
        if stray and game is not None and live.row.status == TableStatus.PLAYING:
            await _answer(query, say(lang, "outdated"))
            presenter.redraw_for(live, user.id, fresh=True)
            return
        if game is None or live.row.status != TableStatus.PLAYING:
            finished = live.row.status == TableStatus.FINISHED
            await _answer(query, say(lang, "illegal.game_over" if finished else "gone"))
            return
        if decoded.version != live.version:
            raise Refused("outdated")
        view = game.view(seat)
        action: Action | None = None
        if isinstance(decoded, cb.Refresh | cb.Cancel):
            await _answer(query)
            presenter.redraw_for(live, user.id)
            return
        if isinstance(decoded, cb.Tap):
            resolved = r.resolve_tap(view, decoded.card)
            if resolved is None:
                raise Refused(f"illegal.{r.tap_refusal(view, decoded.card)}")
            if isinstance(resolved, r.Choice):
                await _answer(query)
                presenter.redraw_for(live, user.id, choice=resolved)
                return
            action = resolved
        elif isinstance(decoded, cb.Select):
            await _answer(query)
            presenter.redraw_for(live, user.id, selection=frozenset(), purpose=decoded.purpose)
            return
        elif isinstance(decoded, cb.Toggle):
            chosen = set(decoded.selection) ^ {decoded.card}
            await _answer(query)
            presenter.redraw_for(
                live, user.id, selection=frozenset(chosen), purpose=decoded.purpose
            )
            return
        elif isinstance(decoded, cb.Play):
            resolved = r.resolve_play(view, decoded.cards) if decoded.suits is None else None
            if isinstance(resolved, r.Choice):
                await _answer(query)
                presenter.redraw_for(live, user.id, choice=resolved)
                return
            action = resolved if resolved is not None else r.to_action(decoded, seat)
        else:
            action = r.to_action(decoded, seat)
        if action is None:
            raise Refused("outdated")
        events = await rt.tables.act(live, seat, action, decoded.version)
        _answer_soon(context, query)
        await presenter.after_action(live, events, actor=seat)


# ---------------------------------------------------------------- chats


async def on_my_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot was added to a group: a short greeting with how to start. It was removed:
    its table ends (no tally)."""
    rt = runtime(context)
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None:
        return
    status = change.new_chat_member.status
    present = (ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR)
    was = change.old_chat_member.status
    if (
        status in present
        and was in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED)
        and change.chat.type != ChatType.PRIVATE
    ):
        lang = await chat_lang(rt, change.chat.id, change.from_user)
        rt.out.post(change.chat.id, Content(tr(lang, "about.greeting")))
        return
    if status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        assert rt.store is not None
        for row in await rt.store.chat_tables(change.chat.id):
            live = await rt.tables.get(row.table_id)
            if live is None:
                continue
            async with live.lock:
                try:
                    await rt.tables.cancel(live)
                except Refused:
                    continue
            await _presenter(context).removed(live)
            log.info("table %s: ended, the bot left chat %s", live.table_id, change.chat.id)


async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: move its tables and tallies to the new id."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    await runtime(context).out.migrate(message.chat.id, message.migrate_to_chat_id)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log every unhandled error with the update that caused it."""
    log.error("error handling update %r", update, exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        await _answer(update.callback_query)


def _screen(screen: r.Screen) -> tuple[str, InlineKeyboardMarkup | None]:
    return screen.text, r.to_markup(screen.keyboard)
