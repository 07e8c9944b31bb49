"""textDocument/codeAction: quick fixes on Cairn diagnostics, decision actions on symbols.

`actions_for` is a pure function of the request's diagnostics (their `code` and
`data`) and the entity under the cursor; every action is a command (no edits), so
resolving needs no server state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from cairn.lsp.context import Context
from cairn.lsp.server import CairnServer

QUICKFIX = types.CodeActionKind.QuickFix
DECISION = "refactor.cairn"  # a custom sub-kind: editors list it under Refactor
NOUN = {"revert": "revert", "reject": "rejection"}


def register(server: CairnServer) -> None:
    """Add the code-action handler."""

    @server.handle(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[QUICKFIX, DECISION], resolve_provider=False),
    )
    def code_action(
        ctx: Context, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command]:
        uri = params.text_document.uri
        doc = ctx.document
        entity = None
        if doc is not None and doc.doc is not None:
            start = params.range.start
            here = doc.entities_at(start.line, start.character)  # the core's rule
            entity = here[0].entity if here else None
        actions = actions_for(uri, params.context.diagnostics, entity)
        only = params.context.only
        if only:
            # str() of a (str, Enum) member is "CodeActionKind.QuickFix"; compare the values.
            actions = [a for a in actions if any(_kind(a.kind).startswith(_kind(k)) for k in only)]
        if ctx.client.capability("text_document.code_action.code_action_literal_support") is None:
            # An old client that only understands bare commands.
            return [a.command for a in actions if a.command is not None]
        return list(actions)


def _kind(kind: object) -> str:
    """A code-action kind as its wire value ("quickfix"), whether enum member or string."""
    return str(getattr(kind, "value", kind))


def actions_for(
    uri: str, diagnostics: Sequence[types.Diagnostic], entity: str | None
) -> list[types.CodeAction]:
    """Quick fixes for each Cairn diagnostic, then the decision actions for `entity`."""
    actions: list[types.CodeAction] = []
    seen_history: set[str] = set()
    for diagnostic in diagnostics:
        data = diagnostic.data if isinstance(diagnostic.data, dict) else None
        if diagnostic.source != "cairn" or data is None or not data.get("entity"):
            continue
        target = str(data["entity"])
        ids = [str(i) for i in data.get("verdict_ids") or [diagnostic.code] if i]
        kinds = [str(t) for t in data.get("verdict_types") or []]
        # (title, command, arguments, preferred): superseding a verdict is the fix
        fixes: list[tuple[str, str, dict[str, Any], bool]] = [
            (f"Supersede the {NOUN[kind]} of {target}…", "cairn.supersede", {"of": i}, True)
            for i, kind in zip(ids, kinds, strict=False)
            if kind in NOUN
        ]
        if target not in seen_history:
            seen_history.add(target)
            fixes.append((f"Show history of {target}", "cairn.history", {"show": True}, False))
        for title, command, args, fix in fixes:
            arguments = {"entity": target, **args, "uri": uri}
            actions.append(_action(title, QUICKFIX, command, arguments, [diagnostic], fix))
    if entity:
        actions += [
            _action(
                f"Log a decision for {entity}…",
                DECISION,
                "cairn.log",
                {"entity": entity, "type": "modify", "uri": uri},
            ),
            _action(
                f"Record that {entity} was rejected…",
                DECISION,
                "cairn.reject",
                {"entity": entity, "uri": uri},
            ),
            _action(
                f"Record that {entity} was reverted…",
                DECISION,
                "cairn.revert",
                {"entity": entity, "uri": uri},
            ),
        ]
        if entity not in seen_history:
            actions.append(
                _action(
                    f"Show history of {entity}",
                    DECISION,
                    "cairn.history",
                    {"entity": entity, "show": True, "uri": uri},
                )
            )
    return actions


def _action(
    title: str,
    kind: types.CodeActionKind | str,
    command: str,
    arguments: dict[str, Any],
    diagnostics: list[types.Diagnostic] | None = None,
    preferred: bool = False,
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=kind,
        diagnostics=diagnostics,
        is_preferred=preferred or None,
        command=types.Command(title=title, command=command, arguments=[arguments]),
    )
