"""Tests of the Mini App's server side: init data, start tokens, frames, state frames."""
