"""Helpers for the language-server tests: sample workspaces with real `.cairn/` logs
written through the store, client capabilities, and waiting on notifications."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import make_test_lsp_client

from cairn.store import EventDraft, Store, init_store

SERVER_ENV = {
    **os.environ,
    "PYTHONSAFEPATH": "1",  # never import the bare source folders from the cwd
    "CAIRN_AUTHOR": "alice",
}

MIGRATION = """\
-- 0042: bring back e-mail verification
ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false;
CREATE INDEX users_email_idx ON users (email);
"""

MODELS = """\
from sqlalchemy import Boolean, Column, Integer, String
from sqlalchemy.orm import declarative_base

Base = declarative_base()


class User(Base):
    __tablename__ = "users"

    id = Column(Integer, primary_key=True)
    email = Column(String, nullable=False)


def send_welcome(user):
    return f"Welcome {user.email}"
"""

PYPROJECT = """\
[project]
name = "shop"
version = "1.0"
dependencies = ["stripe>=8", "requests>=2.31"]
"""


@dataclass
class Sample:
    """A project on disk with decisions in its log."""

    root: Path
    ids: dict[str, str]

    def uri(self, rel: str) -> str:
        return (self.root / rel).as_uri()

    def text(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def append(self, **fields: Any) -> str:
        with Store.open(self.root / ".cairn") as store:
            return store.append(EventDraft(**fields)).event.id


def make_sample(root: Path) -> Sample:
    """A shop backend: a migration re-adding a reverted column, a model, a manifest."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "db" / "migrations").mkdir(parents=True)
    (root / "app").mkdir()
    (root / "db" / "migrations" / "0042_email_verified.sql").write_text(MIGRATION)
    (root / "app" / "models.py").write_text(MODELS)
    (root / "pyproject.toml").write_text(PYPROJECT)
    init_store(root)
    ids: dict[str, str] = {}
    with Store.open(root / ".cairn") as store:

        def add(key: str, **fields: Any) -> None:
            ids[key] = store.append(EventDraft(author="alice", **fields)).event.id

        add(
            "add",
            type="add",
            entity="users.email_verified",
            reasoning="Verify e-mails.",
            occurred_at="2026-03-01",
        )
        add(
            "revert",
            type="revert",
            entity="users.email_verified",
            reverts=ids["add"],
            reasoning="Verification mails bounced for corporate domains; rolled back.",
            occurred_at="2026-04-02",
        )
        add(
            "reject",
            type="reject",
            entity="deps/stripe",
            alternative="use stripe for payouts",
            reasoning="Payout fees too high for our volume.",
            occurred_at="2026-05-01",
        )
        add(
            "welcome",
            type="modify",
            entity="app/models.py::send_welcome",
            reasoning="Greet by e-mail until display names exist.",
            occurred_at="2026-05-03",
        )
    return Sample(root, ids)


def capabilities(
    *, pull: bool = False, watch: bool = False, refresh: bool | None = None
) -> types.ClientCapabilities:
    """An editor that shows documents, reads configuration and (optionally) pulls;
    a pulling editor can be asked to re-pull unless `refresh` is False (Neovim 0.11)."""
    return types.ClientCapabilities(
        window=types.WindowClientCapabilities(
            show_document=types.ShowDocumentClientCapabilities(support=True)
        ),
        workspace=types.WorkspaceClientCapabilities(
            configuration=True,
            workspace_folders=True,
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=watch
            ),
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(
                refresh_support=pull if refresh is None else refresh
            ),
        ),
        text_document=types.TextDocumentClientCapabilities(
            hover=types.HoverClientCapabilities(
                content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
            ),
            diagnostic=types.DiagnosticClientCapabilities() if pull else None,
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]
                    )
                )
            ),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        ),
    )


async def initialize(
    client: LanguageClient,
    *roots: Path,
    pull: bool = False,
    watch: bool = False,
    refresh: bool | None = None,
    options: dict[str, Any] | None = None,
) -> types.InitializeResult:
    """initialize + initialized for a workspace with these folders."""
    folders = [types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in roots]
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(pull=pull, watch=watch, refresh=refresh),
            root_uri=roots[0].as_uri() if roots else None,
            workspace_folders=folders or None,
            initialization_options=options if options is not None else {"debounceMs": 20},
        )
    )


def open_doc(client: LanguageClient, path: Path, language: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id=language, version=version, text=path.read_text()
            )
        )
    )
    return uri


async def wait_for(
    predicate: Callable[[], bool], client: LanguageClient, timeout: float = 15.0
) -> None:
    """Wait for diagnostics notifications until `predicate` holds (never a timing assert)."""

    async def loop() -> None:
        while not predicate():
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    await asyncio.wait_for(loop(), timeout)


async def open_warned(
    client: LanguageClient, root: Path, path: Path, language: str, **init: Any
) -> str:
    """The start of most end-to-end tests: initialize on the folder `root`, open `path`,
    and wait until the server has published Cairn's diagnostics on it; its uri."""
    await initialize(client, root, **init)
    uri = open_doc(client, path, language)
    await wait_for(lambda: bool(cairn_diagnostics(client, uri)), client)
    return uri


async def hover_at(client: LanguageClient, uri: str, line: int, character: int) -> str | None:
    """The hover's markdown at a position, or None when the server shows none."""
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    if found is None:
        return None
    assert isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def hover_text(client: LanguageClient, uri: str, line: int, character: int) -> str:
    """`hover_at` where a hover must be shown."""
    text = await hover_at(client, uri, line, character)
    assert text is not None, f"no hover at {line}:{character}"
    return text


async def lens_titles(client: LanguageClient, uri: str) -> dict[int, str]:
    """Line -> title of each code lens on the document (each opens the history)."""
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    out = {}
    for lens in found or []:
        assert lens.command is not None and lens.command.command == "cairn.history"
        out[lens.range.start.line] = lens.command.title
    return out


async def only_message(client: LanguageClient) -> types.ShowMessageParams:
    """The one window message the server has shown, once it has shown one (a second
    document opened must not repeat it)."""
    for _ in range(100):
        if client.messages:
            break
        await asyncio.sleep(0.05)
    [message] = client.messages
    return message


def cairn_diagnostics(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    return [d for d in client.diagnostics.get(uri, []) if d.source == "cairn"]


def make_client() -> LanguageClient:
    """pytest-lsp's client, with lsprotocol's Command|CodeAction hook fixed.

    lsprotocol 2025 structures every code action that *has* a command as a bare
    Command (it checks for the key, not for a string), which loses the action's kind
    and arguments on the client side. Editors are not affected; this test client is.
    """
    client = make_test_lsp_client()
    converter = client.protocol._converter

    def hook(obj: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007
    client.code_lens_refreshes = 0  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def code_lens_refresh(params: None) -> None:
        client.code_lens_refreshes += 1  # type: ignore[attr-defined]

    client.registrations = []  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    return client
