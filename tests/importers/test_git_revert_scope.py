"""A revert is about what the reverted commit changed (issue 28).

Real git histories in temp folders, the real `cairn import git`: a revert merged with
other work, and a revert found by its message alone, record only the entities whose
lines the reverted commit wrote, and name that commit (or say why they cannot).
"""

from __future__ import annotations

from pathlib import Path

from real_cli import cairn, cairn_json, commit, git

from importers.test_git_recall import reverts

BASE = "def one():\n    return 1\n\n\ndef two():\n    log_two_called()\n    return 2\n"


def test_a_revert_merged_with_other_work_records_only_the_reverted_lines(
    project: Path,
) -> None:
    commit(
        project,
        "Base",
        "2024-01-01T10:00:00Z",
        {"x.py": BASE, "y.py": "def y():\n    legacy_compute_everything(slowly=True)\n"},
    )
    fix = commit(
        project,
        "Fix black",
        "2024-01-02T10:00:00Z",
        {"x.py": BASE.replace("return 1", "return normalise_black(1, mode='strict')")},
    )
    # A pull request titled like a revert, squash-merged with another change: the
    # subject is no `Revert "…"` git wrote; y.py and `two` were never touched by "Fix
    # black", and x.py is not put back blob for blob.
    squash = commit(
        project,
        f'Revert "Fix black" (#55)\n\n* Revert "Fix black"\n\nThis reverts commit {fix}.\n'
        "\n* Rewrite y",
        "2024-01-03T10:00:00Z",
        {
            "x.py": BASE.replace("return 2", "return compute_two()"),
            "y.py": "def y():\n    return compute_quickly()\n",
        },
    )
    cairn_json(project, "import", "git")
    events = reverts(project)
    assert [(e.entity, e.commit) for e in events] == [("x.py::one", squash)]
    assert events[0].metadata["reverted_commit"] == fix


def history_of_retries(project: Path) -> tuple[str, str]:
    """A retry added to `one`, then 13 unrelated edits of the file (more than the 12
    recent commits a hand-written revert is line-matched against)."""
    commit(project, "Base", "2024-01-01T10:00:00Z", {"a.py": BASE})
    text = BASE.replace(
        "    return 1\n",
        "    retry_with_backoff(attempts=5)\n    record_retry_metric('one')\n    return 1\n",
    )
    retry = commit(project, "Retry one", "2024-01-02T10:00:00Z", {"a.py": text})
    for i in range(13):
        text = text.replace(f"return {i + 2}", f"return {i + 3}")
        commit(project, f"Bump two {i}", f"2024-01-{i + 3:02d}T10:00:00Z", {"a.py": text})
    return retry, text


def test_a_revert_found_by_its_message_names_the_commit_it_undid_through_blame(
    project: Path,
) -> None:
    retry, text = history_of_retries(project)
    # The hand-made undo also drops a line `two` got from another (the first) commit.
    undo = commit(
        project,
        "Undo the retry in one\n\nIt hid outages.",
        "2024-02-01T10:00:00Z",
        {
            "a.py": text.replace("    retry_with_backoff(attempts=5)\n", "")
            .replace("    record_retry_metric('one')\n", "")
            .replace("    log_two_called()\n", "")
        },
    )
    cairn_json(project, "import", "git")
    [event] = reverts(project)
    assert (event.entity, event.commit) == ("a.py::one", undo)
    assert event.metadata["found_by"] == "message"
    assert event.metadata["reverted_commit"] == retry
    assert event.metadata["reverted_commit_by"] == "blame"
    assert event.metadata["original_subject"] == "Retry one"
    assert "Reverted change: Retry one" in event.reasoning


def test_a_revert_found_by_its_message_says_when_no_commit_can_be_named(
    project: Path,
) -> None:
    commit(project, "Base", "2024-01-01T10:00:00Z", {"a.py": BASE})
    text = BASE
    # Four commits each add one line: none wrote most of what the undo takes out.
    for i, name in enumerate(["alpha", "beta", "gamma", "delta"]):
        text = text.replace("    return 1\n", f"    configure_{name}_handler()\n    return 1\n")
        commit(project, f"Add {name}", f"2024-01-0{i + 2}T10:00:00Z", {"a.py": text})
    for i in range(13):
        text = text.replace(f"return {i + 2}", f"return {i + 3}")
        commit(project, f"Bump two {i}", f"2024-01-{i + 10:02d}T10:00:00Z", {"a.py": text})
    commit(
        project,
        "Revert to the plain one",
        "2024-02-01T10:00:00Z",
        {"a.py": BASE.replace("return 2", "return 15")},
    )
    cairn_json(project, "import", "git")
    [event] = reverts(project)
    assert event.entity == "a.py::one"
    assert event.metadata["found_by"] == "message"
    assert "reverted_commit" not in event.metadata
    assert "25%" in event.metadata["reverted_commit_unknown"]


def test_a_revert_of_vendored_generated_and_asset_trees_is_one_event_per_tree(
    project: Path,
) -> None:
    def tree(version: int) -> dict[str, str | None]:
        files: dict[str, str | None] = {
            "app.py": f"def handler():\n    return call_sdk_version({version})\n",
            "media/config.js": "export const mediaRoot = '/media/';\n",
            ".gitattributes": "gen/** linguist-generated\n",
        }
        for i in range(30):
            files[f"static/vendor/sdk/m{i}.js"] = f"function m{i}() {{ return {version}; }}\n"
        for i in range(10):
            files[f"static/icons/i{i}.svg"] = f"<svg><path d='M{i} {version}'/></svg>\n"
        for i in range(5):
            files[f"gen/api/p{i}_pb2.py"] = f"DESCRIPTOR_{i} = build_descriptor({version})\n"
        for lang in ("fr", "de"):  # translation catalogs, as a sync writes them
            # (in an app named `locales`, whose own `locale/` is the tree)
            files[f"locales/locale/{lang}/LC_MESSAGES/django.po"] = (
                f'msgid "Save"\nmsgstr "{version}"\n'
            )
        files["locales/models.py"] = "class Locale:\n    code = 'en'\n"
        for name in ("a", "b"):  # images beside code: no tree
            files[f"media/{name}.png"] = f"not really a png {name} {version}\n"
        return files

    commit(project, "Base", "2024-01-01T10:00:00Z", tree(1))
    commit(project, "Upgrade the SDK", "2024-01-02T10:00:00Z", tree(2))
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    report = cairn_json(project, "import", "git")
    events = {e.entity: e for e in reverts(project)}
    assert sorted(events) == [
        "app.py::handler",
        "gen/",
        "locales/locale/",
        "media/a.png",
        "media/b.png",
        "static/icons/",
        "static/vendor/sdk/",
    ]
    trees = {p: (e.metadata.get("tree"), e.metadata.get("files")) for p, e in events.items()}
    assert trees["static/vendor/sdk/"] == ("vendored", 30)
    assert trees["static/icons/"] == ("asset", 10)
    assert trees["gen/"] == ("generated", 5)
    assert trees["locales/locale/"] == ("generated", 2)
    assert events["static/vendor/sdk/"].entity_kind == "directory"
    # recorded, and quiet: nobody hand-edits a vendored tree
    assert {p for p, e in events.items() if e.metadata.get("significance") == "trivial"} == {
        "locales/locale/",
        "gen/",
        "static/icons/",
        "static/vendor/sdk/",
        # images beside code make no tree: each is a tree of one, on its file
        "media/a.png",
        "media/b.png",
    }
    assert trees["media/a.png"] == ("asset", 1)
    assert events["media/a.png"].entity_kind == "file"
    assert trees["app.py::handler"] == (None, None)
    # the summary says what was grouped
    notes = [n["note"] for n in report["notes"]]
    assert any("a vendored tree: one event for its 30 changed files" in n for n in notes)


def test_a_package_bundled_under_a_python_packages_directory_is_one_vendored_tree(
    project: Path,
) -> None:
    """psf/requests kept oauthlib, urllib3 and chardet under `requests/packages/`, with
    no `.gitattributes` and no usual vendor root: taking oauthlib out again was one
    commit undoing its addition, and gave an event to each of its functions. A
    `packages/` directory inside a Python package is Python's own bundling convention;
    a JavaScript workspace's `packages/` (no Python package around it) stays code."""
    commit(
        project,
        "Requests",
        "2012-03-01T10:00:00Z",
        {
            "requests/__init__.py": "__version__ = '0.10'\n",
            "requests/packages/__init__.py": "",
            "requests/api.py": "def get(url):\n    return request('get', url)\n",
        },
    )
    bundled: dict[str, str | None] = {
        f"requests/packages/oauthlib/m{i}.py": f"def sign_{i}(r):\n    return hmac_{i}(r)\n"
        for i in range(12)
    }
    bundled["requests/packages/oauthlib/LICENSE"] = "BSD licence of oauthlib, its own\n"
    bundled |= {
        f"web/packages/ui/c{i}.js": f"export function widget{i}(p) {{ return draw{i}(p); }}\n"
        for i in range(3)
    }
    commit(project, "oauthlib", "2012-03-02T10:00:00Z", bundled)
    commit(
        project,
        "remove oauthlib",
        "2012-03-03T10:00:00Z",
        dict.fromkeys(bundled),
    )
    cairn_json(project, "import", "git")
    events = {e.entity: e for e in reverts(project)}
    bundle = events["requests/packages/oauthlib/"]
    assert (bundle.metadata["tree"], bundle.metadata["files"]) == ("vendored", 13)
    assert bundle.metadata["significance"] == "trivial"
    assert not [p for p in events if p.startswith("requests/packages/oauthlib/m")]
    # the JavaScript workspace's functions are still each a decision
    assert "web/packages/ui/c0.js::widget0" in events
    assert "significance" not in events["web/packages/ui/c0.js::widget0"].metadata


def _migration(name: str, fields: list[str], replaces: list[str] | None = None) -> str:
    cols = "".join(f"                ('{f}', models.TextField()),\n" for f in fields)
    rep = f"    replaces = {replaces!r}\n" if replaces else ""
    return (
        "from django.db import migrations, models\n\n\n"
        "class Migration(migrations.Migration):\n"
        f"{rep}"
        "    operations = [\n"
        "        migrations.CreateModel(\n"
        f"            name='{name}',\n"
        "            fields=[\n"
        f"{cols}"
        "            ],\n"
        "        ),\n"
        "    ]\n"
    )


def test_reverting_a_squashed_migration_is_about_the_file_not_what_it_redeclares(
    project: Path,
) -> None:
    """wagtail's `Revert "Create new squashed migration for wagtailcore"` deleted
    `0001_squashed_0016_….py`, which re-declares every table and column of the
    migrations it replaces: the verdict went to each of them (wrong entity), though
    the decision was not to squash. A migration with `replaces` re-declares; the
    revert is on its file. A plain migration taken back still names its table."""
    fields = ["title", "slug", "url_path"]
    commit(
        project,
        "Pages",
        "2018-11-01T10:00:00Z",
        {
            "core/migrations/__init__.py": "",
            "core/migrations/0001_initial.py": _migration("Page", fields),
        },
    )
    squashed = _migration("Page", fields, ["('core', '0001_initial')"])
    commit(
        project,
        "Create new squashed migration for core",
        "2018-11-27T10:00:00Z",
        {"core/migrations/0001_squashed_0001_initial.py": squashed},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2018-12-19T10:00:00Z")
    commit(
        project,
        "Add a Snippet model",
        "2018-12-20T10:00:00Z",
        {"core/migrations/0002_snippet.py": _migration("Snippet", ["body"])},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2018-12-21T10:00:00Z")
    cairn_json(project, "import", "git")
    by_commit: dict[str, set[str]] = {}
    for e in reverts(project):
        by_commit.setdefault(e.reasoning, set()).add(e.entity)
    [squash] = [v for k, v in by_commit.items() if "squashed" in k]
    assert squash == {"core/migrations/0001_squashed_0001_initial.py"}
    [snippet] = [v for k, v in by_commit.items() if "Snippet" in k]
    assert "core_snippet" in snippet, snippet


def test_test_snapshots_lock_files_and_lone_generated_files_are_quiet_trees(
    project: Path,
) -> None:
    """Jest's `__snapshots__/` is one generated tree each, and so are Rails'
    `config/locales/` and JetBrains' `.idea/`; a golden file, a lock file, or a file
    `.gitattributes` marks generated, alone beside hand-written code or at the root, is
    a tree of one: recorded, quiet, never blocking. The code they follow still blocks."""

    def files(sep: str) -> dict[str, str | None]:
        out: dict[str, str | None] = {
            ".gitattributes": "api/schema.json linguist-generated\n",
            "src/printer.js": (
                f"function printArrow(node) {{\n  return join('{sep}', node.parts);\n}}\n"
            ),
            "api/schema.json": f'{{"separator": "{sep}"}}\n',
            "api/views.py": "def schema():\n    return load_schema_file()\n",
            "testdata/arrow.golden": f"a {sep} b {sep} c\n",
            "testdata/arrow_test.go": 'func TestArrow(t *testing.T) { golden(t, "arrow") }\n',
            ".idea/workspace.xml": f"<option name='separator' value='{sep}'/>\n",
            # a lock file at the root, and Rails' translation strings
            "Gemfile.lock": f"GEM\n  specs:\n    arrow-sep ({len(sep)}.0)\n",
            "config/locales/en.yml": f"en:\n  arrow_separator: '{sep}'\n",
            "config/locales/fr.yml": f"fr:\n  arrow_separator: '{sep}'\n",
        }
        for name in ("arrows", "flow/annot", "binary-expressions"):
            out[f"tests/{name}/__snapshots__/jsfmt.spec.js.snap"] = (
                f"exports[`{name} 1`] = `\nconst f = (a{sep}b) => a + b;\n`;\n"
            )
        return out

    commit(project, "Base", "2024-01-01T10:00:00Z", files(", "))
    commit(project, "Pipe arrow chains", "2024-01-02T10:00:00Z", files(" | "))
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    cairn_json(project, "import", "git")
    events = {e.entity: e for e in reverts(project)}
    quiet = {p for p, e in events.items() if e.metadata.get("significance") == "trivial"}
    assert quiet == {
        "tests/arrows/__snapshots__/",
        "tests/flow/annot/__snapshots__/",
        "tests/binary-expressions/__snapshots__/",
        "testdata/arrow.golden",
        "api/schema.json",
        "Gemfile.lock",
        "config/locales/",
        ".idea/",
    }
    assert set(events) - quiet == {"src/printer.js::printArrow"}
    assert events["testdata/arrow.golden"].entity_kind == "file"
    assert events["tests/arrows/__snapshots__/"].metadata["tree"] == "generated"
    # The snapshots and the golden file coming back alone: nothing blocks.
    after = files(" | ")
    for path, text in after.items():
        if path != "src/printer.js" and text is not None:
            (project / path).write_text(text)
    assert cairn(project, "check", "--diff", "HEAD").returncode == 0
    (project / "src" / "printer.js").write_text(str(after["src/printer.js"]))
    assert cairn(project, "check", "--diff", "HEAD").returncode == 1


def test_one_revert_writes_at_most_the_cap_and_says_so(project: Path) -> None:
    def files(body: str) -> dict[str, str | None]:
        return {f"src/m{i:03d}.py": f"def f{i}():\n    {body}\n" for i in range(130)}

    commit(project, "Base", "2024-01-01T10:00:00Z", files("return original_value()"))
    commit(project, "Sweep", "2024-01-02T10:00:00Z", files("return replaced_value(strict=True)"))
    sweep = git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    assert sweep is not None
    report = cairn_json(project, "import", "git")
    assert len(reverts(project)) == 100
    [note] = [n for n in report["notes"] if "entities" in n["note"]]
    assert "touches 130 entities: recorded the 100" in note["note"]


def test_a_squash_reverting_several_commits_records_each_and_nothing_else(project: Path) -> None:
    commit(
        project,
        "Base",
        "2024-01-01T10:00:00Z",
        {"x.py": BASE, "y.py": "def y():\n    return legacy_compute(slowly=True)\n"},
    )
    docs = commit(
        project,
        "Docs for redirects",
        "2024-01-02T10:00:00Z",
        {"docs/redirects.md": "Redirects are created automatically when pages move.\n"},
    )
    feature = commit(
        project,
        "Create redirects automatically",
        "2024-01-03T10:00:00Z",
        {"x.py": BASE.replace("return 1", "create_redirect_for_moved_page(page)\n    return 1")},
    )
    squash = commit(
        project,
        f'Revert "Automatic redirects (2 of 2)" (#77)\n\n* Revert "Docs for redirects"\n\n'
        f'This reverts commit {docs}.\n\n* Revert "Create redirects automatically"\n\n'
        f'This reverts commit {feature}.\n\n* Revert "Something from a fork"\n\n'
        "This reverts commit 5a86d5f71212e0e900709238a8cc109716678864.\n\n* Tidy y",
        "2024-01-04T10:00:00Z",
        {
            "x.py": BASE.replace("log_two_called()", "log_two_called(quietly=True)"),
            "docs/redirects.md": None,
            "y.py": "def y():\n    return compute_quickly()\n",
        },
    )
    cairn_json(project, "import", "git")
    events = reverts(project)
    assert sorted((e.entity, e.commit) for e in events) == [
        ("docs/redirects.md", squash),
        ("x.py::one", squash),
    ]
    # a sha this repository lacks (a fork's) is no commit to read, and no error
    assert {tuple(e.metadata["also_reverted"]) for e in events} == {(feature,)}


def test_a_revert_inside_a_squashed_branch_gives_the_rest_of_the_squash_nothing(
    project: Path,
) -> None:
    commit(
        project,
        "Base",
        "2024-01-01T10:00:00Z",
        {"x.py": BASE, "y.py": "def y():\n    return legacy_compute(slowly=True)\n"},
    )
    git(project, "checkout", "-q", "-b", "topic")
    tried = commit(
        project,
        "Try a cache",
        "2024-01-02T10:00:00Z",
        {"x.py": BASE.replace("return 1", "return cached_lookup_of_one(key)")},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    commit(
        project,
        "Speed up y",
        "2024-01-04T10:00:00Z",
        {"y.py": "def y():\n    return compute_quickly()\n"},
    )
    git(project, "checkout", "-q", "main")
    git(project, "merge", "--squash", "-q", "topic")
    git(
        project,
        "commit",
        "-q",
        "-m",
        f'Speed up y (#80)\n\n* Try a cache\n\n* Revert "Try a cache"\n\nThis reverts commit '
        f"{tried}.\n\n* Speed up y",
        date="2024-01-05T10:00:00Z",
    )
    report = cairn_json(project, "import", "git")
    # the branch's commits are objects in this repository, but not in its history: the
    # revert happened inside the pull request, and y.py's change is other work
    assert reverts(project) == []
    assert any("inside the pull request" in s["reason"] for s in report["skipped_items"])


def test_a_squash_reverting_a_commit_of_another_repository_imports(project: Path) -> None:
    # prettier's "Bundle Pure ESM Packages (#12217)": a manifest changed, and the body
    # reverts a commit no repository here has. The import said "bad object" and stopped.
    commit(project, "Base", "2024-01-01T10:00:00Z", {"package.json": '{"dependencies": {}}\n'})
    commit(
        project,
        'Bundle packages (#12217)\n\n* Revert "Try esbuild"\n\n'
        "This reverts commit 5a86d5f71212e0e900709238a8cc109716678864.",
        "2024-01-02T10:00:00Z",
        {"package.json": '{"dependencies": {"esbuild": "0.14.0"}}\n'},
    )
    report = cairn_json(project, "import", "git")
    assert reverts(project) == []
    assert any("5a86d5f712" in s["reason"] for s in report["skipped_items"])
