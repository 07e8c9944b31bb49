"""Precision of imported reverts (issue 28): what blocks must be a decision.

Fingerprints come from code (no licence text, comments, imports), cosmetic reverts are
recorded but quiet, dependency verdicts are about the versions a revert took back, and
removing again what a revert put back is caught. Every test builds a real git history,
runs the real `cairn import git`, then the real `cairn check --diff HEAD`.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from real_cli import BIN, blocking, cairn_json, check_diff, commit, env, git

from cairn.store import Store

LICENCE = "".join(
    f"{line}\n"
    for line in (
        "Copyright (c) 2019 The Example Authors. All rights reserved.",
        "Permission is hereby granted, free of charge, to any person obtaining a copy",
        "of this software and associated documentation files (the Software), to deal",
        "in the Software without restriction, including without limitation the rights",
        "to use, copy, modify, merge, publish, distribute, sublicense, and or sell",
        "copies of the Software, and to permit persons to whom the Software is",
        "furnished to do so, subject to the following conditions: the above notice",
        "and this permission notice shall be included in all copies or substantial",
        "portions of the Software. THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY",
        "OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES",
        "OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.",
        "IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,",
    )
)


def reverts(root: Path) -> list:
    with Store.open(root / ".cairn") as store:
        return [e for ent in store.entities() for e in store.history(ent) if e.type == "revert"]


# --- fingerprints from code ------------------------------------------------------------


def test_a_licence_header_never_brings_back_a_reverted_licence_file(project: Path) -> None:
    commit(project, "App", "2024-01-01T10:00:00Z", {"app/core.py": "def main():\n    run()\n"})
    commit(project, "Vendor the SDK licence", "2024-01-02T10:00:00Z", {"sdk/LICENSE": LICENCE})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    cairn_json(project, "import", "git")
    [event] = reverts(project)
    assert event.entity == "sdk/LICENSE"
    # A new module whose header is that licence, as comments and as a docstring.
    header = "".join(f"# {line}\n" for line in LICENCE.splitlines())
    body = "def handler(request):\n    return respond(request.user, status=200)\n"
    (project / "app" / "handler.py").write_text(header + body)
    doc = '"""\n' + LICENCE + '"""\n'
    (project / "app" / "other.py").write_text(doc + body.replace("handler", "other"))
    git(project, "add", "-A")
    code, report = check_diff(project)
    assert code == 0, blocking(report)
    assert event.metadata["print_scope"] == "text"  # prose, not code
    # The licence file itself coming back is still that revert returning.
    (project / "sdk").mkdir()
    (project / "sdk" / "LICENSE").write_text(LICENCE)
    git(project, "add", "-A")
    code, report = check_diff(project)
    assert code == 1
    assert any("brings back 12 of the 12 lines" in f["message"] for f in blocking(report))


def test_a_module_s_licence_comments_and_imports_are_not_its_fingerprint(project: Path) -> None:
    header = "".join(f"# {line}\n" for line in LICENCE.splitlines())
    imports = "import os\nimport json\nfrom collections import OrderedDict\n\n"
    code = (
        "def export_rows(rows, target):\n"
        "    ordered = OrderedDict(sorted(rows.items()))\n"
        "    target.write(json.dumps(ordered, indent=2))\n"
        "    return os.path.getsize(target.name)\n"
    )
    commit(project, "App", "2024-01-01T10:00:00Z", {"app/__init__.py": "VERSION = 1\n"})
    commit(
        project, "Add exporter", "2024-01-02T10:00:00Z", {"app/export.py": header + imports + code}
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    cairn_json(project, "import", "git")
    prints = {h for e in reverts(project) for h in e.metadata.get("fingerprint", "").split()}
    assert len(prints) == 4  # the function's four lines; no licence line, no import
    # Another module with the same header and imports, but other code: no finding.
    other = "def import_rows(source):\n    return json.loads(source.read_text())\n"
    (project / "app" / "imports.py").write_text(header + imports + other)
    git(project, "add", "-A")
    code_, report = check_diff(project)
    assert code_ == 0, blocking(report)
    # The reverted code itself, under another file name and without its header: caught.
    (project / "app" / "exporter.py").write_text(imports + code)
    git(project, "add", "-A")
    code_, report = check_diff(project)
    assert code_ == 1
    assert any(f["kind"] == "fingerprint" for f in blocking(report))


# --- significance ----------------------------------------------------------------------

MODULE = """\
def total(items):
    return sum(item.price for item in items)


def label(item):
    return item.name.title()
"""

TYPED = """\
from typing import Iterable


def total(items: Iterable[Item]) -> int:
    return sum(item.price for item in items)  # type: ignore[attr-defined]


def label(item: Item) -> str:
    # the catalogue stores names in lower case
    return item.name.title()
"""


def test_a_cosmetic_revert_is_recorded_but_never_blocks_nor_fills_the_digest(
    project: Path,
) -> None:
    commit(project, "Prices", "2024-01-01T10:00:00Z", {"shop/prices.py": MODULE})
    commit(project, "Fix mypy warning", "2024-01-02T10:00:00Z", {"shop/prices.py": TYPED})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    # A real change, reverted too: it must still block (the rule is not "nothing").
    real = MODULE.replace("item.name.title()", "item.name.title() + ' (' + item.sku + ')'")
    commit(project, "Show the SKU in labels", "2024-01-04T10:00:00Z", {"shop/prices.py": real})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-05T10:00:00Z")
    cairn_json(project, "import", "git")
    events = reverts(project)
    quiet = [e for e in events if e.metadata.get("significance") == "trivial"]
    loud = [e for e in events if "significance" not in e.metadata]
    assert quiet and {e.metadata["revert_subject"] for e in quiet} == {'Revert "Fix mypy warning"'}
    assert loud and all("SKU" in e.metadata["revert_subject"] for e in loud)
    # Putting the annotations back: nothing blocks.
    (project / "shop" / "prices.py").write_text(TYPED)
    code, report = check_diff(project)
    assert code == 0, blocking(report)
    # Putting the SKU back: blocked.
    (project / "shop" / "prices.py").write_text(real)
    code, report = check_diff(project)
    assert code == 1 and blocking(report)
    git(project, "checkout", "--", "shop")
    # history shows the cosmetic revert; the digest does not list it.
    entity = quiet[0].entity
    shown = cairn_json(project, "history", entity)
    assert any(e["id"] == quiet[0].id for e in shown)
    digest = cairn_json(project, "digest", "--paths", "shop/prices.py")
    listed = {i["id"] for i in digest["items"]}
    assert not listed & {e.id for e in quiet}
    assert listed & {e.id for e in loud}


# --- dependency verdicts are about versions ---------------------------------------------


def requirements(**pins: str) -> str:
    return "".join(f"{name}=={version}\n" for name, version in pins.items())


def test_a_restored_manifest_gives_verdicts_only_to_what_the_reverted_commit_changed(
    project: Path,
) -> None:
    base = {"boto3": "1.26.0", "django": "4.2.1", "pytest": "7.4.0", "requests": "2.31.0"}
    commit(project, "Deps", "2024-01-01T10:00:00Z", {"requirements.txt": requirements(**base)})
    pinned = {**base, "pytest": "8.0.0"}
    commit(
        project,
        "Pin pytest 8",
        "2024-01-02T10:00:00Z",
        {"requirements.txt": requirements(**pinned)},
    )
    bumped = {**pinned, "boto3": "1.28.0", "requests": "2.32.0"}
    commit(
        project,
        "Bump boto3 and requests",
        "2024-01-03T10:00:00Z",
        {"requirements.txt": requirements(**bumped)},
    )
    # The revert of "Pin pytest 8" restores the whole file as it was before it.
    commit(
        project,
        'Revert "Pin pytest 8"\n\nThis reverts commit ' + git(project, "rev-parse", "HEAD~1") + ".",
        "2024-01-04T10:00:00Z",
        {"requirements.txt": requirements(**base)},
    )
    cairn_json(project, "import", "git")
    assert {e.entity for e in reverts(project)} == {"deps/pytest"}
    # A bot's patch bump of another dependency: nothing to say.
    path = project / "requirements.txt"
    path.write_text(requirements(**{**base, "boto3": "1.26.1"}))
    code, report = check_diff(project)
    assert code == 0 and not report["findings"], report
    # Another pytest version: shown, not blocking.
    path.write_text(requirements(**{**base, "pytest": "8.1.0"}))
    code, report = check_diff(project)
    assert code == 0, blocking(report)
    assert report["findings"] and {f["severity"] for f in report["findings"]} == {"information"}
    # The version the revert took back: blocked.
    path.write_text(requirements(**{**base, "pytest": "8.0.0"}))
    code, report = check_diff(project)
    assert code == 1


def test_deleting_a_whole_manifest_gives_no_verdict_to_the_dependencies_it_held(
    project: Path,
) -> None:
    # psf/requests: "last attempt" added a CI experiment's requirements.txt, "no need
    # for this anymore!" deleted it (an inverse patch): the file was dropped, not each
    # of its 29 pins, so re-adding pytest years later is no re-introduction.
    commit(project, "App", "2017-01-01T10:00:00Z", {"app.py": "def main():\n    run()\n"})
    pins = requirements(codecov="2.0.5", pytest="3.0.5", mock="2.0.0", Sphinx="1.5.1")
    commit(project, "last attempt", "2017-01-21T10:00:00Z", {"requirements.txt": pins})
    commit(project, "no need for this anymore!", "2017-01-21T11:00:00Z", {"requirements.txt": None})
    cairn_json(project, "import", "git")
    assert not [e.entity for e in reverts(project) if e.entity.startswith("deps/")]
    (project / "requirements-dev.txt").write_text(requirements(pytest="7.4.0", codecov="2.1.13"))
    git(project, "add", "-A")
    code, report = check_diff(project)
    assert code == 0, blocking(report)


def test_deleting_a_manifest_keeps_the_verdicts_its_message_names(project: Path) -> None:
    commit(project, "App", "2017-01-01T10:00:00Z", {"app.py": "def main():\n    run()\n"})
    pins = requirements(pytest="3.0.5", mock="2.0.0")
    commit(project, "Test requirements", "2017-01-21T10:00:00Z", {"requirements.txt": pins})
    commit(
        project,
        "Drop the test requirements: mock is in the standard library now",
        "2017-01-22T10:00:00Z",
        {"requirements.txt": None},
    )
    cairn_json(project, "import", "git")
    assert {e.entity for e in reverts(project) if e.entity.startswith("deps/")} == {"deps/mock"}


def test_a_release_number_taken_back_is_recorded_and_never_blocks(project: Path) -> None:
    # psf/requests: "quick test" bumped __version__ to 0.10.3, "test #2" put 0.10.2
    # back two minutes later (an inverse patch). Bumping it again is a release.
    init = "__title__ = 'requests'\n__version__ = '{}'\n\n\ndef get(url):\n    return url\n"
    commit(
        project, "v0.10.2", "2012-01-30T10:00:00Z", {"requests/__init__.py": init.format("0.10.2")}
    )
    commit(
        project,
        "quick test",
        "2012-02-01T10:00:00Z",
        {"requests/__init__.py": init.format("0.10.3")},
    )
    commit(
        project, "test #2", "2012-02-01T10:02:00Z", {"requests/__init__.py": init.format("0.10.2")}
    )
    cairn_json(project, "import", "git")
    [event] = reverts(project)
    assert event.metadata["significance"] == "trivial"
    (project / "requests" / "__init__.py").write_text(init.format("0.10.3"))
    code, report = check_diff(project)
    assert code == 0, blocking(report)


def test_bumping_a_dependency_whose_addition_was_reverted_is_no_reintroduction(
    project: Path,
) -> None:
    base = {"django": "3.2.0", "requests": "2.31.0"}
    commit(project, "Deps", "2024-01-01T10:00:00Z", {"requirements.txt": requirements(**base)})
    four = {"django": "4.0.0", "asgiref": "3.5.0", "requests": "2.31.0"}
    commit(
        project,
        "Update Django 3 to Django 4",
        "2024-01-02T10:00:00Z",
        {"requirements.txt": requirements(**four)},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    real = {"django": "4.0.1", "asgiref": "3.5.0", "requests": "2.31.0", "channels": "4.0.0"}
    commit(
        project,
        "Django 4 with channels",  # not the reverted change again: the revert stays open
        "2024-03-01T10:00:00Z",
        {"requirements.txt": requirements(**real)},
    )
    cairn_json(project, "import", "git")
    assert {e.entity for e in reverts(project)} == {"deps/django", "deps/asgiref"}
    # A patch bump of asgiref, which is there already: not blocking.
    path = project / "requirements.txt"
    path.write_text(requirements(**{**real, "asgiref": "3.5.2"}))
    code, report = check_diff(project)
    assert code == 0, blocking(report)
    # Adding it where it is absent is bringing the reverted dependency back: blocked.
    git(project, "checkout", "-q", "--", "requirements.txt")
    git(project, "checkout", "-q", "HEAD~1")
    path.write_text(requirements(**{**base, "asgiref": "3.6.0"}))
    code, report = check_diff(project)
    assert code == 1
    assert [f["entity"] for f in blocking(report)] == ["deps/asgiref"]


# --- re-removals ----------------------------------------------------------------------

SERVICE = """\
class Ledger:
    def balance(self, account):
        return sum(entry.amount for entry in self.entries(account))

    def freeze(self, account, reason):
        account.frozen = True
        account.frozen_reason = reason
        self.audit.record("freeze", account.id, reason)

    def unfreeze(self, account):
        account.frozen = False
        account.frozen_reason = None
        self.audit.record("unfreeze", account.id, None)
"""

WITHOUT = SERVICE.split("\n    def freeze")[0] + "\n"


def test_taking_out_again_what_a_revert_put_back_is_caught(project: Path) -> None:
    commit(project, "Ledger", "2024-01-01T10:00:00Z", {"bank/ledger.py": SERVICE})
    commit(project, "Remove unused methods", "2024-01-02T10:00:00Z", {"bank/ledger.py": WITHOUT})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    commit(project, "Docs", "2024-01-04T10:00:00Z", {"README.md": "Ledger\n"})
    cairn_json(project, "import", "git")
    [*events] = reverts(project)
    assert any("+" in e.metadata.get("fingerprint", "") for e in events)
    # Removing another method: nothing to say.
    lines = SERVICE.split("\n")
    (project / "bank" / "ledger.py").write_text("\n".join(lines[:1] + lines[4:]))
    code, report = check_diff(project)
    assert code == 0, blocking(report)
    # Removing them again: blocked, at the same severity as a change coming back.
    (project / "bank" / "ledger.py").write_text(WITHOUT)
    code, report = check_diff(project)
    assert code == 1
    [finding] = blocking(report)
    assert finding["severity"] == "error" and finding["kind"] == "fingerprint"
    assert "takes out again" in finding["message"]
    # Deleting the whole file takes them out too.
    (project / "bank" / "ledger.py").unlink()
    code, report = check_diff(project)
    assert code == 1
    # The hook's path (a proposed edit on stdin) sees the removal as well.
    git(project, "checkout", "--", "bank")
    hook = subprocess.run(
        [str(BIN / "cairn"), "check", "--stdin-filename", "bank/ledger.py", "--json"],
        cwd=project,
        env=env(),
        input=WITHOUT,
        capture_output=True,
        text=True,
    )
    assert hook.returncode == 1, hook.stdout


# --- bad input -------------------------------------------------------------------------


def test_a_manifest_with_two_thousand_dependencies_and_a_licence_in_every_file_is_bounded(
    project: Path,
) -> None:
    many = {f"package-{i}": f"1.0.{i % 7}" for i in range(2000)}
    header = "".join(f"# {line}\n" for line in LICENCE.splitlines())
    files: dict[str, str | None] = {"requirements.txt": requirements(**many)}
    files |= {f"pkg/m{i}.py": header + f"def f{i}():\n    return {i}\n" for i in range(200)}
    commit(project, "Everything", "2024-01-01T10:00:00Z", files)
    bumped = {name: "2.0.0" for name in many}
    commit(
        project,
        "Bump requirements",
        "2024-01-02T10:00:00Z",
        {"requirements.txt": requirements(**bumped)},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    started = time.monotonic()
    summary = cairn_json(project, "import", "git")
    assert time.monotonic() - started < 60
    # each bump's `modify`, and the revert's verdicts up to the per-commit cap (100),
    # the rest said in the summary: no commit writes thousands of verdicts
    assert summary["imported"] == 2100
    assert len(reverts(project)) == 100
    assert any("touches 2000 entities" in n["note"] for n in summary["notes"])
    # A new module with the licence header: nothing blocks.
    (project / "pkg" / "new.py").write_text(header + "def g():\n    return -1\n")
    git(project, "add", "-A")
    code, report = check_diff(project)
    assert code == 0, blocking(report)


PANEL = """\
class FieldRowPanel(Panel):
    template = "panels/field_row.html"

    def classes(self):
        base = ["field-row", self.css_class]
        base.extend(f"col{n}" for n in self.column_spans)
        columns = self.columns or len(self.children)
        base.append(f"columns-{columns}")
        return base

    def children_html(self):
        return render_children(self.children)
"""


def test_a_hand_made_revert_that_only_puts_lines_back_is_a_re_removal_print(
    project: Path,
) -> None:
    commit(project, "Panels", "2024-01-01T10:00:00Z", {"panels/row.py": PANEL})
    trimmed = "".join(line for line in PANEL.splitlines(True) if "col" not in line)
    commit(project, "Trim the row panel", "2024-01-02T10:00:00Z", {"panels/row.py": trimmed})
    # Put back by hand, with a method renamed: no blob matches, only the message says.
    restored = PANEL.replace("children_html", "child_panels_html")
    commit(
        project,
        "Revert FieldRowPanel column classes removal, clarifying differences",
        "2024-01-03T10:00:00Z",
        {"panels/row.py": restored},
    )
    cairn_json(project, "import", "git")
    [event] = reverts(project)
    assert event.entity == "panels/row.py::FieldRowPanel.classes"
    # the lines it put back that "Trim" took out (the renamed method is new work)
    assert event.metadata["fingerprint"].count("+") == 3
    # Trimming the panel again takes out what the revert put back: caught.
    (project / "panels" / "row.py").write_text(
        trimmed.replace("children_html", "child_panels_html")
    )
    code, report = check_diff(project)
    assert code == 1
    assert "takes out again 3 of the 3 lines" in blocking(report)[0]["message"]


def test_a_revert_of_release_notes_and_docs_is_recorded_but_never_blocks(project: Path) -> None:
    """A changelog line, a release note and a docs page follow the code back: history,
    quiet; the code itself still blocks."""
    commit(
        project,
        "Base",
        "2024-01-01T10:00:00Z",
        {
            "shop/prices.py": MODULE,
            "CHANGELOG.txt": "Changelog\n=========\n",
            "docs/releases/2.1.rst": "Wagtail 2.1 release notes\n",
        },
    )
    real = MODULE.replace("item.name.title()", "item.name.title() + ' (' + item.sku + ')'")
    change = {
        "shop/prices.py": real,
        "CHANGELOG.txt": "Changelog\n=========\n * Show the SKU in every price label (Ann)\n",
        "docs/releases/2.1.rst": "Release notes\n\nLabels now show the SKU of each item.\n",
        "docs/topics/labels.md": "# Labels\n\nEvery label shows the item's SKU after its name.\n",
    }
    commit(project, "Show the SKU in labels", "2024-01-02T10:00:00Z", change)
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    cairn_json(project, "import", "git")
    events = {e.entity: e.metadata.get("significance") for e in reverts(project)}
    assert events["CHANGELOG.txt"] == "trivial"
    assert events["docs/releases/2.1.rst"] == "trivial"
    assert events["docs/topics/labels.md"] == "trivial"
    assert [p for p, s in events.items() if s is None] == ["shop/prices.py::label"]
    # The notes and the page alone coming back: nothing blocks.
    for path in ("CHANGELOG.txt", "docs/releases/2.1.rst", "docs/topics/labels.md"):
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(change[path])
    code, report = check_diff(project)
    assert code == 0, blocking(report)
    # With the code: only the code blocks.
    (project / "shop" / "prices.py").write_text(real)
    code, report = check_diff(project)
    assert code == 1
    assert {f["entity"] for f in blocking(report)} == {"shop/prices.py::label"}


def test_a_module_swapped_back_in_the_imports_is_the_change(project: Path) -> None:
    files = {f"search/backends/{name}.py": f"from modelsearch.backends.{name} import *\n"
             for name in ("base", "database", "elastic")}  # fmt: skip
    commit(project, "Search", "2024-01-01T10:00:00Z", files)
    swapped = {p: t.replace("modelsearch", "wagtailmodelsearch") for p, t in files.items()}
    commit(project, "Temporarily use wagtailmodelsearch package", "2024-01-02T10:00:00Z", swapped)
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    cairn_json(project, "import", "git")
    events = reverts(project)
    assert len(events) == 3 and all(e.metadata.get("fingerprint") for e in events)
    assert not [e for e in events if e.metadata.get("significance")]  # a decision
    git(project, "revert", "--no-commit", "HEAD")  # the swap, again
    code, report = check_diff(project)
    assert code == 1
    assert "brings back 3 of the 3 lines" in blocking(report)[0]["message"]
