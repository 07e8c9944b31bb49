"""The quiet rule's "a table whose columns have such history" holds when the column is
not in the open file (a model after its field was dropped): the lens asks the table's
rollup over every column, as the hover does, through the real server."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import hover_text, initialize, lens_titles, open_doc
from pytest_lsp import LanguageClient

from cairn.store import EventDraft, Store, init_store

MODEL = """\
CREATE TABLE orders (
  id integer PRIMARY KEY,
  total integer NOT NULL
);
CREATE TABLE carts (
  id integer PRIMARY KEY
);
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """orders.coupon was dropped (so it is no longer in the schema file); carts has
    nothing but its imported creation."""
    root = tmp_path / "shop"
    (root / "db").mkdir(parents=True)
    (root / "db" / "schema.sql").write_text(MODEL)
    init_store(root)
    with Store.open(root / ".cairn") as store:
        for entity in ("orders", "orders.id", "orders.total", "carts", "carts.id"):
            kind = "create" if "." not in entity else "add"
            store.append(EventDraft(type=kind, entity=entity, reasoning="0001_initial"))
        store.append(EventDraft(type="add", entity="orders.coupon", reasoning="promo codes"))
        store.append(
            EventDraft(type="remove", entity="orders.coupon", reasoning="fraud with reused codes")
        )
    return root


async def test_a_table_with_a_dropped_column_outside_the_file_gets_a_lens(
    client: LanguageClient, project: Path
) -> None:
    await initialize(client, project)
    uri = open_doc(client, project / "db" / "schema.sql", "sql")
    by_line = await lens_titles(client, uri)
    assert set(by_line) == {0}, by_line  # orders; not its plain columns, not carts
    card = await hover_text(client, uri, 0, len("CREATE TABLE o"))
    assert "coupon" in card  # the hover's full card names the removed column
