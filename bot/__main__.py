"""Entry point of the bot: ``python -m bot``."""

import sys


def main() -> int:
    """Start the bot; the Telegram side is not built yet."""
    print("The Telegram bot is not built yet; the rules engine lives in engine/.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
