"""Line parsers for the manifests that have no tree-sitter grammar wheel.

`requirements*.txt` and `go.mod` are line-oriented formats with a tiny grammar (pip's
requirement lines; Go's `require` directives), so a few lines of Python read them
exactly, with no extra dependency to ship or keep in step.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from cairn.indexer.model import Range, Role, Symbol
from cairn.store.paths import EntityPathError, dependency_path

_REQ_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_EGG = re.compile(r"#egg=([A-Za-z0-9][A-Za-z0-9._-]*)")
_GO_REQUIRE = re.compile(r"^(\s*)(?:require\s+)?(\S+)\s+(v\S+)")


def requirements(file: str, text: str) -> list[Symbol]:
    """Each requirement line of a pip requirements file -> `deps/name` (introduce)."""
    out: list[Symbol] = []
    for row, line in enumerate(text.splitlines()):
        body = line.split(" #", 1)[0].rstrip().rstrip("\\").rstrip()
        stripped = body.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("-"):  # options, -r includes, -e editable: name only via #egg=
            egg = _EGG.search(line)
            if egg:
                out.extend(_dep(file, row, line, egg.start(1), egg.group(1), len(body)))
            continue
        egg = _EGG.search(line)
        if "://" in stripped and egg:
            out.extend(_dep(file, row, line, egg.start(1), egg.group(1), len(body)))
            continue
        match = _REQ_NAME.match(stripped)
        if match:
            start = len(body) - len(stripped)
            out.extend(_dep(file, row, line, start, match.group(0), len(body)))
    return out


def go_mod(file: str, text: str) -> list[Symbol]:
    """Each module in a go.mod `require` directive or block -> `deps/module` (introduce)."""
    out: list[Symbol] = []
    in_block = False
    for row, line in enumerate(text.splitlines()):
        code = line.split("//", 1)[0].rstrip()
        stripped = code.strip()
        if in_block:
            if stripped == ")":
                in_block = False
                continue
        elif stripped.startswith("require") and stripped.endswith("("):
            in_block = True
            continue
        elif not stripped.startswith("require "):
            continue
        match = _GO_REQUIRE.match(code)
        if match:
            start = match.start(2)
            out.extend(_dep(file, row, line, start, match.group(2), len(code)))
    return out


def _dep(file: str, row: int, line: str, start: int, name: str, end: int) -> Iterator[Symbol]:
    try:
        entity = dependency_path(name)
    except EntityPathError:
        return
    indent = len(line) - len(line.lstrip())
    yield Symbol(
        file=file,
        entity=entity,
        kind="dependency",
        role=Role.INTRODUCE,
        name_range=Range(row, _utf16(line, start), row, _utf16(line, start + len(name))),
        range=Range(row, _utf16(line, indent), row, _utf16(line, end)),
    )


def _utf16(line: str, index: int) -> int:
    prefix = line[:index]
    if prefix.isascii():
        return len(prefix)
    return len(prefix.encode("utf-16-le", "surrogatepass")) // 2
