"""What a handler is given: a narrow context, not the server.

In the manner of ruff's server, a handler sees the parts it works with and nothing
else: the open documents (`Documents`, and the one its request names), the store hub,
the project finder, the settings that apply to its document, and `Client`, a facade
over the editor on the other end. Store and validation errors are mapped to LSP
errors once, where handlers are registered (`CairnServer.handle`), so a handler
raises and never catches them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import msgspec
from lsprotocol import types

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from cairn.core.project import ProjectFinder
    from cairn.lsp.scheduling import Scheduler
    from cairn.lsp.settings import Settings, SettingsByFolder
    from cairn.lsp.state import Documents, OpenDocument
    from cairn.lsp.stores import StoreHub

log = logging.getLogger("cairn.lsp")
CLIENT_WAIT_S = 5.0  # a refresh request the client does not answer is given up


class Client:
    """The editor on the other end: what handlers may tell it and ask of it."""

    def __init__(self, server: LanguageServer) -> None:
        self._server = server
        self._warned: set[str] = set()  # one-time messages already shown

    # --- telling ------------------------------------------------------------------------

    def log(self, message: str, level: types.MessageType = types.MessageType.Log) -> None:
        """A line in the client's output panel (and in our own log)."""
        log.info("%s", message)
        try:
            self._server.window_log_message(types.LogMessageParams(type=level, message=message))
        except Exception:  # before initialize, or the client is gone
            log.debug("could not log to the client: %s", message)

    def show(self, message: str, level: types.MessageType = types.MessageType.Info) -> None:
        """A message the person sees (`window/showMessage`)."""
        self._server.window_show_message(types.ShowMessageParams(type=level, message=message))

    def warn_once(self, key: str, message: str) -> bool:
        """A warning shown once per session; True when shown now."""
        if key in self._warned:
            return False
        self._warned.add(key)
        self.show(message, types.MessageType.Warning)
        return True

    # --- asking -------------------------------------------------------------------------

    def capability(self, path: str) -> Any:
        """A client capability by dotted path (`text_document.diagnostic`), or None."""
        node: Any = self._server.client_capabilities
        for part in path.split("."):
            node = getattr(node, part, None)
            if node is None:
                return None
        return node

    async def show_document(self, uri: str) -> bool:
        """Open `uri` in the editor (focused); False when the client cannot or did not."""
        if not self.capability("window.show_document.support"):
            return False
        try:
            result = await self._server.window_show_document_async(
                types.ShowDocumentParams(uri=uri, take_focus=True)
            )
        except Exception as exc:  # the client's failure, not ours: say so and go on
            self.log(f"showDocument failed: {exc}", types.MessageType.Warning)
            return False
        return bool(result and result.success)

    async def ask(self, message: str, choices: list[str]) -> str | None:
        """A question with buttons (`window/showMessageRequest`); the chosen title."""
        answer = await self._server.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Info,
                message=message,
                actions=[types.MessageActionItem(title=c) for c in choices],
            )
        )
        return answer.title if answer is not None else None

    async def configuration(self, items: list[types.ConfigurationItem]) -> list[Any] | None:
        """`workspace/configuration`; None when the client cannot or failed (logged)."""
        if not self.capability("workspace.configuration"):
            return None
        try:
            return list(
                await self._server.workspace_configuration_async(
                    types.ConfigurationParams(items=items)
                )
                or []
            )
        except Exception as exc:
            self.log(f"workspace/configuration failed: {exc}", types.MessageType.Warning)
            return None

    async def register(self, registration: types.Registration) -> None:
        """`client/registerCapability`; raises what the client answered."""
        await asyncio.wait_for(
            self._server.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            ),
            timeout=10,
        )

    async def refresh_code_lenses(self) -> None:
        """Ask for new code lenses; a client that fails it is its own business."""
        await _quietly(self._server.workspace_code_lens_refresh_async(None))

    async def refresh_diagnostics(self) -> None:
        """Ask a pulling client to pull again; the same."""
        await _quietly(self._server.workspace_diagnostic_refresh_async(None))

    # --- the workspace the client opened --------------------------------------------------

    def folder_uris(self) -> list[str]:
        """The workspace folders' URIs."""
        return [f.uri for f in self._server.workspace.folders.values()]

    def root_uri(self) -> str | None:
        """The workspace root's URI (clients without folders)."""
        return self._server.workspace.root_uri

    def text(self, uri: str) -> str:
        """The document's text as the client last sent it (pygls keeps it)."""
        return self._server.workspace.get_text_document(uri).source


async def _quietly(awaitable: Any) -> None:
    try:
        await asyncio.wait_for(awaitable, timeout=CLIENT_WAIT_S)
    except Exception:
        return


class Context(msgspec.Struct, frozen=True):
    """One handler call's view of the server (built at registration, per call).

    `settings` are those of the request's document (its workspace folder's, by
    `scopeUri`), or the workspace's when the request names no document; `document` is
    the open document the request names, if any.
    """

    client: Client
    documents: Documents
    hub: StoreHub
    projects: ProjectFinder
    scheduler: Scheduler
    settings: Settings
    configuration: SettingsByFolder
    document: OpenDocument | None = None

    @property
    def pulls_diagnostics(self) -> bool:
        """True when the client pulls diagnostics (decided once, at initialize)."""
        return self.documents.pulls_diagnostics
