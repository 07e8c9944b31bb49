"""A tiny scripted editor: starts the real `cairn serve` and talks LSP to it over stdio.

Used by `cairn demo` and `bench/lsp.py`; built on pygls' own client. Everything runs on
the caller's event loop; diagnostics notifications are collected as they arrive and
waiters are woken on each.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pygls.lsp.client import LanguageClient

SERVER_COMMAND = [sys.executable, "-m", "cairn.lsp"]
LANGUAGES = {".sql": "sql", ".py": "python", ".toml": "toml", ".json": "json", ".md": "markdown"}


def fix_code_action_hook(converter: Any) -> None:
    """Structure `Command | CodeAction` by the type of `command`, not its presence.

    lsprotocol 2025's hook turns every code action that carries a command into a bare
    Command, losing its kind and arguments. Real editors are unaffected; Python
    clients (this one, pytest-lsp's) need this.
    """

    def hook(obj: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007


class Editor:
    """One client session with one server process."""

    def __init__(self, env: dict[str, str] | None = None, command: list[str] | None = None) -> None:
        self.command = command or SERVER_COMMAND  # the server to start (bench: the floor)
        self.client = LanguageClient("cairn-editor", "1")
        fix_code_action_hook(self.client.protocol._converter)
        self.env = {**os.environ, "PYTHONSAFEPATH": "1", **(env or {})}
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.versions: dict[str, int | None] = {}
        self.publishes: dict[str, int] = {}  # uri -> how many publishes arrived
        self.published: dict[str, list[list[types.Diagnostic]]] = {}  # uri -> each publish
        self.shown: list[str] = []
        self.messages: list[str] = []
        self._changed = asyncio.Event()
        self._versions: dict[str, int] = {}
        self.spawned_at = 0.0

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.versions[params.uri] = params.version
            self.publishes[params.uri] = self.publishes.get(params.uri, 0) + 1
            self.published.setdefault(params.uri, []).append(list(params.diagnostics))
            self._changed.set()

        @self.client.feature(types.WINDOW_SHOW_DOCUMENT)
        def on_show(params: types.ShowDocumentParams) -> types.ShowDocumentResult:
            self.shown.append(params.uri)
            return types.ShowDocumentResult(success=True)

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def on_message(params: types.ShowMessageParams) -> None:
            self.messages.append(params.message)

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def on_log(params: types.LogMessageParams) -> None:
            return None

        @self.client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def on_lens_refresh(params: None) -> None:
            return None

    async def start(self, *roots: Path, options: dict[str, Any] | None = None) -> None:
        """Start the server and initialize it for these workspace folders."""
        await self.client.start_io(*self.command, env=self.env)
        self.spawned_at = time.perf_counter()
        await self.client.initialize_async(
            types.InitializeParams(
                process_id=os.getpid(),
                root_uri=roots[0].as_uri(),
                workspace_folders=[
                    types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in roots
                ],
                initialization_options=options or {},
                capabilities=types.ClientCapabilities(
                    window=types.WindowClientCapabilities(
                        show_document=types.ShowDocumentClientCapabilities(support=True)
                    ),
                    workspace=types.WorkspaceClientCapabilities(
                        code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True)
                    ),
                    text_document=types.TextDocumentClientCapabilities(
                        hover=types.HoverClientCapabilities(
                            content_format=[types.MarkupKind.Markdown]
                        ),
                        code_action=types.CodeActionClientCapabilities(
                            code_action_literal_support=types.ClientCodeActionLiteralOptions(
                                code_action_kind=types.ClientCodeActionKindOptions(
                                    value_set=[types.CodeActionKind.QuickFix]
                                )
                            )
                        ),
                        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                            version_support=True
                        ),
                    ),
                ),
            )
        )
        self.client.initialized(types.InitializedParams())

    def open(self, path: Path, text: str | None = None) -> str:
        """didOpen; returns the document's URI."""
        uri = path.as_uri()
        self._versions[uri] = 1
        self.diagnostics.pop(uri, None)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri,
                    language_id=LANGUAGES.get(path.suffix, "plaintext"),
                    version=1,
                    text=path.read_text(encoding="utf-8") if text is None else text,
                )
            )
        )
        return uri

    def change(self, uri: str, start: tuple[int, int], end: tuple[int, int], text: str) -> int:
        """An incremental didChange; returns the new version."""
        version = self._versions[uri] = self._versions.get(uri, 1) + 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=start[0], character=start[1]),
                            end=types.Position(line=end[0], character=end[1]),
                        ),
                        text=text,
                    )
                ],
            )
        )
        return version

    async def wait_diagnostics(
        self, uri: str, version: int | None = None, timeout: float = 30.0
    ) -> list[types.Diagnostic]:
        """The next diagnostics for `uri` (for at least `version`, when given)."""

        async def until() -> list[types.Diagnostic]:
            while True:
                if uri in self.diagnostics and (
                    version is None or (self.versions.get(uri) or 0) >= version
                ):
                    return self.diagnostics[uri]
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(until(), timeout)

    async def diagnostics_after(
        self, uri: str, seen: int, until: Any = None, timeout: float = 30.0
    ) -> list[types.Diagnostic]:
        """Diagnostics from a publish newer than the `seen`-th one (and matching `until`)."""

        async def wait() -> list[types.Diagnostic]:
            while True:
                if self.publishes.get(uri, 0) > seen and (
                    until is None or until(self.diagnostics[uri])
                ):
                    return self.diagnostics[uri]
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(wait(), timeout)

    async def hover(self, uri: str, line: int, character: int) -> str | None:
        """The hover's markdown, or None."""
        result = await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
            )
        )
        if result is None or not isinstance(result.contents, types.MarkupContent):
            return None
        return result.contents.value

    async def code_actions(
        self, uri: str, diagnostic: types.Diagnostic
    ) -> list[types.CodeAction | types.Command]:
        """The code actions offered at a diagnostic."""
        result = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic]),
            )
        )
        return list(result or [])

    async def code_lens(self, uri: str) -> list[types.CodeLens]:
        """The document's code lenses."""
        result = await self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return list(result or [])

    async def execute(self, command: str, arguments: dict[str, Any]) -> Any:
        """workspace/executeCommand with one JSON object."""
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=[arguments])
        )

    @property
    def pid(self) -> int | None:
        """The server's process id."""
        server = self.client._server
        return server.pid if server is not None else None

    async def stop(self) -> None:
        """shutdown + exit, and wait for the process."""
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 10)
            self.client.exit(None)
        except Exception:
            server = self.client._server
            if server is not None and server.returncode is None:
                server.kill()
        await asyncio.wait_for(self.client.stop(), 10)
