"""The pygls surface Cairn relies on beyond pygls' public API is the one listed in
`cairn.lsp.transport.PRIVATE_SURFACE`, and it is still what the transport was written
against. A failure here means pygls changed: read the listed code in the new version,
adapt `cairn/lsp/transport.py`, then update the digests (and the pin in pyproject.toml)."""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
from importlib.metadata import version
from pathlib import Path
from typing import Any

import cairn.lsp
from cairn.lsp.transport import PRIVATE_SURFACE


def resolve(qualified: str) -> Any:
    """`pygls.server.Server.shutdown` -> the function object."""
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            node: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            node = getattr(node, name)
        return node
    raise ImportError(qualified)


def digest(qualified: str) -> str:
    return hashlib.sha256(inspect.getsource(resolve(qualified)).encode()).hexdigest()[:16]


def test_the_private_surface_is_the_one_the_transport_was_written_against() -> None:
    changed = {name for name, expected in PRIVATE_SURFACE.items() if digest(name) != expected}
    assert not changed, f"pygls {version('pygls')} changed: {sorted(changed)}"


def test_pygls_is_pinned_to_the_minor_version_installed() -> None:
    pyproject = Path(cairn.lsp.__file__).resolve().parents[1] / "pyproject.toml"
    major, minor, *_ = version("pygls").split(".")
    pin = f'"pygls>={major}.{minor},<{major}.{int(minor) + 1}"'
    assert pin in pyproject.read_text(encoding="utf-8")


def private_reads(path: Path) -> set[str]:
    """Attributes with a leading underscore read off a pygls object: `x._name` where the
    module imports pygls (a heuristic: our own private names are filtered by owner)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})
        ):
            found.add(node.attr)
    return found


PYGLS_PRIVATE = {"_stop_event", "_server", "_send_response", "_send_data", "_converter"}


def test_no_module_but_the_transport_reads_pygls_private_attributes() -> None:
    package = Path(cairn.lsp.__file__).resolve().parent
    offenders = {
        str(path.relative_to(package)): private_reads(path) & PYGLS_PRIVATE
        for path in package.rglob("*.py")
        if path.name != "transport.py"
    }
    assert {k: v for k, v in offenders.items() if v} == {}
