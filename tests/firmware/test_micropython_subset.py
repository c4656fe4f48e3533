"""The firmware stays in the Python subset MicroPython runs (no MicroPython here to run it):
imports only of MicroPython's modules, no f-strings, no variable annotations, no typing at
run time, and ``machine`` only in main.py."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import firmware

FIRMWARE = Path(firmware.__file__).parent
FILES = sorted(FIRMWARE.glob("*.py"))
MICROPYTHON_MODULES = {"sys", "os", "time", "select", "machine", "micropython"}


def _runtime_nodes(tree: ast.Module) -> list[ast.AST]:
    """Every node except those under ``if TYPE_CHECKING:`` (read by mypy only)."""
    nodes: list[ast.AST] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        nodes.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return nodes


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_file_uses_the_micropython_subset(path: Path) -> None:
    tree = ast.parse(path.read_text())
    for node in _runtime_nodes(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        assert not isinstance(node, ast.JoinedStr), f"f-string at {where}"
        assert not isinstance(node, ast.AnnAssign), f"variable annotation at {where}"
        assert not isinstance(node, ast.Match), f"match statement at {where}"
        if isinstance(node, ast.ImportFrom):
            assert node.module is not None and node.level == 0, where
            top = node.module.split(".")[0]
            assert top == "firmware" or top in MICROPYTHON_MODULES, f"{node.module} at {where}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                assert top in MICROPYTHON_MODULES, f"import {alias.name} at {where}"
                if top == "machine":
                    assert path.name == "main.py", f"machine imported outside main.py: {where}"


def test_main_imports_machine_only_when_run_on_the_pico() -> None:
    import firmware.main  # no ``machine`` on CPython: importing must not need it

    assert hasattr(firmware.main, "PicoHardware")
