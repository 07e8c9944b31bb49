"""Decisions follow code through the refactorings CodeTracker's oracle is made of (issue
30): a class renamed together with its file, a rename with a body change in the same
commit, an old name still written in the file, a name that arrived late in its file.
Real git repositories, the real `cairn import git` and `cairn status`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from real_cli import BIN, cairn, cairn_json, commit, env, git

from importers.test_git_renames import renames

POOL = """\
package okhttp;

public final class {cls} {{
  private final Deque<RealConnection> connections = new ArrayDeque<>();

  RealConnection get(Address address, StreamAllocation streamAllocation) {{
    for (RealConnection connection : connections) {{
      if (connection.allocations.size() < connection.allocationLimit
          && address.equals(connection.route().address)
          && !connection.noNewStreams) {{
        streamAllocation.acquire(connection);
        return connection;
      }}
    }}
    return null;
  }}
{extra}}}
"""

TOKENS = """\
def make_token(user):
    payload = {"sub": user.id, "name": user.name, "iat": now()}
    headers = {"alg": "HS256", "typ": "JWT"}
    signed = encode(payload, headers, secret=SECRET)
    audit_log.write("token issued", user.id)
    return signed
"""


def reject(root: Path, entity: str, when: str = "2024-01-15") -> None:
    proc = cairn(
        root, "reject", entity, "--alternative", "pool per host", "-r", "one pool is enough",
        "--occurred-at", when,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def status(root: Path, entity: str) -> dict:
    out: dict = cairn_json(root, "status", entity)
    return out


def test_a_class_renamed_with_its_file_carries_its_methods_to_paths_that_existed(
    project: Path,
) -> None:
    old = "src/okhttp/HttpConnectionPool.java"
    before = POOL.format(cls="HttpConnectionPool", extra="")
    commit(project, "Pool", "2024-01-01T10:00:00Z", {old: before})
    reject(project, f"{old}::HttpConnectionPool.get")
    git(project, "mv", old, "src/okhttp/ConnectionPool.java")
    new = "src/okhttp/ConnectionPool.java"
    # Java's rule: the class takes the file's new name in the same commit.
    (project / new).write_text(POOL.format(cls="ConnectionPool", extra=""))
    git(project, "commit", "-qam", "HttpConnectionPool becomes ConnectionPool",
        date="2024-02-01T10:00:00Z")  # fmt: skip

    cairn_json(project, "import", "git")
    found = status(project, f"{new}::ConnectionPool.get")
    assert found["status"] == "rejected"
    # Not `HttpConnectionPool.java::ConnectionPool.get`: that path never existed.
    assert found["formerly"] == [f"{old}::HttpConnectionPool.get"]
    changes = {(e, m.get("change")) for e, _c, m in renames(project)}
    assert (f"{new}::ConnectionPool", "rename") in changes  # the class's own link
    assert (new, None) in changes  # and the file's, for what is decided on the file


def test_a_rename_with_a_body_change_in_the_same_commit_is_one_link(project: Path) -> None:
    commit(project, "Tokens", "2024-01-01T10:00:00Z", {"src/tokens.py": TOKENS})
    reject(project, "src/tokens.py::make_token")
    edited = TOKENS.replace("def make_token", "def issue_token").replace(
        '    audit_log.write("token issued", user.id)\n',
        '    audit_log.write("token issued", user.id, level="info")\n',
    )
    moved = commit(project, "Issue tokens", "2024-02-01T10:00:00Z", {"src/tokens.py": edited})

    cairn_json(project, "import", "git")
    assert [(e, c, m["change"]) for e, c, m in renames(project)] == [
        ("src/tokens.py::issue_token", moved, "rename"),
        ("src/tokens.py::make_token", moved, "rename"),
    ]
    assert status(project, "src/tokens.py::issue_token")["status"] == "rejected"


def test_an_old_name_left_as_a_call_site_does_not_hide_the_rename(project: Path) -> None:
    """The words of the file still hold `make_token` (a caller, a comment); its
    declaration is gone, and that is what counts."""
    caller = "\n\ndef login(user):\n    # make_token: the old name\n    return make_token(user)\n"
    commit(project, "Tokens", "2024-01-01T10:00:00Z", {"src/tokens.py": TOKENS + caller})
    reject(project, "src/tokens.py::make_token")
    renamed = TOKENS.replace("def make_token", "def issue_token")
    commit(project, "Issue tokens", "2024-02-01T10:00:00Z", {"src/tokens.py": renamed + caller})

    cairn_json(project, "import", "git")
    assert status(project, "src/tokens.py::issue_token")["formerly"] == [
        "src/tokens.py::make_token"
    ]


def test_a_name_that_arrived_late_in_its_file_is_followed_from_where_it_was(
    project: Path,
) -> None:
    """The search for when the name left starts from its last version, not the file's
    first: before it arrived, its absence says nothing."""
    base = "import os\n"
    commit(project, "Start", "2024-01-01T10:00:00Z", {"src/tokens.py": base})
    for day in range(2, 9):
        base += f"\nVALUE_{day} = {day}\n"
        commit(project, f"Value {day}", f"2024-01-0{day}T10:00:00Z", {"src/tokens.py": base})
    commit(project, "Tokens", "2024-01-10T10:00:00Z", {"src/tokens.py": base + TOKENS})
    reject(project, "src/tokens.py::make_token")
    renamed = TOKENS.replace("def make_token", "def issue_token")
    moved = commit(project, "Rename", "2024-02-01T10:00:00Z", {"src/tokens.py": base + renamed})
    commit(project, "More", "2024-02-02T10:00:00Z", {"src/tokens.py": base + renamed + "X = 1\n"})

    cairn_json(project, "import", "git")
    assert [(e, c) for e, c, _m in renames(project)] == [
        ("src/tokens.py::issue_token", moved),
        ("src/tokens.py::make_token", moved),
    ]


def test_look_alike_candidates_link_nothing(project: Path) -> None:
    """Two new functions with the same body: which one it became cannot be told, so no
    link is made rather than a guess."""
    commit(project, "Tokens", "2024-01-01T10:00:00Z", {"src/tokens.py": TOKENS})
    reject(project, "src/tokens.py::make_token")
    twins = (
        TOKENS.replace("def make_token", "def issue_token")
        + "\n\n"
        + TOKENS.replace("def make_token", "def mint_token")
    )
    commit(project, "Two", "2024-02-01T10:00:00Z", {"src/tokens.py": twins})

    cairn_json(project, "import", "git")
    assert renames(project) == []


def _import_with(root: Path, reads: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "cairn"), "import", "git", "--json"],
        cwd=root,
        env=env(CAIRN_RENAME_READS=reads),
        capture_output=True,
        text=True,
    )


def test_the_bound_on_following_is_said_with_what_it_left_and_how_to_raise_it(
    project: Path,
) -> None:
    commit(project, "Tokens", "2024-01-01T10:00:00Z", {"src/tokens.py": TOKENS})
    reject(project, "src/tokens.py::make_token")
    renamed = TOKENS.replace("def make_token", "def issue_token")
    commit(project, "Issue tokens", "2024-02-01T10:00:00Z", {"src/tokens.py": renamed})

    bad = _import_with(project, "lots")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().count("\n") == 0 and "CAIRN_RENAME_READS" in bad.stderr
    assert renames(project) == []  # nothing half-written

    proc = _import_with(project, "1")
    assert proc.returncode == 0, proc.stderr
    [said] = [s for s in json.loads(proc.stdout)["skipped_items"] if s["item"] == "symbol moves"]
    assert "1 of 1 not followed" in said["reason"]
    assert "CAIRN_RENAME_READS" in said["reason"]


JOB = """\
class Job:
    def run(self):
        request = prepare(self.request, headers=self.headers)
        response = send(request, retries=3, timeout=self.timeout)
        audit_log.write("job done", response.status)
        return self.execute(response)

    def execute(self, response):
        return response
"""

INLINED = """\
class Job:
    def execute(self):
        request = prepare(self.request, headers=self.headers)
        response = send(request, retries=3, timeout=self.timeout)
        audit_log.write("job done", response.status)
        return response
"""


def test_a_method_inlined_into_the_one_it_called_follows_it_there(project: Path) -> None:
    """`execute` was declared before; it now holds `run`'s body, more like `run` than
    like what it was, so `run`'s decisions go with it."""
    commit(project, "Job", "2024-01-01T10:00:00Z", {"src/job.py": JOB})
    reject(project, "src/job.py::Job.run")
    moved = commit(project, "Inline run", "2024-02-01T10:00:00Z", {"src/job.py": INLINED})

    cairn_json(project, "import", "git")
    assert [(e, c) for e, c, _m in renames(project)] == [
        ("src/job.py::Job.execute", moved),
        ("src/job.py::Job.run", moved),
    ]


def test_a_former_path_is_shown_only_where_something_was_logged_on_it(project: Path) -> None:
    """`logout` arrived after `auth.py` became `session.py`: the file's rename covers
    `src/auth.py::logout`, but that path never existed, so it is not shown."""
    commit(project, "Auth", "2024-01-01T10:00:00Z", {"src/auth.py": TOKENS})
    reject(project, "src/auth.py::make_token")
    git(project, "mv", "src/auth.py", "src/session.py")
    git(project, "commit", "-qm", "Session", date="2024-02-01T10:00:00Z")
    logout = "\n\ndef logout(user):\n    forget(user.session_id)\n    return None\n"
    commit(project, "Logout", "2024-02-02T10:00:00Z", {"src/session.py": TOKENS + logout})
    reject(project, "src/session.py::logout", when="2024-02-03")

    cairn_json(project, "import", "git")
    assert status(project, "src/session.py::make_token")["formerly"] == ["src/auth.py::make_token"]
    assert status(project, "src/session.py::logout")["formerly"] == []


CHECKER = """\
package checkstyle;

class Checker {{
  int process(String fileName) {{
    LineText[] errors = verify(fileName);
    if (errors.length > 0) {{
      {report}(fileName, errors);
    }}
    return errors.length;
  }}
{methods}}}
"""

DISPLAY = """
  private void displayErrors(String fileName, LineText[] errors) {
    for (int i = 0; i < errors.length; i++) {
      log.println(fileName + ":" + errors[i].getLineNo() + ": " + errors[i].getText());
    }
  }
"""

# The rename keeps the parameters and half the body; the commit also adds an overload
# of `process`, which loops over the errors too and is about as alike by its tokens.
FIRE = """
  int process(String[] fileNames) {
    int total = 0;
    for (int i = 0; i < fileNames.length; i++) {
      total += process(fileNames[i]);
      log.println(fileNames[i] + ": " + total);
    }
    return total;
  }

  protected void fireErrors(String fileName, LineText[] errors) {
    for (int i = 0; i < errors.length; i++) {
      final AuditEvent event =
          new AuditEvent(this, fileName, errors[i].getLineNo(), errors[i].getText());
      final Iterator it = listeners.iterator();
      while (it.hasNext()) {
        ((AuditListener) it.next()).addError(event);
      }
    }
  }
"""


def test_a_rename_that_keeps_its_parameters_beats_a_new_overload_of_another_name(
    project: Path,
) -> None:
    """checkstyle 0e3fe56436: `displayErrors` became `fireErrors` while `process` got a
    second overload. The new overload is an arrival (it is not the `process` the file
    had), and the kept parameter list says which arrival the method became."""
    path = "src/checkstyle/Checker.java"
    before = CHECKER.format(report="displayErrors", methods=DISPLAY)
    commit(project, "Checker", "2024-01-01T10:00:00Z", {path: before})
    reject(project, f"{path}::Checker.displayErrors")
    after = CHECKER.format(report="fireErrors", methods=FIRE)
    moved = commit(project, "Listeners", "2024-02-01T10:00:00Z", {path: after})

    cairn_json(project, "import", "git")
    assert [(e, c, m["change"]) for e, c, m in renames(project)] == [
        (f"{path}::Checker.displayErrors", moved, "rename"),
        (f"{path}::Checker.fireErrors", moved, "rename"),
    ]
    assert status(project, f"{path}::Checker.fireErrors")["status"] == "rejected"
    assert status(project, f"{path}::Checker.process")["status"] != "rejected"
