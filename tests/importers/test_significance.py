"""The one rule for a cosmetic change (`cairn.significance`): what it may ignore, and
what it must not (a change of behaviour is never cosmetic)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from cairn.significance import accident, trivial_change, trivial_files


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
        ("NOTICE", True),
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


def test_a_file_is_judged_on_its_own_lines() -> None:
    """Per file: in a change that also altered code, a file only reformatted, commented
    out / back in, or whose imports followed a module move is cosmetic on its own."""
    files = {
        "shop/prices.py": (["    return x"], ["    return x * 2"]),
        "shop/names.py": (["foo(a, b)"], ["foo(", "    a,", "    b,", ")"]),
        "tools/release.sh": (["npm publish", "git push"], ["# npm publish", "# git push"]),
        "shop/views.py": (["from shop.core.models import Item"], ["from shop.models import Item"]),
        "web/app.js": (['import x from "../a/foo"'], ['import x from "../../lib/foo.js"']),
        "shop/search.py": (["from search.index import *"], ["from wagtailsearch.index import *"]),
        "web/dates.js": (['import d from "moment"'], ['import d from "dayjs"']),
        "tools/steps.py": (["# step()"], ["step()", "other()"]),  # more than a toggle
        # a stray keystroke in the commented copy is still a toggle; a value changed is not
        "release.js": (['  // "./steps/install.js",s', '  // "./steps/test.js",'],
                       ['  "./steps/install.js",', '  "./steps/test.js",']),
        "limits.py": (["# TIMEOUT = 30", "# RETRIES = 5"], ["TIMEOUT = 300", "RETRIES = 50"]),
        # the same names from another path of the same package; another package's are not
        "src/index.js": (['import { patch } from "diff/lib/patch/create.js";'],
                         ['import { patch } from "diff";']),
        "src/core.js": (['import { patch } from "diff";'], ['import { patch } from "jsdiff";']),
    }  # fmt: skip
    assert trivial_files(files) == {
        "shop/names.py",
        "tools/release.sh",
        "shop/views.py",
        "web/app.js",
        "release.js",
        "src/index.js",
    }
    assert not trivial_change(files)
    assert trivial_change({p: files[p] for p in ("shop/names.py", "tools/release.sh")})


WEEK = 7 * 24 * 60


@pytest.mark.parametrize(
    ("words", "author", "minutes", "quick"),
    [
        ('Revert "Add debug view"', "ann", 3, True),  # minutes later, nothing said
        ('Revert "Add debug view"', "ann", 18, False),  # long enough to have found a fault
        ('Revert "Add debug view"\n\nPushed to the wrong branch', "bob", WEEK, True),
        ("Remove accidentally committed file", "bob", WEEK, True),
        ('Revert "Add debug view"', "bob", 3, False),  # someone else
        ('Revert "Add debug view"', "ann", 120, False),  # hours later
        ('Revert "Add debug view"\n\nIt leaks settings.', "ann", 5, False),  # a reason
        ('Revert "Fix accidental double charge"', "bob", WEEK, False),  # the quoted subject's
    ],
)
def test_an_accident_is_said_or_silent_and_quick(
    words: str, author: str, minutes: int, quick: bool
) -> None:
    made = datetime(2024, 1, 1, 10, tzinfo=timezone.utc)
    when = (made + timedelta(minutes=minutes)).isoformat()
    assert accident(words, author, when, "ann", made.isoformat()) is quick


def test_the_package_re_exports_exactly_what_the_judge_exports() -> None:
    # The package lists the judge's names itself so that `quiet` stays import-light; a
    # name added to one list and not the other would fail only on first use, elsewhere.
    import cairn.significance as significance
    import cairn.significance.judge as judge

    assert set(significance._JUDGED) == set(judge.__all__)
    for name in significance.__all__:
        assert getattr(significance, name) is not None
