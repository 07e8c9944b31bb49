"""DDL statements become table and column changes, read from the parse tree."""

from __future__ import annotations

from cairn.importers.ddl import Change, Unparsed, parse_sql


def changes(sql: str) -> list[tuple[str, str]]:
    return [(c.type, c.entity) for c in parse_sql(sql) if isinstance(c, Change)]


def test_create_alter_drop_in_source_order() -> None:
    sql = """
    CREATE TABLE "Public"."Users" (id serial PRIMARY KEY, "Email" text NOT NULL);
    ALTER TABLE users ADD COLUMN nickname varchar(40);
    ALTER TABLE users RENAME COLUMN nickname TO display_name;
    ALTER TABLE users ALTER COLUMN email TYPE varchar(320);
    ALTER TABLE users ALTER COLUMN email SET NOT NULL;
    ALTER TABLE users ADD COLUMN a int, DROP COLUMN display_name;
    CREATE INDEX idx_users_email ON public.users (email);
    ALTER TABLE users RENAME TO accounts;
    DROP TABLE accounts;
    """
    assert changes(sql) == [
        ("create", "users"),
        ("add", "users.id"),
        ("add", "users.email"),
        ("add", "users.nickname"),
        ("rename", "users.nickname"),
        ("add", "users.display_name"),
        ("retype", "users.email"),
        ("modify", "users.email"),
        ("add", "users.a"),
        ("remove", "users.display_name"),
        ("index_add", "users"),
        ("rename", "users"),
        ("create", "accounts"),
        ("delete", "accounts"),
    ]


def test_rename_records_both_names() -> None:
    found = [c for c in parse_sql("ALTER TABLE t RENAME COLUMN a TO b;") if isinstance(c, Change)]
    assert found[0].metadata == {"renamed_to": "t.b"}
    assert found[1].metadata == {"renamed_from": "t.a"}


def test_data_statements_and_garbage_are_reported_not_imported() -> None:
    out = parse_sql("INSERT INTO users (id) VALUES (1);\nCREATE TABLE (;\nDROP INDEX ix;")
    assert all(isinstance(o, Unparsed) for o in out)
    reasons = [o.reason for o in out if isinstance(o, Unparsed)]
    assert "INSERT" in reasons[0]
    assert any("parse" in r for r in reasons)
    assert any("DROP INDEX" in r for r in reasons)


def test_comment_above_a_statement_becomes_its_note() -> None:
    found = parse_sql("-- PCI: tokens only\n-- never raw cards\nALTER TABLE p ADD COLUMN tok text;")
    assert isinstance(found[0], Change)
    assert found[0].comment == "PCI: tokens only never raw cards"


AGREEMENT_SQL = """
CREATE TABLE "Public"."Users" (id serial PRIMARY KEY, "Email" text NOT NULL);
ALTER TABLE users ADD COLUMN nickname varchar(40);
ALTER TABLE users RENAME COLUMN nickname TO display_name;
ALTER TABLE users ALTER COLUMN email TYPE varchar(320);
ALTER TABLE users ADD COLUMN a int, DROP COLUMN display_name;
CREATE INDEX idx_users_email ON public.users (email);
ALTER TABLE users RENAME TO accounts;
DROP TABLE accounts;
"""


def test_importer_and_indexer_agree_on_what_a_migration_adds_and_removes() -> None:
    """The import and the editor must name the same entities, or a verdict imported
    from a migration would never match the code the indexer sees."""
    from cairn.indexer import index_text
    from importers.fixtures import FLYWAY

    for name, sql in [("db/sample.sql", AGREEMENT_SQL)] + [
        (f"db/{n}", t) for n, t in FLYWAY.items()
    ]:
        changes = [c for c in parse_sql(sql) if isinstance(c, Change)]
        symbols = index_text(sql, name)
        added = {c.entity for c in changes if c.type in ("add", "create")}
        removed = {c.entity for c in changes if c.type in ("remove", "delete", "rename")}
        assert added == {s.entity for s in symbols if str(s.role) == "introduce"}, name
        assert removed == {s.entity for s in symbols if str(s.role) == "remove"}, name
