"""A revert of a dependency bump that touched only a lock file (`git_lockdeps`).

rubygems.org's `Revert "Bump ddtrace from 1.15.0 to 1.16.0"` changed `Gemfile.lock`
alone: the lock file's own event is quiet (generated), and the verdict a teammate needs
is on `deps/ddtrace`, about the version taken back. Only the dependency the subject
names gets one, and only when the lock diff took out its pin at that version. Real git
histories, the real `cairn import git` and `cairn check --diff HEAD`.
"""

from __future__ import annotations

from pathlib import Path

from real_cli import blocking, cairn_json, check_diff, commit, git

from cairn.store import Store

GEMFILE = 'source "https://rubygems.org"\n\ngem "foo", "~> 1.2"\ngem "rack"\n'


def lock(foo: str, bar: str = "0.2.0", rack: str = "2.2.3") -> str:
    """A Gemfile.lock: foo depends on bar (a bump of foo drags bar along)."""
    return (
        "GEM\n  remote: https://rubygems.org/\n  specs:\n"
        f"    bar ({bar})\n"
        f"    foo ({foo})\n"
        f"      bar (~> {bar.rsplit('.', 1)[0]})\n"
        f"    rack ({rack})\n\n"
        "PLATFORMS\n  ruby\n\nDEPENDENCIES\n  foo (~> 1.2)\n  rack\n"
    )


def reverts(root: Path) -> dict[str, dict]:
    """entity -> the metadata of its revert event."""
    with Store.open(root / ".cairn") as store:
        return {
            ent: e.metadata
            for ent in store.entities()
            for e in store.history(ent)
            if e.type == "revert"
        }


def history(project: Path, subject: str, bumped: str, bar: str = "0.2.0") -> None:
    """The app, a lock-only commit `subject` writing `bumped`, and its revert a day later."""
    commit(
        project,
        "App",
        "2024-01-01T10:00:00Z",
        {"app.rb": "def main\n  run\nend\n", "Gemfile": GEMFILE, "Gemfile.lock": lock("1.2.0")},
    )
    commit(project, subject, "2024-01-02T10:00:00Z", {"Gemfile.lock": bumped})
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    cairn_json(project, "import", "git")


def test_a_lock_only_revert_of_a_bump_is_a_verdict_on_that_version(project: Path) -> None:
    history(project, "Bump foo from 1.2.0 to 1.3.0", lock("1.3.0"))
    events = reverts(project)
    assert set(events) == {"Gemfile.lock", "deps/foo"}
    assert events["Gemfile.lock"]["significance"] == "trivial"  # the lock stays quiet
    foo = events["deps/foo"]
    assert "significance" not in foo
    assert (foo["from"], foo["to"], foo["part"]) == ("1.3.0", "1.2.0", "body")
    # Dependabot proposing 1.3.0 again (the lock alone): blocked, on deps/foo.
    (project / "Gemfile.lock").write_text(lock("1.3.0"))
    code, report = check_diff(project)
    assert code == 1
    assert [f["entity"] for f in blocking(report)] == ["deps/foo"]
    # Pinning it in the Gemfile writes the same lock line: blocked as well.
    (project / "Gemfile").write_text(GEMFILE.replace('"~> 1.2"', '"1.3.0"'))
    code, report = check_diff(project)
    assert code == 1
    # A later version is a new bump: nothing blocks.
    (project / "Gemfile.lock").write_text(lock("1.4.0"))
    (project / "Gemfile").write_text(GEMFILE.replace('"~> 1.2"', '"~> 1.4"'))
    code, report = check_diff(project)
    assert code == 0, blocking(report)


def test_only_the_named_dependency_gets_a_verdict(project: Path) -> None:
    # ddtrace 1.16.0 took datadog-ci 0.3.0 with it; the revert put both back.
    history(project, "Bump foo from 1.2.0 to 1.3.0", lock("1.3.0", bar="0.3.0", rack="2.2.4"))
    assert set(reverts(project)) == {"Gemfile.lock", "deps/foo"}
    # bar 0.3.0 on its own is no return of foo 1.3.0.
    (project / "Gemfile.lock").write_text(lock("1.2.0", bar="0.3.0"))
    code, report = check_diff(project)
    assert code == 0, blocking(report)


def test_a_merged_dependabot_branch_names_the_dependency(project: Path) -> None:
    # rubygems.org's `Revert "Merge pull request #2752 from
    # rubygems/dependabot/bundler/elasticsearch-model-7.2.0"`: the branch names it.
    commit(
        project,
        "App",
        "2024-01-01T10:00:00Z",
        {"app.rb": "def main\n  run\nend\n", "Gemfile": GEMFILE, "Gemfile.lock": lock("1.2.0")},
    )
    git(project, "checkout", "-q", "-b", "dependabot/bundler/foo-1.3.0")
    commit(project, "Bump foo", "2024-01-02T10:00:00Z", {"Gemfile.lock": lock("1.3.0")})
    git(project, "checkout", "-q", "main")
    git(
        project,
        "merge",
        "--no-ff",
        "-m",
        "Merge pull request #7 from acme/dependabot/bundler/foo-1.3.0",
        "dependabot/bundler/foo-1.3.0",
        date="2024-01-02T11:00:00Z",
    )
    git(project, "revert", "--no-edit", "-m", "1", "HEAD", date="2024-01-03T10:00:00Z")
    cairn_json(project, "import", "git")
    foo = reverts(project)["deps/foo"]
    assert (foo["from"], foo["to"]) == ("1.3.0", "1.2.0")


def test_a_lock_only_revert_naming_no_bump_gives_no_dependency_a_verdict(
    project: Path,
) -> None:
    history(project, "Update lockfile", lock("1.3.0", bar="0.3.0"))
    assert set(reverts(project)) == {"Gemfile.lock"}
    (project / "Gemfile.lock").write_text(lock("1.3.0", bar="0.3.0"))
    code, report = check_diff(project)
    assert code == 0, blocking(report)


def test_a_bump_the_lock_diff_does_not_show_gives_no_verdict(project: Path) -> None:
    # The subject names foo 1.3.0, but the lock's foo pin never changed: a verdict on
    # deps/foo would be read from the words alone.
    history(project, "Bump foo from 1.2.0 to 1.3.0", lock("1.2.0", rack="2.2.4"))
    assert set(reverts(project)) == {"Gemfile.lock"}


def yarn_lock(version: str) -> str:
    url = f"https://registry.yarnpkg.com/left-pad/-/left-pad-{version}.tgz#0a1b2c3d"
    return (
        f'left-pad@^1.2.0:\n  version "{version}"\n  resolved "{url}"\n'
        f"  integrity sha512-{version.replace('.', 'x')}AbCdEf==\n"
    )


def test_a_renovate_bump_taken_back_out_of_yarn_lock(project: Path) -> None:
    package = '{\n  "dependencies": {\n    "left-pad": "^1.2.0"\n  }\n}\n'
    files = {"index.js": "module.exports = 1;\n", "package.json": package}
    commit(project, "App", "2024-01-01T10:00:00Z", {**files, "yarn.lock": yarn_lock("1.2.0")})
    commit(
        project,
        "chore(deps): update dependency left-pad to v1.3.0",
        "2024-01-02T10:00:00Z",
        {"yarn.lock": yarn_lock("1.3.0")},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    cairn_json(project, "import", "git")
    pad = reverts(project)["deps/left-pad"]
    assert (pad["from"], pad["to"]) == ("1.3.0", "1.2.0")
    (project / "yarn.lock").write_text(yarn_lock("1.3.0"))
    code, report = check_diff(project)
    assert code == 1
    assert {f["entity"] for f in blocking(report)} == {"deps/left-pad"}
    (project / "yarn.lock").write_text(yarn_lock("1.3.1"))
    code, report = check_diff(project)
    assert code == 0, blocking(report)


def test_a_bump_undone_within_minutes_by_its_author_stays_quiet(project: Path) -> None:
    # The quiet rules hold for this verdict as for a manifest's: an accident.
    commit(
        project,
        "App",
        "2024-01-01T10:00:00Z",
        {"app.rb": "def main\n  run\nend\n", "Gemfile": GEMFILE, "Gemfile.lock": lock("1.2.0")},
    )
    commit(
        project,
        "Bump foo from 1.2.0 to 1.3.0",
        "2024-01-02T10:00:00Z",
        {"Gemfile.lock": lock("1.3.0")},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-02T10:03:00Z")
    cairn_json(project, "import", "git")
    assert reverts(project)["deps/foo"]["significance"] == "trivial"
    (project / "Gemfile.lock").write_text(lock("1.3.0"))
    code, report = check_diff(project)
    assert code == 0, blocking(report)


def test_a_gemnasium_subject_names_its_dependency_too(project: Path) -> None:
    # rubygems.org, 2012: `Revert "Update delayed_job dependency to version 3.0.0"`.
    history(project, "Update foo dependency to version 1.3.0", lock("1.3.0", bar="0.3.0"))
    events = reverts(project)
    assert set(events) == {"Gemfile.lock", "deps/foo"}
    assert (events["deps/foo"]["from"], events["deps/foo"]["to"]) == ("1.3.0", "1.2.0")


def test_a_name_the_canonicaliser_folds_is_one_entity_for_import_and_gate(
    project: Path,
) -> None:
    # rubygems.org's `delayed_job`: the lock spells `_`, the entity is `deps/delayed-job`.
    bumped = lock("1.2.0").replace("    rack (2.2.3)", "    rack (2.2.3)\n    delayed_job (3.0.0)")
    before = lock("1.2.0").replace("    rack (2.2.3)", "    rack (2.2.3)\n    delayed_job (2.1.4)")
    commit(project, "App", "2024-01-01T10:00:00Z", {"Gemfile": GEMFILE, "Gemfile.lock": before})
    commit(
        project,
        "Update delayed_job dependency to version 3.0.0",
        "2024-01-02T10:00:00Z",
        {"Gemfile.lock": bumped},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    cairn_json(project, "import", "git")
    assert set(reverts(project)) == {"Gemfile.lock", "deps/delayed-job"}
    (project / "Gemfile.lock").write_text(bumped)  # 3.0.0 back, in the lock alone
    code, report = check_diff(project)
    assert code == 1
    assert [f["entity"] for f in blocking(report)] == ["deps/delayed-job"]
