"""Durak for Telegram groups: handlers, rendering, storage and timers."""
