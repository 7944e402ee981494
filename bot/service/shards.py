"""Which process holds a table: the refusal that hands an update on to the holder.

With several processes on one database (:mod:`bot.cluster`), each table is held by the
process that holds its chat's shard (:func:`~bot.store.shard_of`). The table service, the
chat's views and the Mini App refuse a table held elsewhere with :class:`NotHere`, and the
update that asked for it is handed on to the holder; the cluster decides who holds what.
"""

from __future__ import annotations

__all__ = ["NotHere"]


class NotHere(Exception):
    """The table is held by another process (its shard is not this one's): the update
    that asked for it is handed on to ``shard``."""

    def __init__(self, table_id: int | None, shard: int) -> None:
        super().__init__(f"table {table_id} is of shard {shard}, not held here")
        self.table_id = table_id
        self.shard = shard
