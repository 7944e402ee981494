"""Start-up refuses a missing token and every invalid setting with one clear line naming
the setting, and exit status 2; .env.example and the settings model agree."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.__main__ import LogFormatter
from bot.base.config import Settings, env_name, explain, parse_rules
from engine import Rules

from .process import ROOT, run_bot

TOKEN = "123456789:AAFakeTelegramTokenForTests-0123456789"
GOOD = {"BOT_TOKEN": TOKEN}

# (case id, environment, the setting the line must name)
INVALID: list[tuple[str, dict[str, str], str]] = [
    ("no-token", {}, "BOT_TOKEN"),
    ("empty-token", {"BOT_TOKEN": "  "}, "BOT_TOKEN"),
    ("malformed-token", {"BOT_TOKEN": "not-a-token-at-all"}, "BOT_TOKEN"),
    ("db-path-folder", {**GOOD, "DURAK_DB_PATH": "."}, "DURAK_DB_PATH"),
    ("db-path-empty", {**GOOD, "DURAK_DB_PATH": " "}, "DURAK_DB_PATH"),
    (
        "database-url-scheme",
        {**GOOD, "DURAK_DATABASE_URL": "mysql://durak:pw1234@db/durak"},
        "DURAK_DATABASE_URL",
    ),
    (
        "database-url-port",
        {**GOOD, "DURAK_DATABASE_URL": "postgresql://durak:pw1234@db:99999/durak"},
        "DURAK_DATABASE_URL",
    ),
    ("log-level", {**GOOD, "DURAK_LOG_LEVEL": "LOUD"}, "DURAK_LOG_LEVEL"),
    ("language", {**GOOD, "DURAK_DEFAULT_LANGUAGE": "de"}, "DURAK_DEFAULT_LANGUAGE"),
    ("rules-preset", {**GOOD, "DURAK_DEFAULT_RULES": "pokdidnoy"}, "DURAK_DEFAULT_RULES"),
    ("rules-json", {**GOOD, "DURAK_DEFAULT_RULES": '{"hand_size": 3'}, "DURAK_DEFAULT_RULES"),
    (
        "rules-option",
        {**GOOD, "DURAK_DEFAULT_RULES": '{"hand_size": 40}'},
        "DURAK_DEFAULT_RULES",
    ),
    (
        "rules-combination",
        {**GOOD, "DURAK_DEFAULT_RULES": '{"game": "prostoy", "proezdnoy": true}'},
        "DURAK_DEFAULT_RULES",
    ),
    ("mode", {**GOOD, "DURAK_MODE": "push"}, "DURAK_MODE"),
    ("poll-gather", {**GOOD, "DURAK_POLL_GATHER": "-0.1"}, "DURAK_POLL_GATHER"),
    ("webhook-no-url", {**GOOD, "DURAK_MODE": "webhook"}, "DURAK_WEBHOOK_URL"),
    (
        "webhook-no-secret",
        {**GOOD, "DURAK_MODE": "webhook", "DURAK_WEBHOOK_URL": "https://example.com/tg"},
        "DURAK_WEBHOOK_SECRET",
    ),
    ("webhook-url", {**GOOD, "DURAK_WEBHOOK_URL": "example.com/tg"}, "DURAK_WEBHOOK_URL"),
    ("webhook-listen", {**GOOD, "DURAK_WEBHOOK_LISTEN": "my host"}, "DURAK_WEBHOOK_LISTEN"),
    ("webhook-port-range", {**GOOD, "DURAK_WEBHOOK_PORT": "70000"}, "DURAK_WEBHOOK_PORT"),
    ("webhook-port-text", {**GOOD, "DURAK_WEBHOOK_PORT": "http"}, "DURAK_WEBHOOK_PORT"),
    (
        "webhook-secret-chars",
        {**GOOD, "DURAK_WEBHOOK_SECRET": "not so secret!"},
        "DURAK_WEBHOOK_SECRET",
    ),
    ("webhook-secret-long", {**GOOD, "DURAK_WEBHOOK_SECRET": "x" * 257}, "DURAK_WEBHOOK_SECRET"),
    ("base-url", {**GOOD, "DURAK_BASE_URL": "api.telegram.org"}, "DURAK_BASE_URL"),
    ("rate-limits", {**GOOD, "DURAK_RATE_LIMITS": "none"}, "DURAK_RATE_LIMITS"),
    (
        "group-interval",
        {**GOOD, "DURAK_GROUP_EDIT_INTERVAL": "-1"},
        "DURAK_GROUP_EDIT_INTERVAL",
    ),
    (
        "private-interval",
        {**GOOD, "DURAK_PRIVATE_EDIT_INTERVAL": "soon"},
        "DURAK_PRIVATE_EDIT_INTERVAL",
    ),
    ("group-burst", {**GOOD, "DURAK_GROUP_BURST": "0"}, "DURAK_GROUP_BURST"),
    ("private-burst", {**GOOD, "DURAK_PRIVATE_BURST": "2.5"}, "DURAK_PRIVATE_BURST"),
    ("overall-rate", {**GOOD, "DURAK_OVERALL_RATE": "-3"}, "DURAK_OVERALL_RATE"),
    ("api-timeout", {**GOOD, "DURAK_API_TIMEOUT": "0"}, "DURAK_API_TIMEOUT"),
    ("notify-after", {**GOOD, "DURAK_NOTIFY_AFTER": "soon"}, "DURAK_NOTIFY_AFTER"),
    ("tourney-pause", {**GOOD, "DURAK_TOURNEY_PAUSE": "61"}, "DURAK_TOURNEY_PAUSE"),
    ("ai-delay", {**GOOD, "DURAK_AI_DELAY": "-1"}, "DURAK_AI_DELAY"),
    ("quick-wait", {**GOOD, "DURAK_QUICK_WAIT": "0"}, "DURAK_QUICK_WAIT"),
    ("ai-workers", {**GOOD, "DURAK_AI_WORKERS": "-1"}, "DURAK_AI_WORKERS"),
    ("coach-workers", {**GOOD, "DURAK_COACH_WORKERS": "many"}, "DURAK_COACH_WORKERS"),
    ("coach-budget", {**GOOD, "DURAK_COACH_BUDGET": "0"}, "DURAK_COACH_BUDGET"),
    ("charts", {**GOOD, "DURAK_CHARTS": "maybe"}, "DURAK_CHARTS"),
    ("admin-ids", {**GOOD, "DURAK_ADMIN_IDS": "alice,bob"}, "DURAK_ADMIN_IDS"),
    ("webapp-url", {**GOOD, "DURAK_WEBAPP_URL": "durak.example.com/app"}, "DURAK_WEBAPP_URL"),
    (
        "webapp-url-plain-http",
        {**GOOD, "DURAK_WEBAPP_URL": "http://durak.example.com/app"},
        "DURAK_WEBAPP_URL",
    ),
    (
        "webapp-url-query",
        {**GOOD, "DURAK_WEBAPP_URL": "https://durak.example.com/app?x=1"},
        "DURAK_WEBAPP_URL",
    ),
    ("webapp-listen", {**GOOD, "DURAK_WEBAPP_LISTEN": "my host"}, "DURAK_WEBAPP_LISTEN"),
    ("webapp-port", {**GOOD, "DURAK_WEBAPP_PORT": "0"}, "DURAK_WEBAPP_PORT"),
    (
        "webapp-port-of-the-webhook",
        {
            **GOOD,
            "DURAK_MODE": "webhook",
            "DURAK_WEBHOOK_URL": "https://example.com/tg",
            "DURAK_WEBHOOK_SECRET": "s3cret",
            "DURAK_WEBAPP_URL": "https://example.com/app",
            "DURAK_WEBAPP_PORT": "8080",
        },
        "DURAK_WEBAPP_PORT",
    ),
    (
        "webapp-short-name",
        {**GOOD, "DURAK_WEBAPP_SHORT_NAME": "durak-app"},
        "DURAK_WEBAPP_SHORT_NAME",
    ),
    ("webapp-max-age", {**GOOD, "DURAK_WEBAPP_MAX_AGE": "10"}, "DURAK_WEBAPP_MAX_AGE"),
]


def test_every_setting_has_an_invalid_case() -> None:
    named = {setting for _, _, setting in INVALID}
    assert named == {env_name(field) for field in Settings.model_fields}


@pytest.mark.parametrize(("env", "setting"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
async def test_start_up_refuses_with_one_line(
    tmp_path: Path, env: dict[str, str], setting: str
) -> None:
    code, out, err = await run_bot(env, tmp_path)
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, f"one line, not:\n{err}"
    assert lines[0].startswith(f"durak-bot: {setting} is "), lines[0]
    assert "Traceback" not in err
    assert TOKEN not in err and TOKEN.partition(":")[2] not in err
    secret = env.get(setting, "") if setting in ("BOT_TOKEN", "DURAK_WEBHOOK_SECRET") else ""
    assert not secret.strip() or secret not in err, "a secret is never echoed"
    assert "pw1234" not in err, "a database password is never echoed"


async def test_dotenv_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        f"BOT_TOKEN={TOKEN}\nDURAK_LOG_LEVEL=LOUD\nDURAK_MODE=webhook\n", encoding="utf-8"
    )
    code, _, err = await run_bot({"DURAK_MODE": "polling"}, tmp_path)
    assert code == 2
    assert err.strip() == (
        "durak-bot: DURAK_LOG_LEVEL is invalid: Input should be 'DEBUG', 'INFO', 'WARNING' "
        "or 'ERROR' (got 'LOUD')"
    )


async def test_check_with_good_settings(tmp_path: Path) -> None:
    code, _, err = await run_bot(
        {**GOOD, "DURAK_DB_PATH": "data/durak.sqlite3"}, tmp_path, "--check"
    )
    assert code == 0, err
    assert err.startswith("durak-bot: ok:") and len(err.splitlines()) == 1


async def test_check_with_a_postgresql_database(tmp_path: Path, postgres_url: str) -> None:
    env = {**GOOD, "DURAK_DATABASE_URL": postgres_url}
    code, _, err = await run_bot(env, tmp_path, "--check")
    assert code == 0, err
    assert err.startswith("durak-bot: ok: settings valid; database postgresql://")
    assert "(schema 0 of" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "durak.sqlite3").exists()  # SQLite is not touched


@pytest.mark.parametrize("case", ["unreachable", "no-such-database"])
async def test_an_unusable_database_url_stops_start_up(
    tmp_path: Path, postgres_url: str, case: str
) -> None:
    if case == "unreachable":
        url = "postgresql://durak:Sekr3tPw@127.0.0.1:1/durak"
    else:
        base, _, query = postgres_url.partition("?")
        url = base.rsplit("/", 1)[0].replace("postgres@", "postgres:Sekr3tPw@") + "/nosuch?" + query
    for args in ((), ("--check",)):
        code, out, err = await run_bot({**GOOD, "DURAK_DATABASE_URL": url}, tmp_path, *args)
        assert (code, out) == ((1, "") if args else (2, "")), err
        assert len(err.splitlines()) == 1, err
        if args:
            assert err.startswith("durak-bot: unhealthy: cannot reach the database postgresql://")
        else:
            assert err.startswith("durak-bot: DURAK_DATABASE_URL: cannot open the database ")
        assert "Sekr3tPw" not in err and ":***@" in err
        assert ("does not exist" in err) == (case == "no-such-database")
    assert not (tmp_path / "durak.sqlite3").exists()


def test_the_database_password_is_never_logged() -> None:
    url = "postgresql://durak:p%40ss@db:5432/durak?sslmode=require"
    settings = Settings(bot_token=TOKEN, database_url=url)
    assert settings.postgres_url == url and "p%40ss" not in repr(settings)
    assert settings.summary().count("db=postgresql://durak:***@db:5432/durak") == 1
    formatter = LogFormatter(settings.secrets())
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "connect %s as %s", (url, "p@ss"), None
    )
    text = formatter.format(record)
    assert "p%40ss" not in text and "p@ss" not in text and text.count("***") == 2
    # even a password shorter than a token's parts is hidden
    short = Settings(bot_token=TOKEN, database_url="postgresql://u:x1@db/durak")
    assert "x1" in short.secrets()
    assert Settings(bot_token=TOKEN, database_url="  ").postgres_url == ""


async def test_an_unusable_database_stops_start_up(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    code, _, err = await run_bot({**GOOD, "DURAK_DB_PATH": "file/durak.sqlite3"}, tmp_path)
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith("durak-bot: DURAK_DB_PATH: cannot open")


# ---------------------------------------------------------------- the model itself


def test_defaults_and_normalising(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    for name in [n for n in __import__("os").environ if n.startswith("DURAK_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("BOT_TOKEN", f" {TOKEN} ")
    monkeypatch.setenv("DURAK_BASE_URL", "http://127.0.0.1:8081/")
    monkeypatch.setenv("DURAK_ADMIN_IDS", "1, 2 3")
    monkeypatch.setenv("DURAK_LOG_LEVEL", "debug")
    monkeypatch.setenv("DURAK_DEFAULT_RULES", "perevodnoy")
    settings = Settings()
    assert settings.bot_token.get_secret_value() == TOKEN
    assert settings.base_url == "http://127.0.0.1:8081/bot"
    assert settings.base_file_url == "http://127.0.0.1:8081/file/bot"
    assert settings.admin_ids == (1, 2, 3)
    assert settings.log_level == "DEBUG"
    assert settings.mode == "polling"
    assert settings.rules() == Rules.preset("perevodnoy")
    assert TOKEN not in repr(settings)
    assert TOKEN not in settings.summary()


def test_the_harness_way_of_building_settings(tmp_path: Path) -> None:
    db = tmp_path / "x.sqlite3"
    settings = Settings(
        bot_token=TOKEN,
        DURAK_DB_PATH=db,
        group_edit_interval=0.05,
        private_edit_interval=0.02,
    )
    assert settings.db_path == db and settings.group_edit_interval == 0.05
    assert Settings(bot_token=TOKEN, db_path=db).db_path == db


def test_webhook_settings() -> None:
    settings = Settings(
        bot_token=TOKEN,
        mode="webhook",
        webhook_url="https://durak.example.com/telegram/hook?x=1",
        webhook_secret="s3cret_-X",
    )
    assert settings.webhook_path == "/telegram/hook"
    assert "s3cret_-X" in settings.secrets() and TOKEN in settings.secrets()
    assert "s3cret_-X" not in settings.summary()


@pytest.mark.parametrize(
    ("value", "rules"),
    [
        ("", Rules()),
        ("prostoy", Rules.preset("prostoy")),
        ('{"game": "perevodnoy", "hand_size": 3}', Rules(game="perevodnoy", hand_size=3)),
        ('  {"modifiers": ["japanese"]} ', Rules(modifiers=("japanese",))),
    ],
)
def test_default_rules(value: str, rules: Rules) -> None:
    assert parse_rules(value) == rules


def test_explain_never_shows_a_secret() -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(bot_token="12345:short")
    line = explain(caught.value)
    assert line.startswith("BOT_TOKEN is invalid") and "short" not in line
    with pytest.raises(ValidationError) as caught:
        Settings(bot_token=TOKEN, webhook_secret="bad secret")
    assert "bad secret" not in explain(caught.value)


def test_log_lines_are_single_and_redacted() -> None:
    formatter = LogFormatter([TOKEN, TOKEN.partition(":")[2]])
    try:
        raise RuntimeError(f"POST https://api.telegram.org/bot{TOKEN}/getMe failed")
    except RuntimeError as exc:
        record = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "error %s", (exc,), (type(exc), exc, None)
        )
        record.exc_info = (type(exc), exc, exc.__traceback__)
    text = formatter.format(record)
    assert "\n" not in text and TOKEN not in text and "***" in text
    assert "Traceback (most recent call last): | " in text


# ---------------------------------------------------------------- .env.example


def _example_settings() -> dict[str, str]:
    found = {}
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        match = re.match(r"^#? ?([A-Z][A-Z0-9_]*)=(.*)$", line)
        if match:
            assert lines[i - 1].startswith("# "), f"{match.group(1)} has a comment above"
            found[match.group(1)] = match.group(2)
    return found


def test_env_example_lists_every_setting() -> None:
    assert set(_example_settings()) == {env_name(field) for field in Settings.model_fields}


def test_env_example_with_a_token_is_a_valid_configuration(tmp_path: Path) -> None:
    values = {k: v for k, v in _example_settings().items() if v}
    values["BOT_TOKEN"] = TOKEN
    values.pop("DURAK_WEBHOOK_URL")  # shown for webhook mode only
    settings = Settings(**values)  # type: ignore[arg-type]
    assert settings.mode == "polling"


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("https://durak.example.com/app", "/app"),
        ("https://durak.example.com/app/", "/app"),
        ("https://durak.example.com", ""),
        ("http://127.0.0.1:8090/app", "/app"),
        ("http://localhost:8090/durak/app", "/durak/app"),
        ("http://[::1]:8090/app", "/app"),
    ],
)
def test_webapp_url_and_its_path(url: str, path: str) -> None:
    settings = Settings(bot_token=TOKEN, webapp_url=url)
    assert settings.webapp_path == path
    assert url in settings.summary()


def test_no_webapp_by_default() -> None:
    settings = Settings(bot_token=TOKEN, webapp_url="  ", webapp_short_name="")
    assert settings.webapp_url is None and settings.webapp_short_name is None
    assert "webapp=off" in settings.summary()
