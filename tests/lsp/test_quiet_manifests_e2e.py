"""Quiet manifests through the real server on a real imported git history (issue 29
item 5): version bumps are history, not attention, so a requirements.txt line gets a
lens only for an open verdict or a conflict; a dependency in no manifest is `removed`,
on the commit that took it out, whatever that commit's message said."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import hover_text, initialize, lens_titles, open_doc
from pytest_lsp import LanguageClient
from real_cli import cairn, cairn_json, commit, git

START = "django==4.0\nrequests==2.28\ncelery==5.0\nsix==1.15\n"


def history(root: Path) -> dict[str, str]:
    git(root, "init", "-q", "-b", "main")
    assert cairn(root, "init").returncode == 0
    text = START
    commit(root, "Start", "2023-01-01T10:00:00Z", {"requirements.txt": text})
    for i, (old, new) in enumerate(
        (("4.0", "4.1"), ("4.1", "4.2"), ("4.2", "5.0"), ("5.0", "5.1"))
    ):
        text = text.replace(f"django=={old}", f"django=={new}")
        commit(
            root, f"Bump django to {new}", f"2023-0{i + 2}-01T10:00:00Z", {"requirements.txt": text}
        )
    text = text.replace("six==1.15", "six==1.16")
    commit(root, "Bump six", "2023-06-01T10:00:00Z", {"requirements.txt": text})
    commit(
        root,
        "Bump celery to 5.3",
        "2023-07-01T10:00:00Z",
        {"requirements.txt": text.replace("celery==5.0", "celery==5.3")},
    )
    git(root, "revert", "--no-edit", "HEAD", date="2023-07-02T10:00:00Z")
    tidy = commit(
        root,
        "Tidy up",
        "2023-08-01T10:00:00Z",
        {"requirements.txt": text.replace("six==1.16\n", "")},
    )
    return {"tidy": tidy}


async def test_a_manifest_lenses_only_what_needs_acting_on(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "app"
    root.mkdir()
    shas = history(root)
    cairn_json(root, "import", "git")

    # six left in a commit that does not name it: removed, on that commit.
    six = cairn_json(root, "status", "deps/six")
    assert six["status"] == "removed"
    assert six["latest"]["type"] == "remove" and six["latest"]["commit"] == shas["tidy"]
    assert cairn_json(root, "status", "deps/django")["event_count"] == 4  # the bumps, kept

    await initialize(client, root)
    manifest = root / "requirements.txt"
    uri = open_doc(client, manifest, "pip-requirements")
    lines = manifest.read_text().splitlines()
    by_line = await lens_titles(client, uri)
    # celery's bump was reverted: an open verdict. django's four bumps are not attention.
    assert {lines[n].split("==")[0]: title for n, title in by_line.items()} == {
        "celery": "2 decisions · reverted 2023-07-02"
    }
    django = next(n for n, line in enumerate(lines) if line.startswith("django"))
    assert "\n" not in await hover_text(client, uri, django, 2)  # the one-line card
