"""The bot's presentation layer: pure functions from engine views to text and keyboards.

No I/O and no Telegram calls: every renderer takes a view (never the game), the players'
names, a language and a small context, and returns a :class:`Screen` (Telegram HTML text
and an optional :class:`Keyboard`); :func:`to_markup` turns a keyboard into PTB's markup.

May import: ``bot.service`` (the callback codec), ``bot.base`` (the words),
``bot.ratings`` and the engine. Must not import the transport or anything above it.
"""

from __future__ import annotations

from .achievements import (
    AchievementLike,
    achievement_title,
    earned_lines,
    me_achievement_lines,
)
from .common import (
    Button,
    Keyboard,
    Player,
    Screen,
    TableContext,
    card_text,
    esc,
    plain_clocks,
    seconds_until,
)
from .end import (
    EndContext,
    TallyLike,
    render_cancelled,
    render_end,
    render_player_stats,
    render_stats,
)
from .events import event_line, event_lines
from .hand import render_group_hand, render_hand
from .invite import (
    INVITE_GAMES,
    INVITE_SIZES,
    InviteSpec,
    invite_result,
    render_invitation,
    render_invitation_end,
    render_invitation_table,
)
from .lobby import (
    LobbyContext,
    join_link,
    lobby_problem,
    render_ai_picker,
    render_lobby,
    render_need_private,
    with_seats,
)
from .markup import reply_markup, to_markup
from .pages import render_option, render_settings
from .quick import render_found, render_looking
from .ratings import (
    MePage,
    best_and_worst,
    rating_text,
    render_me,
    render_season,
    render_season_over,
    render_top,
    season_name,
    top_keyboard,
)
from .replay import CoachNote, ReplayFrame, action_words, render_replay, replay_link
from .rules_text import game_title, render_rules, rules_summary
from .settings import (
    SettingError,
    apply_setting,
    offers,
    option_by_token,
    options,
    valid_values,
)
from .solo import SOLO_COUNTS, render_solo_lobby
from .table import render_table
from .tap import (
    Choice,
    leads_of,
    play_callback,
    resolve_play,
    resolve_tap,
    selectable,
    tap_refusal,
    to_action,
)
from .texts import (
    EPHEMERAL_COMMANDS,
    alert,
    bot_commands,
    callback_problem,
    render_blocked,
    render_help,
    render_lang_picker,
    render_nudge,
    render_start,
)
from .tourney import (
    TourneyView,
    points_text,
    render_tourney_stop,
    standings_lines,
    tourney_games_row,
    tourney_lobby_lines,
)

__all__ = [
    "EPHEMERAL_COMMANDS",
    "INVITE_GAMES",
    "INVITE_SIZES",
    "SOLO_COUNTS",
    "AchievementLike",
    "Button",
    "Choice",
    "CoachNote",
    "EndContext",
    "InviteSpec",
    "Keyboard",
    "LobbyContext",
    "MePage",
    "Player",
    "ReplayFrame",
    "Screen",
    "SettingError",
    "TableContext",
    "TallyLike",
    "TourneyView",
    "achievement_title",
    "action_words",
    "alert",
    "apply_setting",
    "best_and_worst",
    "bot_commands",
    "callback_problem",
    "card_text",
    "earned_lines",
    "esc",
    "event_line",
    "event_lines",
    "game_title",
    "invite_result",
    "join_link",
    "leads_of",
    "lobby_problem",
    "me_achievement_lines",
    "offers",
    "option_by_token",
    "options",
    "plain_clocks",
    "play_callback",
    "points_text",
    "rating_text",
    "render_ai_picker",
    "render_blocked",
    "render_cancelled",
    "render_end",
    "render_found",
    "render_group_hand",
    "render_hand",
    "render_help",
    "render_invitation",
    "render_invitation_end",
    "render_invitation_table",
    "render_lang_picker",
    "render_lobby",
    "render_looking",
    "render_me",
    "render_need_private",
    "render_nudge",
    "render_option",
    "render_player_stats",
    "render_replay",
    "render_rules",
    "render_season",
    "render_season_over",
    "render_settings",
    "render_solo_lobby",
    "render_start",
    "render_stats",
    "render_table",
    "render_top",
    "render_tourney_stop",
    "replay_link",
    "reply_markup",
    "resolve_play",
    "resolve_tap",
    "rules_summary",
    "season_name",
    "seconds_until",
    "selectable",
    "standings_lines",
    "tap_refusal",
    "to_action",
    "to_markup",
    "top_keyboard",
    "tourney_games_row",
    "tourney_lobby_lines",
    "valid_values",
    "with_seats",
]
