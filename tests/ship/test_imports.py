"""The bot's modules import each other without a circle: each can be read on its own."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """Each import statement of ``path``, at the top, inside functions or for type checking:
    its line, the module it names (a relative one made absolute) and the names it takes
    (``from m import a, b``: ``[a, b]``; ``import m``: none)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield node.lineno, base, [a.name for a in node.names]


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """Every bot module ``path`` imports: at the top, inside functions, for type checking."""
    name = module_name(path)
    found: set[str] = set()
    for _, base, names in imported(path):
        for target in (base, *(f"{base}.{n}" for n in names)):
            if target in modules and target != name:
                found.add(target)
    return found


def test_no_import_circle_among_bot_modules() -> None:
    paths = sorted((ROOT / "bot").rglob("*.py"))
    modules = {module_name(p) for p in paths}
    graph = {module_name(p): imports_of(p, modules) for p in paths}
    # a package's __init__ may gather its own modules; they never import it back
    for name, targets in graph.items():
        graph[name] = {t for t in targets if not name.startswith(t + ".")}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                circle = [*path[path.index(target) :], target]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if target not in state:
                visit(target)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
