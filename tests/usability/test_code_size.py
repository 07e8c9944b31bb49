"""A module a person can read in one sitting: no source module over 800 lines and no
function over 100 (docs/development.md says where the line is drawn and why). Tests and
generated code aside; no exceptions."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCE = ("cairn", "store", "indexer", "lsp")
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 100


def _modules() -> list[Path]:
    return [p for folder in SOURCE for p in sorted((REPO / folder).rglob("*.py"))]


def test_the_walk_finds_the_source() -> None:
    names = {p.relative_to(REPO).as_posix() for p in _modules()}
    assert {"store/write.py", "indexer/extract.py", "lsp/server.py"} <= names


def test_no_module_over_800_lines_and_no_function_over_100() -> None:
    too_long = []
    for path in _modules():
        rel = path.relative_to(REPO).as_posix()
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            too_long.append(f"{rel}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{rel}:{node.lineno} {node.name}: {length} lines")
    assert not too_long, "split along a real seam: " + "; ".join(too_long)
