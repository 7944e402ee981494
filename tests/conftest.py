"""What every test process shares."""

from __future__ import annotations

from bot.pacing import use_timedelta_periods

# The bot opts in to PTB's timedelta periods when it builds its Application; tests that
# make PTB objects without one (a RetryAfter in the pacing tests, a bare Bot against the
# fake server) run the same way.
use_timedelta_periods()
