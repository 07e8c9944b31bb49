"""Two more kinds of undo that are true history but no decision (issue 28,
`cairn.significance.ci_tweak` and `release_tooling`): a CI configuration tweak taken
back with nothing but git's `Revert "…"`, and an undo in the maintainers' release
scripts. Each is recorded with `significance: trivial` and never blocks; a CI revert
that says why, a CI setup removed whole, and the same kind of undo in the project's
code stay loud. Real git histories, the real `cairn import git` and `cairn check`.
"""

from __future__ import annotations

from pathlib import Path

from real_cli import cairn_json, commit, git

from cairn.significance import ci_config, ci_tweak, release_tooling
from importers.test_git_quiet_reverts import PRICES, SKU, blocking, put_back, reverts

TRAVIS = """\
language: ruby
script: bundle exec rake db:create db:migrate default
rvm:
  - ruby-1.9.2-p290
  - rubinius-2.0.0
"""
# "Fix tests": two more Rubies in the matrix, taken out again by a bare revert.
MATRIX = TRAVIS.replace("rvm:\n", "rvm:\n  - ruby-1.8.7-p352\n") + "  - ruby-enterprise-2011\n"
# A CI change whose revert says why.
DIST = TRAVIS.replace("language: ruby\n", "language: ruby\ndist: precise-legacy-image\n")
PIPELINE = """\
trigger:
  - main
jobs:
  - template: templates/linux-python-tests.yml
  - template: templates/windows-python-tests.yml
"""


def test_a_ci_tweak_reverted_without_a_word_is_quiet_but_one_with_a_reason_blocks(
    project: Path,
) -> None:
    commit(
        project, "Shop", "2024-01-01T10:00:00Z", {"shop/prices.py": PRICES, ".travis.yml": TRAVIS}
    )
    commit(project, "Fix tests", "2024-01-02T10:00:00Z", {".travis.yml": MATRIX})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")  # bare
    commit(project, "Set travis dist", "2024-01-04T10:00:00Z", {".travis.yml": DIST})
    git(project, "revert", "--no-commit", "HEAD")
    commit(
        project,
        'Revert "Set travis dist"\n\nThe legacy image has no Ruby 1.9 any more.',
        "2024-01-05T10:00:00Z",
        {},
    )
    # A bare revert of how the tests run (a command, not a matrix entry) is a decision.
    commit(
        project,
        "Run with a file database",
        "2024-01-05T12:00:00Z",
        {".travis.yml": TRAVIS.replace("script: bundle", "script: DATABASE=file.db bundle")},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-05T13:00:00Z")
    # A whole CI setup taken out by a bare revert is a decision, not a tweak.
    commit(
        project, "Set up Azure Pipelines", "2024-01-06T10:00:00Z", {"azure-pipelines.yml": PIPELINE}
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-07T10:00:00Z")
    # A bare revert of a code change beside CI stays loud too.
    commit(project, "Show the SKU", "2024-01-08T10:00:00Z", {"shop/prices.py": SKU})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-09T10:00:00Z")
    cairn_json(project, "import", "git")
    found = reverts(project)
    assert set(found['Revert "Fix tests"'].values()) == {"trivial"}, found
    assert set(found['Revert "Set travis dist"'].values()) == {None}, found
    assert set(found['Revert "Set up Azure Pipelines"'].values()) == {None}, found
    assert set(found['Revert "Run with a file database"'].values()) == {None}, found
    assert set(found['Revert "Show the SKU"'].values()) == {None}, found
    # The matrix entries back: nothing blocks. The dist back, or the pipeline: blocks.
    code, report = put_back(project, {".travis.yml": MATRIX})
    assert code == 0, blocking(report)
    code, report = put_back(project, {".travis.yml": DIST})
    assert code == 1 and blocking(report)
    code, report = put_back(project, {"azure-pipelines.yml": PIPELINE})
    assert code == 1 and blocking(report)
    # Recorded all the same: `history` shows the tweak and its revert.
    shown = cairn_json(project, "history", ".travis.yml")
    assert any(e["type"] == "revert" and e["metadata"].get("significance") for e in shown)


CLEAN = """\
export default async function cleanChangelog({ repo }) {
  await runGit(["commit", "-am", "Clean changelog_unreleased"]);
  await runGit(["push", "--repo", repo]);
}
"""
SELF_CALL = CLEAN + '\nawait cleanChangelog({ repo: "shop/shop" });\n'


def test_an_undo_in_the_release_scripts_is_quiet_and_the_same_in_code_blocks(
    project: Path,
) -> None:
    step = "scripts/release/steps/clean-changelog.js"
    code_file = "src/changelog.js"
    commit(project, "Release steps", "2024-01-01T10:00:00Z", {step: CLEAN, code_file: CLEAN})
    commit(project, "Clean changelog", "2024-01-02T10:00:00Z", {step: SELF_CALL})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-05T10:00:00Z")
    commit(project, "Clean it from the app", "2024-01-06T10:00:00Z", {code_file: SELF_CALL})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-09T10:00:00Z")
    cairn_json(project, "import", "git")
    found = reverts(project)
    assert set(found['Revert "Clean changelog"'].values()) == {"trivial"}, found
    assert set(found['Revert "Clean it from the app"'].values()) == {None}, found
    code, report = put_back(project, {step: SELF_CALL})
    assert code == 0, blocking(report)
    code, report = put_back(project, {code_file: SELF_CALL})
    assert code == 1 and blocking(report)


def test_which_paths_are_ci_configuration_and_which_are_release_tooling() -> None:
    for path in (
        ".travis.yml",
        ".github/workflows/release.yml",
        ".circleci/config.yml",
        "appveyor.yml",
        ".gitlab-ci.yml",
        "azure-pipelines.yml",
        "Jenkinsfile",
    ):
        assert ci_config(path), path
    for path in ("config/travis.rb", "docs/.travis.yml.md", "tox.ini", "src/workflows/a.yml"):
        assert not ci_config(path), path
    for path in (
        "scripts/release/run.js",
        "scripts/release/steps/bump.js",
        "tools/release.sh",
        "script/publish",
        "bin/bump-version",
    ):
        assert release_tooling(path), path
    # A CI workflow named release, an install script, the app's own release module.
    for path in (
        ".github/workflows/release.yml",
        "scripts/install/debian.sh",
        "src/release/notes.js",
        "shop/releases.py",
        "bin/bundle",
    ):
        assert not release_tooling(path), path
    # A tweak is matrix entries in CI files that stayed, and a message with nothing of
    # its own.
    matrix = (["  - 1.8.7"], ["  - ree", '  - "3.12"'])
    assert ci_tweak({".travis.yml": matrix}, (), 'Revert "Fix tests"')
    assert not ci_tweak({".travis.yml": matrix}, (), 'Revert "Fix tests" (#12)')
    assert not ci_tweak({".travis.yml": matrix}, (), "travis on 3.3 is broken")
    assert not ci_tweak({".travis.yml": matrix}, {".travis.yml"}, 'Revert "Set up Travis"')
    assert not ci_tweak({".travis.yml": matrix, "setup.py": matrix}, (), "Revert")
    command = (
        ["  - DATABASE_NAME=wagtail.db pipenv run runtests.py"],
        ["  - pipenv run runtests.py"],
    )
    assert not ci_tweak({".circleci/config.yml": command}, (), 'Revert "Use file-based SQLite"')
    assert not ci_tweak({}, (), 'Revert "Fix tests"')


LICENCE = """\
Copyright (c) 2012 Ann Example.

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.
"""
FUNDING = "custom: ['https://example.org/sponsor-application/']\ngithub: ['shop-maintainers']\n"


def test_a_copyright_line_or_the_sponsor_button_taken_back_is_quiet_licence_terms_are_not(
    project: Path,
) -> None:
    commit(
        project,
        "Shop",
        "2024-01-01T10:00:00Z",
        {"shop/prices.py": PRICES, "LICENSE": LICENCE, ".github/FUNDING.yml": FUNDING},
    )
    holder = LICENCE.replace("Ann Example", "Bob Example")
    commit(project, "Further lies", "2024-01-02T10:00:00Z", {"LICENSE": holder})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    commit(
        project,
        "Update FUNDING.yml",
        "2024-01-04T10:00:00Z",
        {".github/FUNDING.yml": FUNDING.split("\n")[0] + "\n"},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-05T10:00:00Z")
    terms = LICENCE.replace("with or without fee", "without fee")
    commit(project, "Charge for it", "2024-01-06T10:00:00Z", {"LICENSE": terms})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-07T10:00:00Z")
    cairn_json(project, "import", "git")
    found = reverts(project)
    assert set(found['Revert "Further lies"'].values()) == {"trivial"}, found
    assert set(found['Revert "Update FUNDING.yml"'].values()) == {"trivial"}, found
    assert set(found['Revert "Charge for it"'].values()) == {None}, found
    code, report = put_back(project, {"LICENSE": holder})
    assert code == 0, blocking(report)
