"""The bot's folders are its layers, and no import runs from a lower layer to a higher one.

The order is declared once, here (README.md, "Layout", tells it in words): a module may
import its own layer and the layers below it, never one above. Every import counts: at
the top of a module, inside a function, and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import test_imports
from .test_imports import ROOT, imported, module_name

LAYERS: tuple[tuple[str, ...], ...] = (
    # the programs and the wiring: settings -> store -> service -> views -> transport
    ("bot", "bot.__main__", "bot.app", "bot.lifecycle", "bot.transcript", "bot.rerate"),
    ("bot.cluster",),  # several processes on one PostgreSQL database
    ("bot.webapp",),  # the Mini App: a view of the table over the chat's
    ("bot.chat",),  # the chat's views: handlers, presenter, presses, in-group hands
    ("bot.transport",),  # Telegram's transport: requests paced per chat, updates kept
    ("bot.render",),  # texts and buttons from what a viewer may see
    ("bot.service",),  # the table service: tables, callback codec, replays, inbox
    ("bot.base",),  # settings, words, a worker's lifeline
    ("bot.store",),  # storage: SQLite or PostgreSQL
    ("bot.ratings",),  # the rating model, pure
)
"""The bot's layers, from the top down."""


def layer_of(module: str) -> int:
    """The index of the layer ``module`` belongs to (0 is the top)."""
    best, found = -1, -1
    for index, names in enumerate(LAYERS):
        for name in names:
            owns = module == name or (name != "bot" and module.startswith(name + "."))
            if owns and len(name) > best:
                best, found = len(name), index
    if found < 0:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return found


def bot_imports(path: Path) -> Iterator[tuple[int, str]]:
    """Every ``bot`` module ``path`` imports, with its line: at the top, in functions, for
    type checking alike."""
    for line, base, names in imported(path):
        if base == "bot":  # from bot import x: the module bot.x
            for name in names:
                yield line, f"bot.{name}"
        else:
            yield line, base


def upward_imports() -> list[str]:
    found = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        here = layer_of(module_name(path))
        for line, target in bot_imports(path):
            if target != "bot" and not target.startswith("bot."):
                continue
            there = layer_of(target)
            if there < here:
                found.append(
                    f"{path.relative_to(ROOT)}:{line}: imports {target} "
                    f"({LAYERS[there][0]}, above {LAYERS[here][0]})"
                )
    return found


def test_every_bot_module_is_in_a_layer() -> None:
    for path in sorted((ROOT / "bot").rglob("*.py")):
        layer_of(module_name(path))


def test_no_import_runs_from_a_lower_layer_to_a_higher_one() -> None:
    upward = upward_imports()
    assert not upward, "imports that run up:\n" + "\n".join(upward)


@pytest.mark.parametrize(
    ("module", "target"),
    [("bot.service.tables", "bot.chat.presenter"), ("bot.store.sqlite", "bot.base.config")],
)
def test_an_import_from_below_is_named_with_its_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, target: str
) -> None:
    """The check catches an upward import wherever it stands (here inside a function)."""
    fake = tmp_path / Path(*module.split(".")).with_suffix(".py")
    fake.parent.mkdir(parents=True)
    fake.write_text(f"def f() -> None:\n    from {target} import x\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(test_imports, "ROOT", tmp_path)  # where module names are read from
    [found] = upward_imports()
    assert found.startswith(f"{fake.relative_to(tmp_path)}:2: imports {target}")


def test_each_package_docstring_is_its_map() -> None:
    """Each layer's package says what is in it and what it may import."""
    for names in LAYERS[1:]:
        for name in names:
            init = ROOT / Path(*name.split(".")) / "__init__.py"
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
            assert "May import" in doc, f"{init.relative_to(ROOT)} does not say what it may import"
