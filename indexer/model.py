"""The indexer's output types: where a named entity appears in a file, and in what role."""

from __future__ import annotations

from enum import Enum

import msgspec

# Kinds that name code: qualified by nesting (`Session.login`), built by the scope walk in
# `symbols.code_symbols`; every other kind is an entity path built from the name alone.
CODE_KINDS = frozenset({"function", "class", "method", "symbol", "constant"})


class Role(str, Enum):
    """What the code does to the entity at this place."""

    INTRODUCE = "introduce"  # CREATE TABLE, ADD COLUMN, `def`, a model field, a declared dependency
    REFERENCE = "reference"  # a read, a call, an ALTER COLUMN, an index on it
    REMOVE = "remove"  # DROP TABLE/COLUMN, `op.drop_column`, `remove_column`

    def __str__(self) -> str:
        return self.value


class Range(msgspec.Struct, frozen=True, order=True):
    """A 0-based LSP range; characters are UTF-16 code units (the LSP default encoding)."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int

    def contains(self, line: int, character: int) -> bool:
        """True when the position lies inside the range, both ends included."""
        return (
            (self.start_line, self.start_character)
            <= (line, character)
            <= (
                self.end_line,
                self.end_character,
            )
        )

    def as_json(self) -> dict[str, dict[str, int]]:
        """The LSP wire shape: `{"start": {"line", "character"}, "end": {...}}`."""
        return {
            "start": {"line": self.start_line, "character": self.start_character},
            "end": {"line": self.end_line, "character": self.end_character},
        }


class Symbol(msgspec.Struct, frozen=True):
    """One occurrence of an entity in a file.

    `version` is a dependency's declared version or constraint exactly as the manifest
    writes it (`==2.6.1`, `>=5,<6`, `^1.2.3`, `v1.9.0`, `23.1.0`, an image tag `3.12-slim`);
    empty when none is declared and for every other kind."""

    file: str
    entity: str
    kind: str
    role: Role
    name_range: Range
    range: Range
    version: str = ""

    def as_json(self) -> dict[str, object]:
        """The `cairn scan --json` shape."""
        out: dict[str, object] = {
            "file": self.file,
            "entity": self.entity,
            "kind": self.kind,
            "role": self.role.value,
            "name_range": self.name_range.as_json(),
            "range": self.range.as_json(),
        }
        if self.version:
            out["version"] = self.version
        return out


class QueryError(ValueError):
    """A query file that does not compile or uses unknown capture names.

    `path`, `line` and `column` (1-based) point at the problem so the user can fix it.
    """

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{path}:{line}:{column}: {message}")
        self.path = path
        self.line = line
        self.column = column
        self.message = message
