"""Both stores are the whole :class:`~bot.store.base.Store`: every method of the interface,
a coroutine taking the same parameters, so the bot runs the same on either database."""

from __future__ import annotations

import inspect

import pytest

from bot.store import SqliteStore, Store
from bot.store.postgres import PostgresStore


def interface() -> dict[str, inspect.Signature]:
    """The interface's methods by name."""
    return {
        name: inspect.signature(member)
        for name, member in vars(Store).items()
        if not name.startswith("_") and inspect.iscoroutinefunction(member)
    }


def parameters(signature: inspect.Signature) -> list[tuple[str, object, object]]:
    """Each parameter's name, kind and default (annotations are text here, written alike)."""
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


def test_the_interface_is_read_whole() -> None:
    methods = interface()
    assert {"close", "save_action", "leave_topic", "keep_updates", "prune_updates"} <= set(methods)


@pytest.mark.parametrize("implementation", [SqliteStore, PostgresStore])
def test_a_store_has_every_method_of_the_interface(implementation: type[object]) -> None:
    for name, wanted in interface().items():
        method = getattr(implementation, name, None)
        assert method is not None, f"{implementation.__name__} has no {name}"
        assert inspect.iscoroutinefunction(method), f"{implementation.__name__}.{name}"
        got = inspect.signature(method)
        assert parameters(got) == parameters(wanted), f"{implementation.__name__}.{name}"
