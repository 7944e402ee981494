"""Uploaded files and photos: what a multipart upload carries, and an image's size.

Telegram's rules for a photo sent with sendPhoto (https://core.telegram.org/bots/api#sendphoto):
"The photo must be at most 10 MB in size. The photo's width and height must not exceed
10000 in total. Width and height ratio must be at most 20." The Bot API passes the
server's refusal on: PHOTO_INVALID_DIMENSIONS for the size rules (go-telegram-bot-api
issue 600, tdlib/td issue 2544, whose maintainer quotes the rules above),
PHOTO_SAVE_FILE_INVALID for a photo over 10 MB (zhukov/webogram issue 1011), and
IMAGE_PROCESS_FAILED for data that is not a picture.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_PHOTO_SIDES = 10_000
"""Width plus height, at most."""
MAX_PHOTO_RATIO = 20.0
MAX_UPLOAD_BYTES = 50 * 1024 * 1024
"""The largest upload the Bot API takes at all (bots send files of up to 50 MB)."""

PHOTO_INVALID_DIMENSIONS = "PHOTO_INVALID_DIMENSIONS"
PHOTO_SAVE_FILE_INVALID = "PHOTO_SAVE_FILE_INVALID"
IMAGE_PROCESS_FAILED = "IMAGE_PROCESS_FAILED"

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Upload:
    """A file sent in a multipart body."""

    filename: str
    content_type: str
    data: bytes

    def __str__(self) -> str:
        return self.filename


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` of a PNG or JPEG image; None for anything else (the fake reads
    only these two formats)."""
    if data.startswith(PNG_SIGNATURE) and len(data) >= 24 and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return (width, height) if width and height else None
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return (width, height) if width and height else None
        i += 2 + length
    return None


def photo_problem(data: bytes) -> str | None:
    """Why Telegram would refuse this photo (its error description), or None."""
    if len(data) > MAX_PHOTO_BYTES:
        return PHOTO_SAVE_FILE_INVALID
    size = image_size(data)
    if size is None:
        return IMAGE_PROCESS_FAILED
    width, height = size
    if width + height > MAX_PHOTO_SIDES or max(width, height) / min(width, height) > (
        MAX_PHOTO_RATIO
    ):
        return PHOTO_INVALID_DIMENSIONS
    return None
