"""pytest-lsp fixtures: the real `cairn serve` (python -m cairn.lsp) over stdio, and a
realistic sample workspace (see lsp_helpers)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Union

import pytest
import pytest_lsp
from lsp_helpers import SERVER_ENV, Sample, make_sample
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import make_test_lsp_client


@pytest.fixture
def sample(tmp_path: Path) -> Sample:
    return make_sample(tmp_path / "shop")


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


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "cairn.lsp"],
        server_env=SERVER_ENV,
        client_factory=make_client,
    ),
)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()
