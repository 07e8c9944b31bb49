"""Settings per workspace folder: `workspace/configuration` is asked per folder
(`scopeUri`), and each document takes its folder's settings over the workspace's."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import cairn_diagnostics, initialize, make_sample, open_doc, wait_for
from lsprotocol import types
from pytest_lsp import LanguageClient

from cairn.lsp.settings import Settings, SettingsByFolder

MIGRATION = "db/migrations/0042_email_verified.sql"


async def test_each_folder_takes_its_own_severity(client: LanguageClient, tmp_path: Path) -> None:
    shop = make_sample(tmp_path / "shop")
    billing = make_sample(tmp_path / "billing")
    client.set_configuration({"debounceMs": 10}, section="cairn")
    client.set_configuration(
        {"debounceMs": 10, "severity": {"introduce": "error"}},
        section="cairn",
        scope_uri=billing.root.as_uri(),
    )
    await initialize(client, shop.root, billing.root)
    shop_uri = open_doc(client, shop.root / MIGRATION, "sql")
    billing_uri = open_doc(client, billing.root / MIGRATION, "sql")

    def severities(uri: str) -> list[types.DiagnosticSeverity | None]:
        return [d.severity for d in cairn_diagnostics(client, uri)]

    # A document opened before the configuration arrived is analysed again once it
    # has: wait for the settled state, then check the other folder kept its own.
    await wait_for(lambda: severities(billing_uri) == [types.DiagnosticSeverity.Error], client)
    await wait_for(lambda: bool(severities(shop_uri)), client)
    assert severities(shop_uri) == [types.DiagnosticSeverity.Warning]


def test_the_innermost_folder_wins_and_others_take_the_workspace_s(tmp_path: Path) -> None:
    outer, inner = tmp_path / "mono", tmp_path / "mono" / "svc"
    by_folder = SettingsByFolder()
    workspace = Settings(debounce_ms=1)
    by_folder.replace(workspace, {outer: Settings(debounce_ms=2), inner: Settings(debounce_ms=3)})
    assert by_folder.for_path(inner / "a.sql").debounce_ms == 3
    assert by_folder.for_path(outer / "b.sql").debounce_ms == 2
    assert by_folder.for_path(tmp_path / "elsewhere.sql").debounce_ms == 1
    assert by_folder.for_path(None) is workspace
