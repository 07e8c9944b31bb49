"""JPA entities: `@Table(name=...)` or the class name in snake_case (Spring Boot's
default naming strategy); `@Column(name=...)`/`@JoinColumn(name=...)` or the field
name in snake_case."""

from __future__ import annotations

from tree_sitter import Node

from cairn.indexer.capture import Capture, FileContext, ancestor, literal, node_text, snake_case


def table(capture: Capture, ctx: FileContext) -> list[Capture]:
    """An `@Entity` class without `@Table(name=...)` maps to snake_case(class)."""
    cls = ancestor(capture.name_node, "class_declaration")
    if cls is None or _annotation_name(cls, ("Table",)) is not None:
        return []  # the @Table pattern already reported it
    return [capture.but(name=snake_case(capture.name))]


def column(capture: Capture, ctx: FileContext) -> list[Capture]:
    """A persistent field -> `table.column`."""
    cls = ancestor(capture.name_node, "class_declaration")
    if cls is None:
        return []
    table_node = _annotation_name(cls, ("Table",))
    class_name = cls.child_by_field_name("name")
    table_name = literal(table_node) if table_node is not None else None
    if not table_name and class_name is not None:
        table_name = snake_case(node_text(class_name))
    if not table_name:
        return []
    field = ancestor(capture.name_node, "field_declaration")
    explicit = _annotation_name(field, ("Column", "JoinColumn")) if field is not None else None
    explicit_name = literal(explicit) if explicit is not None else None
    if explicit is not None and explicit_name:
        return [capture.but(table=table_name, name=explicit_name, name_node=explicit)]
    return [capture.but(table=table_name, name=snake_case(capture.name))]


def _annotation_name(owner: Node, names: tuple[str, ...]) -> Node | None:
    """The `name = "..."` value node of one of `names` annotations on `owner`."""
    for modifiers in owner.children:
        if modifiers.type != "modifiers":
            continue
        for annotation in modifiers.named_children:
            if annotation.type != "annotation":
                continue
            name = annotation.child_by_field_name("name")
            if name is None or node_text(name) not in names:
                continue
            args = annotation.child_by_field_name("arguments")
            for pair in args.named_children if args is not None else ():
                key = pair.child_by_field_name("key")
                if pair.type == "element_value_pair" and key and node_text(key) == "name":
                    return pair.child_by_field_name("value")
    return None
