"""The store's errors, by cause: the bot turns each into its own reply or log line."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of every error the store raises on purpose."""


class StoreUnavailable(StoreError):
    """The database cannot be reached now: its server restarts, or the connection to it
    broke. Nothing was written, unless the connection broke while a commit was answered;
    the caller tries again later (a compare-and-set write that did commit is then refused
    as stale, so nothing is applied twice)."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer version of the bot than this one."""

    def __init__(self, path: str, found: int, known: int) -> None:
        self.path = path
        self.found = found
        self.known = known
        super().__init__(
            f"database {path!r} has schema version {found}, but this version of the bot "
            f"only knows schema versions up to {known}: it was written by a newer bot. "
            "Upgrade the bot (or restore a backup made for this version); "
            "refusing to open it rather than risk damaging it."
        )


class TableNotFoundError(StoreError, LookupError):
    """No table has this id (it never existed, or it was a lobby removed as stale)."""

    def __init__(self, table_id: int) -> None:
        self.table_id = table_id
        super().__init__(f"table {table_id} does not exist")


class StaleVersionError(StoreError):
    """A compare-and-set save was refused: the table moved on since the caller read it.

    Nothing was written. The caller should reload the table and decide again; the store
    never merges two writers' states.
    """

    def __init__(self, table_id: int, expected: int, actual: int) -> None:
        self.table_id = table_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"table {table_id} is at version {actual}, not {expected}: refused a stale save"
        )


class WrongStatusError(StoreError):
    """The operation does not fit the table's status (e.g. an action saved to a lobby)."""

    def __init__(self, table_id: int, status: str, wanted: tuple[str, ...]) -> None:
        self.table_id = table_id
        self.status = status
        self.wanted = wanted
        super().__init__(f"table {table_id} is {status!r}; this needs one of {', '.join(wanted)}")
