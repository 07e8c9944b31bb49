"""What a query match becomes before it is an entity: the shared vocabulary of the
generic layer (`extract.py`) and the framework resolvers (`frameworks/`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

import msgspec
from msgspec.structs import replace
from tree_sitter import Node

from cairn.indexer.model import Role

# Node types whose text is a quoted literal in some grammar; their quotes are stripped.
STRING_TYPES = frozenset(
    {
        "string",
        "string_literal",
        "interpreted_string_literal",
        "raw_string_literal",
        "template_string",
        "simple_symbol",
        "delayed_symbol",
        "hash_key_symbol",
        "bare_symbol",
        "string_content",
        "string_fragment",
        "quoted_key",
        "double_quote_scalar",
        "single_quote_scalar",
    }
)
_INTERPOLATIONS = frozenset({"interpolation", "template_substitution", "escape_interpolation"})


class Capture(msgspec.Struct):
    """A named thing found by a query; resolvers may adjust or multiply it."""

    kind: str
    role: Role
    name: str
    name_node: Node
    range_node: Node
    nodes: dict[str, list[Node]]
    settings: dict[str, str | None]
    table: str | None = None
    method: str | None = None
    scope: str | None = None
    version: str = ""  # a dependency's declared version/constraint (`@version`)

    @property
    def call(self) -> Node | None:
        """The node captured as `@call` (what a resolver reads), if the pattern has one."""
        found = self.nodes.get("call")
        return found[0] if found else None

    def but(self, **changes: Any) -> Capture:
        """A copy with some fields changed (for resolvers that emit several symbols)."""
        return replace(self, **changes)


class FileContext(msgspec.Struct):
    """The file being indexed, for resolvers that need more than the match."""

    path: str
    language: str
    data: bytes
    memo: dict[Any, Any] = msgspec.field(default_factory=dict)
    # what other files say that this one needs: a Django app's model -> stated table
    # (`frameworks.django_apps.app_model_tables`), read by the caller, not the indexer
    model_tables: Mapping[str, str] = msgspec.field(default_factory=dict)

    @property
    def basename(self) -> str:
        """The file's name without its folders."""
        return PurePosixPath(self.path).name


def node_text(node: Node) -> str:
    """The node's source text."""
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""


def builder_method(receiver: Node | None, method: Node | None, builder: str) -> str | None:
    """The method called on a migration's table builder (`t.string`, `table.dropColumn`:
    `builder` is the block's or callback's parameter), or None for a call on anything
    else."""
    if receiver is None or method is None or node_text(receiver) != builder:
        return None
    return node_text(method)


def literal(node: Node | None) -> str | None:
    """The value of a string or symbol literal; None for interpolated strings and
    anything that is not a literal."""
    if node is None:
        return None
    if node.type not in STRING_TYPES:
        return None
    if any(child.type in _INTERPOLATIONS for child in node.named_children):
        return None
    return unquote(node_text(node))


def unquote(text: str) -> str:
    """Strip a literal's decoration: Ruby's `:sym`/`sym:`, Python prefixes, quotes."""
    text = text.strip()
    if text.startswith(":"):
        text = text[1:]
    elif text.endswith(":") and not text.endswith("::"):
        text = text[:-1]
    index = 0
    while index < len(text) and index < 3 and text[index] in "rRbBuUfF":
        index += 1
    if index and index < len(text) and text[index] in "\"'":
        text = text[index:]
    for quote in ('"""', "'''", '"', "'", "`"):
        if len(text) >= 2 * len(quote) and text.startswith(quote) and text.endswith(quote):
            return text[len(quote) : -len(quote)]
    return text


def ancestor(node: Node, *types: str) -> Node | None:
    """The nearest ancestor of one of `types`."""
    current = node.parent
    while current is not None:
        if current.type in types:
            return current
        current = current.parent
    return None


def snake_case(name: str) -> str:
    """`CustomerOrder` -> `customer_order` (the common ORM default naming)."""
    out: list[str] = []
    for index, ch in enumerate(name):
        if ch.isupper() and index and _word_starts(name, index):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def _word_starts(name: str, index: int) -> bool:
    before = name[index - 1]
    after = name[index + 1] if index + 1 < len(name) else ""
    return before.islower() or before.isdigit() or (before.isupper() and after.islower())
