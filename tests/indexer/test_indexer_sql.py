"""SQL DDL and migrations: tables, columns, ALTERs, DROPs, indexes, quoting, comments."""

from __future__ import annotations

from indexer_helpers import entities, one, span

from cairn.indexer import Role, index_text

MIGRATION = """\
-- 001: accounts
/* block comment mentioning CREATE TABLE nothing (x int); */
CREATE TABLE IF NOT EXISTS public."Users" (
    id serial PRIMARY KEY,
    "Email" text NOT NULL,
    org_id int REFERENCES orgs(id)
);
ALTER TABLE users ADD COLUMN email_verified boolean DEFAULT false;
ALTER TABLE users DROP COLUMN legacy_flag;
ALTER TABLE users RENAME COLUMN nick TO nickname;
ALTER TABLE users ALTER COLUMN org_id TYPE bigint;
ALTER TABLE sessions RENAME TO user_sessions;
DROP TABLE IF EXISTS old_things;
CREATE UNIQUE INDEX ix_users_email ON app.users (lower(email), org_id);
"""


def test_create_table_introduces_the_table_and_every_column() -> None:
    symbols = index_text(MIGRATION, "db/001.sql")
    table = one(symbols, "users", Role.INTRODUCE)
    assert table.kind == "table"
    assert table.name_range == span(MIGRATION, '"Users"')
    assert table.range.start_line == 2 and table.range.end_line == 6
    assert one(symbols, "users.id", Role.INTRODUCE).name_range == span(MIGRATION, "id")
    email = one(symbols, "users.email", Role.INTRODUCE)
    assert email.kind == "column"
    assert email.name_range == span(MIGRATION, '"Email"')
    assert email.range == span(MIGRATION, '"Email" text NOT NULL')
    assert one(symbols, "users.org_id", Role.INTRODUCE).name_range == span(MIGRATION, "org_id")


def test_alter_table_add_drop_rename_alter_column() -> None:
    symbols = index_text(MIGRATION, "db/001.sql")
    added = one(symbols, "users.email_verified", Role.INTRODUCE)
    assert added.name_range == span(MIGRATION, "email_verified")
    dropped = one(symbols, "users.legacy_flag", Role.REMOVE)
    assert dropped.name_range == span(MIGRATION, "legacy_flag")
    assert one(symbols, "users.nick", Role.REMOVE).name_range == span(
        MIGRATION, "nick", after="RENAME COLUMN"
    )
    assert one(symbols, "users.nickname", Role.INTRODUCE).name_range == span(MIGRATION, "nickname")
    altered = [
        s.name_range for s in symbols if s.entity == "users.org_id" and s.role is Role.REFERENCE
    ]
    assert altered[0] == span(MIGRATION, "org_id", after="ALTER COLUMN")


def test_rename_and_drop_table() -> None:
    symbols = index_text(MIGRATION, "db/001.sql")
    assert one(symbols, "sessions", Role.REMOVE).name_range == span(MIGRATION, "sessions")
    assert [s.role for s in symbols if s.entity == "sessions"] == [Role.REMOVE]
    assert one(symbols, "user_sessions", Role.INTRODUCE).name_range == span(
        MIGRATION, "user_sessions"
    )
    assert one(symbols, "old_things", Role.REMOVE).name_range == span(MIGRATION, "old_things")


def test_create_index_references_schema_qualified_table_and_columns() -> None:
    symbols = index_text(MIGRATION, "db/001.sql")
    line = MIGRATION.splitlines().index(
        "CREATE UNIQUE INDEX ix_users_email ON app.users (lower(email), org_id);"
    )
    on_line = [
        t
        for t, s in zip(entities(symbols), symbols, strict=True)
        if s.name_range.start_line == line
    ]
    assert on_line == [
        ("users", "table", "reference"),
        ("users.email", "column", "reference"),
        ("users.org_id", "column", "reference"),
    ]


def test_foreign_key_references_the_other_table() -> None:
    symbols = index_text(MIGRATION, "db/001.sql")
    assert one(symbols, "orgs", Role.REFERENCE).name_range == span(MIGRATION, "orgs")
    assert one(symbols, "orgs.id", Role.REFERENCE).name_range == span(
        MIGRATION, "id", after="orgs("
    )


def test_comments_name_nothing() -> None:
    symbols = index_text(MIGRATION, "db/001.sql")
    assert all(s.name_range.start_line >= 2 for s in symbols)
    assert not [s for s in symbols if s.entity.startswith("nothing")]


def test_several_statements_in_order_and_case_folding() -> None:
    text = "create table Orders (ID int);\nALTER TABLE ORDERS add column Total numeric;\n"
    assert entities(index_text(text, "schema.sql")) == [
        ("orders", "table", "introduce"),
        ("orders.id", "column", "introduce"),
        ("orders", "table", "reference"),
        ("orders.total", "column", "introduce"),
    ]


def test_drop_index_on_a_table_references_it() -> None:
    text = "DROP INDEX ix_email ON Accounts;\nDROP INDEX ix_orphan;\n"
    symbols = index_text(text, "db/002.sql")
    assert entities(symbols) == [("accounts", "table", "reference")]
    assert symbols[0].name_range == span(text, "Accounts")


def test_one_alter_table_with_several_actions_gives_each_its_column() -> None:
    # the actions are alternatives of one pattern: every one must still match
    text = (
        "ALTER TABLE users ADD COLUMN a int, DROP COLUMN b,\n"
        "  RENAME COLUMN c TO d, ALTER COLUMN e TYPE text;\n"
        "CREATE INDEX ix ON users (f, lower(g));\n"
    )
    symbols = index_text(text, "db/002.sql")
    assert one(symbols, "users.a", Role.INTRODUCE).range == span(text, "ADD COLUMN a int")
    assert one(symbols, "users.b", Role.REMOVE).range == span(text, "DROP COLUMN b")
    rename = span(text, "RENAME COLUMN c TO d")
    assert one(symbols, "users.c", Role.REMOVE).range == rename
    assert one(symbols, "users.d", Role.INTRODUCE).range == rename
    assert one(symbols, "users.e", Role.REFERENCE).range == span(text, "ALTER COLUMN e TYPE text")
    assert one(symbols, "users.f", Role.REFERENCE).name_range == span(text, "f", after="(")
    assert one(symbols, "users.g", Role.REFERENCE).name_range == span(text, "g", after="lower(")
