"""The table service: tables, the callback codec, replays, the coach, the inbox."""
