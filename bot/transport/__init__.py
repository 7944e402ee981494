"""Telegram's transport: requests paced per chat, updates received and kept."""
