"""Every error the product raises is of the project's tree (``engine.errors``): a caller
catches ``HakemError`` for all of them, and the CLI turns each into one line on stderr and
exit code 2. The tree's leaves also inherit the matching builtin (``ValueError``, ...), so a
bare builtin raised in product code is always a slip."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "controller", "vision")
# builtins whose place in the product is taken by a leaf of the tree
BARE = {"Exception", "ValueError", "RuntimeError", "KeyError", "IndexError", "LookupError",
        "ArithmeticError"}


def bare_raises(source: str) -> list[tuple[int, str]]:
    """(line, name) of each ``raise Name(...)`` or ``raise Name`` of a builtin in ``BARE``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if isinstance(exc, ast.Name) and exc.id in BARE:
            out.append((node.lineno, exc.id))
    return out


def test_the_scan_finds_a_bare_builtin_raise() -> None:
    assert bare_raises("def f(x):\n    raise ValueError(f'bad {x}')\n") == [(2, "ValueError")]
    assert bare_raises("def f():\n    raise RuntimeError\n") == [(2, "RuntimeError")]
    assert bare_raises("from engine.errors import ImageError\n"
                       "def f():\n    raise ImageError('bad picture')\n") == []


def test_product_code_raises_only_errors_of_the_project_s_tree() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}: raise {name}"
             for package in PACKAGES
             for path in sorted((ROOT / package).rglob("*.py"))
             for line, name in bare_raises(path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)
