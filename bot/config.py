"""The bot's settings: one pydantic-settings model read from the environment and ``.env``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings"]


class Settings(BaseSettings):
    """Every setting of the bot. Environment variables win over ``.env``."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True
    )

    bot_token: SecretStr = Field(description="The token @BotFather gave the bot.")
    db_path: Path = Field(
        Path("durak.sqlite3"),
        validation_alias="DURAK_DB_PATH",
        description="The SQLite database file (created if missing).",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        "INFO", description="How much the bot logs."
    )
    default_language: Literal["ru", "en"] = Field(
        "ru", description="Language for chats and users whose language is unknown."
    )
    base_url: str = Field(
        "https://api.telegram.org/bot",
        description="The Bot API endpoint (a self-hosted telegram-bot-api or a test server).",
    )
    group_edit_interval: float = Field(
        3.0, ge=0, le=60, description="Seconds between edits of one group's table message."
    )
    private_edit_interval: float = Field(
        1.0, ge=0, le=60, description="Seconds between edits in one player's private chat."
    )
    admin_ids: tuple[int, ...] = Field((), description="Telegram user ids of the operators.")

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @property
    def base_file_url(self) -> str:
        """The file endpoint that goes with :attr:`base_url`."""
        if self.base_url.endswith("/bot"):
            return self.base_url[: -len("/bot")] + "/file/bot"
        return self.base_url.rstrip("/") + "/file/bot"
