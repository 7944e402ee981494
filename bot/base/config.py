"""The bot's settings: one pydantic-settings model read from the environment and ``.env``.

Every setting is an environment variable named ``DURAK_<FIELD>`` (``DURAK_LOG_LEVEL``...),
except the token, ``BOT_TOKEN``. Environment variables win over ``.env`` in the working
directory. :func:`explain` turns a :class:`pydantic.ValidationError` into the one line the
bot prints when it refuses to start; README.md's configuration table is generated from the
fields' descriptions (``python -m bot.transcript``).
"""

from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.base.i18n import Lang
from bot.store.config import check_database_url, mask_url, url_secrets
from engine import PRESETS, Rules

__all__ = [
    "ENV_PREFIX",
    "PROGRAM",
    "SECRET_FIELDS",
    "SettingError",
    "Settings",
    "describe_settings",
    "env_name",
    "explain",
    "parse_rules",
]

PROGRAM = "durak-bot"
"""How the bot names itself in its start-up messages."""

ENV_PREFIX = "DURAK_"
"""Every setting but the token is read from ``DURAK_<FIELD NAME>``."""

SECRET_FIELDS = frozenset({"bot_token", "webhook_secret", "database_url"})
"""Settings whose values are never printed nor logged."""

_TOKEN_RE = re.compile(r"^[0-9]{1,20}:[A-Za-z0-9_-]{20,200}$")
_SECRET_RE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
_HOSTNAME_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$")
_SHORT_NAME_RE = re.compile(r"^[A-Za-z0-9_]{3,30}$")
TELEGRAM_BASE_URL = "https://api.telegram.org/bot"


class SettingError(ValueError):
    """A setting cannot be used. ``problem`` completes ``"<SETTING> is missing: "`` or
    ``"<SETTING> is invalid: "``; ``setting`` names the variable when the check spans
    several settings (a model validator has no field of its own)."""

    def __init__(self, problem: str, *, setting: str | None = None, missing: bool = False):
        super().__init__(problem)
        self.problem = problem
        self.setting = setting
        self.missing = missing


def parse_rules(value: object) -> Rules:
    """Default rules from a setting: a preset name (``perevodnoy``), a JSON object of
    :class:`engine.Rules` options (``{"game": "perevodnoy", "hand_size": 3}``), or empty
    for the engine's defaults. Raises :class:`SettingError` with a short reason."""
    if isinstance(value, Rules):
        return value
    if value is None or (isinstance(value, str) and not value.strip()):
        return Rules()
    data: object = value
    if isinstance(value, str):
        text = value.strip()
        if not text.startswith("{"):
            if text not in PRESETS:
                raise SettingError(
                    f"unknown preset {text!r}: use one of {', '.join(PRESETS)} "
                    'or a JSON object such as {"game": "perevodnoy", "hand_size": 6}'
                )
            return Rules.preset(text)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SettingError(f"not a preset name nor valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise SettingError("must be a preset name or a JSON object of rule options")
    try:
        return Rules.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise SettingError(f"not valid rules: {where + ': ' if where else ''}{message}") from None


class Settings(BaseSettings):
    """Every setting of the bot. Environment variables win over ``.env``."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
        populate_by_name=True,
    )

    bot_token: SecretStr = Field(
        validation_alias="BOT_TOKEN",
        description="The token @BotFather gave the bot (`123456789:AA...`). Required. "
        "Never logged.",
    )
    db_path: Path = Field(
        Path("durak.sqlite3"),
        validation_alias="DURAK_DB_PATH",
        description="The SQLite database file, created with its folder if missing. A "
        "relative path is taken from the working directory.",
    )
    database_url: SecretStr | None = Field(
        None,
        description="A PostgreSQL database to keep everything in instead of the SQLite file: "
        "`postgresql://user:password@host:5432/dbname` (the password is never logged). "
        "Empty: the SQLite file `DURAK_DB_PATH`. See "
        "[Moving to PostgreSQL](#moving-to-postgresql).",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        "INFO",
        description="How much the bot logs (to standard error, one line per event): "
        "`DEBUG`, `INFO`, `WARNING` or `ERROR`.",
    )
    default_language: Lang = Field(
        "ru",
        description="Language (`ru`, `en` or `uk`) for chats and users whose language is unknown.",
    )
    default_rules: Annotated[Rules, NoDecode] = Field(
        default_factory=Rules,
        description="Rules of a group's first table (a group then keeps the last rules it "
        "chose): a preset (`podkidnoy`, `perevodnoy`, `prostoy`, `prostoy5`) or a JSON "
        'object of rule options, e.g. `{"game": "perevodnoy", "turn_timeout": 60}`. '
        "Empty: podkidnoy with the rule book's defaults.",
    )
    mode: Literal["polling", "webhook"] = Field(
        "polling",
        description="`polling` asks Telegram for updates (no open port needed); "
        "`webhook` lets Telegram post them to `DURAK_WEBHOOK_URL` (production).",
    )
    poll_gather: float = Field(
        0.02,
        ge=0,
        le=1,
        description="Polling mode: after an answer to `getUpdates` that brought updates, "
        "seconds the bot waits before it asks again, so that while presses keep coming one "
        "request brings several (0: ask at once). A bot that was idle is told of a press "
        "at once.",
    )
    webhook_url: str | None = Field(
        None,
        description="Webhook mode: the public HTTPS address Telegram posts updates to, "
        "e.g. `https://durak.example.com/telegram`; the bot serves its path.",
    )
    webhook_listen: str = Field(
        "127.0.0.1",
        description="Webhook mode: the address the bot's HTTP server listens on "
        "(`0.0.0.0` in a container).",
    )
    webhook_port: int = Field(
        8080, ge=1, le=65535, description="Webhook mode: the port the bot listens on."
    )
    webhook_secret: SecretStr | None = Field(
        None,
        description="Webhook mode, required: a secret of 1-256 characters `A-Z a-z 0-9 _ -`; "
        "Telegram sends it with every update, requests without it are refused (403).",
    )
    base_url: str = Field(
        TELEGRAM_BASE_URL,
        description="The Bot API server: Telegram's, a self-hosted `telegram-bot-api` "
        "(`http://127.0.0.1:8081/bot`) or a test server.",
    )
    rate_limits: Literal["telegram", "retry-only"] = Field(
        "telegram",
        description="`telegram` paces every chat to Telegram's limits (sends, edits and "
        "deletes share one budget per chat: about 1 a second in a private chat, 20 a minute "
        "in a group; no limit over all chats) and waits out a flood error in its own chat "
        "only; `retry-only` only waits out flood errors (for test servers).",
    )
    group_edit_interval: float = Field(
        4.0,
        ge=0,
        le=60,
        description="Seconds per message in one group once its burst is spent (4 s with a "
        "burst of 5 never exceeds 20 in a minute); a watching player's hand also waits this "
        "long to merge changes.",
    )
    group_burst: int = Field(
        5,
        ge=1,
        le=20,
        description="Messages a group may get at once (a lobby tap, a move) before "
        "`DURAK_GROUP_EDIT_INTERVAL` applies.",
    )
    private_edit_interval: float = Field(
        1.0,
        ge=0,
        le=60,
        description="Seconds per message in one player's private chat once its burst is spent.",
    )
    private_burst: int = Field(
        3,
        ge=1,
        le=10,
        description="Messages a private chat may get at once before "
        "`DURAK_PRIVATE_EDIT_INTERVAL` applies.",
    )
    overall_rate: float = Field(
        0.0,
        ge=0,
        le=1000,
        description="Messages a second over all chats, a cap for broadcasts; 0: none "
        "(Telegram limits replies and edits only per chat).",
    )
    api_timeout: float = Field(
        2.0,
        gt=0,
        le=60,
        description="Seconds to wait for the Bot API's answer to a send, edit or delete "
        "before trying again (with backoff; a copy that arrived anyway loses its buttons "
        "once a send gets through, or when pressed).",
    )
    notify_after: float = Field(
        15.0,
        ge=0,
        le=3600,
        description="Seconds a player must have been away (no notification, no press of "
        "his) before his turn sends his hand anew, which notifies him; sooner, it is edited.",
    )
    ai_workers: int = Field(
        1,
        ge=0,
        le=16,
        description="Worker processes where computer players decide, off the bot's event "
        "loop and below its CPU priority (Linux's idle class); 0: in a thread of the bot.",
    )
    quick_wait: float = Field(
        60.0,
        ge=1,
        le=3600,
        description="Seconds a player waits alone for a quick game (/quick) before he is "
        "offered a game against the computer (or more waiting).",
    )
    tourney_pause: float = Field(
        6.0,
        ge=0,
        le=60,
        description="Seconds between a tournament game's end and the next deal (time to read "
        "the end and the standings).",
    )
    ai_delay: float = Field(
        1.0,
        ge=0,
        le=30,
        description="Seconds a computer player waits before it moves (a human-like pause).",
    )
    coach_workers: int = Field(
        1,
        ge=0,
        le=16,
        description="Worker processes that analyse finished games for the coach (at a lower "
        "CPU priority, so that no game slows down); 0 turns the coach off.",
    )
    coach_budget: float = Field(
        5.0,
        gt=0,
        le=120,
        description="CPU seconds the coach may spend analysing one game for one player.",
    )
    charts: bool = Field(
        True,
        description="Draw the chart of /me, in a worker process started with the bot; "
        "false: /me answers in text alone.",
    )
    admin_ids: Annotated[tuple[int, ...], NoDecode] = Field(
        (),
        description="Telegram user ids of the bot's operators, comma-separated "
        "(`12345,67890`): they may change settings, start and cancel at any table.",
    )
    webapp_url: str | None = Field(
        None,
        description="The Mini App: the public HTTPS address of its page, e.g. "
        "`https://durak.example.com/app` (plain `http://` only on a loopback address); "
        "the bot serves the page, its files and its live channel under that path. Empty: no "
        "Mini App.",
    )
    webapp_listen: str = Field(
        "127.0.0.1",
        description="The Mini App: the address its HTTP server listens on (`0.0.0.0` in a "
        "container).",
    )
    webapp_port: int = Field(
        8090, ge=1, le=65535, description="The Mini App: the port its HTTP server listens on."
    )
    webapp_short_name: str | None = Field(
        None,
        description="The Mini App's short name from @BotFather's /newapp (3-30 characters "
        "`A-Z a-z 0-9 _`): group messages link to `https://t.me/<bot>/<short name>`. Empty: "
        "the Mini App opens from private chats only.",
    )
    webapp_max_age: int = Field(
        86400,
        ge=60,
        le=30 * 86400,
        description="The Mini App: seconds a page's Telegram sign-in (its init data) stays valid.",
    )

    # ---------------------------------------------------------------- validators

    @field_validator("bot_token", mode="before")
    @classmethod
    def _token(cls, value: object) -> object:
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        if isinstance(text, str):
            text = text.strip()
            if not text:
                raise SettingError(_MISSING_TOKEN, missing=True)
            if not _TOKEN_RE.match(text):
                raise SettingError(
                    "it does not look like a token from @BotFather "
                    "(digits, a colon, then letters, digits, - and _)"
                )
        return text

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("default_language", "mode", "rate_limits", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("db_path", mode="before")
    @classmethod
    def _path(cls, value: object) -> object:
        if isinstance(value, str | Path):
            text = str(value).strip()
            if not text:
                raise SettingError("it is empty: name the database file")
            path = Path(text).expanduser()
            if path.is_dir():
                raise SettingError("it is a folder: name the database file in it")
            return path
        return value

    @field_validator("database_url", mode="before")
    @classmethod
    def _database_url(cls, value: object) -> object:
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        if isinstance(text, str):
            if not text.strip():
                return None
            try:
                return check_database_url(text)
            except ValueError as exc:
                raise SettingError(str(exc)) from None
        return text

    @field_validator("default_rules", mode="before")
    @classmethod
    def _rules(cls, value: object) -> Rules:
        return parse_rules(value)

    @field_validator("webhook_url", mode="before")
    @classmethod
    def _webhook_url(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return None
        parts = urlsplit(text)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise SettingError("it must be a full https:// address")
        if parts.fragment:
            raise SettingError("it cannot have a #fragment")
        return text

    @field_validator("webapp_url", mode="before")
    @classmethod
    def _webapp_url(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return None
        parts = urlsplit(text)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise SettingError("it must be a full https:// address")
        if parts.scheme == "http" and not _loopback(parts.hostname):
            raise SettingError("it must be https:// (plain http:// only on a loopback address)")
        if parts.query or parts.fragment:
            raise SettingError("it cannot have a ?query or a #fragment")
        return text

    @field_validator("webapp_short_name", mode="before")
    @classmethod
    def _short_name(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return None
        if not _SHORT_NAME_RE.match(text):
            raise SettingError("it must be 3-30 characters, each A-Z, a-z, 0-9 or _")
        return text

    @field_validator("webhook_listen", "webapp_listen", mode="before")
    @classmethod
    def _listen(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        text = value.strip().removeprefix("[").removesuffix("]")
        try:
            ipaddress.ip_address(text)
        except ValueError:
            if not _HOSTNAME_RE.match(text):
                raise SettingError(
                    "it must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name"
                ) from None
        return text

    @field_validator("webhook_secret", mode="before")
    @classmethod
    def _secret(cls, value: object) -> object:
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        if isinstance(text, str):
            if not text:
                return None
            if not _SECRET_RE.match(text):
                raise SettingError("it must be 1-256 characters, each A-Z, a-z, 0-9, _ or -")
        return text

    @field_validator("base_url", mode="before")
    @classmethod
    def _base_url(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return TELEGRAM_BASE_URL
        parts = urlsplit(text)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise SettingError("it must be an http:// or https:// address")
        if "{token}" not in text:
            text = text.rstrip("/")
            if not text.endswith("/bot"):
                text += "/bot"
        return text

    @field_validator("admin_ids", mode="before")
    @classmethod
    def _admins(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.startswith("["):
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                raise SettingError("it must be user ids separated by commas") from None
        items = [x for x in re.split(r"[\s,]+", text) if x]
        if not all(re.fullmatch(r"-?[0-9]+", x) for x in items):
            raise SettingError("it must be user ids (numbers) separated by commas")
        return tuple(int(x) for x in items)

    @model_validator(mode="after")
    def _webapp_port_free(self) -> Settings:
        if (
            self.webapp_url is not None
            and self.mode == "webhook"
            and self.webapp_port == self.webhook_port
        ):
            raise SettingError(
                f"the webhook server listens on port {self.webhook_port} already: "
                "give the Mini App another port",
                setting=env_name("webapp_port"),
            )
        return self

    @model_validator(mode="after")
    def _webhook_needs(self) -> Settings:
        if self.mode != "webhook":
            return self
        if self.webhook_url is None:
            raise SettingError(
                "webhook mode needs the public https:// address Telegram posts updates to",
                setting=env_name("webhook_url"),
                missing=True,
            )
        if self.webhook_secret is None:
            raise SettingError(
                "webhook mode needs a secret of 1-256 characters A-Z, a-z, 0-9, _ or -",
                setting=env_name("webhook_secret"),
                missing=True,
            )
        return self

    # ---------------------------------------------------------------- derived

    @property
    def base_file_url(self) -> str:
        """The file endpoint that goes with :attr:`base_url`."""
        if self.base_url.endswith("/bot"):
            return self.base_url[: -len("/bot")] + "/file/bot"
        return self.base_url.rstrip("/") + "/file/bot"

    @property
    def webhook_path(self) -> str:
        """The path of :attr:`webhook_url` that the bot's HTTP server answers on."""
        if self.webhook_url is None:
            return "/"
        return urlsplit(self.webhook_url).path or "/"

    @property
    def webapp_path(self) -> str:
        """The path of :attr:`webapp_url` the Mini App's server answers under, without a
        trailing slash (``""`` for the root)."""
        if self.webapp_url is None:
            return ""
        return urlsplit(self.webapp_url).path.rstrip("/")

    def rules(self) -> Rules:
        """The rules of a group's first table (:attr:`default_rules`)."""
        return self.default_rules

    @property
    def postgres_url(self) -> str:
        """The PostgreSQL database's URL, or ``""`` to keep the SQLite file."""
        return "" if self.database_url is None else self.database_url.get_secret_value()

    @property
    def database(self) -> str:
        """Where everything is kept, fit for a log line: the SQLite file, or the PostgreSQL
        URL with its password shown as ``***``."""
        return mask_url(self.postgres_url) if self.postgres_url else str(self.db_path)

    def secrets(self) -> list[str]:
        """Values that must never appear in logs: the token, its secret half, the webhook
        secret, the database's password (however short)."""
        token = self.bot_token.get_secret_value()
        found = [token, token.partition(":")[2]]
        if self.webhook_secret is not None:
            found.append(self.webhook_secret.get_secret_value())
        found = [s for s in found if len(s) >= 4]
        if self.postgres_url:
            found += url_secrets(self.postgres_url)
        return sorted(set(found), key=len, reverse=True)

    def summary(self) -> str:
        """The settings in force, in one line, without secrets (for the start-up log)."""
        mode: str = self.mode
        if self.mode == "webhook":
            mode = f"webhook {self.webhook_url} on {self.webhook_listen}:{self.webhook_port}"
        rules = self.default_rules.model_dump(exclude_defaults=True)
        webapp = "off"
        if self.webapp_url is not None:
            webapp = f"{self.webapp_url} on {self.webapp_listen}:{self.webapp_port}"
        return (
            f"mode={mode}; db={self.database}; api={self.base_url}; "
            f"language={self.default_language}; rules={json.dumps(rules) if rules else 'default'}"
            f"; rate_limits={self.rate_limits}; admins={len(self.admin_ids)}; webapp={webapp}"
        )


_MISSING_TOKEN = "set it in the environment or in .env (@BotFather gives you one)"


def _loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def env_name(field: str) -> str:
    """The environment variable of a setting (``log_level`` -> ``DURAK_LOG_LEVEL``)."""
    info = Settings.model_fields.get(field)
    if info is None:
        return field.upper()
    alias = info.validation_alias
    return alias if isinstance(alias, str) else ENV_PREFIX + field.upper()


def _field_of(loc: tuple[int | str, ...]) -> str | None:
    if not loc:
        return None
    head = str(loc[0])
    for name, info in Settings.model_fields.items():
        if head in (name, info.validation_alias):
            return name
    return head.lower()


def explain(exc: ValidationError) -> str:
    """One line naming the setting and what is wrong with it (never a secret's value)."""
    errors = exc.errors()
    first = errors[0]
    field = _field_of(tuple(first["loc"]))
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, SettingError):
        setting = cause.setting or (env_name(field) if field else "a setting")
        missing, problem = cause.missing, cause.problem
    else:
        setting = env_name(field) if field else "a setting"
        missing = first["type"] == "missing"
        problem = _MISSING_TOKEN if field == "bot_token" else "it is required"
        if not missing:
            problem = str(first["msg"]).removeprefix("Value error, ")
    if missing:
        line = f"{setting} is missing: {problem}"
    else:
        line = f"{setting} is invalid: {problem}"
        shown = first.get("input")
        if field not in SECRET_FIELDS and isinstance(shown, str | int | float):
            text = repr(shown)
            line += f" (got {text if len(text) <= 60 else text[:57] + '...'})"
    if len(errors) > 1:
        more = len(errors) - 1
        line += f" (and {more} more problem{'s' if more > 1 else ''})"
    return line


def describe_settings() -> list[tuple[str, str, str]]:
    """``(variable, default, description)`` of every setting, for README's table."""
    rows = []
    for name, info in Settings.model_fields.items():
        if info.is_required():
            default = "(required)"
        elif name == "default_rules":
            default = "(empty)"
        else:
            value: Any = info.default
            default = "(empty)" if value is None or value == () else f"`{value}`"
        rows.append((env_name(name), default, info.description or ""))
    return rows
