"""Reverts found by content, placed on the innermost entity, recognised when they return.

Every test builds a real git history, runs the real `cairn import git`, then puts the
reverted change back in the working tree and asks the real `cairn check --diff HEAD`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from real_cli import cairn, cairn_json, check_diff, commit, git

from cairn.store import Store

JWT_V1 = """\
import json
import subprocess


class JWTManager:
    def encode(self, payload, key):
        headers = {"alg": "HS256"}
        return sign(headers, payload, key)

    def decode(self, token, key):
        return verify(token, key)
"""

CRIT_LINES = """\
        headers["crit"] = ["b64"]
        headers["b64"] = False
        payload = canonical_json(payload, sort_keys=True)
"""

JWT_V2 = JWT_V1.replace(
    '        headers = {"alg": "HS256"}\n', '        headers = {"alg": "HS256"}\n' + CRIT_LINES
)


def reverts(root: Path) -> list:
    with Store.open(root / ".cairn") as store:
        return [e for ent in store.entities() for e in store.history(ent) if e.type == "revert"]


def test_a_body_change_undone_by_hand_is_found_and_caught_in_a_renamed_function(
    project: Path,
) -> None:
    commit(project, "JWT manager", "2024-01-10T10:00:00Z", {"src/jwt.py": JWT_V1})
    commit(
        project,
        "Add crit header to jwt/jws\n\nRFC 7797 wants it (#812).",
        "2024-02-01T10:00:00Z",
        {"src/jwt.py": JWT_V2},
    )
    undo = commit(
        project,
        "Drop the crit header again\n\nOld clients reject tokens with crit.",
        "2024-02-23T10:00:00Z",
        {"src/jwt.py": JWT_V1},
    )
    cairn_json(project, "import", "git")
    [event] = reverts(project)
    # the body's lines belong to the method, not to the file or to nothing
    assert event.entity == "src/jwt.py::JWTManager.encode"
    assert event.commit == undo
    assert event.author == "Ann Example <ann@example.com>"
    assert event.metadata["found_by"] == "inverse-patch"
    hashes = event.metadata["fingerprint"].split()
    assert len(hashes) == 3 and all(len(h) == 8 for h in hashes)
    assert "canonical_json" not in json.dumps(event.metadata)  # hashes, never code
    # the reasoning: the revert's own words, then what it undid, then the refs
    assert event.reasoning.startswith("Drop the crit header again")
    assert "Old clients reject tokens with crit." in event.reasoning
    assert "Reverted change: Add crit header to jwt/jws" in event.reasoning
    assert "#812" in event.reasoning

    # The same lines come back in a renamed method (re-indented): caught, and said so.
    renamed = JWT_V2.replace("def encode", "def sign_token").replace(
        '        headers["b64"] = False', '        headers["b64"]   =   False'
    )
    (project / "src/jwt.py").write_text(renamed)
    code, report = check_diff(project)
    assert code == 1
    [back] = [f for f in report["findings"] if f["kind"] == "fingerprint"]
    assert back["blocking"] is True
    assert back["message"].startswith("this brings back 3 of the 3 lines reverted on 2024-02-23")
    assert f"`Drop the crit header again`, {undo[:7]}" in back["message"]
    assert back["verdict_id"] == event.id
    text = cairn(project, "check", "--diff", "HEAD")
    assert "brings back 3 of the 3 lines" in text.stdout

    # An ordinary edit inside the reverted method is shown, not blocked.
    (project / "src/jwt.py").write_text(JWT_V1.replace("return sign(", "return sign_v2("))
    code, report = check_diff(project)
    assert code == 0
    [info] = report["findings"]
    assert info["entity"] == "src/jwt.py::JWTManager.encode"
    assert info["blocking"] is False and info["severity"] == "information"

    # A higher threshold than what came back lets two of three lines through.
    (project / "src/jwt.py").write_text(JWT_V2.replace('        headers["b64"] = False\n', ""))
    assert check_diff(project)[0] == 1  # 2 of 3 inside the reverted method
    proc = cairn(project, "check", "--diff", "HEAD", "--threshold", "0.9", "--json")
    assert proc.returncode == 0, proc.stdout


def test_a_partial_revert_records_its_share_and_only_what_it_undid(project: Path) -> None:
    commit(
        project,
        "Base",
        "2024-01-01T10:00:00Z",
        {"a.py": "def one():\n    return 1\n", "b.py": "def two():\n    return 2\n"},
    )
    commit(
        project,
        "Retry both calls",
        "2024-01-02T10:00:00Z",
        {
            "a.py": "def one():\n    retry_with_backoff(attempts=5)\n    return 1\n",
            "b.py": "def two():\n    retry_with_backoff(attempts=7)\n    return 2\n",
        },
    )
    commit(
        project,
        "One is fine without retries",
        "2024-01-03T10:00:00Z",
        {"a.py": "def one():\n    return 1\n"},
    )
    cairn_json(project, "import", "git")
    [event] = reverts(project)
    assert event.entity == "a.py::one"
    assert event.metadata["found_by"] == "partial"
    assert event.metadata["share"] == "50%"
    (project / "a.py").write_text("def one():\n    retry_with_backoff(attempts=5)\n    return 1\n")
    code, report = check_diff(project)
    assert code == 1
    assert any("brings back 1 of the 1 lines" in f["message"] for f in report["findings"])
    # The same single line elsewhere is not that change: one line counts only in its entity.
    (project / "a.py").write_text("def one():\n    return 1\n")
    (project / "c.py").write_text("def three():\n    retry_with_backoff(attempts=5)\n")
    git(project, "add", "-N", "c.py")  # so that `git diff HEAD` shows the new file
    code, report = check_diff(project)
    assert code == 0 and report["files_checked"] >= 1
    assert not [f for f in report["findings"] if f["kind"] == "fingerprint"]


def test_a_squash_containing_a_revert_records_only_the_reverted_hunks(project: Path) -> None:
    commit(project, "Base", "2024-01-01T10:00:00Z", {"x.py": "def x():\n    return 0\n"})
    feature = commit(
        project,
        "Add cache to x",
        "2024-01-02T10:00:00Z",
        {"x.py": "def x():\n    cached = lru_cache_lookup(key)\n    return cached or 0\n"},
    )
    squash = commit(
        project,
        f'Cleanup release (#44)\n\n* Revert "Add cache to x"\n\nThis reverts commit {feature}.\n'
        "\n* Add y",
        "2024-01-03T10:00:00Z",
        {
            "x.py": "def x():\n    return 0\n",
            "y.py": "def y():\n    return compute_everything(slowly=True)\n",
        },
    )
    cairn_json(project, "import", "git")
    [event] = reverts(project)
    assert event.entity == "x.py::x"
    assert event.commit == squash
    assert event.metadata["found_by"] == "marker" and event.metadata["squash"] is True
    # re-applied: the whole squash undone brings the cache back (and drops y.py)
    git(project, "revert", "--no-commit", "HEAD")
    code, report = check_diff(project)
    assert code == 1
    assert {f["entity"] for f in report["findings"] if f["blocking"]} == {"x.py::x"}


def test_a_revert_of_a_revert_reopens_and_the_change_passes(project: Path) -> None:
    commit(project, "JWT manager", "2024-01-10T10:00:00Z", {"src/jwt.py": JWT_V1})
    commit(project, "Add crit header", "2024-02-01T10:00:00Z", {"src/jwt.py": JWT_V2})
    git(project, "revert", "--no-edit", "HEAD", date="2024-02-02T10:00:00Z")
    git(project, "revert", "--no-edit", "HEAD", date="2024-02-03T10:00:00Z")
    cairn_json(project, "import", "git")
    with Store.open(project / ".cairn") as store:
        history = store.history("src/jwt.py::JWTManager.encode")
        status = store.status("src/jwt.py::JWTManager.encode")
    assert [e.type.value for e in history] == ["revert", "supersede"]
    assert history[1].supersedes == history[0].id
    assert status.status.value == "reopened"
    # the lines are in HEAD again, re-opened on purpose: checking them is no finding
    proc = cairn(project, "check", "src/jwt.py", "--json")
    assert proc.returncode == 0, proc.stdout
    assert not [f for f in json.loads(proc.stdout)["findings"] if f["kind"] == "fingerprint"]


def test_binary_and_huge_generated_files_are_skipped_with_the_reason(project: Path) -> None:
    commit(project, "Base", "2024-01-01T10:00:00Z", {"app.py": "def main():\n    return 0\n"})
    # (not an image: an image is an asset, a quiet tree of one, see test_git_revert_scope)
    (project / "model.bin").write_bytes(b"\x89BIN\r\n\x1a\n\0\0\0" + bytes(range(256)) * 8)
    big = "".join(f"GENERATED_TABLE_{i} = {i * 7919}\n" for i in range(2_200_000))  # ~50 MB
    (project / "gen.py").write_text(big)
    commit(
        project,
        "Add model, table and a flag",
        "2024-01-02T10:00:00Z",
        {"app.py": "def main():\n    enable_the_experimental_flag()\n    return 0\n"},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    report = cairn_json(project, "import", "git")
    reasons = {s["item"].split()[-1]: s["reason"] for s in report["skipped_items"]}
    assert "binary" in reasons["model.bin"]
    assert "generated" in reasons["gen.py"]
    entities = {e["entity"] for e in report["events"]}
    assert {"app.py::main", "model.bin", "gen.py"} <= entities


def test_partial_and_shallow_clones(project: Path, tmp_path: Path) -> None:
    commit(project, "Base", "2024-01-01T10:00:00Z", {"a.py": "def a():\n    return 1\n"})
    commit(
        project,
        "Add audit",
        "2024-01-02T10:00:00Z",
        {"a.py": "def a():\n    write_audit_record(kind='a')\n    return 1\n"},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    git(project, "config", "uploadpack.allowFilter", "true")
    partial = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{project}", str(partial))
    assert cairn(partial, "init").returncode == 0
    proc = cairn(partial, "import", "git")
    assert proc.returncode == 2
    assert "partial clone" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr
    log = partial / ".cairn" / "decisions.jsonl"
    assert not log.exists() or not log.read_text().strip()  # nothing half-written

    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{project}", str(shallow))
    assert cairn(shallow, "init").returncode == 0
    report = cairn_json(shallow, "import", "git")
    assert any("shallow clone" in s["reason"] for s in report["skipped_items"])
    assert any("not in this repository's history" in s["reason"] for s in report["skipped_items"])


def test_a_downgrade_that_undoes_an_upgrade_is_a_revert_with_from_and_to(project: Path) -> None:
    commit(project, "Deps", "2024-01-01T10:00:00Z", {"requirements.txt": "psycopg2==2.6.1\n"})
    commit(
        project,
        "Upgrade psycopg2",
        "2024-01-02T10:00:00Z",
        {"requirements.txt": "psycopg2==2.7.3\n"},
    )
    commit(
        project,
        "Reverting to psycopg2==2.6.1 due to pip installation issues",
        "2024-01-03T10:00:00Z",
        {"requirements.txt": "psycopg2==2.6.1\n"},
    )
    cairn_json(project, "import", "git")
    with Store.open(project / ".cairn") as store:
        history = store.history("deps/psycopg2")
    by_type = {e.type.value: e for e in history}
    assert by_type["modify"].metadata["from"] == "==2.6.1"
    assert by_type["modify"].metadata["to"] == "==2.7.3"
    revert = by_type["revert"]
    assert revert.metadata["from"] == "==2.7.3" and revert.metadata["to"] == "==2.6.1"
    assert revert.metadata["found_by"] == "inverse-patch"
    assert revert.metadata["part"] == "body"  # the dependency stayed; its version went back
    # the version that was taken back, pinned again: caught
    (project / "requirements.txt").write_text("psycopg2==2.7.3\n")
    code, report = check_diff(project)
    assert code == 1
    assert any("brings back 1 of the 1 lines" in f["message"] for f in report["findings"])
    # another version is not that change: shown, not blocked
    (project / "requirements.txt").write_text("psycopg2==2.8.6\n")
    code, report = check_diff(project)
    assert code == 0
    assert [f["severity"] for f in report["findings"]] == ["information"]


def test_a_revert_naming_a_commit_missing_from_the_history_is_still_recorded(
    project: Path,
) -> None:
    # A branch rebased (or squash-merged) after its revert was written: the sha git's
    # marker names is in no repository, but the change is, under the same subject.
    commit(project, "Base", "2024-01-01T10:00:00Z", {"a.py": "def a():\n    return 1\n"})
    audit = commit(
        project,
        "Add audit",
        "2024-01-02T10:00:00Z",
        {"a.py": "def a():\n    write_audit_record(kind='a')\n    return 1\n"},
    )
    gone = "1234567890abcdef1234567890abcdef12345678"
    commit(
        project,
        f'Revert "Add audit"\n\nThis reverts commit {gone}.',
        "2024-01-03T10:00:00Z",
        {"a.py": "def a():\n    return 1\n"},
    )
    metrics = "def b():\n    emit_metric('b.calls', tags=['hot'])\n    return 2\n"
    commit(project, "Add metrics", "2024-01-04T10:00:00Z", {"b.py": metrics})
    commit(
        project,
        "Tweak b",
        "2024-01-05T10:00:00Z",
        {"b.py": metrics.replace("return 2", "return 2 + 0")},
    )
    other = "fedcba0987654321fedcba0987654321fedcba09"
    unmatched = commit(
        project,
        f'Revert "Add metrics from the old branch"\n\nThis reverts commit {other}.',
        "2024-01-06T10:00:00Z",
        {"b.py": "def b():\n    return 2 + 0\n"},
    )
    report = cairn_json(project, "import", "git")
    assert not [s for s in report["skipped_items"] if "history" in s["reason"]]
    by_entity = {e.entity: e for e in reverts(project)}
    # found by its subject: the change as this history has it
    assert by_entity["a.py::a"].metadata["reverted_commit"] == audit
    assert by_entity["a.py::a"].metadata["original_subject"] == "Add audit"
    # nothing to match: the revert's own diff is the record of what it undid
    lone = by_entity["b.py::b"]
    assert lone.commit == unmatched and lone.metadata["found_by"] == "marker"
    assert lone.metadata["reverted_commit"] == other
    (project / "b.py").write_text(metrics.replace("return 2", "return 2 + 0"))
    code, report = check_diff(project)
    assert code == 1
    assert any("brings back 1 of the 1 lines" in f["message"] for f in report["findings"])


PACKAGE = """{
  "name": "app",
  "version": "1.0.0",
  "dependencies": {
    "lodash": "^4.17.0",
    "react": "16.12.0"
  },
  "devDependencies": {
    "jest": "25.0.0"
  }
}
"""


def test_version_bumps_carried_from_the_diff_agree_with_the_indexer(project: Path) -> None:
    # Most manifest commits only bump versions; those versions are read from the diff
    # (not by indexing every manifest version). The events must be the same either way.
    pkg = PACKAGE
    steps = [
        ("Bump react", [("16.12.0", "16.13.0")]),
        ("Bump react and jest", [("16.13.0", "16.14.0"), ("25.0.0", "26.0.0")]),
        # a line that declares no dependency changed too: the indexer reads this one
        ("Release 1.1.0, newer lodash", [('"1.0.0"', '"1.1.0"'), ("^4.17.0", "^4.17.21")]),
        ("Bump react to 17", [("16.14.0", "17.0.0")]),
    ]
    commit(
        project,
        "Start",
        "2024-01-01T10:00:00Z",
        {"package.json": pkg, "requirements.txt": "Django==3.2  # LTS\n"},
    )
    for day, (message, swaps) in enumerate(steps, start=2):
        for old, new in swaps:
            pkg = pkg.replace(old, new)
        commit(project, message, f"2024-01-{day:02d}T10:00:00Z", {"package.json": pkg})
    commit(
        project,
        "Django 4.2",
        "2024-01-09T10:00:00Z",
        {"requirements.txt": "Django==4.2  # LTS\n"},
    )
    pkg = pkg.replace('"jest": "26.0.0"', '"jest": "26.0.0",\n    "left-pad": "1.3.0"')
    commit(project, "Add left-pad for the banner", "2024-01-10T10:00:00Z", {"package.json": pkg})
    cairn_json(project, "import", "git")
    with Store.open(project / ".cairn") as store:
        seen = {
            (ent, e.type.value, e.metadata.get("from"), e.metadata.get("to"))
            for ent in store.entities()
            for e in store.history(ent)
        }
    assert seen == {
        ("deps/react", "modify", "16.12.0", "16.13.0"),
        ("deps/react", "modify", "16.13.0", "16.14.0"),
        ("deps/jest", "modify", "25.0.0", "26.0.0"),
        ("deps/lodash", "modify", "^4.17.0", "^4.17.21"),
        ("deps/react", "modify", "16.14.0", "17.0.0"),
        ("deps/django", "modify", "==3.2", "==4.2"),
        ("deps/left-pad", "add", None, None),
    }


def test_a_version_is_carried_only_when_nothing_but_the_version_changed() -> None:
    from cairn.importers.git_deps import _swap

    assert _swap('    "react": "16.12.0",', '    "react": "16.13.0",', "16.12.0") == "16.13.0"
    assert _swap("Django==3.2  # LTS", "Django==4.2.1  # LTS", "==3.2") == "==4.2.1"
    assert _swap('  "a": "1.0",', '  "a": "1.0.1",', "1.0") == "1.0.1"
    # the name changed, or a quote would end the string: the indexer must read it
    assert _swap('    "react": "16.12.0",', '    "preact": "16.12.0",', "16.12.0") is None
    assert _swap('    "x": "1.0",', '    "x": "1.0", "y": "2",', "1.0") is None
    assert _swap('"x": "1.1", "y": "1.1"', '"x": "1.2", "y": "1.1"', "1.1") is None


def test_a_reverted_entity_that_came_back_and_stayed_is_superseded_in_practice(
    project: Path,
) -> None:
    init = 'def get_version(v):\n    return ".".join(map(str, v))\n'
    commit(project, "Package", "2015-01-01T10:00:00Z", {"app/__init__.py": init})
    commit(
        project,
        "Versioning changes",
        "2015-01-05T10:00:00Z",
        {"app/__init__.py": init + "VERSION = (0, 9, 0)\n"},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2015-02-18T10:00:00Z")
    back = commit(
        project,
        "Move version into the package",
        "2016-08-18T10:00:00Z",
        {"app/__init__.py": init + "VERSION = (1, 6, 0)\n"},
    )
    # It stays: releases bump it for years (well past the survival rule's bounds).
    for i in range(25):
        commit(
            project,
            f"Release 1.{7 + i}",
            f"2016-{9 + i // 10:02d}-{1 + (i % 10) * 2:02d}T10:00:00Z",
            {"app/__init__.py": init + f"VERSION = (1, {7 + i}, 0)\n"},
        )
    # A second reverted constant, put back only days before HEAD: still flagged.
    commit(
        project,
        "Add the beta flag",
        "2018-11-01T10:00:00Z",
        {"app/flags.py": "BETA = True\n"},
    )
    git(project, "revert", "--no-edit", "HEAD", date="2018-11-02T10:00:00Z")
    commit(project, "Beta for the launch", "2018-11-20T10:00:00Z", {"app/flags.py": "BETA = 1\n"})
    cairn_json(project, "import", "git")
    with Store.open(project / ".cairn") as store:
        version = store.status("app/__init__.py::VERSION")
        history = store.history("app/__init__.py::VERSION")
        beta = store.status("app/flags.py::BETA")
    revert, supersede = history
    assert revert.type.value == "revert" and supersede.type.value == "supersede"
    assert supersede.supersedes == revert.id and supersede.commit == back
    assert supersede.metadata["found_by"] == "reintroduced"
    assert supersede.metadata["survived_commits"] >= 20
    assert supersede.metadata["survived_days"] >= 90
    assert version.status.value == "reopened"
    assert beta.status.value == "reverted"  # back too recently to say it stayed
    # the next version bump is no re-introduction of a reverted change...
    (project / "app/__init__.py").write_text(init + "VERSION = (2, 0, 0)\n")
    assert check_diff(project)[0] == 0
    # ...but touching the young one still is
    (project / "app/flags.py").write_text("BETA = False\n")
    code, report = check_diff(project)
    assert code == 1
    assert {f["entity"] for f in report["findings"] if f["blocking"]} == {"app/flags.py::BETA"}


def test_reinstating_part_of_a_reverted_change_reopens_only_that_part(project: Path) -> None:
    base = {"a.py": "def a():\n    return 1\n", "b.py": "def b():\n    return 2\n"}
    cached = {
        "a.py": "def a():\n    cache_result_forever(a_key)\n    return 1\n",
        "b.py": "def b():\n    cache_result_forever(b_key)\n    return 2\n",
    }
    commit(project, "Base", "2024-01-01T10:00:00Z", base)
    commit(project, "Cache a and b", "2024-01-02T10:00:00Z", cached)
    git(project, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    commit(project, "Reinstate the cache of a", "2024-01-04T10:00:00Z", {"a.py": cached["a.py"]})
    cairn_json(project, "import", "git")
    with Store.open(project / ".cairn") as store:
        a, b = store.status("a.py::a"), store.status("b.py::b")
    assert a.status.value == "reopened"
    assert b.status.value == "reverted"  # b's cache was not put back: its revert stands
    (project / "b.py").write_text(cached["b.py"])
    code, report = check_diff(project)
    assert code == 1
    assert {f["entity"] for f in report["findings"] if f["blocking"]} == {"b.py::b"}


def test_a_commit_with_a_malformed_time_zone_keeps_its_date(project: Path) -> None:
    """Old tools wrote offsets like `+051800` (psf/requests, 2011); git accepts them.
    One such commit must not stop the import: its seconds are read as UTC."""
    commit(project, "JWT manager", "2024-01-10T10:00:00Z", {"src/jwt.py": JWT_V1})
    commit(project, "Add crit header", "2024-02-01T10:00:00Z", {"src/jwt.py": JWT_V2})
    git(project, "revert", "--no-edit", "HEAD", date="2024-02-02T10:00:00Z")
    raw = git(project, "cat-file", "commit", "HEAD")
    bad = raw.replace(" +0000\n", " +051800\n")
    assert bad.count("+051800") == 2  # author and committer
    written = subprocess.run(
        ["git", "hash-object", "-t", "commit", "--literally", "-w", "--stdin"],
        cwd=project,
        input=bad + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(project, "update-ref", "HEAD", written)
    cairn_json(project, "import", "git")
    [event] = reverts(project)
    assert event.entity == "src/jwt.py::JWTManager.encode"
    assert event.occurred_at.startswith("2024-02-02T10:00:00")
