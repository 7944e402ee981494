"""Message text as Telegram sees it: HTML parsing into entities, trimming, length.

What is done, roughly as Telegram (tdlib) does it:

* ``parse_mode="HTML"``: the tags Telegram supports (b/strong, i/em, u/ins,
  s/strike/del, tg-spoiler and span class="tg-spoiler", code, pre (with
  ``<code class="language-x">`` inside), a href, blockquote [expandable], tg-emoji,
  tg-time with unix and format: a date_time entity) become
  entities (a server older than Bot API 9.5, which brought the date_time entity, refuses
  tg-time as any unknown tag: ``live_clocks=False``); the named entities
  ``&lt; &gt; &amp; &quot;`` and numeric ones are decoded;
  any other ``&...`` is kept literally. An unsupported or unbalanced tag is refused with
  Telegram's "can't parse entities" wording (byte offsets into the UTF-8 source).
* Leading and trailing whitespace is trimmed (entities are shifted and clipped).
* The length limit (4096) is counted in Unicode code points of the text *after* parsing,
  as tdlib's ``utf8_length`` does; entity offsets are in UTF-16 code units, as in the API.
* ``Markdown``/``MarkdownV2`` are kept as sent with no entities (not parsed).
* No automatic entities (URLs, mentions) are detected in the bot's own messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MAX_TEXT_LENGTH = 4096

_TAG_KINDS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "code": "code",
    "pre": "pre",
    "a": "text_link",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
    "tg-time": "date_time",
}
#: The formats a date_time entity accepts: relative, or day of week, date and time parts.
_DATE_TIME_FORMAT_RE = re.compile(r"^(r|w?[dD]?[tT]?)$")
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY_RE = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{1,10});")
_ATTR_RE = re.compile(r"""\s*([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?""")
_COMMAND_RE = re.compile(r"(?:(?<=\s)|^)/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{1,64})?")


class EntityParseError(ValueError):
    """The text cannot be parsed; the message is Telegram's (after "can't parse entities: ")."""


@dataclass(frozen=True)
class ParsedText:
    """The text a user sees and its entities (Bot API MessageEntity dicts)."""

    text: str
    entities: list[dict[str, Any]] = field(default_factory=list)

    @property
    def length(self) -> int:
        """Length as Telegram counts it for the 4096 limit (code points)."""
        return len(self.text)


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of entity offsets."""
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


@dataclass
class _Open:
    name: str
    kind: str
    start: int
    attrs: dict[str, str]
    language: str | None = None


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


def _decode_entities(value: str) -> str:
    def repl(match: re.Match[str]) -> str:
        body = match.group(1)
        if body.startswith(("#x", "#X")):
            return chr(int(body[2:], 16))
        if body.startswith("#"):
            return chr(int(body[1:]))
        return _NAMED_ENTITIES.get(body, match.group(0))

    return _ENTITY_RE.sub(repl, value)


def _parse_attrs(source: str, start: int, end: int) -> dict[str, str]:
    attrs: dict[str, str] = {}
    pos = start
    while pos < end:
        match = _ATTR_RE.match(source, pos, end)
        if match is None or match.end() == pos:
            break
        value = match.group(2) or ""
        if value[:1] in ('"', "'"):
            value = value[1:-1]
        attrs[match.group(1).lower()] = _decode_entities(value)
        pos = match.end()
    return attrs


def _entity_for(tag: _Open, end: int) -> dict[str, Any] | None:
    length = end - tag.start
    if length <= 0:
        return None
    entity: dict[str, Any] = {"type": tag.kind, "offset": tag.start, "length": length}
    if tag.kind == "text_link":
        href = tag.attrs.get("href")
        if not href:
            return None
        entity["url"] = href
    elif tag.kind == "custom_emoji":
        entity["custom_emoji_id"] = tag.attrs.get("emoji-id", "")
    elif tag.kind == "date_time":
        entity["unix_time"] = int(tag.attrs["unix"])
        if tag.attrs.get("format"):
            entity["date_time_format"] = tag.attrs["format"]
    elif tag.kind == "pre" and tag.language:
        entity["language"] = tag.language
    elif tag.kind == "blockquote" and "expandable" in tag.attrs:
        entity["type"] = "expandable_blockquote"
    return entity


def parse_html(source: str, *, live_clocks: bool = True) -> ParsedText:
    """Parse Telegram-flavoured HTML; raise EntityParseError as Telegram would.
    ``live_clocks=False``: a server that knows no tg-time tag (older than Bot API 9.5)."""
    out: list[str] = []
    pos16 = 0
    stack: list[_Open] = []
    entities: list[dict[str, Any]] = []
    i = 0
    n = len(source)
    while i < n:
        ch = source[i]
        if ch == "&":
            match = _ENTITY_RE.match(source, i)
            decoded = _decode_entities(match.group(0)) if match else "&"
            out.append(decoded)
            pos16 += utf16_len(decoded)
            i = match.end() if match else i + 1
            continue
        if ch != "<":
            out.append(ch)
            pos16 += 2 if ord(ch) > 0xFFFF else 1
            i += 1
            continue
        end = source.find(">", i)
        if end < 0:
            raise EntityParseError(f"Unclosed start tag at byte offset {_byte_offset(source, i)}")
        if source.startswith("</", i):
            name = source[i + 2 : end].strip().lower()
            if not stack:
                raise EntityParseError(
                    f"Unexpected end tag at byte offset {_byte_offset(source, i)}"
                )
            top = stack.pop()
            if name != top.name:
                raise EntityParseError(
                    f"Unmatched end tag at byte offset {_byte_offset(source, i)}, "
                    f'expected "</{top.name}>", '
                    f'found "</{name}>"'
                )
            if (
                top.name == "code"
                and stack
                and stack[-1].name == "pre"
                and top.attrs.get("class", "").startswith("language-")
            ):
                stack[-1].language = top.attrs["class"].removeprefix("language-")
            else:
                entity = _entity_for(top, pos16)
                if entity is not None:
                    entities.append(entity)
            i = end + 1
            continue
        j = i + 1
        while j < end and (source[j].isascii() and (source[j].isalnum() or source[j] == "-")):
            j += 1
        name = source[i + 1 : j].lower()
        attrs = _parse_attrs(source, j, end)
        kind = _TAG_KINDS.get(name)
        if (
            kind is None
            or (name == "span" and attrs.get("class") != "tg-spoiler")
            or (kind == "date_time" and not live_clocks)
        ):
            raise EntityParseError(
                f'Unsupported start tag "{name}" at byte offset {_byte_offset(source, i)}'
            )
        if kind == "date_time" and (
            not re.fullmatch(r"-?[0-9]{1,12}", attrs.get("unix", ""))
            or not _DATE_TIME_FORMAT_RE.match(attrs.get("format", ""))
        ):
            # Telegram wants a Unix time and a valid format (r, or w?[dD]?[tT]?)
            raise EntityParseError(
                f'Invalid "tg-time" tag at byte offset {_byte_offset(source, i)}'
            )
        stack.append(_Open(name, kind, pos16, attrs))
        i = end + 1
    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1].name}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return ParsedText("".join(out), entities)


def strip_text(parsed: ParsedText) -> ParsedText:
    """Trim leading/trailing whitespace as Telegram does, shifting and clipping entities."""
    text = parsed.text
    stripped = text.strip()
    if stripped == text:
        return parsed
    lead = utf16_len(text[: len(text) - len(text.lstrip())])
    total = utf16_len(stripped)
    entities: list[dict[str, Any]] = []
    for entity in parsed.entities:
        start = max(0, entity["offset"] - lead)
        end = min(total, entity["offset"] + entity["length"] - lead)
        if end > start:
            entities.append({**entity, "offset": start, "length": end - start})
    return ParsedText(stripped, entities)


def parse_text(
    text: str,
    parse_mode: str | None,
    entities: list[dict[str, Any]] | None = None,
    *,
    live_clocks: bool = True,
) -> ParsedText:
    """Text and entities as they will be shown; raises EntityParseError or ValueError.
    ``live_clocks``: whether the server knows the tg-time tag (Bot API 9.5)."""
    if entities:
        parsed = ParsedText(text, [dict(e) for e in entities])
    elif parse_mode is None or parse_mode == "":
        parsed = ParsedText(text)
    elif parse_mode.lower() == "html":
        parsed = parse_html(text, live_clocks=live_clocks)
    elif parse_mode.lower() in ("markdown", "markdownv2"):
        parsed = ParsedText(text)
    else:
        raise ValueError("unsupported parse_mode")
    return strip_text(parsed)


def command_entities(text: str) -> list[dict[str, Any]]:
    """``bot_command`` entities for every /command (optionally @botname) in a user's text."""
    result: list[dict[str, Any]] = []
    for match in _COMMAND_RE.finditer(text):
        result.append(
            {
                "type": "bot_command",
                "offset": utf16_len(text[: match.start()]),
                "length": utf16_len(match.group(0)),
            }
        )
    return result
