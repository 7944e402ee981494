"""Entry point of the bot: ``python -m bot``."""

from __future__ import annotations

import logging
import sys

from pydantic import ValidationError


def main() -> int:
    """Read the settings, build the application, and poll Telegram until stopped."""
    from bot.config import Settings

    try:
        settings = Settings()  # type: ignore[call-arg]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]).upper() or "settings"
        print(f"durak-bot: invalid setting {where}: {first['msg']}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)
    from bot.app import build_application

    app = build_application(settings)
    app.run_polling(allowed_updates=["message", "callback_query", "my_chat_member"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
