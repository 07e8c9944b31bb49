"""The direct path (a match's symbols made without a `Capture`, for patterns with no
resolver, no file filter and only entity kinds) finds exactly what the generic path
finds: the same symbols, in the same order, for one-shot indexes and open documents."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from cairn.indexer import Document, index_text
from cairn.indexer.queries import CompiledQuery, builtin_queries

SAMPLES = {
    "db/migrations/0001_init.sql": """\
-- the first migration
CREATE TABLE users (
  id integer PRIMARY KEY,
  email text NOT NULL,
  team_id integer REFERENCES teams(id)
);
ALTER TABLE users ADD COLUMN nickname text;
ALTER TABLE users DROP COLUMN legacy;
ALTER TABLE users RENAME COLUMN mail TO email2;
ALTER TABLE users ALTER COLUMN email SET NOT NULL;
ALTER TABLE "Accounts" RENAME TO accounts;
CREATE INDEX ix_users_email ON users (email, lower(nickname));
DROP TABLE old_things;
ALTER TABLE users ADD COLUMN nickname text;  -- twice: the duplicate is settled
ALTER TABLE broken ADD COLUMN;
""",
    "app/settings.py": """\
import os

DEBUG = os.environ.get("DEBUG")
SECRET = os.environ["SECRET_KEY"]
HOST = os.getenv("HOST", "localhost")


def handler():
    return os.environ.get("INNER")
""",
    "web/app.js": """\
const express = require("express");
const app = express();
const port = process.env.PORT;
app.get("/users", (req, res) => res.send(process.env.GREETING));
app.post("/users/:id", handler);
""",
    "docker-compose.yml": """\
services:
  web:
    image: app:1
    environment:
      - DATABASE_URL=postgres://db
      - DEBUG
    env_file: .env
  worker:
    environment:
      QUEUE: jobs
""",
    "cmd/main.go": """\
package main

import (
\t"net/http"
\t"os"
)

func main() {
\tport := os.Getenv("PORT")
\thttp.HandleFunc("/health", health)
\t_ = port
}
""",
    "db/migrate/20240101_add_nickname.rb": """\
class AddNickname < ActiveRecord::Migration[7.0]
  def change
    add_column :users, :nickname, :string
    remove_column :users, :legacy
    rename_column :users, :mail, :email
    create_table :teams do |t|
      t.string :name
    end
    drop_table :old_things
    x = ENV["RAILS_KEY"]
  end
end
""",
}


@contextmanager
def generic_only(queries: list[CompiledQuery]) -> Iterator[None]:
    """Every pattern through `match_captures` and `build_symbols` (the generic path)."""
    saved = [q.direct for q in queries]
    try:
        for q in queries:
            object.__setattr__(q, "direct", tuple(False for _ in q.direct))
        yield
    finally:
        for q, direct in zip(queries, saved, strict=True):
            object.__setattr__(q, "direct", direct)


def _queries(doc: Document) -> list[CompiledQuery]:
    assert doc.language is not None
    name = doc.file.rsplit("/", 1)[-1]
    return builtin_queries(doc.language, name, doc._data)


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_direct_path_finds_what_the_generic_path_finds(path: str) -> None:
    text = SAMPLES[path]
    doc = Document(path, text)
    queries = _queries(doc)
    assert any(any(q.direct) for q in queries), "the sample must exercise the direct path"
    direct_doc, direct_once = doc.symbols, index_text(text, path)
    assert direct_doc, path
    with generic_only(queries):
        generic_doc = Document(path, text).symbols
        generic_once = index_text(text, path)
    assert direct_doc == generic_doc
    assert direct_once == generic_once
    assert [s.range for s in direct_doc] == [s.range for s in generic_doc]


def test_direct_path_after_an_edit_matches_a_fresh_generic_index() -> None:
    path = "db/migrations/0001_init.sql"
    text = SAMPLES[path]
    doc = Document(path, text)
    assert doc.symbols
    line = text.splitlines()[6]
    start = line.index("nickname")
    doc.edit(6, start, 6, start + len("nickname"), "alias")
    edited = doc.text
    assert "ADD COLUMN alias text;" in edited
    with generic_only(_queries(doc)):
        expected = index_text(edited, path)
    assert doc.symbols == expected
    assert any(s.entity == "users.alias" for s in doc.symbols)


def test_which_patterns_take_the_direct_path() -> None:
    """Entity kinds without a resolver are direct; code kinds and resolvers are not."""
    sql = builtin_queries("sql", "x.sql", b"")
    assert all(all(q.direct) for q in sql)
    python = builtin_queries("python", "app.py", b"")
    code = [
        direct
        for q in python
        for direct, primaries in zip(q.direct, q.primaries, strict=True)
        if any(kind == "function" for _, kind, _ in primaries)
    ]
    assert code and not any(code)
    resolved = [
        direct
        for q in builtin_queries("python", "app.py", b"flask django sqlalchemy alembic")
        for direct, settings in zip(q.direct, q.settings, strict=True)
        if "resolver" in settings
    ]
    assert resolved and not any(resolved)
