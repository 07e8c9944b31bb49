"""The GitLab CI job `cairn setup` writes, run offline: its YAML parses, its script (all
but the `pip install` line, which needs the network; the venv's `cairn` is on PATH as
the job would have it) runs in a real merge-request clone, and the report it leaves is
the Code Quality JSON GitLab documents, under the name the job's artifact declares.

GitLab's fields ("Code Quality report format", docs.gitlab.com/ci/testing/code_quality):
an array of issues, each with `description`, `check_name`, `fingerprint` (unique),
`severity` (info, minor, major, critical, blocker) and `location.path` (relative to the
repository) with `location.lines.begin`. `REPORT_SCHEMA` is that list, as a JSON schema.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml
from check_fixtures import MIGRATION, REVERT_REASON, git, make_project

BIN = Path(sys.executable).parent
REPORT_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "pattern": "^[^/]"},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}


def job_env(tmp: Path) -> dict[str, str]:
    """What GitLab gives a merge-request pipeline's job, and the venv's `cairn` on PATH."""
    out = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CAIRN_"))}
    out["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    out["GIT_CONFIG_GLOBAL"] = os.devnull
    out["CI_PIPELINE_SOURCE"] = "merge_request_event"
    out["CI_MERGE_REQUEST_TARGET_BRANCH_NAME"] = "main"
    out["HOME"] = str(tmp)
    return out


def test_the_written_job_reports_a_re_added_column_as_code_quality(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    make_project(repo)
    (repo / ".gitlab-ci.yml").write_text("stages: [test]\n\ntest:\n  script:\n    - make test\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "CI")
    setup = subprocess.run(
        [str(BIN / "cairn"), "setup", "--yes", "--only", "gitlab-ci"],
        cwd=repo, capture_output=True, text=True, env=job_env(tmp_path), timeout=120,
    )  # fmt: skip
    assert setup.returncode == 0, setup.stderr
    job = yaml.safe_load((repo / ".gitlab-ci.yml").read_text())["cairn"]
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    report_name = job["artifacts"]["reports"]["codequality"]
    assert job["artifacts"]["when"] == "always"  # a failing gate still uploads its report
    install, *script = job["script"]
    assert install.startswith("pip install")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "wire cairn")

    # The merge request: a branch that re-adds the reverted column, in a clone whose
    # origin holds the target branch (the job fetches it, from a local path here).
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    clone = tmp_path / "mr"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "checkout", "-qb", "verify-again")
    (clone / "db" / "003_verify.sql").write_text(MIGRATION)
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", "bring back e-mail verification")

    ran = subprocess.run(
        ["sh", "-ec", "\n".join(script)],
        cwd=clone, capture_output=True, text=True, env=job_env(tmp_path), timeout=120,
    )  # fmt: skip
    assert ran.returncode == 1, ran.stderr  # the job fails: the gate blocks
    issues = json.loads((clone / report_name).read_text())
    jsonschema.validate(issues, REPORT_SCHEMA)
    [issue] = issues
    assert issue["check_name"] == "cairn/reverted" and issue["severity"] == "blocker"
    assert REVERT_REASON in issue["description"]
    assert issue["location"]["path"] == "db/003_verify.sql"
    assert issue["location"]["lines"]["begin"] == 2
