"""A change undone by hand in git, imported, then typed again under another name: the
real server warns where the reverted lines come back and says so in the hover."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsp_helpers import cairn_diagnostics, open_warned, wait_for
from lsprotocol import types
from pytest_lsp import LanguageClient
from real_cli import env as real_env

V1 = """\
class JWTManager:
    def encode(self, payload, key):
        headers = {"alg": "HS256"}
        return sign(headers, payload, key)
"""
CRIT = """\
        headers["crit"] = ["b64"]
        headers["b64"] = False
        payload = canonical_json(payload, sort_keys=True)
"""
V2 = V1.replace('"HS256"}\n', '"HS256"}\n' + CRIT)


def _run(root: Path, *args: str, date: str = "2024-02-01T10:00:00Z") -> None:
    env = real_env(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(args, cwd=root, env=env, check=True, capture_output=True)


def _history(root: Path) -> None:
    """JWT manager; the crit header added; the crit header taken out by hand."""
    root.mkdir(parents=True)
    _run(root, "git", "init", "-q", "-b", "main")
    for text, message, date in (
        (V1, "JWT manager", "2024-01-10T10:00:00Z"),
        (V2, "Add crit header to jwt/jws", "2024-02-01T10:00:00Z"),
        (V1, "Take the crit header out again", "2024-02-23T10:00:00Z"),
    ):
        (root / "jwt.py").write_text(text)
        _run(root, "git", "add", "-A")
        _run(root, "git", "commit", "-q", "-m", message, date=date)
    cairn = str(Path(sys.executable).parent / "cairn")
    _run(root, cairn, "init")
    _run(root, cairn, "import", "git")


async def test_reverted_lines_typed_again_warn_and_hover(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "auth"
    _history(root)
    # The same lines again, in a method with another name.
    (root / "jwt.py").write_text(V2.replace("def encode", "def sign_token"))
    uri = await open_warned(client, root, root / "jwt.py", "python")
    [diag] = cairn_diagnostics(client, uri)
    assert diag.message.startswith("this brings back 3 of the 3 lines reverted on 2024-02-23")
    assert "`Take the crit header out again`" in diag.message
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.range.start.line == 3  # the first line that came back
    assert diag.data["kind"] == "fingerprint"
    assert diag.data["entity"] == "jwt.py::JWTManager.encode"
    assert diag.code == diag.data["verdict_ids"][0]

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=4, character=12),  # on a line that came back
        )
    )
    assert hover is not None
    assert "this brings back 3 of the 3 lines" in hover.contents.value

    # Without those lines the diagnostic goes away.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=V1)],
        )
    )
    await wait_for(
        lambda: all(d.data["kind"] != "fingerprint" for d in cairn_diagnostics(client, uri)),
        client,
    )
    # `encode` keeps its open revert: shown as information only, the lines were the change
    [info] = cairn_diagnostics(client, uri)
    assert info.data["entity"] == "jwt.py::JWTManager.encode"
    assert info.severity == types.DiagnosticSeverity.Information

    # The method the revert is recorded on: its card says how the revert was found.
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=9),  # `encode`
        )
    )
    assert hover is not None
    card = hover.contents.value
    assert "Reverted" in card and "found by inverse-patch" in card
    assert "Take the crit header out again" in card
