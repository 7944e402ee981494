"""Tests of the computer players (engine/ai)."""
