"""Commit links are notes, not decisions: after `cairn link-commit` (what the
post-commit hook runs) the real server's lenses are what they were before the links,
in a real git repository. Each link is an `annotate` event; counted as decisions, two
linked decisions made four events and passed the quiet rule's `busy_after=3`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsp_helpers import hover_text, initialize, lens_titles, open_doc
from pytest_lsp import LanguageClient
from real_cli import cairn, git

from cairn.store import init_store

SCHEMA = """\
CREATE TABLE orders (
  id integer PRIMARY KEY,
  note text,
  gift_wrap boolean
);
"""


def line_of(word: str) -> int:
    return next(i for i, line in enumerate(SCHEMA.splitlines()) if word in line)


def log(root: Path, *args: str) -> None:
    proc = cairn(root, "log", *args)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """orders.note: two decisions (quiet); orders.gift_wrap: added then reverted (a lens).
    All four uncommitted, so the next commit lands them."""
    root = tmp_path / "shop"
    (root / "db").mkdir(parents=True)
    (root / "db" / "schema.sql").write_text(SCHEMA)
    git(root, "init", "-q", "-b", "main")
    init_store(root)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    log(root, "orders.note", "add", "-r", "Support needs a free-text note")
    log(root, "orders.note", "modify", "-r", "Cap it at 500 characters")
    log(root, "orders.gift_wrap", "add", "-r", "Offer gift wrapping")
    log(root, "orders.gift_wrap", "revert", "-r", "Nobody used it and it slowed checkout")
    return root


async def test_linking_commits_changes_no_lens(client: LanguageClient, project: Path) -> None:
    await initialize(client, project)
    uri = open_doc(client, project / "db" / "schema.sql", "sql")
    before = await lens_titles(client, uri)
    assert line_of("note") not in before  # two decisions: quiet
    assert before[line_of("gift_wrap")].startswith("2 decisions · reverted")

    git(project, "add", "-A")
    git(project, "commit", "-qm", "orders: a note, no gift wrapping")
    sha = git(project, "rev-parse", "HEAD")
    proc = cairn(project, "link-commit", "--json")
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["linked"]) == 4  # one link per decision

    # The server has read the links (the hover shows the commit), and its one-line
    # card (the quiet rule's) still counts 2 decisions ...
    card = await hover_text(client, uri, line_of("note"), 3)
    assert f"commit `{sha[:12]}`" in card
    assert card.startswith("**`orders.note`** · active · 2 decisions ·") and "\n" not in card
    # ... and the lenses are what they were: no lens on orders.note (4 events, 2 of
    # them notes), the same title on orders.gift_wrap.
    assert await lens_titles(client, uri) == before

    status = json.loads(cairn(project, "status", "orders.note", "--json").stdout)
    assert (status["decision_count"], status["note_count"]) == (2, 2)
    listed = json.loads(cairn(project, "ls", "--json").stdout)
    note = next(r for r in listed if r["entity"] == "orders.note")
    assert (note["decisions"], note["notes"]) == (2, 2)
    assert "(2 decisions, 2 notes)" in cairn(project, "status", "orders.note").stdout
