"""Constants and settings are entities in the editor too: the real server warns where a
reverted setting is re-introduced and hovers its history (module and class level)."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import cairn_diagnostics, open_warned
from lsprotocol import types
from pytest_lsp import LanguageClient

from cairn.store import EventDraft, Store, init_store

SETTINGS = """\
import os

DEBUG = False
CACHE_TIMEOUT = 300


class Order:
    STATUS_CHOICES = ["new", "paid"]

    def total(self):
        limit = 5
        return limit
"""


def _project(root: Path) -> dict[str, str]:
    (root / "app").mkdir(parents=True)
    (root / "app" / "settings.py").write_text(SETTINGS)
    init_store(root)
    ids: dict[str, str] = {}
    with Store.open(root / ".cairn") as store:

        def add(key: str, **fields: str) -> None:
            ids[key] = store.append(EventDraft(author="alice", **fields)).event.id

        add(
            "add",
            type="add",
            entity="app/settings.py::CACHE_TIMEOUT",
            reasoning="Cache product pages for five minutes.",
            occurred_at="2026-03-01",
        )
        store.append(
            EventDraft(
                author="bob",
                type="revert",
                entity="app/settings.py::CACHE_TIMEOUT",
                reverts=ids["add"],
                reasoning="Stale prices shown after a price change; caching rolled back.",
                occurred_at="2026-03-09",
            )
        )
        add(
            "choices",
            type="modify",
            entity="app/settings.py::Order.STATUS_CHOICES",
            reasoning="Refunds are tracked by the payment provider, not as a status.",
            occurred_at="2026-04-01",
        )
    return ids


def _position(text: str, needle: str) -> types.Position:
    line = next(i for i, row in enumerate(text.splitlines()) if needle in row)
    return types.Position(line=line, character=text.splitlines()[line].index(needle) + 1)


async def test_a_reverted_constant_warns_and_hovers(client: LanguageClient, tmp_path: Path) -> None:
    root = tmp_path / "shop"
    _project(root)
    uri = await open_warned(client, root, root / "app" / "settings.py", "python")

    [diag] = cairn_diagnostics(client, uri)
    assert diag.data["entity"] == "app/settings.py::CACHE_TIMEOUT"
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.range.start == types.Position(line=3, character=0)
    assert diag.range.end == types.Position(line=3, character=len("CACHE_TIMEOUT"))
    assert "Stale prices" in diag.message

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=_position(SETTINGS, "CACHE_TIMEOUT"),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "`app/settings.py::CACHE_TIMEOUT`" in hover.contents.value
    assert "reverted" in hover.contents.value

    # a class-level constant is `file::Class.NAME`
    member = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=_position(SETTINGS, "STATUS_CHOICES"),
        )
    )
    assert member is not None and isinstance(member.contents, types.MarkupContent)
    assert "`app/settings.py::Order.STATUS_CHOICES`" in member.contents.value
    assert "tracked by the payment provider" in member.contents.value

    # a local variable inside a method is no entity: no hover
    local = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=_position(SETTINGS, "limit = 5"),
        )
    )
    assert local is None or "limit" not in local.contents.value  # type: ignore[union-attr]
