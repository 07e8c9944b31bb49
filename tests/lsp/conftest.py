"""pytest-lsp fixtures: the real `cairn serve` (python -m cairn.lsp) over stdio, and a
realistic sample workspace (see lsp_helpers)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import SERVER_ENV, Sample, make_client, make_sample
from pytest_lsp import ClientServerConfig, LanguageClient


@pytest.fixture
def sample(tmp_path: Path) -> Sample:
    return make_sample(tmp_path / "shop")


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
