"""Notes added with `cairn annotate` appear with the event they explain: in the hover
card and in the history view (the real server, the real CLI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsp_helpers import (
    Sample,
    hover_text,
    open_warned,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

MIGRATION = "db/migrations/0042_email_verified.sql"
NOTE = "The bounces came from the old SMTP relay, retired in May."


def annotate(root: Path, event_id: str) -> None:
    cairn = str(Path(sys.executable).parent / "cairn")
    proc = subprocess.run(
        [cairn, "annotate", event_id[:10], "-r", NOTE, "--author", "Ada"],
        cwd=root,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr


async def test_hover_and_history_show_the_note_with_its_event(
    client: LanguageClient, sample: Sample
) -> None:
    annotate(sample.root, sample.ids["revert"])
    uri = await open_warned(client, sample.root, sample.root / MIGRATION, "sql")
    col = sample.text(MIGRATION).splitlines()[1].index("email_verified") + 3
    paragraphs = (await hover_text(client, uri, 1, col)).split("\n\n")
    [verdict] = [p for p in paragraphs if p.startswith("⛔")]
    assert "corporate domains" in verdict and f"*Note by Ada:* {NOTE}" in verdict
    # A note is no decision of its own: it is not listed among the newest.
    assert not any(p.startswith("- ") and "annotate" in p for p in paragraphs)

    history = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="cairn.history", arguments=[{"entity": "users.email_verified"}]
        )
    )
    markdown = history["markdown"]
    revert_at = markdown.index("corporate domains")
    assert markdown.index(f"> {NOTE}") > revert_at
    assert "## " not in markdown[revert_at : markdown.index(f"> {NOTE}")]
