"""The Mini App's server side: the table as a web page inside Telegram, live for everyone.

The chat messages stay as they are; the page is another view of the same table, pushed
over its own WebSocket instead of Telegram's paced messages. Split by concept:

* ``auth`` — who opened the page: Telegram's init data, checked;
* ``links`` — the start token naming a table, and the links and buttons that carry it;

The wire protocol between the server and the page is ``PROTOCOL.md`` beside this file.
"""
