"""An edit that moves no symbol reuses the findings the statuses gave; anything they
depend on (the severities, the log, the symbols) derives them again. Real server,
scripted editor."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import make_sample
from lsprotocol import types

from cairn.store import EventDraft, Store
from cairn.testing.editor import Editor

MIGRATION = Path("db") / "migrations" / "0042_email_verified.sql"


def shown(diagnostics: list[types.Diagnostic]) -> list[tuple[int, int, str, str]]:
    return sorted(
        (d.range.start.line, int(d.severity or 0), d.message, str(d.code)) for d in diagnostics
    )


async def test_edits_reuse_findings_until_what_they_depend_on_changes(tmp_path: Path) -> None:
    sample = make_sample(tmp_path / "shop")
    editor = Editor()
    await editor.start(sample.root, options={"debounceMs": 0, "pollIntervalMs": 0})
    try:
        uri = editor.open(sample.root / MIGRATION)
        first = shown(await editor.wait_diagnostics(uri))
        assert first, "the sample's migration re-adds a reverted column"

        # A keystroke inside the comment on line 0 moves no symbol: the same findings.
        version = editor.change(uri, (0, 3), (0, 3), "x")
        assert shown(await editor.wait_diagnostics(uri, version=version)) == first

        # Other severities: derived again (a warning on introduce becomes an error).
        editor.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"severity": {"introduce": "error"}})
        )
        version = editor.change(uri, (0, 3), (0, 3), "y")
        again = await editor.diagnostics_after(
            uri,
            editor.publishes[uri],
            until=lambda d: any(x.severity == types.DiagnosticSeverity.Error for x in d),
        )
        assert [s for _, s, _, _ in shown(again)] != [s for _, s, _, _ in first]

        # The log changes underneath (a supersede of the revert): derived again.
        revert = sample.ids["revert"]
        with Store.open(sample.root / ".cairn") as store:
            store.append(
                EventDraft(
                    type="supersede",
                    entity="users.email_verified",
                    supersedes=revert,
                    reasoning="Verification works with the new mail provider.",
                    author="alice",
                )
            )
        seen = editor.publishes[uri]
        version = editor.change(uri, (0, 3), (0, 3), "z")
        after = await editor.diagnostics_after(
            uri, seen, until=lambda d: all(str(x.code) != revert for x in d)
        )
        assert all(code != revert for _, _, _, code in shown(after))
    finally:
        await editor.stop()
