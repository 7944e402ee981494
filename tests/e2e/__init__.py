"""End-to-end tests: the real bot against the fake Bot API server."""
