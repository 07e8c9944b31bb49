"""`cairn show FILE` prints what the editor shows (issue 29.8): the real CLI's
diagnostics, lenses and hover cards equal the real server's for the same file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lsp_helpers import cairn_diagnostics, open_warned
from lsprotocol import types
from pytest_lsp import LanguageClient

from cairn.store import EventDraft, Store, init_store

MODELS = """\
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

RETRIES = 3


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email_verified: Mapped[bool] = mapped_column(default=False)
"""

LONG = "The verification mail bounced for a third of signups, so nobody could log in " * 4


def _project(root: Path) -> None:
    (root / "app").mkdir(parents=True)
    (root / "app" / "models.py").write_text(MODELS)
    init_store(root)
    with Store.open(root / ".cairn") as store:
        added = store.append(
            EventDraft(type="add", entity="users.email_verified", reasoning="Verify e-mails.")
        ).event.id
        store.append(
            EventDraft(
                type="revert",
                entity="users.email_verified",
                reverts=added,
                reasoning=LONG,
                author="bob",
            )
        )
        store.append(
            EventDraft(
                type="modify",
                entity="app/models.py::RETRIES",
                reasoning="Three retries ride out the provider's deploys.",
                author="alice",
            )
        )


def _show(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", "show", *args],
        cwd=root,
        capture_output=True,
        text=True,
    )


async def test_show_prints_what_the_server_shows(client: LanguageClient, tmp_path: Path) -> None:
    root = tmp_path / "shop"
    _project(root)
    done = _show(root, "app/models.py", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["file"] == "app/models.py"
    assert [d["entity"] for d in shown["diagnostics"]] == ["users.email_verified"]
    assert {c["entity"] for c in shown["hovers"]} == {
        "users",
        "app/models.py::RETRIES",
        "users.email_verified",
    }

    uri = await open_warned(client, root, root / "app" / "models.py", "python")

    diagnostics = cairn_diagnostics(client, uri)
    assert [
        (d.range.start.line + 1, d.range.start.character + 1, d.message, d.code)
        for d in diagnostics
    ] == [(d["line"], d["column"], d["message"], d["code"]) for d in shown["diagnostics"]]

    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert [
        (lens.range.start.line + 1, lens.command.title if lens.command else None)
        for lens in lenses or []
    ] == [(lens["line"], lens["title"]) for lens in shown["lenses"]]
    assert shown["lenses"], "the reverted column has a lens"

    for card in shown["hovers"]:
        position = types.Position(line=card["line"] - 1, character=card["column"])
        document = types.TextDocumentIdentifier(uri=uri)
        hover = await client.text_document_hover_async(
            types.HoverParams(text_document=document, position=position)
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert hover.contents.value == card["markdown"], card["entity"]


def test_show_in_a_terminal_and_on_bad_input(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    _project(root)
    done = _show(root, "app/models.py")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("app/models.py: 1 diagnostic, 1 lens, 3 hover cards")
    assert "14:5  warning: users.email_verified was reverted" in out
    assert "14:5  users.email_verified: 2 decisions · reverted" in out
    assert "(command:" not in out  # editor command links read as their label
    assert "…." not in out  # a clipped reason ends in one mark

    for args, expected in (
        (("missing.py",), "missing.py: no such file"),
        (("../outside.py",), "is outside the project"),
    ):
        (tmp_path / "outside.py").write_text("x = 1\n")
        bad = _show(root, *args)
        assert bad.returncode == 2
        assert expected in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
    (root / "blob.py").write_bytes(b"\x00\x01binary")
    binary = _show(root, "blob.py")
    assert binary.returncode == 2 and "binary" in binary.stderr
