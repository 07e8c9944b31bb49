"""The first analysis of a log version publishes what the statuses say before it reads
the open reverts (whose cost grows with the log), then adds the bring-backs; once the
reverts are read, one publish holds everything.

Real server, real git history imported (the fingerprinted revert of
test_fingerprints_e2e), scripted editor that records every publish.
"""

from __future__ import annotations

from pathlib import Path

from test_fingerprints_e2e import V2, _history

from cairn.testing.editor import Editor


def kinds(diagnostics: list) -> list[str]:  # type: ignore[type-arg]
    return sorted(d.data["kind"] for d in diagnostics if isinstance(d.data, dict))


async def test_statuses_first_then_the_bring_back_then_one_publish(tmp_path: Path) -> None:
    root = tmp_path / "auth"
    _history(root)
    (root / "jwt.py").write_text(V2.replace("def encode", "def sign_token"))
    editor = Editor()
    await editor.start(root, options={"debounceMs": 0})
    try:
        uri = editor.open(root / "jwt.py")
        await editor.diagnostics_after(uri, 0, until=lambda d: "fingerprint" in kinds(d))
        first, *rest = editor.published[uri]
        assert "fingerprint" not in kinds(first)  # published before the reverts were read
        assert [kinds(d) for d in rest] == [["fingerprint"]]

        # The reverts are read now: the next file's one publish holds the bring-back.
        again = root / "copy.py"
        again.write_text(V2.replace("def encode", "def make_token"))
        other = editor.open(again)
        found = await editor.wait_diagnostics(other)
        assert kinds(found) == ["fingerprint"]
        assert len(editor.published[other]) == 1
    finally:
        await editor.stop()


async def test_without_fingerprinted_reverts_there_is_one_publish(tmp_path: Path) -> None:
    from lsp_helpers import make_sample

    sample = make_sample(tmp_path / "shop")
    editor = Editor()
    await editor.start(sample.root, options={"debounceMs": 0})
    try:
        uri = editor.open(sample.root / "db" / "migrations" / "0042_email_verified.sql")
        found = await editor.wait_diagnostics(uri)
        assert found
        # A hover waits on the store thread behind the open-revert read, so once it is
        # answered the analysis has finished: nothing was published twice.
        await editor.hover(uri, 1, 31)  # on `email_verified`
        assert editor.publishes[uri] == 1
    finally:
        await editor.stop()
