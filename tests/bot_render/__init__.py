"""Tests of the bot's presentation layer: i18n, callback codec, renderers, tap resolver."""
