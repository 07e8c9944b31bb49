"""The one rule for a cosmetic change (`cairn.significance`): what it may ignore, and
what it must not (a change of behaviour is never cosmetic)."""

from __future__ import annotations

import pytest

from cairn.significance import trivial_change


@pytest.mark.parametrize(
    ("path", "removed", "added"),
    [
        # type annotations and a suppression
        ("a.py", ["def f(x):"], ["def f(x: int) -> Optional[str]:  # type: ignore[misc]"]),
        ("a.py", ["    return x"], ["    return cast(Foo, x)"]),
        ("a.py", ["limit = 10"], ["limit: Final[int] = 10"]),
        # formatting: a call wrapped with a trailing comma, quotes, spacing
        ("a.py", ["foo(a, b)"], ["foo(", "    a,", "    b,", ")"]),
        ("a.py", ["x = 'y'"], ['x = "y"']),
        # comments, lint suppressions, imports
        ("a.py", ["# old note"], ["# a new note", "# on two lines"]),
        ("a.py", ["import os"], []),
        ("a.py", ["import sys", "import os"], ["import os", "import sys"]),  # sorted
        ("a.py", [], ["from typing import Optional"]),
        ("a.ts", ["function f(x) {"], ["function f(x: string): void {  // eslint-disable-line"]),
        ("main.go", ["x := y"], ["x := y //nolint:errcheck"]),
        # the project's own release number
        ("requests/__init__.py", ["__version__ = '0.10.2'"], ["__version__ = '0.10.3'"]),
        ("setup.py", ["    version='2.0',"], ["    version='2.1.0rc1',"]),
        ("version.go", ['const Version = "v2.7.5"'], ['const Version = "v2.7.6"']),
    ],
)
def test_cosmetic_changes(path: str, removed: list[str], added: list[str]) -> None:
    assert trivial_change({path: (removed, added)})


@pytest.mark.parametrize(
    ("path", "removed", "added"),
    [
        ("a.py", ["x = {'a': b}"], ["x = {'a': c}"]),
        ("a.py", ["limit = 10"], ["limit = 20  # type: ignore"]),
        ("a.py", ["def f(x):"], ["def f(x, y):"]),
        ("a.ts", ["const a = {b: value}"], ["const a = {b: other}"]),
        ("a.py", [], ["name: str"]),  # a new dataclass field is a field
        ("a.py", ["from modelsearch import *"], ["from wagtailmodelsearch import *"]),
        ("README.md", ["Install  with pip"], ["Install with uv"]),
        ("a.py", ["x = 1"], ["x = 1", "y = 2"]),
        ("a.py", ['API_VERSION = "1.0"'], ['API_VERSION = "2.0"']),  # a protocol's
        ("a.py", ["version = detect()"], ["version = probe()"]),
    ],
)
def test_changes_of_behaviour_are_never_cosmetic(
    path: str, removed: list[str], added: list[str]
) -> None:
    assert not trivial_change({path: (removed, added)})


def test_no_file_and_a_huge_change_are_not_judged_cosmetic() -> None:
    assert not trivial_change({})
    lines = [f"# comment {i}" for i in range(30_000)]
    assert not trivial_change({"a.py": (lines, [])})  # bounded: never read to the end


@pytest.mark.parametrize(
    ("path", "prose"),
    [
        ("CHANGELOG.txt", True),
        ("docs/releases/2.11.rst", True),
        ("changelog_unreleased/javascript/pr-7787.md", True),
        ("README.md", True),
        ("docs/ref/models.txt", True),  # Django-style docs
        ("docs/_templates/sidebarintro.html", True),  # the docs site's theme
        ("docs/_static/native.js", True),
        # code and manifests stay decisions, wherever they are
        ("requirements.txt", False),
        ("docs/requirements.txt", False),
        ("docs/models.py", False),  # djangoproject.com's docs app
        ("docs/templates/docs/doc.html", False),
        ("releases/models.py", False),
        ("history/views.py", False),
        (".github/workflows/release.yml", False),  # a CI workflow, named like notes
        ("NEWS", True),
        # a decision record is prose whose undo is a decision
        ("doc/adr/0004-use-postgres.md", False),
        ("docs/decisions/0002-drop-celery.md", False),
    ],
)
def test_notes_are_prose_and_only_prose(path: str, prose: bool) -> None:
    from cairn.significance import notes

    assert notes(path) is prose
