"""One rule for the entity at a position (`cairn.core.position`), end to end: the real
server's hover, diagnostics and code actions and the real `cairn which` agree.

The regression (issue 29.1): a SQLAlchemy 2.0 field `email_verified: Mapped[bool] =
mapped_column(...)` was also indexed as a constant at the column's position, and hover
and `which` picked the constant, which had no history: a reverted column showed nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lsp_helpers import cairn_diagnostics, hover_text, lens_titles, open_warned
from lsprotocol import types
from pytest_lsp import LanguageClient

from cairn.store import EventDraft, Store, init_store

MODELS = """\
from django.db import models
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email_verified: Mapped[bool] = mapped_column(default=False)


class Product(models.Model):
    SKU = models.CharField(max_length=32)
"""


def _project(root: Path) -> None:
    (root / "app").mkdir(parents=True)
    (root / "app" / "models.py").write_text(MODELS)
    init_store(root)
    with Store.open(root / ".cairn") as store:
        added = store.append(
            EventDraft(
                type="add",
                entity="users.email_verified",
                reasoning="Verify emails at signup.",
                author="alice",
            )
        ).event.id
        store.append(
            EventDraft(
                type="revert",
                entity="users.email_verified",
                reverts=added,
                reasoning="The verification mail bounced for a third of signups.",
                author="bob",
            )
        )
        # An upper-case class attribute is both a constant and (in a model) a column:
        # both have history here, so the hover shows both, the column first.
        store.append(
            EventDraft(
                type="reject",
                entity="app_product.sku",
                alternative="a free-text SKU",
                reasoning="SKUs come from the warehouse system.",
                author="carol",
            )
        )
        store.append(
            EventDraft(
                type="modify",
                entity="app/models.py::Product.SKU",
                reasoning="Widened to 32 characters for the new supplier.",
                author="dan",
            )
        )


def _at(needle: str) -> types.Position:
    rows = MODELS.splitlines()
    line = next(i for i, row in enumerate(rows) if needle in row)
    return types.Position(line=line, character=rows[line].index(needle) + 2)


async def _hover(client: LanguageClient, uri: str, needle: str) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_at(needle))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_a_mapped_column_hovers_warns_and_acts_as_its_column(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "shop"
    _project(root)
    uri = await open_warned(client, root, root / "app" / "models.py", "python")

    diagnostics = cairn_diagnostics(client, uri)
    by_entity = {d.data["entity"]: d for d in diagnostics}
    column = by_entity["users.email_verified"]
    assert column.severity == types.DiagnosticSeverity.Warning
    assert column.range.start == types.Position(line=_at("email_verified").line, character=4)
    assert "bounced" in column.message
    # no constant at a model field's position
    assert not any("::User." in d.data["entity"] for d in diagnostics)

    card = await _hover(client, uri, "email_verified")
    assert "`users.email_verified`" in card and "bounced" in card
    assert "::User.email_verified" not in card

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=_at("email_verified"), end=_at("email_verified")),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [a.title for a in actions or []]
    assert "Log a decision for users.email_verified…" in titles

    # two entities with history at one place: both cards, the framework entity first
    both = await _hover(client, uri, "SKU")
    assert "`app_product.sku`" in both and "`app/models.py::Product.SKU`" in both
    assert both.index("`app_product.sku`") < both.index("`app/models.py::Product.SKU`")
    assert "warehouse" in both and "new supplier" in both

    # the CLI's `which` says the same, first entity first
    which = subprocess.run(
        [sys.executable, "-m", "cairn", "which", "app/models.py:17:6", "--json"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    rows = json.loads(which.stdout)
    assert [r["entity"] for r in rows] == ["app_product.sku", "app/models.py::Product.SKU"]
    field = subprocess.run(
        [sys.executable, "-m", "cairn", "which", "app/models.py:13:6", "--json"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    assert [(r["entity"], r["status"]) for r in json.loads(field.stdout)] == [
        ("users.email_verified", "reverted")
    ]


CLIENT = """\
class Client:
    MAX = 3

    def upload(self, key):
        return key
"""


async def test_a_class_hover_counts_members_not_columns(
    client: LanguageClient, tmp_path: Path
) -> None:
    """Issue 29.8 in the real server: a class's children are its members (a class is no
    table), and one decision is "1 decision" in the hover and the lens."""
    root = tmp_path / "store"
    (root / "app").mkdir(parents=True)
    (root / "app" / "s3.py").write_text(CLIENT)
    init_store(root)
    with Store.open(root / ".cairn") as store:
        store.append(
            EventDraft(
                type="revert",
                entity="app/s3.py::Client.upload",
                reasoning="Multipart uploads broke on MinIO.",
                author="erin",
            )
        )
    uri = await open_warned(client, root, root / "app" / "s3.py", "python")
    card = await hover_text(client, uri, 0, 7)  # `Client`
    assert "Members: 1 reverted (upload)" in card
    assert "Columns" not in card
    method = await hover_text(client, uri, 3, 9)  # `upload`
    assert "reverted · 1 decision" in method and "1 decisions" not in method
    titles = list((await lens_titles(client, uri)).values())
    assert len(titles) == 1 and titles[0].startswith("1 decision · reverted "), titles
