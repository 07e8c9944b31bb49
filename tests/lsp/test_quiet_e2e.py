"""The quiet rule through the real server: lenses and full hover cards only where
history deserves attention; `quiet: false` (initializationOptions or configuration)
brings back a lens on every entity with history."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_helpers import hover_text, initialize, lens_titles, open_doc
from lsprotocol import types
from pytest_lsp import LanguageClient

from cairn.store import EventDraft, Store, init_store

SCHEMA = """\
CREATE TABLE users (
  id integer PRIMARY KEY,
  email text NOT NULL,
  nickname text,
  legacy_flag boolean,
  avatar text,
  bio text,
  phone text
);
CREATE TABLE tags (
  id integer PRIMARY KEY,
  label text NOT NULL
);
"""
IMPORTED = {"source": "alembic:0001_initial"}


def line_of(text: str, word: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if word in line)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A schema whose history is mostly imported creations, with a few that matter."""
    root = tmp_path / "app"
    (root / "db").mkdir(parents=True)
    (root / "db" / "schema.sql").write_text(SCHEMA)
    init_store(root)
    with Store.open(root / ".cairn") as store:

        def add(entity: str, type: str, day: str, reason: str = "", **more: str) -> str:
            draft = EventDraft(
                type=type,
                entity=entity,
                reasoning=reason or f"{type} by migration 0001_initial",
                occurred_at=day,
                author="alembic",
                metadata=dict(IMPORTED),
                **more,
            )
            return store.append(draft).event.id

        # quiet: created by the imported migration, nothing since
        for entity in ("users", "users.id", "users.email", "tags", "tags.id", "tags.label"):
            add(entity, "create" if "." not in entity else "add", "2020-01-01")
        # a removal later re-added
        add("users.nickname", "add", "2020-01-01")
        add("users.nickname", "remove", "2021-03-01", "Nobody filled it in")
        add("users.nickname", "add", "2022-06-01", "Display names need it after all")
        # an open verdict
        added = add("users.legacy_flag", "add", "2020-01-01")
        add("users.legacy_flag", "revert", "2020-02-01", "Broke the mobile login", reverts=added)
        # a re-opened verdict
        rejected = add(
            "users.avatar",
            "reject",
            "2020-03-01",
            "Storage costs",
            alternative="store avatars in the database",
        )
        add(
            "users.avatar",
            "supersede",
            "2023-03-01",
            "Object storage is cheap now",
            supersedes=rejected,
        )
        # many decisions (more than 3)
        for i, day in enumerate(("2020-01-01", "2021-01-01", "2022-01-01", "2023-01-01")):
            add("users.bio", "add" if i == 0 else "modify", day, f"bio change {i}")
        # a review that is due
        add("users.phone", "add", "2020-01-01", "SMS login", revisit_after="2021-01-01")
    return root


async def test_quiet_by_default_loud_where_it_counts(client: LanguageClient, project: Path) -> None:
    await initialize(client, project)
    uri = open_doc(client, project / "db" / "schema.sql", "sql")
    by_line = await lens_titles(client, uri)
    titled = {
        SCHEMA.splitlines()[line].strip().split()[0]: title for line, title in by_line.items()
    }
    assert titled == {
        # the table: its columns' history matters (a revert, a re-added removal...)
        "CREATE": "1 decision",
        "nickname": "3 decisions · re-added after removal",
        "legacy_flag": "2 decisions · reverted 2020-02-01",
        "avatar": "2 decisions · reopened",
        "bio": "4 decisions",
        "phone": "1 decision",
    }
    assert line_of(SCHEMA, "CREATE TABLE users") in by_line
    assert line_of(SCHEMA, "CREATE TABLE tags") not in by_line  # nothing happened there

    # a quiet entity's hover is one line; one that matters gets the full card
    email = line_of(SCHEMA, "email text")
    card = await hover_text(client, uri, email, 3)
    assert "\n" not in card
    assert card.startswith("**`users.email`** · active · 1 decision · 2020-01-01 add by alembic")
    legacy = line_of(SCHEMA, "legacy_flag")
    card = await hover_text(client, uri, legacy, 3)
    assert "⛔ **Reverted**" in card and "Broke the mobile login" in card and "\n" in card
    phone = line_of(SCHEMA, "phone")
    assert "⏰ **Review due**" in await hover_text(client, uri, phone, 3)


async def test_quiet_off_from_initialization_options(client: LanguageClient, project: Path) -> None:
    await initialize(client, project, options={"debounceMs": 20, "quiet": False})
    uri = open_doc(client, project / "db" / "schema.sql", "sql")
    by_line = await lens_titles(client, uri)
    # every entity with history: 2 tables and 9 columns
    assert len(by_line) == 11
    email = line_of(SCHEMA, "email text")
    assert by_line[email] == "1 decision"
    card = await hover_text(client, uri, email, 3)
    assert "\n" in card  # the full card, with its history link on its own block


async def test_quiet_settings_from_configuration(client: LanguageClient, project: Path) -> None:
    # more than 1 decision is "many": every entity with 2+ decisions gets a lens
    client.set_configuration({"quietMaxDecisions": 1, "debounceMs": 10}, section="cairn")
    await initialize(client, project)
    uri = open_doc(client, project / "db" / "schema.sql", "sql")
    by_line = await lens_titles(client, uri)
    assert by_line[line_of(SCHEMA, "bio")] == "4 decisions"
    assert line_of(SCHEMA, "email text") not in by_line

    client.set_configuration({"quiet": False}, section="cairn")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for _ in range(50):
        by_line = await lens_titles(client, uri)
        if len(by_line) == 11:
            break
        await asyncio.sleep(0.1)
    assert len(by_line) == 11
